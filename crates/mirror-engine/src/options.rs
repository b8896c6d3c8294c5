//! Every knob of the engine in one typed place, [`EngineOptions`], and one way to set a
//! knob by name from text, [`EngineOptions::set`], shared by the command line's config
//! file, UCI's `setoption` and the HTTP parameters, so each front end offers the same
//! knobs with the same checks.

use mirror_core::{GameSource, TimeClass, time::Month};
use mirror_store::Filter;

use crate::{
    guard::Guard,
    policy::{ParsePolicyError, ParseTiersError, Policy, Tiers},
    search::{SearchBy, SearchOptions},
};

/// How the engine chooses.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineOptions {
    /// How book positions are answered.
    pub policy: Policy,
    /// The sampler's tiers, in order (for [`Policy::Tiers`]).
    pub tiers: Tiers,
    /// Moves played in fewer games than this are left out of the book (at least 1).
    pub min_games: u32,
    /// Which of the player's games count (the colour is always the side to move).
    pub filter: Filter,
    /// Seed of the random choices; the same seed gives the same moves.
    pub seed: u64,
    /// For [`Policy::Habit`] and [`Policy::Likely`]: games of the player's last this many
    /// months (up to their newest game) count `recent_weight` extra; 0 = off.
    pub recent_months: u32,
    /// The extra weight of a recent game.
    pub recent_weight: f64,
    /// The time class of the game being played, when known.
    pub game_time_class: Option<TimeClass>,
    /// For [`Policy::Habit`] and [`Policy::Likely`]: the player's games of
    /// `game_time_class` count this many times extra, on top of recency (a recent game of
    /// that class counts `(1 + recent_weight) x (1 + context_weight)`); 0 = off, and
    /// nothing changes while `game_time_class` is unknown.
    pub context_weight: f64,
    /// The blunder guard on the model's moves; `None` plays the model's first choice.
    pub guard: Option<Guard>,
    /// Where the fallback answers, sample its distribution (the model's softmax over the
    /// moves the guard lets through) instead of playing its first choice.
    pub sample: bool,
    /// With [`Policy::Likely`]: the model's own weight in the book
    /// ([`crate::Fallback::book_prior`], chosen on the player's validation games by
    /// `mirror train`) replaces the policy's, when the model has one. On in the top-1
    /// defaults; setting `policy` turns it off (a weight given by hand wins).
    pub model_weight: bool,
    /// Where the model answers: its likeliest moves searched by an external UCI engine and
    /// re-weighed by the win% each loses ([`crate::search`]); 0 nodes = off.
    pub search: SearchOptions,
    /// The search chosen for the model on the player's validation games
    /// ([`crate::Fallback::search`], `mirror train`'s strength dial) replaces `search`, when
    /// the model has one. On by default; setting any search knob turns it off.
    pub model_search: bool,
    /// With `sample`: the temperature of the fallback's distribution (its scores divided
    /// by it before the softmax; below 1 the likelier moves are played more often, 1 is
    /// the model's own distribution). `None`: the model's own, chosen on the player's
    /// validation games by `mirror train` ([`crate::Fallback::temperature`]), else 1.
    pub temperature: Option<f64>,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            policy: Policy::default(),
            tiers: Tiers::default(),
            min_games: 1,
            filter: Filter::default(),
            seed: 0,
            // Chosen on the validation games of the shared player (docs/benchmarks.md, "Book in
            // context"): the repertoire drifts, and its last year says most.
            recent_months: 12,
            recent_weight: 20.0,
            game_time_class: None,
            // Chosen on the validation games (docs/benchmarks.md, "Book in context"): a player who
            // mixes time classes plays each its own way.
            context_weight: 10.0,
            guard: Some(Guard::default()),
            sample: false,
            model_weight: true,
            search: SearchOptions::default(),
            model_search: true,
            temperature: None,
        }
    }
}

impl EngineOptions {
    /// The sampling defaults of `mirror play` and `mirror serve`: the book's moves sampled
    /// by games played plus the model's prior (`habit:1`), and out of the book a move
    /// sampled from the guarded model, so the mirror varies as the player does. The
    /// top-1 defaults ([`EngineOptions::default`], `likely:30`, the model's first choice)
    /// match the player's move more often but always play the same move.
    pub fn sampling() -> EngineOptions {
        EngineOptions {
            policy: Policy::Habit { prior: 1.0 },
            sample: true,
            model_weight: false,
            // Weighting by the game's time class sharpens the distribution away from
            // the player's variety (docs/benchmarks.md, "Book in context").
            context_weight: 0.0,
            ..EngineOptions::default()
        }
    }
}

/// What a knob's value is: how each front end declares it (UCI's option type, the HTTP
/// parameter's schema, the command line's value name) and the bounds [`EngineOptions::set`]
/// checks.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum KnobKind {
    /// Text the knob parses itself (a policy, tiers, a month, a list).
    Text,
    /// A whole number from `min` to `max`.
    Int {
        /// The least value.
        min: i64,
        /// The greatest value.
        max: i64,
    },
    /// A number at least 0.
    Weight,
    /// `true` or `false` (also `on`/`off`, `yes`/`no`, `1`/`0`).
    Bool,
    /// One of these words.
    Choice(&'static [&'static str]),
}

/// Which front-end group a knob belongs to.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum KnobGroup {
    /// The engine's own: every front end offers it under its name, from this table.
    Engine,
    /// The filter of the player's games: the explorer filters the same way, so each front
    /// end spells it in its shared filter group (the command line's `--time-class`,
    /// `--rated`/`--casual`, HTTP's lichess names `speeds`, `modes`).
    Filter,
    /// The seed: each front end gives its own default (the clock, the server's sequence).
    Seed,
}

/// One knob of the engine: its name (the config key; UCI's CamelCase `MinGames` and HTTP's
/// camelCase `minGames` are the same name), what it does, its kind, and how it is read and
/// set. Every front end declares its knobs from [`KNOBS`]: adding a knob is one entry
/// here and its field in [`EngineOptions`].
#[derive(Clone, Copy)]
pub struct Knob {
    /// The name, snake_case.
    pub name: &'static str,
    /// What it does (the flag's help, the HTTP parameter's description).
    pub doc: &'static str,
    /// Its kind.
    pub kind: KnobKind,
    /// Its group.
    pub group: KnobGroup,
    /// Its value in the options, as text [`EngineOptions::set`] takes ("" for none).
    pub get: fn(&EngineOptions) -> String,
    /// Sets it from text (after the kind's bounds are checked).
    set: fn(&mut EngineOptions, &'static str, &str) -> Result<(), OptionError>,
}

impl std::fmt::Debug for Knob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Knob")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("group", &self.group)
            .finish()
    }
}

impl Knob {
    /// The name in UCI's spelling: `min_games` → `MinGames`.
    pub fn uci_name(&self) -> String {
        self.name
            .split('_')
            .map(|w| {
                let mut c = w.chars();
                c.next()
                    .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                    .unwrap_or_default()
            })
            .collect()
    }

    /// The name in HTTP's spelling: `min_games` → `minGames`.
    pub fn http_name(&self) -> String {
        let upper = self.uci_name();
        let mut c = upper.chars();
        c.next()
            .map(|f| f.to_ascii_lowercase().to_string() + c.as_str())
            .unwrap_or_default()
    }

    /// The name as a command-line flag: `min_games` → `min-games`.
    pub fn flag(&self) -> String {
        self.name.replace('_', "-")
    }
}

fn join<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

fn or_empty<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or(String::new(), |v| v.to_string())
}

/// A non-negative, finite weight.
fn weight(name: &'static str, value: &str) -> Result<f64, OptionError> {
    let w: f64 = parsed(name, value)?;
    if !(w.is_finite() && w >= 0.0) {
        return Err(invalid(name, value, "must be a non-negative number"));
    }
    Ok(w)
}

/// The guard's settings, which need the guard on.
fn guard_mut<'a>(
    o: &'a mut EngineOptions,
    name: &'static str,
    value: &str,
) -> Result<&'a mut Guard, OptionError> {
    o.guard
        .as_mut()
        .ok_or_else(|| invalid(name, value, "the guard is off"))
}

/// `since` or `until`, checked against the other.
fn set_month(o: &mut EngineOptions, name: &'static str, value: &str) -> Result<(), OptionError> {
    let m = month(name, value)?;
    let (since, until) = if name == "since" {
        (m, o.filter.until)
    } else {
        (o.filter.since, m)
    };
    if let (Some(s), Some(u)) = (since, until)
        && s > u
    {
        return Err(invalid(
            name,
            value,
            format!("since {s} is after until {u}"),
        ));
    }
    o.filter.since = since;
    o.filter.until = until;
    Ok(())
}

/// Every knob of the engine, in the order the front ends list them.
pub static KNOBS: &[Knob] = &[
    Knob {
        name: "policy",
        doc: "How book positions are answered: tiers (the seed's win-rate tiers), habit[:W] \
              (sampled by games played, the model's probabilities as W pseudo-games), \
              likely[:W] (always the likeliest of those) or lower (the best 95% lower bound \
              of the score).",
        kind: KnobKind::Text,
        group: KnobGroup::Engine,
        get: |o| o.policy.to_string(),
        set: |o, _, v| {
            o.policy = v
                .parse()
                .map_err(|e: ParsePolicyError| OptionError::Rejected(Box::new(e)))?;
            o.model_weight = false;
            Ok(())
        },
    },
    Knob {
        name: "tiers",
        doc: "The tiers policy's tiers, in order (default w>0.5,wd>0.5,w>0.4,wd>0.4,wd>0.3,wd>0).",
        kind: KnobKind::Text,
        group: KnobGroup::Engine,
        get: |o| o.tiers.to_string(),
        set: |o, _, v| {
            o.tiers = v
                .parse()
                .map_err(|e: ParseTiersError| OptionError::Rejected(Box::new(e)))?;
            Ok(())
        },
    },
    Knob {
        name: "min_games",
        doc: "Book moves played in fewer games than this are left out (default 1).",
        kind: KnobKind::Int {
            min: 1,
            max: 1_000_000,
        },
        group: KnobGroup::Engine,
        get: |o| o.min_games.to_string(),
        set: |o, n, v| {
            o.min_games = parsed(n, v)?;
            Ok(())
        },
    },
    Knob {
        name: "seed",
        doc: "Seed of the random choices: the same seed gives the same moves.",
        kind: KnobKind::Int {
            min: 0,
            max: i64::MAX,
        },
        group: KnobGroup::Seed,
        get: |o| o.seed.to_string(),
        set: |o, n, v| {
            o.seed = parsed(n, v)?;
            Ok(())
        },
    },
    Knob {
        name: "recent_months",
        doc: "With habit/likely: games of the player's last N months (up to their newest \
              game) count recent_weight extra (default 12; 0: off).",
        kind: KnobKind::Int { min: 0, max: 1200 },
        group: KnobGroup::Engine,
        get: |o| o.recent_months.to_string(),
        set: |o, n, v| {
            o.recent_months = parsed(n, v)?;
            Ok(())
        },
    },
    Knob {
        name: "recent_weight",
        doc: "The extra weight of a recent game (default 20).",
        kind: KnobKind::Weight,
        group: KnobGroup::Engine,
        get: |o| o.recent_weight.to_string(),
        set: |o, n, v| {
            o.recent_weight = weight(n, v)?;
            Ok(())
        },
    },
    Knob {
        name: "guard",
        doc: "The blunder guard on the model's moves (default true; false plays the model's \
              first choice even when it gives material away).",
        kind: KnobKind::Bool,
        group: KnobGroup::Engine,
        get: |o| o.guard.is_some().to_string(),
        set: |o, n, v| {
            o.guard = if boolean(n, v)? {
                Some(o.guard.unwrap_or_default())
            } else {
                None
            };
            Ok(())
        },
    },
    Knob {
        name: "guard_top",
        doc: "The guard checks this many of the model's best moves (default 64).",
        kind: KnobKind::Int { min: 1, max: 256 },
        group: KnobGroup::Engine,
        get: |o| o.guard.unwrap_or_default().top.to_string(),
        set: |o, n, v| {
            let top = parsed(n, v)?;
            guard_mut(o, n, v)?.top = top;
            Ok(())
        },
    },
    Knob {
        name: "guard_margin",
        doc: "Centipawns of material a model move may lose against the best checked one \
              (default 50).",
        kind: KnobKind::Int {
            min: 0,
            max: 10_000,
        },
        group: KnobGroup::Engine,
        get: |o| o.guard.unwrap_or_default().margin.to_string(),
        set: |o, n, v| {
            let margin = parsed(n, v)?;
            guard_mut(o, n, v)?.margin = margin;
            Ok(())
        },
    },
    Knob {
        name: "sample",
        doc: "Out of the book, sample the guarded model's distribution (true) or play its \
              first choice (false).",
        kind: KnobKind::Bool,
        group: KnobGroup::Engine,
        get: |o| o.sample.to_string(),
        set: |o, n, v| {
            o.sample = boolean(n, v)?;
            Ok(())
        },
    },
    Knob {
        name: "temperature",
        doc: "When sampling out of the book: the model's scores are divided by this before \
              its distribution is taken (below 1 its likelier moves are played more often; \
              default the model's own, chosen by mirror train so that the sampling mirror \
              errs as often as the player, else 1; empty: that default).",
        kind: KnobKind::Weight,
        group: KnobGroup::Engine,
        get: |o| or_empty(o.temperature),
        set: |o, n, v| {
            if v.trim().is_empty() {
                o.temperature = None;
                return Ok(());
            }
            let t = weight(n, v)?;
            if t == 0.0 {
                return Err(invalid(n, v, "must be above 0"));
            }
            o.temperature = Some(t);
            Ok(())
        },
    },
    Knob {
        name: "search_nodes",
        doc: "Out of the book, search the model's likeliest moves for this many nodes (of the \
              external UCI engine, or positions the model judges: see search_by) and play \
              less often those that lose win% (default 0: no search).",
        kind: KnobKind::Int {
            min: 0,
            max: 1_000_000,
        },
        group: KnobGroup::Engine,
        get: |o| o.search.nodes.to_string(),
        set: |o, n, v| {
            o.search.nodes = parsed(n, v)?;
            o.model_search = false;
            Ok(())
        },
    },
    Knob {
        name: "search_by",
        doc: "What judges the searched moves: stockfish (an external UCI engine: on PATH, or \
              --search-engine), model (the model's own value head, two plies ahead when \
              the nodes allow) or puct (the model's own PUCT tree search, at most 2000 \
              positions); the last two need no other program.",
        kind: KnobKind::Choice(&["stockfish", "model", "puct"]),
        group: KnobGroup::Engine,
        get: |o| o.search.by.word().to_string(),
        set: |o, n, v| {
            o.search.by = match v.trim().to_ascii_lowercase().as_str() {
                "stockfish" => SearchBy::Stockfish,
                "model" => SearchBy::Model,
                "puct" => SearchBy::Puct,
                _ => return Err(invalid(n, v, "stockfish, model or puct")),
            };
            o.model_search = false;
            Ok(())
        },
    },
    Knob {
        name: "search_top",
        doc: "The search looks at this many of the model's likeliest moves (default 6).",
        kind: KnobKind::Int { min: 1, max: 64 },
        group: KnobGroup::Engine,
        get: |o| o.search.top.to_string(),
        set: |o, n, v| {
            o.search.top = parsed(n, v)?;
            o.model_search = false;
            Ok(())
        },
    },
    Knob {
        name: "search_weight",
        doc: "How much a searched move's probability falls per win% point it loses against \
              the best searched: times exp(-weight x loss) (default 0.1).",
        kind: KnobKind::Weight,
        group: KnobGroup::Engine,
        get: |o| o.search.weight.to_string(),
        set: |o, n, v| {
            o.search.weight = weight(n, v)?;
            o.model_search = false;
            Ok(())
        },
    },
    Knob {
        name: "search_own",
        doc: "The external engine's own best move, after a search of every legal move within \
              this many nodes, is searched with the model's likeliest when they leave it out \
              (default 0: only the model's moves).",
        kind: KnobKind::Int {
            min: 0,
            max: 1_000_000,
        },
        group: KnobGroup::Engine,
        get: |o| o.search.own.to_string(),
        set: |o, n, v| {
            o.search.own = parsed(n, v)?;
            o.model_search = false;
            Ok(())
        },
    },
    Knob {
        name: "time_class",
        doc: "Only the player's games of these time classes (comma-separated; empty: all).",
        kind: KnobKind::Text,
        group: KnobGroup::Filter,
        get: |o| join(&o.filter.time_classes),
        set: |o, n, v| {
            o.filter.time_classes = parsed_list::<TimeClass>(n, v)?;
            Ok(())
        },
    },
    Knob {
        name: "rated",
        doc: "Only rated games (true), only casual ones (false), or any.",
        kind: KnobKind::Choice(&["any", "true", "false"]),
        group: KnobGroup::Filter,
        get: |o| o.filter.rated.map_or("any".to_string(), |r| r.to_string()),
        set: |o, n, v| {
            o.filter.rated = match v.trim().to_ascii_lowercase().as_str() {
                "any" | "" => None,
                _ => Some(boolean(n, v)?),
            };
            Ok(())
        },
    },
    Knob {
        name: "since",
        doc: "Only games from this month on (YYYY-MM; empty: no limit).",
        kind: KnobKind::Text,
        group: KnobGroup::Filter,
        get: |o| or_empty(o.filter.since),
        set: set_month,
    },
    Knob {
        name: "until",
        doc: "Only games up to this month (YYYY-MM; empty: no limit).",
        kind: KnobKind::Text,
        group: KnobGroup::Filter,
        get: |o| or_empty(o.filter.until),
        set: set_month,
    },
    Knob {
        name: "opponent_rating",
        doc: "Only games against opponents rated MIN-MAX.",
        kind: KnobKind::Text,
        group: KnobGroup::Filter,
        get: |o| or_empty(o.filter.opponent_rating),
        set: |o, n, v| {
            o.filter.opponent_rating = if v.trim().is_empty() {
                None
            } else {
                Some(parsed(n, v)?)
            };
            Ok(())
        },
    },
    Knob {
        name: "sources",
        doc: "Only games from these sites: chesscom, lichess, otb (comma-separated).",
        kind: KnobKind::Text,
        group: KnobGroup::Filter,
        get: |o| join(&o.filter.sources),
        set: |o, n, v| {
            o.filter.sources = parsed_list::<GameSource>(n, v)?;
            Ok(())
        },
    },
    Knob {
        name: "game_time_class",
        doc: "The time class of the game being played: bullet, blitz, rapid, classical or \
              daily (empty: unknown).",
        kind: KnobKind::Text,
        group: KnobGroup::Engine,
        get: |o| or_empty(o.game_time_class),
        set: |o, n, v| {
            o.game_time_class = if v.trim().is_empty() {
                None
            } else {
                Some(parsed(n, v)?)
            };
            Ok(())
        },
    },
    Knob {
        name: "context_weight",
        doc: "With habit/likely: the player's games of game_time_class count this many times \
              extra, times recency's weight (0: off).",
        kind: KnobKind::Weight,
        group: KnobGroup::Engine,
        get: |o| o.context_weight.to_string(),
        set: |o, n, v| {
            o.context_weight = weight(n, v)?;
            Ok(())
        },
    },
];

/// The knobs' names, as written in a config file.
pub fn knob_names() -> Vec<&'static str> {
    KNOBS.iter().map(|k| k.name).collect()
}

/// A seed from the clock, for a game that need not be replayed unless the seed is printed:
/// 31 bits, so that it fits UCI's spin option.
pub fn clock_seed() -> u64 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    (nanos % 2_147_483_647) as u64
}

/// A knob that could not be set.
#[derive(Debug, thiserror::Error)]
pub enum OptionError {
    /// No such knob.
    #[error("unknown engine option {0:?}; the options are {names}", names = knob_names().join(", "))]
    Unknown(String),
    /// The knob's own parser refused the value (its message names the knob and value).
    #[error(transparent)]
    Rejected(Box<dyn std::error::Error + Send + Sync>),
    /// The value does not fit the knob.
    #[error("invalid {name} {value:?}: {why}")]
    Invalid {
        /// The knob.
        name: &'static str,
        /// The text given.
        value: String,
        /// What is wrong with it (in the message: it is the reason, not a cause below it).
        why: Box<dyn std::error::Error + Send + Sync>,
    },
}

/// The canonical name of a knob: `MinGames`, `minGames`, `min-games` → `min_games`.
pub fn canonical_name(name: &str) -> Option<&'static str> {
    knob(name).map(|k| k.name)
}

/// The knob named `name` in any spelling (`MinGames`, `minGames`, `min-games`).
pub fn knob(name: &str) -> Option<&'static Knob> {
    let squash = |s: &str| -> String {
        s.chars()
            .filter(|c| !matches!(c, '_' | '-' | ' '))
            .flat_map(char::to_lowercase)
            .collect()
    };
    let wanted = squash(name);
    KNOBS.iter().find(|k| squash(k.name) == wanted)
}

fn invalid(name: &'static str, value: &str, why: impl Into<String>) -> OptionError {
    OptionError::Invalid {
        name,
        value: value.to_string(),
        why: why.into().into(),
    }
}

fn parsed<T>(name: &'static str, value: &str) -> Result<T, OptionError>
where
    T: std::str::FromStr,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    value.trim().parse::<T>().map_err(|e| OptionError::Invalid {
        name,
        value: value.to_string(),
        why: Box::new(e),
    })
}

/// A comma-separated list, each item parsed (empty items skipped; empty text: no items).
fn parsed_list<T>(name: &'static str, value: &str) -> Result<Vec<T>, OptionError>
where
    T: std::str::FromStr,
    T::Err: std::error::Error + Send + Sync + 'static,
{
    value
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| parsed::<T>(name, t))
        .collect()
}

fn boolean(name: &'static str, value: &str) -> Result<bool, OptionError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" | "on" | "yes" | "1" => Ok(true),
        "false" | "off" | "no" | "0" => Ok(false),
        _ => Err(invalid(name, value, "expected true or false")),
    }
}

/// A month, or nothing for an empty value.
fn month(name: &'static str, value: &str) -> Result<Option<Month>, OptionError> {
    if value.trim().is_empty() {
        return Ok(None);
    }
    parsed::<Month>(name, value).map(Some)
}

impl EngineOptions {
    /// Sets the knob `name` (any spelling [`canonical_name`] accepts) from text, checked as
    /// the command line checks it. Lists (`time_class`) are comma-separated; an empty
    /// `time_class`, `since` or `until` removes the restriction, an empty
    /// `game_time_class` forgets it, an empty `temperature` is the model's own; `rated` takes `true`
    /// (rated games only), `false` (casual only) or `any`. On error nothing changes.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), OptionError> {
        let knob = knob(name).ok_or_else(|| OptionError::Unknown(name.to_string()))?;
        if let KnobKind::Int { min, max } = knob.kind {
            let n: i64 = parsed(knob.name, value)?;
            if n < min {
                return Err(invalid(knob.name, value, format!("must be at least {min}")));
            }
            if n > max {
                return Err(invalid(knob.name, value, format!("must be at most {max}")));
            }
        }
        // On error nothing changes: the knob sets a copy.
        let mut next = self.clone();
        (knob.set)(&mut next, knob.name, value)?;
        *self = next;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_knob_by_every_spelling() {
        let mut o = EngineOptions::default();
        o.set("Policy", "habit:2").expect("policy");
        o.set("tiers", "w>0.5,wd>0").expect("tiers");
        o.set("MinGames", "3").expect("min games");
        o.set("seed", "42").expect("seed");
        o.set("recent-months", "12").expect("recent months");
        o.set("recentWeight", "1.5").expect("recent weight");
        o.set("GuardTop", "8").expect("guard top");
        o.set("guard_margin", "100").expect("guard margin");
        o.set("TimeClass", "blitz, rapid").expect("time class");
        o.set("rated", "true").expect("rated");
        o.set("since", "2020-01").expect("since");
        o.set("until", "2021-06").expect("until");
        assert_eq!(o.temperature, None, "the model's own until given");
        o.set("Temperature", "0.7").expect("temperature");
        assert_eq!(o.temperature, Some(0.7));
        o.set("temperature", "").expect("the model's own again");
        assert_eq!(o.temperature, None);
        o.set("Temperature", "0.7").expect("temperature");
        assert_eq!(o.policy, Policy::Habit { prior: 2.0 });
        assert_eq!(o.tiers.to_string(), "w>0.5,wd>0");
        assert_eq!((o.min_games, o.seed, o.recent_months), (3, 42, 12));
        assert_eq!(o.recent_weight, 1.5);
        assert_eq!(
            o.guard,
            Some(Guard {
                top: 8,
                margin: 100
            })
        );
        assert_eq!(
            o.filter.time_classes,
            vec![TimeClass::Blitz, TimeClass::Rapid]
        );
        assert_eq!(o.filter.rated, Some(true));
        assert_eq!(
            (o.filter.since, o.filter.until),
            ("2020-01".parse().ok(), "2021-06".parse().ok())
        );
        o.set("guard", "off").expect("guard off");
        assert_eq!(o.guard, None);
        o.set("rated", "any").expect("any");
        o.set("time_class", "").expect("all time classes");
        assert_eq!(o.filter.rated, None);
        assert!(o.filter.time_classes.is_empty());
    }

    #[test]
    fn bad_values_name_the_knob_and_change_nothing() {
        let mut o = EngineOptions::default();
        let before = o.clone();
        for (name, value, says) in [
            ("policy", "greedy", "expected tiers, habit, likely or lower"),
            ("tiers", "w>2", "invalid tiers"),
            ("min_games", "0", "at least 1"),
            ("min_games", "-1", "invalid min_games"),
            ("seed", "x", "invalid seed"),
            ("recent_weight", "NaN", "non-negative"),
            ("temperature", "0", "must be above 0"),
            ("temperature", "-0.5", "non-negative"),
            ("temperature", "inf", "non-negative"),
            ("guard", "maybe", "true or false"),
            ("time_class", "blitz,hyper", "invalid time_class"),
            ("since", "2020-13", "invalid since"),
        ] {
            let e = o.set(name, value).expect_err(name).to_string();
            assert!(e.contains(says), "{name}={value}: {e}");
        }
        o.set("until", "2019-01").expect("until");
        let e = o
            .set("since", "2020-01")
            .expect_err("after until")
            .to_string();
        assert!(e.contains("after until"), "{e}");
        o.set("until", "").expect("no until");
        assert_eq!(o, before);
        let e = o.set("colour", "white").expect_err("unknown").to_string();
        assert!(
            e.contains("unknown engine option") && e.contains("min_games"),
            "{e}"
        );
        o.set("guard", "false").expect("off");
        assert!(o.set("guard_top", "3").is_err(), "no guard to tune");
    }
}
