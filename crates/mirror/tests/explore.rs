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
