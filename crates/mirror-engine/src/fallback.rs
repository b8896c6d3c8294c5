//! Policies for positions the book cannot answer: a uniformly random legal move until a
//! model is trained, then the player's CNN behind the blunder guard.

use rand::{Rng, RngCore};
use shakmaty::{Chess, Move, Position};

use crate::{draw::FallbackOutcomes, guard::Guard};

/// Builds the fallback for a player (e.g. loads their model once and shares it); used by
/// servers, which make one engine per request.
pub type FallbackFactory = std::sync::Arc<dyn Fn(&str) -> Box<dyn Fallback> + Send + Sync>;

/// A policy for positions the book cannot answer.
pub trait Fallback: Send {
    /// Short name, shown with every move it chooses (`guard`: the guard in force).
    fn name(&self, guard: Option<Guard>) -> String;
    /// A legal move in `pos` (which has at least one; reached by the opponent's move
    /// `last` if known) and a detail for people; `guard` checks a model's choice; with
    /// `sample` (a temperature), the move is drawn from [`Fallback::distribution`] at that
    /// temperature instead of being its first choice.
    fn choose(
        &mut self,
        pos: &Chess,
        last: Option<&Move>,
        guard: Option<Guard>,
        sample: Option<f64>,
        rng: &mut dyn RngCore,
    ) -> (Move, String);
    /// The probabilities with which `choose` samples at `temperature` (a model's scores
    /// divided by it before the softmax: below 1 sharper, 1 the model's own), likeliest
    /// first.
    fn distribution(
        &mut self,
        pos: &Chess,
        last: Option<&Move>,
        guard: Option<Guard>,
        temperature: f64,
    ) -> Vec<(Move, f64)>;
    /// A probability for every legal move of `pos`, if the policy has one (the model's
    /// softmax); `None` means uniform.
    fn prior(&mut self, _pos: &Chess, _last: Option<&Move>) -> Option<Vec<(Move, f64)>> {
        None
    }
    /// The settings chosen for this model on the player's validation games (`mirror
    /// train`, kept in its `meta.json`); none by default.
    fn tuned(&self) -> Tuned {
        Tuned::default()
    }
    /// Its own judge of the searched moves by `by` ([`crate::search::SearchBy::Model`] or
    /// [`crate::search::SearchBy::Puct`]): a model's value head; `None` without one (or
    /// for another judge).
    fn judge(&self, _by: crate::search::SearchBy) -> Option<&dyn crate::search::Judge> {
        None
    }
    /// Whether its distribution ranks the moves (a model), so that the search can re-weigh
    /// its likeliest; a uniform one (a random legal move) is not searched.
    fn ranks(&self) -> bool {
        false
    }
    /// Every move [`Fallback::choose`] may play in `pos`, before its draw, if it draws by
    /// [`crate::draw::draw_index`] from its first uniform number (so that the moves can
    /// be kept and drawn from later, as a server does); `None` (the default) when it draws
    /// otherwise.
    fn outcomes(
        &mut self,
        _pos: &Chess,
        _last: Option<&Move>,
        _guard: Option<Guard>,
        _sample: Option<f64>,
    ) -> Option<FallbackOutcomes> {
        None
    }
}

/// What `mirror train` chose for a model on the player's validation games, each `None`
/// where it chose nothing ([`Fallback::tuned`]).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tuned {
    /// The weight of [`Fallback::prior`] in the player's book (pseudo-games of `likely`).
    pub book_prior: Option<f64>,
    /// The search (the strength dial).
    pub search: Option<crate::search::SearchOptions>,
    /// The sampling temperature (the strength dial of the sampling mirror).
    pub temperature: Option<f64>,
}

/// The simple fallback where no model plays: a uniformly random legal move, with why
/// (shown in its name).
#[derive(Debug, Clone, Copy)]
pub struct RandomLegal {
    why: &'static str,
}

impl RandomLegal {
    /// A random mover, `why` saying why no model plays (e.g. "no model trained").
    pub fn because(why: &'static str) -> RandomLegal {
        RandomLegal { why }
    }
}

impl Default for RandomLegal {
    /// Until a model is set: "no model trained".
    fn default() -> Self {
        RandomLegal::because("no model trained")
    }
}

impl Fallback for RandomLegal {
    fn name(&self, _guard: Option<Guard>) -> String {
        format!("random legal move ({})", self.why)
    }

    fn choose(
        &mut self,
        pos: &Chess,
        _last: Option<&Move>,
        _guard: Option<Guard>,
        _sample: Option<f64>,
        rng: &mut dyn RngCore,
    ) -> (Move, String) {
        let moves = pos.legal_moves();
        let i = rng.random_range(0..moves.len());
        (moves[i], format!("1 of {} legal moves", moves.len()))
    }

    fn distribution(
        &mut self,
        pos: &Chess,
        _last: Option<&Move>,
        _guard: Option<Guard>,
        _temperature: f64,
    ) -> Vec<(Move, f64)> {
        let moves = pos.legal_moves();
        let p = 1.0 / moves.len().max(1) as f64;
        moves.into_iter().map(|m| (m, p)).collect()
    }
}

/// Each player's model fallback from `load` (the player's own model or the base that plays
/// for them), for a process that serves many players: a player whose model cannot be
/// loaded plays random legal moves, `report` is told once (player, why) and the load is not
/// tried again for them.
#[cfg(feature = "model")]
pub fn model_fallbacks<L, R>(load: L, report: R) -> FallbackFactory
where
    L: Fn(&str) -> Result<std::sync::Arc<mirror_model::Predictor>, String> + Send + Sync + 'static,
    R: Fn(&str, &str) + Send + Sync + 'static,
{
    let failed: std::sync::Mutex<std::collections::HashSet<String>> = std::sync::Mutex::default();
    std::sync::Arc::new(move |player: &str| -> Box<dyn Fallback> {
        let key = player.to_lowercase();
        let failed_set = || {
            failed
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        let unloadable = || Box::new(RandomLegal::because("the player's model cannot be loaded"));
        if failed_set().contains(&key) {
            return unloadable();
        }
        match load(player) {
            Ok(model) => Box::new(ModelFallback::new(model)),
            Err(why) => {
                if failed_set().insert(key) {
                    report(player, &why);
                }
                unloadable()
            }
        }
    })
}

/// The trained CNN as the fallback: the legal move with the highest score, unless
/// the guard finds that it gives material away (then the model's next best that does
/// not). The predictor is shared (it is `Send + Sync`), so a server loads a player's
/// model once.
#[cfg(feature = "model")]
#[derive(Debug, Clone)]
pub struct ModelFallback {
    /// The model.
    pub predictor: std::sync::Arc<mirror_model::Predictor>,
    /// The model as a search's judges (expectimax, PUCT), if it has a value head.
    judges: Option<(crate::lookahead::ValueJudge, crate::lookahead::ValueJudge)>,
}

#[cfg(feature = "model")]
impl ModelFallback {
    /// The model as a fallback.
    pub fn new(predictor: std::sync::Arc<mirror_model::Predictor>) -> ModelFallback {
        use crate::lookahead::{ValueJudge, Way};
        let judges = ValueJudge::new(predictor.clone(), Way::Expectimax)
            .zip(ValueJudge::new(predictor.clone(), Way::Puct));
        ModelFallback { predictor, judges }
    }
}

#[cfg(feature = "model")]
impl Fallback for ModelFallback {
    fn name(&self, guard: Option<Guard>) -> String {
        let meta = &self.predictor.meta;
        if meta.player == mirror_model::library::POPULATION {
            return format!(
                "population model ({} games of many players, validation top-1 {:.1}%{})",
                meta.train_games,
                100.0 * meta.val_top1,
                if guard.is_some() { ", guarded" } else { "" }
            );
        }
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
        last: Option<&Move>,
        guard: Option<Guard>,
        sample: Option<f64>,
        rng: &mut dyn RngCore,
    ) -> (Move, String) {
        let outcomes = self
            .outcomes(pos, last, guard, sample)
            .expect("the model ranks every legal move and the engine checked there is one");
        let u = if outcomes.draws { rng.random() } else { 0.0 };
        outcomes.draw(u)
    }

    /// Sampling: the moves of [`Fallback::distribution`] at its temperature it lets
    /// through, likeliest first. Not sampling: its first choice the guard accepts. `None`
    /// only where no move is legal.
    fn outcomes(
        &mut self,
        pos: &Chess,
        last: Option<&Move>,
        guard: Option<Guard>,
        sample: Option<f64>,
    ) -> Option<FallbackOutcomes> {
        if let Some(temperature) = sample {
            let dist = self.distribution(pos, last, guard, temperature);
            let through: Vec<(Move, f64)> = dist.into_iter().filter(|(_, p)| *p > 0.0).collect();
            let of = through.len();
            let by = if guard.is_some() { "guard" } else { "model" };
            let moves: Vec<(Move, f64, String)> = through
                .into_iter()
                .map(|(m, p)| {
                    let detail =
                        format!("sampled, p={p:.2} among the {of} moves the {by} lets through");
                    (m, p, detail)
                })
                .collect();
            return (!moves.is_empty()).then_some(FallbackOutcomes { draws: true, moves });
        }
        let ranked = self.predictor.rank(pos, last);
        let i = match guard {
            Some(g) => {
                let moves: Vec<Move> = ranked.iter().map(|(m, _)| *m).collect();
                crate::guard::guarded_choice(pos, &moves, g.top, g.margin)
            }
            None => 0,
        };
        let &(m, score) = ranked.get(i)?;
        let detail = if i == 0 {
            format!("score {score:.2}")
        } else {
            format!(
                "score {score:.2}, its choice no. {} (the guard skipped {i} that lose material)",
                i + 1
            )
        };
        Some(FallbackOutcomes {
            draws: false,
            moves: vec![(m, 1.0, detail)],
        })
    }

    fn prior(&mut self, pos: &Chess, last: Option<&Move>) -> Option<Vec<(Move, f64)>> {
        let ranked = self.predictor.rank(pos, last);
        (!ranked.is_empty()).then(|| mirror_model::inference::softmax(&ranked))
    }

    fn ranks(&self) -> bool {
        true
    }

    fn judge(&self, by: crate::search::SearchBy) -> Option<&dyn crate::search::Judge> {
        let (expectimax, puct) = self.judges.as_ref()?;
        match by {
            crate::search::SearchBy::Model => Some(expectimax),
            crate::search::SearchBy::Puct => Some(puct),
            crate::search::SearchBy::Stockfish => None,
        }
    }

    fn tuned(&self) -> Tuned {
        let meta = &self.predictor.meta;
        Tuned {
            book_prior: meta.book_prior,
            search: meta.search.map(|d| crate::search::SearchOptions {
                nodes: d.nodes,
                by: crate::search::SearchBy::Stockfish,
                top: d.top,
                weight: d.weight,
                own: d.own,
            }),
            temperature: meta.temperature,
        }
    }

    /// The model's softmax at `temperature` over the moves the guard lets through (of its
    /// `top` first; the rest unchecked), renormalised; a move the guard stops has
    /// probability 0.
    fn distribution(
        &mut self,
        pos: &Chess,
        last: Option<&Move>,
        guard: Option<Guard>,
        temperature: f64,
    ) -> Vec<(Move, f64)> {
        let mut ranked = self.predictor.rank(pos, last);
        if temperature != 1.0 {
            // The knob and meta.json's reader both refuse a temperature that is not a
            // positive number.
            let t = temperature as f32;
            for (_, score) in &mut ranked {
                *score /= t;
            }
        }
        let mut dist = mirror_model::inference::softmax(&ranked);
        if let Some(g) = guard {
            let moves: Vec<Move> = ranked.iter().map(|(m, _)| *m).collect();
            let ok = crate::guard::acceptable(pos, &moves, g.top, g.margin);
            for (i, (_, p)) in dist.iter_mut().enumerate() {
                if !ok.get(i).copied().unwrap_or(true) {
                    *p = 0.0;
                }
            }
            let sum: f64 = dist.iter().map(|(_, p)| p).sum();
            for (_, p) in &mut dist {
                *p /= sum;
            }
        }
        dist.sort_by(|a, b| b.1.total_cmp(&a.1));
        dist
    }
}
