//! `mirror explore` as a user runs it, checked against the python-chess reference.

mod common;

use std::collections::BTreeMap;

use common::*;
use serde_json::Value;

fn explore_json(env: &Env, extra: &[&str]) -> Value {
    let mut args = vec!["explore", "--user", "biskupstunga", "--json"];
    args.extend_from_slice(extra);
    serde_json::from_str(&env.ok(&args)).expect("json")
}

fn per_move(v: &Value) -> BTreeMap<String, (u64, u64, u64)> {
    v["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| {
            (
                m["uci"].as_str().expect("uci").to_string(),
                (
                    m["wins"].as_u64().expect("w"),
                    m["draws"].as_u64().expect("d"),
                    m["losses"].as_u64().expect("l"),
                ),
            )
        })
        .collect()
}

#[test]
fn both_colours_together_equal_the_reference() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let reference = reference_edges(&first500());
    let epd_after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -";
    let mut want: BTreeMap<String, (u64, u64, u64)> = BTreeMap::new();
    for line in reference.lines() {
        let v: Value = serde_json::from_str(line).expect("json");
        if v["epd"] == epd_after_e4 {
            want.insert(
                v["uci"].as_str().expect("uci").to_string(),
                (
                    v["w"].as_u64().expect("w"),
                    v["d"].as_u64().expect("d"),
                    v["l"].as_u64().expect("l"),
                ),
            );
        }
    }
    assert!(!want.is_empty());

    // Default: the side to move (Black), i.e. the player's own moves.
    let own = explore_json(&env, &["--moves", "e4"]);
    assert_eq!(own["player_color"], "black");
    assert_eq!(own["players_moves"], true);
    let replies = explore_json(&env, &["--moves", "1. e2e4", "--color", "white"]);
    assert_eq!(replies["players_moves"], false);
    let mut got = per_move(&own);
    for (m, (w, d, l)) in per_move(&replies) {
        let e = got.entry(m).or_default();
        *e = (e.0 + w, e.1 + d, e.2 + l);
    }
    assert_eq!(got, want);

    // The same position by FEN (with move counters) gives the same answer.
    let by_fen = explore_json(
        &env,
        &[
            "--fen",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        ],
    );
    assert_eq!(per_move(&by_fen), per_move(&own));
}

#[test]
fn filters_partition_the_games() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let all = explore_json(&env, &[]);
    let total = all["games"].as_u64().expect("games");
    assert!(total > 100);
    let mut sum = 0;
    for tc in ["bullet", "blitz", "rapid", "classical", "daily"] {
        sum += explore_json(&env, &["--time-class", tc])["games"]
            .as_u64()
            .expect("games");
    }
    assert_eq!(sum, total, "time classes partition the games");
    let early = explore_json(&env, &["--until", "2017-02"])["games"]
        .as_u64()
        .expect("games");
    let late = explore_json(&env, &["--since", "2017-03"])["games"]
        .as_u64()
        .expect("games");
    assert!(early > 0 && late > 0);
    assert_eq!(early + late, total, "months partition the games");
    let rated = explore_json(&env, &["--rated"])["games"]
        .as_u64()
        .expect("games");
    let casual = explore_json(&env, &["--casual"])["games"]
        .as_u64()
        .expect("games");
    assert_eq!(rated + casual, total);
}

#[test]
fn table_shows_moves_sorted_by_games() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let out = env.ok(&["explore", "--user", "Biskupstunga", "--moves", "e4"]);
    assert!(out.contains("Biskupstunga's moves as black"), "{out}");
    let header = out.lines().find(|l| l.starts_with("move")).expect("header");
    assert!(header.contains("win%") && header.contains("perf") && header.contains("last played"));
    let rows: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("move"))
        .skip(1)
        .filter(|l| !l.starts_with("? fewer than"))
        .collect();
    assert_eq!(rows[0].split_whitespace().next(), Some("d5"), "{out}");
    let games: Vec<u64> = rows
        .iter()
        .map(|r| {
            r.split_whitespace()
                .nth(1)
                .expect("games")
                .parse()
                .expect("n")
        })
        .collect();
    assert!(games.windows(2).all(|w| w[0] >= w[1]), "{out}");
}

#[test]
fn bad_input_is_a_clear_error() {
    let env = Env::new();
    let err = env.fails(&["explore", "--user", PLAYER]);
    assert!(
        err.contains("no such file") && err.contains("mirror.redb"),
        "{err}"
    );
    env.ingest(&first500(), &[]);
    let cases: &[(&[&str], &str)] = &[
        (&["--fen", "rnbqkbnr/pppppppp/8/8 w"], "invalid FEN"),
        (
            &["--fen", "8/8/8/8/8/8/8/8 w - - 0 1"],
            "not a legal chess position",
        ),
        (
            &["--moves", "e4 e5 Ke3"],
            "invalid --moves: move 3 of the list: \"Ke3\" is not a legal move",
        ),
        (
            &["--moves", "e4 banana"],
            "move 2 of the list: \"banana\" is neither SAN",
        ),
        (
            &["--since", "2018-01", "--until", "2017-01"],
            "--since 2018-01 is after --until 2017-01",
        ),
        (&["--since", "2017-13"], "invalid month"),
        (&["--time-class", "hyperbullet"], "unknown time class"),
        (&["--rated", "--casual"], "cannot be used with"),
    ];
    for (extra, want) in cases {
        let mut args = vec!["explore", "--user", PLAYER];
        args.extend_from_slice(extra);
        let err = env.fails(&args);
        assert!(err.contains(want), "{extra:?}: {err}");
    }
    let err = env.fails(&["explore", "--user", "nobody"]);
    assert!(
        err.contains("unknown player \"nobody\"") && err.contains("Biskupstunga"),
        "{err}"
    );
}

/// Opening names come from the position, not the move order: the French reached by 1.e4
/// e6 2.d4 d5 and by 1.d4 e6 2.e4 d5 is one node of the player's games with one name; each
/// move row names the opening it leads to; every row's score interval is the Wilson
/// interval of its own results.
#[test]
fn openings_by_position_and_honest_scores() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let a = explore_json(&env, &["--moves", "e4 e6 d4 d5"]);
    let b = explore_json(&env, &["--moves", "1. d4 e6 2. e4 d5"]);
    assert_eq!(a["opening"]["eco"], "C00", "{a}");
    assert_eq!(a["opening"]["name"], "French Defense");
    assert_eq!(a["opening"], b["opening"]);
    assert_eq!(per_move(&a), per_move(&b), "one node, whatever the order");
    assert!(
        a["games"].as_u64().expect("games") > 0,
        "real games reach it"
    );
    // After 1. e4 c5 each reply names its own line (2. Nc3: the Closed Sicilian); a
    // position past the table keeps the last name on its path.
    let sicilian = explore_json(&env, &["--moves", "e4 c5"]);
    assert_eq!(sicilian["opening"]["eco"], "B20");
    let nc3 = sicilian["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .find(|m| m["uci"] == "b1c3")
        .expect("the player plays 2. Nc3");
    assert_eq!(nc3["opening"]["name"], "Sicilian Defense: Closed", "{nc3}");
    let deep = explore_json(&env, &["--moves", "e4 c5 Nc3 Nc6 a3 a6 h3"]);
    assert_eq!(deep["opening"]["eco"], "B23", "{deep}");
    let fen_only = explore_json(&env, &["--fen", "8/8/8/4k3/8/8/3QK3/8 w - - 0 1"]);
    assert!(fen_only["opening"].is_null());
    // Scores: (wins + draws/2) / games with the 95% Wilson interval, in percent; rows
    // under 10 games are marked.
    for v in [&a, &sicilian] {
        for m in v["moves"].as_array().expect("moves") {
            let n = m["games"].as_f64().expect("games");
            let (p, low, high) = wilson(m);
            let pct = |x: f64| (1000.0 * x).round() / 10.0;
            assert_eq!(m["score"].as_f64(), Some(pct(p)), "{m}");
            assert_eq!(m["score_low"].as_f64(), Some(pct(low.max(0.0))), "{m}");
            assert_eq!(m["score_high"].as_f64(), Some(pct(high.min(1.0))), "{m}");
            assert_eq!(m["few_games"].as_bool(), Some(n < 10.0), "{m}");
        }
    }
    let table = env.ok(&["explore", "--user", PLAYER, "--moves", "e4 c5"]);
    assert!(table.contains("opening: B20 Sicilian Defense"), "{table}");
    assert!(
        table.contains("score% (95%)") && table.contains("Sicilian Defense: Closed"),
        "{table}"
    );
}

/// `export --to polyglot`: python-chess's Polyglot reader finds, in the positions of real
/// games, exactly the player's own moves there with their games as weights (what
/// `explore` shows for the side to move); positions the player never moved in are absent.
#[test]
fn polyglot_book_read_by_python_chess_equals_the_players_moves() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let book = env.dir.path().join("book.bin");
    let out = env.ok(&[
        "export",
        "--to",
        "polyglot",
        book.to_str().expect("path"),
        "--user",
        PLAYER,
    ]);
    assert!(
        out.contains("moves in") && out.contains("positions"),
        "{out}"
    );
    let read = read_book(&book, "25", "14");
    let (mut with_moves, mut without) = (0, 0);
    for v in &read {
        let fen = v["fen"].as_str().expect("fen");
        let explored = explore_json(&env, &["--fen", fen]);
        let want: BTreeMap<String, u64> = explored["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| {
                (
                    m["uci"].as_str().expect("uci").to_string(),
                    m["games"].as_u64().expect("games"),
                )
            })
            .collect();
        let got: BTreeMap<String, u64> = v["moves"]
            .as_object()
            .expect("moves")
            .iter()
            .map(|(k, w)| (k.clone(), w.as_u64().expect("weight")))
            .collect();
        assert_eq!(got, want, "{fen}");
        if want.is_empty() {
            without += 1;
        } else {
            with_moves += 1;
        }
    }
    // The player's own positions and their opponents' (absent from the book) both occur.
    assert!(with_moves > 100 && without > 100, "{with_moves} {without}");
    // One colour only.
    let white = env.dir.path().join("white.bin");
    env.ok(&[
        "export",
        "--to",
        "polyglot",
        white.to_str().expect("p"),
        "--user",
        PLAYER,
        "--color",
        "white",
    ]);
    let (all, w) = (
        std::fs::metadata(&book).expect("book").len(),
        std::fs::metadata(&white).expect("white").len(),
    );
    assert!(w > 0 && w < all && w % 16 == 0, "{w} of {all}");
    let err = env.fails(&["export", "--to", "polyglot", "--user", PLAYER]);
    assert!(err.contains("<FILE>"), "{err}");

    // Weights from the engine's policy: the seed's tiers, computed here independently
    // from the explorer's W/D/L (first tier with a move, shares of games within it).
    let tiers_book = env.dir.path().join("tiers.bin");
    env.ok(&[
        "export",
        "--to",
        "polyglot",
        tiers_book.to_str().expect("p"),
        "--user",
        PLAYER,
        "--policy",
        "tiers",
    ]);
    let read = read_book(&tiers_book, "15", "10");
    let mut checked = 0;
    for v in &read {
        let explored = explore_json(&env, &["--fen", v["fen"].as_str().expect("fen")]);
        let rows: Vec<(String, f64, f64, f64)> = explored["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| {
                let f = |k: &str| m[k].as_f64().expect("n");
                (
                    m["uci"].as_str().expect("uci").to_string(),
                    f("wins"),
                    f("draws"),
                    f("losses"),
                )
            })
            .collect();
        let mut want: BTreeMap<String, u64> = BTreeMap::new();
        for (win_draw, threshold) in [
            (false, 0.5),
            (true, 0.5),
            (false, 0.4),
            (true, 0.4),
            (true, 0.3),
            (true, 0.0),
        ] {
            let inside: Vec<&(String, f64, f64, f64)> = rows
                .iter()
                .filter(|(_, w, d, l)| {
                    let n = w + d + l;
                    let value = if win_draw { (w + d) / n } else { w / n };
                    value > threshold
                })
                .collect();
            if inside.is_empty() {
                continue;
            }
            let total: f64 = inside.iter().map(|(_, w, d, l)| w + d + l).sum();
            for (uci, w, d, l) in inside {
                let weight = ((w + d + l) / total * 65535.0).round().max(1.0);
                want.insert(uci.clone(), weight as u64);
            }
            break;
        }
        let got: BTreeMap<String, u64> = v["moves"]
            .as_object()
            .expect("moves")
            .iter()
            .map(|(k, w)| (k.clone(), w.as_u64().expect("weight")))
            .collect();
        assert_eq!(got, want, "{}", v["fen"]);
        checked += usize::from(!want.is_empty());
    }
    assert!(checked > 50, "{checked}");

    // `lower`: one move per position, the one whose score has the best Wilson lower bound.
    let lower_book = env.dir.path().join("lower.bin");
    env.ok(&[
        "export",
        "--to",
        "polyglot",
        lower_book.to_str().expect("p"),
        "--user",
        PLAYER,
        "--policy",
        "lower",
    ]);
    let read = read_book(&lower_book, "15", "10");
    for v in &read {
        let got = v["moves"].as_object().expect("moves");
        let explored = explore_json(&env, &["--fen", v["fen"].as_str().expect("fen")]);
        let best = explored["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| (wilson_low(m), m["uci"].as_str().expect("uci").to_string()))
            .reduce(|a, b| if b.0 > a.0 + 1e-12 { b } else { a });
        match best {
            None => assert!(got.is_empty(), "{v}"),
            Some((low, _)) => {
                assert_eq!(got.len(), 1, "{v}");
                let (uci, _) = got.iter().next().expect("one move");
                let chosen = explored["moves"]
                    .as_array()
                    .expect("moves")
                    .iter()
                    .find(|m| m["uci"] == uci.as_str())
                    .expect("a book move");
                assert!((wilson_low(chosen) - low).abs() < 1e-9, "{v}");
            }
        }
    }
}

/// `mirror report`: every number of every item equals python-chess's replay of the
/// games (split by the player's colour, and by quarter for the drift), and every item
/// satisfies its list's rule.
#[test]
fn report_numbers_equal_python_chess() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    // 500 games: positions from 5 games on, so that some score below the average beyond
    // chance.
    let out = env.ok(&[
        "report",
        "--user",
        PLAYER,
        "--json",
        "--limit",
        "6",
        "--min-games",
        "5",
    ]);
    let r: Value = serde_json::from_str(&out).expect("json");
    type Counts = BTreeMap<String, [u64; 3]>;
    // epd -> uci -> [w, d, l], per colour of the player; and per quarter.
    let load = |color: &str, extra: &[&str]| -> BTreeMap<(String, String), Counts> {
        let mut args = vec!["--color", color];
        args.extend_from_slice(extra);
        let mut m: BTreeMap<(String, String), Counts> = BTreeMap::new();
        for line in reference_edges_with(&first500(), &args).lines() {
            let v: Value = serde_json::from_str(line).expect("json");
            let key = (
                v["epd"].as_str().expect("epd").to_string(),
                v["q"].as_str().unwrap_or("").to_string(),
            );
            let c = m
                .entry(key)
                .or_default()
                .entry(v["uci"].as_str().expect("uci").to_string())
                .or_default();
            for (i, k) in ["w", "d", "l"].iter().enumerate() {
                c[i] += v[k].as_u64().expect("n");
            }
        }
        m
    };
    let white = load("white", &[]);
    let black = load("black", &[]);
    let white_q = load("white", &["--by-quarter"]);
    let black_q = load("black", &["--by-quarter"]);
    let epd = |fen: &str| fen.split(' ').take(4).collect::<Vec<_>>().join(" ");
    let score = |c: &[u64; 3]| (c[0] as f64 + c[1] as f64 / 2.0) / (c[0] + c[1] + c[2]) as f64;
    let sum = |m: &Counts| {
        m.values()
            .fold([0u64; 3], |a, c| [a[0] + c[0], a[1] + c[1], a[2] + c[2]])
    };
    let close = |a: &Value, b: f64| (a.as_f64().expect("number") - b).abs() < 1e-9;
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -".to_string();
    let avg_white = score(&sum(&white[&(start.clone(), String::new())]));
    let avg_black = score(&sum(&black[&(start.clone(), String::new())]));
    assert!(close(&r["averageWhite"], avg_white) && close(&r["averageBlack"], avg_black));
    let reference = |item: &Value| -> (&Counts, f64) {
        let fen = item["fen"].as_str().expect("fen");
        let (m, avg) = if item["color"] == "white" {
            (&white, avg_white)
        } else {
            (&black, avg_black)
        };
        let counts = m
            .get(&(epd(fen), String::new()))
            .unwrap_or_else(|| panic!("python-chess has {fen}"));
        let total = sum(counts);
        assert_eq!(item["games"].as_u64(), Some(total.iter().sum()), "{item}");
        assert!(close(&item["score"], score(&total)), "{item}");
        assert!(item["games"].as_u64().expect("games") >= 5, "{item}");
        (counts, avg)
    };
    let check_move = |counts: &Counts, m: &Value| {
        let c = counts[m["uci"].as_str().expect("uci")];
        let games = c.iter().sum::<u64>();
        assert_eq!(
            [
                m["wins"].as_u64(),
                m["draws"].as_u64(),
                m["losses"].as_u64()
            ],
            [Some(c[0]), Some(c[1]), Some(c[2])],
            "{m}"
        );
        assert!(close(
            &m["share"],
            games as f64 / sum(counts).iter().sum::<u64>() as f64
        ));
        assert!(close(&m["score"], score(&c)), "{m}");
        games
    };
    let costly = r["costly"].as_array().expect("costly");
    assert!(!costly.is_empty());
    let mut last_cost = f64::INFINITY;
    for c in costly {
        let (counts, avg) = reference(c);
        let s = score(&sum(counts));
        assert!(s < avg && close(&c["deficit"], avg - s), "{c}");
        assert!(
            c["high"].as_f64().expect("high") < avg,
            "significantly below: {c}"
        );
        let cost = c["games"].as_f64().expect("g") * (avg - s);
        assert!(close(&c["cost"], cost) && cost <= last_cost, "{c}");
        last_cost = cost;
        let played = c["played"].as_array().expect("played");
        assert_eq!(played.len(), counts.len(), "every move the player tried");
        for m in played {
            check_move(counts, m);
        }
    }
    for d in r["deviations"].as_array().expect("deviations") {
        let (counts, _) = reference(d);
        let total: u64 = sum(counts).iter().sum();
        let choices = d["choices"].as_array().expect("choices");
        assert!(choices.len() >= 2, "{d}");
        for m in choices {
            let games = check_move(counts, m) as f64;
            assert!(games >= (0.1 * total as f64).max(2.0), "{m}");
        }
    }
    // Surprises and drift need a test to pass (scipy's figures: tests/reference.rs on the
    // 27k games); 500 games give none at these sizes, and whatever is listed holds.
    for s in r["surprises"].as_array().expect("surprises") {
        let (counts, _) = reference(s);
        let total: u64 = sum(counts).iter().sum();
        let games = check_move(counts, &s["reply"]);
        assert!(games * 10 <= total, "a rare reply: {s}");
        assert_eq!(s["othersGames"].as_u64(), Some(total - games), "{s}");
        assert!(s["qValue"].as_f64().expect("q") < 0.05, "{s}");
    }
    for d in r["drift"].as_array().expect("drift") {
        reference(d);
        let by_q = if d["color"] == "white" {
            &white_q
        } else {
            &black_q
        };
        for q in d["quarters"].as_array().expect("quarters") {
            let counts = &by_q[&(
                epd(d["fen"].as_str().expect("fen")),
                q["quarter"].as_str().expect("q").to_string(),
            )];
            let total: u64 = sum(counts).iter().sum();
            assert_eq!(q["games"].as_u64(), Some(total), "{q}");
            for pair in q["shares"].as_array().expect("shares") {
                let c = counts[pair[0].as_str().expect("uci")];
                assert!(
                    close(&pair[1], c.iter().sum::<u64>() as f64 / total as f64),
                    "{q}"
                );
            }
        }
    }
    // The moves of an item reach it, for explore too.
    let first = &costly[0];
    let moves: Vec<&str> = first["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| m.as_str().expect("uci"))
        .collect();
    let explored = explore_json(&env, &["--moves", &moves.join(" ")]);
    assert_eq!(explored["fen"], first["fen"]);
    let text = env.ok(&["report", "--user", PLAYER, "--limit", "2"]);
    assert!(
        text.contains("Costly positions") && text.contains("Repertoire drift"),
        "{text}"
    );
}

/// python-chess's reading of a Polyglot book in the positions of the first `games` games
/// of the 500-game file (first `plies` plies): one JSON object per position.
fn read_book(book: &std::path::Path, games: &str, plies: &str) -> Vec<Value> {
    let read = std::process::Command::new(
        std::env::var("MIRROR_PYTHON").unwrap_or_else(|_| "python3".into()),
    )
    .arg(repo().join("tests/reference/polyglot.py"))
    .arg(book)
    .arg(first500())
    .args([games, plies])
    .output()
    .expect("python3 with python-chess");
    assert!(
        read.status.success(),
        "{}",
        String::from_utf8_lossy(&read.stderr)
    );
    String::from_utf8(read.stdout)
        .expect("utf-8")
        .lines()
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect()
}

/// The Wilson lower bound (z = 1.96) of an explorer move row's score.
fn wilson_low(m: &Value) -> f64 {
    wilson(m).1
}

/// An explorer move row's score (wins + half the draws, per game) and its 95% Wilson
/// interval (z = 1.96), computed here from the row's W/D/L, unclamped.
fn wilson(m: &Value) -> (f64, f64, f64) {
    let f = |k: &str| m[k].as_f64().expect("n");
    let n = f("wins") + f("draws") + f("losses");
    let p = (f("wins") + f("draws") / 2.0) / n;
    let (low, high) = wilson_interval(p, n);
    (p, low, high)
}

/// `mirror prep`: the lines where the player's tree meets Karpov's, on real games. Every
/// step's numbers are what `explore` answers for its mover at that position (with the
/// mover's colour); lines are likeliest first, their probability the product of the
/// shares; a line ends where a tree ends, thins out or at the depth. A player unknown, a
/// colour without games and no common position each get a message that says so.
#[test]
fn prep_walks_where_two_trees_meet_with_explores_numbers() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let karpov = shared().join("pgn/masters/Karpov.pgn.zst");
    env.ingest_as("Karpov, Anatoly", &karpov, &[]);
    // Over-the-board games have no TimeControl: their events tell the time class (his games
    // as White: 1,102 classical, 101 rapid, 27 blitz).
    let games_of = |class: &str| -> u64 {
        let out = env.ok(&[
            "explore",
            "--user",
            "Karpov, Anatoly",
            "--time-class",
            class,
            "--json",
        ]);
        serde_json::from_str::<Value>(&out).expect("json")["games"]
            .as_u64()
            .expect("games")
    };
    let (classical, rapid, blitz) = (games_of("classical"), games_of("rapid"), games_of("blitz"));
    assert!(
        classical > 1_000 && rapid > 50 && blitz > 20,
        "{classical} {rapid} {blitz}"
    );
    let out = env.ok(&[
        "prep",
        "--user",
        PLAYER,
        "--opponent",
        "karpov, anatoly",
        "--color",
        "white",
        "--depth",
        "6",
        "--thin",
        "3",
        "--json",
    ]);
    let answers: Value = serde_json::from_str(&out).expect("json");
    let answer = &answers[0];
    assert_eq!(answer["color"], "white");
    let lines = answer["lines"].as_array().expect("lines");
    assert!(lines.len() >= 3, "{answer}");
    let mut last = f64::INFINITY;
    let mut deep = 0;
    for line in lines {
        let p = line["probability"].as_f64().expect("probability");
        assert!(p <= last, "likeliest first");
        last = p;
        let steps = line["steps"].as_array().expect("steps");
        let product: f64 = steps
            .iter()
            .map(|s| s["share"].as_f64().expect("share"))
            .product();
        assert!((product - p).abs() < 1e-9, "{line}");
        let uci: Vec<&str> = line["uci"]
            .as_array()
            .expect("uci")
            .iter()
            .map(|u| u.as_str().expect("uci"))
            .collect();
        for (i, step) in steps.iter().enumerate() {
            let (who, color) = if i % 2 == 0 {
                ("user", "white")
            } else {
                ("opponent", "black")
            };
            assert_eq!(step["by"], who);
            let player = if i % 2 == 0 {
                PLAYER
            } else {
                "Karpov, Anatoly"
            };
            let mut args = vec!["explore", "--user", player, "--color", color, "--json"];
            let moves = uci[..i].join(" ");
            if i > 0 {
                args.extend(["--moves", moves.as_str()]);
            }
            let explore: Value = serde_json::from_str(&env.ok(&args)).expect("explore json");
            let row = explore["moves"]
                .as_array()
                .expect("moves")
                .iter()
                .find(|m| m["uci"] == uci[i])
                .unwrap_or_else(|| panic!("explore has {} at {moves:?}", uci[i]));
            for (a, b) in [
                ("games", "games"),
                ("wins", "wins"),
                ("draws", "draws"),
                ("losses", "losses"),
            ] {
                assert_eq!(step[a], row[b], "{a} of {} after {moves:?}", uci[i]);
            }
            assert_eq!(step["positionGames"], explore["games"], "after {moves:?}");
        }
        match line["end"].as_str().expect("end") {
            "depth" => {
                assert_eq!(steps.len(), 6);
                deep += 1;
            }
            "opponentTreeThins" => {
                assert!(line["endGames"].as_u64().expect("games") < 3, "{line}");
            }
            "userTreeEnds" | "opponentTreeEnds" => {}
            other => panic!("end {other}"),
        }
    }
    assert!(deep > 0, "some line reaches the depth: {answer}");
    let text = env.ok(&[
        "prep",
        "--user",
        PLAYER,
        "--opponent",
        "Karpov, Anatoly",
        "--color",
        "white",
    ]);
    assert!(text.contains("as white against Karpov, Anatoly"), "{text}");
    // Clear messages.
    let err = env.fails(&["prep", "--user", PLAYER, "--opponent", "nobody"]);
    assert!(err.contains("unknown player \"nobody\""), "{err}");
    let err = env.fails(&[
        "prep",
        "--user",
        PLAYER,
        "--opponent",
        "Karpov, Anatoly",
        "--since",
        "2100-01",
    ]);
    assert!(err.contains("has no games as white"), "{err}");
    let err = env.fails(&[
        "prep",
        "--user",
        PLAYER,
        "--opponent",
        PLAYER,
        "--color",
        "white",
        "--source",
        "otb",
    ]);
    assert!(err.contains("no games as"), "{err}");
    // Each side's filter its own: Karpov's games of one year only (1998: 48 games as Black with a month).
    let year: Value = serde_json::from_str(&env.ok(&[
        "prep",
        "--user",
        PLAYER,
        "--opponent",
        "Karpov, Anatoly",
        "--color",
        "white",
        "--depth",
        "2",
        "--their-since",
        "1998-01",
        "--their-until",
        "1998-12",
        "--json",
    ]))
    .expect("json");
    let reply = &year[0]["lines"][0]["steps"][1];
    let after: Value = serde_json::from_str(&env.ok(&[
        "explore",
        "--user",
        "Karpov, Anatoly",
        "--color",
        "black",
        "--since",
        "1998-01",
        "--until",
        "1998-12",
        "--moves",
        year[0]["lines"][0]["uci"][0].as_str().expect("uci"),
        "--json",
    ]))
    .expect("json");
    assert_eq!(reply["positionGames"], after["games"], "{year}");
    assert!(
        reply["positionGames"].as_u64().expect("games") > 0,
        "{year}"
    );
    // Suggestions, as Black: ME's most played move (10+ games) at the choice, the
    // opponent's most played reply to it, ME's games and score after both; the same for
    // the alternative, which scores better. Each number is explore's.
    let black: Value = serde_json::from_str(&env.ok(&[
        "prep",
        "--user",
        PLAYER,
        "--opponent",
        "Karpov, Anatoly",
        "--color",
        "black",
        "--depth",
        "6",
        "--thin",
        "3",
        "--json",
    ]))
    .expect("json");
    let explore_at = |player: &str, color: &str, moves: &[&str]| -> Value {
        let line = moves.join(" ");
        let mut args = vec!["explore", "--user", player, "--color", color, "--json"];
        if !moves.is_empty() {
            args.extend(["--moves", line.as_str()]);
        }
        serde_json::from_str(&env.ok(&args)).expect("explore json")
    };
    let san = |v: &Value| v.as_str().expect("san").to_string();
    let mut suggestions = 0;
    for line in black[0]["lines"].as_array().expect("lines") {
        let moves: Vec<String> = line["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(san)
            .collect();
        for g in line["suggestions"].as_array().expect("suggestions") {
            suggestions += 1;
            let ply = usize::try_from(g["ply"].as_u64().expect("ply")).expect("ply");
            let at: Vec<&str> = moves[..ply].iter().map(String::as_str).collect();
            let mine = explore_at(PLAYER, "black", &at);
            let most = mine["moves"]
                .as_array()
                .expect("moves")
                .iter()
                .find(|m| m["games"].as_u64().expect("games") >= 10)
                .expect("a move with 10 games");
            assert_eq!(most["san"], g["played"][0], "{g}");
            for (pair, score, games) in [
                ("played", "playedScore", "playedGames"),
                ("instead", "insteadScore", "insteadGames"),
            ] {
                let (mv, reply) = (san(&g[pair][0]), san(&g[pair][1]));
                let mut path = at.clone();
                path.push(&mv);
                let theirs = explore_at("Karpov, Anatoly", "white", &path);
                let replies = theirs["moves"].as_array().expect("moves");
                let top = replies[0]["games"].as_u64().expect("games");
                let chosen = replies
                    .iter()
                    .find(|m| m["san"] == reply.as_str())
                    .expect("reply");
                assert_eq!(
                    chosen["games"].as_u64(),
                    Some(top),
                    "their most played: {g}"
                );
                path.push(&reply);
                let after = explore_at(PLAYER, "black", &path);
                assert_eq!(after["games"], g[games], "{pair} {g}");
                let n = after["games"].as_f64().expect("games");
                let points =
                    after["wins"].as_f64().expect("w") + 0.5 * after["draws"].as_f64().expect("d");
                assert!(
                    (points / n - g[score].as_f64().expect("score")).abs() < 1e-9,
                    "{pair} {g}"
                );
            }
            assert!(
                g["insteadScore"].as_f64() > g["playedScore"].as_f64(),
                "{g}"
            );
        }
    }
    // Unanalysed, a suggestion needs the two scores' intervals apart (the 27k games have
    // one: tests/reference.rs); 500 games give none, where the walk once offered a
    // switch on a point of score.
    let _ = suggestions;
    // Trees that never meet: Deep Blue as Black only met 1.Nf3 and 1.d3 (three games of
    // the 1997 match), which this player never played as White.
    let match1997 = shared().join("pgn/edge-cases/kasparov-deep-blue-1997.pgn");
    env.ingest_as("Deep Blue (Computer)", &match1997, &[]);
    let err = env.fails(&[
        "prep",
        "--user",
        PLAYER,
        "--opponent",
        "Deep Blue (Computer)",
        "--color",
        "white",
    ]);
    assert!(
        err.contains("as white and Deep Blue (Computer) have no position in common"),
        "{err}"
    );
}
