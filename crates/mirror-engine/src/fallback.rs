//! Policies for positions the book cannot answer: a uniformly random legal move until a
//! model is trained, then the player's CNN behind the blunder guard.

use rand::{Rng, RngCore};
use shakmaty::{Chess, Move, Position};

use crate::guard::Guard;

/// Builds the fallback for a player (e.g. loads their model once and shares it); used by
/// servers, which make one engine per request.
pub type FallbackFactory = std::sync::Arc<dyn Fn(&str) -> Box<dyn Fallback> + Send + Sync>;

/// A policy for positions the book cannot answer.
pub trait Fallback: Send {
    /// Short name, shown with every move it chooses (`guard`: the guard in force).
    fn name(&self, guard: Option<Guard>) -> String;
    /// A legal move in `pos` (which has at least one) and a detail for people; `guard`
    /// checks a model's choice.
    fn choose(
        &mut self,
        pos: &Chess,
        guard: Option<Guard>,
        rng: &mut dyn RngCore,
    ) -> (Move, String);
    /// A probability for every legal move of `pos`, if the policy has one (the model's
    /// softmax); `None` means uniform.
    fn prior(&mut self, _pos: &Chess) -> Option<Vec<(Move, f64)>> {
        None
    }
}

/// The simple fallback until a model is trained: a uniformly random legal move.
#[derive(Debug, Default, Clone, Copy)]
pub struct RandomLegal;

impl Fallback for RandomLegal {
    fn name(&self, _guard: Option<Guard>) -> String {
        "random legal move (no model trained)".into()
    }

    fn choose(
        &mut self,
        pos: &Chess,
        _guard: Option<Guard>,
        rng: &mut dyn RngCore,
    ) -> (Move, String) {
        let moves = pos.legal_moves();
        let i = rng.random_range(0..moves.len());
        (moves[i], format!("1 of {} legal moves", moves.len()))
    }
}

/// The trained CNN as the fallback: the legal move with the highest from+to score, unless
/// the guard finds that it gives material away (then the model's next best that does
/// not). The predictor is shared (it is `Send + Sync`), so a server loads a player's
/// model once.
#[cfg(feature = "model")]
#[derive(Debug, Clone)]
pub struct ModelFallback {
    /// The model.
    pub predictor: std::sync::Arc<mirror_model::Predictor>,
}

#[cfg(feature = "model")]
impl ModelFallback {
    /// The model as a fallback.
    pub fn new(predictor: std::sync::Arc<mirror_model::Predictor>) -> ModelFallback {
        ModelFallback { predictor }
    }
}

#[cfg(feature = "model")]
impl Fallback for ModelFallback {
    fn name(&self, guard: Option<Guard>) -> String {
        let meta = &self.predictor.meta;
        format!(
            "model ({} games of {}, validation top-1 {:.1}%{})",
            meta.train_games,
            meta.player,
            100.0 * meta.val_top1,
            if guard.is_some() { ", guarded" } else { "" }
        )
    }

    fn choose(
        &mut self,
        pos: &Chess,
        guard: Option<Guard>,
        _rng: &mut dyn RngCore,
    ) -> (Move, String) {
        let ranked = self.predictor.rank(pos);
        let i = match guard {
            Some(g) => {
                let moves: Vec<Move> = ranked.iter().map(|(m, _)| *m).collect();
                crate::guard::guarded_choice(pos, &moves, g.top, g.margin)
            }
            None => 0,
        };
        let (m, score) = *ranked
            .get(i)
            .expect("the model ranks every legal move and the engine checked there is one");
        let detail = if i == 0 {
            format!("score {score:.2}")
        } else {
            format!(
                "score {score:.2}, its choice no. {} (the guard skipped {i} that lose material)",
                i + 1
            )
        };
        (m, detail)
    }

    fn prior(&mut self, pos: &Chess) -> Option<Vec<(Move, f64)>> {
        let ranked = self.predictor.rank(pos);
        let top = ranked.first()?.1;
        let exp: Vec<f64> = ranked
            .iter()
            .map(|(_, s)| f64::from(s - top).exp())
            .collect();
        let sum: f64 = exp.iter().sum();
        Some(
            ranked
                .into_iter()
                .zip(exp)
                .map(|((m, _), e)| (m, e / sum))
                .collect(),
        )
    }
}
