//! `mirror analyse` on real games: its evaluations equal Stockfish's own through
//! python-chess at the same depth, a re-run and a second player reuse them, and an analysis
//! killed mid-way resumes with nothing searched twice.

mod common;

use std::{
    collections::BTreeMap,
    io::BufRead,
    process::{Command, Stdio},
};

use common::*;
use serde_json::Value;

fn analyse(env: &Env, user: &str, extra: &[&str]) -> Value {
    let mut args = vec!["analyse", "--user", user, "--json", "--progress", "none"];
    args.extend_from_slice(extra);
    serde_json::from_str(env.ok(&args).trim()).expect("the summary is JSON")
}

fn count(v: &Value, k: &str) -> u64 {
    v[k].as_u64().unwrap_or_else(|| panic!("{k} in {v}"))
}

/// The stored evaluations of the player's positions, by EPD.
fn listed(env: &Env, min_games: &str) -> BTreeMap<String, Value> {
    env.ok(&[
        "analyse",
        "--user",
        PLAYER,
        "--min-games",
        min_games,
        "--list",
    ])
    .lines()
    .map(|l| {
        let v: Value = serde_json::from_str(l).expect("a JSON line");
        (v["epd"].as_str().expect("epd").to_string(), v)
    })
    .collect()
}

/// python-chess + Stockfish's evaluation of each EPD at `depth`, by EPD.
fn reference(epds: &[&String], depth: u32) -> BTreeMap<String, Value> {
    let lines: Vec<String> = epds
        .iter()
        .map(|epd| serde_json::json!({ "epd": epd }).to_string())
        .collect();
    reference_evals(&lines, depth)
        .into_iter()
        .map(|v| (v["epd"].as_str().expect("epd").to_string(), v))
        .collect()
}

#[test]
fn evaluations_equal_stockfish_through_python_chess_and_are_reused() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let sf = stockfish();
    let first = analyse(
        &env,
        PLAYER,
        &["--min-games", "5", "--depth", "8", "--engine", &sf],
    );
    let positions = count(&first, "positions");
    let searched = count(&first, "searched");
    assert!(searched >= 50, "{first}");
    assert_eq!(count(&first, "reused"), 0);
    assert_eq!(searched + count(&first, "skipped"), positions);
    assert_eq!(count(&first, "by_others"), 0);
    assert_eq!(count(&first, "stored"), searched);
    assert!(
        first["engine"]
            .as_str()
            .is_some_and(|e| e.starts_with("Stockfish"))
    );

    // Every stored evaluation is the engine's own at that depth, as python-chess gets it.
    let mine = listed(&env, "5");
    assert_eq!(mine.len() as u64, searched);
    let epds: Vec<&String> = mine.keys().collect();
    let theirs = reference(&epds, 8);
    assert_eq!(theirs.len(), mine.len());
    for (epd, m) in &mine {
        let r = &theirs[epd];
        assert_eq!(m["depth"], 8, "{m}");
        assert_eq!(m["best"], r["best"], "{epd}: {m} against {r}");
        assert_eq!(m.get("cp"), r.get("cp"), "{epd}: {m} against {r}");
        assert_eq!(m.get("mate"), r.get("mate"), "{epd}: {m} against {r}");
    }

    // Again: nothing to search. Shallower: nothing either. Deeper: all of it again.
    let again = analyse(&env, PLAYER, &["--min-games", "5", "--depth", "8"]);
    assert_eq!(count(&again, "searched"), 0);
    assert_eq!(count(&again, "reused"), searched);
    let shallower = analyse(&env, PLAYER, &["--min-games", "5", "--depth", "6"]);
    assert_eq!(count(&shallower, "searched"), 0);

    // Another profile reaching the same positions reuses every one of them.
    env.ingest_as("Twin", &first500(), &["--alias", PLAYER]);
    let twin = analyse(&env, "Twin", &["--min-games", "5", "--depth", "8"]);
    assert_eq!(count(&twin, "searched"), 0, "{twin}");
    assert_eq!(count(&twin, "reused"), searched, "{twin}");

    let deeper = analyse(&env, PLAYER, &["--min-games", "5", "--depth", "9"]);
    assert_eq!(count(&deeper, "searched"), searched);
    assert!(listed(&env, "5").values().all(|v| v["depth"] == 9));
}

/// Killed after some batches, the analysis resumes: what was written is reused, the rest
/// searched, and the result is the uninterrupted one's (the engine's own evaluations).
#[test]
fn a_killed_analysis_resumes_without_searching_twice() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let mut child = env
        .cmd()
        .args([
            "analyse",
            "--user",
            PLAYER,
            "--min-games",
            "6",
            "--depth",
            "9",
        ])
        .args(["--batch", "5", "--threads", "2", "--progress", "plain"])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("analyse");
    let stderr = std::io::BufReader::new(child.stderr.take().expect("stderr"));
    let mut total = 0u64;
    for line in stderr.lines() {
        let line = line.expect("stderr");
        if let Some(rest) = line.strip_prefix("searched ") {
            let mut words = rest.split_whitespace();
            let done: u64 = words.next().and_then(|w| w.parse().ok()).expect("count");
            total = words.nth(1).and_then(|w| w.parse().ok()).expect("total");
            if done >= 20 {
                break;
            }
        }
    }
    child.kill().expect("kill");
    let _ = child.wait();
    assert!(
        total > 40,
        "enough to search that a kill comes mid-way: {total}"
    );
    let resumed = analyse(&env, PLAYER, &["--min-games", "6", "--depth", "9"]);
    let reused = count(&resumed, "reused");
    assert!(reused >= 20, "{resumed}");
    assert!(reused < total, "{resumed}");
    let skipped = count(&resumed, "skipped");
    assert_eq!(
        reused + count(&resumed, "searched") + skipped,
        total,
        "{resumed}"
    );
    let mine = listed(&env, "6");
    assert_eq!(mine.len() as u64, total - skipped);
    let epds: Vec<&String> = mine.keys().collect();
    let theirs = reference(&epds, 9);
    for (epd, m) in &mine {
        let r = &theirs[epd];
        assert_eq!(
            (m.get("cp"), m.get("mate"), &m["best"]),
            (r.get("cp"), r.get("mate"), &r["best"]),
            "{epd}"
        );
    }
}

/// The explorer shows each analysed move's evaluation, the win% it loses against the best
/// move and lichess's mark; the loss equals python-chess + Stockfish's, computed on its own
/// from the two positions at the same depth.
#[test]
fn the_explorer_shows_the_evaluations_and_what_each_move_loses() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let before = env.ok(&["explore", "--user", PLAYER, "--moves", "e4", "--json"]);
    let before: Value = serde_json::from_str(&before).expect("json");
    assert!(before["eval"].is_null());
    assert!(before["moves"][0]["eval"].is_null());
    analyse(&env, PLAYER, &["--min-games", "5", "--depth", "8"]);
    for (moves, color) in [("e4", "black"), ("e4 e5", "white"), ("d4", "black")] {
        let out = env.ok(&[
            "explore", "--user", PLAYER, "--moves", moves, "--color", color, "--json",
        ]);
        let v: Value = serde_json::from_str(&out).expect("json");
        assert_eq!(v["eval"]["depth"], 8, "{moves}: {v}");
        let epd: String = v["fen"]
            .as_str()
            .expect("fen")
            .split_whitespace()
            .take(4)
            .collect::<Vec<_>>()
            .join(" ");
        let judged: Vec<&Value> = v["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .filter(|m| m["games"].as_u64().is_some_and(|g| g >= 5))
            .collect();
        assert!(!judged.is_empty(), "{moves}");
        let lines: Vec<String> = judged
            .iter()
            .map(|m| serde_json::json!({ "epd": epd, "uci": m["uci"] }).to_string())
            .collect();
        let theirs = reference_evals(&lines, 8);
        assert_eq!(theirs.len(), judged.len());
        for (m, r) in judged.iter().zip(&theirs) {
            let (mine, reference) = (
                m["win_loss"].as_f64().expect("win_loss"),
                r["win_loss"].as_f64().expect("win_loss"),
            );
            assert!(
                (mine - reference).abs() <= 0.05 + 1e-9,
                "{moves} {m} against {r}"
            );
            let mark = match reference {
                l if l >= 15.0 => Some("blunder"),
                l if l >= 10.0 => Some("mistake"),
                l if l >= 5.0 => Some("inaccuracy"),
                _ => None,
            };
            if (reference - 5.0).abs() > 0.05
                && (reference - 10.0).abs() > 0.05
                && (reference - 15.0).abs() > 0.05
            {
                assert_eq!(m["judgement"].as_str(), mark, "{m}");
            }
            assert!(m["eval"]["depth"] == 8, "{m}");
        }
    }
    // The table shows them too.
    let table = env.ok(&["explore", "--user", PLAYER, "--moves", "e4"]);
    assert!(table.contains("evaluation: "), "{table}");
    assert!(table.contains(" eval  lost"), "{table}");
}

/// The report's "where you lose by the engine": the player's moves that lose at least an
/// inaccuracy's worth, most costly first, each loss equal to python-chess + Stockfish's;
/// the engine's own best move is never blamed.
#[test]
fn the_report_ranks_the_moves_the_engine_says_lose() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let report = |extra: &[&str]| -> Value {
        let mut args = vec!["report", "--user", PLAYER, "--min-games", "5", "--json"];
        args.extend_from_slice(extra);
        serde_json::from_str(&env.ok(&args)).expect("json")
    };
    let before = report(&[]);
    assert_eq!(before["engine"].as_array().map(Vec::len), Some(0));
    assert_eq!(before["analysed"]["evaluated"], 0);
    let text = env.ok(&["report", "--user", PLAYER, "--min-games", "5"]);
    assert!(text.contains("run mirror analyse"), "{text}");

    analyse(&env, PLAYER, &["--min-games", "5", "--depth", "8"]);
    let r = report(&["--limit", "30"]);
    let positions = r["analysed"]["positions"].as_u64().expect("positions");
    assert_eq!(r["analysed"]["evaluated"].as_u64(), Some(positions));
    let found = r["engine"].as_array().expect("engine");
    assert!(found.len() >= 5, "{r}");
    let expected: Vec<f64> = found
        .iter()
        .map(|e| e["expectedLoss"].as_f64().expect("expectedLoss"))
        .collect();
    assert!(expected.windows(2).all(|w| w[0] >= w[1]), "{expected:?}");
    let mut lines = Vec::new();
    for e in found {
        let loss = e["winLoss"].as_f64().expect("winLoss");
        let games = e["played"]["games"].as_f64().expect("games");
        assert!(loss >= 5.0, "{e}");
        // winLoss is rounded to 0.1 and expectedLoss to 0.01.
        let x = e["expectedLoss"].as_f64().expect("expectedLoss");
        assert!(
            (x - games * loss / 100.0).abs() <= games * 0.0005 + 0.006,
            "{e}"
        );
        assert_ne!(
            e["played"]["uci"], e["best"]["uci"],
            "the best move is never blamed: {e}"
        );
        if let Some(best) = e["bestPlayed"].as_object() {
            assert_eq!(best["uci"], e["best"]["uci"]);
        }
        let epd: Vec<&str> = e["fen"].as_str().expect("fen").split(' ').take(4).collect();
        lines.push(
            serde_json::json!({ "epd": epd.join(" "), "uci": e["played"]["uci"] }).to_string(),
        );
    }
    let theirs = reference_evals(&lines, 8);
    assert_eq!(theirs.len(), found.len());
    for (e, t) in found.iter().zip(&theirs) {
        let (mine, reference) = (
            e["winLoss"].as_f64().expect("winLoss"),
            t["win_loss"].as_f64().expect("win_loss"),
        );
        assert!((mine - reference).abs() <= 0.05 + 1e-9, "{e} against {t}");
    }
    let text = env.ok(&["report", "--user", PLAYER, "--min-games", "5"]);
    assert!(text.contains("Where you lose by the engine"), "{text}");
    assert!(text.contains("points expected lost"), "{text}");
}

/// `[%eval]` comments of lichess's exports are stored at ingest as evaluations of those
/// positions, marked as comments (equal to python-chess's reading of them), and an engine
/// analysis replaces them.
#[test]
fn comment_evaluations_are_stored_at_ingest_and_give_way_to_the_engine() {
    let env = Env::new();
    let pgn = profile_fixture("drnykterstein_lichess.pgn");
    env.ingest_as("DrNykterstein", &pgn, &[]);
    let list = |min: &str| -> BTreeMap<String, Value> {
        env.ok(&[
            "analyse",
            "--user",
            "DrNykterstein",
            "--min-games",
            min,
            "--list",
        ])
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a JSON line");
            (v["epd"].as_str().expect("epd").to_string(), v)
        })
        .collect()
    };
    let stored = list("1");
    let out = Command::new(std::env::var("MIRROR_PYTHON").unwrap_or_else(|_| "python3".into()))
        .arg(repo().join("tests/reference/evals.py"))
        .arg("--comments")
        .arg(&pgn)
        .output()
        .expect("python3 with python-chess");
    assert!(out.status.success());
    let theirs: BTreeMap<String, Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let v: Value = serde_json::from_str(l).expect("a JSON line");
            (v["epd"].as_str().expect("epd").to_string(), v)
        })
        .collect();
    assert!(theirs.len() > 1000, "{}", theirs.len());
    assert_eq!(stored.len(), theirs.len());
    for (epd, r) in &theirs {
        let m = &stored[epd];
        assert_eq!(m["source"], "comment", "{m}");
        assert_eq!(m["depth"], 0, "{m}");
        assert_eq!(
            (m.get("cp"), m.get("mate")),
            (r.get("cp"), r.get("mate")),
            "{epd}"
        );
    }
    // An engine analysis replaces them: every position of 2+ games is the engine's now.
    let summary = analyse(&env, "DrNykterstein", &["--min-games", "2", "--depth", "6"]);
    assert_eq!(
        count(&summary, "reused"),
        0,
        "a comment is no engine's: {summary}"
    );
    let after = list("2");
    assert!(!after.is_empty());
    assert!(
        after
            .values()
            .all(|v| v["source"] == "engine" && v["depth"] == 6),
        "{after:?}"
    );
    // The rest keep their comments.
    assert!(list("1").values().any(|v| v["source"] == "comment"));
}
