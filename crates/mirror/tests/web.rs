//! The web page in a real browser, and the API against its OpenAPI document: `mirror
//! serve` over real games, driven by `web/e2e/run.mjs` (Playwright with Debian's
//! Chromium; see that file for the checks) and by schemathesis.
//!
//! Needs Node.js, `web/node_modules` (`npm ci` in `web/`), `/usr/bin/chromium` and
//! schemathesis (PyPI), all installed by `tests/setup.sh`. With `MIRROR_REQUIRE_WEB=1`
//! (set by `.ci/run`) a missing one fails the test; otherwise it prints a loud `SKIPPED`
//! line and passes. Screenshots (desktop and phone) go to `$MIRROR_E2E_SHOTS` when set.

mod common;
#[path = "../../mirror-ingest/tests/support/mod.rs"]
mod support;

use std::{path::Path, process::Command};

use common::*;

fn missing() -> Vec<String> {
    let mut out = Vec::new();
    let node = Command::new("node").arg("--version").output();
    if !node.is_ok_and(|o| o.status.success()) {
        out.push("node (Node.js)".to_string());
    }
    if !repo().join("web/node_modules/playwright-core").is_dir() {
        out.push("web/node_modules (npm ci in web/)".to_string());
    }
    let chromium = std::env::var("MIRROR_CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
    if !Path::new(&chromium).is_file() {
        out.push(format!("{chromium} (apt-get install chromium)"));
    }
    out
}

/// Whether the tools are here; a loud skip (or, in CI, a failure) when not.
fn tools_here(missing: Vec<String>) -> bool {
    if missing.is_empty() {
        return true;
    }
    let required = std::env::var("MIRROR_REQUIRE_WEB").is_ok_and(|v| v == "1");
    assert!(!required, "the web tests need: {}", missing.join(", "));
    eprintln!(
        "SKIPPED: the web tests need {} (run tests/setup.sh)",
        missing.join(", ")
    );
    false
}

/// Runs `tool` against `mirror serve` over 500 real games, analysed by Stockfish at a
/// shallow depth (its base URL as argument); returns its stdout after checking it
/// succeeded.
fn against_a_server(what: &str, tool: impl FnOnce(&str) -> Command) -> String {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    env.ok(&[
        "analyse",
        "--user",
        PLAYER,
        "--min-games",
        "5",
        "--depth",
        "6",
        "--progress",
        "none",
    ]);
    let (mut child, url, _, _stderr) = spawn_serve(env.cmd());
    let out = tool(&url).output();
    let _ = child.kill();
    let _ = child.wait();
    let out = out.unwrap_or_else(|e| panic!("cannot run {what}: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    println!("{stdout}");
    assert!(
        out.status.success(),
        "{what} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

#[test]
fn the_page_in_chromium_agrees_with_the_api_and_plays() {
    if !tools_here(missing()) {
        return;
    }
    let shots = std::env::var("MIRROR_E2E_SHOTS").ok();
    let stdout = against_a_server("the browser tests", |url| {
        let mut cmd = Command::new("node");
        cmd.current_dir(repo().join("web"))
            .args(["e2e/run.mjs", "--base", url, "--user", PLAYER]);
        if let Some(dir) = &shots {
            cmd.args(["--shots", dir]);
        }
        cmd
    });
    assert!(stdout.contains(" 0 failed"), "{stdout}");
}

/// "Add a player" on the page of a server started on an empty store: a Chess.com account
/// (the fake Chess.com serving real recordings), its new games, a PGN upload; driven by
/// `web/e2e/add.mjs`.
#[test]
fn the_page_adds_players_from_chesscom_and_a_pgn_file() {
    if !tools_here(missing()) {
        return;
    }
    let chesscom = support::fake_chesscom::FakeChesscom::with_recordings();
    // February answers late the first time: the page's first import is cancelled in it.
    chesscom.fault(
        "/pub/player/hikaru/games/2014/02",
        support::fake_chesscom::Fault::Slow(std::time::Duration::from_secs(3)),
    );
    let env = Env::new();
    let mut cmd = env.cmd();
    cmd.env("MIRROR_CHESSCOM_API", &chesscom.base)
        .env("MIRROR_CONTACT", "tests@mirror.invalid");
    let (mut child, url, _, _stderr) = spawn_serve(cmd);
    let pgn = first500();
    let mut node = Command::new("node");
    node.current_dir(repo().join("web")).args([
        "e2e/add.mjs",
        "--base",
        &url,
        "--pgn",
        pgn.to_str().expect("utf-8 path"),
        "--pgn-user",
        PLAYER,
        "--spellings",
        shared()
            .join("pgn/masters/Kasparov.pgn.zst")
            .to_str()
            .expect("utf-8 path"),
    ]);
    if let Ok(dir) = std::env::var("MIRROR_E2E_SHOTS") {
        node.args(["--shots", &dir]);
    }
    let out = node.output();
    let _ = child.kill();
    let _ = child.wait();
    let out = out.expect("run node");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success() && stdout.contains(" 0 failed"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn schemathesis_finds_no_server_error_and_no_answer_off_the_schema() {
    let here = Command::new("schemathesis").arg("--version").output();
    let missing = if here.is_ok_and(|o| o.status.success()) {
        Vec::new()
    } else {
        vec!["schemathesis (pip install -r tests/requirements.txt)".to_string()]
    };
    if !tools_here(missing) {
        return;
    }
    // schemathesis keeps a cache in its working directory: a temporary one.
    let scratch = tempfile::tempdir().expect("tempdir");
    let stdout = against_a_server("schemathesis", |url| {
        let mut cmd = Command::new("schemathesis");
        cmd.current_dir(scratch.path()).args([
            "run",
            &format!("{url}/api/v1/openapi.json"),
            "--url",
            url,
            "--checks",
            "not_a_server_error,response_schema_conformance,status_code_conformance,\
             content_type_conformance,response_headers_conformance",
            "--max-examples",
            "25",
            "--generation-deterministic",
            "--no-color",
        ]);
        cmd
    });
    assert!(stdout.contains("passed"), "{stdout}");
}
