//! The engine's options on the command line: the player, `--config FILE` (TOML) and the
//! knob flags shared by `play`, `uci` and `eval`; flags win over the file, the file over
//! the defaults. Every knob goes through [`EngineOptions::set`], as UCI's `setoption`
//! and the HTTP parameters do.

use std::path::{Path, PathBuf};

use anyhow::Context;
use clap::Args;
use mirror_core::TimeClass;
use mirror_engine::{EngineOptions, Policy, Tiers};

use crate::cli::FilterArgs;

/// How the mirror chooses its moves (flags override `--config`).
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    /// The player to mirror.
    #[arg(long, short = 'u')]
    pub user: Option<String>,
    /// A TOML file with `player` and any engine option: policy, tiers, min_games, seed,
    /// recent_months, recent_weight, context_weight, game_time_class, guard, guard_top,
    /// guard_margin, sample, time_class, rated, since, until, opponent_rating, sources.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Seed of the random choices (default: from the clock, printed so a game can be replayed).
    #[arg(long)]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub knobs: EngineKnobs,
}

/// The engine's knobs as flags, shared by `play`, `uci` and `eval`.
#[derive(Args, Debug, Clone, Default)]
pub struct EngineKnobs {
    /// How book positions are answered: tiers (the seed's win-rate tiers), habit[:W]
    /// (sampled by games played, the model's probabilities as W pseudo-games) or
    /// likely[:W] (always the likeliest of those). Default: habit:1 for play; for uci and
    /// eval likely with the model's own weight (chosen on the player's validation games by
    /// `mirror train`), likely:30 for a model without one.
    #[arg(long)]
    pub policy: Option<Policy>,
    /// The sampler's tiers, in order (default "w>0.5,wd>0.5,w>0.4,wd>0.4,wd>0.3,wd>0").
    #[arg(long)]
    pub tiers: Option<Tiers>,
    /// Leave out book moves played in fewer games than this (default 1).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub min_games: Option<u32>,
    /// Play the model's first choice even when it gives material away (no blunder guard).
    #[arg(long, conflicts_with_all = ["guard_top", "guard_margin"])]
    pub no_guard: bool,
    /// The guard checks this many of the model's best moves (default 64).
    #[arg(long)]
    pub guard_top: Option<usize>,
    /// Centipawns of material a model move may lose against the best checked one
    /// (default 50).
    #[arg(long)]
    pub guard_margin: Option<i32>,
    /// Out of the book, sample the guarded model's distribution (true) or play its first
    /// choice (false). Default: true for play, false for uci and eval.
    #[arg(long)]
    pub sample: Option<bool>,
    /// With habit/likely: games of the player's last N months (up to their newest game)
    /// count --recent-weight extra (default 12; 0: off).
    #[arg(long)]
    pub recent_months: Option<u32>,
    /// The extra weight of a recent game (default 20).
    #[arg(long)]
    pub recent_weight: Option<f64>,
    /// With habit/likely: the player's games of --game-time-class count this many times
    /// extra, times recency's weight (default: 10 for uci and eval, 0 for play: it
    /// sharpens the choice away from the player's variety).
    #[arg(long)]
    pub context_weight: Option<f64>,
    /// The time class of the game being played: bullet, blitz, rapid, classical or daily
    /// (eval answers each test position with its own game's).
    #[arg(long, value_name = "CLASS")]
    pub game_time_class: Option<TimeClass>,
    #[command(flatten)]
    pub filters: FilterArgs,
}

impl EngineKnobs {
    /// Applies the flags given over `opts`, each checked by [`EngineOptions::set`].
    pub fn apply(&self, opts: &mut EngineOptions) -> anyhow::Result<()> {
        let mut set = |name: &str, value: Option<String>| -> anyhow::Result<()> {
            if let Some(v) = value {
                opts.set(name, &v)
                    .with_context(|| format!("--{}", name.replace('_', "-")))?;
            }
            Ok(())
        };
        let text = |v: Option<&dyn ToString>| v.map(|v| v.to_string());
        set("policy", text(self.policy.as_ref().map(|v| v as _)))?;
        set("tiers", text(self.tiers.as_ref().map(|v| v as _)))?;
        set("min_games", text(self.min_games.as_ref().map(|v| v as _)))?;
        set(
            "recent_months",
            text(self.recent_months.as_ref().map(|v| v as _)),
        )?;
        set(
            "recent_weight",
            text(self.recent_weight.as_ref().map(|v| v as _)),
        )?;
        set(
            "context_weight",
            text(self.context_weight.as_ref().map(|v| v as _)),
        )?;
        set(
            "game_time_class",
            text(self.game_time_class.as_ref().map(|v| v as _)),
        )?;

        set("guard", self.no_guard.then(|| "false".to_string()))?;
        set("sample", text(self.sample.as_ref().map(|v| v as _)))?;
        set("guard_top", text(self.guard_top.as_ref().map(|v| v as _)))?;
        set(
            "guard_margin",
            text(self.guard_margin.as_ref().map(|v| v as _)),
        )?;
        let f = &self.filters;
        if !f.time_class.is_empty() {
            set("time_class", Some(list(&f.time_class)))?;
        }
        set(
            "rated",
            match (f.rated, f.casual) {
                (true, _) => Some("true".into()),
                (_, true) => Some("false".into()),
                _ => None,
            },
        )?;
        set("since", f.since.map(|m| m.to_string()))?;
        set("until", f.until.map(|m| m.to_string()))?;
        set("opponent_rating", f.opponent_rating.map(|r| r.to_string()))?;
        if !f.sources.is_empty() {
            set(
                "sources",
                Some(
                    f.sources
                        .iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(","),
                ),
            )?;
        }
        Ok(())
    }
}

fn list(tcs: &[TimeClass]) -> String {
    tcs.iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// Reads the config file into `opts` (engine options by their names); returns its
/// `player`, and whether it set the seed.
fn read_file(path: &Path, opts: &mut EngineOptions) -> anyhow::Result<(Option<String>, bool)> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read config {}", path.display()))?;
    let table: toml::Table =
        toml::from_str(&text).with_context(|| format!("invalid config {}", path.display()))?;
    let mut player = None;
    let seed_given = table.contains_key("seed");
    for (key, value) in table {
        let context = || format!("invalid config {}: {key}", path.display());
        let text = match &value {
            toml::Value::String(s) => s.clone(),
            toml::Value::Integer(i) => i.to_string(),
            toml::Value::Float(f) => f.to_string(),
            toml::Value::Boolean(b) => b.to_string(),
            toml::Value::Array(items) => items
                .iter()
                .map(|i| match i {
                    toml::Value::String(s) => Ok(s.clone()),
                    other => Err(anyhow::anyhow!("list items must be strings, not {other}")),
                })
                .collect::<anyhow::Result<Vec<_>>>()
                .with_context(context)?
                .join(","),
            other => anyhow::bail!(
                "{}: {} values are not accepted",
                context(),
                other.type_str()
            ),
        };
        if key == "player" {
            player = Some(text);
        } else {
            opts.set(&key, &text).with_context(context)?;
        }
    }
    Ok((player, seed_given))
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

/// `defaults`, then `--config`, then flags.
pub fn resolve(args: &EngineArgs, defaults: EngineOptions) -> anyhow::Result<Resolved> {
    let mut options = defaults;
    let (file_player, seed_in_file) = match &args.config {
        Some(p) => read_file(p, &mut options)?,
        None => (None, false),
    };
    args.knobs.apply(&mut options)?;
    let player = args
        .user
        .clone()
        .or(file_player)
        .context("which player? pass --user NAME (or player = \"NAME\" in --config)")?;
    let seed_from_clock = match args.seed {
        Some(s) => {
            options.seed = s;
            false
        }
        None if seed_in_file => false,
        None => {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            // Keep it to 31 bits so that it fits UCI's spin option.
            options.seed = (nanos % 2_147_483_647) as u64;
            true
        }
    };
    Ok(Resolved {
        player,
        options,
        seed_from_clock,
    })
}
