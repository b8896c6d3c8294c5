//! `mirror train`: fit the CNN fallback on a player's stored games, split by date (oldest
//! 80% train, next 10% validation, newest 10% test; a game is in one set only), and report
//! test top-1/top-3 outside the player's training tree against baselines.

use std::{
    collections::{HashMap, HashSet},
    path::{Path, PathBuf},
    process::ExitCode,
};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use mirror_core::{GameRecord, PositionKey};
use mirror_eval::split::Fractions;
use mirror_model::{
    ModelMeta, NetConfig, Predictor,
    data::Samples,
    encoding::ENCODING_VERSION,
    inference::save,
    training::{TrainConfig, evaluate, train},
};
use mirror_store::{GraphStore, embedded::OpenMode, player_key};
use rand::{SeedableRng, seq::SliceRandom};
use rand_chacha::ChaCha8Rng;
use shakmaty::{CastlingMode, Chess, Color, Position, Role};

use crate::{
    cli::{StoreArgs, TrainArgs, TrainOpts},
    play::require_player,
};

/// The model directory of a player under the data directory.
pub fn model_dir(store_args: &StoreArgs, player: &str) -> anyhow::Result<PathBuf> {
    Ok(store_args
        .data_dir()?
        .join("models")
        .join(player_key(player)?))
}

/// Keys of the positions where the player was to move in these games.
fn tree(games: &[(GameRecord, Color)]) -> HashSet<PositionKey> {
    let mut out = HashSet::new();
    for (g, c) in games {
        for ply in g.replay().map_while(Result::ok) {
            if ply.pos.turn() == *c {
                out.insert(ply.key);
            }
        }
    }
    out
}

fn subsample(s: Samples, max: usize, seed: u64) -> Samples {
    if s.len() <= max {
        return s;
    }
    let mut idx: Vec<usize> = (0..s.len()).collect();
    idx.shuffle(&mut ChaCha8Rng::seed_from_u64(seed));
    idx.truncate(max);
    idx.sort_unstable();
    s.subset(&idx)
}

/// Expected top-1/top-3 of a uniformly random legal move.
fn random_baseline(s: &Samples) -> (f64, f64) {
    let n = s.len().max(1) as f64;
    let (mut t1, mut t3) = (0.0, 0.0);
    for p in &s.positions {
        let k = p.legal_moves().len().max(1) as f64;
        t1 += 1.0 / k;
        t3 += (3.0f64).min(k) / k;
    }
    (t1 / n, t3 / n)
}

/// The "habit" baseline: legal moves ranked by how often the player played the same UCI
/// move anywhere in training.
fn habit_baseline(s: &Samples, habits: &HashMap<String, u32>) -> (f64, f64) {
    let n = s.len().max(1) as f64;
    let (mut t1, mut t3) = (0usize, 0usize);
    for (i, p) in s.positions.iter().enumerate() {
        let turn = p.turn();
        let mut moves: Vec<(shakmaty::Move, u32)> = p
            .legal_moves()
            .into_iter()
            .map(|m| {
                let u = m.to_uci(CastlingMode::Standard).to_string();
                (m, habits.get(&u).copied().unwrap_or(0))
            })
            .collect();
        moves.sort_by(|a, b| {
            b.1.cmp(&a.1).then_with(|| {
                a.0.to_uci(CastlingMode::Standard)
                    .to_string()
                    .cmp(&b.0.to_uci(CastlingMode::Standard).to_string())
            })
        });
        let hit = |m: &shakmaty::Move| {
            mirror_model::encoding::move_label(m, turn)
                .is_some_and(|(a, b)| (a as i64, b as i64) == (s.from[i], s.to[i]))
        };
        if moves.first().is_some_and(|(m, _)| hit(m)) {
            t1 += 1;
        }
        if moves.iter().take(3).any(|(m, _)| hit(m)) {
            t3 += 1;
        }
    }
    (t1 as f64 / n, t3 as f64 / n)
}

/// The player's promotions in these games by piece: knight, bishop, rook, queen.
pub fn promotions(games: &[(GameRecord, Color)]) -> [usize; 4] {
    let mut out = [0; 4];
    for (g, c) in games {
        for ply in g.replay().map_while(Result::ok) {
            if ply.pos.turn() != *c {
                continue;
            }
            match ply.mv.promotion() {
                Some(Role::Knight) => out[0] += 1,
                Some(Role::Bishop) => out[1] += 1,
                Some(Role::Rook) => out[2] += 1,
                Some(Role::Queen) => out[3] += 1,
                _ => {}
            }
        }
    }
    out
}

/// "12 (queen 11, rook 0, bishop 0, knight 1)".
pub fn promotion_text(p: &[usize; 4]) -> String {
    format!(
        "{} (queen {}, rook {}, bishop {}, knight {})",
        p.iter().sum::<usize>(),
        p[3],
        p[2],
        p[1],
        p[0]
    )
}

pub fn date_text(g: Option<&(GameRecord, Color)>) -> String {
    g.and_then(|(g, _)| g.date)
        .map_or_else(|| "?".into(), |d| d.to_string())
}

pub fn run(store_args: &StoreArgs, args: TrainArgs) -> anyhow::Result<ExitCode> {
    let store = store_args.open(OpenMode::MustExist)?;
    let player = require_player(&store, &args.user)?;
    let games = store.games(&player)?;
    let dir = match &args.out {
        Some(d) => d.clone(),
        None => model_dir(store_args, &player)?,
    };
    fit(&Fit {
        player: &player,
        games: &games,
        split: args.split,
        opts: &args.opts,
        max_positions: args.max_positions,
        seed: args.seed,
        dir: &dir,
        report_to_stderr: false,
    })?;
    Ok(ExitCode::SUCCESS)
}

/// What to train: a player's games (oldest first), the split and the options.
pub struct Fit<'a> {
    pub player: &'a str,
    pub games: &'a [(GameRecord, Color)],
    pub split: Fractions,
    pub opts: &'a TrainOpts,
    pub max_positions: usize,
    pub seed: u64,
    /// Where the model is saved.
    pub dir: &'a Path,
    /// Print the training report on stderr instead of stdout.
    pub report_to_stderr: bool,
}

/// Trains on the split's training games with early stopping on its validation games,
/// reports test figures against baselines, and saves the model in `fit.dir`.
pub fn fit(fit: &Fit<'_>) -> anyhow::Result<Predictor> {
    let (player, games, opts) = (fit.player, fit.games, fit.opts);
    // The report goes to stderr when stdout carries something else (eval --json).
    macro_rules! say {
        ($($t:tt)*) => {
            if fit.report_to_stderr {
                eprintln!($($t)*)
            } else {
                println!($($t)*)
            }
        };
    }
    anyhow::ensure!(
        games.len() >= 30,
        "{player} has only {} games; train needs at least 30",
        games.len()
    );
    let sp = fit.split.split(games.len());
    let (train_g, val_g, test_g) = (&games[sp.train], &games[sp.val], &games[sp.test]);
    anyhow::ensure!(
        !val_g.is_empty(),
        "the split {} leaves no validation games: early stopping needs some",
        fit.split
    );
    let book = tree(train_g);
    let mut train_s = Samples::default();
    let mut habits: HashMap<String, u32> = HashMap::new();
    for (g, c) in train_g {
        train_s.add_game(g, *c, |_| true);
        for ply in g.replay().map_while(Result::ok) {
            if ply.pos.turn() == *c {
                *habits.entry(ply.code.to_string()).or_default() += 1;
            }
        }
    }
    let train_s = subsample(train_s, fit.max_positions, fit.seed);
    let mut val_s = Samples::default();
    for (g, c) in val_g {
        val_s.add_game(g, *c, |_| true);
    }
    let val_s = subsample(val_s, 20_000, fit.seed);
    let mut test_out = Samples::default();
    let mut test_in = Samples::default();
    for (g, c) in test_g {
        test_out.add_game(g, *c, |p: &Chess| {
            !book.contains(&PositionKey::from_position(p))
        });
        test_in.add_game(g, *c, |p: &Chess| {
            book.contains(&PositionKey::from_position(p))
        });
    }
    say!(
        "{player}: {} games -> train {} ({} positions used), validation {} ({} positions), test {} ({} positions outside the training tree, {} inside)",
        games.len(),
        train_g.len(),
        train_s.len(),
        val_g.len(),
        val_s.len(),
        test_g.len(),
        test_out.len(),
        test_in.len()
    );
    let net_cfg = NetConfig::new()
        .with_channels(opts.channels)
        .with_layers(opts.layers);
    let cfg = TrainConfig {
        epochs: opts.epochs,
        batch: opts.batch,
        lr: opts.lr,
        seed: fit.seed,
        patience: opts.patience,
    };
    let bar = ProgressBar::new(0);
    bar.set_style(
        ProgressStyle::with_template("epoch {msg} [{bar:30}] {pos}/{len} batches")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let (net, reports) = train(&net_cfg, &cfg, &train_s, &val_s, &mut |r, done, total| {
        bar.set_length(total as u64);
        bar.set_position(done as u64);
        if r.val_top1.is_nan() {
            bar.set_message(format!(
                "{} loss {:.3} ({:.0} pos/s)",
                r.epoch, r.train_loss, r.positions_per_sec
            ));
        } else {
            let line = format!(
                "epoch {}: loss {:.3}, validation top-1 {:.1}%, top-3 {:.1}%, {:.0} positions/s",
                r.epoch,
                r.train_loss,
                100.0 * r.val_top1,
                100.0 * r.val_top3,
                r.positions_per_sec
            );
            if bar.is_hidden() {
                say!("{line}");
            } else {
                bar.println(line);
            }
        }
    });
    bar.finish_and_clear();
    let (val_top1, val_top3) = evaluate(&net, &val_s);
    let (test_top1, test_top3) = evaluate(&net, &test_out);
    let (in_top1, in_top3) = evaluate(&net, &test_in);
    let (r1, r3) = random_baseline(&test_out);
    let (h1, h3) = habit_baseline(&test_out, &habits);
    say!(
        "test positions outside the training tree ({}):",
        test_out.len()
    );
    say!(
        "  model            top-1 {:5.1}%  top-3 {:5.1}%",
        100.0 * test_top1,
        100.0 * test_top3
    );
    say!(
        "  random legal     top-1 {:5.1}%  top-3 {:5.1}%",
        100.0 * r1,
        100.0 * r3
    );
    say!(
        "  habit (most played UCI move) top-1 {:5.1}%  top-3 {:5.1}%",
        100.0 * h1,
        100.0 * h3
    );
    say!(
        "test positions inside the training tree ({}): model top-1 {:.1}%, top-3 {:.1}%",
        test_in.len(),
        100.0 * in_top1,
        100.0 * in_top3
    );
    // The heads name squares, not pieces: a promotion is always to a queen. How often
    // that is the player's own choice:
    let (pt, pv) = (promotions(train_g), promotions(test_g));
    say!(
        "promotions by {player}: training {}; test {}; the model always promotes to a queen, which matches {:.1}% of the test promotions",
        promotion_text(&pt),
        promotion_text(&pv),
        100.0 * pv[3] as f64 / pv.iter().sum::<usize>().max(1) as f64
    );
    let meta = ModelMeta {
        encoding_version: ENCODING_VERSION,
        channels: opts.channels,
        layers: opts.layers,
        player: player.to_string(),
        train_games: train_g.len(),
        val_games: val_g.len(),
        test_games: test_g.len(),
        train_dates: (date_text(train_g.first()), date_text(train_g.last())),
        train_positions: train_s.len(),
        epochs: reports.len(),
        seed: fit.seed,
        val_top1,
        val_top3,
        test_top1,
        test_top3,
    };
    save(&net, &meta, fit.dir)
        .with_context(|| format!("cannot save the model in {}", fit.dir.display()))?;
    say!("model saved in {}", fit.dir.display());
    Ok(Predictor::from_net(net, meta))
}

/// The player's model: `DATA_DIR/models/PLAYER` if trained, else the one shipped in
/// `models/` for the shared player, installed there on first use (Burn reads weights
/// lazily from the file, so it must stay on disk).
/// `Ok(None)` when the player has no model; a model that is there but cannot be installed
/// or loaded is an error (not "no model").
pub fn load_model(store_args: &StoreArgs, player: &str) -> anyhow::Result<Option<Predictor>> {
    let dir = model_dir(store_args, player)?;
    if !dir.join("meta.json").exists() {
        let Some((weights, meta)) = shipped(player) else {
            return Ok(None);
        };
        install_shipped(weights, meta, &dir)
            .with_context(|| format!("cannot install the shipped model in {}", dir.display()))?;
    }
    let model = Predictor::load(&dir)
        .with_context(|| format!("cannot load {player}'s model from {}", dir.display()))?;
    Ok(Some(model))
}

/// The model shipped for `player` (weights, meta.json), if there is one.
fn shipped(player: &str) -> Option<(&'static [u8], &'static str)> {
    const SHIPPED: &[(&str, &[u8], &str)] = &[(
        "Biskupstunga",
        include_bytes!("../../../models/biskupstunga/model.bpk"),
        include_str!("../../../models/biskupstunga/meta.json"),
    )];
    SHIPPED
        .iter()
        .find(|(p, _, _)| p.eq_ignore_ascii_case(player))
        .map(|(_, w, m)| (*w, *m))
}

/// Writes a shipped model into `dir`.
fn install_shipped(weights: &[u8], meta: &str, dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    std::fs::write(dir.join("model.bpk"), weights)?;
    // meta.json last: its presence marks a complete model.
    std::fs::write(dir.join("meta.json"), meta)
}
