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

/// The stored evaluations of `user`'s positions, by EPD.
fn listed_for(env: &Env, user: &str, min_games: &str) -> BTreeMap<String, Value> {
    env.ok(&[
        "analyse",
        "--user",
        user,
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

/// The stored evaluations of the player's positions, by EPD.
fn listed(env: &Env, min_games: &str) -> BTreeMap<String, Value> {
    listed_for(env, PLAYER, min_games)
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

/// The report rebuilt on the engine's truth, each figure equal to python-chess + Stockfish
/// at the same depth: the opponents' mistakes the player does not punish (the win% the
/// mistake gives and the player's usual reply gives back), the evaluation where the
/// player leaves their book, and no costly position whose usual move is the engine's own.
#[test]
fn the_report_names_unpunished_mistakes_and_where_the_book_ends_by_the_engine() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    analyse(&env, PLAYER, &["--min-games", "5", "--depth", "8"]);
    let r: Value = serde_json::from_str(&env.ok(&[
        "report",
        "--user",
        PLAYER,
        "--min-games",
        "5",
        "--json",
        "--limit",
        "30",
    ]))
    .expect("json");
    let loss_of =
        |epd: String, uci: &Value| serde_json::json!({ "epd": epd, "uci": uci }).to_string();
    // The opponents' mistakes: gift and given back as the reference computes them.
    let unpunished = r["unpunished"].as_array().expect("unpunished");
    assert!(!unpunished.is_empty(), "{r}");
    let mut asked = Vec::new();
    for u in unpunished {
        let fen = u["fen"].as_str().expect("fen");
        let mistake = u["mistake"]["uci"].as_str().expect("uci");
        asked.push(loss_of(epd_after(Some(fen), &[]), &u["mistake"]["uci"]));
        asked.push(loss_of(
            epd_after(Some(fen), &[mistake]),
            &u["reply"]["uci"],
        ));
        let (gift, back) = (
            u["gift"].as_f64().expect("gift"),
            u["givenBack"].as_f64().expect("givenBack"),
        );
        assert!(gift >= 10.0 && back >= gift / 2.0 - 0.05, "{u}");
        assert_eq!(u["best"]["uci"], u["evals"][1]["best"], "{u}");
        assert_ne!(u["best"]["uci"], u["reply"]["uci"], "{u}");
    }
    let theirs = reference_evals(&asked, 8);
    for (u, pair) in unpunished.iter().zip(theirs.chunks(2)) {
        for (key, t) in ["gift", "givenBack"].iter().zip(pair) {
            let (mine, reference) = (
                u[*key].as_f64().expect("a loss"),
                t["win_loss"].as_f64().expect("win_loss"),
            );
            assert!(
                (mine - reference).abs() <= 0.05 + 1e-9,
                "{key}: {u} against {t}"
            );
        }
    }
    // Leaving the book: each exit's evaluation is Stockfish's, its win% the player's.
    let book = r["book"].as_array().expect("book");
    assert!(!book.is_empty(), "{r}");
    let exits: Vec<&Value> = book
        .iter()
        .flat_map(|l| l["worst"].as_array().expect("worst"))
        .collect();
    let epds: Vec<String> = exits
        .iter()
        .map(|x| {
            serde_json::json!({ "epd": epd_after(Some(x["fen"].as_str().expect("fen")), &[]) })
                .to_string()
        })
        .collect();
    for (x, t) in exits.iter().zip(reference_evals(&epds, 8)) {
        assert_eq!(
            (x["eval"].get("cp"), x["eval"].get("mate")),
            (t.get("cp"), t.get("mate")),
            "{x} against {t}"
        );
        let white = match (t["cp"].as_f64(), t["mate"].as_i64()) {
            (Some(cp), _) => cp.clamp(-1000.0, 1000.0),
            (None, Some(m)) => 1000.0 * m.signum() as f64,
            _ => panic!("no score in {t}"),
        };
        let white = 50.0 + 50.0 * (2.0 / (1.0 + (-0.003_682_08 * white).exp()) - 1.0);
        let mine = if x["color"] == "white" {
            white
        } else {
            100.0 - white
        };
        assert!(
            (x["win"].as_f64().expect("win") - mine).abs() <= 0.05 + 1e-9,
            "{x}"
        );
    }
    for l in book {
        let worst: Vec<f64> = l["worst"]
            .as_array()
            .expect("worst")
            .iter()
            .map(|x| x["win"].as_f64().expect("win"))
            .collect();
        assert!(worst.windows(2).all(|w| w[0] <= w[1]), "{l}");
    }
    // A costly position's usual move (90% of its games or more) loses by the engine.
    let mut asked = Vec::new();
    for c in r["costly"].as_array().expect("costly") {
        let usual = &c["played"][0];
        if usual["share"].as_f64().expect("share") >= 0.9 {
            asked.push(loss_of(
                epd_after(Some(c["fen"].as_str().expect("fen")), &[]),
                &usual["uci"],
            ));
        }
    }
    for t in reference_evals(&asked, 8) {
        assert!(t["win_loss"].as_f64().expect("win_loss") >= 5.0, "{t}");
    }
}

/// `[%eval]` comments of lichess's exports are stored at ingest as evaluations of those
/// positions, marked as comments (equal to python-chess's reading of them), and an engine
/// analysis replaces them.
#[test]
fn comment_evaluations_are_stored_at_ingest_and_give_way_to_the_engine() {
    let env = Env::new();
    let pgn = profile_fixture("drnykterstein_lichess.pgn");
    env.ingest_as("DrNykterstein", &pgn, &[]);
    let list = |min: &str| listed_for(&env, "DrNykterstein", min);
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

/// Prep on the engine's truth: the opponent's moves that lose ("aim here") are those the
/// engine marks, each win% loss equal to python-chess + Stockfish's, likeliest first and
/// each a step of a line; every step's loss is the reference's; a suggestion, if any, is
/// backed by the engine or by intervals that do not overlap, and is never repeated.
#[test]
fn prep_aims_where_the_engine_says_the_opponent_loses() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let karpov = shared().join("pgn/masters/Karpov.pgn.zst");
    env.ingest_as("Karpov, Anatoly", &karpov, &[]);
    for user in [PLAYER, "Karpov, Anatoly"] {
        analyse(&env, user, &["--min-games", "3", "--depth", "8"]);
    }
    let mut aimed = 0;
    for color in ["white", "black"] {
        let out = env.ok(&[
            "prep",
            "--user",
            "karpov, anatoly",
            "--opponent",
            PLAYER,
            "--color",
            color,
            "--depth",
            "8",
            "--thin",
            "3",
            "--json",
        ]);
        let answer = &serde_json::from_str::<Value>(&out).expect("json")[0];
        let lines = answer["lines"].as_array().expect("lines");
        // Every judged step, and every aim, against the reference.
        let mut asked = Vec::new();
        let mut judged = Vec::new();
        for line in lines {
            let uci: Vec<&str> = line["uci"]
                .as_array()
                .expect("uci")
                .iter()
                .map(|u| u.as_str().expect("uci"))
                .collect();
            for (i, step) in line["steps"].as_array().expect("steps").iter().enumerate() {
                if let Some(loss) = step["winLoss"].as_f64() {
                    asked.push(
                        serde_json::json!({ "epd": epd_after(None, &uci[..i]), "uci": uci[i] })
                            .to_string(),
                    );
                    judged.push(loss);
                }
            }
        }
        assert!(judged.len() >= 10, "{answer}");
        for (mine, t) in judged.iter().zip(reference_evals(&asked, 8)) {
            let reference = t["win_loss"].as_f64().expect("win_loss");
            assert!(
                (mine - reference).abs() <= 0.05 + 1e-9,
                "{mine} against {t}"
            );
        }
        let aims = answer["aims"].as_array().expect("aims");
        aimed += aims.len();
        let mut last = f64::INFINITY;
        for a in aims {
            let likely = a["reach"].as_f64().expect("reach") * a["share"].as_f64().expect("share");
            assert!(likely <= last + 1e-12, "likeliest first: {a}");
            last = likely;
            assert!(a["winLoss"].as_f64().expect("winLoss") >= 5.0, "{a}");
            // The aim is the opponent's step on a line.
            let path: Vec<&Value> = a["uci"].as_array().expect("uci").iter().collect();
            let on_a_line = lines.iter().any(|l| {
                let u = l["uci"].as_array().expect("uci");
                let s = &l["steps"][path.len()];
                u.len() > path.len()
                    && u.iter().take(path.len()).eq(path.iter().copied())
                    && s["by"] == "opponent"
                    && s["san"] == a["san"]
                    && s["winLoss"] == a["winLoss"]
            });
            assert!(on_a_line, "{a}");
        }
        // Suggestions: backed, and each given once.
        let mut seen = std::collections::HashSet::new();
        for line in lines {
            let uci = line["uci"].as_array().expect("uci");
            for g in line["suggestions"].as_array().expect("suggestions") {
                let ply = g["ply"].as_u64().expect("ply") as usize;
                let key = (
                    uci[..ply].to_vec(),
                    g["played"].clone(),
                    g["instead"].clone(),
                );
                assert!(seen.insert(format!("{key:?}")), "repeated: {g}");
                match g["backing"].as_str() {
                    Some("engine") => {
                        let (p, i) = (g["playedLoss"].as_f64(), g["insteadLoss"].as_f64());
                        assert!(p.zip(i).is_some_and(|(p, i)| p - i >= 4.9), "{g}");
                    }
                    Some("interval") => {
                        let w = |s: &str, n: &str| {
                            let (low, high) = wilson_interval(
                                g[s].as_f64().expect("score"),
                                g[n].as_f64().expect("games"),
                            );
                            (0.0, low, high)
                        };
                        assert!(
                            w("insteadScore", "insteadGames").1 > w("playedScore", "playedGames").2,
                            "{g}"
                        );
                    }
                    _ => panic!("{g}"),
                }
            }
        }
    }
    assert!(aimed >= 3, "the opponent's losing moves are found");
    let text = env.ok(&[
        "prep",
        "--user",
        "karpov, anatoly",
        "--opponent",
        PLAYER,
        "--color",
        "black",
        "--depth",
        "8",
        "--thin",
        "3",
    ]);
    assert!(text.contains("Aim here"), "{text}");
}
