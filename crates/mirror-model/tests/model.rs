//! The CNN on real games: saving and reloading, a short training run, legality.

use mirror_model::{
    ModelMeta, NetConfig, Predictor,
    data::Samples,
    encoding::ENCODING_VERSION,
    fit::{FitEvent, FitOptions, fit},
    inference::{rank_with, save},
    training::{EpochReport, TrainConfig, evaluate, train},
};
use mirror_testkit::conformance::sample_games;
use shakmaty::Position;

fn samples(from: usize, to: usize) -> Samples {
    let games = sample_games(499);
    let mut s = Samples::default();
    for (g, c) in &games[from..to] {
        s.add_game(g, *c, |_| true);
    }
    s
}

fn meta() -> ModelMeta {
    ModelMeta {
        encoding_version: ENCODING_VERSION,
        channels: 16,
        layers: 2,
        player: "Biskupstunga".into(),
        train_games: 0,
        val_games: 0,
        test_games: 0,
        train_dates: (String::new(), String::new()),
        train_positions: 0,
        epochs: 0,
        seed: 0,
        val_top1: 0.0,
        val_top3: 0.0,
        test_top1: 0.0,
        test_top3: 0.0,
        base: None,
        recent_games: Vec::new(),
        book_prior: None,
        search: None,
        temperature: None,
        value_head: true,
        value: None,
    }
}

fn random_top1(s: &Samples) -> f64 {
    s.positions
        .iter()
        .map(|p| 1.0 / p.legal_moves().len() as f64)
        .sum::<f64>()
        / s.len() as f64
}

/// A small network and three quick epochs: what the training tests run.
fn small_run() -> (NetConfig, TrainConfig) {
    let cfg = TrainConfig {
        epochs: 3,
        batch: 128,
        lr: 2e-3,
        seed: 7,
        patience: 3,
    };
    (NetConfig::new().with_channels(16).with_layers(2), cfg)
}

/// [`small_run`] trained from scratch on `train_set`, validated on `val_set`: the network
/// and every epoch's report.
fn trained_small(train_set: &Samples, val_set: &Samples) -> (mirror_model::Net, Vec<EpochReport>) {
    let (net_cfg, cfg) = small_run();
    let (net, reports, _) = train(&net_cfg, &cfg, None, train_set, val_set, &mut |_, _, _| {});
    (net, reports)
}

#[test]
fn short_training_lowers_the_loss_beats_random_and_reloads_identically() {
    let train_set = samples(0, 300);
    let val_set = samples(400, 499);
    assert!(train_set.len() > 3000 && val_set.len() > 1000);
    let (net_cfg, cfg) = small_run();
    let (net, reports, kept) = train(
        &net_cfg,
        &cfg,
        None,
        &train_set,
        &val_set,
        &mut |_, _, _| {},
    );
    assert_eq!(reports.len(), 3);
    assert!(kept.is_some(), "without a start an epoch is kept");
    assert!(
        reports[2].train_loss < reports[0].train_loss,
        "loss falls: {reports:?}"
    );
    let (top1, top3) = evaluate(&net, &val_set);
    let random = random_top1(&val_set);
    assert!(top1 > 2.0 * random, "top-1 {top1} vs random {random}");
    assert!(top3 > top1);

    let dir = tempfile::tempdir().expect("tempdir");
    let mut m = meta();
    m.val_top1 = top1;
    save(&net, &m, dir.path()).expect("save");
    // The model is its owner's alone: learnt from one player's games.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).expect("stat").permissions().mode();
        assert_eq!(mode(dir.path()) & 0o777, 0o700);
        for f in ["model.bpk", "meta.json"] {
            assert_eq!(mode(&dir.path().join(f)) & 0o777, 0o600, "{f}");
        }
    }
    let loaded = Predictor::load(dir.path()).expect("load");
    assert_eq!(loaded.meta, m);
    let direct = Predictor::from_net(net, m.clone());
    let positions: Vec<(&shakmaty::Chess, Option<&shakmaty::Move>)> = val_set
        .positions
        .iter()
        .take(200)
        .map(|p| (p, None))
        .collect();
    assert_eq!(
        loaded.logits(&positions),
        direct.logits(&positions),
        "bit-identical outputs"
    );

    // A sampling temperature recorded beside it is read back; one that is not a positive
    // number (a hand-edited meta.json) is refused with its file and value named.
    m.temperature = Some(0.5);
    mirror_model::inference::write_meta(&m, dir.path()).expect("write meta");
    let loaded = Predictor::load(dir.path()).expect("load");
    assert_eq!(loaded.meta.temperature, Some(0.5));
    for bad in [0.0, -0.5] {
        m.temperature = Some(bad);
        mirror_model::inference::write_meta(&m, dir.path()).expect("write meta");
        let err = Predictor::load(dir.path())
            .expect_err("refused")
            .to_string();
        assert!(
            err.contains("meta.json") && err.contains(&format!("temperature {bad}")),
            "{err}"
        );
    }
}

/// The stages on the last games are a list; a meta.json written when there was one stage
/// at most (one number, 0 for none) still reads.
#[test]
fn the_stages_on_the_last_games_read_from_a_list_or_the_older_number() {
    let mut m = meta();
    m.recent_games = vec![5000, 2000];
    let json = serde_json::to_string(&m).expect("json");
    assert!(json.contains("\"recent_games\":[5000,2000]"), "{json}");
    assert_eq!(serde_json::from_str::<ModelMeta>(&json).expect("reads"), m);
    let older = |stages: &str| {
        let json = serde_json::to_string(&meta()).expect("json");
        assert!(!json.contains("recent_games"), "none: left out");
        let json = json.replacen('{', &format!("{{\"recent_games\":{stages},"), 1);
        serde_json::from_str::<ModelMeta>(&json)
            .expect("reads")
            .recent_games
    };
    assert_eq!(older("5000"), [5000]);
    assert_eq!(older("0"), Vec::<usize>::new());
    assert_eq!(older("[]"), Vec::<usize>::new());
    assert!(
        serde_json::from_str::<ModelMeta>(&serde_json::to_string(&meta()).expect("json").replacen(
            '{',
            "{\"recent_games\":\"many\",",
            1
        ))
        .is_err(),
        "neither a number nor a list"
    );
}

#[test]
fn the_model_only_ever_picks_legal_moves() {
    // An untrained model gives arbitrary scores: the legality must come from the ranking.
    let dir = tempfile::tempdir().expect("tempdir");
    let net = NetConfig::new()
        .with_channels(16)
        .with_layers(2)
        .init(&burn::tensor::Device::flex());
    save(&net, &meta(), dir.path()).expect("save");
    let p = Predictor::load(dir.path()).expect("load");
    let s = samples(0, 150);
    assert!(s.len() > 2000);
    for pos in &s.positions {
        let (m, score) = p.best(pos, None).expect("a move");
        assert!(pos.is_legal(m), "illegal {m:?} in {pos:?}");
        assert!(score.is_finite());
        assert_eq!(p.rank(pos, None).len(), pos.legal_moves().len());
    }
}

#[test]
fn a_model_of_another_encoding_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let net = NetConfig::new()
        .with_channels(16)
        .with_layers(2)
        .init(&burn::tensor::Device::flex());
    let mut m = meta();
    m.encoding_version = ENCODING_VERSION + 1;
    save(&net, &m, dir.path()).expect("save");
    let err = Predictor::load(dir.path()).expect_err("refused");
    assert!(err.to_string().contains("encoding version"), "{err}");
}

#[test]
fn cached_ranking_equals_the_network() {
    let set = samples(0, 20);
    let net = NetConfig::new()
        .with_channels(8)
        .with_layers(1)
        .init(&burn::tensor::Device::flex());
    let p = Predictor::from_net(net, meta());
    let mut last = None;
    for pos in set.positions.iter().take(200) {
        for l in [None, last.as_ref()] {
            let logits = p.logits(&[(pos, l)]).pop().expect("logits");
            let direct = rank_with(pos, &logits);
            // First call fills the cache, the second reads it: both equal the network.
            assert_eq!(p.rank(pos, l), direct);
            assert_eq!(p.rank(pos, l), direct);
        }
        last = pos.legal_moves().first().copied();
    }
}

#[test]
fn an_installed_model_of_an_older_encoding_gives_way_to_the_shipped_one() {
    // What an upgrade finds: the shipped model installed by an older build (encoding 1).
    let root = tempfile::tempdir().expect("tempdir");
    let dir = root.path().join("biskupstunga");
    let net = NetConfig::new()
        .with_channels(16)
        .with_layers(2)
        .init(&burn::tensor::Device::flex());
    let mut old = meta();
    old.encoding_version = ENCODING_VERSION - 1;
    save(&net, &old, &dir).expect("save");
    let p = mirror_model::library::load_or_install(&dir, "Biskupstunga")
        .expect("installed")
        .expect("a model");
    assert_eq!(p.meta.encoding_version, ENCODING_VERSION);
    let aside = root
        .path()
        .join(format!("biskupstunga.encoding-{}", ENCODING_VERSION - 1));
    assert!(
        aside.join("meta.json").exists(),
        "the old one is kept aside"
    );
    // A player without a shipped model keeps the refusal: nothing to replace it with.
    let other = root.path().join("karpov");
    save(&net, &old, &other).expect("save");
    let err = mirror_model::library::load_or_install(&other, "Karpov").expect_err("refused");
    assert!(err.to_string().contains("encoding version"), "{err}");
}

#[test]
fn an_installed_shipped_model_gives_way_to_a_newer_one_but_a_trained_one_stays() {
    use mirror_model::library::{SHIPPED_MARK, load_or_install, shipped};
    let root = tempfile::tempdir().expect("tempdir");
    let dir = root.path().join("biskupstunga");
    let read = |name: &str| std::fs::read_to_string(dir.join(name)).expect("read");
    let (_, current) = shipped("Biskupstunga").expect("a shipped model");
    load_or_install(&dir, "Biskupstunga")
        .expect("installed")
        .expect("a model");
    assert_eq!(
        (read("meta.json"), read(SHIPPED_MARK)),
        (current.into(), current.into())
    );
    // What an upgrade finds: the model an older build shipped, installed and untouched.
    let older = current.replace("\"seed\": 0", "\"seed\": 7");
    assert_ne!(older, current, "the shipped meta.json names its seed");
    for name in ["meta.json", SHIPPED_MARK] {
        std::fs::write(dir.join(name), &older).expect("write");
    }
    let p = load_or_install(&dir, "Biskupstunga")
        .expect("installed")
        .expect("a model");
    assert_eq!(p.meta.seed, 0, "the newer shipped model replaced it");
    assert_eq!(read("meta.json"), current);
    // A model trained there since is the player's own: a newer build leaves it alone.
    let net = NetConfig::new()
        .with_channels(16)
        .with_layers(2)
        .init(&burn::tensor::Device::flex());
    let mut own = meta();
    own.seed = 7;
    save(&net, &own, &dir).expect("save");
    let p = load_or_install(&dir, "Biskupstunga")
        .expect("loaded")
        .expect("a model");
    assert_eq!(p.meta, own);
}

/// Fine-tuning starts from the saved weights: with a learning rate too small to move them,
/// a network loaded from a trained model keeps its accuracy, a fresh one stays near random.
/// And it never ends below them: a start that training only makes worse comes back
/// unchanged, with the epochs that did not beat it in the reports.
#[test]
fn fine_tuning_starts_from_the_saved_weights_and_never_ends_below_them() {
    use mirror_model::{inference::load_net, training::training_device};
    let train_set = samples(0, 300);
    let tune_set = samples(300, 400);
    let val_set = samples(400, 499);
    let (net_cfg, cfg) = small_run();
    let (base, _) = trained_small(&train_set, &val_set);
    let (base_top1, base_top3) = evaluate(&base, &val_set);
    let dir = tempfile::tempdir().expect("tempdir");
    save(&base, &meta(), dir.path()).expect("save");
    let tune = |start: Option<(mirror_model::Net, f64)>, epochs: usize, lr: f64| {
        train(
            &net_cfg,
            &TrainConfig {
                epochs,
                lr,
                ..cfg.clone()
            },
            start,
            &tune_set,
            &val_set,
            &mut |_, _, _| {},
        )
    };
    let load = || {
        let (start, m) = load_net(dir.path(), &training_device()).expect("load");
        assert_eq!(m, meta());
        start
    };
    // Nothing to beat (any epoch is kept): the trained network itself comes back.
    let (tuned, reports, at) = tune(Some((load(), f64::NEG_INFINITY)), 1, 1e-9);
    assert_eq!(reports.len(), 1);
    assert_eq!(at, Some(0));
    let (fresh, _, _) = tune(None, 1, 1e-9);
    let (tuned_top1, _) = evaluate(&tuned, &val_set);
    let (fresh_top1, _) = evaluate(&fresh, &val_set);
    assert!(
        (tuned_top1 - base_top1).abs() < 0.03,
        "from the base: {tuned_top1} vs the base's {base_top1}"
    );
    assert!(
        fresh_top1 < base_top1 - 0.05,
        "from scratch: {fresh_top1} vs the base's {base_top1}"
    );
    // A learning rate that wrecks the network in its first steps: the start is kept, with
    // exactly its figures (a clone sharing batch norm's statistics would have drifted).
    let (kept, reports, at) = tune(Some((load(), base_top1)), 2, 10.0);
    assert!(!reports.is_empty());
    assert_eq!(at, None, "the start is kept: {reports:?}");
    assert!(
        reports.iter().all(|r| r.val_top1 < base_top1),
        "every epoch is worse than the start ({base_top1}): {reports:?}"
    );
    assert_eq!(evaluate(&kept, &val_set), (base_top1, base_top3));
}

/// The shipped population base installs under the models root and loads.
#[test]
fn the_population_base_is_shipped_and_installed() {
    let root = tempfile::tempdir().expect("tempdir");
    let p = mirror_model::library::load_or_install_base(root.path()).expect("installed");
    assert_eq!(p.meta.player, mirror_model::library::POPULATION);
    assert_eq!(p.meta.encoding_version, ENCODING_VERSION);
    assert!(
        root.path()
            .join(mirror_model::library::BASE_DIR)
            .join("meta.json")
            .exists()
    );
    // A second call loads the installed copy.
    let again = mirror_model::library::load_or_install_base(root.path()).expect("loaded");
    assert_eq!(again.meta, p.meta);
}

#[test]
fn the_plan_counts_every_batch_the_training_and_its_stages_run() {
    // What the whole training's ETA rests on: the plan announced before the training,
    // one part for the epochs and one for each stage that runs, holds exactly the
    // batches that the progress of each part then reports.
    let games = sample_games(499);
    let opts = FitOptions {
        epochs: 2,
        batch: 128,
        lr: 2e-3,
        channels: 8,
        layers: 1,
        patience: 5,
        max_positions: 3000,
        seed: 3,
        base: None,
        max_train_games: None,
        recent_games: vec![100, 0, 40, 5000],
        recent_lr: 1e-3,
    };
    let dir = tempfile::tempdir().expect("temp dir");
    let (mut plan, mut stages, mut not_run, mut ended) = (None, Vec::new(), Vec::new(), Vec::new());
    let mut split = None;
    // Per part: its last epoch and the batches of one epoch (each epoch's progress ends
    // with all of them done).
    let mut parts: Vec<(usize, usize)> = Vec::new();
    fit(
        "Biskupstunga",
        &games,
        "80,10,10".parse().expect("split"),
        &opts,
        dir.path(),
        &mut |event| match event {
            FitEvent::Plan(p) => {
                assert!(plan.is_none() && parts.is_empty(), "the plan comes first");
                plan = Some(p);
                parts.push((0, 0));
            }
            FitEvent::Split(s) => split = Some(s),
            FitEvent::Stage {
                games, positions, ..
            } => {
                assert!(positions > games, "{positions} positions in {games} games");
                stages.push(games);
                parts.push((0, 0));
            }
            FitEvent::StageDone { games, kept, .. } => ended.push((games, kept)),
            FitEvent::NoStage { asked, train_games } => not_run.push((asked, train_games)),
            FitEvent::Progress(r, done, total) => {
                let part = parts.last_mut().expect("progress after the plan");
                assert!(done <= total && done > 0, "{done}/{total}");
                *part = (part.0.max(r.epoch), total);
            }
            _ => {}
        },
    )
    .expect("fit");
    let plan = plan.expect("a plan");
    // Two stages run (the last 100 and 40 games); 0 is none; 5,000 is more than there are.
    assert_eq!(stages, [100, 40]);
    assert_eq!(
        ended.iter().map(|&(games, _)| games).collect::<Vec<_>>(),
        [100, 40]
    );
    let split = split.expect("the split is reported");
    assert_eq!(
        split.train_games + split.val_games + split.test_games,
        split.games
    );
    assert_eq!(not_run, [(5000, split.train_games)]);
    let ran: Vec<usize> = parts
        .iter()
        .map(|&(epochs, total)| epochs * total)
        .collect();
    assert_eq!(
        plan, ran,
        "planned batches per part = the batches each part ran"
    );
    assert_eq!(
        plan[0],
        2 * 3000usize.div_ceil(128),
        "two epochs of 3,000 positions"
    );
}

/// The value head learns the games' outcomes beside the moves: its loss falls, each
/// position's outcomes are a distribution over loss, draw and win, a reloaded model gives
/// the same outcomes, and on validation it foretells the result better than no idea at
/// all (log-loss below ln 3).
#[test]
fn the_value_head_gives_a_distribution_and_learns_the_outcomes() {
    let train_set = samples(0, 300);
    let val_set = samples(400, 499);
    let (net, reports) = trained_small(&train_set, &val_set);
    assert!(net.has_value_head());
    let outcome_loss = |r: &EpochReport| r.value_loss.expect("a value head's loss");
    assert!(
        reports.iter().all(|r| outcome_loss(r).is_finite())
            && outcome_loss(&reports[2]) < outcome_loss(&reports[0]),
        "the outcome's loss falls: {reports:?}"
    );
    assert!(reports[0].losses().contains("(outcome "), "{reports:?}");
    let figures =
        mirror_model::value::value_figures(&net, &train_set, &val_set).expect("a value head");
    assert_eq!(figures.positions, val_set.len());
    assert!(
        figures.model.log_loss < 3f64.ln(),
        "better than no idea: {figures:?}"
    );
    assert!(
        [figures.material, figures.shares]
            .iter()
            .all(|c| c.log_loss.is_finite() && c.brier > 0.0 && c.brier < 2.0),
        "the baselines measured: {figures:?}"
    );
    let dir = tempfile::tempdir().expect("tempdir");
    save(&net, &meta(), dir.path()).expect("save");
    let loaded = Predictor::load(dir.path()).expect("load");
    let direct = Predictor::from_net(net, meta());
    let positions: Vec<(&shakmaty::Chess, Option<&shakmaty::Move>)> = val_set
        .positions
        .iter()
        .take(300)
        .map(|p| (p, None))
        .collect();
    let (_, outcomes) = direct.judge(&positions);
    let outcomes = outcomes.expect("a value head");
    assert_eq!(outcomes.len(), positions.len());
    for o in &outcomes {
        assert!(o.iter().all(|p| (0.0..=1.0).contains(p)), "{o:?}");
        assert!((o.iter().sum::<f64>() - 1.0).abs() < 1e-9, "{o:?}");
    }
    assert_eq!(loaded.judge(&positions), direct.judge(&positions));
    assert_eq!(
        direct.logits(&positions),
        direct.judge(&positions).0,
        "the move head alone gives the moves of the pass with the value head"
    );
    // Some positions are judged better for the side to move than others.
    let wins: Vec<f64> = outcomes.iter().map(|o| o[2]).collect();
    let spread =
        wins.iter().copied().fold(0.0, f64::max) - wins.iter().copied().fold(1.0, f64::min);
    assert!(spread > 0.05, "{spread}");
}

/// A model saved before there were value heads (its meta.json has no `value_head`) loads
/// as it was, without outcomes; fine-tuning it gives the new model a value head, measured
/// on the validation positions.
#[test]
fn a_model_without_a_value_head_loads_and_learns_one_when_fine_tuned() {
    let dir = tempfile::tempdir().expect("tempdir");
    let net = NetConfig::new()
        .with_channels(8)
        .with_layers(1)
        .with_value(false)
        .init(&burn::tensor::Device::flex());
    let old = ModelMeta {
        channels: 8,
        layers: 1,
        value_head: false,
        ..meta()
    };
    save(&net, &old, dir.path()).expect("save");
    let json = std::fs::read_to_string(dir.path().join("meta.json")).expect("meta");
    let without: String = json
        .lines()
        .filter(|l| !l.contains("value_head"))
        .collect::<Vec<_>>()
        .join("\n")
        .replace(",\n}", "\n}");
    std::fs::write(dir.path().join("meta.json"), without).expect("write");
    let p = Predictor::load(dir.path()).expect("an older model loads");
    assert!(!p.meta.value_head && !p.has_value_head());
    let pos = shakmaty::Chess::default();
    let (logits, outcomes) = p.judge(&[(&pos, None)]);
    assert_eq!((logits.len(), outcomes), (1, None));
    let games = sample_games(499);
    let opts = FitOptions {
        epochs: 1,
        batch: 128,
        lr: 2e-3,
        channels: 8,
        layers: 1,
        patience: 1,
        max_positions: 2000,
        seed: 3,
        base: Some(dir.path().to_path_buf()),
        max_train_games: None,
        recent_games: Vec::new(),
        recent_lr: 1e-3,
    };
    let out = tempfile::tempdir().expect("tempdir");
    let (mut new_head, mut reported) = (None, None);
    let tuned = fit(
        "Biskupstunga",
        &games,
        "80,10,10".parse().expect("split"),
        &opts,
        out.path(),
        &mut |event| match event {
            FitEvent::Base { new_value_head, .. } => new_head = Some(new_value_head),
            FitEvent::Value(v) => reported = Some(*v),
            _ => {}
        },
    )
    .expect("fit");
    assert!(tuned.has_value_head() && tuned.meta.value_head);
    let figures = tuned.meta.value.expect("measured");
    assert!(figures.positions > 1000, "{figures:?}");
    assert_eq!(new_head, Some(true), "the base had no value head");
    assert_eq!(
        reported,
        Some(figures),
        "the figures kept are those reported"
    );
    let again = Predictor::load(out.path()).expect("load");
    assert!(again.has_value_head());
}
