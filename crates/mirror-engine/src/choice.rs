//! A chosen move and what really produced it.

use std::fmt;

use mirror_core::MoveStats;
use shakmaty::Move;

use crate::policy::Tier;

/// Which book policy chose a move, and by what rule.
#[derive(Clone, Debug, PartialEq)]
pub enum BookRule {
    /// The seed's tiers: the first tier with a move.
    Tier {
        /// 1-based tier number.
        number: usize,
        /// The tier's rule, e.g. `win > 0.5`.
        rule: Tier,
    },
    /// `habit`: sampled by games played plus `prior` x the model's probability.
    Habit {
        /// The model's weight in pseudo-games.
        prior: f64,
    },
    /// `likely`: the heaviest move by games played plus `prior` x the model's probability.
    Likely {
        /// The model's weight in pseudo-games.
        prior: f64,
    },
    /// `lower`: the best 95% lower bound of the score.
    Lower {
        /// The chosen move's lower bound.
        low: f64,
    },
}

impl BookRule {
    /// The policy's name as `--policy` takes it: `tiers`, `habit:1`, `likely:1`.
    pub fn policy(&self) -> String {
        match self {
            BookRule::Tier { .. } => "tiers".into(),
            BookRule::Habit { prior } => format!("habit:{prior}"),
            BookRule::Likely { prior } => format!("likely:{prior}"),
            BookRule::Lower { .. } => "lower".into(),
        }
    }

    /// The 1-based tier, for the tiers policy only.
    pub fn tier(&self) -> Option<usize> {
        match self {
            BookRule::Tier { number, .. } => Some(*number),
            _ => None,
        }
    }

    /// The rule alone: `win > 0.5`, `games played + 1 x model`.
    pub fn rule(&self) -> String {
        match self {
            BookRule::Tier { rule, .. } => rule.to_string(),
            BookRule::Habit { prior } | BookRule::Likely { prior } => {
                format!("games played + {prior} x model")
            }
            BookRule::Lower { low } => {
                format!("best 95% lower bound of the score, {:.1}%", 100.0 * low)
            }
        }
    }
}

impl fmt::Display for BookRule {
    /// `tier 1 (win > 0.5)` or `likely:1 (games played + 1 x model)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BookRule::Tier { number, rule } => write!(f, "tier {number} ({rule})"),
            _ => write!(f, "{} ({})", self.policy(), self.rule()),
        }
    }
}

/// Where a move came from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// The player's own tree.
    Book {
        /// The policy and rule that chose it.
        rule: BookRule,
        /// The player's results with the chosen move.
        stats: MoveStats,
        /// The probability the policy gave it (1 for `likely`'s choice).
        probability: f64,
        /// Every move the player made here with its statistics and the policy's
        /// probability for it (0 outside the chosen tier), most played first.
        candidates: Vec<(Move, MoveStats, f64)>,
    },
    /// The fallback policy: the position is not in the player's tree, no tier accepts the
    /// moves played here, or the book policy's blend chose a move the player never played.
    Fallback {
        /// Name of the policy.
        policy: String,
        /// What it says about its choice (e.g. a model score).
        detail: String,
        /// Why the book did not answer.
        why: FallbackWhy,
        /// Moves the player made here that were not chosen.
        rejected: Vec<(Move, MoveStats)>,
    },
    /// A basic won ending (`crate::endgame`): among the moves that keep the shortest mate,
    /// the model's likeliest.
    Endgame {
        /// The ending, e.g. `KBNK`.
        ending: &'static str,
        /// Plies to mate against the best defence, this move included.
        plies: u8,
        /// Moves that keep the shortest mate (the mirror chose among these).
        keeping: usize,
        /// Legal moves in the position.
        legal: usize,
        /// How it chose among them: the model's likeliest, or at random without a model.
        by: String,
    },
}

/// Why the fallback answered a position.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FallbackWhy {
    /// The player never reached the position (with the filters in force).
    NotInBook,
    /// Every move played here has fewer games than the minimum.
    TooFewGames {
        /// The minimum games per book move.
        min_games: u32,
    },
    /// No tier accepts the moves played here (every one always lost).
    NoTierAccepts,
    /// The `habit`/`likely` blend chose a move the player never played here, on the
    /// model's prior.
    PriorChose,
}

/// A chosen move and why.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    /// The move (always legal in the position it was chosen for).
    pub mv: Move,
    /// Where it came from.
    pub source: Source,
}

impl Choice {
    /// One line for people: `book, tier 1 (win > 0.5): 131 games, W/D/L 57/4/70, p=0.85
    /// among 3 move(s) played here`.
    pub fn describe(&self) -> String {
        match &self.source {
            Source::Book {
                rule,
                stats,
                probability,
                candidates,
            } => format!(
                "book, {rule}: {} games, W/D/L {}/{}/{}, p={probability:.2} among {} move(s) played here",
                stats.games(),
                stats.wins,
                stats.draws,
                stats.losses,
                candidates.len()
            ),
            Source::Fallback {
                policy,
                detail,
                why,
                rejected,
            } => {
                let n = rejected.len();
                let why = match why {
                    FallbackWhy::NotInBook => "position not in the player's games".to_string(),
                    FallbackWhy::TooFewGames { min_games } => {
                        format!("the {n} move(s) played here have fewer than {min_games} games")
                    }
                    FallbackWhy::NoTierAccepts => {
                        format!("no tier accepts the {n} move(s) played here")
                    }
                    FallbackWhy::PriorChose => {
                        format!("the model's prior outweighed the {n} move(s) played here")
                    }
                };
                format!("fallback {policy}: {detail} ({why})")
            }
            Source::Endgame {
                ending,
                plies,
                keeping,
                legal,
                by,
            } => format!(
                "endgame table {ending}: mate in {} (one of the {keeping} of {legal} legal moves that keep the shortest mate; {by})",
                plies.div_ceil(2)
            ),
        }
    }

    /// Where the move came from in a chess player's words, for `player`'s mirror:
    /// "Hikaru's move here in 4,942 games, scoring 48%", "out of Hikaru's book: Hikaru's
    /// style model". [`Choice::describe`] is the engine's full account.
    pub fn in_words(&self, player: &str) -> String {
        match &self.source {
            Source::Book { stats, .. } => {
                let games = stats.games();
                let score = if games == 0 {
                    0.0
                } else {
                    (f64::from(stats.wins) + f64::from(stats.draws) / 2.0) / f64::from(games)
                };
                format!(
                    "{player}'s move here in {} game{}, scoring {:.0}%",
                    mirror_core::notation::thousands(u64::from(games)),
                    if games == 1 { "" } else { "s" },
                    100.0 * score
                )
            }
            Source::Fallback { policy, why, .. } => {
                let style = if policy.starts_with("population model") {
                    "the style model of many players".to_string()
                } else if policy.starts_with("model") {
                    format!("{player}'s style model")
                } else if policy.starts_with("random") {
                    "a random legal move (no style model yet)".to_string()
                } else {
                    policy.clone()
                };
                match why {
                    FallbackWhy::NotInBook => format!("out of {player}'s book: {style}"),
                    FallbackWhy::TooFewGames { .. } => {
                        format!("{player} came here too rarely: {style}")
                    }
                    FallbackWhy::NoTierAccepts => {
                        format!("{player} lost with every move played here: {style}")
                    }
                    FallbackWhy::PriorChose => {
                        format!("{style}, over the moves {player} played here")
                    }
                }
            }
            Source::Endgame { ending, plies, .. } => {
                format!("a won ending ({ending}): mate in {}", plies.div_ceil(2))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirror_core::MoveStats;
    use shakmaty::{Chess, Position};

    fn first_move() -> Move {
        Chess::default().legal_moves()[0]
    }

    #[test]
    fn a_reply_in_words_counts_as_people_write() {
        let stats = MoveStats {
            wins: 2_300,
            draws: 142,
            losses: 2_500,
            ..MoveStats::default()
        };
        let book = Choice {
            mv: first_move(),
            source: Source::Book {
                rule: BookRule::Likely { prior: 1.0 },
                stats,
                probability: 1.0,
                candidates: Vec::new(),
            },
        };
        assert_eq!(
            book.in_words("Hikaru"),
            "Hikaru's move here in 4,942 games, scoring 48%"
        );
        let model = Choice {
            mv: first_move(),
            source: Source::Fallback {
                policy: "model (900 games of Hikaru, validation top-1 41.0%)".into(),
                detail: String::new(),
                why: FallbackWhy::NotInBook,
                rejected: Vec::new(),
            },
        };
        assert_eq!(
            model.in_words("Hikaru"),
            "out of Hikaru's book: Hikaru's style model"
        );
    }
}
