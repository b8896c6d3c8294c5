//! `mirror eval`: split the player's games by date, build their book from the training
//! games only, and measure every predictor on the test games (see `mirror_eval`).

use std::{path::PathBuf, process::ExitCode, sync::Arc};

use anyhow::Context;
use clap::{Args, ValueEnum};
use mirror_engine::EngineOptions;
use mirror_eval::{EvalConfig, Phase, evaluate};
use mirror_model::Predictor;
use mirror_store::embedded::OpenMode;

use crate::{
    args::StoreArgs,
    engine_cfg::EngineKnobs,
    train::TrainOpts,
    train::{fit, load_model, model_dir},
};

/// The games `mirror eval` measures on.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum EvalOn {
    /// The newest games.
    Test,
    /// The games between training and test.
    Validation,
}

#[derive(Args, Debug)]
pub struct EvalArgs {
    #[command(flatten)]
    pub who: crate::train::PlayerSplit,
    /// Seed of the engine's choices, the judged sample and (with --train) training.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Evaluate at most this many test positions (oldest test games first).
    #[arg(long)]
    pub max_positions: Option<usize>,
    /// Which games to evaluate: the test games, or the validation games (to tune options
    /// without looking at the test games).
    #[arg(long, value_enum, default_value_t = EvalOn::Test)]
    pub on: EvalOn,
    /// Train the model on this split first (saved where --model points).
    #[arg(long)]
    pub train: bool,
    /// With --train: training positions at most.
    #[arg(long, default_value_t = mirror_model::fit::TRAIN_POSITIONS)]
    pub train_positions: usize,
    #[command(flatten)]
    pub start: crate::train::StartArgs,
    #[command(flatten)]
    pub opts: TrainOpts,
    /// The model's directory (default: DATA_DIR/models/PLAYER); it must have been trained
    /// on the same split.
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Evaluate without a model (the engine's fallback is then a random legal move).
    #[arg(long, conflicts_with = "train")]
    pub no_model: bool,
    /// Stockfish for the depth-1 baseline and the mistake judge (default: `stockfish` on
    /// PATH or /usr/games/stockfish, if present).
    #[arg(long, env = "MIRROR_STOCKFISH")]
    pub stockfish: Option<PathBuf>,
    /// Do not use Stockfish even if it is installed.
    #[arg(long, conflicts_with = "stockfish")]
    pub no_stockfish: bool,
    /// Depth of the mistake judge.
    #[arg(long, default_value_t = 8)]
    pub judge_depth: u32,
    /// Judge at most this many positions (a seeded random sample of the evaluated ones).
    #[arg(long)]
    pub judge_positions: Option<usize>,
    /// Stockfish processes judging at once.
    #[arg(long, default_value_t = 2)]
    pub judge_threads: usize,
    /// The engine's options, as for `play` (with habit/likely, --recent-months counts the
    /// player's last training months).
    #[command(flatten)]
    pub knobs: EngineKnobs,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// The model evaluated: none (`--no-model`), trained now (`--train`), the one in
/// `--model DIR`, or the player's own; checked to have been trained on this split.
fn eval_model(
    store_args: &StoreArgs,
    args: &EvalArgs,
    player: &str,
    games: &[(mirror_core::GameRecord, shakmaty::Color)],
    info: &mirror_eval::report::SplitInfo,
) -> anyhow::Result<Option<Predictor>> {
    let dir = match &args.model {
        Some(d) => d.clone(),
        None => model_dir(store_args, player)?,
    };
    Ok(if args.no_model {
        None
    } else if args.train {
        Some(fit(
            player,
            games,
            args.who.split,
            &args
                .start
                .fit_options(store_args, &args.opts, args.train_positions, args.seed)?,
            &dir,
            (args.json, true),
        )?)
    } else {
        let p = if args.model.is_some() {
            Predictor::load(&dir)
                .with_context(|| format!("cannot load the model in {}", dir.display()))?
        } else {
            load_model(store_args, player)?.with_context(|| {
                format!(
                    "no model for {player} in {}: pass --train (or --no-model)",
                    dir.display()
                )
            })?
        };
        mirror_eval::book::check_model(&p, &dir, player, info)?;
        Some(p)
    })
}

pub fn run(store_args: &StoreArgs, args: EvalArgs) -> anyhow::Result<ExitCode> {
    let store = store_args.open(OpenMode::MustExist)?;
    let player = mirror_store::require_player(&store, &args.who.user)?;
    anyhow::ensure!(
        !args.knobs.sets("game_time_class"),
        "--game-time-class is for play and uci: eval answers each test position with its own game's time class"
    );
    let mut engine = EngineOptions::default();
    mirror_engine::config::set_flags(&mut engine, &args.knobs.flags())?;
    let games = store.games(&player)?;
    let mirror_eval::report::EvalSplit {
        train,
        measured,
        info,
    } = mirror_eval::report::EvalSplit::new(
        &player,
        &games,
        args.who.split,
        args.on == EvalOn::Validation,
    )?;
    let (train_g, test_g) = (&games[train], &games[measured]);
    let model = eval_model(store_args, &args, &player, &games, &info)?;
    let find = || mirror_engine::stockfish::find(args.stockfish.as_deref());
    let stockfish = if args.no_stockfish { None } else { find()? };
    let tmp = tempfile::tempdir().context("cannot create a temporary directory for the book")?;
    eprintln!(
        "building {player}'s book from {} training games",
        train_g.len()
    );
    let book = mirror_eval::book::book_store(&player, train_g, tmp.path())?;
    let cfg = EvalConfig {
        seed: args.seed,
        max_positions: args.max_positions,
        stockfish,
        judge_depth: args.judge_depth,
        judge_positions: args.judge_positions,
        judge_threads: args.judge_threads,
        engine,
    };
    let bar = crate::args::bar(
        Some(0),
        "{msg} [{bar:30}] {pos}/{len} positions ({per_sec}, eta {eta})",
    );
    let progress = |phase: Phase, done: usize, total: usize| {
        bar.set_message(match phase {
            Phase::Predict => "predicting",
            Phase::Judge => "stockfish judging",
        });
        if bar.length() != Some(total as u64) {
            bar.set_length(total as u64);
            bar.reset_eta();
        }
        bar.set_position(done as u64);
    };
    let mut report = evaluate(&book, &player, test_g, model.map(Arc::new), &cfg, &progress)?;
    bar.finish_and_clear();
    report.split = Some(info);
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.table());
        if report.stockfish.is_none() {
            println!(
                "\n(no Stockfish: pass --stockfish PATH for the depth-1 baseline and the mistake judge)"
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
