//! The whole CLI on a live Neo4j 5.26 (the test server of `tests/neo4j/run.sh`), each
//! command's answers compared with the embedded store's on the same real games.

mod common;
#[path = "../../mirror-ingest/tests/support/mod.rs"]
mod support;

use std::process::{Command, Output};

use common::*;
use mirror_store::neo4j::{Neo4jConfig, Neo4jStore};
use support::fake_chesscom::FakeChesscom;

/// The binary pointed at a Neo4j server (and its own data directory, for models).
struct Neo {
    env: Env,
    uri: String,
}

impl Neo {
    fn new(uri: &str) -> Neo {
        Neo {
            env: Env::new(),
            uri: uri.to_string(),
        }
    }

    fn cmd(&self) -> Command {
        let mut c = self.env.cmd();
        c.env("MIRROR_STORE", "neo4j")
            .env("MIRROR_NEO4J_URI", &self.uri)
            .env_remove("MIRROR_NEO4J_PASSWORD");
        c
    }

    fn run(&self, args: &[&str]) -> Output {
        self.cmd().args(args).output().expect("run mirror")
    }

    fn ok(&self, args: &[&str]) -> String {
        assert_ok(self.run(args), args)
    }
}

fn wipe(uri: &str) {
    let store = Neo4jStore::connect(Neo4jConfig::new(uri)).expect("connect");
    mirror_store::neo4j::bench::wipe(&store).expect("wipe");
}

/// The numbers of an ingest summary, without the time and the store's name.
fn counts(summary: &str) -> Vec<(String, String)> {
    summary
        .lines()
        .filter(|l| !l.starts_with("ingested ") && !l.trim_start().starts_with("time"))
        .map(|l| {
            let l = l.trim();
            let (k, v) = l.split_at(l.find(|c: char| c.is_ascii_digit()).unwrap_or(l.len()));
            (k.trim().to_string(), v.trim().to_string())
        })
        .collect()
}

#[test]
fn the_whole_cli_answers_on_neo4j_as_on_the_embedded_store() {
    let Some(server) = mirror_testkit::shared("neo4j::the_whole_cli") else {
        return;
    };
    wipe(server.uri());
    let emb = Env::new();
    let neo = Neo::new(server.uri());
    let pgn = first500();
    let pgn_s = pgn.to_str().expect("path");
    let ingest = [
        "ingest",
        "--user",
        PLAYER,
        "--progress",
        "none",
        "--pgn",
        pgn_s,
    ];

    // ingest: the same counts, and the summary names the store.
    let se = emb.ok(&ingest);
    let sn = neo.ok(&ingest);
    assert!(
        sn.contains(&format!("into Neo4j at {}", server.uri())),
        "{sn}"
    );
    assert_eq!(counts(&sn), counts(&se), "\n{sn}\n{se}");
    assert_eq!(summary_value(&sn, "ingested"), 499);
    let again = neo.ok(&ingest);
    assert_eq!(summary_value(&again, "ingested"), 0, "{again}");
    assert_eq!(summary_value(&again, "already stored"), 499, "{again}");

    // edges and players: identical (the players list names its store).
    let edges = emb.edges();
    assert_eq!(neo.ok(&["edges", "--user", PLAYER]), edges);
    let pe = emb.ok(&["players"]);
    let pn = neo.ok(&["players"]);
    let body = |s: &str| {
        s.lines()
            .map(|l| l.split(" in ").next().unwrap_or("").to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(body(&pn), body(&pe));
    assert!(
        pn.contains("positions in Neo4j at bolt://127.0.0.1:"),
        "{pn}"
    );

    // explore: tables and JSON, with filters.
    for args in [
        vec!["explore", "--user", PLAYER, "--moves", "e4"],
        vec!["explore", "--user", PLAYER, "--moves", "e4", "--json"],
        vec![
            "explore", "--user", PLAYER, "--moves", "e4 c5", "--color", "black",
        ],
        vec![
            "explore",
            "--user",
            PLAYER,
            "--time-class",
            "blitz",
            "--rated",
            "--since",
            "2018-01",
            "--json",
        ],
        vec![
            "explore",
            "--user",
            PLAYER,
            "--fen",
            "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1",
        ],
    ] {
        assert_eq!(neo.ok(&args), emb.ok(&args), "{args:?}");
    }

    // play (piped stdin) and uci: the same moves and explanations.
    let input = "e4\nhint\nbook\nNf3\nd4\npgn\nresign\n";
    let play_args = ["play", "--user", PLAYER, "--seed", "5", "--color", "white"];
    let mut ce = emb.cmd();
    ce.args(play_args)
        .args(["--save", &emb.dir.path().join("g.pgn").to_string_lossy()]);
    let mut cn = neo.cmd();
    cn.args(play_args).args([
        "--save",
        &neo.env.dir.path().join("g.pgn").to_string_lossy(),
    ]);
    let pe = assert_ok(with_stdin(ce, input), &play_args);
    let pn = assert_ok(with_stdin(cn, input), &play_args);
    let strip = |s: &str, dir: &std::path::Path| s.replace(&*dir.to_string_lossy(), "DIR");
    assert_eq!(strip(&pn, neo.env.dir.path()), strip(&pe, emb.dir.path()));
    assert!(pn.contains("[book, "), "{pn}");
    let uci = "uci\nisready\nposition startpos moves e2e4\ngo\n\
               position startpos moves e2e4 e7e5 g1f3\ngo movetime 100\n\
               position fen 8/8/8/4k3/8/8/3QK3/8 w - - 0 1\ngo\nquit\n";
    let mut ce = emb.cmd();
    ce.args(["uci", "--user", PLAYER, "--seed", "3"]);
    let mut cn = neo.cmd();
    cn.args(["uci", "--user", PLAYER, "--seed", "3"]);
    let ue = assert_ok(with_stdin(ce, uci), &["uci"]);
    let un = assert_ok(with_stdin(cn, uci), &["uci"]);
    assert_eq!(un, ue);
    assert_eq!(un.matches("bestmove ").count(), 3, "{un}");

    // values and eval.
    for args in [
        vec!["values", "--user", PLAYER],
        vec!["values", "--user", PLAYER, "--json"],
        vec![
            "eval",
            "--user",
            PLAYER,
            "--no-stockfish",
            "--no-model",
            "--max-positions",
            "300",
            "--json",
        ],
    ] {
        assert_eq!(neo.ok(&args), emb.ok(&args), "{args:?}");
    }

    // serve: the same answers, and the banner names the store.
    let (mut se, ue, be, _) = spawn_serve(emb.cmd());
    let (mut sn, un, bn, _) = spawn_serve(neo.cmd());
    assert!(bn.contains("Neo4j at bolt://127.0.0.1:"), "{bn}");
    assert!(be.contains("the embedded store"), "{be}");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let get = |url: String| -> serde_json::Value {
        rt.block_on(async {
            let r = reqwest::get(url).await.expect("request");
            assert!(r.status().is_success(), "{}", r.status());
            r.json().await.expect("json")
        })
    };
    for q in [
        "/api/v1/move?user=Biskupstunga&moves=e2e4&seed=1",
        "/api/v1/move?user=Biskupstunga&moves=e2e4,e7e5,g1f3&seed=2&policy=tiers",
        "/api/v1/explore?user=Biskupstunga&play=e2e4",
        "/api/v1/explore?user=Biskupstunga&play=e2e4,c7c5&speeds=blitz&recentGames=3",
    ] {
        let a = get(format!("{un}{q}"));
        let b = get(format!("{ue}{q}"));
        assert_eq!(a, b, "{q}");
    }
    // An analysis by another process while the server runs: the answer the server kept
    // for the position is read again, with the evaluations (the player's version on Neo4j
    // includes the evaluations' own).
    let q = format!("{un}/api/v1/explore?user=Biskupstunga&play=e2e4");
    assert!(get(q.clone())["eval"].is_null());
    neo.ok(&[
        "analyse",
        "--user",
        PLAYER,
        "--min-games",
        "100",
        "--depth",
        "6",
        "--progress",
        "none",
    ]);
    let after = get(q);
    assert_eq!(after["eval"]["depth"], 6, "{after}");
    assert!(after["moves"][0]["eval"].is_object(), "{after}");
    for c in [&mut se, &mut sn] {
        c.kill().expect("kill");
        let _ = c.wait();
    }

    // export: the embedded graph copied into an empty Neo4j equals it; again: nothing new.
    wipe(server.uri());
    let export = |env: &Env| {
        let mut c = env.cmd();
        c.env("MIRROR_NEO4J_URI", server.uri())
            .args(["export", "--to", "neo4j", "--user", PLAYER]);
        assert_ok(c.output().expect("run"), &["export"])
    };
    let out = export(&emb);
    assert!(out.contains("499 games copied, 0 already there"), "{out}");
    assert_eq!(neo.ok(&["edges", "--user", PLAYER]), edges);
    let out = export(&emb);
    assert!(out.contains("0 games copied, 499 already there"), "{out}");
    assert_eq!(neo.ok(&["edges", "--user", PLAYER]), edges);
}

#[test]
fn chesscom_ingest_on_neo4j_equals_the_embedded_store_and_reruns_incrementally() {
    let Some(server) = mirror_testkit::shared("neo4j::chesscom_ingest") else {
        return;
    };
    wipe(server.uri());
    let fake = FakeChesscom::with_recordings();
    let args = [
        "ingest",
        "--user",
        "hikaru",
        "--api-base",
        &fake.base,
        "--contact",
        "tests@mirror.invalid",
        "--progress",
        "none",
    ];
    let emb = Env::new();
    let neo = Neo::new(server.uri());
    let se = emb.ok(&args);
    let sn = neo.ok(&args);
    assert_eq!(summary_value(&sn, "ingested"), 214, "{sn}");
    assert_eq!(counts(&sn), counts(&se));
    assert_eq!(
        neo.ok(&["edges", "--user", "hikaru"]),
        emb.ok(&["edges", "--user", "hikaru"])
    );
    // The fetch state lives in Neo4j too: finished months are not fetched again.
    let again = neo.ok(&args);
    assert!(again.contains("2 already complete"), "{again}");
    assert_eq!(summary_value(&again, "ingested"), 0);
}

/// Several stateless servers on one Neo4j keep answers per player version: a write by
/// another process (`mirror ingest --store neo4j` elsewhere, with its own data directory)
/// is seen by both servers at their next request, never a stale kept answer.
#[test]
fn two_servers_see_a_write_from_elsewhere_at_their_next_request() {
    let Some(server) = mirror_testkit::shared("neo4j::two_servers") else {
        return;
    };
    wipe(server.uri());
    // The first 500 games in two parts: 300, then the other 200 from elsewhere.
    let text = std::fs::read_to_string(first500()).expect("read the PGN");
    let starts: Vec<usize> = text.match_indices("[Event ").map(|(i, _)| i).collect();
    assert!(starts.len() > 400, "{} games", starts.len());
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (dir.path().join("a.pgn"), dir.path().join("b.pgn"));
    std::fs::write(&a, &text[..starts[300]]).expect("write");
    std::fs::write(&b, &text[starts[300]..]).expect("write");
    let neo = Neo::new(server.uri());
    let elsewhere = Neo::new(server.uri());
    let ingest = |who: &Neo, pgn: &std::path::Path| {
        summary_value(
            &who.ok(&[
                "ingest",
                "--user",
                PLAYER,
                "--pgn",
                pgn.to_str().expect("utf-8"),
            ]),
            "ingested",
        )
    };
    let first = ingest(&neo, &a);
    let (mut s1, u1, _, _) = spawn_serve(neo.cmd());
    let (mut s2, u2, _, _) = spawn_serve(neo.cmd());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let get = |url: String| -> serde_json::Value {
        rt.block_on(async {
            let r = reqwest::get(url).await.expect("request");
            assert!(r.status().is_success(), "{}", r.status());
            r.json().await.expect("json")
        })
    };
    // Every game goes through the start position, with the player as White or as Black.
    let games_at_start = |url: &str| -> u64 {
        ["white", "black"]
            .iter()
            .map(|color| {
                let v = get(format!("{url}/api/v1/explore?user={PLAYER}&color={color}"));
                ["white", "draws", "black"]
                    .iter()
                    .map(|k| v[k].as_u64().expect("a count"))
                    .sum::<u64>()
            })
            .sum()
    };
    // The book's games of 1.e4 in a /move answer (kept parts: the book's rows).
    let move_games = |url: &str| -> u64 {
        let v = get(format!(
            "{url}/api/v1/move?user={PLAYER}&moves=e2e4&seed=1&policy=tiers"
        ));
        v["candidates"]
            .as_array()
            .expect("candidates")
            .iter()
            .map(|c| c["games"].as_u64().expect("games"))
            .sum()
    };
    let mut before = Vec::new();
    for url in [&u1, &u2] {
        for _ in 0..3 {
            assert_eq!(games_at_start(url), first, "{url}");
        }
        before.push(move_games(url));
        assert_eq!(move_games(url), before[before.len() - 1], "kept: the same");
    }
    assert_eq!(before[0], before[1]);
    let second = ingest(&elsewhere, &b);
    assert!(second > 0);
    for url in [&u1, &u2] {
        assert_eq!(
            games_at_start(url),
            first + second,
            "{url}: no stale answer"
        );
        assert!(move_games(url) > before[0], "{url}: the book is read again");
    }
    for c in [&mut s1, &mut s2] {
        c.kill().expect("kill");
        let _ = c.wait();
    }
}

/// Two `mirror analyse` processes at once on one Neo4j share the work: every position is
/// searched by exactly one of them, and what they store is Stockfish's own evaluation
/// (python-chess's, at the same depth).
#[test]
fn two_analyse_processes_on_one_neo4j_search_each_position_once() {
    let Some(server) = mirror_testkit::shared("neo4j::two_analysers") else {
        return;
    };
    wipe(server.uri());
    let neo = Neo::new(server.uri());
    let pgn = first500();
    neo.ok(&[
        "ingest",
        "--user",
        PLAYER,
        "--progress",
        "none",
        "--pgn",
        pgn.to_str().expect("path"),
    ]);
    let spawn = || {
        neo.cmd()
            .args([
                "analyse",
                "--user",
                PLAYER,
                "--min-games",
                "3",
                "--depth",
                "10",
            ])
            .args([
                "--threads",
                "1",
                "--batch",
                "4",
                "--json",
                "--progress",
                "none",
            ])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("analyse")
    };
    let (a, b) = (spawn(), spawn());
    let summary = |child: std::process::Child| -> serde_json::Value {
        let out = child.wait_with_output().expect("analyse");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).expect("JSON summary")
    };
    let (a, b) = (summary(a), summary(b));
    let n = |v: &serde_json::Value, k: &str| v[k].as_u64().unwrap_or_else(|| panic!("{k}: {v}"));
    let positions = n(&a, "positions");
    assert_eq!(n(&b, "positions"), positions);
    for s in [&a, &b] {
        assert_eq!(
            n(s, "reused") + n(s, "searched") + n(s, "skipped") + n(s, "by_others"),
            positions,
            "{s}"
        );
    }
    assert!(n(&a, "searched") > 0 && n(&b, "searched") > 0, "{a}\n{b}");
    let skipped = n(&a, "skipped") + n(&b, "skipped");
    assert_eq!(
        n(&a, "searched") + n(&b, "searched") + skipped,
        positions,
        "each position searched once: {a}\n{b}"
    );
    // What they stored: every position, the engine's own evaluation.
    let listed = neo.ok(&["analyse", "--user", PLAYER, "--min-games", "3", "--list"]);
    let lines: Vec<serde_json::Value> = listed
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON line"))
        .collect();
    assert_eq!(lines.len() as u64, positions - skipped);
    let theirs = reference_evals(&listed.lines().map(str::to_string).collect::<Vec<_>>(), 10);
    assert_eq!(theirs.len(), lines.len());
    for (m, r) in lines.iter().zip(&theirs) {
        assert_eq!(m["epd"], r["epd"]);
        assert_eq!(
            (m.get("cp"), m.get("mate"), &m["best"]),
            (r.get("cp"), r.get("mate"), &r["best"]),
            "{}",
            m["epd"]
        );
    }
}

/// The games' `[%eval]` comments reach Neo4j's positions as they reach the embedded
/// store's.
#[test]
fn comment_evaluations_on_neo4j_equal_the_embedded_stores() {
    let Some(server) = mirror_testkit::shared("neo4j::comments") else {
        return;
    };
    wipe(server.uri());
    let neo = Neo::new(server.uri());
    let emb = Env::new();
    let pgn = profile_fixture("drnykterstein_lichess.pgn");
    let pgn = pgn.to_str().expect("utf-8 path");
    let ingest = [
        "ingest",
        "--user",
        "DrNykterstein",
        "--progress",
        "none",
        "--pgn",
        pgn,
    ];
    neo.ok(&ingest);
    emb.ok(&ingest);
    let list = [
        "analyse",
        "--user",
        "DrNykterstein",
        "--min-games",
        "1",
        "--list",
    ];
    let (on_neo, on_emb) = (neo.ok(&list), emb.ok(&list));
    assert!(on_emb.lines().count() > 1000, "{}", on_emb.lines().count());
    assert_eq!(on_neo, on_emb);
}

/// A drill on Neo4j as on the embedded store, end to end: the same cards for the King's
/// Gambit player, a session in a pseudo-terminal (`tests/drivers/drill_pty.py`, the same
/// seed) asks the same questions in the same order and draws the same replies, and the
/// records it stores in Neo4j list as the embedded store's do (reviews, lapses, due dates).
#[test]
fn a_drill_session_on_neo4j_equals_the_embedded_stores() {
    let Some(server) = mirror_testkit::shared("neo4j::drill") else {
        return;
    };
    wipe(server.uri());
    let user = "Fedorov, Alexei";
    let emb = Env::new();
    let neo = Neo::new(server.uri());
    let pgn = shared().join("pgn/population/pgnmentor_players_chesslablab.pgn.zst");
    let ingest = [
        "ingest",
        "--user",
        user,
        "--progress",
        "none",
        "--pgn",
        pgn.to_str().expect("path"),
    ];
    emb.ok(&ingest);
    neo.ok(&ingest);
    let list_args = [
        "drill",
        "--user",
        user,
        "--color",
        "white",
        "--min-games",
        "5",
        "--list",
        "--json",
    ];
    // What a record says, without the clock time of the answers.
    let kept = |text: String| -> Vec<serde_json::Value> {
        let v: serde_json::Value = serde_json::from_str(&text).expect("JSON");
        v["cards"]
            .as_array()
            .expect("cards")
            .iter()
            .map(|c| {
                serde_json::json!([
                    c["key"],
                    c["line"],
                    c["right"],
                    c["why"],
                    c["new"],
                    c["reviews"],
                    c["lapses"],
                    c["dueDate"],
                    c["dueNow"]
                ])
            })
            .collect()
    };
    let before = kept(neo.ok(&list_args));
    assert_eq!(before, kept(emb.ok(&list_args)));
    assert!(before.len() >= 4, "{before:?}");
    let session = |mirror: Command| {
        drill_session(
            &mirror,
            &[
                "--user",
                user,
                "--color",
                "white",
                "--min-games",
                "5",
                "--new",
                "4",
                "--seed",
                "11",
            ],
        )
    };
    let on_neo = session(neo.cmd());
    let on_emb = session(emb.cmd());
    assert_eq!(on_neo["exit"], 0, "{on_neo}");
    assert_eq!(on_neo["asked"], on_emb["asked"]);
    assert_eq!(on_neo["summary"], "8 answers to 4 cards: 4 right, 4 wrong.");
    let after = kept(neo.ok(&list_args));
    assert_eq!(after, kept(emb.ok(&list_args)));
    let answered = after.iter().filter(|c| c[4] == false).count();
    assert_eq!(answered, 4, "{after:?}");
}
