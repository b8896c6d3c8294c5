//! The engine's options on the command line: the player, `--config FILE` (TOML) and the
//! knob flags shared by `play`, `uci` and `eval`; flags win over the file, the file over
//! the defaults. Every knob goes through [`EngineOptions::set`], as UCI's `setoption`
//! and the HTTP parameters do.

use std::path::PathBuf;

use clap::Args;
use mirror_engine::{
    EngineOptions, KNOBS, Knob, KnobGroup, KnobKind,
    config::{Given, Resolved},
};

use crate::args::FilterArgs;

/// How the mirror chooses its moves (flags override `--config`).
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    /// The player to mirror.
    #[arg(long, short = 'u')]
    pub user: Option<String>,
    /// A TOML file with `player` and any engine option by its name (listed from the
    /// engine's table).
    #[arg(long, value_name = "FILE", help = config_help())]
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

/// `--config`'s help: the names a config file takes, from the engine's table.
fn config_help() -> String {
    format!(
        "A TOML file with `player` and any engine option by its name ({}; lists as arrays of strings)",
        mirror_engine::knob_names().join(", ")
    )
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

    /// The knobs given as flags, by name, the filter group's among them.
    pub fn flags(&self) -> Vec<(&'static str, String)> {
        let mut flags = self.given.clone();
        let f = &self.filters;
        let list = |items: Vec<String>| (!items.is_empty()).then(|| items.join(","));
        let rated = match (f.rated, f.casual) {
            (true, _) => Some("true".to_string()),
            (_, true) => Some("false".to_string()),
            _ => None,
        };
        let filters = [
            (
                "time_class",
                list(f.time_class.iter().map(ToString::to_string).collect()),
            ),
            ("rated", rated),
            ("since", f.since.map(|m| m.to_string())),
            ("until", f.until.map(|m| m.to_string())),
            ("opponent_rating", f.opponent_rating.map(|r| r.to_string())),
            (
                "sources",
                list(f.sources.iter().map(ToString::to_string).collect()),
            ),
        ];
        flags.extend(filters.into_iter().filter_map(|(n, v)| Some((n, v?))));
        flags
    }
}

/// `defaults`, then `--config`, then flags ([`mirror_engine::config::resolve`]); the UCI
/// engine of `--search-nodes` chosen.
pub fn resolve(args: &EngineArgs, defaults: EngineOptions) -> anyhow::Result<Resolved> {
    mirror_engine::search::use_engine(args.search_engine.as_deref())?;
    Ok(mirror_engine::config::resolve(
        defaults,
        Given {
            player: args.user.clone(),
            config: args.config.as_deref(),
            flags: args.knobs.flags(),
            seed: args.seed,
        },
    )?)
}
