//! One profile, many accounts: `mirror ingest --user NAME --chesscom A --lichess B --pgn
//! FILES` into one player, games deduplicated across sources, the accounts recorded, and
//! `--source` filters checked against python-chess.

mod common;
#[path = "../../mirror-ingest/tests/support/mod.rs"]
mod support;

use std::sync::{Arc, Mutex};

use common::*;
use support::{fake_chesscom, fake_lichess};

use fake_chesscom::FakeChesscom;

/// The recorded `/pgn` answer of fabianocaruana's May 2020 (the same games the recorded
/// JSON month holds), written to a file as a user would download it.
fn caruana_pgn(env: &Env) -> std::path::PathBuf {
    let (_, answer) = fake_chesscom::load_recording(
        &shared().join("chesscom/recorded/get_player_games_by_month_pgn.yaml"),
    );
    let path = env.dir.path().join("caruana-2020-05.pgn");
    std::fs::write(&path, &answer.body).expect("write pgn");
    path
}

#[test]
fn chesscom_account_and_its_pgn_download_count_once_and_the_account_is_remembered() {
    let server = FakeChesscom::with_recordings();
    let chesscom = |env: &Env, extra: &[&str]| {
        let mut args = vec![
            "ingest",
            "--api-base",
            &server.base,
            "--contact",
            "tests@mirror.invalid",
            "--progress",
            "none",
        ];
        args.extend_from_slice(extra);
        env.ok(&args)
    };
    // One account alone, under its own name: the expectation.
    let alone = Env::new();
    chesscom(&alone, &["--user", "fabianocaruana"]);
    let want = alone.ok(&["edges", "--user", "fabianocaruana"]);
    assert!(!want.is_empty());

    let env = Env::new();
    let pgn = caruana_pgn(&env);
    let out = chesscom(
        &env,
        &[
            "--user",
            "Fabi",
            "--chesscom",
            "fabianocaruana",
            "--pgn",
            pgn.to_str().expect("utf-8"),
        ],
    );
    assert!(out.contains("== Chess.com fabianocaruana =="), "{out}");
    assert!(out.contains("== PGN files =="), "{out}");
    let api_games = summary_value(&out, "ingested");
    assert!(api_games > 10, "{out}");
    assert!(
        out.contains(&format!(
            "profile Fabi: {api_games} new games (Chess.com fabianocaruana: {api_games}, PGN files: 0), {api_games} already stored or seen twice"
        )),
        "every game of the download is one the API gave: {out}"
    );
    assert_same_edges(&env.ok(&["edges", "--user", "fabi"]), &want);

    let players: serde_json::Value =
        serde_json::from_str(&env.ok(&["players", "--json"])).expect("json");
    assert_eq!(
        players["players"][0]["accounts"],
        serde_json::json!([{ "source": "chesscom", "name": "fabianocaruana" }]),
        "{players}"
    );
    assert_eq!(players["players"][0]["name"], "Fabi");
    // `--user NAME` alone now means the profile's recorded accounts.
    let again = chesscom(&env, &["--user", "fabi"]);
    assert!(
        again.contains("profile fabi: its accounts Chess.com fabianocaruana"),
        "{again}"
    );
    assert!(again.contains("1 already complete"), "{again}");
    assert_eq!(summary_value(&again, "ingested"), 0);
    // Every game is a Chess.com game: the other sources are empty.
    assert_eq!(
        env.ok(&["edges", "--user", "fabi", "--source", "chesscom"]),
        want
    );
    assert_eq!(
        env.ok(&["edges", "--user", "fabi", "--source", "lichess,otb"]),
        ""
    );
}

#[test]
fn lichess_account_plus_over_the_board_games_in_one_profile_with_source_filters() {
    let lichess_pgn = profile_fixture("drnykterstein_lichess.pgn");
    let otb_pgn = profile_fixture("carlsen_otb.pgn");
    let server = FakeChesscom::start();
    let text = std::fs::read_to_string(&lichess_pgn).expect("read");
    fake_lichess::serve(
        &server,
        "DrNykterstein",
        Arc::new(Mutex::new(fake_lichess::split_games(&text))),
    );
    let env = Env::new();
    let out = env.ok(&[
        "ingest",
        "--user",
        "Magnus Carlsen",
        "--lichess",
        "DrNykterstein",
        "--lichess-api",
        &server.base,
        "--alias",
        "Carlsen,M",
        "--progress",
        "none",
        "--pgn",
        otb_pgn.to_str().expect("utf-8"),
        lichess_pgn.to_str().expect("utf-8"),
    ]);
    // The lichess games come twice (the export and the downloaded file): counted once.
    assert!(
        out.contains("profile Magnus Carlsen: 120 new games (lichess DrNykterstein: 60, PGN files: 60), 60 already stored or seen twice"),
        "{out}"
    );
    let names = "Magnus Carlsen|DrNykterstein|Carlsen,M";
    let both = [otb_pgn.as_path(), lichess_pgn.as_path()];
    assert_same_edges(
        &env.ok(&["edges", "--user", "Magnus Carlsen"]),
        &reference_profile_edges(&both, names, &[]),
    );
    for (source, extra) in [
        ("lichess", &["--color", "white"][..]),
        ("otb", &[][..]),
        ("chesscom", &[][..]),
    ] {
        let mut args = vec!["edges", "--user", "Magnus Carlsen", "--source", source];
        args.extend_from_slice(extra);
        let mut reference = vec!["--source", source];
        reference.extend_from_slice(extra);
        let mine = env.ok(&args);
        assert_same_edges(&mine, &reference_profile_edges(&both, names, &reference));
        assert_eq!(mine.is_empty(), source == "chesscom", "{source}");
    }
    // The explorer at the start position (the player has White there): only the
    // over-the-board games with White.
    let explore: serde_json::Value = serde_json::from_str(&env.ok(&[
        "explore",
        "--user",
        "Magnus Carlsen",
        "--source",
        "otb",
        "--json",
    ]))
    .expect("json");
    let otb_white = std::fs::read_to_string(&otb_pgn)
        .expect("read")
        .matches("[White \"Carlsen,M\"]")
        .count();
    assert_eq!(explore["games"], otb_white, "{explore}");
    let players: serde_json::Value =
        serde_json::from_str(&env.ok(&["players", "--json"])).expect("json");
    assert_eq!(
        players["players"][0]["accounts"],
        serde_json::json!([
            { "source": "otb", "name": "Carlsen,M" },
            { "source": "lichess", "name": "DrNykterstein" }
        ]),
        "{players}"
    );
    // A later PGN ingest matches the recorded names without repeating them.
    let again = env.ok(&[
        "ingest",
        "--user",
        "Magnus Carlsen",
        "--progress",
        "none",
        "--pgn",
        otb_pgn.to_str().expect("utf-8"),
    ]);
    assert_eq!(summary_value(&again, "already stored"), 60, "{again}");
    // `--user NAME` alone (no Chess.com username: it has a space) fetches from the
    // profile's recorded accounts.
    let again = env.ok(&[
        "ingest",
        "--user",
        "Magnus Carlsen",
        "--lichess-api",
        &server.base,
        "--progress",
        "none",
    ]);
    assert!(
        again.contains("profile Magnus Carlsen: its accounts lichess DrNykterstein"),
        "{again}"
    );
    assert!(
        again.contains("lichess export of DrNykterstein since"),
        "{again}"
    );
    assert_eq!(summary_value(&again, "ingested"), 0);
    let err = env.fails(&["ingest", "--user", "Nobody Here"]);
    assert!(err.contains("invalid Chess.com username"), "{err}");
    let err = env.fails(&["explore", "--user", "Magnus Carlsen", "--source", "icc"]);
    assert!(err.contains("unknown game source \"icc\""), "{err}");
    let err = env.fails(&["ingest", "--lichess", "aaa", "--chesscom", "bbb"]);
    assert!(err.contains("pass --user NAME"), "{err}");
}
