//! `mirror play` over pipes and `mirror uci` with a real UCI client and Stockfish.

mod common;

use std::{io::Write, process::Stdio};

use common::*;

/// The line with the mirror's reply to White's first move.
fn first_reply(out: &str) -> &str {
    out.lines()
        .find(|l| l.contains("mirror plays 1..."))
        .unwrap_or_else(|| panic!("no reply to 1. in:\n{out}"))
}

fn play(env: &Env, args: &[&str], input: &str) -> (String, String, bool) {
    let mut child = env
        .cmd()
        .arg("play")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("wait");
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
    assert!(reply.contains("[book, tier "), "{reply}");
    assert!(
        out.contains("Biskupstunga's mirror would most likely play"),
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
    assert!(first.contains("[book, tier"), "{first}");
    assert!(
        out.contains("game over: * (unfinished (input ended))"),
        "{out}"
    );
    let pgn = std::fs::read_to_string(&save).expect("saved");
    assert!(pgn.contains("[White \"Biskupstunga (mirror)\"]") && pgn.contains("[Result \"*\"]"));
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

#[test]
fn uci_with_python_chess_against_stockfish() {
    let stockfish =
        std::env::var("MIRROR_STOCKFISH").unwrap_or_else(|_| "/usr/games/stockfish".into());
    assert!(
        std::path::Path::new(&stockfish).exists(),
        "Stockfish not found at {stockfish}: apt-get install stockfish (or set MIRROR_STOCKFISH)"
    );
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let script = repo().join("tests/reference/uci_match.py");
    let out = std::process::Command::new(
        std::env::var("MIRROR_PYTHON").unwrap_or_else(|_| "python3".into()),
    )
    .arg(&script)
    .arg(env!("CARGO_BIN_EXE_mirror"))
    .arg(env.db())
    .arg(PLAYER)
    .arg(&stockfish)
    .arg("2")
    .output()
    .expect("python3");
    assert!(
        out.status.success(),
        "uci match failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let games = v["games"].as_array().expect("games");
    assert_eq!(games.len(), 2);
    for g in games {
        assert!(g["mirror_moves"].as_u64().expect("n") > 0, "{g}");
        assert_ne!(g["termination"], "MAX_PLIES", "games end by the rules: {g}");
        assert_ne!(g["result"], "*", "{g}");
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
        &["--user", PLAYER, "--seed", "1", "--no-guard"],
        "Na3\nquit\n",
    );
    assert!(ok, "{err}");
    let reply = first_reply(&out);
    assert!(
        reply.contains("[fallback model (") && !reply.contains("guarded"),
        "{reply}"
    );
}
