//! The engine's answer in a position before its draw, from the book or from a fallback that
//! draws the same way (the model): every move it may play there, with its probability, in
//! the order of the draw, and the [`Choice`] each one makes.
//! [`Engine::choose`](crate::Engine::choose) draws from it; a server keeps it per
//! (player, data version, position, options) and draws per request, so that a position
//! asked again costs one draw instead of the book's reads, the model and its guard.

use shakmaty::Move;

use mirror_core::MoveStats;

use crate::{
    choice::{BookRule, Choice, FallbackWhy, Source},
    draw::{FallbackOutcomes, draw_index},
    policy::{BookMove, Tier},
};

/// How the moves were weighed, for the choice each one makes.
#[derive(Clone, Debug, PartialEq)]
enum How {
    /// A tier of the `tiers` policy (1-based number, rule).
    Tier { number: usize, rule: Tier },
    /// `lower`: the best lower bound.
    Lower { low: f64 },
    /// `habit` or `likely`: the blend of games played and the model's prior. A move the
    /// player never played is the fallback's, named `prior_policy`.
    Blend {
        rule: BookRule,
        prior_policy: String,
    },
    /// Out of the book: the fallback named `policy` answers, for `why`; `details[i]` is
    /// what the choice of move `i` shows; `rejected` are the player's moves here.
    Fallback {
        policy: String,
        why: FallbackWhy,
        details: Vec<String>,
        rejected: Vec<(Move, MoveStats)>,
    },
}

/// Every move the engine may play in a position, with its probability, in the order of the
/// draw (see [`Outcomes::index`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Outcomes {
    draws: bool,
    moves: Vec<(Move, f64)>,
    candidates: Vec<BookMove>,
    how: How,
}

impl Outcomes {
    pub(crate) fn tier(
        number: usize,
        rule: Tier,
        moves: Vec<(Move, f64)>,
        candidates: &[BookMove],
    ) -> Outcomes {
        Outcomes {
            draws: true,
            moves,
            candidates: candidates.to_vec(),
            how: How::Tier { number, rule },
        }
    }

    pub(crate) fn lower(mv: Move, low: f64, candidates: &[BookMove]) -> Outcomes {
        Outcomes {
            draws: false,
            moves: vec![(mv, 1.0)],
            candidates: candidates.to_vec(),
            how: How::Lower { low },
        }
    }

    pub(crate) fn blend(
        rule: BookRule,
        dist: Vec<(Move, f64)>,
        candidates: &[BookMove],
        prior_policy: String,
    ) -> Outcomes {
        let likely = matches!(rule, BookRule::Likely { .. });
        Outcomes {
            // `likely` plays the first; `habit` draws.
            draws: !likely,
            moves: dist,
            candidates: candidates.to_vec(),
            how: How::Blend { rule, prior_policy },
        }
    }

    pub(crate) fn fallback(
        policy: String,
        why: FallbackWhy,
        candidates: &[BookMove],
        outcomes: FallbackOutcomes,
    ) -> Outcomes {
        let (moves, details) = outcomes
            .moves
            .into_iter()
            .map(|(m, p, detail)| ((m, p), detail))
            .unzip();
        Outcomes {
            draws: outcomes.draws,
            moves,
            candidates: Vec::new(),
            how: How::Fallback {
                policy,
                why,
                details,
                rejected: candidates.iter().map(|c| (c.mv, c.stats)).collect(),
            },
        }
    }

    /// Whether the engine draws a random number here (`tiers`, `habit`, a sampling
    /// fallback) or plays the first move (`likely`, `lower`, a fallback's first choice).
    pub fn draws(&self) -> bool {
        self.draws
    }

    /// The moves with the probabilities they are drawn with, in the order of the draw.
    pub fn moves(&self) -> &[(Move, f64)] {
        &self.moves
    }

    /// How many of [`Outcomes::moves`] can be played: all of them when the engine draws,
    /// else the first.
    pub fn reachable(&self) -> usize {
        if self.draws { self.moves.len() } else { 1 }
    }

    /// The index of the move played for the uniform number `u` in `[0, 1)` (ignored when
    /// the engine does not draw): the first whose cumulative probability passes `u`; the
    /// last takes what rounding leaves.
    pub fn index(&self, u: f64) -> usize {
        draw_index(self.draws, self.moves.iter().map(|(_, p)| *p), u)
    }

    /// The probability the engine plays `mv` with (1 for `likely`'s and `lower`'s move).
    fn probability(&self, mv: &Move, chosen: &Move) -> f64 {
        if !self.draws {
            return f64::from(u8::from(mv == chosen));
        }
        self.moves
            .iter()
            .find(|(m, _)| m == mv)
            .map_or(0.0, |(_, p)| *p)
    }

    /// The choice that playing move `i` makes (see [`Outcomes::index`]).
    pub fn choice(&self, i: usize) -> Choice {
        let i = i.min(self.moves.len().saturating_sub(1));
        let (mv, _) = self.moves[i];
        let rule = match &self.how {
            How::Fallback {
                policy,
                why,
                details,
                rejected,
            } => {
                return Choice {
                    mv,
                    source: Source::Fallback {
                        policy: policy.clone(),
                        detail: details[i].clone(),
                        why: *why,
                        rejected: rejected.clone(),
                    },
                };
            }
            How::Tier { number, rule } => BookRule::Tier {
                number: *number,
                rule: *rule,
            },
            How::Lower { low } => BookRule::Lower { low: *low },
            How::Blend { rule, .. } => rule.clone(),
        };
        let Some(played) = self.candidates.iter().find(|c| c.mv == mv) else {
            // A move the player never played: only the blend weighs those (the model's
            // prior chose it), and it is the fallback's.
            let How::Blend { prior_policy, .. } = &self.how else {
                unreachable!("tiers and lower only weigh the player's moves")
            };
            let probability = self.probability(&mv, &mv);
            return Choice {
                mv,
                source: Source::Fallback {
                    policy: prior_policy.clone(),
                    detail: format!("p={probability:.2} in a position the player knows"),
                    why: FallbackWhy::PriorChose,
                    rejected: self.candidates.iter().map(|c| (c.mv, c.stats)).collect(),
                },
            };
        };
        let stats = played.stats;
        Choice {
            mv,
            source: Source::Book {
                rule,
                stats,
                probability: self.probability(&mv, &mv),
                candidates: self
                    .candidates
                    .iter()
                    .map(|c| (c.mv, c.stats, self.probability(&c.mv, &mv)))
                    .collect(),
            },
        }
    }
}
