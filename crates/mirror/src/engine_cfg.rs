//! The engine's options on the command line: the player, `--config FILE` (TOML) and the
//! knob flags shared by `play`, `uci` and `eval`; flags win over the file, the file over
//! the defaults. Every knob goes through [`EngineOptions::set`], as UCI's `setoption`
//! and the HTTP parameters do.

use std::path::PathBuf;

use anyhow::Context;
use clap::Args;
use mirror_engine::{EngineOptions, KNOBS, Knob, KnobGroup, KnobKind};

use crate::args::FilterArgs;

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
    /// The UCI engine of --search-nodes (default: `stockfish` on PATH, else Debian's).
    #[arg(long, value_name = "PATH")]
    pub search_engine: Option<PathBuf>,
    #[command(flatten)]
    pub knobs: EngineKnobs,
}

/// The engine's knobs as flags, shared by `play`, `uci` and `eval`: one flag per knob of
/// the engine's table ([`mirror_engine::KNOBS`], group `Engine`: `--min-games N`, `--guard
/// false`, ...), declared from it, and the filter group shared with `explore`.
#[derive(Debug, Clone, Default)]
pub struct EngineKnobs {
    /// The knobs given, by name, in the table's order.
    pub given: Vec<(&'static str, String)>,
    /// Which of the player's games count.
    pub filters: FilterArgs,
}

fn engine_knobs() -> impl Iterator<Item = &'static Knob> {
    KNOBS.iter().filter(|k| k.group == KnobGroup::Engine)
}

impl clap::FromArgMatches for EngineKnobs {
    fn from_arg_matches(m: &clap::ArgMatches) -> Result<Self, clap::Error> {
        Ok(EngineKnobs {
            given: engine_knobs()
                .filter_map(|k| m.get_one::<String>(k.name).map(|v| (k.name, v.clone())))
                .collect(),
            filters: FilterArgs::from_arg_matches(m)?,
        })
    }

    fn update_from_arg_matches(&mut self, m: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(m)?;
        Ok(())
    }
}

impl clap::Args for EngineKnobs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        let cmd = engine_knobs().fold(cmd, |cmd, k| {
            let value = match k.kind {
                KnobKind::Int { .. } => "N",
                KnobKind::Weight => "W",
                KnobKind::Bool => "BOOL",
                KnobKind::Choice(_) | KnobKind::Text => "VALUE",
            };
            cmd.arg(
                clap::Arg::new(k.name)
                    .long(k.flag())
                    .help(k.doc)
                    .value_name(value)
                    .action(clap::ArgAction::Set),
            )
        });
        FilterArgs::augment_args(cmd)
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

impl EngineKnobs {
    /// Whether the knob `name` was given.
    pub fn sets(&self, name: &str) -> bool {
        self.given.iter().any(|(n, _)| *n == name)
    }

    /// Applies the flags given over `opts`, each checked by [`EngineOptions::set`].
    pub fn apply(&self, opts: &mut EngineOptions) -> anyhow::Result<()> {
        let mut set = |name: &str, value: Option<String>| -> anyhow::Result<()> {
            if let Some(v) = value {
                opts.set(name, &v)
                    .with_context(|| format!("--{}", name.replace('_', "-")))?;
            }
            Ok(())
        };
        for (name, value) in &self.given {
            set(name, Some(value.clone()))?;
        }
        let f = &self.filters;
        let list = |items: Vec<String>| (!items.is_empty()).then(|| items.join(","));
        set(
            "time_class",
            list(f.time_class.iter().map(ToString::to_string).collect()),
        )?;
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
        set(
            "sources",
            list(f.sources.iter().map(ToString::to_string).collect()),
        )?;
        Ok(())
    }
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
    let file = match &args.config {
        Some(p) => mirror_engine::config::read_config(p, &mut options)?,
        None => mirror_engine::config::ConfigFile::default(),
    };
    args.knobs.apply(&mut options)?;
    mirror_engine::search::use_engine(args.search_engine.as_deref())?;
    let player = args
        .user
        .clone()
        .or(file.player)
        .context("which player? pass --user NAME (or player = \"NAME\" in --config)")?;
    let seed_from_clock = match args.seed {
        Some(s) => {
            options.seed = s;
            false
        }
        None if file.seed_given => false,
        None => {
            options.seed = mirror_engine::options::clock_seed();
            true
        }
    };
    Ok(Resolved {
        player,
        options,
        seed_from_clock,
    })
}
