//! Correct counts: mirror's graph equals an independent python-chess replay, edge for edge.

mod common;

use common::*;

#[test]
fn edges_equal_python_chess_on_500_real_games() {
    let env = Env::new();
    let summary = env.ingest(&first500(), &[]);
    assert_eq!(summary_value(&summary, "games read"), 500);
    let mirror = env.edges();
    let reference = reference_edges(&first500());
    assert!(reference.lines().count() > 30_000);
    assert_same_edges(&mirror, &reference);
}

/// `--opponent-rating` answers exactly as replaying only the games against an opponent
/// rated in the range (python-chess, from the Elo tags), at both ends of the range.
#[test]
fn opponent_rating_filter_equals_replaying_only_those_games() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    for range in ["1100-1300", "0-999", "1200-4000"] {
        let mirror = env.ok(&["edges", "--user", PLAYER, "--opponent-rating", range]);
        let reference = reference_edges_with(&first500(), &["--opponent-rating", range]);
        assert!(reference.lines().count() > 900, "{range}");
        assert_same_edges(&mirror, &reference);
    }
    let err = env.fails(&["edges", "--user", PLAYER, "--opponent-rating", "1900-1600"]);
    assert!(err.contains("invalid rating range"), "{err}");
}

/// `explore --opponent NAME`: the player's results against one opponent, from the stored
/// game records, equal python-chess's replay of only those games (both colours together).
#[test]
fn opponent_filter_equals_replaying_only_their_games() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let reference = reference_edges_with(&first500(), &["--opponent", "TourDuRoi"]);
    for (moves, epd) in [
        ("", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"),
        (
            "e4",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -",
        ),
    ] {
        let mut want: std::collections::BTreeMap<String, [u64; 3]> = Default::default();
        for line in reference.lines() {
            let v: serde_json::Value = serde_json::from_str(line).expect("json");
            if v["epd"] == epd {
                let w = want
                    .entry(v["uci"].as_str().expect("uci").to_string())
                    .or_default();
                for (i, k) in ["w", "d", "l"].iter().enumerate() {
                    w[i] += v[k].as_u64().expect("count");
                }
            }
        }
        let mut got: std::collections::BTreeMap<String, [u64; 3]> = Default::default();
        for color in ["white", "black"] {
            let out = env.ok(&[
                "explore",
                "--user",
                PLAYER,
                "--moves",
                moves,
                "--color",
                color,
                "--opponent",
                "tourduroi",
                "--json",
            ]);
            let v: serde_json::Value = serde_json::from_str(&out).expect("json");
            assert_eq!(v["opponent"], "tourduroi");
            for m in v["moves"].as_array().expect("moves") {
                let g = got
                    .entry(m["uci"].as_str().expect("uci").to_string())
                    .or_default();
                for (i, k) in ["wins", "draws", "losses"].iter().enumerate() {
                    g[i] += m[k].as_u64().expect("count");
                }
            }
        }
        assert!(!want.is_empty(), "{moves:?}");
        assert_eq!(got, want, "{moves:?}");
    }
}

#[test]
fn edges_equal_python_chess_on_all_27200_real_games() {
    let env = Env::new();
    let summary = env.ingest(&full27k(), &[]);
    assert_eq!(summary_value(&summary, "games read"), 27_200);
    let mirror = env.edges();
    let reference = reference_edges(&full27k());
    assert!(reference.lines().count() > 1_000_000);
    assert_same_edges(&mirror, &reference);
    drift_equals_scipy(&env);
}

/// The report's drift on the 27k games: each position's main move changed its share by 10
/// points or more, and its p-value on the earlier and later games is scipy's.
fn drift_equals_scipy(env: &Env) {
    let r: serde_json::Value =
        serde_json::from_str(&env.ok(&["report", "--user", PLAYER, "--json", "--limit", "100"]))
            .expect("json");
    let drift = r["drift"].as_array().expect("drift");
    assert!(drift.len() >= 20, "{}", drift.len());
    let mut asked = Vec::new();
    for d in drift {
        let pair = |k: &str| -> (u32, u32) {
            let v = d[k].as_array().expect("a pair");
            let n = |i: usize| v[i].as_u64().expect("a count") as u32;
            (n(0), n(1))
        };
        let ((e, en), (l, ln)) = (pair("earlier"), pair("later"));
        let dated: u64 = d["quarters"]
            .as_array()
            .expect("quarters")
            .iter()
            .map(|q| q["games"].as_u64().expect("games"))
            .sum();
        assert_eq!(u64::from(en + ln), dated, "{d}");
        let change = f64::from(e) / f64::from(en) - f64::from(l) / f64::from(ln);
        assert!(change.abs() >= 0.1, "{d}");
        let (p, q) = (
            d["pValue"].as_f64().expect("p"),
            d["qValue"].as_f64().expect("q"),
        );
        assert!(p <= q && q < 0.05, "{d}");
        asked.push(serde_json::json!({ "table": [e, en - e, l, ln - l] }));
    }
    for (d, r) in drift.iter().zip(reference_stats(&asked)) {
        let (mine, theirs) = (
            d["pValue"].as_f64().expect("p"),
            r["p"].as_f64().expect("p"),
        );
        assert!(
            (mine - theirs).abs() <= 1e-6 * theirs + 1e-12,
            "{d}: scipy {theirs}"
        );
    }
    prep_suggests_only_what_holds(env);
}

/// Prep against Karpov on the 27k games: a suggestion only where the intervals of the two
/// scores do not overlap (no analysis here), given once.
fn prep_suggests_only_what_holds(env: &Env) {
    env.ingest_as(
        "Karpov, Anatoly",
        &shared().join("pgn/masters/Karpov.pgn.zst"),
        &[],
    );
    let mut found = 0;
    for color in ["white", "black"] {
        let out = env.ok(&[
            "prep",
            "--user",
            PLAYER,
            "--opponent",
            "karpov, anatoly",
            "--color",
            color,
            "--json",
        ]);
        let answer = &serde_json::from_str::<serde_json::Value>(&out).expect("json")[0];
        let mut seen = std::collections::HashSet::new();
        for line in answer["lines"].as_array().expect("lines") {
            let uci = line["uci"].as_array().expect("uci");
            for g in line["suggestions"].as_array().expect("suggestions") {
                found += 1;
                assert_eq!(g["backing"], "interval", "{g}");
                let ply = g["ply"].as_u64().expect("ply") as usize;
                let key = format!("{:?} {} {}", &uci[..ply], g["played"], g["instead"]);
                assert!(seen.insert(key), "given once: {g}");
                let num = |k: &str| g[k].as_f64().expect("a number");
                let instead = wilson_interval(num("insteadScore"), num("insteadGames"));
                let played = wilson_interval(num("playedScore"), num("playedGames"));
                assert!(instead.0 > played.1, "intervals apart: {g}");
            }
        }
    }
    assert!(found >= 1, "the 27k games against Karpov hold a suggestion");
}

/// The sums of a reference's time columns: (timed moves, milliseconds, in time trouble).
fn time_sums(edges: &str) -> (u64, u64, u64) {
    edges.lines().fold((0, 0, 0), |(n, ms, tt), line| {
        let v: serde_json::Value = serde_json::from_str(line).expect("json");
        let get = |k: &str| v[k].as_u64().unwrap_or(0);
        (n + get("n"), ms + get("ms"), tt + get("tt"))
    })
}

/// The time of each move from `[%clk]` (lichess: the clock after the move, increments
/// added, bullet games deep in time trouble, and correspondence games with `TimeControl
/// "-"` and no clock) equals python-chess's replay with the same rules, edge for edge.
/// The 500 and 27,200 Chess.com games above check the same with Chess.com's clocks and its
/// daily games (`1/259200`, no clocks).
#[test]
fn move_times_from_clocks_equal_python_chess_on_real_lichess_games() {
    let env = Env::new();
    let pgn = repo().join("tests/fixtures/clock/lichess-jishanshaikh4.pgn");
    let summary = env.ingest_as("jishanshaikh4", &pgn, &[]);
    assert_eq!(summary_value(&summary, "games read"), 102);
    let mirror = env.ok(&["edges", "--user", "jishanshaikh4"]);
    let reference = reference_profile_edges(&[&pgn], "jishanshaikh4", &[]);
    assert_same_edges(&mirror, &reference);
    let (timed, ms, trouble) = time_sums(&reference);
    assert!(timed > 7_000 && trouble > 300, "{timed} {ms} {trouble}");
    // Every move of every clocked game is timed once per edge; correspondence games not.
    let untimed = reference.lines().filter(|l| !l.contains("\"n\":")).count();
    assert!(untimed > 0, "the correspondence games' moves have no time");
}

/// `[%emt]` (FICS: the time each move took, as written) equals python-chess's replay; an
/// unfinished game's times are not counted.
#[test]
fn move_times_from_elapsed_times_equal_python_chess_on_a_real_fics_game() {
    let env = Env::new();
    let pgn = repo().join("tests/fixtures/clock/fics-emt.pgn");
    env.ingest_as("AntaresLight", &pgn, &[]);
    let mirror = env.ok(&["edges", "--user", "AntaresLight"]);
    let reference = reference_profile_edges(&[&pgn], "AntaresLight", &[]);
    assert_same_edges(&mirror, &reference);
    // 44 moves, each timed: 0.0 + 1.748 + ... as written.
    let (timed, ms, trouble) = time_sums(&reference);
    assert_eq!((timed, ms, trouble), (44, 144_297, 0));
}

/// The report's pace (the share of the clock left the player spends on a move, by stage
/// of the game and clock left: what paces the mirror where the book has no time) equals
/// python-chess's computation with the same rules, cell by cell: Chess.com's clocks
/// (500 games), lichess's (increments, bullet deep in time trouble) and FICS's `[%emt]`.
#[test]
fn the_reports_pace_equals_python_chess() {
    let lichess = repo().join("tests/fixtures/clock/lichess-jishanshaikh4.pgn");
    let fics = repo().join("tests/fixtures/clock/fics-emt.pgn");
    for (pgn, player) in [
        (first500(), PLAYER),
        (lichess, "jishanshaikh4"),
        (fics, "AntaresLight"),
    ] {
        let env = Env::new();
        env.ingest_as(player, &pgn, &[]);
        let want: serde_json::Value =
            serde_json::from_str(&reference_profile_edges(&[&pgn], player, &["--pace-model"]))
                .expect("json");
        let report: serde_json::Value =
            serde_json::from_str(&env.ok(&["report", "--user", player, "--json"])).expect("json");
        let got = report["clock"]["pace"].as_array().expect("pace");
        let want = want.as_array().expect("cells");
        assert_eq!(got.len(), 12, "{player}");
        assert_eq!(want.len(), 12, "{player}");
        for (g, w) in got.iter().zip(want) {
            assert_eq!(g["moves"], w["moves"], "{player}: {g} against {w}");
            match (g["share"].as_f64(), w["share"].as_f64()) {
                (None, None) => {}
                // Both rounded to four decimals from sums in different orders.
                (Some(a), Some(b)) => assert!((a - b).abs() < 1.5e-4, "{player}: {g} {w}"),
                _ => panic!("{player}: {g} against {w}"),
            }
        }
        let stages: std::collections::BTreeSet<&str> = got
            .iter()
            .filter(|c| c["moves"].as_u64().unwrap_or(0) > 0)
            .map(|c| c["stage"].as_str().expect("stage"))
            .collect();
        assert!(stages.len() >= 2, "{player}: {got:?}");
    }
}

/// `explore` shows each move's time as the reference sums it: the games whose move there
/// is timed, their average in seconds and how many were in time trouble.
#[test]
fn explore_shows_the_times_python_chess_finds() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    // The player's moves as Black after 1. e4 (31 pieces: read from the move totals) and
    // in a position of 28 pieces (read from the edge rows).
    for (moves, epd, color) in [
        (
            "e4",
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -",
            "black",
        ),
        (
            "",
            "rn1qkb1r/ppp2ppp/4bn2/8/8/2N2N2/PPPP1PPP/R1BQKB1R b KQkq -",
            "black",
        ),
    ] {
        let reference = reference_edges_with(&first500(), &["--color", color]);
        let mut want = std::collections::BTreeMap::new();
        for line in reference.lines() {
            let v: serde_json::Value = serde_json::from_str(line).expect("json");
            if v["epd"] == epd && v["n"].as_u64().is_some() {
                let (n, ms) = (v["n"].as_f64().expect("n"), v["ms"].as_f64().expect("ms"));
                let avg = (ms / n / 100.0).round() / 10.0;
                want.insert(
                    v["uci"].as_str().expect("uci").to_string(),
                    (v["n"].clone(), avg, v["tt"].clone()),
                );
            }
        }
        let fen = format!("{epd} 0 1");
        let at = if moves.is_empty() {
            ["--fen", fen.as_str()]
        } else {
            ["--moves", moves]
        };
        let out = env.ok(&["explore", "--user", PLAYER, at[0], at[1], "--json"]);
        let v: serde_json::Value = serde_json::from_str(&out).expect("json");
        // A move no timed game played shows no time (`null`), as the reference prints none.
        let got: std::collections::BTreeMap<_, _> = v["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .filter(|m| !m["time"].is_null())
            .map(|m| {
                let t = &m["time"];
                let avg = t["averageSeconds"].as_f64().expect("seconds");
                let uci = m["uci"].as_str().expect("uci").to_string();
                (uci, (t["timed"].clone(), avg, t["trouble"].clone()))
            })
            .collect();
        assert!(want.len() >= 2, "{moves}: {want:?}");
        assert_eq!(got, want, "{moves}");
        let table = env.ok(&["explore", "--user", PLAYER, at[0], at[1]]);
        assert!(table.contains("mean time"), "{table}");
    }
}

/// The report's "where you burn your clock": the score with and without a move in time
/// trouble equals python-chess's replay of the games with the same rules; each slow
/// position's time is what `explore` shows there for its time class, and the usual time
/// it is slow against is python-chess's average of the player's timed moves in that class.
#[test]
fn the_reports_time_trouble_split_equals_python_chess() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let out = reference_edges_with(&first500(), &["--trouble"]);
    let want: serde_json::Value = serde_json::from_str(&out).expect("json");
    let report: serde_json::Value =
        serde_json::from_str(&env.ok(&["report", "--user", PLAYER, "--json", "--min-games", "4"]))
            .expect("json");
    let clock = &report["clock"];
    for split in ["trouble", "calm"] {
        let wdl: Vec<f64> = want[split]
            .as_array()
            .expect("w d l")
            .iter()
            .map(|v| v.as_f64().expect("count"))
            .collect();
        let games = wdl.iter().sum::<f64>();
        let got = &clock["overall"][split];
        assert_eq!(got["games"].as_f64(), Some(games), "{split}");
        let score = got["score"].as_f64().expect("score");
        assert!(
            (score - (wdl[0] + wdl[1] / 2.0) / games).abs() < 1e-12,
            "{split}"
        );
    }
    let by_opening: u64 = clock["openings"]
        .as_array()
        .expect("openings")
        .iter()
        .map(|o| {
            o["trouble"]["games"].as_u64().unwrap_or(0) + o["calm"]["games"].as_u64().unwrap_or(0)
        })
        .sum();
    assert!(by_opening > 0);
    let slow = clock["slow"].as_array().expect("slow");
    assert!(!slow.is_empty(), "{clock}");
    for s in slow.iter().take(3) {
        let moves: Vec<&str> = s["moves"]
            .as_array()
            .expect("moves")
            .iter()
            .map(|m| m.as_str().expect("uci"))
            .collect();
        let tc = s["timeClass"].as_str().expect("time class");
        let color = s["color"].as_str().expect("colour");
        let explore: serde_json::Value = serde_json::from_str(&env.ok(&[
            "explore",
            "--user",
            PLAYER,
            "--moves",
            &moves.join(" "),
            "--color",
            color,
            "--time-class",
            tc,
            "--json",
        ]))
        .expect("json");
        let (mut timed, mut weighted) = (0.0, 0.0);
        for m in explore["moves"].as_array().expect("moves") {
            if let Some(n) = m["time"]["timed"].as_f64() {
                timed += n;
                weighted += n * m["time"]["averageSeconds"].as_f64().expect("seconds");
            }
        }
        // The explorer's per-move averages are rounded to 0.1 s.
        let seconds = s["seconds"].as_f64().expect("seconds");
        assert!(
            (weighted / timed - seconds).abs() < 0.06,
            "{s} against {explore}"
        );
        assert!(s["ratio"].as_f64().expect("ratio") > 1.0, "{s}");
        let usual = &want["usual"][tc];
        let (n, ms) = (
            usual[0].as_f64().expect("moves"),
            usual[1].as_f64().expect("ms"),
        );
        // The report rounds seconds to 0.1.
        let usual_seconds = s["usualSeconds"].as_f64().expect("usual seconds");
        assert!(
            (ms / n / 1000.0 - usual_seconds).abs() <= 0.05 + 1e-9,
            "{s} against {usual}"
        );
    }
}

/// The report's statistics equal scipy's: Fisher's exact test (two-sided) on tables small
/// and large, with zeros and with ties, and Benjamini-Hochberg's q-values of them.
#[test]
fn the_reports_statistical_tests_equal_scipy() {
    use mirror_core::stats::{benjamini_hochberg, fisher_exact, fisher_least_p};
    let mut tables: Vec<[u32; 4]> = vec![
        [0, 0, 0, 0],
        [0, 5, 0, 7],
        [3, 0, 0, 3],
        [12, 3, 122, 13035],
        [98, 132, 6800, 6357],
        [2, 0, 5210, 4987],
        [6455, 142, 6936, 42],
    ];
    for i in 0..300u32 {
        tables.push([
            (i * 7) % 13,
            (i * 11) % 17 + i / 30,
            (i * 5) % 41,
            (i * 13) % 29 + 3 * (i % 7),
        ]);
    }
    let asked: Vec<serde_json::Value> = tables
        .iter()
        .map(|t| serde_json::json!({ "table": t }))
        .collect();
    let theirs = reference_stats(&asked);
    assert_eq!(theirs.len(), tables.len());
    let mut mine = Vec::new();
    for (t, r) in tables.iter().zip(&theirs) {
        let p = fisher_exact(*t).expect("small counts");
        let reference = r["p"].as_f64().expect("p");
        assert!(
            (p - reference).abs() <= 1e-6 * reference.max(1e-12) + 1e-12,
            "{t:?}: {p} against scipy's {reference}"
        );
        let least = fisher_least_p(*t).expect("small counts");
        assert!(least <= p + 1e-12, "{t:?}: the least p {least} above p {p}");
        mine.push(p);
    }
    let q = benjamini_hochberg(&mine);
    let theirs = reference_stats(&[serde_json::json!({ "p_values": mine })]);
    let reference = theirs[0]["q"].as_array().expect("q");
    assert_eq!(q.len(), reference.len());
    for (m, r) in q.iter().zip(reference) {
        let r = r.as_f64().expect("a q-value");
        assert!((m - r).abs() <= 1e-9, "{m} against scipy's {r}");
    }
}

/// `mirror export --to pgn`, read back by python-chess, is the explorer's tree above the
/// threshold: at every node exactly the moves of the player's games (with the
/// repertoire's colour) played there in at least N games, most played first, with their
/// games and the player's score, as python-chess counts them from the games themselves.
#[test]
fn the_repertoire_pgn_read_by_python_chess_is_the_games_tree_above_the_threshold() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    for (color, min_games, depth) in [("white", "2", "10"), ("black", "2", "8")] {
        let file = env.dir.path().join(format!("repertoire-{color}.pgn"));
        let file = file.to_str().expect("a UTF-8 path");
        let said = env.ok(&[
            "export",
            "--to",
            "pgn",
            file,
            "--user",
            PLAYER,
            "--color",
            color,
            "--min-games",
            min_games,
            "--depth",
            depth,
        ]);
        assert!(!said.contains("cut after"), "{said}");
        let edges = env.dir.path().join(format!("edges-{color}.jsonl"));
        std::fs::write(
            &edges,
            reference_edges_with(&first500(), &["--color", color]),
        )
        .expect("edges written");
        let out = std::process::Command::new(
            std::env::var("MIRROR_PYTHON").unwrap_or_else(|_| "python3".into()),
        )
        .arg(repo().join("tests/reference/repertoire.py"))
        .arg(file)
        .arg(&edges)
        .args([min_games, depth])
        .output()
        .expect("python3 with python-chess (tests/setup.sh installs it)");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        assert_eq!(v["mismatches"], serde_json::json!([]), "{color}: {v}");
        assert!(v["nodes"].as_u64().expect("nodes") > 100, "{color}: {v}");
        assert_eq!(v["deepest"].to_string(), depth, "{color}: {v}");

        // In chapters, one per opening family (at most 64, and at most 3): together the
        // same tree.
        for most in ["64", "3"] {
            let chapters = env.dir.path().join(format!("chapters-{color}-{most}.pgn"));
            let chapters = chapters.to_str().expect("a UTF-8 path");
            env.ok(&[
                "export",
                "--to",
                "pgn",
                chapters,
                "--user",
                PLAYER,
                "--color",
                color,
                "--min-games",
                min_games,
                "--depth",
                depth,
                "--chapters",
                most,
            ]);
            let out = std::process::Command::new(
                std::env::var("MIRROR_PYTHON").unwrap_or_else(|_| "python3".into()),
            )
            .arg(repo().join("tests/reference/chapters.py"))
            .args([file, chapters, most])
            .output()
            .expect("python3 with python-chess");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let c: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
            assert_eq!(c["missing"], serde_json::json!([]), "{color} {most}: {c}");
            assert_eq!(c["extra"], serde_json::json!([]), "{color} {most}: {c}");
            let n = c["chapters"].as_u64().expect("chapters");
            if most == "3" {
                assert_eq!(n, 3, "{color}: {c}");
            } else {
                assert!(n > 3, "several families: {c}");
            }
            let names = c["names"].as_array().expect("names");
            let mut distinct = names.clone();
            distinct.dedup();
            assert_eq!(distinct.len(), names.len(), "one chapter per family: {c}");
        }
    }
}
