//! The engine: the player's book through the tiered sampler, then a fallback.

use std::fmt;

use mirror_core::{
    MoveStats, PositionKey,
    sampler::{Candidate, Selection, Tiers, select},
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

/// How the engine chooses.
#[derive(Clone, Debug)]
pub struct EngineOptions {
    /// The sampler's tiers, in order.
    pub tiers: Tiers,
    /// Moves played in fewer games than this are left out of the book.
    pub min_games: u32,
    /// Which of the player's games count (the colour is always the side to move).
    pub filter: Filter,
    /// Seed of the random choices; the same seed gives the same moves.
    pub seed: u64,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            tiers: Tiers::default(),
            min_games: 1,
            filter: Filter::default(),
            seed: 0,
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

/// The trained CNN as the fallback: the legal move with the highest from+to score. The
/// predictor is shared (it is `Send + Sync`), so a server loads a player's model once.
#[cfg(feature = "model")]
#[derive(Debug, Clone)]
pub struct ModelFallback(pub std::sync::Arc<mirror_model::Predictor>);

#[cfg(feature = "model")]
impl Fallback for ModelFallback {
    fn name(&self) -> String {
        format!(
            "model ({} games of {}, validation top-1 {:.1}%)",
            self.0.meta.train_games,
            self.0.meta.player,
            100.0 * self.0.meta.val_top1
        )
    }

    fn choose(&mut self, pos: &Chess, rng: &mut dyn RngCore) -> (Move, String) {
        match self.0.best(pos) {
            Some((m, score)) => (m, format!("score {score:.2}")),
            // The position has legal moves (checked by the engine); a model that cannot
            // rank them falls back to a random one rather than failing the game.
            None => RandomLegal.choose(pos, rng),
        }
    }
}

/// The engine for one player.
pub struct Engine<S> {
    store: S,
    player: String,
    opts: EngineOptions,
    rng: ChaCha8Rng,
    fallback: Box<dyn Fallback>,
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
        if let Some(sel) = &view.selection {
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
    use mirror_core::batch::Batch;
    use mirror_store::{
        conformance::{PLAYER, sample_games},
        embedded::{EmbeddedStore, OpenMode},
    };

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
        let mut e = Engine::new(store(&dir), PLAYER, EngineOptions::default());
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
}
