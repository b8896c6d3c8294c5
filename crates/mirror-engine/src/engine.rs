//! The engine: the player's book through the tiered sampler, then a fallback.

use std::fmt;

use mirror_core::{
    MoveStats, PositionKey,
    sampler::{Candidate, Selection, Tiers, select},
    time::Month,
};
use mirror_store::{Filter, GraphStore, StoreError};
use rand::{Rng, RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Move, Position};

/// Errors of the engine.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The game is over in this position.
    #[error("no legal moves in this position ({0})")]
    NoLegalMoves(String),
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
}

/// A policy that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid policy {0:?}: expected tiers, habit or likely, the last two optionally with the \
     model's weight in games, e.g. habit:1"
)]
pub struct ParsePolicyError(pub String);

impl Default for Policy {
    fn default() -> Self {
        Policy::Likely { prior: 1.0 }
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
            Policy::Habit { prior } => write!(f, "habit:{prior}"),
            Policy::Likely { prior } => write!(f, "likely:{prior}"),
        }
    }
}

/// How the engine chooses.
#[derive(Clone, Debug)]
pub struct EngineOptions {
    /// How book positions are answered.
    pub policy: Policy,
    /// The sampler's tiers, in order (for [`Policy::Tiers`]).
    pub tiers: Tiers,
    /// Moves played in fewer games than this are left out of the book.
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
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            policy: Policy::default(),
            tiers: Tiers::default(),
            min_games: 1,
            filter: Filter::default(),
            seed: 0,
            recent_months: 0,
            recent_weight: 2.0,
        }
    }
}

/// Where a move came from.
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// The player's own tree.
    Book {
        /// 1-based tier number.
        tier: usize,
        /// The tier's rule, e.g. `win > 0.5`.
        rule: String,
        /// The player's results with the chosen move.
        stats: MoveStats,
        /// Its probability within the tier.
        probability: f64,
        /// Every move the player made here with its statistics and its probability (0
        /// outside the chosen tier), most played first.
        candidates: Vec<(Move, MoveStats, f64)>,
    },
    /// Not in the player's tree (or no tier matched): the fallback policy.
    Fallback {
        /// Name of the policy.
        policy: String,
        /// What it says about its choice (e.g. a model score).
        detail: String,
        /// Moves the player made here that no tier accepted.
        rejected: Vec<(Move, MoveStats)>,
    },
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
    /// One line for people: `book tier 1 (win > 0.5): 131 games, W/D/L 57/4/70, p=0.85`.
    pub fn describe(&self) -> String {
        match &self.source {
            Source::Book {
                tier,
                rule,
                stats,
                probability,
                candidates,
            } => format!(
                "book, tier {tier} ({rule}): {} games, W/D/L {}/{}/{}, p={probability:.2} among {} move(s) played here",
                stats.games(),
                stats.wins,
                stats.draws,
                stats.losses,
                candidates.len()
            ),
            Source::Fallback {
                policy,
                detail,
                rejected,
            } => {
                let why = if rejected.is_empty() {
                    "position not in the player's games".to_string()
                } else {
                    format!("no tier accepts the {} move(s) played here", rejected.len())
                };
                format!("fallback {policy}: {detail} ({why})")
            }
        }
    }
}

/// Builds the fallback for a player (e.g. loads their model once and shares it); used by
/// servers, which make one engine per request.
pub type FallbackFactory = std::sync::Arc<dyn Fn(&str) -> Box<dyn Fallback> + Send + Sync>;

/// A policy for positions the book cannot answer.
pub trait Fallback: Send {
    /// Short name, shown with every move it chooses.
    fn name(&self) -> String;
    /// A legal move in `pos` (which has at least one) and a detail for people.
    fn choose(&mut self, pos: &Chess, rng: &mut dyn RngCore) -> (Move, String);
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
    fn name(&self) -> String {
        "random legal move (no model trained)".into()
    }

    fn choose(&mut self, pos: &Chess, rng: &mut dyn RngCore) -> (Move, String) {
        let moves = pos.legal_moves();
        let i = rng.random_range(0..moves.len());
        (moves[i], format!("1 of {} legal moves", moves.len()))
    }
}

/// How the blunder guard ([`crate::guard`]) checks the model's choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Guard {
    /// How many of the model's best moves are checked.
    pub top: usize,
    /// Centipawns of material a move may lose against the best checked one.
    pub margin: i32,
}

impl Default for Guard {
    /// The model's top 64 (in practice every legal move), half a pawn: the model's best
    /// move among those that keep the most material. Chosen on the validation games of
    /// the shared player (see the README's `mirror eval` section).
    fn default() -> Self {
        Guard {
            top: 64,
            margin: 50,
        }
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
    /// The blunder guard; `None` plays the model's first choice.
    pub guard: Option<Guard>,
}

#[cfg(feature = "model")]
impl ModelFallback {
    /// The model with the default guard.
    pub fn new(predictor: std::sync::Arc<mirror_model::Predictor>) -> ModelFallback {
        ModelFallback {
            predictor,
            guard: Some(Guard::default()),
        }
    }
}

#[cfg(feature = "model")]
impl Fallback for ModelFallback {
    fn name(&self) -> String {
        let meta = &self.predictor.meta;
        format!(
            "model ({} games of {}, validation top-1 {:.1}%{})",
            meta.train_games,
            meta.player,
            100.0 * meta.val_top1,
            if self.guard.is_some() {
                ", guarded"
            } else {
                ""
            }
        )
    }

    fn choose(&mut self, pos: &Chess, rng: &mut dyn RngCore) -> (Move, String) {
        let ranked = self.predictor.rank(pos);
        if ranked.is_empty() {
            // The position has legal moves (checked by the engine); a model that cannot
            // rank them falls back to a random one rather than failing the game.
            return RandomLegal.choose(pos, rng);
        }
        let i = match self.guard {
            Some(g) => {
                let moves: Vec<Move> = ranked.iter().map(|(m, _)| *m).collect();
                crate::guard::guarded_choice(pos, &moves, g.top, g.margin)
            }
            None => 0,
        };
        let (m, score) = ranked[i];
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

/// The engine for one player.
pub struct Engine<S> {
    store: S,
    player: String,
    opts: EngineOptions,
    rng: ChaCha8Rng,
    fallback: Box<dyn Fallback>,
    /// The month of the player's newest game, once looked up.
    newest: Option<Option<Month>>,
}

impl<S> fmt::Debug for Engine<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine")
            .field("player", &self.player)
            .field("opts", &self.opts)
            .field("fallback", &self.fallback.name())
            .finish()
    }
}

/// The book's answer for a position without sampling: what the sampler would do.
#[derive(Clone, Debug, PartialEq)]
pub struct BookView {
    /// The player's legal moves here with statistics, most played first.
    pub candidates: Vec<(Move, Candidate)>,
    /// The tier and its probabilities, when one applies.
    pub selection: Option<Selection>,
}

impl BookView {
    /// The tier's moves with their probabilities, likeliest first (ties by UCI); empty
    /// when no tier applies.
    pub fn tier_moves(&self) -> Vec<(Move, f64)> {
        let Some(sel) = &self.selection else {
            return Vec::new();
        };
        let mut out: Vec<(Move, f64, String)> = sel
            .moves
            .iter()
            .filter_map(|(c, p)| {
                let m = self.candidates.iter().find(|(_, b)| b.mv == c.mv)?.0;
                Some((m, *p, c.mv.to_string()))
            })
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.2.cmp(&b.2)));
        out.into_iter().map(|(m, p, _)| (m, p)).collect()
    }
}

impl<S: GraphStore> Engine<S> {
    /// An engine for `player` with the random-legal fallback.
    pub fn new(store: S, player: impl Into<String>, opts: EngineOptions) -> Engine<S> {
        let rng = ChaCha8Rng::seed_from_u64(opts.seed);
        Engine {
            store,
            player: player.into(),
            opts,
            rng,
            fallback: Box::new(RandomLegal),
            newest: None,
        }
    }

    /// Replaces the fallback (e.g. with a trained model).
    pub fn set_fallback(&mut self, fallback: Box<dyn Fallback>) {
        self.fallback = fallback;
    }

    /// The player.
    pub fn player(&self) -> &str {
        &self.player
    }

    /// Changes the player.
    pub fn set_player(&mut self, player: impl Into<String>) {
        self.player = player.into();
        self.newest = None;
    }

    /// The first month counted as recent, if recency weighting is on.
    fn recent_since(&mut self) -> Result<Option<Month>, EngineError> {
        if self.opts.recent_months == 0 {
            return Ok(None);
        }
        if self.newest.is_none() {
            let start = PositionKey::from_position(&Chess::default());
            let newest = self
                .store
                .recent_games(&self.player, start, &Filter::default(), 1)?
                .first()
                .and_then(|g| g.game.date)
                .and_then(|d| d.month());
            self.newest = Some(newest);
        }
        Ok(self.newest.flatten().and_then(|m| {
            Month::from_u16(
                m.to_u16()
                    .saturating_sub(self.opts.recent_months as u16 - 1),
            )
        }))
    }

    /// Games per book move with recent games weighted.
    fn weighted_games(
        &mut self,
        pos: &Chess,
        view: &BookView,
    ) -> Result<Vec<(Move, f64)>, EngineError> {
        let min = self.opts.min_games;
        let mut out: Vec<(Move, f64)> = view
            .candidates
            .iter()
            .filter(|(_, c)| c.stats.games() >= min)
            .map(|(m, c)| (*m, f64::from(c.stats.games())))
            .collect();
        if let Some(since) = self.recent_since()? {
            let filter = Filter {
                color: Some(pos.turn()),
                since: Some(self.opts.filter.since.map_or(since, |s| s.max(since))),
                ..self.opts.filter.clone()
            };
            let rows = self
                .store
                .moves(&self.player, PositionKey::from_position(pos), &filter)?;
            for r in rows {
                if let Ok(m) = r.mv.to_move(pos)
                    && let Some(e) = out.iter_mut().find(|(b, _)| *b == m)
                {
                    e.1 += self.opts.recent_weight * f64::from(r.stats.games());
                }
            }
        }
        Ok(out)
    }

    /// Restarts the random sequence from `seed`.
    pub fn set_seed(&mut self, seed: u64) {
        self.opts.seed = seed;
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }

    /// Changes the tiers.
    pub fn set_tiers(&mut self, tiers: Tiers) {
        self.opts.tiers = tiers;
    }

    /// Changes the minimum number of games per book move.
    pub fn set_min_games(&mut self, n: u32) {
        self.opts.min_games = n;
    }

    /// The options in force.
    pub fn options(&self) -> &EngineOptions {
        &self.opts
    }

    /// The store.
    pub fn store(&self) -> &S {
        &self.store
    }

    /// The player's moves here (legal ones only) and the tier that applies.
    pub fn book(&self, pos: &Chess) -> Result<BookView, EngineError> {
        let filter = Filter {
            color: Some(pos.turn()),
            ..self.opts.filter.clone()
        };
        let rows = self
            .store
            .moves(&self.player, PositionKey::from_position(pos), &filter)?;
        // A stored move that is not legal here can only come from a hash collision.
        let candidates: Vec<(Move, Candidate)> = rows
            .into_iter()
            .filter_map(|r| {
                let m = r.mv.to_move(pos).ok()?;
                Some((
                    m,
                    Candidate {
                        mv: r.mv,
                        stats: r.stats,
                    },
                ))
            })
            .collect();
        let plain: Vec<Candidate> = candidates.iter().map(|(_, c)| *c).collect();
        let selection = select(&plain, &self.opts.tiers, self.opts.min_games);
        Ok(BookView {
            candidates,
            selection,
        })
    }

    /// The [`Policy::Habit`]/[`Policy::Likely`] distribution over the legal moves of `pos`,
    /// likeliest first (ties by UCI); empty when the player has no book move here (with at
    /// least `min_games` games).
    fn blend(
        &mut self,
        pos: &Chess,
        view: &BookView,
        prior: f64,
        winner_only: bool,
    ) -> Result<Vec<(Move, f64)>, EngineError> {
        let book = self.weighted_games(pos, view)?;
        if book.is_empty() {
            return Ok(Vec::new());
        }
        if winner_only {
            // `likely` plays the heaviest move; when it outweighs the runner-up and any
            // move the prior alone could lift by more than the prior, the model cannot
            // change the answer and is not asked (a server answers book positions
            // without running the network).
            let mut w: Vec<(Move, f64)> = book.clone();
            w.sort_by(|a, b| b.1.total_cmp(&a.1));
            let second = w.get(1).map_or(0.0, |(_, g)| *g);
            if w[0].1 > second + prior && w[0].1 > prior {
                return Ok(vec![(w[0].0, 1.0)]);
            }
        }
        let legal = pos.legal_moves();
        let model = if prior > 0.0 {
            self.fallback.prior(pos)
        } else {
            None
        };
        let uniform = 1.0 / legal.len().max(1) as f64;
        let mut dist: Vec<(Move, f64, String)> = legal
            .iter()
            .map(|m| {
                let games = book.iter().find(|(b, _)| b == m).map_or(0.0, |(_, g)| *g);
                let p = model.as_ref().map_or(uniform, |ps| {
                    ps.iter().find(|(b, _)| b == m).map_or(0.0, |(_, p)| *p)
                });
                (
                    *m,
                    games + prior * p,
                    m.to_uci(shakmaty::CastlingMode::Standard).to_string(),
                )
            })
            .filter(|(_, w, _)| *w > 0.0)
            .collect();
        let total: f64 = dist.iter().map(|(_, w, _)| w).sum();
        dist.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.2.cmp(&b.2)));
        Ok(dist.into_iter().map(|(m, w, _)| (m, w / total)).collect())
    }

    fn pick_blended(&mut self, view: &BookView, dist: Vec<(Move, f64)>, prior: f64) -> Choice {
        let policy = self.opts.policy;
        let mv = match policy {
            Policy::Likely { .. } => dist[0].0,
            _ => {
                let u: f64 = self.rng.random();
                let mut acc = 0.0;
                let mut chosen = dist[dist.len() - 1].0;
                for &(m, p) in &dist {
                    acc += p;
                    if u < acc {
                        chosen = m;
                        break;
                    }
                }
                chosen
            }
        };
        // What the engine really plays with: the blend for habit, certainty for likely.
        let p_of = |m: &Move| match policy {
            Policy::Likely { .. } => f64::from(u8::from(*m == mv)),
            _ => dist.iter().find(|(d, _)| d == m).map_or(0.0, |(_, p)| *p),
        };
        let probability = p_of(&mv);
        match view.candidates.iter().find(|(m, _)| *m == mv) {
            Some((_, c)) => Choice {
                mv,
                source: Source::Book {
                    tier: 1,
                    rule: format!("{policy} (games played + {prior} x model)"),
                    stats: c.stats,
                    probability,
                    candidates: view
                        .candidates
                        .iter()
                        .map(|(m, c)| (*m, c.stats, p_of(m)))
                        .collect(),
                },
            },
            None => Choice {
                mv,
                source: Source::Fallback {
                    policy: format!("{} (as {policy}'s prior)", self.fallback.name()),
                    detail: format!("p={probability:.2} in a position the player knows"),
                    rejected: view.candidates.iter().map(|(m, c)| (*m, c.stats)).collect(),
                },
            },
        }
    }

    /// The engine's moves in `pos` with their probabilities, likeliest first: the tier's
    /// or the blend's distribution in the book (for [`Policy::Likely`] the first is always
    /// played); empty when the fallback answers.
    pub fn distribution(&mut self, pos: &Chess) -> Result<Vec<(Move, f64)>, EngineError> {
        let view = self.book(pos)?;
        Ok(match self.opts.policy {
            Policy::Habit { prior } | Policy::Likely { prior } => {
                self.blend(pos, &view, prior, false)?
            }
            Policy::Tiers => view.tier_moves(),
        })
    }

    /// Changes the policy.
    pub fn set_policy(&mut self, policy: Policy) {
        self.opts.policy = policy;
    }

    /// The move [`Engine::choose`] would play in `pos` now, without using up randomness:
    /// the next `choose` still plays as if this had not been asked (a hint names exactly
    /// the move the mirror would play with the same options and seed).
    pub fn peek(&mut self, pos: &Chess) -> Result<Choice, EngineError> {
        let saved = self.rng.clone();
        let choice = self.choose(pos);
        self.rng = saved;
        choice
    }

    /// Chooses a move in `pos`.
    pub fn choose(&mut self, pos: &Chess) -> Result<Choice, EngineError> {
        if pos.legal_moves().is_empty() {
            let why = if pos.is_checkmate() {
                "checkmate"
            } else {
                "stalemate"
            };
            return Err(EngineError::NoLegalMoves(why.into()));
        }
        let view = self.book(pos)?;
        if let Policy::Habit { prior } | Policy::Likely { prior } = self.opts.policy {
            let winner_only = matches!(self.opts.policy, Policy::Likely { .. });
            let dist = self.blend(pos, &view, prior, winner_only)?;
            if !dist.is_empty() {
                return Ok(self.pick_blended(&view, dist, prior));
            }
        } else if let Some(sel) = &view.selection {
            let u: f64 = self.rng.random();
            let picked = sel.pick(u);
            let probability = sel
                .moves
                .iter()
                .find(|(c, _)| c.mv == picked.mv)
                .map_or(0.0, |(_, p)| *p);
            let candidates = view
                .candidates
                .iter()
                .map(|(m, c)| {
                    let p = sel
                        .moves
                        .iter()
                        .find(|(s, _)| s.mv == c.mv)
                        .map_or(0.0, |(_, p)| *p);
                    (*m, c.stats, p)
                })
                .collect();
            let mv = view
                .candidates
                .iter()
                .find(|(_, c)| c.mv == picked.mv)
                .map(|(m, _)| *m)
                .ok_or_else(|| {
                    EngineError::NoLegalMoves("internal: picked move vanished".into())
                })?;
            return Ok(Choice {
                mv,
                source: Source::Book {
                    tier: sel.tier + 1,
                    rule: self.opts.tiers.0[sel.tier].to_string(),
                    stats: picked.stats,
                    probability,
                    candidates,
                },
            });
        }
        let (mv, detail) = self.fallback.choose(pos, &mut self.rng);
        Ok(Choice {
            mv,
            source: Source::Fallback {
                policy: self.fallback.name(),
                detail,
                rejected: view.candidates.iter().map(|(m, c)| (*m, c.stats)).collect(),
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation;
    use mirror_core::{MoveCode, batch::Batch};
    use mirror_store::embedded::{EmbeddedStore, OpenMode};
    use mirror_testkit::conformance::{PLAYER, sample_games};
    use shakmaty::Color;

    fn store(dir: &tempfile::TempDir) -> EmbeddedStore {
        let s = EmbeddedStore::open(&dir.path().join("s.redb"), OpenMode::CreateIfMissing)
            .expect("open");
        let mut b = Batch::new();
        for (g, c) in sample_games(499) {
            b.add_game(g, c).expect("legal");
        }
        s.write_batch(PLAYER, &b).expect("write");
        s
    }

    #[test]
    fn book_moves_follow_the_sampler_and_seed_reproduces() {
        let dir = tempfile::tempdir().expect("tempdir");
        let tiers = EngineOptions {
            policy: Policy::Tiers,
            ..EngineOptions::default()
        };
        let mut e = Engine::new(store(&dir), PLAYER, tiers);
        let start = Chess::default();
        let view = e.book(&start).expect("book");
        let sel = view
            .selection
            .clone()
            .expect("the player has opening moves as White");
        let run = |e: &mut Engine<EmbeddedStore>| -> Vec<String> {
            (0..200)
                .map(|_| notation::uci(e.choose(&start).expect("choice").mv))
                .collect()
        };
        e.set_seed(7);
        let a = run(&mut e);
        e.set_seed(7);
        assert_eq!(run(&mut e), a, "same seed, same moves");
        // Frequencies follow the tier's probabilities (200 draws, loose bound).
        for (c, p) in &sel.moves {
            let n = a.iter().filter(|m| **m == c.mv.to_string()).count() as f64;
            assert!((n / 200.0 - p).abs() < 0.12, "{} {n} vs {p}", c.mv);
        }
        // Every answer says it is from the book with its tier.
        let choice = e.choose(&start).expect("choice");
        assert!(matches!(choice.source, Source::Book { tier, .. } if tier == sel.tier + 1));
        assert!(choice.describe().starts_with("book, tier"));
    }

    #[test]
    fn out_of_book_uses_the_labelled_fallback() {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut e = Engine::new(store(&dir), PLAYER, EngineOptions::default());
        let pos = notation::parse_fen("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1").expect("fen");
        let c = e.choose(&pos).expect("choice");
        assert!(pos.is_legal(c.mv));
        let Source::Fallback {
            policy, rejected, ..
        } = &c.source
        else {
            panic!("{c:?}")
        };
        assert!(policy.contains("random legal"));
        assert!(rejected.is_empty());
        assert!(c.describe().contains("not in the player's games"));
        let mate = notation::parse_fen("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1").expect("fen");
        assert!(matches!(e.choose(&mate), Err(EngineError::NoLegalMoves(w)) if w == "checkmate"));
    }

    #[test]
    fn policies_parse_and_print() {
        for (text, p) in [
            ("tiers", Policy::Tiers),
            ("likely", Policy::Likely { prior: 1.0 }),
            ("Habit:0.5", Policy::Habit { prior: 0.5 }),
            ("likely:0", Policy::Likely { prior: 0.0 }),
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
        ] {
            let e = bad.parse::<Policy>().expect_err(bad);
            assert!(
                e.to_string().contains("expected tiers, habit or likely"),
                "{e}"
            );
        }
    }

    #[test]
    fn likely_plays_the_most_played_move_and_habit_samples_by_games() {
        let dir = tempfile::tempdir().expect("tempdir");
        let start = Chess::default();
        let likely = EngineOptions {
            policy: Policy::Likely { prior: 1.0 },
            ..EngineOptions::default()
        };
        let mut e = Engine::new(store(&dir), PLAYER, likely);
        let view = e.book(&start).expect("book");
        let most = view
            .candidates
            .iter()
            .max_by_key(|(_, c)| c.stats.games())
            .map(|(m, _)| *m)
            .expect("opening moves");
        for seed in 0..20 {
            e.set_seed(seed);
            let c = e.choose(&start).expect("choice");
            assert_eq!(c.mv, most, "seed {seed}");
            assert!(c.describe().contains("likely:1"), "{}", c.describe());
        }
        // Deciding without the prior where it cannot matter gives the same moves as the
        // full blend, over the first plies of every game.
        let mut checked = 0;
        for (g, _) in sample_games(499) {
            for ply in g.replay().map_while(Result::ok).take(12) {
                let dist = e.distribution(&ply.pos).expect("distribution");
                if let Some((best, _)) = dist.first() {
                    assert_eq!(e.choose(&ply.pos).expect("choice").mv, *best);
                    checked += 1;
                }
            }
        }
        assert!(checked > 1000, "{checked}");
        // Habit without a prior: probabilities are the shares of games.
        e.set_policy(Policy::Habit { prior: 0.0 });
        let dist = e.distribution(&start).expect("distribution");
        let total: u32 = view.candidates.iter().map(|(_, c)| c.stats.games()).sum();
        assert_eq!(dist.len(), view.candidates.len());
        for (m, p) in &dist {
            let games = view
                .candidates
                .iter()
                .find(|(c, _)| c == m)
                .map(|(_, c)| c.stats.games())
                .expect("book move");
            assert!((p - f64::from(games) / f64::from(total)).abs() < 1e-12);
        }
        let n = 400;
        let hits = (0..n)
            .filter(|_| e.choose(&start).expect("choice").mv == most)
            .count();
        let p_most = dist[0].1;
        assert_eq!(dist[0].0, most);
        assert!(
            (hits as f64 / n as f64 - p_most).abs() < 0.08,
            "{hits}/{n} vs {p_most}"
        );
        // A prior spreads some weight over moves the player never played here.
        e.set_policy(Policy::Habit { prior: 2.0 });
        let spread = e.distribution(&start).expect("distribution");
        assert_eq!(spread.len(), start.legal_moves().len());
        assert!((spread.iter().map(|(_, p)| p).sum::<f64>() - 1.0).abs() < 1e-9);
    }

    #[test]
    fn recent_games_weigh_more() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = store(&dir);
        let start = Chess::default();
        // The player's newest month in the sample, and their moves in it only.
        let newest = s
            .recent_games(
                PLAYER,
                PositionKey::from_position(&start),
                &Filter::default(),
                1,
            )
            .expect("recent")[0]
            .game
            .date
            .and_then(|d| d.month())
            .expect("dated");
        let recent = s
            .moves(
                PLAYER,
                PositionKey::from_position(&start),
                &Filter {
                    color: Some(Color::White),
                    since: Some(newest),
                    ..Filter::default()
                },
            )
            .expect("moves");
        let all = s
            .moves(
                PLAYER,
                PositionKey::from_position(&start),
                &Filter {
                    color: Some(Color::White),
                    ..Filter::default()
                },
            )
            .expect("moves");
        let opts = EngineOptions {
            policy: Policy::Habit { prior: 0.0 },
            recent_months: 1,
            recent_weight: 3.0,
            ..EngineOptions::default()
        };
        let mut e = Engine::new(s, PLAYER, opts);
        let dist = e.distribution(&start).expect("distribution");
        let weight = |mv: MoveCode| {
            let a = all
                .iter()
                .find(|r| r.mv == mv)
                .map_or(0, |r| r.stats.games());
            let r = recent
                .iter()
                .find(|r| r.mv == mv)
                .map_or(0, |r| r.stats.games());
            f64::from(a) + 3.0 * f64::from(r)
        };
        let total: f64 = all.iter().map(|r| weight(r.mv)).sum();
        assert!(recent.iter().map(|r| r.stats.games()).sum::<u32>() > 0);
        for r in &all {
            let m = r.mv.to_move(&start).expect("legal");
            let p = dist.iter().find(|(d, _)| *d == m).map_or(0.0, |(_, p)| *p);
            assert!((p - weight(r.mv) / total).abs() < 1e-12, "{}", r.mv);
        }
    }
}
