//! `mirror train`: fit the CNN fallback on a player's stored games (see
//! `mirror_model::fit`), with a progress bar, and print its report.

use std::{path::PathBuf, process::ExitCode, sync::Arc};

use anyhow::Context;
use clap::Args;
use mirror_core::{GameRecord, split::Fractions};
use mirror_eval::{report::SplitInfo, tune::choose_and_record};
use mirror_model::{
    Predictor,
    fit::{FitEvent, FitOptions},
    fit_text,
};
use mirror_store::embedded::OpenMode;
use shakmaty::Color;

use crate::args::StoreArgs;

/// The player and how their games are split by date, shared by `train` and `eval`.
#[derive(Args, Debug)]
pub struct PlayerSplit {
    /// The player.
    #[arg(long, short = 'u')]
    pub user: String,
    /// Percent of games (oldest first) for training, validation and test.
    #[arg(long, default_value = "80,10,10")]
    pub split: Fractions,
}

#[derive(Args, Debug)]
pub struct TrainArgs {
    #[command(flatten)]
    pub who: PlayerSplit,
    /// Seed of initialisation, shuffling and subsampling.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Training positions at most (a seeded random subset when there are more).
    #[arg(long, default_value_t = mirror_model::fit::TRAIN_POSITIONS)]
    pub max_positions: usize,
    #[command(flatten)]
    pub start: StartArgs,
    #[command(flatten)]
    pub opts: TrainOpts,
    /// Where to save the model (default: DATA_DIR/models/PLAYER).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Do not train: keep the model in --out (or DATA_DIR/models/PLAYER), trained on this
    /// split, and only choose its weight in the book on the split's validation games (as
    /// every training does at its end).
    #[arg(long)]
    pub book_weight_only: bool,
}

/// Where a player's training starts, shared by `train` and `eval --train`.
#[derive(Args, Debug, Clone)]
pub struct StartArgs {
    /// The model to fine-tune on the player's games: `population` (the population base
    /// shipped with mirror, the default) or a directory with meta.json and model.bpk
    /// (e.g. one written by `mirror pretrain`); its shape is kept.
    #[arg(long, value_name = "population|DIR")]
    pub base: Option<PathBuf>,
    /// Start from a fresh network (of --channels x --layers) instead of the base.
    #[arg(long, conflicts_with = "base")]
    pub from_scratch: bool,
    /// Train on only the player's last N training games (validation and test games stay
    /// the split's): to measure how the model grows with the number of games.
    #[arg(long, value_name = "N")]
    pub max_train_games: Option<usize>,
    /// After the training, stages of one more epoch each on only the player's last N
    /// training games, in the order given, each kept if validation top-1 rises (their
    /// latest habits weigh more); 0: none.
    #[arg(
        long,
        value_name = "N,N",
        value_delimiter = ',',
        default_value = "5000,2000"
    )]
    pub recent_games: Vec<usize>,
    /// The learning rate of those epochs.
    #[arg(long, default_value_t = 1e-4)]
    pub recent_lr: f64,
}

impl StartArgs {
    /// The fit's options: `opts`' hyperparameters from where this says to start.
    pub fn fit_options(
        &self,
        store_args: &StoreArgs,
        opts: &TrainOpts,
        max_positions: usize,
        seed: u64,
    ) -> anyhow::Result<FitOptions> {
        let base = self.base_dir(store_args)?;
        opts.refuse_shape_with_base(base.as_deref(), "add --from-scratch")?;
        Ok(FitOptions {
            max_train_games: self.max_train_games,
            recent_games: self.recent_games.clone(),
            recent_lr: self.recent_lr,
            ..opts.fit_options(base, max_positions, seed, mirror_model::fit::TRAIN_EPOCHS)?
        })
    }

    /// The directory of the model to start from (`None`: from scratch); `population` is
    /// installed first if it is not yet.
    pub fn base_dir(&self, store_args: &StoreArgs) -> anyhow::Result<Option<PathBuf>> {
        let root = store_args.data_dir()?.join("models");
        mirror_model::library::start_dir(&root, self.base.as_deref(), self.from_scratch)
            .with_context(|| {
                format!(
                    "cannot install the population base model in {}",
                    root.display()
                )
            })
    }
}

/// Hyperparameters shared by `train`, `eval --train` and `pretrain`.
#[derive(Args, Debug, Clone)]
pub struct TrainOpts {
    /// Epochs (the learning rate falls over all of them; early stopping on validation
    /// top-1 may stop sooner) [default: 3 for train and eval --train, 1 for pretrain].
    #[arg(long)]
    pub epochs: Option<usize>,
    /// Mini-batch size.
    #[arg(long, default_value_t = 256)]
    pub batch: usize,
    /// Adam's learning rate.
    #[arg(long, default_value_t = 1e-3)]
    pub lr: f64,
    /// Hidden channels of a fresh network [default: 64].
    #[arg(long)]
    pub channels: Option<usize>,
    /// Hidden convolution layers of a fresh network [default: 6].
    #[arg(long)]
    pub layers: Option<usize>,
    /// Epochs without improvement before stopping.
    #[arg(long, default_value_t = 2)]
    pub patience: usize,
}

impl TrainOpts {
    /// Refuses --channels and --layers when training starts from `base` (a fine-tune keeps
    /// the base's shape); `remedy` says what the command should do instead (pretrain calls
    /// it before sampling games, train and eval --train through [`StartArgs::fit_options`]).
    pub fn refuse_shape_with_base(
        &self,
        base: Option<&std::path::Path>,
        remedy: &str,
    ) -> anyhow::Result<()> {
        if let (Some(dir), true) = (base, self.channels.is_some() || self.layers.is_some()) {
            anyhow::bail!(
                "--channels and --layers shape a fresh network, but training starts from the model in {} (its own shape): {remedy}",
                dir.display()
            );
        }
        Ok(())
    }

    /// The fit's options with these hyperparameters (`default_epochs` unless --epochs is
    /// given), starting from `base` (its shape: the caller has refused --channels and
    /// --layers with it, [`TrainOpts::refuse_shape_with_base`]), on all the training games.
    pub fn fit_options(
        &self,
        base: Option<PathBuf>,
        max_positions: usize,
        seed: u64,
        default_epochs: usize,
    ) -> anyhow::Result<FitOptions> {
        Ok(FitOptions {
            epochs: self.epochs.unwrap_or(default_epochs),
            batch: self.batch,
            lr: self.lr,
            channels: self.channels.unwrap_or(64),
            layers: self.layers.unwrap_or(6),
            patience: self.patience,
            max_positions,
            seed,
            base,
            max_train_games: None,
            recent_games: Vec::new(),
            recent_lr: 0.0,
        })
    }
}

/// The models of this invocation's data directory.
pub fn models(store_args: &StoreArgs) -> anyhow::Result<mirror_model::library::Models> {
    Ok(mirror_model::library::Models::under(
        &store_args.data_dir()?,
    ))
}

/// The model directory of a player under the data directory.
pub fn model_dir(store_args: &StoreArgs, player: &str) -> anyhow::Result<PathBuf> {
    Ok(models(store_args)?.dir_of(player)?)
}

/// The player's model (trained, or the shipped one installed on first use); `Ok(None)`
/// when they have none.
pub fn load_model(store_args: &StoreArgs, player: &str) -> anyhow::Result<Option<Predictor>> {
    Ok(models(store_args)?.load(player)?)
}

/// The models that play for players outside their book, loaded once per process
/// ([`mirror_model::library::ModelCache`]; a data directory that cannot be found is the
/// error of the first load, as a model that cannot be read is).
pub struct FallbackModels(Result<mirror_model::library::ModelCache, String>);

impl FallbackModels {
    /// Nothing loaded yet.
    pub fn new(store_args: &StoreArgs) -> FallbackModels {
        FallbackModels(
            models(store_args)
                .map(|m| m.cache())
                .map_err(|e| format!("{e:#}")),
        )
    }

    /// The model that plays for `player`; the flag says whether it is their own.
    pub fn load(&self, player: &str) -> anyhow::Result<(Arc<Predictor>, bool)> {
        let cache = self.0.as_ref().map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(cache.load_player(player)?)
    }
}

pub fn run(store_args: &StoreArgs, args: TrainArgs) -> anyhow::Result<ExitCode> {
    let store = store_args.open(OpenMode::MustExist)?;
    let player = mirror_store::require_player(&store, &args.who.user)?;
    let games = store.games(&player)?;
    let dir = match &args.out {
        Some(d) => d.clone(),
        None => model_dir(store_args, &player)?,
    };
    if args.book_weight_only {
        let mut model = Predictor::load(&dir)
            .with_context(|| format!("cannot load the model in {}", dir.display()))?;
        let split = args.who.split;
        let info = SplitInfo::new(&games, split, "validation");
        // The weight is chosen on games the model did not learn.
        mirror_eval::book::check_model(&model, &dir, &player, &info)?;
        for line in choose_and_record(&player, &games, split, &mut model, &dir)? {
            println!("{line}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    fit(
        &player,
        &games,
        args.who.split,
        &args
            .start
            .fit_options(store_args, &args.opts, args.max_positions, args.seed)?,
        &dir,
        (false, true),
    )?;
    Ok(ExitCode::SUCCESS)
}

/// Trains with a progress bar, printing the report on stdout (stderr with
/// `report_to_stderr`, e.g. for `eval --json`); with `choose`, records the player's book
/// weight and dial (never a base's: they would play for every player without a model).
pub fn fit(
    player: &str,
    games: &[(GameRecord, Color)],
    split: Fractions,
    opts: &FitOptions,
    dir: &std::path::Path,
    (report_to_stderr, choose): (bool, bool),
) -> anyhow::Result<Predictor> {
    let say = |line: &str| {
        if report_to_stderr {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    };
    // One bar over the whole training (its epochs, then its stages on the last games), so
    // its ETA is the whole training's: at most, as early stopping may end the epochs sooner.
    let bar = crate::args::bar(
        Some(0),
        "epoch {msg} [{bar:30}] {pos}/{len} batches, {elapsed_precise} elapsed, ETA {eta_precise}",
    );
    let mut tracker = fit_text::Tracker::default();
    let fitted =
        mirror_model::fit::fit(player, games, split, opts, dir, &mut |event| match event {
            FitEvent::Plan(parts) => bar.set_length(tracker.plan(&parts, opts.epochs)),
            stage @ FitEvent::Stage { .. } => {
                if let Some(line) = fit_text::line(player, &stage) {
                    bar.suspend(|| say(&line));
                }
                tracker.stage();
            }
            FitEvent::Progress(r, done, total) => {
                let step = tracker.progress(r, done, total, bar.is_hidden());
                bar.set_position(step.position);
                if let Some(m) = step.message {
                    bar.set_message(m);
                }
                if step.tenth {
                    let elapsed = indicatif::HumanDuration(bar.elapsed()).to_string();
                    let eta = indicatif::HumanDuration(bar.eta()).to_string();
                    say(&tracker.tenth_line(r, (done, total.max(1)), (&elapsed, &eta)));
                }
                if let Some(line) = step.done {
                    if bar.is_hidden() {
                        say(&line);
                    } else {
                        bar.println(line);
                    }
                }
            }
            other => {
                if let Some(line) = fit_text::line(player, &other) {
                    bar.suspend(|| say(&line));
                }
            }
        });
    bar.finish_and_clear();
    let mut model = fitted.with_context(|| format!("cannot train {player}'s model"))?;
    if choose {
        for line in choose_and_record(player, games, split, &mut model, dir)? {
            say(&line);
        }
    }
    Ok(model)
}
