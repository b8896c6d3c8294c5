//! Training a player's model end to end: split their games by date, build samples (the
//! training set subsampled, validation capped), train with early stopping, measure the
//! test games outside and inside the training tree against baselines (random legal move,
//! the player's most played UCI move), and save the model with its metadata.

use std::{
    collections::{HashMap, HashSet},
    path::Path,
};

use mirror_core::{
    Date, GameRecord, PositionKey,
    notation::uci,
    split::{Fractions, date_range},
};
use rand::{SeedableRng, seq::SliceRandom};
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Color, Position, Role};

use crate::{
    ModelError, ModelMeta, NetConfig, Predictor,
    data::Samples,
    encoding::ENCODING_VERSION,
    inference::{load_net, save},
    model::Net,
    training::{EpochReport, TrainConfig, batches_per_epoch, evaluate, train, training_device},
    value::value_figures,
};

/// A stage on the last games: those games and their samples.
type Stage<'g> = (&'g [(GameRecord, Color)], Samples);

/// The network a fit starts from, with its validation top-1 and top-3 (`None`: a fresh
/// one).
type Start = Option<(Net, (f64, f64))>;

/// Training positions of a player's training by default (`mirror train`, `mirror eval --train`):
/// with the value head, 600,000 of the shared 27k-game player's train end to end in 58
/// minutes on 2 cores (700,000 took 63), to the same validation top-1 (docs/model.md).
pub const TRAIN_POSITIONS: usize = 600_000;

/// Epochs of a player's training by default (`mirror train`, `mirror eval --train`): [`TRAIN_POSITIONS`]
/// of the shared 27k-game player's three times, then the stages on the last games, fit in
/// the hour (docs/model.md).
pub const TRAIN_EPOCHS: usize = 3;

/// Hyperparameters and limits of a fit.
#[derive(Clone, Debug)]
pub struct FitOptions {
    /// Most epochs (early stopping on validation top-1 may stop sooner).
    pub epochs: usize,
    /// Mini-batch size.
    pub batch: usize,
    /// Adam's learning rate.
    pub lr: f64,
    /// Hidden channels.
    pub channels: usize,
    /// Hidden convolution layers.
    pub layers: usize,
    /// Epochs without improvement before stopping.
    pub patience: usize,
    /// Training positions at most (a seeded random subset when there are more).
    pub max_positions: usize,
    /// Seed of initialisation, shuffling and subsampling.
    pub seed: u64,
    /// A saved model to start from (fine-tuning, e.g. the population base) instead of a
    /// fresh network; its shape replaces `channels` and `layers`.
    pub base: Option<std::path::PathBuf>,
    /// Train on only the player's last this many training games (validation and test
    /// stay the split's): how the model does with fewer games.
    pub max_train_games: Option<usize>,
    /// After the training, stages of one more epoch each on only the last this many
    /// training games, in order, at `recent_lr`, each kept if it raises validation top-1
    /// (a player's habits drift: the latest games say most about the next ones); empty or
    /// 0: none.
    pub recent_games: Vec<usize>,
    /// The learning rate of those epochs.
    pub recent_lr: f64,
}

/// A model's top-1 and top-3 shares (0..1) on some positions: how often the move played
/// was its first choice, and among its first three.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Top {
    /// Share of positions where the move played was the first choice.
    pub top1: f64,
    /// Share where it was among the first three.
    pub top3: f64,
}

impl From<(f64, f64)> for Top {
    fn from((top1, top3): (f64, f64)) -> Top {
        Top { top1, top3 }
    }
}

/// How a fit's games were split by date, and the positions each part gave.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitFigures {
    /// Games in all.
    pub games: usize,
    /// Games of the training part.
    pub train_games: usize,
    /// Training positions used (after subsampling).
    pub train_positions: usize,
    /// Games of the validation part.
    pub val_games: usize,
    /// Validation positions.
    pub val_positions: usize,
    /// Games of the test part.
    pub test_games: usize,
    /// Test positions outside the training tree (where the model plays).
    pub test_outside: usize,
    /// Test positions inside it.
    pub test_inside: usize,
}

/// The trained model on the test positions, beside the baselines, and the player's
/// promotions (see [`promotions`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TestFigures {
    /// Test positions outside the training tree.
    pub outside: usize,
    /// The model there.
    pub model: Top,
    /// A random legal move there.
    pub random: Top,
    /// The player's most played UCI move there.
    pub habit: Top,
    /// Test positions inside the training tree.
    pub inside: usize,
    /// The model there.
    pub model_inside: Top,
    /// The player's promotions in the training games (knight, bishop, rook, queen).
    pub promotions_train: [usize; 4],
    /// And in the test games.
    pub promotions_test: [usize; 4],
}

/// What a fit reports as it goes, in order: the split, the base (when fine-tuning), the
/// plan and progress of the training, each stage on the last games, the test and value
/// figures, where the model was saved. The binary words them.
pub enum FitEvent<'a> {
    /// The games split by date.
    Split(SplitFigures),
    /// Fine-tuning starts from the base model in `dir`, described by `meta`; without a
    /// value head it gets a new one (`new_value_head`).
    Base {
        /// The base's metadata.
        meta: &'a ModelMeta,
        /// Where it was read from.
        dir: &'a Path,
        /// The base had no value head: a new one learns the outcomes beside the moves.
        new_value_head: bool,
    },
    /// The base alone on the player's validation positions.
    BaseFigures(Top),
    /// No epoch beat the base on the validation positions: the base is kept as it is
    /// (its validation figures).
    BaseKept(Top),
    /// The training ahead, before it starts: the batches of each of its parts in order
    /// (the epochs, then each stage on the last games that will run), each at most (early
    /// stopping may end the epochs sooner). For an ETA of the whole training.
    Plan(Vec<usize>),
    /// Training progress in the current part: the epoch's report so far, the epoch's
    /// batches done and in all.
    Progress(&'a EpochReport, usize, usize),
    /// A stage on the last `asked` training games was not run: there are only
    /// `train_games` (all of them were learnt).
    NoStage {
        /// The games asked for.
        asked: usize,
        /// Games of the training part.
        train_games: usize,
    },
    /// The next part of the plan begins, a stage on the last games: progress starts again
    /// from its first epoch.
    Stage {
        /// The stage's games.
        games: usize,
        /// Their positions.
        positions: usize,
        /// The date of the first of them, when known.
        from: Option<Date>,
        /// The stage's learning rate.
        lr: f64,
    },
    /// A stage ended: validation top-1 before and after, and whether it was kept (only
    /// a stage that raises it is).
    StageDone {
        /// The stage's games.
        games: usize,
        /// Validation top-1 before the stage.
        before: f64,
        /// After it.
        after: f64,
        /// Whether the stage's network was kept.
        kept: bool,
    },
    /// The test figures.
    Test(TestFigures),
    /// The value head's figures on the validation positions.
    Value(&'a crate::value::ValueFigures),
    /// The model was saved in this directory.
    Saved(&'a Path),
}

/// `train`'s progress as [`FitEvent::Progress`] events.
fn progress<'e>(
    events: &'e mut dyn FnMut(FitEvent<'_>),
) -> impl FnMut(&EpochReport, usize, usize) + 'e {
    move |r, done, total| events(FitEvent::Progress(r, done, total))
}

/// The games among `sides`, each counted once though it may be learnt from both sides (a
/// population model's): what a model's metadata and report call games.
fn games_in(sides: &[(GameRecord, Color)]) -> usize {
    sides
        .iter()
        .map(|(g, _)| &g.id)
        .collect::<HashSet<_>>()
        .len()
}

/// The entries of the last `n` games among `sides`, both sides of a game (a population's,
/// next to each other) counting as one game.
fn last_games(sides: &[(GameRecord, Color)], n: usize) -> &[(GameRecord, Color)] {
    let (mut start, mut games) = (sides.len(), 0);
    while start > 0 {
        if start == sides.len() || sides[start - 1].0.id != sides[start].0.id {
            if games == n {
                break;
            }
            games += 1;
        }
        start -= 1;
    }
    &sides[start..]
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
                let u = uci(m);
                (m, habits.get(&u).copied().unwrap_or(0))
            })
            .collect();
        moves.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| uci(a.0).cmp(&uci(b.0))));
        let hit = |m: &shakmaty::Move| {
            crate::encoding::move_index(m, turn).is_some_and(|k| k as i64 == s.label[i])
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

/// Trains `player`'s model on the split's training games with early stopping on its
/// validation games, reports test figures against baselines through `events`, and saves
/// the model in `dir`.
pub fn fit(
    player: &str,
    games: &[(GameRecord, Color)],
    split: Fractions,
    opts: &FitOptions,
    dir: &Path,
    events: &mut dyn FnMut(FitEvent<'_>),
) -> Result<Predictor, ModelError> {
    let parts = parts(player, games, split, opts)?;
    let Parts {
        train: train_g,
        val: val_g,
        test: test_g,
        ..
    } = parts;
    let (train_s, val_s) = (&parts.train_s, &parts.val_s);
    events(FitEvent::Split(SplitFigures {
        games: games_in(games),
        train_games: games_in(train_g),
        train_positions: train_s.len(),
        val_games: games_in(val_g),
        val_positions: val_s.len(),
        test_games: games_in(test_g),
        test_outside: parts.test_out.len(),
        test_inside: parts.test_in.len(),
    }));
    let (net_cfg, start, base) = start_net(opts, val_s, events)?;
    let cfg = TrainConfig {
        epochs: opts.epochs,
        batch: opts.batch,
        lr: opts.lr,
        seed: opts.seed,
        patience: opts.patience,
    };
    // The stages on the last games, prepared now so that the plan counts their batches.
    let train_games = games_in(train_g);
    let stages = stages_on_last_games(train_g, &opts.recent_games);
    let recent_cfg = TrainConfig {
        epochs: 1,
        lr: opts.recent_lr,
        ..cfg
    };
    events(FitEvent::Plan(plan(&cfg, train_s, &recent_cfg, &stages)));
    let base_figures = start.as_ref().map(|(_, figures)| *figures);
    let (net, mut reports, kept) = train(
        &net_cfg,
        &cfg,
        start.map(|(net, (top1, _))| (net, top1)),
        train_s,
        val_s,
        &mut progress(events),
    );
    let (val_top1, val_top3) = kept_figures(kept.map(|at| &reports[at]), base_figures, events);
    let run = StageRun {
        net_cfg: &net_cfg,
        cfg: &recent_cfg,
        val_s,
        train_games,
    };
    let (net, val_top1, val_top3, recent_games) = recent_stages(
        &run,
        (net, val_top1, val_top3),
        &stages,
        &mut reports,
        events,
    );
    let (test_top1, test_top3) = test_figures(&net, &parts, events);
    let value = value_figures(&net, train_s, val_s);
    if let Some(v) = &value {
        events(FitEvent::Value(v));
    }
    let meta = ModelMeta {
        encoding_version: ENCODING_VERSION,
        channels: net_cfg.channels,
        layers: net_cfg.layers,
        player: player.to_string(),
        train_games: games_in(train_g),
        val_games: games_in(val_g),
        test_games: games_in(test_g),
        train_dates: date_range(train_g),
        train_positions: train_s.len(),
        epochs: reports.len(),
        seed: opts.seed,
        val_top1,
        val_top3,
        test_top1,
        test_top3,
        base,
        recent_games,
        book_prior: None,
        search: None,
        temperature: None,
        value_head: net.has_value_head(),
        value,
    };
    save(&net, &meta, dir)?;
    events(FitEvent::Saved(dir));
    Ok(Predictor::from_net(net, meta))
}

/// A fit's games split by date, and their samples.
struct Parts<'g> {
    train: &'g [(GameRecord, Color)],
    val: &'g [(GameRecord, Color)],
    test: &'g [(GameRecord, Color)],
    /// Training positions (subsampled).
    train_s: Samples,
    /// Validation positions (at most 20,000).
    val_s: Samples,
    /// Test positions outside the training tree.
    test_out: Samples,
    /// Test positions inside it.
    test_in: Samples,
    /// The player's moves in the training games by UCI, for the habit baseline.
    habits: HashMap<String, u32>,
}

/// Splits `player`'s `games` by date (both sides of a game in one part) and builds the
/// samples; refuses too few games, and a game that does not replay.
fn parts<'g>(
    player: &str,
    games: &'g [(GameRecord, Color)],
    split: Fractions,
    opts: &FitOptions,
) -> Result<Parts<'g>, ModelError> {
    if games.len() < 30 {
        return Err(ModelError::TooFewGames {
            player: player.to_string(),
            games: games.len(),
        });
    }
    // Every game replays in full, so what reads them below loses no move.
    for (g, _) in games {
        g.check_replay().map_err(|source| ModelError::Replay {
            game: g.id.0.clone(),
            source,
        })?;
    }
    let sp = split.split(games.len());
    // Both sides of a game (a population's) stay in one part: a cut between them moves on.
    let cut = |mut i: usize| {
        while i > 0 && i < games.len() && games[i].0.id == games[i - 1].0.id {
            i += 1;
        }
        i
    };
    let (a, b) = (cut(sp.train.end), cut(sp.val.end));
    let (mut train_g, val_g, test_g) = (&games[..a], &games[a..b.max(a)], &games[b.max(a)..]);
    if let Some(n) = opts.max_train_games {
        train_g = last_games(train_g, n);
    }
    if val_g.is_empty() {
        return Err(ModelError::NoValidationGames(split.to_string()));
    }
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
    let train_s = subsample(train_s, opts.max_positions, opts.seed);
    let mut val_s = Samples::default();
    for (g, c) in val_g {
        val_s.add_game(g, *c, |_| true);
    }
    let val_s = subsample(val_s, 20_000, opts.seed);
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
    Ok(Parts {
        train: train_g,
        val: val_g,
        test: test_g,
        train_s,
        val_s,
        test_out,
        test_in,
        habits,
    })
}

/// The network to start from (the base, with its figures on the validation positions),
/// or a fresh one's shape; and the base's summary.
fn start_net(
    opts: &FitOptions,
    val_s: &Samples,
    events: &mut dyn FnMut(FitEvent<'_>),
) -> Result<(NetConfig, Start, Option<String>), ModelError> {
    Ok(match &opts.base {
        Some(dir) => {
            let device = training_device();
            device.seed(opts.seed);
            let (net, meta) = load_net(dir, &device)?;
            events(FitEvent::Base {
                meta: &meta,
                dir,
                new_value_head: !net.has_value_head(),
            });
            let net = net.with_value_head(&device);
            let (top1, top3) = evaluate(&net, val_s);
            events(FitEvent::BaseFigures(Top { top1, top3 }));
            (
                meta.net_config().with_value(true),
                Some((net, (top1, top3))),
                Some(meta.summary()),
            )
        }
        None => (
            NetConfig::new()
                .with_channels(opts.channels)
                .with_layers(opts.layers),
            None,
            None,
        ),
    })
}

/// The batches of each training: the first, then each stage on the last games.
fn plan(
    cfg: &TrainConfig,
    train_s: &Samples,
    recent_cfg: &TrainConfig,
    stages: &[(usize, Option<Stage<'_>>)],
) -> Vec<usize> {
    let mut plan = vec![cfg.epochs.max(1) * batches_per_epoch(train_s.len(), cfg.batch)];
    plan.extend(stages.iter().filter_map(|(_, stage)| {
        stage.as_ref().map(|(_, recent_s)| {
            recent_cfg.epochs * batches_per_epoch(recent_s.len(), recent_cfg.batch)
        })
    }));
    plan
}

/// The validation figures of the network the training gave back: its kept epoch's, else
/// the base's (no epoch beat it, which is said).
fn kept_figures(
    kept: Option<&EpochReport>,
    base_figures: Option<(f64, f64)>,
    events: &mut dyn FnMut(FitEvent<'_>),
) -> (f64, f64) {
    match kept {
        Some(r) => (r.val_top1, r.val_top3),
        None => {
            let base = base_figures.expect("without a start, train keeps an epoch");
            events(FitEvent::BaseKept(base.into()));
            base
        }
    }
}

/// What every stage on the last games shares.
#[derive(Clone, Copy)]
struct StageRun<'a> {
    net_cfg: &'a NetConfig,
    /// One epoch at the stages' learning rate.
    cfg: &'a TrainConfig,
    val_s: &'a Samples,
    /// Games of the training part.
    train_games: usize,
}

/// The stages on the last `recent` training games (each `None` when there are not that
/// many), prepared before the training so that its plan counts their batches.
fn stages_on_last_games<'g>(
    train_g: &'g [(GameRecord, Color)],
    recent: &[usize],
) -> Vec<(usize, Option<Stage<'g>>)> {
    let train_games = games_in(train_g);
    recent
        .iter()
        .filter(|&&n| n > 0)
        .map(|&n| {
            let stage = (n < train_games).then(|| {
                let recent_g = last_games(train_g, n);
                let mut recent_s = Samples::default();
                for (g, c) in recent_g {
                    recent_s.add_game(g, *c, |_| true);
                }
                (recent_g, recent_s)
            });
            (n, stage)
        })
        .collect()
}

/// The stages on the last games after the training, each kept only if it raises
/// validation top-1 (its epochs join `reports`); returns the network, its validation
/// figures and the stages kept (their games).
fn recent_stages(
    run: &StageRun<'_>,
    (mut net, mut val_top1, mut val_top3): (Net, f64, f64),
    stages: &[(usize, Option<Stage<'_>>)],
    reports: &mut Vec<EpochReport>,
    events: &mut dyn FnMut(FitEvent<'_>),
) -> (Net, f64, f64, Vec<usize>) {
    let StageRun {
        net_cfg,
        cfg: recent_cfg,
        val_s,
        train_games,
    } = *run;
    // The stages on the last games, each kept only if it raises validation top-1.
    let mut recent_games = Vec::new();
    for (n, stage) in stages {
        let Some((recent_g, recent_s)) = stage else {
            events(FitEvent::NoStage {
                asked: *n,
                train_games,
            });
            continue;
        };
        events(FitEvent::Stage {
            games: games_in(recent_g),
            positions: recent_s.len(),
            from: recent_g.first().and_then(|(g, _)| g.date),
            lr: recent_cfg.lr,
        });
        // `train` gives the network back unchanged unless the epoch raises validation top-1.
        let (tuned, more, tuned_kept) = train(
            net_cfg,
            recent_cfg,
            Some((net.clone(), val_top1)),
            recent_s,
            val_s,
            &mut progress(events),
        );
        let epoch = more.last().expect("train runs at least one epoch");
        let kept = tuned_kept.is_some();
        events(FitEvent::StageDone {
            games: games_in(recent_g),
            before: val_top1,
            after: epoch.val_top1,
            kept,
        });
        if kept {
            (net, val_top1, val_top3) = (tuned, epoch.val_top1, epoch.val_top3);
            reports.extend(more);
            recent_games.push(games_in(recent_g));
        }
    }
    (net, val_top1, val_top3, recent_games)
}

/// The model's figures on the test positions (outside and inside the training tree)
/// beside the random and habit baselines, and the promotions, as an event; returns its
/// test top-1 and top-3 outside the tree.
fn test_figures(net: &Net, parts: &Parts<'_>, events: &mut dyn FnMut(FitEvent<'_>)) -> (f64, f64) {
    let (test_out, test_in, habits) = (&parts.test_out, &parts.test_in, &parts.habits);
    let (test_top1, test_top3) = evaluate(net, test_out);
    events(FitEvent::Test(TestFigures {
        outside: test_out.len(),
        model: Top {
            top1: test_top1,
            top3: test_top3,
        },
        random: random_baseline(test_out).into(),
        habit: habit_baseline(test_out, habits).into(),
        inside: test_in.len(),
        model_inside: evaluate(net, test_in).into(),
        promotions_train: promotions(parts.train),
        promotions_test: promotions(parts.test),
    }));
    (test_top1, test_top3)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirror_core::{GameId, GameResult, PlayerSide, TimeClass};

    fn game(id: &str) -> GameRecord {
        let side = |name: &str| PlayerSide {
            name: name.to_string(),
            rating: None,
        };
        GameRecord {
            id: GameId(id.to_string()),
            white: side("w"),
            black: side("b"),
            result: GameResult::Draw,
            time_class: TimeClass::Blitz,
            rated: true,
            date: None,
            moves: Vec::new(),
            times: Vec::new(),
            evals: Vec::new(),
        }
    }

    #[test]
    fn the_last_games_count_games_not_sides() {
        // A population's games are learnt from both sides, next to each other.
        let both: Vec<_> = ["a", "b", "c"]
            .iter()
            .flat_map(|id| [(game(id), Color::White), (game(id), Color::Black)])
            .collect();
        let ids =
            |s: &[(GameRecord, Color)]| s.iter().map(|(g, _)| g.id.0.clone()).collect::<Vec<_>>();
        assert_eq!(ids(last_games(&both, 2)), ["b", "b", "c", "c"]);
        assert_eq!(games_in(last_games(&both, 2)), 2);
        assert_eq!(last_games(&both, 0).len(), 0);
        assert_eq!(
            last_games(&both, 9).len(),
            6,
            "all of them when asked for more"
        );
        // A player's games: one side each.
        let one: Vec<_> = ["a", "b", "c"]
            .iter()
            .map(|id| (game(id), Color::White))
            .collect();
        assert_eq!(ids(last_games(&one, 2)), ["b", "c"]);
    }
}
