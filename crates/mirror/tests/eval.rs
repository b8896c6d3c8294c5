//! `mirror eval` on the first 500 real games: reproducible with a seed, the book beats a
//! random move, the split keeps every game in one set, a model of another split is refused.

mod common;

use common::*;
use serde_json::Value;

fn stockfish() -> String {
    let sf = std::env::var("MIRROR_STOCKFISH").unwrap_or_else(|_| "/usr/games/stockfish".into());
    assert!(
        std::path::Path::new(&sf).exists(),
        "Stockfish not found at {sf}: apt-get install stockfish (or set MIRROR_STOCKFISH)"
    );
    sf
}

fn segment<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["segments"]
        .as_array()
        .and_then(|s| s.iter().find(|s| s["name"] == name))
        .unwrap_or_else(|| panic!("no segment {name} in {r}"))
}

fn predictor<'a>(seg: &'a Value, name: &str) -> &'a Value {
    seg["predictors"]
        .as_array()
        .and_then(|s| s.iter().find(|p| p["name"] == name))
        .unwrap_or_else(|| panic!("no predictor {name} in {seg}"))
}

fn top1(seg: &Value, name: &str) -> f64 {
    predictor(seg, name)["top1"]["value"]
        .as_f64()
        .unwrap_or_else(|| panic!("{name} has no top-1 in {seg}"))
}

#[test]
fn eval_is_reproducible_and_the_book_beats_random() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let sf = stockfish();
    let common = [
        "eval",
        "--user",
        PLAYER,
        "--max-positions",
        "700",
        "--stockfish",
        &sf,
        "--judge-depth",
        "5",
        "--judge-positions",
        "150",
        "--seed",
        "5",
        "--json",
    ];
    let train: Vec<&str> = common
        .iter()
        .copied()
        .chain([
            "--train",
            "--epochs",
            "3",
            "--patience",
            "3",
            "--from-scratch",
            "--channels",
            "16",
            "--layers",
            "2",
            "--batch",
            "128",
            "--lr",
            "2e-3",
            "--train-positions",
            "8000",
        ])
        .collect();
    // With --json the training report goes to stderr: stdout is the JSON alone.
    let first: Value = serde_json::from_str(&env.ok(&train)).expect("json");
    // The same split's model is reused and the same seed gives the same report.
    let again: Value = serde_json::from_str(&env.ok(&common)).expect("json");
    assert_eq!(first, again, "same seed, same report");

    // The split: every game in one set, oldest first.
    let split = &first["split"];
    let n = |k: &str| split[k].as_u64().expect("count");
    assert_eq!(n("train_games") + n("val_games") + n("test_games"), 499);
    assert_eq!(
        (n("train_games"), n("val_games"), n("test_games")),
        (399, 50, 50)
    );
    assert!(
        split["train_dates"][1].as_str() <= split["val_dates"][0].as_str()
            && split["val_dates"][1].as_str() <= split["test_dates"][0].as_str(),
        "{split}"
    );

    // A model is fair for another split when it saw none of the games evaluated: this one
    // (80,10,10) for the test games of 90,0,10 (the same last 50), whose book learns the
    // validation games too; not for the validation games of 70,20,10, which it learnt.
    let quick = [
        "eval",
        "--user",
        PLAYER,
        "--max-positions",
        "300",
        "--no-stockfish",
        "--json",
    ];
    let wider: Value =
        serde_json::from_str(&env.ok(&[&quick[..], &["--split", "90,0,10"]].concat()))
            .expect("json");
    assert_eq!(
        (
            wider["split"]["train_games"].as_u64(),
            wider["split"]["test_games"].as_u64()
        ),
        (Some(449), Some(50))
    );
    assert_eq!(wider["split"]["test_dates"], split["test_dates"]);
    let err = env.fails(&[&quick[..], &["--split", "70,20,10", "--on", "validation"]].concat());
    assert!(
        err.contains("the model saw some of the validation games evaluated"),
        "{err}"
    );

    assert_eq!(first["positions"], 700);
    let all = segment(&first, "all");
    let (inb, outb) = (segment(&first, "in book"), segment(&first, "out of book"));
    assert_eq!(
        inb["positions"].as_u64().expect("n") + outb["positions"].as_u64().expect("n"),
        700
    );
    let phases: u64 = ["plies 1-10", "plies 11-30", "plies 31+"]
        .iter()
        .map(|p| segment(&first, p)["positions"].as_u64().expect("n"))
        .sum();
    assert_eq!(phases, 700);
    // By the clock: every test game of this player has [%clk]; the positions whose move
    // has a time split into time trouble or not, and some are in time trouble.
    let (trouble, calm) = (
        segment(&first, "in time trouble")["positions"]
            .as_u64()
            .expect("n"),
        segment(&first, "timed, not in time trouble")["positions"]
            .as_u64()
            .expect("n"),
    );
    assert!(trouble > 0 && calm > trouble, "{trouble} {calm}");
    assert!(
        trouble + calm <= 700 && trouble + calm > 650,
        "{trouble} {calm}"
    );
    // In book, the player's most played move beats a random legal one by far.
    let (book, random) = (top1(inb, "book (most played)"), top1(inb, "random legal"));
    assert!(book > random + 0.3, "book {book} vs random {random}");
    // The book answers nowhere outside the book; the engine and model answer everywhere.
    assert_eq!(predictor(outb, "book (most played)")["answered"], 0);
    assert_eq!(predictor(all, "engine")["answered"], 700);
    assert_eq!(predictor(all, "model")["answered"], 700);
    let (model, random_all) = (top1(all, "model"), top1(all, "random legal"));
    assert!(
        model > 2.0 * random_all,
        "model {model} vs random {random_all}"
    );
    assert!(top1(all, "stockfish depth 1") > top1(all, "random legal"));
    // Intervals hold their value; top-3 is at least top-1.
    for seg in first["segments"].as_array().expect("segments") {
        for p in seg["predictors"].as_array().expect("predictors") {
            if let (Some(a), Some(b)) = (p["top1"].as_object(), p["top3"].as_object()) {
                let v = |o: &serde_json::Map<String, Value>, k: &str| o[k].as_f64().expect("f64");
                assert!(
                    v(a, "low") <= v(a, "value") && v(a, "value") <= v(a, "high"),
                    "{p}"
                );
                assert!(v(b, "value") + 1e-12 >= v(a, "value"), "{p}");
            }
        }
    }
    let promos = &first["promotions"];
    assert!(
        promos["to_queen"].as_u64() <= promos["played"].as_u64(),
        "{promos}"
    );
    // Stockfish judged the sample: the player's and the mirror's mistake shares.
    let m = &first["mistakes"];
    assert_eq!(m["player"]["n"], 150, "{m}");
    assert_eq!(m["depth"], 5);
    let (p, q, d) = (
        m["player"]["value"].as_f64().expect("f64"),
        m["mirror"]["value"].as_f64().expect("f64"),
        m["difference"]["value"].as_f64().expect("f64"),
    );
    assert!((q - p - d).abs() < 1e-9, "{m}");
    assert!(p > 0.0 && p < 0.6, "a real player errs sometimes: {p}");
    // The sampling mirror (play's and serve's defaults), one draw a judged position.
    assert_eq!(m["sampled"]["n"], 150, "{m}");
    let drawn = m["sampled"]["value"].as_f64().expect("f64");
    let drawn_loss = m["sampled_mean_loss"]["value"].as_f64().expect("f64");
    assert!((0.0..=1.0).contains(&drawn), "{m}");
    assert!((0.0..=100.0).contains(&drawn_loss), "{m}");
    // The judged positions by the clock: as many as the judged ones with a time.
    let by_clock: u64 = m["by_clock"]
        .as_array()
        .expect("by clock")
        .iter()
        .map(|c| c["positions"].as_u64().expect("n"))
        .sum();
    assert!(by_clock > 100 && by_clock <= 150, "{m}");

    // Another seed: another engine sample, the same book figures.
    let mut other: Vec<&str> = common.to_vec();
    let i = other.iter().position(|a| *a == "5").expect("seed");
    other[i] = "6";
    let other: Value = serde_json::from_str(&env.ok(&other)).expect("json");
    assert_eq!(
        predictor(segment(&other, "in book"), "book (most played)"),
        predictor(inb, "book (most played)")
    );
}

#[test]
fn eval_refuses_a_model_of_another_split_and_bad_options() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    // No model for a player with no shipped one... the shared player has one, trained on
    // the 27k games: not this store's split.
    let err = env.fails(&["eval", "--user", PLAYER, "--no-stockfish"]);
    assert!(
        err.contains("trained on") && err.contains("pass --train"),
        "{err}"
    );
    let err = env.fails(&["eval", "--user", PLAYER, "--split", "80,10"]);
    assert!(err.contains("invalid split \"80,10\""), "{err}");
    let err = env.fails(&["eval", "--user", "nobody", "--no-model"]);
    assert!(err.contains("unknown player"), "{err}");
    // Each test position is answered in its own game's context, not one given for all.
    let err = env.fails(&[
        "eval",
        "--user",
        PLAYER,
        "--no-model",
        "--game-time-class",
        "blitz",
    ]);
    assert!(
        err.contains("--game-time-class is for play and uci"),
        "{err}"
    );
    // Without a model or Stockfish the table still comes, and says what it lacks.
    let out = env.ok(&[
        "eval",
        "--user",
        PLAYER,
        "--no-model",
        "--no-stockfish",
        "--max-positions",
        "300",
    ]);
    assert!(
        out.contains("fallback: random legal move (evaluated without a model)"),
        "{out}"
    );
    assert!(out.contains("no Stockfish"), "{out}");
    assert!(
        out.contains("in book (") && out.contains("plies 31+ ("),
        "{out}"
    );
    assert!(!out.contains("stockfish depth 1"), "{out}");
}

/// The in-book top-1 a line of the weight table printed by `mirror train` gives for
/// `likely:W`.
fn table_share(out: &str, w: &str) -> f64 {
    let label = format!("likely:{w} ");
    let line = out
        .lines()
        .find(|l| l.trim_start().starts_with(&label))
        .unwrap_or_else(|| panic!("no line for likely:{w} in\n{out}"));
    line.split_whitespace()
        .nth(1)
        .and_then(|p| p.trim_end_matches('%').parse().ok())
        .unwrap_or_else(|| panic!("no share in {line:?}"))
}

#[test]
fn training_chooses_the_models_weight_in_the_book_and_eval_plays_with_it() {
    let env = Env::new();
    env.ingest(&first500(), &[]);
    let trained = env.ok(&[
        "train",
        "--user",
        PLAYER,
        "--from-scratch",
        "--channels",
        "16",
        "--layers",
        "2",
        "--epochs",
        "2",
        "--batch",
        "128",
        "--max-positions",
        "6000",
        "--recent-games",
        "0",
    ]);
    assert!(
        trained.contains("the model's weight in the book (likely:W"),
        "{trained}"
    );
    // The weight is recorded beside the model, one of the weights tried.
    let meta: Value = serde_json::from_str(
        &std::fs::read_to_string(env.dir.path().join("models/biskupstunga/meta.json"))
            .expect("meta.json"),
    )
    .expect("json");
    let w = meta["book_prior"].as_f64().expect("book_prior recorded");
    let w_text = w.to_string();
    assert!(
        trained.contains(&format!("likely:{w_text:<9}")) && trained.contains("(chosen)"),
        "{trained}"
    );
    let chosen = table_share(&trained, &w_text);
    for other in ["1", "30", "100000"] {
        assert!(
            table_share(&trained, other) <= chosen,
            "likely:{other} beat the chosen weight:\n{trained}"
        );
    }

    // eval plays with the model's weight unless a policy is given, and on the validation
    // games its in-book top-1 is the one the choice was made on.
    let quick = [
        "eval",
        "--user",
        PLAYER,
        "--on",
        "validation",
        "--no-stockfish",
        "--json",
    ];
    let tuned: Value = serde_json::from_str(&env.ok(&quick)).expect("json");
    let policy = tuned["policy"].as_str().expect("policy");
    assert!(policy.starts_with(&format!("likely:{w_text}")), "{policy}");
    let in_book = top1(segment(&tuned, "in book"), "engine");
    assert!(
        (100.0 * in_book - chosen).abs() < 0.051,
        "eval {in_book} vs the table's {chosen}"
    );
    let given: Value =
        serde_json::from_str(&env.ok(&[&quick[..], &["--policy", "likely:30"]].concat()))
            .expect("json");
    assert_eq!(given["policy"], "likely:30");
    let in_book = top1(segment(&given, "in book"), "engine");
    assert!(
        (100.0 * in_book - table_share(&trained, "30")).abs() < 0.051,
        "eval {in_book} vs the table:\n{trained}"
    );

    // The strength dial: the search's weight and nodes chosen with Stockfish on the
    // validation positions out of the book, one of the settings tried, recorded beside the
    // model; eval plays the recorded search unless a search knob is given.
    assert!(
        trained.contains("the strength dial (the search's weight and nodes of"),
        "{trained}"
    );
    let dial = &meta["search"];
    let weight = dial["weight"].as_f64().expect("a weight");
    let nodes = dial["nodes"].as_u64().expect("nodes") as u32;
    // Absent: Stockfish's own choice not searched.
    let own = dial["own"].as_u64().unwrap_or(0) as u32;
    // Weight 0 is no search: 0 nodes, nothing run.
    assert!(
        mirror_eval::dial::settings().contains(&(weight, nodes, own)),
        "{meta}"
    );
    let words = mirror_eval::dial::setting_words((weight, nodes, own));
    // The sampling mirror's temperature, chosen with that search, one of those tried.
    let temperature = meta["temperature"].as_f64().expect("a temperature");
    assert!(
        mirror_eval::dial::DIAL_TEMPERATURES.contains(&temperature),
        "{meta}"
    );
    assert!(
        trained.contains(&format!(
            "the strength dial: {words}, the sampling mirror at temperature {temperature}, recorded in"
        )),
        "{trained}"
    );
    for t in mirror_eval::dial::DIAL_TEMPERATURES {
        assert!(
            trained
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("temperature {t}  "))),
            "{t}: {trained}"
        );
    }
    // Every setting has its line in the table, the chosen one marked.
    for setting in mirror_eval::dial::settings() {
        let words = mirror_eval::dial::setting_words(setting);
        assert!(
            trained
                .lines()
                .any(|l| l.trim_start().starts_with(&format!("{words}  "))),
            "{words}: {trained}"
        );
    }
    assert_eq!(
        trained.matches("(chosen)").count(),
        3,
        "the book's, the dial's and the temperature's: {trained}"
    );
    let mut set = meta.clone();
    set["search"] = serde_json::json!({"nodes": 700, "top": 3, "weight": 0.2});
    std::fs::write(
        env.dir.path().join("models/biskupstunga/meta.json"),
        set.to_string(),
    )
    .expect("write meta.json");
    let fallback = |extra: &[&str]| -> String {
        let quick = [&quick[..], &["--max-positions", "300"], extra].concat();
        let v: Value = serde_json::from_str(&env.ok(&quick)).expect("json");
        v["fallback"].as_str().expect("fallback").to_string()
    };
    let searching = fallback(&[]);
    assert!(
        searching.contains("+ search (") && searching.contains("700 nodes, top 3, weight 0.2"),
        "{searching}"
    );
    assert!(!fallback(&["--search-nodes", "0"]).contains("search"));
    // Stockfish's own choice as recorded, or as asked.
    set["search"]["own"] = serde_json::json!(300);
    std::fs::write(
        env.dir.path().join("models/biskupstunga/meta.json"),
        set.to_string(),
    )
    .expect("write meta.json");
    assert!(
        fallback(&[]).contains("700 nodes, top 3 and its own choice at 300 nodes, weight 0.2"),
        "{}",
        fallback(&[])
    );
    let asked = fallback(&["--search-nodes", "900", "--search-own", "100"]);
    assert!(
        asked.contains("900 nodes, top 6 and its own choice at 100 nodes, weight 0.1"),
        "{asked}"
    );
    // The sampling mirror draws at the recorded temperature unless one is given.
    let sampling = |extra: &[&str]| -> f64 {
        let quick = [
            &quick[..],
            &["--max-positions", "300", "--search-nodes", "0"],
            extra,
        ]
        .concat();
        let v: Value = serde_json::from_str(&env.ok(&quick)).expect("json");
        top1(segment(&v, "all"), "engine, sampling (expected)")
    };
    set["temperature"] = serde_json::json!(0.5);
    std::fs::write(
        env.dir.path().join("models/biskupstunga/meta.json"),
        set.to_string(),
    )
    .expect("write meta.json");
    let recorded = sampling(&[]);
    let own = sampling(&["--temperature", "1"]);
    assert!(recorded > own, "sharper: {recorded} against {own}");
    set.as_object_mut()
        .expect("meta.json is an object")
        .remove("temperature");
    std::fs::write(
        env.dir.path().join("models/biskupstunga/meta.json"),
        set.to_string(),
    )
    .expect("write meta.json");
    assert_eq!(
        sampling(&[]),
        own,
        "none recorded: the model's own distribution"
    );
    assert_eq!(sampling(&["--temperature", "0.5"]), recorded);
    std::fs::write(
        env.dir.path().join("models/biskupstunga/meta.json"),
        meta.to_string(),
    )
    .expect("write meta.json");

    // Choosing again for the same model and split gives the same table; a split whose
    // validation games the model learnt is refused.
    let again = env.ok(&["train", "--user", PLAYER, "--book-weight-only"]);
    let table = |out: &str| -> Vec<String> {
        out.lines()
            .filter(|l| l.trim_start().starts_with("likely:"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(table(&again), table(&trained));
    let err = env.fails(&[
        "train",
        "--user",
        PLAYER,
        "--book-weight-only",
        "--split",
        "70,20,10",
    ]);
    assert!(
        err.contains("the model saw some of the validation games"),
        "{err}"
    );
}
