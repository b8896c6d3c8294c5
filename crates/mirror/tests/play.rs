//! `mirror play` over pipes and `mirror uci` with a real UCI client and Stockfish.

mod common;

use common::*;

/// The line with the mirror's reply to White's first move.
fn first_reply(out: &str) -> &str {
    out.lines()
        .find(|l| l.contains("mirror plays 1..."))
        .unwrap_or_else(|| panic!("no reply to 1. in:\n{out}"))
}

fn play(env: &Env, args: &[&str], input: &str) -> (String, String, bool) {
    let mut cmd = env.cmd();
    cmd.arg("play").args(args);
    let out = with_stdin(cmd, input);
    (
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8(out.stderr).expect("utf-8"),
        out.status.success(),
    )
}

#[test]
fn a_piped_game_with_every_command() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let save = env.dir.path().join("game.pgn");
    let save_s = save.to_str().expect("path");
    let input = "help\ne4\nhint\nbook\nKe3\nbanana\nNf3\nundo\nflip\nNf3\npgn\nresign\n";
    let (out, err, ok) = play(
        &env,
        &["--user", "biskupstunga", "--seed", "5", "--save", save_s],
        input,
    );
    assert!(ok, "{out}\n{err}");
    assert!(
        out.contains("You play White against Biskupstunga's mirror"),
        "{out}"
    );
    assert!(out.contains("undo    take back"), "help: {out}");
    // The reply to 1. e4 comes from the player's book and says so.
    let reply = first_reply(&out);
    // play's default policy is habit (sampling), which has no tiers: its source says so.
    assert!(
        reply.contains("[book, habit:1 (games played + 1 x model): ") && !reply.contains("tier"),
        "{reply}"
    );
    // First in a player's words, with the player's name as stored (asked in lower case).
    assert!(
        reply.contains("   Biskupstunga's move here in ") && reply.contains(" games, scoring "),
        "{reply}"
    );
    assert!(
        out.contains("Biskupstunga's mirror would play "),
        "hint: {out}"
    );
    assert!(
        out.contains("Biskupstunga's moves here as White"),
        "book: {out}"
    );
    assert!(out.contains("\"Ke3\" is not a legal move here"), "{out}");
    assert!(out.contains("\"banana\" is neither SAN"), "{out}");
    assert!(out.contains("took back; 2 moves played"), "{out}");
    assert!(out.contains("    h  g  f  e  d  c  b  a"), "flip: {out}");
    assert!(out.contains("[Event \"mirror play\"]"), "pgn: {out}");
    assert!(out.contains("game over: 0-1 (White resigned)"), "{out}");
    let pgn = std::fs::read_to_string(&save).expect("saved");
    assert!(pgn.contains("[Result \"0-1\"]") && pgn.contains("[Termination \"White resigned\"]"));
    assert!(pgn.contains("[Black \"Biskupstunga (mirror)\"]"), "{pgn}");
    assert!(pgn.contains("1. e4 ") && pgn.contains("2. Nf3 "), "{pgn}");

    // The saved game reads back as a legal game: four plies, four edges.
    let decoded = saved_game_edges(&pgn);
    assert_eq!(decoded, vec![4]);

    // Same seed, same input: the same game.
    let save2 = env.dir.path().join("game2.pgn");
    let (out2, _, _) = play(
        &env,
        &[
            "--user",
            "biskupstunga",
            "--seed",
            "5",
            "--save",
            save2.to_str().expect("path"),
        ],
        input,
    );
    let strip = |s: &str| {
        s.replace(save_s, "")
            .replace(save2.to_str().expect("p"), "")
    };
    assert_eq!(strip(&out), strip(&out2));
}

/// Ingests a saved game for the player "You" with the same decoder the ingester uses and
/// returns its edge count (one per ply in a game without repeated positions).
fn saved_game_edges(pgn: &str) -> Vec<usize> {
    let env = Env::new();
    let path = env.dir.path().join("g.pgn");
    std::fs::write(&path, pgn).expect("write");
    let s = env.ok(&[
        "ingest",
        "--user",
        "You",
        "--progress",
        "none",
        "--pgn",
        path.to_str().expect("path"),
    ]);
    assert_eq!(summary_value(&s, "ingested"), 1, "{s}");
    let edges = env.ok(&["edges", "--user", "You"]);
    vec![edges.lines().count()]
}

/// `--clock 6+0 --pace`: the prompt shows both clocks, the mirror says how long the
/// player would take and waits that long (within the clock), and the saved game has its
/// time control and every move's clock, which an ingest reads back as the moves' times.
#[test]
fn a_game_with_a_clock_at_the_players_pace() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let save = env.dir.path().join("clocked.pgn");
    let save_s = save.to_str().expect("path");
    let args = [
        "--user", PLAYER, "--seed", "5", "--clock", "6+0", "--pace", "--save", save_s,
    ];
    let started = std::time::Instant::now();
    let (out, err, ok) = play(&env, &args, "e4\nNf3\nresign\n");
    let took = started.elapsed().as_secs_f64();
    assert!(ok, "{out}\n{err}");
    assert!(
        out.contains("(pace: the mirror takes the time Biskupstunga took"),
        "{out}"
    );
    assert!(
        out.contains("your move (you 0:00:06.0, mirror 0:00:06.0)> "),
        "{out}"
    );
    let waits: Vec<f64> = out
        .lines()
        .filter_map(|l| l.split("(the mirror thinks: pace: ").nth(1))
        .map(|l| {
            l.split(' ')
                .next()
                .and_then(|s| s.parse().ok())
                .expect("seconds")
        })
        .collect();
    assert_eq!(waits.len(), 2, "{out}");
    // Never more than half the clock left less a second.
    assert!(waits.iter().all(|w| *w <= 2.5), "{waits:?}");
    assert!(took >= waits.iter().sum::<f64>() - 0.1, "{took} {waits:?}");
    let pgn = std::fs::read_to_string(&save).expect("saved");
    assert!(pgn.contains("[TimeControl \"6+0\"]"), "{pgn}");
    assert_eq!(pgn.matches("[%clk 0:00:0").count(), 4, "{pgn}");
    let timed = saved_game_timed_edges(&pgn);
    assert_eq!(timed, 4, "every move of the saved game has its time: {pgn}");
    let (_, err, ok) = play(&env, &["--user", PLAYER, "--clock", "5:00"], "");
    assert!(!ok && err.contains("\"5:00\" is not a clock"), "{err}");
}

/// The edges of a saved game (ingested alone, for "You") whose move has a time.
fn saved_game_timed_edges(pgn: &str) -> usize {
    let env = Env::new();
    let path = env.dir.path().join("g.pgn");
    std::fs::write(&path, pgn).expect("write");
    let p = path.to_str().expect("path");
    env.ok(&["ingest", "--user", "You", "--progress", "none", "--pgn", p]);
    let edges = env.ok(&["edges", "--user", "You"]);
    edges.lines().filter(|l| l.contains("\"n\":1")).count()
}

#[test]
fn mirror_opens_as_white_and_input_end_saves_an_unfinished_game() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let save = env.dir.path().join("g.pgn");
    let (out, err, ok) = play(
        &env,
        &[
            "--user",
            PLAYER,
            "--color",
            "black",
            "--seed",
            "1",
            "--save",
            save.to_str().expect("p"),
        ],
        "",
    );
    assert!(ok, "{err}");
    let first = out
        .lines()
        .find(|l| l.starts_with("mirror plays 1."))
        .expect("mirror moves first");
    assert!(first.contains("[book, habit:1 "), "{first}");
    assert!(
        out.contains("game over: * (unfinished (input ended))"),
        "{out}"
    );
    let pgn = std::fs::read_to_string(&save).expect("saved");
    assert!(pgn.contains("[White \"Biskupstunga (mirror)\"]") && pgn.contains("[Result \"*\"]"));
}

/// `--from-moves`: the game starts after a line (as `mirror prep` prints it); the mirror
/// answers from there, the line cannot be taken back, and the saved PGN replays from the
/// start position with the line first. A line that is not legal is refused.
#[test]
fn a_game_starts_from_a_line() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let save = env.dir.path().join("line.pgn");
    let (out, err, ok) = play(
        &env,
        &[
            "--user",
            PLAYER,
            "--color",
            "black",
            "--seed",
            "1",
            "--from-moves",
            "e4 c5 Nf3 d6",
            "--save",
            save.to_str().expect("p"),
        ],
        "undo\nundo\nquit\n",
    );
    assert!(ok, "{err}");
    assert!(out.contains("from 1. e4 c5 2. Nf3 d6"), "{out}");
    let reply = out
        .lines()
        .find(|l| l.starts_with("mirror plays 3."))
        .unwrap_or_else(|| panic!("the mirror moves third: {out}"));
    assert!(reply.contains("[book,"), "{reply}");
    // No move of the user's to take back: the line and the mirror's reply stay.
    assert_eq!(out.matches("nothing to undo").count(), 2, "{out}");
    let pgn = std::fs::read_to_string(&save).expect("saved");
    assert!(pgn.contains("1. e4 c5 2. Nf3 d6 3."), "{pgn}");
    let err = env.fails(&["play", "--user", PLAYER, "--from-moves", "e4 e5 Ke3"]);
    assert!(err.contains("invalid --from-moves"), "{err}");
}

#[test]
fn play_needs_a_known_player_and_valid_options() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let err = env.fails(&["play", "--user", "nobody"]);
    assert!(err.contains("unknown player \"nobody\""), "{err}");
    let err = env.fails(&["play", "--user", PLAYER, "--tiers", "w>2"]);
    assert!(err.contains("invalid tiers"), "{err}");
    let err = env.fails(&["play"]);
    assert!(err.contains("which player?"), "{err}");
    let cfg = env.dir.path().join("bad.toml");
    std::fs::write(&cfg, "seed = 1\nspeed = 3\n").expect("write");
    let err = env.fails(&["play", "--config", cfg.to_str().expect("p")]);
    assert!(
        err.contains("invalid config") && err.contains("speed"),
        "{err}"
    );
}

#[test]
fn config_file_sets_player_seed_and_tiers() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let cfg = env.dir.path().join("mirror.toml");
    std::fs::write(
        &cfg,
        "player = \"Biskupstunga\"\nseed = 9\npolicy = \"tiers\"\ntiers = \"wd>0\"\nmin_games = 20\ntime_class = [\"blitz\", \"rapid\"]\n",
    )
    .expect("write");
    let (out, err, ok) = play(&env, &["--config", cfg.to_str().expect("p")], "e4\nquit\n");
    assert!(ok, "{err}");
    // With min_games 20, only d5 (131 games) is left after 1. e4 in one tier.
    let reply = first_reply(&out);
    assert!(
        reply.contains("1... d5") && reply.contains("tier 1 (win+draw > 0)"),
        "{reply}"
    );
}

/// Runs a python-chess script of `tests/reference/` that drives `mirror uci` (on the first
/// 500 real games, the test's data directory) against Stockfish; its games as JSON.
fn uci_script_games(script: &str, extra: &[&str]) -> Vec<serde_json::Value> {
    let stockfish =
        std::env::var("MIRROR_STOCKFISH").unwrap_or_else(|_| "/usr/games/stockfish".into());
    assert!(
        std::path::Path::new(&stockfish).exists(),
        "Stockfish not found at {stockfish}: apt-get install stockfish (or set MIRROR_STOCKFISH)"
    );
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let out = std::process::Command::new(
        std::env::var("MIRROR_PYTHON").unwrap_or_else(|_| "python3".into()),
    )
    .arg(repo().join("tests/reference").join(script))
    .env("MIRROR_DATA_DIR", env.dir.path())
    .arg(env!("CARGO_BIN_EXE_mirror"))
    .arg(env.db())
    .arg(PLAYER)
    .arg(&stockfish)
    .args(extra)
    .output()
    .expect("python3");
    assert!(
        out.status.success(),
        "{script} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    v["games"].as_array().expect("games").clone()
}

#[test]
fn uci_with_python_chess_against_stockfish() {
    let games = uci_script_games("uci_match.py", &["2"]);
    assert_eq!(games.len(), 2);
    for g in &games {
        assert!(g["mirror_moves"].as_u64().expect("n") > 0, "{g}");
        assert_ne!(g["termination"], "MAX_PLIES", "games end by the rules: {g}");
        assert_ne!(g["result"], "*", "{g}");
    }
}

/// The six basic won endings of the fidelity issue, which the mirror used to draw by
/// repetition (and once lose its bishop): now mated against Stockfish's defence (depth 12)
/// within the 50-move rule, through UCI as a GUI would drive it.
#[test]
fn basic_endings_are_won_against_stockfish() {
    let games = uci_script_games("uci_endings.py", &[]);
    assert_eq!(games.len(), 6);
    for g in &games {
        assert_eq!(g["termination"], "CHECKMATE", "{g}");
        assert_eq!(g["mirror_won"], true, "{g}");
        assert!(g["mirror_moves"].as_u64().expect("n") <= 50, "{g}");
    }
}

#[test]
fn a_trained_model_answers_outside_the_book() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let out = env.ok(&[
        "train",
        "--user",
        PLAYER,
        "--epochs",
        "1",
        "--max-positions",
        "1500",
        "--from-scratch",
        "--channels",
        "16",
        "--layers",
        "2",
    ]);
    assert!(
        out.contains("model saved in") && out.contains("random legal"),
        "{out}"
    );
    assert!(
        env.dir
            .path()
            .join("models/biskupstunga/meta.json")
            .exists()
    );
    let save = env.dir.path().join("g.pgn");
    // 1. Na3 never happens in the player's games: the reply comes from the model.
    let (out, err, ok) = play(
        &env,
        &[
            "--user",
            PLAYER,
            "--seed",
            "1",
            "--save",
            save.to_str().expect("p"),
        ],
        "Na3\nquit\n",
    );
    assert!(ok, "{err}");
    let reply = first_reply(&out);
    assert!(reply.contains("[fallback model ("), "{reply}");
    assert!(reply.contains(", guarded)"), "{reply}");
    assert!(!out.contains("no trained model"), "{out}");
    // Without the guard the model's first choice is played and the label says so.
    let (out, err, ok) = play(
        &env,
        &["--user", PLAYER, "--seed", "1", "--guard", "false"],
        "Na3\nquit\n",
    );
    assert!(ok, "{err}");
    let reply = first_reply(&out);
    assert!(
        reply.contains("[fallback model (") && !reply.contains("guarded"),
        "{reply}"
    );
}

/// Runs `mirror uci` with `input`; returns stdout.
fn uci_session(env: &Env, args: &[&str], input: &str) -> String {
    let mut cmd = env.cmd();
    cmd.arg("uci").args(args);
    assert_ok(with_stdin(cmd, input), args)
}

/// Unless GameTimeClass is set, the clock of a game's first `go` says what is being
/// played (the side to move's time plus 40 increments, Chess.com's classes), once a game;
/// a GameTimeClass set by the GUI wins over the clock.
#[test]
fn uci_reads_the_time_class_from_the_clock() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let input = "uci\nucinewgame\nposition startpos\ngo wtime 60000 btime 60000 winc 0 binc 0\n\
                 position startpos moves e2e4 e7e5\ngo wtime 51000 btime 52000\nuci\n\
                 ucinewgame\nposition startpos moves e2e4\ngo wtime 599000 btime 600000 winc 0 binc 0\n\
                 ucinewgame\nposition startpos moves d2d4\ngo wtime 180000 btime 180000 winc 2000 binc 2000\n\
                 setoption name GameTimeClass value daily\nucinewgame\nposition startpos\n\
                 go wtime 60000 btime 60000\nuci\nquit\n";
    let out = uci_session(&env, &["--user", PLAYER, "--seed", "1"], input);
    let starting =
        |prefix: &str| -> Vec<&str> { out.lines().filter(|l| l.starts_with(prefix)).collect() };
    assert_eq!(
        starting("info string playing"),
        [
            "info string playing bullet (the clock: 60 s + 0 s a move)",
            // Black's clock at Black's first move: 600 s is rapid on Chess.com.
            "info string playing rapid (the clock: 600 s + 0 s a move)",
            // 180 + 40 x 2 = 260 s: blitz.
            "info string playing blitz (the clock: 180 s + 2 s a move)",
        ],
        "{out}"
    );
    assert_eq!(
        starting("option name GameTimeClass"),
        [
            "option name GameTimeClass type string default <empty>",
            "option name GameTimeClass type string default bullet",
            "option name GameTimeClass type string default daily",
        ],
        "{out}"
    );
    assert_eq!(out.matches("bestmove ").count(), 5, "{out}");
}

/// `hint` names the move the mirror would play with the same options and seed (with the
/// top-1 policy likely, not the seed's tiers: after 1. e4 the tiers' first choice is c5,
/// the mirror plays d5 on these games).
#[test]
fn hint_names_the_move_the_mirror_plays() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let top1 = ["--policy", "likely:1", "--sample", "false"];
    let (out, err, ok) = play(
        &env,
        &[
            &["--user", PLAYER, "--seed", "7", "--color", "black"][..],
            &top1,
        ]
        .concat(),
        "hint\nbook\nquit\n",
    );
    assert!(ok, "{out}\n{err}");
    let hint = out
        .lines()
        .find_map(|l| l.split("mirror would play ").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("no hint in {out}"))
        .to_string();
    assert!(
        out.contains("likely:1"),
        "the hint says which policy: {out}"
    );
    let (out2, err2, ok2) = play(
        &env,
        &[
            &["--user", PLAYER, "--seed", "7", "--color", "white"][..],
            &top1,
        ]
        .concat(),
        "e4\nquit\n",
    );
    assert!(ok2, "{out2}\n{err2}");
    let reply = first_reply(&out2);
    assert!(
        reply.contains(&format!("mirror plays 1... {hint} ")),
        "hint {hint}, reply: {reply}"
    );
    // `book` gives the played move probability 1 under `likely`.
    let book_line = out
        .lines()
        .find(|l| l.starts_with(&format!("{hint} ")))
        .unwrap_or_else(|| panic!("{hint} not in the book table: {out}"));
    assert!(book_line.trim_end().ends_with("1.00"), "{book_line}");
}

/// After a `position` command that fails, `go` answers `bestmove 0000` with an error,
/// never a move of another position (it used to answer e2e4 in a king-and-queen ending).
#[test]
fn uci_never_answers_for_a_position_it_was_not_given() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let input = "position fen 8/8/8/4k3/8/8/3QK3/9 w - - 0 1\ngo\n\
                 position startpos moves e2e4 e7e9\ngo movetime 10\n\
                 position fen 8/8/8/4k3/8/8/3QK3/8 w - - 0 1\ngo\nquit\n";
    let out = uci_session(&env, &["--user", PLAYER, "--seed", "1"], input);
    let best: Vec<&str> = out
        .lines()
        .filter_map(|l| l.strip_prefix("bestmove "))
        .collect();
    assert_eq!(best.len(), 3, "{out}");
    assert_eq!(&best[..2], ["0000", "0000"], "{out}");
    assert_eq!(out.matches("no position to move in").count(), 2, "{out}");
    let pos: shakmaty::Chess = "8/8/8/4k3/8/8/3QK3/8 w - - 0 1"
        .parse::<shakmaty::fen::Fen>()
        .expect("fen")
        .into_position(shakmaty::CastlingMode::Standard)
        .expect("legal");
    let mv = best[2]
        .parse::<shakmaty::uci::UciMove>()
        .expect("uci")
        .to_move(&pos);
    assert!(mv.is_ok(), "a legal move of the given position: {out}");
}

/// `setoption name Player` switches to that player's own fallback: Biskupstunga's shipped
/// model, then Karpov's (none of his own: the population base), never the previous
/// player's model.
#[test]
fn uci_player_option_uses_the_new_players_model() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let karpov = shared().join("pgn/masters/Karpov.pgn.zst");
    env.ok(&[
        "ingest",
        "--user",
        "Karpov, Anatoly",
        "--progress",
        "none",
        "--pgn",
        karpov.to_str().expect("path"),
    ]);
    let fen = "rnbqkbnr/1pppppp1/p6p/8/8/P6P/1PPPPPP1/RNBQKBNR w KQkq - 0 3";
    let input = format!(
        "position fen {fen}\ngo\nsetoption name Player value Karpov, Anatoly\n\
         position fen {fen}\ngo\nquit\n"
    );
    let out = uci_session(&env, &["--user", PLAYER, "--seed", "1"], &input);
    let infos: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("info string fallback"))
        .collect();
    assert_eq!(infos.len(), 2, "{out}");
    assert!(infos[0].contains("fallback model"), "{out}");
    assert!(
        infos[1].starts_with("info string fallback population model (")
            && !infos[1].contains("Biskupstunga"),
        "Karpov has no model: {out}"
    );
}

/// `--recent-months` / `--recent-weight` (shown in the README) are accepted by play and uci
/// and as config keys; a negative weight is refused.
#[test]
fn recent_months_is_an_engine_option_everywhere() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let out = uci_session(
        &env,
        &[
            "--user",
            PLAYER,
            "--seed",
            "1",
            "--policy",
            "habit",
            "--recent-months",
            "6",
            "--recent-weight",
            "3",
        ],
        "position startpos\ngo\nquit\n",
    );
    assert!(out.contains("bestmove "), "{out}");
    let (o, e, ok) = play(
        &env,
        &["--user", PLAYER, "--seed", "1", "--recent-months", "6"],
        "quit\n",
    );
    assert!(ok, "{o}\n{e}");
    let cfg = env.dir.path().join("engine.toml");
    std::fs::write(&cfg, "recent_months = 3\nrecent_weight = 1.5\n").expect("write");
    let (o, e, ok) = play(
        &env,
        &["--user", PLAYER, "--config", cfg.to_str().expect("path")],
        "quit\n",
    );
    assert!(ok, "{o}\n{e}");
    let err = env.fails(&["uci", "--user", PLAYER, "--recent-weight=-1"]);
    assert!(
        err.contains("--recent-weight") && err.contains("must be a non-negative number"),
        "{err}"
    );
}

/// Every engine knob of the table is a flag of play, uci and eval, checked by the engine
/// as every other front end checks it: given flags reach the engine (UCI lists their
/// values), a knob of a guard that is off and a value out of bounds are refused, naming
/// the flag.
#[test]
fn every_engine_knob_of_the_table_is_a_flag_checked_by_the_engine() {
    use mirror_engine::{KNOBS, KnobGroup};
    let env = Env::new();
    for command in ["play", "uci", "eval"] {
        let help = env.ok(&[command, "--help"]);
        for k in KNOBS.iter().filter(|k| k.group == KnobGroup::Engine) {
            assert!(
                help.contains(&format!("--{} ", k.flag())),
                "{command}: --{} is missing",
                k.flag()
            );
        }
    }
    env.ingest(&first500(), &[]);
    let out = uci_session(
        &env,
        &[
            "--user",
            PLAYER,
            "--seed",
            "1",
            "--min-games",
            "3",
            "--guard-margin",
            "120",
            "--context-weight",
            "2.5",
            "--rated",
        ],
        "uci\nquit\n",
    );
    for line in [
        "option name MinGames type spin default 3 ",
        "option name GuardMargin type spin default 120 ",
        "option name ContextWeight type string default 2.5",
        "option name Rated type combo default true ",
    ] {
        assert!(out.contains(line), "{line}: {out}");
    }
    let err = env.fails(&[
        "uci",
        "--user",
        PLAYER,
        "--guard",
        "false",
        "--guard-top",
        "3",
    ]);
    assert!(err.contains("--guard-top"), "{err}");
    let err = env.fails(&["uci", "--user", PLAYER, "--min-games", "0"]);
    assert!(err.contains("at least 1"), "{err}");
}

/// Every engine option is a UCI option (listed with its value, set with `setoption`,
/// checked as on the command line) and a config key.
#[test]
fn every_engine_option_is_a_uci_option_and_a_config_key() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let input = "uci\nsetoption name Guard value false\nsetoption name TimeClass value hyper\n\
                 setoption name GuardTop value 3\nsetoption name Policy value tiers\n\
                 setoption name MinGames value 20\nsetoption name Tiers value wd>0\n\
                 setoption name TimeClass value blitz,rapid\nsetoption name GameTimeClass value daily\n\
                 setoption name GameTimeClass value hyper\nsetoption name ContextWeight value 2.5\n\
                 position startpos moves e2e4\ngo\nsetoption name Colour value white\nuci\nquit\n";
    let out = uci_session(
        &env,
        &["--user", PLAYER, "--seed", "1", "--guard", "false"],
        input,
    );
    // The policy in force: likely with the shipped model's own weight in the book.
    let meta: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("models/biskupstunga/meta.json")).expect("meta"),
    )
    .expect("json");
    let weight = meta["book_prior"]
        .as_f64()
        .expect("the shipped model's weight");
    let policy = format!("option name Policy type string default likely:{weight}");
    assert!(out.contains(&policy), "{policy}: {out}");
    for line in [
        "option name MinGames type spin default 1 min 1 max 1000000",
        "option name RecentMonths type spin default 12 min 0 max 1200",
        "option name Guard type check default false",
        "option name Sample type check default false",
        "option name GuardTop type spin default 64 min 1 max 256",
        "option name TimeClass type string default <empty>",
        "option name Rated type combo default any var any var true var false",
        "option name Since type string default <empty>",
        "option name GameTimeClass type string default <empty>",
        "option name ContextWeight type string default 10",
    ] {
        assert!(out.contains(line), "{line}: {out}");
    }
    assert!(
        out.contains("info string error: invalid time_class \"hyper\""),
        "{out}"
    );
    assert!(
        out.contains("info string error: invalid guard_top \"3\""),
        "{out}"
    );
    assert!(
        out.contains("info string error: unknown engine option \"colour\""),
        "{out}"
    );
    // The options set took effect (as the same config keys do in
    // `config_file_sets_player_seed_and_tiers`): only d5 is left after 1. e4, from tier 1
    // of "wd>0"; the second `uci` shows the new values.
    assert!(
        out.contains("info string book, tier 1 (win+draw > 0): "),
        "{out}"
    );
    assert!(out.contains("bestmove d7d5"), "{out}");
    assert!(
        out.contains("option name Policy type string default tiers"),
        "{out}"
    );
    assert!(
        out.contains("option name MinGames type spin default 20"),
        "{out}"
    );
    assert!(
        out.contains("option name GameTimeClass type string default daily"),
        "{out}"
    );
    assert!(
        out.contains("option name ContextWeight type string default 2.5"),
        "{out}"
    );
    assert!(
        out.contains("info string error: invalid game_time_class \"hyper\""),
        "{out}"
    );
    // The same knobs as config keys; a bad value names the file and the key.
    let cfg = env.dir.path().join("guard.toml");
    std::fs::write(
        &cfg,
        "guard = false
rated = true
since = \"2017-01\"
",
    )
    .expect("write");
    let (o, e, ok) = play(
        &env,
        &[
            "--user",
            PLAYER,
            "--seed",
            "1",
            "--config",
            cfg.to_str().expect("p"),
        ],
        "quit\n",
    );
    assert!(ok, "{o}\n{e}");
    std::fs::write(&cfg, "guard_margin = -5\n").expect("write");
    let err = env.fails(&[
        "play",
        "--user",
        PLAYER,
        "--config",
        cfg.to_str().expect("p"),
    ]);
    assert!(
        err.contains("guard.toml: guard_margin") && err.contains("must be at least 0"),
        "{err}"
    );
}

/// A model that is there but cannot be loaded is an error the user sees, not "no model".
#[test]
fn a_broken_model_is_an_error_not_a_missing_model() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    write_broken_model(&env, "biskupstunga");
    let (out, err, ok) = play(&env, &["--user", PLAYER, "--seed", "1"], "quit\n");
    assert!(!ok, "{out}");
    assert!(
        err.contains("cannot load Biskupstunga's model from"),
        "{err}"
    );
    let err = env.fails(&["uci", "--user", PLAYER]);
    assert!(
        err.contains("cannot load Biskupstunga's model from"),
        "{err}"
    );
}

/// `mirror pretrain` learns a base from real games of many players (both sides);
/// `mirror train --base` fine-tunes it on the player's last games (its shape, and the
/// base named in meta.json); a player without a model of their own gets the shipped
/// population base, labelled as such, in play.
#[test]
fn pretrain_fine_tune_and_the_base_for_players_without_a_model() {
    let env = Env::new();
    let masters = shared().join("pgn/masters/Karpov.pgn.zst");
    let base = env.dir.path().join("base");
    let out = env.ok(&[
        "pretrain",
        masters.to_str().expect("path"),
        "--games",
        "80",
        "--max-positions",
        "3000",
        "--channels",
        "8",
        "--layers",
        "1",
        "--exclude",
        "karpov, anatoly",
        "--out",
        base.to_str().expect("path"),
    ]);
    assert!(
        out.contains("learning from 80 of them, both sides"),
        "{out}"
    );
    // A base that has never seen a player: of the file's 3,105 games, 2,461 name
    // "Karpov, Anatoly" (either colour; counted from the tags with Python), 11 of them not
    // readable; the other spellings ("Karpov,Ana") stay: 641 to sample from, 3 too short.
    assert!(
        out.contains(
            "641 games to sample from (3 shorter than 20 half-moves and 11 not standard or not readable left out, 2450 played by \"karpov, anatoly\" left out)"
        ),
        "{out}"
    );
    // The spellings --exclude did not catch are named, with their games (every one of
    // the 641 left is Karpov's: counted with python-chess, games of 20 half-moves or more).
    assert!(
        out.contains(
            "still in, with the family name of an excluded player: \"Karpov,Ana\" (390 games), \"Karpov,An\" (250 games), \"Karpov, Anantoly2\" (1 games) (--exclude each that is the same player)"
        ),
        "{out}"
    );
    assert!(out.contains("model saved in"), "{out}");
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(base.join("meta.json")).expect("meta"))
            .expect("json");
    assert_eq!(meta["player"], "population");
    assert_eq!(meta["channels"], 8);
    // A base records no book weight and no dial: those are a player's, and the base plays
    // for every player without a model of their own.
    assert!(
        meta["book_prior"].is_null() && meta["search"].is_null(),
        "{meta}"
    );
    assert!(!out.contains("the model's weight in the book"), "{out}");
    // A base learns one epoch unless told otherwise (a player's training, three).
    assert_eq!(meta["epochs"], 1, "{meta}");
    // Learnt from both sides, counted as games: the 80 games, not 160 sides.
    let n = |k: &str| meta[k].as_u64().expect("a count");
    assert_eq!(
        n("train_games") + n("val_games") + n("test_games"),
        80,
        "{meta}"
    );

    // A base grows in steps: another pass, over another sample, continues it (its shape,
    // and what it started from, named in meta.json and in what it says).
    let first = meta;
    let grown = env.dir.path().join("grown");
    let out = env.ok(&[
        "pretrain",
        masters.to_str().expect("path"),
        "--games",
        "80",
        "--max-positions",
        "3000",
        "--seed",
        "1",
        "--base",
        base.to_str().expect("path"),
        "--out",
        grown.to_str().expect("path"),
    ]);
    let first_summary = format!(
        "population ({} games, {} positions)",
        first["train_games"], first["train_positions"]
    );
    assert!(
        out.contains(&format!("fine-tuning the model of {first_summary} from")),
        "{out}"
    );
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(grown.join("meta.json")).expect("meta"))
            .expect("json");
    assert_eq!(meta["player"], "population");
    assert_eq!(meta["base"], first_summary.as_str(), "{meta}");
    assert_eq!(
        (meta["channels"].as_u64(), meta["layers"].as_u64()),
        (Some(8), Some(1))
    );
    let err = env.fails(&[
        "pretrain",
        masters.to_str().expect("path"),
        "--base",
        base.to_str().expect("path"),
        "--layers",
        "2",
        "--out",
        env.dir.path().join("refused").to_str().expect("path"),
    ]);
    assert!(err.contains("leave out one or the other"), "{err}");

    env.ingest(&first500(), &[]);
    let tuned = env.dir.path().join("tuned");
    let out = env.ok(&[
        "train",
        "--user",
        PLAYER,
        "--base",
        grown.to_str().expect("path"),
        "--max-train-games",
        "100",
        "--recent-games",
        "40,20",
        "--epochs",
        "1",
        "--out",
        tuned.to_str().expect("path"),
    ]);
    assert!(
        out.contains("fine-tuning the model of population ("),
        "{out}"
    );
    assert!(
        out.contains("-> train 100 ("),
        "only the last 100 games: {out}"
    );
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tuned.join("meta.json")).expect("meta"))
            .expect("json");
    assert_eq!(meta["player"], PLAYER);
    assert_eq!(
        (meta["channels"].as_u64(), meta["layers"].as_u64()),
        (Some(8), Some(1))
    );
    // The chain stays readable: the grown base, and what it grew from.
    let tuned_base = meta["base"].as_str().expect("base");
    assert!(tuned_base.starts_with("population ("), "{meta}");
    assert!(
        tuned_base.ends_with(&format!("; from {first_summary})")),
        "{meta}"
    );
    // Then the last 40 games once more, then the last 20: each stage starts from what
    // the one before left and is kept only if validation top-1 rises.
    assert!(
        out.contains("then the last 40 training games once more ("),
        "{out}"
    );
    assert!(
        out.contains("then the last 20 training games once more ("),
        "{out}"
    );
    // The ETA counts the whole training: its epoch and both stages.
    assert!(
        out.contains("ETA ") && out.contains(" (its epoch, then 2 stages on the last games)"),
        "{out}"
    );
    let stage = |n: usize| -> (f64, f64, bool) {
        out.lines()
            .find_map(|l| {
                let rest =
                    l.strip_prefix(&format!("the last {n} games once more: validation top-1 "))?;
                let (a, b) = rest.split_once("% -> ")?;
                let (b, kept) = b.split_once('%')?;
                Some((a.parse().ok()?, b.parse().ok()?, kept == " (kept)"))
            })
            .unwrap_or_else(|| panic!("no validation line of the stage on {n} games: {out}"))
    };
    let (before, after40, kept40) = stage(40);
    let (from20, after20, kept20) = stage(20);
    // Fine-tuning never ends below the base: an epoch that does not beat it is not kept.
    let top1_after = |prefix: &str| -> f64 {
        out.lines()
            .filter(|l| l.starts_with(prefix))
            .find_map(|l| {
                let rest = l
                    .split_once("validation positions: top-1 ")
                    .or_else(|| l.split_once("validation top-1 "))?
                    .1;
                rest.split_once('%')?.0.parse().ok()
            })
            .unwrap_or_else(|| panic!("no {prefix:?} line with a top-1 in {out}"))
    };
    let (base_alone, epoch1) = (
        top1_after("the base alone on "),
        top1_after("epoch 1: loss "),
    );
    if epoch1 > base_alone {
        assert!(!out.contains("no epoch beat the base"), "{out}");
        assert!((before - epoch1).abs() < 0.06, "{out}");
    } else {
        assert!(
            out.contains(&format!("no epoch beat the base on {PLAYER}'s validation positions (top-1 {base_alone:.1}%): the base is kept as it is")),
            "{out}"
        );
        assert!((before - base_alone).abs() < 0.06, "{out}");
    }
    // A stage is kept exactly when it rises; the next starts from the network kept.
    assert_eq!(kept40, after40 > before, "{out}");
    assert_eq!(kept20, after20 > from20, "{out}");
    let expected_from20 = if kept40 { after40 } else { before };
    assert!((from20 - expected_from20).abs() < 0.06, "{out}");
    let last = if kept20 { after20 } else { from20 };
    let kept: Vec<u64> = [(40, kept40), (20, kept20)]
        .iter()
        .filter(|(_, k)| *k)
        .map(|(n, _)| *n)
        .collect();
    if kept.is_empty() {
        assert!(meta.get("recent_games").is_none(), "{meta}");
    } else {
        assert_eq!(meta["recent_games"], serde_json::json!(kept), "{meta}");
    }
    assert_eq!(meta["epochs"], 1 + kept.len(), "{meta}");
    assert!((meta["val_top1"].as_f64().expect("val") * 100.0 - last).abs() < 0.06);
    let err = env.fails(&["train", "--user", PLAYER, "--base", "/nonexistent/base"]);
    assert!(err.contains("/nonexistent/base/meta.json"), "{err}");
    // A fine-tune keeps the base's shape: a shape alone is refused, with what to do.
    let err = env.fails(&["train", "--user", PLAYER, "--channels", "16"]);
    assert!(err.contains("add --from-scratch"), "{err}");
    let err = env.fails(&[
        "train",
        "--user",
        PLAYER,
        "--from-scratch",
        "--base",
        "population",
    ]);
    assert!(err.contains("cannot be used with"), "{err}");
    // By default training starts from the shipped population base, installed on first use.
    let out = env.ok(&[
        "train",
        "--user",
        PLAYER,
        "--max-train-games",
        "30",
        "--max-positions",
        "500",
        "--epochs",
        "1",
        "--out",
        tuned.to_str().expect("path"),
    ]);
    // The shipped base's summary, exactly: the games of its last pass (as its meta.json
    // counts them), then the passes before.
    let shipped: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(repo().join("models/population/meta.json"))
            .expect("the shipped base's meta.json"),
    )
    .expect("json");
    let shipped_games = shipped["train_games"].as_u64().expect("train_games");
    let shipped_summary = format!(
        "population ({shipped_games} games, {} positions; from {})",
        shipped["train_positions"]
            .as_u64()
            .expect("train_positions"),
        shipped["base"].as_str().expect("the passes before")
    );
    assert!(
        out.contains(&format!("fine-tuning the model of {shipped_summary}")),
        "{out}"
    );
    assert!(out.contains(".population"), "{out}");
    assert!(
        out.contains("no stage on the last 5000 training games: there are only 30"),
        "{out}"
    );
    assert!(
        out.contains("the base alone on Biskupstunga's validation positions"),
        "{out}"
    );

    // Karpov has no model of his own: the population base answers outside his games.
    env.ok(&[
        "ingest",
        "--user",
        "Karpov, Anatoly",
        "--progress",
        "none",
        "--pgn",
        masters.to_str().expect("path"),
    ]);
    let (out, err, ok) = play(
        &env,
        &[
            "--user",
            "Karpov, Anatoly",
            "--seed",
            "1",
            "--sample",
            "false",
        ],
        "Na3\nquit\n",
    );
    assert!(ok, "{err}");
    assert!(
        out.contains("no trained model for Karpov, Anatoly"),
        "{out}"
    );
    let reply = first_reply(&out);
    assert!(
        reply.contains(&format!(
            "[fallback population model ({shipped_games} games of many players"
        )),
        "{reply}"
    );
}

/// The search's budget set as a flag (`play`) and through UCI's `setoption` reaches the
/// search (Stockfish's own choice too): out of the book the model's move is searched by Stockfish and the answer says
/// so; 0 nodes (the default) is the engine without search; a search engine that does not
/// exist is refused, naming it.
#[test]
fn the_search_budget_reaches_the_search_from_play_and_uci() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let (out, err, ok) = play(
        &env,
        &["--user", PLAYER, "--seed", "1", "--search-nodes", "500"],
        "Na3\nquit\n",
    );
    assert!(ok, "{err}");
    let reply = first_reply(&out);
    assert!(
        reply.contains("+ search (") && reply.contains("500 nodes"),
        "{reply}"
    );
    let (out, _, _) = play(&env, &["--user", PLAYER, "--seed", "1"], "Na3\nquit\n");
    assert!(!first_reply(&out).contains("search"), "{out}");
    // UCI: on, then off again, in one session.
    let fen = "rnbqkbnr/1pppppp1/p6p/8/8/P6P/1PPPPPP1/RNBQKBNR w KQkq - 0 3";
    let out = uci_session(
        &env,
        &["--user", PLAYER, "--seed", "1"],
        &format!(
            "uci\nsetoption name SearchNodes value 800\nsetoption name SearchOwn value 400\n\
             position fen {fen}\ngo\n\
             setoption name SearchNodes value 0\nposition fen {fen}\ngo\n\
             setoption name SearchNodes value 30\nsetoption name SearchBy value model\n\
             position fen {fen}\ngo\nquit\n"
        ),
    );
    let said: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("info string fallback"))
        .collect();
    assert_eq!(said.len(), 3, "{out}");
    assert!(
        said[2].contains("(search off: the model has no value head)"),
        "the shipped model of this player has none: {out}"
    );
    assert!(
        said[0].contains("+ search (")
            && said[0].contains("800 nodes")
            && said[0].contains("its own choice at 400 nodes")
            && said[0].contains("searched: p="),
        "{out}"
    );
    assert!(!said[1].contains("search"), "{out}");
    let err = env.fails(&[
        "uci",
        "--user",
        PLAYER,
        "--search-engine",
        "/nonexistent/stockfish",
    ]);
    assert!(
        err.contains("/nonexistent/stockfish") && err.contains("no such file"),
        "{err}"
    );
}

/// `setoption name PlayerPace value true`: before its `bestmove` the engine waits as long
/// as the player took at the position on average (the explorer's time there, the
/// player's moves with that colour, in games of the clock's time class: 3 minutes is
/// blitz), says so, and never longer than the move time; where
/// the player has no timed game, their usual share of the clock left at that stage and
/// clock (the report's pace, from the same games) of the clock it is given.
#[test]
fn uci_plays_at_the_players_pace_when_asked() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let explore: serde_json::Value = serde_json::from_str(&env.ok(&[
        "explore",
        "--user",
        PLAYER,
        "--moves",
        "e4",
        "--time-class",
        "blitz",
        "--json",
    ]))
    .expect("json");
    let (mut timed, mut ms) = (0.0, 0.0);
    for m in explore["moves"].as_array().expect("moves") {
        if let Some(n) = m["time"]["timed"].as_f64() {
            timed += n;
            ms += n * m["time"]["averageSeconds"].as_f64().expect("seconds");
        }
    }
    let want = ms / timed;
    let input = "uci\nsetoption name PlayerPace value true\nposition startpos moves e2e4\n\
                 go wtime 180000 btime 180000\nposition startpos moves e2e4\n\
                 go wtime 180000 btime 180000 movetime 100\n\
                 ucinewgame\nposition startpos moves a2a3 h7h6\ngo wtime 60000 btime 60000\n\
                 setoption name PlayerPace value false\ngo wtime 180000 btime 180000\n";
    let started = std::time::Instant::now();
    let out = uci_session(&env, &["--user", PLAYER, "--seed", "1"], input);
    let took = started.elapsed().as_secs_f64();
    assert!(
        out.contains("option name PlayerPace type check default false"),
        "{out}"
    );
    let paces: Vec<&str> = out.lines().filter(|l| l.contains("pace: ")).collect();
    assert_eq!(paces.len(), 3, "paced three times, then off: {out}");
    let secs: f64 = paces[0]
        .split("pace: ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .expect("seconds");
    // The explorer's per-move averages are rounded to 0.1 s.
    assert!((secs - want).abs() < 0.06, "{secs} against {want}: {out}");
    assert!(paces[0].contains("the player's average here over"), "{out}");
    assert!(
        paces[1].contains("pace: 0.1 s") && paces[1].contains("cut"),
        "{out}"
    );
    // Out of the book: the report's share for the first ten moves with the whole clock
    // left, of the 60 s given.
    let report: serde_json::Value =
        serde_json::from_str(&env.ok(&["report", "--user", PLAYER, "--json"])).expect("json");
    let cell = &report["clock"]["pace"][0];
    assert_eq!(cell["stage"], "moves 1-10", "{cell}");
    assert_eq!(cell["clock"], "half the clock or more left", "{cell}");
    let share = cell["share"].as_f64().expect("share");
    assert!(
        paces[2].contains(&format!(
            "the player's usual {:.1}% of the clock left at this stage, over {} timed moves",
            share * 100.0,
            mirror_core::notation::thousands(cell["moves"].as_u64().expect("moves"))
        )),
        "{share}: {out}"
    );
    let model_secs: f64 = paces[2]
        .split("pace: ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .expect("seconds");
    assert!(
        (model_secs - 60.0 * share).abs() < 0.06,
        "{model_secs}: {out}"
    );
    assert!(out.contains("info string time model: Biskupstunga's shares of the clock from"));
    assert!(
        took >= secs + model_secs,
        "the answers waited {secs} s and {model_secs} s: the session took {took} s"
    );
    assert_eq!(
        out.lines().filter(|l| l.starts_with("bestmove ")).count(),
        4
    );
    let err = uci_session(
        &env,
        &["--user", PLAYER],
        "setoption name PlayerPace value maybe\nquit\n",
    );
    assert!(err.contains("PlayerPace is true or false"), "{err}");
    // The session's input ends without `quit` above: a `quit` (or a `stop`) during a wait
    // ends it, and an `isready` then is answered at once.
    // Out of the book with ten minutes: a wait of several seconds.
    let input = "setoption name PlayerPace value true\nposition startpos moves a2a3 h7h6\n\
                 go wtime 600000 btime 600000\nisready\nstop\nquit\n";
    let started = std::time::Instant::now();
    let out = uci_session(&env, &["--user", PLAYER, "--seed", "1"], input);
    let took = started.elapsed().as_secs_f64();
    let lines: Vec<&str> = out.lines().collect();
    let at = |prefix: &str| lines.iter().position(|l| l.starts_with(prefix));
    let (ready, stopped, best) = (
        at("readyok").expect("readyok"),
        at("info string pace: stopped").expect("stopped"),
        at("bestmove ").expect("bestmove"),
    );
    assert!(ready < stopped && stopped < best, "{out}");
    assert!(
        took < secs,
        "a {secs} s wait stopped: the session took {took} s"
    );
}
