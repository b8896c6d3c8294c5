//! `mirror pretrain`: a population base model from many players' games (both sides of
//! every game), for players with few games of their own (`mirror train --base DIR`
//! fine-tunes it) and as the mirror's fallback while a player has no model of their own.

use std::{path::PathBuf, process::ExitCode};

use anyhow::Context;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use mirror_core::{
    GameRecord,
    pgn::{Decoded, read_games},
    split::Fractions,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::Color;

use mirror_model::library::POPULATION;

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

/// The family name a player's name starts or ends with, lowercased: "Karpov, Anatoly",
/// "Karpov,An" and "Anatoly Karpov" all give "karpov"; a one-word name (an online
/// account) is its own.
fn family_name(name: &str) -> String {
    let name = name.trim();
    let family = match name.split_once(',') {
        Some((family, _)) => family,
        None => name
            .rsplit_once(char::is_whitespace)
            .map_or(name, |(_, last)| last),
    };
    family.trim().to_lowercase()
}

/// What [`sample_games`] drew from and left out.
struct Drawn {
    /// Games the sample was drawn from.
    seen: u64,
    /// Games left out as shorter than the minimum.
    short: u64,
    /// Games left out as not standard or not readable.
    bad: u64,
    /// Games left out as played by an excluded player.
    excluded: u64,
    /// Names of players in the games drawn from that share an excluded name's family
    /// name (another spelling of the same player, perhaps), with their games, most first.
    lookalikes: Vec<(String, u64)>,
}

/// A seeded uniform sample of `k` games of the inputs (reservoir sampling), with how many
/// games it was drawn from, how many were left out as too short, not readable, or
/// played by one of the `exclude`d players, and which names left in look like theirs.
fn sample_games(
    inputs: &[PathBuf],
    k: usize,
    min_plies: usize,
    exclude: &[String],
    seed: u64,
) -> anyhow::Result<(Vec<GameRecord>, Drawn)> {
    let sources = mirror_ingest::expand(inputs)?;
    let bar = ProgressBar::new_spinner();
    bar.set_style(
        ProgressStyle::with_template("{spinner} {pos} games read, {per_sec}, {elapsed}")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    // Reserve what a large sample needs, not whatever --games asks for.
    let mut kept: Vec<GameRecord> = Vec::with_capacity(k.min(1 << 20));
    let (mut seen, mut short, mut bad, mut excluded) = (0u64, 0u64, 0u64, 0u64);
    let excluded_player = |g: &GameRecord| {
        [&g.white, &g.black]
            .iter()
            .any(|side| exclude.iter().any(|n| side.name.eq_ignore_ascii_case(n)))
    };
    let families: Vec<String> = exclude.iter().map(|n| family_name(n)).collect();
    let mut lookalikes: std::collections::HashMap<String, u64> = Default::default();
    for source in &sources {
        let input =
            mirror_ingest::source::open(source).with_context(|| format!("cannot read {source}"))?;
        for item in read_games(input) {
            let (_, decoded) = item.with_context(|| format!("cannot read {source}"))?;
            bar.inc(1);
            let game = match decoded {
                Decoded::Game(g) if excluded_player(&g) => {
                    excluded += 1;
                    continue;
                }
                Decoded::Game(g) if g.moves.len() >= min_plies => g,
                Decoded::Game(_) => {
                    short += 1;
                    continue;
                }
                Decoded::Skipped(_) | Decoded::Invalid(_) => {
                    bad += 1;
                    continue;
                }
            };
            seen += 1;
            if !families.is_empty() {
                for side in [&game.white, &game.black] {
                    if families.contains(&family_name(&side.name)) {
                        *lookalikes.entry(side.name.clone()).or_default() += 1;
                    }
                }
            }
            if kept.len() < k {
                kept.push(game);
            } else {
                let j = rng.random_range(0..seen);
                if let Some(slot) = usize::try_from(j).ok().and_then(|j| kept.get_mut(j)) {
                    *slot = game;
                }
            }
        }
    }
    bar.finish_and_clear();
    let mut lookalikes: Vec<(String, u64)> = lookalikes.into_iter().collect();
    lookalikes.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok((
        kept,
        Drawn {
            seen,
            short,
            bad,
            excluded,
            lookalikes,
        },
    ))
}

pub fn run(args: PretrainArgs) -> anyhow::Result<ExitCode> {
    args.opts.refuse_shape_with_base(
        args.base.as_deref(),
        "leave out one or the other (--base, or --channels and --layers)",
    )?;
    let (mut games, drawn) = sample_games(
        &args.inputs,
        args.games,
        args.min_plies,
        &args.exclude,
        args.seed,
    )?;
    let excluded = if args.exclude.is_empty() {
        String::new()
    } else {
        format!(
            ", {} played by {} left out",
            drawn.excluded,
            args.exclude
                .iter()
                .map(|n| format!("{n:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    println!(
        "{} games to sample from ({} shorter than {} half-moves and {} not standard or not readable left out{excluded}); learning from {} of them, both sides",
        drawn.seen,
        drawn.short,
        args.min_plies,
        drawn.bad,
        games.len()
    );
    let lookalikes = &drawn.lookalikes;
    if !lookalikes.is_empty() {
        // The PGN spells a player many ways; name the ones --exclude did not catch.
        const SHOWN: usize = 8;
        let shown: Vec<String> = lookalikes
            .iter()
            .take(SHOWN)
            .map(|(name, n)| format!("{name:?} ({n} games)"))
            .collect();
        let more = lookalikes.len().saturating_sub(SHOWN);
        println!(
            "still in, with the family name of an excluded player: {}{} (--exclude each that is the same player)",
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more names")
            } else {
                String::new()
            }
        );
    }
    // Oldest first, so the split is by date as for a player.
    games.sort_by_key(|g| g.date);
    let sides: Vec<(GameRecord, Color)> = games
        .into_iter()
        .flat_map(|g| [(g.clone(), Color::White), (g, Color::Black)])
        .collect();
    crate::train::fit(
        POPULATION,
        &sides,
        args.split,
        &args
            .opts
            .fit_options(args.base, args.max_positions, args.seed, PRETRAIN_EPOCHS)?,
        &args.out,
        false,
    )?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::family_name;

    #[test]
    fn a_family_name_in_every_spelling_of_the_masters_files() {
        for name in [
            "Karpov, Anatoly",
            "Karpov,An",
            "Karpov,Ana",
            " karpov , A.",
            "Anatoly Karpov",
        ] {
            assert_eq!(family_name(name), "karpov", "{name:?}");
        }
        assert_eq!(family_name("jishanshaikh4"), "jishanshaikh4");
        assert_eq!(family_name("Kasparov, Gary"), "kasparov");
        assert_ne!(
            family_name("Kasparov, Gary"),
            family_name("Karpov, Anatoly")
        );
    }
}
