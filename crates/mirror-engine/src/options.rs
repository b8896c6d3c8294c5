//! Every knob of the engine in one typed place, [`EngineOptions`], and one way to set a
//! knob by name from text, [`EngineOptions::set`], shared by the command line's config
//! file, UCI's `setoption` and the HTTP parameters, so each front end offers the same
//! knobs with the same checks.

use mirror_core::{GameSource, TimeClass, time::Month};
use mirror_store::Filter;

use crate::{
    guard::Guard,
    policy::{ParsePolicyError, ParseTiersError, Policy, Tiers},
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
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            policy: Policy::default(),
            tiers: Tiers::default(),
            min_games: 1,
            filter: Filter::default(),
            seed: 0,
            // Chosen on the validation games of the shared player (docs/eval.md, "Book in
            // context"): the repertoire drifts, and its last year says most.
            recent_months: 12,
            recent_weight: 20.0,
            game_time_class: None,
            // Chosen on the validation games (docs/eval.md, "Book in context"): a player who
            // mixes time classes plays each its own way.
            context_weight: 10.0,
            guard: Some(Guard::default()),
            sample: false,
            model_weight: true,
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
            // the player's variety (docs/eval.md, "Book in context").
            context_weight: 0.0,
            ..EngineOptions::default()
        }
    }
}

/// The knobs [`EngineOptions::set`] knows, as written in a config file. UCI's CamelCase
/// (`MinGames`) and HTTP's camelCase (`minGames`) name the same knobs: case, `_` and `-`
/// do not matter.
pub const OPTION_NAMES: [&str; 18] = [
    "policy",
    "tiers",
    "min_games",
    "seed",
    "recent_months",
    "recent_weight",
    "guard",
    "guard_top",
    "guard_margin",
    "sample",
    "time_class",
    "rated",
    "since",
    "until",
    "opponent_rating",
    "sources",
    "game_time_class",
    "context_weight",
];

/// A knob that could not be set.
#[derive(Debug, thiserror::Error)]
pub enum OptionError {
    /// No such knob.
    #[error("unknown engine option {0:?}; the options are {names}", names = OPTION_NAMES.join(", "))]
    Unknown(String),
    /// The knob's own parser refused the value (its message names the knob and value).
    #[error(transparent)]
    Rejected(Box<dyn std::error::Error + Send + Sync>),
    /// The value does not fit the knob.
    #[error("invalid {name} {value:?}: {source}")]
    Invalid {
        /// The knob.
        name: &'static str,
        /// The text given.
        value: String,
        /// What is wrong with it.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

/// The canonical name of a knob: `MinGames`, `minGames`, `min-games` → `min_games`.
pub fn canonical_name(name: &str) -> Option<&'static str> {
    let squash = |s: &str| -> String {
        s.chars()
            .filter(|c| !matches!(c, '_' | '-' | ' '))
            .flat_map(char::to_lowercase)
            .collect()
    };
    let wanted = squash(name);
    OPTION_NAMES.into_iter().find(|n| squash(n) == wanted)
}

fn invalid(name: &'static str, value: &str, why: impl Into<String>) -> OptionError {
    OptionError::Invalid {
        name,
        value: value.to_string(),
        source: why.into().into(),
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
        source: Box::new(e),
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
    /// `game_time_class` forgets it; `rated` takes `true`
    /// (rated games only), `false` (casual only) or `any`. On error nothing changes.
    pub fn set(&mut self, name: &str, value: &str) -> Result<(), OptionError> {
        let name = canonical_name(name).ok_or_else(|| OptionError::Unknown(name.to_string()))?;
        match name {
            "policy" => {
                self.policy = value
                    .parse()
                    .map_err(|e: ParsePolicyError| OptionError::Rejected(Box::new(e)))?;
                self.model_weight = false;
            }
            "tiers" => {
                self.tiers = value
                    .parse()
                    .map_err(|e: ParseTiersError| OptionError::Rejected(Box::new(e)))?;
            }
            "min_games" => {
                let n: u32 = parsed(name, value)?;
                if n == 0 {
                    return Err(invalid(name, value, "must be at least 1"));
                }
                self.min_games = n;
            }
            "seed" => self.seed = parsed(name, value)?,
            "recent_months" => {
                let n: u32 = parsed(name, value)?;
                if n > 1200 {
                    return Err(invalid(name, value, "at most 1200 months"));
                }
                self.recent_months = n;
            }
            "recent_weight" => {
                let w: f64 = parsed(name, value)?;
                if !(w.is_finite() && w >= 0.0) {
                    return Err(invalid(name, value, "must be a non-negative number"));
                }
                self.recent_weight = w;
            }
            "guard" => {
                self.guard = if boolean(name, value)? {
                    Some(self.guard.unwrap_or_default())
                } else {
                    None
                };
            }
            "guard_top" | "guard_margin" => {
                let Some(mut g) = self.guard else {
                    return Err(invalid(name, value, "the guard is off"));
                };
                if name == "guard_top" {
                    let n: usize = parsed(name, value)?;
                    if n == 0 {
                        return Err(invalid(name, value, "must be at least 1"));
                    }
                    g.top = n;
                } else {
                    let cp: i32 = parsed(name, value)?;
                    if cp < 0 {
                        return Err(invalid(name, value, "must be at least 0 centipawns"));
                    }
                    g.margin = cp;
                }
                self.guard = Some(g);
            }
            "sample" => self.sample = boolean(name, value)?,
            "time_class" => {
                self.filter.time_classes = parsed_list::<TimeClass>(name, value)?;
            }
            "rated" => {
                self.filter.rated = match value.trim().to_ascii_lowercase().as_str() {
                    "any" | "" => None,
                    _ => Some(boolean(name, value)?),
                };
            }
            "since" | "until" => {
                let m = month(name, value)?;
                let (since, until) = if name == "since" {
                    (m, self.filter.until)
                } else {
                    (self.filter.since, m)
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
                self.filter.since = since;
                self.filter.until = until;
            }
            "opponent_rating" => {
                self.filter.opponent_rating = if value.trim().is_empty() {
                    None
                } else {
                    Some(parsed(name, value)?)
                };
            }
            "sources" => {
                self.filter.sources = parsed_list::<GameSource>(name, value)?;
            }
            "game_time_class" => {
                self.game_time_class = if value.trim().is_empty() {
                    None
                } else {
                    Some(parsed(name, value)?)
                };
            }
            "context_weight" => {
                let w: f64 = parsed(name, value)?;
                if !(w.is_finite() && w >= 0.0) {
                    return Err(invalid(name, value, "must be a non-negative number"));
                }
                self.context_weight = w;
            }
            _ => unreachable!("canonical_name only returns OPTION_NAMES"),
        }
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
