//! `mirror ingest` as a user runs it: inputs, bad games, re-ingest, crash and resume.

mod common;

use std::{
    io::{BufRead, BufReader, Write},
    process::Stdio,
};

use common::*;

#[test]
fn reingest_adds_nothing() {
    let env = Env::new();
    let first = env.ingest(&first500(), &[]);
    assert_eq!(summary_value(&first, "ingested"), 499);
    let edges = env.edges();
    let again = env.ingest(&first500(), &[]);
    assert_eq!(summary_value(&again, "ingested"), 0);
    assert_eq!(summary_value(&again, "already stored"), 499);
    assert_eq!(summary_value(&again, "new edges"), 0);
    assert_eq!(env.edges(), edges);
}

#[test]
fn summary_counts_skips_by_reason_on_the_full_file() {
    let env = Env::new();
    let s = env.ingest(&full27k(), &["--batch-size", "5000"]);
    assert_eq!(summary_value(&s, "games read"), 27_200);
    assert_eq!(summary_value(&s, "ingested"), 27_103);
    assert!(s.contains("50 (variant chess960)"), "{s}");
    assert!(s.contains("38 (non-standard start position)"), "{s}");
    assert!(s.contains("9 (no moves)"), "{s}");
    let players = env.ok(&["players"]);
    assert!(players.contains("Biskupstunga\t27103 games"), "{players}");
}

/// The first `n` games of the 500-game file as text.
fn first_games(n: usize) -> String {
    let text = std::fs::read_to_string(first500()).expect("read");
    let starts: Vec<usize> = text.match_indices("[Event ").map(|(i, _)| i).collect();
    text[..starts[n]].to_string()
}

#[test]
fn an_illegal_move_skips_that_game_only_and_names_it() {
    let env = Env::new();
    let text = first_games(3);
    // Game 2: its 4th ply "2... Nc6" becomes an impossible "Qxh1".
    let second = text.match_indices("[Event ").nth(1).expect("game 2").0;
    let at = second + text[second..].find("2... Nc6").expect("move in game 2");
    let broken = format!("{}2... Qxh1{}", &text[..at], &text[at + "2... Nc6".len()..]);
    let path = env.dir.path().join("broken.pgn");
    std::fs::write(&path, broken).expect("write");
    let out = env
        .cmd()
        .args(["ingest", "--user", PLAYER, "--progress", "none", "--pgn"])
        .arg(&path)
        .output()
        .expect("run");
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stderr.contains("broken.pgn: game 2: ply 4 (2...): \"Qxh1\""),
        "{stderr}"
    );
    assert_eq!(summary_value(&stdout, "ingested"), 2);
    assert_eq!(summary_value(&stdout, "invalid"), 1);
}

#[test]
fn no_matching_player_lists_frequent_names() {
    let env = Env::new();
    let err = env.fails(&[
        "ingest",
        "--user",
        "Biskupstungaa",
        "--progress",
        "none",
        "--pgn",
        first500().to_str().expect("path"),
    ]);
    assert!(
        err.contains("no game in the input has \"Biskupstungaa\""),
        "{err}"
    );
    assert!(err.contains("Biskupstunga (499)"), "{err}");
}

#[test]
fn aliases_match_other_spellings() {
    let env = Env::new();
    let kasparov = shared().join("pgn/masters/Kasparov.pgn.zst");
    let one = env.ingest_as("Kasparov, Gary", &kasparov, &[]);
    let alias = env.ingest_as(
        "Kasparov, Gary",
        &kasparov,
        &["--alias", "Kasparov,G", "--alias", "Kasparov, G."],
    );
    let first = summary_value(&one, "ingested");
    let more = summary_value(&alias, "ingested");
    assert!(first > 1000, "{one}");
    assert!(
        more > 300,
        "aliases add the other spelling's games: {alias}"
    );
}

#[test]
fn stdin_directories_and_compressed_inputs_give_the_same_graph() {
    let plain = Env::new();
    plain.ingest(&first500(), &[]);
    let want = plain.edges();

    // stdin
    let env = Env::new();
    let mut child = env
        .cmd()
        .args([
            "ingest",
            "--user",
            PLAYER,
            "--progress",
            "none",
            "--pgn",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("spawn");
    let bytes = std::fs::read(first500()).expect("read");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(&bytes)
        .expect("pipe");
    assert!(child.wait_with_output().expect("wait").status.success());
    assert_eq!(env.edges(), want);

    // a directory with the games split into a gzip and a zstd file
    let env = Env::new();
    let dir = env.dir.path().join("games");
    std::fs::create_dir(&dir).expect("mkdir");
    let text = String::from_utf8(bytes).expect("utf-8");
    let mid = text.match_indices("[Event ").nth(250).expect("game 251").0;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&text.as_bytes()[..mid]).expect("gz");
    std::fs::write(dir.join("a.pgn.gz"), gz.finish().expect("gz")).expect("write");
    std::fs::write(
        dir.join("b.pgn.zst"),
        zstd::encode_all(&text.as_bytes()[mid..], 3).expect("zstd"),
    )
    .expect("write");
    env.ingest(&dir, &[]);
    assert_eq!(env.edges(), want);
}

#[test]
fn missing_input_is_a_clear_error_and_creates_nothing() {
    let env = Env::new();
    let err = env.fails(&[
        "ingest",
        "--user",
        PLAYER,
        "--pgn",
        "/nonexistent/games.pgn",
    ]);
    assert!(err.contains("/nonexistent/games.pgn"), "{err}");
    assert!(!env.db().exists());
}

#[test]
fn kill_9_mid_ingest_then_rerun_equals_one_clean_run() {
    let clean = Env::new();
    clean.ingest(&first500(), &[]);
    let want = clean.edges();
    let want_players = clean.ok(&["players"]);

    let env = Env::new();
    let mut child = env
        .cmd()
        .args([
            "ingest",
            "--user",
            PLAYER,
            "--progress",
            "plain",
            "--batch-size",
            "7",
            "--pgn",
        ])
        .arg(first500())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let mut commits = 0;
    while let Some(Ok(line)) = lines.next() {
        if line.starts_with("committed") {
            commits += 1;
            if commits == 5 {
                break;
            }
        }
    }
    assert_eq!(commits, 5, "the ingest committed batches before the kill");
    child.kill().expect("SIGKILL");
    let status = child.wait().expect("wait");
    assert!(!status.success(), "killed, not finished");

    // The store opens, holds only whole batches, and fewer games than the full run.
    let partial = env.ok(&["players"]);
    let games: u64 = partial
        .lines()
        .next()
        .and_then(|l| l.split('\t').nth(1))
        .and_then(|g| g.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("games count");
    assert!((35..499).contains(&games), "{partial}");
    assert_eq!(games % 7, 0, "only whole batches: {partial}");

    let rerun = env.ingest(&first500(), &[]);
    assert_eq!(summary_value(&rerun, "already stored"), games);
    assert_eq!(summary_value(&rerun, "ingested"), 499 - games);
    assert_eq!(env.edges(), want);
    assert_eq!(
        env.ok(&["players"]).lines().next(),
        want_players.lines().next()
    );
}

#[test]
fn neo4j_without_a_uri_is_a_clear_error() {
    let env = Env::new();
    let err = env.fails(&["--store", "neo4j", "players"]);
    assert!(err.contains("MIRROR_NEO4J_URI"), "{err}");
    env.ingest(&first500(), &[]);
    let err = env.fails(&["export", "--to", "neo4j", "--user", PLAYER]);
    assert!(err.contains("MIRROR_NEO4J_URI"), "{err}");
    let err = env.fails(&["export", "--to", "neo4j", "--user", "nobody"]);
    assert!(err.contains("unknown player"), "{err}");
}

/// `RUST_LOG` shows the ingest and each batch written on stderr (and nothing without it).
#[test]
fn rust_log_traces_the_ingest_and_its_batches() {
    let env = Env::new();
    let run = |log: Option<&str>| {
        let mut cmd = env.cmd();
        cmd.args([
            "ingest",
            "--user",
            PLAYER,
            "--progress",
            "none",
            "--batch-size",
            "200",
            "--pgn",
        ])
        .arg(first500());
        match log {
            Some(l) => cmd.env("RUST_LOG", l),
            None => cmd.env_remove("RUST_LOG"),
        };
        let out = cmd.output().expect("run");
        assert!(out.status.success());
        String::from_utf8_lossy(&out.stderr).to_string()
    };
    let traced = run(Some("mirror_ingest=debug"));
    assert!(
        traced.contains("ingest{player=") && traced.contains("sources=1"),
        "{traced}"
    );
    assert!(
        traced.contains("write_batch{") && traced.contains("games=200"),
        "{traced}"
    );
    assert!(traced.contains("batch committed"), "{traced}");
    let quiet = run(None);
    assert!(!quiet.contains("write_batch"), "{quiet}");
}

/// A name that would be a path (or hide what it says) is refused with the reason by every
/// command that takes one, and nothing is written outside the data directory.
#[test]
fn names_that_would_be_paths_are_refused_by_every_command() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let pgn = first500();
    let pgn = pgn.to_str().expect("utf-8 path");
    for (name, why) in [
        ("../../evilmodel", "slash"),
        ("..", "\"..\""),
        ("Alekhine/Reilly", "slash"),
        ("abc\u{202E}gpj", "bidirectional"),
    ] {
        let commands: [&[&str]; 6] = [
            &["ingest", "--user", name, "--progress", "none", "--pgn", pgn],
            &["train", "--user", name],
            &["explore", "--user", name],
            &["report", "--user", name],
            &["play", "--user", name],
            &["uci", "--user", name],
        ];
        for args in commands {
            let err = env.fails(args);
            assert!(err.contains("invalid player name"), "{args:?}: {err}");
            assert!(err.contains(why), "{args:?}: {err}");
        }
    }
    let outside = env.dir.path().parent().map(|p| p.join("evilmodel"));
    assert!(outside.is_some_and(|p| !p.exists()));
}

/// An explicit `--db PATH` is the embedded store even when the environment names a Neo4j
/// server; asking for Neo4j and a store file at once is a clear error.
#[test]
fn an_explicit_db_is_the_embedded_store_whatever_the_environment_says() {
    let env = Env::new();
    let db = env.dir.path().join("here.redb");
    let db_s = db.to_str().expect("utf-8 path");
    let pgn = first500();
    let out = env
        .cmd()
        .env("MIRROR_NEO4J_URI", "bolt://127.0.0.1:9")
        .args([
            "--db",
            db_s,
            "ingest",
            "--user",
            PLAYER,
            "--progress",
            "none",
            "--pgn",
        ])
        .arg(&pgn)
        .output()
        .expect("ingest");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(db.exists(), "the games went to the file given");
    let err = env.fails(&["--store", "neo4j", "--db", db_s, "players"]);
    assert!(err.contains("names an embedded store file"), "{err}");
}

/// The docker-compose services run commands this binary takes: each service's command
/// (its `${VAR:-default}` as the default, a required `${VAR:?...}` as a name) is parsed
/// by the CLI (`--help` after it: clap refuses an unknown flag or value before it).
#[test]
fn the_compose_services_commands_parse() {
    let text = std::fs::read_to_string(repo().join("docker-compose.yml")).expect("compose file");
    let doc: serde_yaml::Value = serde_yaml::from_str(&text).expect("YAML");
    let services = doc["services"].as_mapping().expect("services");
    let mut checked = Vec::new();
    for (name, service) in services {
        let Some(command) = service["command"].as_sequence() else {
            continue;
        };
        let args: Vec<String> = command
            .iter()
            .map(|a| {
                let a = a.as_str().expect("a string argument");
                match (a.strip_prefix("${"), a.find(":-"), a.find(":?")) {
                    (Some(_), Some(i), _) => a[i + 2..a.len() - 1].to_string(),
                    (Some(_), None, Some(_)) => "someone".to_string(),
                    _ => a.to_string(),
                }
            })
            .collect();
        let env = Env::new();
        let mut with_help: Vec<&str> = args.iter().map(String::as_str).collect();
        with_help.push("--help");
        env.ok(&with_help);
        checked.push(name.as_str().expect("a name").to_string());
    }
    assert!(checked.contains(&"analyser".to_string()), "{checked:?}");
    assert!(checked.contains(&"mirror".to_string()), "{checked:?}");
}

/// An error says each of its causes once ("No such file or directory" not twice).
#[test]
fn an_error_says_its_cause_once() {
    let env = Env::new();
    let err = env.fails(&["ingest", "--user", "a", "--pgn", "/no/such/file.pgn"]);
    assert!(err.contains("cannot read /no/such/file.pgn"), "{err}");
    assert_eq!(err.matches("No such file or directory").count(), 1, "{err}");
}
