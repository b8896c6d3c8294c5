//! `mirror ingest --user NAME` from a fake Chess.com serving real recordings, and
//! `mirror ingest --lichess USER` from a fake lichess export streaming real games.

mod common;
#[path = "../../mirror-ingest/tests/support/mod.rs"]
mod support;

use support::{fake_chesscom, fake_lichess};

use std::{
    io::{BufRead, BufReader},
    process::Stdio,
    time::Duration,
};

use common::*;
use fake_chesscom::{FakeChesscom, Fault};

fn ingest_args<'a>(server: &'a FakeChesscom, user: &'a str) -> Vec<&'a str> {
    vec![
        "ingest",
        "--user",
        user,
        "--api-base",
        &server.base,
        "--contact",
        "tests@mirror.invalid",
        "--progress",
        "none",
    ]
}

fn hikaru_edges(env: &Env) -> String {
    env.ok(&["edges", "--user", "hikaru"])
}

#[test]
fn ingest_from_chesscom_then_rerun() {
    let server = FakeChesscom::with_recordings();
    let env = Env::new();
    let out = env.ok(&ingest_args(&server, "hikaru"));
    assert!(
        out.contains(
            "Chess.com months: 2 in range, 2 fetched, 0 not modified, 0 already complete, 0 failed"
        ),
        "{out}"
    );
    assert_eq!(summary_value(&out, "ingested"), 214);
    assert!(out.contains("2 (non-standard start position)"), "{out}");
    let explore = env.ok(&["explore", "--user", "Hikaru", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&explore).expect("json");
    assert!(v["games"].as_u64().expect("games") > 50, "{explore}");
    let again = env.ok(&ingest_args(&server, "hikaru"));
    assert!(again.contains("2 already complete"), "{again}");
    assert_eq!(summary_value(&again, "ingested"), 0);
}

#[test]
fn kill_9_mid_ingest_then_rerun_equals_one_clean_run() {
    let server = FakeChesscom::with_recordings();
    let clean = Env::new();
    clean.ok(&ingest_args(&server, "hikaru"));
    let want = hikaru_edges(&clean);

    let env = Env::new();
    server.clear_seen();
    // March answers late, so the process is surely still running after February.
    server.fault(
        "/pub/player/hikaru/games/2014/03",
        Fault::Slow(Duration::from_secs(30)),
    );
    let mut args = ingest_args(&server, "hikaru");
    let last = args.len() - 1;
    args[last] = "plain";
    let mut child = env
        .cmd()
        .args(&args)
        .args(["--timeout", "60"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    let stderr = child.stderr.take().expect("stderr");
    let mut lines = BufReader::new(stderr).lines();
    let mut february_done = false;
    while let Some(Ok(line)) = lines.next() {
        if line.starts_with("month 2014-02 done") {
            february_done = true;
            break;
        }
    }
    assert!(february_done);
    // Kill while March's (slow) request is in flight.
    let asked = |s: &FakeChesscom| s.seen().iter().any(|r| r.path.ends_with("/2014/03"));
    for _ in 0..500 {
        if asked(&server) {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(asked(&server), "the ingest asked for March");
    child.kill().expect("SIGKILL");
    assert!(!child.wait().expect("wait").success());

    let partial = env.ok(&["players"]);
    assert!(partial.contains("hikaru\t54 games"), "{partial}");
    let rerun = env.ok(&ingest_args(&server, "hikaru"));
    assert!(
        rerun.contains("1 fetched") && rerun.contains("1 already complete"),
        "{rerun}"
    );

    assert_eq!(summary_value(&rerun, "ingested"), 160);
    assert_eq!(hikaru_edges(&env), want);
}

#[test]
fn unknown_and_invalid_users_are_clear_errors() {
    let server = FakeChesscom::with_recordings();
    let env = Env::new();
    let err = env.fails(&ingest_args(&server, "nosuchuser42"));
    assert!(
        err.contains("Chess.com has no user \"nosuchuser42\": User \"nosuchuser42\" not found."),
        "{err}"
    );
    let err = env.fails(&ingest_args(&server, "../etc/passwd"));
    assert!(err.contains("invalid Chess.com username"), "{err}");
    assert!(server.seen().iter().all(|r| !r.path.contains("..")));
}

#[test]
fn forbidden_without_contact_says_how_to_fix_it() {
    let server = FakeChesscom::with_recordings();
    server.require_contact(true);
    let env = Env::new();
    let out = env
        .cmd()
        .args([
            "ingest",
            "--user",
            "hikaru",
            "--api-base",
            &server.base,
            "--progress",
            "none",
        ])
        .env_remove("MIRROR_CONTACT")
        .output()
        .expect("run");
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("403") && err.contains("--contact EMAIL"),
        "{err}"
    );
}

#[test]
fn a_failed_month_is_listed_and_the_exit_code_says_so() {
    let server = FakeChesscom::with_recordings();
    server.fault(
        "/pub/player/hikaru/games/2014/03",
        Fault::Status(500, vec![], "down".into()),
    );
    let env = Env::new();
    let mut args = ingest_args(&server, "hikaru");
    args.extend(["--retries", "0"]);
    let out = env.run(&args);
    assert!(!out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("1 failed"), "{stdout}");
    assert!(
        stderr.contains("error: month 2014-03 failed") && stderr.contains("500"),
        "{stderr}"
    );
    assert_eq!(summary_value(&stdout, "ingested"), 54);
}

#[test]
fn ingest_from_lichess_then_rerun_from_the_cursor() {
    let server = FakeChesscom::start();
    let text = std::fs::read_to_string(first500()).expect("read");
    fake_lichess::serve(
        &server,
        PLAYER,
        std::sync::Arc::new(std::sync::Mutex::new(fake_lichess::split_games(&text))),
    );
    let env = Env::new();
    let run = |env: &Env| {
        env.cmd()
            .args([
                "ingest",
                "--lichess",
                PLAYER,
                "--lichess-api",
                &server.base,
                "--progress",
                "none",
            ])
            .env("MIRROR_LICHESS_TOKEN", "lip_test_token")
            .output()
            .expect("run")
    };
    let out = run(&env);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("lichess export of Biskupstunga: all games"),
        "{stdout}"
    );
    assert_eq!(summary_value(&stdout, "ingested"), 499);
    assert!(
        !stdout.contains("lip_test_token")
            && !String::from_utf8_lossy(&out.stderr).contains("lip_test_token")
    );
    let auth = server.seen()[0].headers.get("authorization").cloned();
    assert_eq!(auth.as_deref(), Some("Bearer lip_test_token"));
    let again = run(&env);
    let stdout = String::from_utf8_lossy(&again.stdout);
    assert!(
        stdout.contains("lichess export of Biskupstunga since"),
        "{stdout}"
    );
    assert_eq!(summary_value(&stdout, "ingested"), 0);
}
