//! How the engine chooses among the player's own moves in a book position, one file per
//! policy: [`tiers`] (the seed's win-rate tiers), [`habit`] (sampled by games played, the
//! model's probabilities as pseudo-games), [`likely`] (always the likeliest of those) and
//! [`lower`] (the move whose score has the best 95% lower bound).
//! The engine ([`crate::Engine`]) gathers the book and calls the policy in force.

pub mod habit;
pub mod likely;
pub mod lower;
pub mod tiers;

use std::fmt;

use mirror_core::{MoveCode, MoveStats};
use shakmaty::Move;

pub use tiers::{Metric, ParseTiersError, Selection, Tier, Tiers};

/// A move the player made from the position (legal there), with their results.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct BookMove {
    /// The move.
    pub mv: Move,
    /// Its stored code (its order breaks ties between moves played equally often).
    pub code: MoveCode,
    /// The player's results with it.
    pub stats: MoveStats,
}

/// How the engine chooses among the player's own moves in a book position. The default
/// is [`Policy::Likely`] with the model's prior at 1 game: on the shared player it matches
/// the player's move in the book twice as often as the seed's tiers (`mirror eval`).
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum Policy {
    /// The seed's win-rate tiers, sampled by frequency within the first non-empty tier.
    Tiers,
    /// Sampled by how often the player played each move, with the fallback's (the
    /// model's) probabilities over all legal moves added as `prior` pseudo-games: a move
    /// played once and one the model likes can both come, as with the player.
    Habit {
        /// Pseudo-games of the model's prior.
        prior: f64,
    },
    /// Always the player's likeliest move by that same weight (deterministic; the model
    /// breaks ties between moves played equally often).
    Likely {
        /// Pseudo-games of the model's prior.
        prior: f64,
    },
    /// The move whose score (wins + half the draws) has the highest 95% lower bound: the
    /// player's best-proven move, not their luckiest (deterministic).
    Lower,
}

impl Policy {
    /// The model's weight in pseudo-games, for the policies that blend it in.
    pub fn prior(self) -> Option<f64> {
        match self {
            Policy::Tiers | Policy::Lower => None,
            Policy::Habit { prior } | Policy::Likely { prior } => Some(prior),
        }
    }
}

/// A policy that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid policy {0:?}: expected tiers, habit, likely or lower, habit and likely optionally \
     with the model's weight in games, e.g. habit:1"
)]
pub struct ParsePolicyError(pub String);

impl Default for Policy {
    /// `likely:30`, the top-1 default of `uci` and `eval` for a model without a weight of
    /// its own ([`crate::EngineOptions::model_weight`]): chosen on the shared player's
    /// validation games (docs/benchmarks.md, "Evaluation"): where the
    /// player's book is thin, the model's opinion (30 pseudo-games) outweighs one or two
    /// old games.
    fn default() -> Self {
        Policy::Likely { prior: 30.0 }
    }
}

impl std::str::FromStr for Policy {
    type Err = ParsePolicyError;

    fn from_str(s: &str) -> Result<Policy, ParsePolicyError> {
        let err = || ParsePolicyError(s.to_string());
        let (name, prior) = match s.trim().split_once(':') {
            Some((n, p)) => {
                let p: f64 = p.trim().parse().map_err(|_| err())?;
                if !(p.is_finite() && p >= 0.0) {
                    return Err(err());
                }
                (n.trim(), Some(p))
            }
            None => (s.trim(), None),
        };
        match (name.to_ascii_lowercase().as_str(), prior) {
            ("tiers", None) => Ok(Policy::Tiers),
            ("lower", None) => Ok(Policy::Lower),
            ("habit", p) => Ok(Policy::Habit {
                prior: p.unwrap_or(1.0),
            }),
            ("likely", p) => Ok(Policy::Likely {
                prior: p.unwrap_or(1.0),
            }),
            _ => Err(err()),
        }
    }
}

impl fmt::Display for Policy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Policy::Tiers => f.write_str("tiers"),
            Policy::Lower => f.write_str("lower"),
            Policy::Habit { prior } => write!(f, "habit:{prior}"),
            Policy::Likely { prior } => write!(f, "likely:{prior}"),
        }
    }
}

/// The move for a uniform random number `u` in `[0, 1)` from a distribution (likeliest
/// first): walks the cumulative probabilities; rounding that leaves the sum a hair under 1
/// gives the last move.
///
/// # Panics
/// On an empty distribution (the policies never produce one).
pub fn sample(dist: &[(Move, f64)], u: f64) -> Move {
    let i = crate::draw::draw_index(true, dist.iter().map(|(_, p)| *p), u);
    dist.get(i)
        .expect("a policy's distribution is never empty")
        .0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn policies_parse_and_print() {
        for (text, p) in [
            ("tiers", Policy::Tiers),
            ("likely", Policy::Likely { prior: 1.0 }),
            ("Habit:0.5", Policy::Habit { prior: 0.5 }),
            ("likely:0", Policy::Likely { prior: 0.0 }),
            ("lower", Policy::Lower),
        ] {
            let parsed: Policy = text.parse().expect(text);
            assert_eq!(parsed, p);
            assert_eq!(parsed.to_string().parse::<Policy>().expect("round trip"), p);
        }
        for bad in [
            "",
            "greedy",
            "tiers:1",
            "likely:-1",
            "habit:x",
            "likely:inf",
            "lower:1",
        ] {
            let e = bad.parse::<Policy>().expect_err(bad);
            assert!(
                e.to_string()
                    .contains("expected tiers, habit, likely or lower"),
                "{e}"
            );
        }
    }
}
