//! The web page in a real browser: `mirror serve` over real games, driven by
//! `web/e2e/run.mjs` (Playwright with Debian's Chromium; see that file for the checks).
//!
//! Needs Node.js, `web/node_modules` (`npm ci` in `web/`) and `/usr/bin/chromium`, all
//! installed by `tests/setup.sh`. With `MIRROR_REQUIRE_WEB=1` (set by `.ci/run`) a missing
//! one fails the test; otherwise it prints a loud `SKIPPED` line and passes.
//! Screenshots (desktop and phone) go to `$MIRROR_E2E_SHOTS` when set.

mod common;

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

#[test]
fn the_page_in_chromium_agrees_with_the_api_and_plays() {
    let missing = missing();
    if !missing.is_empty() {
        let required = std::env::var("MIRROR_REQUIRE_WEB").is_ok_and(|v| v == "1");
        assert!(!required, "the browser tests need: {}", missing.join(", "));
        eprintln!(
            "SKIPPED: the browser tests need {} (run tests/setup.sh)",
            missing.join(", ")
        );
        return;
    }
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let (mut child, url, _, _stderr) = spawn_serve(env.cmd());
    let shots = std::env::var("MIRROR_E2E_SHOTS").ok();
    let mut cmd = Command::new("node");
    cmd.current_dir(repo().join("web"))
        .args(["e2e/run.mjs", "--base", &url, "--user", PLAYER]);
    if let Some(dir) = &shots {
        cmd.args(["--shots", dir]);
    }
    let out = cmd.output().expect("run node");
    let _ = child.kill();
    let _ = child.wait();
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(
        out.status.success(),
        "the browser tests failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains(" 0 failed"), "{stdout}");
}
