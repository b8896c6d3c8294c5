//! Exactly once on a live Neo4j, under faults: `kill -9` of the ingest, `kill -9` of the
//! server, two ingests at once, wrong credentials and a server that is down. Every run
//! ends with the store equal to one clean ingest (the embedded store's edges, which the
//! python-chess reference test checks).

mod common;

use std::{
    io::{BufRead, BufReader},
    process::{Child, Command, Output, Stdio},
    time::{Duration, Instant},
};

use common::*;
use mirror_store::neo4j::{Neo4jConfig, Neo4jStore};
use mirror_testkit::ServerOptions;

fn neo_cmd(env: &Env, uri: &str) -> Command {
    let mut c = env.cmd();
    c.env("MIRROR_STORE", "neo4j")
        .env("MIRROR_NEO4J_URI", uri)
        .env_remove("MIRROR_NEO4J_PASSWORD");
    c
}

fn run(mut cmd: Command, args: &[&str]) -> Output {
    cmd.args(args).output().expect("run mirror")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn ok(out: Output) -> String {
    assert!(
        out.status.success(),
        "failed\nstdout:\n{}\nstderr:\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

fn wipe(uri: &str) {
    let store = Neo4jStore::connect(Neo4jConfig::new(uri)).expect("connect");
    mirror_store::neo4j::bench::wipe(&store).expect("wipe");
}

fn ingest_args(batch: &str) -> Vec<String> {
    [
        "ingest",
        "--user",
        PLAYER,
        "--progress",
        "plain",
        "--batch-size",
        batch,
        "--pgn",
        first500().to_str().expect("path"),
    ]
    .map(String::from)
    .to_vec()
}

/// The clean run's edges (embedded store).
fn reference() -> String {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    env.edges()
}

/// Starts an ingest and waits until it has committed its first batch (the caller kills or
/// waits for the child).
#[allow(clippy::zombie_processes)]
fn ingest_until_first_commit(
    env: &Env,
    uri: &str,
    batch: &str,
) -> (Child, BufReader<std::process::ChildStderr>) {
    let mut child = neo_cmd(env, uri)
        .args(ingest_args(batch))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let mut stderr = BufReader::new(child.stderr.take().expect("stderr"));
    let mut line = String::new();
    loop {
        line.clear();
        let n = stderr.read_line(&mut line).expect("read");
        if n == 0 {
            let out = child.wait_with_output().expect("wait");
            panic!("the ingest ended before committing a batch: {out:?}");
        }
        if line.starts_with("committed ") {
            return (child, stderr);
        }
    }
}

fn games_in(env: &Env, uri: &str) -> String {
    ok(run(neo_cmd(env, uri), &["players"]))
}

/// The store at `uri` holds exactly one clean run: the reference's edges, 499 games.
fn assert_one_clean_run(env: &Env, uri: &str, want: &str) {
    assert_eq!(
        ok(run(neo_cmd(env, uri), &["edges", "--user", PLAYER])),
        want
    );
    assert!(games_in(env, uri).contains("Biskupstunga\t499 games"));
}

#[test]
fn kill_9_of_the_ingest_then_rerun_equals_one_clean_run() {
    let Some(server) = mirror_testkit::shared("neo4j_faults::kill_9_of_the_ingest") else {
        return;
    };
    wipe(server.uri());
    let want = reference();
    let env = Env::new();
    let (mut child, _) = ingest_until_first_commit(&env, server.uri(), "40");
    child.kill().expect("SIGKILL");
    assert!(!child.wait().expect("wait").success());
    let partial = games_in(&env, server.uri());
    assert!(
        !partial.contains("499 games"),
        "killed before the end: {partial}"
    );
    let args = ingest_args("40");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let rerun = ok(run(neo_cmd(&env, server.uri()), &args));
    assert_eq!(
        summary_value(&rerun, "ingested") + summary_value(&rerun, "already stored"),
        499,
        "{rerun}"
    );
    assert_one_clean_run(&env, server.uri(), &want);
}

#[test]
fn two_overlapping_ingests_at_once_count_every_game_once() {
    let Some(server) = mirror_testkit::shared("neo4j_faults::two_overlapping_ingests") else {
        return;
    };
    wipe(server.uri());
    let want = reference();
    let env = Env::new();
    // Different batch boundaries, so that batches overlap partly.
    let spawn = |batch: &str| {
        neo_cmd(&env, server.uri())
            .args(ingest_args(batch))
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn")
    };
    let a = spawn("60");
    let b = spawn("45");
    let (a, b) = (
        ok(a.wait_with_output().expect("wait")),
        ok(b.wait_with_output().expect("wait")),
    );
    assert_eq!(
        summary_value(&a, "ingested") + summary_value(&b, "ingested"),
        499,
        "every game is written by exactly one of them:\n{a}\n{b}"
    );
    assert_one_clean_run(&env, server.uri(), &want);
}

#[test]
fn kill_9_of_neo4j_mid_ingest_is_a_clear_error_and_a_restart_and_rerun_complete_it() {
    let data = tempfile::tempdir().expect("tempdir");
    let opts = ServerOptions {
        data_dir: Some(data.path().join("neo4j")),
        ..ServerOptions::default()
    };
    let Some(server) = mirror_testkit::private("neo4j_faults::kill_9_of_neo4j", &opts) else {
        return;
    };
    let want = reference();
    let env = Env::new();
    let uri = server.uri().to_string();
    let (child, mut stderr) = ingest_until_first_commit(&env, &uri, "20");
    server.kill9();
    let mut rest = String::new();
    std::io::Read::read_to_string(&mut stderr, &mut rest).expect("stderr");
    let out = child.wait_with_output().expect("wait");
    assert!(
        !out.status.success(),
        "mirror must fail when Neo4j dies: {rest}"
    );
    assert!(
        rest.contains(&format!("Neo4j at {uri}")) && rest.contains("is the server running?"),
        "a clear error: {rest}"
    );
    // The same data directory, a new server (and port): the rerun completes the ingest.
    let Some(again) = mirror_testkit::private("neo4j_faults::kill_9_of_neo4j", &opts) else {
        return;
    };
    let args = ingest_args("20");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let rerun = ok(run(neo_cmd(&env, again.uri()), &args));
    assert!(summary_value(&rerun, "already stored") >= 20, "{rerun}");
    assert_one_clean_run(&env, again.uri(), &want);
}

#[test]
fn wrong_password_and_a_server_that_is_down_are_clear_errors_without_secrets() {
    let secret = "mirror-test-secret-7Q";
    let wrong = "not-the-password-3Z";
    let opts = ServerOptions {
        password: Some(secret.into()),
        ..ServerOptions::default()
    };
    let Some(server) = mirror_testkit::private("neo4j_faults::wrong_password", &opts) else {
        return;
    };
    let env = Env::new();
    let with_password = |pw: &str, args: &[&str]| {
        let mut c = neo_cmd(&env, server.uri());
        c.env("MIRROR_NEO4J_USER", "neo4j")
            .env("MIRROR_NEO4J_PASSWORD", pw);
        run(c, args)
    };
    let t = Instant::now();
    let out = with_password(wrong, &["players"]);
    assert!(!out.status.success());
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        all.contains("refused the credentials of user \"neo4j\""),
        "{all}"
    );
    assert!(all.contains("MIRROR_NEO4J_PASSWORD"), "{all}");
    assert!(
        !all.contains(wrong) && !all.contains(secret),
        "no password in: {all}"
    );
    assert!(
        t.elapsed() < Duration::from_secs(20),
        "no long retries on bad credentials"
    );
    // The right password works, and is not printed either.
    let out = with_password(secret, &["players"]);
    let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(out.status.success(), "{all}");
    assert!(all.contains("0 positions in Neo4j at"), "{all}");
    assert!(!all.contains(secret), "{all}");

    // A server that is down: bounded retries, then a clear error.
    let down = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
        format!("bolt://{}", l.local_addr().expect("addr"))
    };
    let t = Instant::now();
    let mut c = neo_cmd(&env, &down);
    c.env("MIRROR_NEO4J_PASSWORD", secret);
    let out = run(c, &["explore", "--user", PLAYER]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains(&format!(
            "Neo4j at {down} did not answer after 5 attempt(s)"
        )) && err.contains("is the server running?"),
        "{err}"
    );
    assert!(!err.contains(secret), "{err}");
    assert!(
        t.elapsed() < Duration::from_secs(30),
        "bounded: {:?}",
        t.elapsed()
    );
}

/// Neo4j at a small heap (512 MiB, so 358 MiB for all transactions): the default batch of
/// 1,000 of the 27k player's games needs more than that in one transaction. The store halves
/// what it writes in one transaction until the server takes it, and the graph equals the
/// embedded store's for the same 3,000 games.
#[test]
fn a_neo4j_with_a_512_mib_heap_takes_the_default_batches_split_to_fit() {
    let opts = ServerOptions {
        heap_mb: Some(512),
        ..ServerOptions::default()
    };
    let Some(server) = mirror_testkit::private("neo4j_faults::a_512_mib_heap", &opts) else {
        return;
    };
    let env = Env::new();
    let pgn = env.dir.path().join("first3000.pgn");
    std::fs::write(&pgn, first_games(&full27k(), 3000)).expect("write the games");
    let mut cmd = neo_cmd(&env, server.uri());
    cmd.env("RUST_LOG", "mirror_store=warn");
    let out = cmd
        .args(["ingest", "--user", PLAYER, "--progress", "plain", "--pgn"])
        .arg(&pgn)
        .output()
        .expect("run mirror");
    let log = text(&out.stderr);
    let summary = ok(out);
    assert!(
        log.contains("games=1000 now=500"),
        "the server refused 1,000 games in one transaction, and they were split: {log}"
    );
    // 4 of the 3,000 have no moves or are Chess960.
    assert_eq!(summary_value(&summary, "ingested"), 2996, "{summary}");
    // The same answers as the embedded store's for the same games (a full `edges` dump
    // takes minutes on so small a heap): every game once, and the explorer's counts and
    // times along the main lines of both colours.
    let embedded = Env::new();
    embedded.ingest(&pgn, &[]);
    assert!(games_in(&env, server.uri()).contains("Biskupstunga\t2996 games"));
    for (moves, color) in [
        ("", "white"),
        ("e4", "white"),
        ("e4 c6 d4", "white"),
        ("e4", "black"),
        ("d4 d5 c4", "black"),
    ] {
        let args = [
            "explore", "--user", PLAYER, "--moves", moves, "--color", color, "--json",
        ];
        let neo: serde_json::Value =
            serde_json::from_str(&ok(run(neo_cmd(&env, server.uri()), &args))).expect("json");
        let want: serde_json::Value = serde_json::from_str(&embedded.ok(&args)).expect("json");
        assert_eq!(neo, want, "explore {moves:?} as {color}");
    }
}

/// The first `n` games of a `.pgn.zst` file, as PGN text.
fn first_games(path: &std::path::Path, n: usize) -> String {
    let file = std::fs::File::open(path).expect("open the games");
    let reader = BufReader::new(zstd::Decoder::new(file).expect("zstd"));
    let mut out = String::new();
    let mut games = 0;
    for line in reader.lines() {
        let line = line.expect("read");
        if line.starts_with("[Event ") {
            games += 1;
            if games > n {
                break;
            }
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}
