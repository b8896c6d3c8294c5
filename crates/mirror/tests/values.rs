//! `mirror values` on real games: master collections and a stored player.

mod common;

use common::*;
use serde_json::Value;

fn masters(name: &str) -> String {
    shared()
        .join(format!("pgn/masters/{name}.pgn.zst"))
        .to_str()
        .expect("path")
        .to_string()
}

fn values_json(env: &Env, args: &[&str]) -> Value {
    let mut all = vec!["values", "--json"];
    all.extend_from_slice(args);
    serde_json::from_str(&env.ok(&all)).expect("json")
}

fn values(v: &Value) -> Vec<i64> {
    v["values"]
        .as_array()
        .expect("values")
        .iter()
        .map(|x| x.as_i64().expect("int"))
        .collect()
}

#[test]
fn master_collections_give_ordered_reproducible_values() {
    let env = Env::new();
    for name in ["Kasparov", "Karpov", "Adams"] {
        let path = masters(name);
        let v = values_json(&env, &["--pgn", &path, "--all"]);
        let [p, n, b, r, q] = values(&v)[..] else {
            panic!("{v}")
        };
        assert_eq!(p, 100);
        assert!(p < n && p < b && n < r && b < r && r < q, "{name}: {v}");
        assert!(
            v["raw"]
                .as_array()
                .expect("raw")
                .iter()
                .all(|x| x.as_f64().is_some_and(f64::is_finite))
        );
        assert!(v["samples"].as_u64().expect("samples") > 5000, "{v}");
        let alpha = v["steepness_per_pawn"].as_f64().expect("alpha");
        assert!(alpha > 0.05 && alpha < 2.0, "{alpha}");
        // Deterministic: the same input gives the same numbers to the last digit.
        assert_eq!(values_json(&env, &["--pgn", &path, "--all"]), v);
        assert_eq!(v["capablanca"].as_array().expect("checks").len(), 5);
    }
}

#[test]
fn one_players_games_from_a_file_and_the_plot() {
    let env = Env::new();
    let svg = env.dir.path().join("k.svg");
    let out = env.ok(&[
        "values",
        "--pgn",
        &masters("Kasparov"),
        "--user",
        "Kasparov, Gary",
        "--plot",
        svg.to_str().expect("path"),
    ]);
    assert!(out.contains("Piece values of Kasparov, Gary"), "{out}");
    assert!(out.contains("B > N") && out.contains("Q + P = 2R"), "{out}");
    assert!(out.contains("steepness of the score"), "{out}");
    let text = std::fs::read_to_string(&svg).expect("svg");
    assert!(
        text.starts_with("<svg") && text.contains("<path") && text.matches("<circle").count() > 5
    );
}

#[test]
fn a_stored_player() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let v = values_json(&env, &["--user", "biskupstunga"]);
    assert_eq!(v["who"], "Biskupstunga");
    assert_eq!(v["games"], 499);
    let vals = values(&v);
    assert_eq!(vals[0], 100);
    assert!(vals.iter().all(|x| *x > 0), "{v}");
}

#[test]
fn too_few_samples_is_a_clear_message() {
    let env = Env::new();
    let text = std::fs::read_to_string(first500()).expect("read");
    let cut = text.match_indices("[Event ").nth(5).expect("game 6").0;
    let path = env.dir.path().join("five.pgn");
    std::fs::write(&path, &text[..cut]).expect("write");
    let err = env.fails(&["values", "--pgn", path.to_str().expect("p"), "--all"]);
    assert!(err.contains("too few samples"), "{err}");
    let err = env.fails(&["values", "--pgn", path.to_str().expect("p")]);
    assert!(
        err.contains("--user NAME") && err.contains("--all"),
        "{err}"
    );
}
