//! `mirror pretrain`: a population base model from many players' games (both sides of
//! every game), for players with few games of their own (`mirror train --base DIR`
//! fine-tunes it) and as the mirror's fallback while a player has no model of their own.

use std::{path::PathBuf, process::ExitCode};

use anyhow::Context;
use clap::Args;
use mirror_core::split::Fractions;

use mirror_model::{library::POPULATION, population};

use crate::train::TrainOpts;

#[derive(Args, Debug)]
pub struct PretrainArgs {
    /// PGN files or directories (plain, gzip or zstd), e.g. ../shared/data/pgn/population.
    #[arg(required = true)]
    pub inputs: Vec<PathBuf>,
    /// Games to learn from: a seeded uniform sample of all games read (both sides of
    /// each game are learnt from).
    #[arg(long, default_value_t = 16_000)]
    pub games: usize,
    /// Games with fewer half-moves are left out (aborted and forfeited games).
    #[arg(long, default_value_t = 20)]
    pub min_plies: usize,
    /// Percent of the sampled games (oldest first) for training, validation and test.
    #[arg(long, default_value = "90,5,5")]
    pub split: Fractions,
    /// Leave out every game this player played (either colour; the name as the PGN
    /// writes it, case-insensitive; repeat for each spelling and each player): a base
    /// that has never seen a player, to measure fine-tuning on them fairly.
    #[arg(long = "exclude", value_name = "NAME")]
    pub exclude: Vec<String>,
    /// Seed of the sample, initialisation, shuffling and subsampling.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Training positions at most.
    #[arg(long, default_value_t = 800_000)]
    pub max_positions: usize,
    /// Continue from this model (e.g. models/population) instead of a fresh network: a
    /// pass over another sample (another --seed) makes a base of more positions in steps
    /// that each fit an hour.
    #[arg(long, value_name = "DIR")]
    pub base: Option<PathBuf>,
    #[command(flatten)]
    pub opts: TrainOpts,
    /// Where to save the model.
    #[arg(long)]
    pub out: PathBuf,
}

/// Epochs of a population base by default: each pass of the shipped base is one epoch
/// over its sample's 2,400,000 positions (docs/model.md, "A population base").
const PRETRAIN_EPOCHS: usize = 1;

pub fn run(args: PretrainArgs) -> anyhow::Result<ExitCode> {
    args.opts.refuse_shape_with_base(
        args.base.as_deref(),
        "leave out one or the other (--base, or --channels and --layers)",
    )?;
    let sources = mirror_ingest::expand(&args.inputs)?;
    let inputs = sources
        .iter()
        .map(|s| {
            let input =
                mirror_ingest::source::open(s).with_context(|| format!("cannot read {s}"))?;
            Ok((s.to_string(), input))
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    let bar = crate::args::bar(None, "{spinner} {pos} games read, {per_sec}, {elapsed}");
    let (games, drawn) = population::sample_games(
        inputs,
        args.games,
        args.min_plies,
        &args.exclude,
        args.seed,
        &mut || bar.inc(1),
    )?;
    bar.finish_and_clear();
    println!(
        "{}",
        drawn.describe(games.len(), args.min_plies, &args.exclude)
    );
    let sides = population::both_sides(games);
    crate::train::fit(
        POPULATION,
        &sides,
        args.split,
        &args
            .opts
            .fit_options(args.base, args.max_positions, args.seed, PRETRAIN_EPOCHS)?,
        &args.out,
        (false, false),
    )?;
    Ok(ExitCode::SUCCESS)
}
