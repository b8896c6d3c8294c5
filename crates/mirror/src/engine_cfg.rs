//! Engine settings from `--config FILE` (TOML) and flags; flags win.

use std::path::Path;

use anyhow::Context;
use mirror_core::sampler::Tiers;
use mirror_engine::{EngineOptions, Policy};
use serde::Deserialize;

use crate::cli::{EngineArgs, FilterArgs, parse_month, parse_time_class};

/// The config file's keys (all optional).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineFile {
    /// The player to mirror.
    pub player: Option<String>,
    /// RNG seed.
    pub seed: Option<u64>,
    /// Policy, as for `--policy`.
    pub policy: Option<String>,
    /// Tiers, as for `--tiers`.
    pub tiers: Option<String>,
    /// Minimum games per book move.
    pub min_games: Option<u32>,
    /// Recent months counted extra (habit/likely).
    pub recent_months: Option<u32>,
    /// The extra weight of a recent game.
    pub recent_weight: Option<f64>,
    /// Time classes.
    pub time_class: Option<Vec<String>>,
    /// Rated only (true) or casual only (false).
    pub rated: Option<bool>,
    /// First month (YYYY-MM).
    pub since: Option<String>,
    /// Last month (YYYY-MM).
    pub until: Option<String>,
}

fn read_file(path: &Path) -> anyhow::Result<EngineFile> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read config {}", path.display()))?;
    toml::from_str(&text).with_context(|| format!("invalid config {}", path.display()))
}

/// The engine's player and options.
pub struct Resolved {
    /// The player.
    pub player: String,
    /// Options.
    pub options: EngineOptions,
    /// Whether the seed came from the clock.
    pub seed_from_clock: bool,
}

pub fn resolve(args: &EngineArgs) -> anyhow::Result<Resolved> {
    let file = match &args.config {
        Some(p) => read_file(p)?,
        None => EngineFile::default(),
    };
    let player = args
        .user
        .clone()
        .or(file.player.clone())
        .context("which player? pass --user NAME (or player = \"NAME\" in --config)")?;
    let tiers_text = args.tiers.clone().or(file.tiers.clone());
    let tiers = match tiers_text {
        Some(t) => t.parse::<Tiers>()?,
        None => Tiers::default(),
    };
    let policy = match args.policy.clone().or(file.policy.clone()) {
        Some(p) => p.parse::<Policy>()?,
        None => Policy::default(),
    };
    let min_games = args.min_games.or(file.min_games).unwrap_or(1);
    if min_games == 0 {
        anyhow::bail!("--min-games must be at least 1");
    }
    let defaults = EngineOptions::default();
    let recent_months = args
        .recent_months
        .or(file.recent_months)
        .unwrap_or(defaults.recent_months);
    let recent_weight = args
        .recent_weight
        .or(file.recent_weight)
        .unwrap_or(defaults.recent_weight);
    if !(recent_weight.is_finite() && recent_weight >= 0.0) {
        anyhow::bail!("--recent-weight must be a non-negative number, not {recent_weight}");
    }
    let mut filters: FilterArgs = args.filters.clone();
    if filters.time_class.is_empty()
        && let Some(tcs) = &file.time_class
    {
        filters.time_class = tcs
            .iter()
            .map(|t| parse_time_class(t).map_err(anyhow::Error::msg))
            .collect::<anyhow::Result<_>>()?;
    }
    if !filters.rated && !filters.casual {
        match file.rated {
            Some(true) => filters.rated = true,
            Some(false) => filters.casual = true,
            None => {}
        }
    }
    if filters.since.is_none()
        && let Some(s) = &file.since
    {
        filters.since = Some(parse_month(s).map_err(anyhow::Error::msg)?);
    }
    if filters.until.is_none()
        && let Some(u) = &file.until
    {
        filters.until = Some(parse_month(u).map_err(anyhow::Error::msg)?);
    }
    let filter = filters.filter(None::<shakmaty::Color>)?;
    let (seed, seed_from_clock) = match args.seed.or(file.seed) {
        Some(s) => (s, false),
        None => {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            // Keep it to 31 bits so that it fits UCI's spin option.
            ((nanos % 2_147_483_647) as u64, true)
        }
    };
    Ok(Resolved {
        player,
        options: EngineOptions {
            policy,
            tiers,
            min_games,
            filter,
            seed,
            recent_months,
            recent_weight,
        },
        seed_from_clock,
    })
}
