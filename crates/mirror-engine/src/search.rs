//! A little search with the player's own prior: where the model answers, its likeliest
//! moves are searched by an external UCI engine (Stockfish) for a few nodes, and each
//! move's probability is discounted by the win% it gives away against the best of them:
//! `p'(m) ∝ p(m) · exp(−weight · loss(m))`, `loss` in lichess win% points. The model still
//! chooses among the moves a player would consider; the search stops the ones that lose
//! (a strong player rarely plays them). Budget 0 nodes is the engine without search.
//! With `own` nodes ([`SearchOptions::own`]), the external engine's own best move after a
//! search of every legal move joins the model's likeliest when they leave it out, with
//! the model's probability of it: the move a strong player finds and the model ranks low.
//!
//! [`Judge`]s give the win%: an external UCI engine ([`Searcher`],
//! [`SearchBy::Stockfish`], the default), or the model's own value head looking ahead,
//! two plies ([`SearchBy::Model`]) or by PUCT ([`SearchBy::Puct`]; see
//! `crate::lookahead`), which needs no other program. Without the judge asked for, the
//! engine plays as without a search and says so in the fallback's name. A process has one
//! external engine ([`shared`]): the one given to [`use_engine`] (`--search-engine`), else
//! `stockfish` on PATH, else Debian's; its processes start when the first search needs
//! one.

use std::{
    collections::HashMap,
    path::{Path, PathBuf},
    sync::{Arc, Condvar, Mutex, OnceLock},
};

use shakmaty::{Chess, Move};

use crate::{
    draw::FallbackOutcomes,
    stockfish::{Stockfish, StockfishError, win_percent},
};

/// What judges the searched moves.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum SearchBy {
    /// An external UCI engine (Stockfish), `nodes` its nodes.
    #[default]
    Stockfish,
    /// The model's value head looking two plies ahead, `nodes` the positions it judges
    /// (see `crate::lookahead`).
    Model,
    /// The model's PUCT tree search, `nodes` the positions it judges.
    Puct,
}

impl SearchBy {
    /// The knob's word: `stockfish`, `model` or `puct`.
    pub fn word(self) -> &'static str {
        match self {
            SearchBy::Stockfish => "stockfish",
            SearchBy::Model => "model",
            SearchBy::Puct => "puct",
        }
    }
}

/// Why a judge could not weigh the moves.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    /// The external UCI engine could not be run or talked to (its error is the cause).
    #[error("the search's UCI engine failed")]
    Engine(#[from] StockfishError),
    /// The judge answered, but not what was asked.
    #[error("{judge}: {message}")]
    Unusable {
        /// The judge, as its answers name it.
        judge: String,
        /// What was wrong with its answer.
        message: String,
    },
}

/// The win% a mover keeps after each of some moves: what a search weighs the model's
/// moves by.
pub trait Judge {
    /// How its answers name it, for a search of `nodes`: "/usr/games/stockfish, 2000
    /// nodes".
    fn name(&self, nodes: u32) -> String;
    /// The mover's win% (0-100) after each of `moves` (at least two) in `pos`, within
    /// `nodes`. Each move comes with the engine's probability of it, the prior a search
    /// may spend its budget by.
    fn win_percents(
        &self,
        pos: &Chess,
        moves: &[(Move, f64)],
        nodes: u32,
    ) -> Result<Vec<f64>, JudgeError>;

    /// The judge's own best move in `pos` after a search of every legal move within
    /// `nodes`; `None` from a judge that only weighs the moves it is given (the model's
    /// own judges), or when nothing can be played.
    fn own_choice(&self, pos: &Chess, nodes: u32) -> Result<Option<Move>, JudgeError> {
        let _ = (pos, nodes);
        Ok(None)
    }
}

/// The search's knobs (see [`crate::EngineOptions::search`]).
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct SearchOptions {
    /// The budget per position: the external engine's nodes, or the positions the model's
    /// value head judges, shared by the moves searched; 0 = no search (the engine as
    /// without one).
    pub nodes: u32,
    /// What judges the moves.
    pub by: SearchBy,
    /// How many of the model's likeliest moves (after the guard) are searched; the others
    /// are left out while searching.
    pub top: usize,
    /// How strongly a move's probability falls with the win% it loses: multiplied by
    /// `exp(-weight * loss)`, loss in win% points (0: the search changes nothing).
    pub weight: f64,
    /// The judge's own choice joins the searched moves: its best move after a search of
    /// every legal move within this many nodes, when the model's likeliest leave it out
    /// (with the model's probability of it, when the guard lets it through); 0: only the
    /// model's moves are searched.
    pub own: u32,
}

impl Default for SearchOptions {
    fn default() -> Self {
        SearchOptions {
            nodes: 0,
            by: SearchBy::Stockfish,
            top: 6,
            weight: 0.1,
            own: 0,
        }
    }
}

/// Positions whose evaluations are kept before the cache starts again.
const CACHE_POSITIONS: usize = 100_000;

/// A search's question: the position (FEN), the moves searched (UCI), the nodes.
type Question = (String, Vec<String>, u32);

/// The process's search engine, once chosen.
static SHARED: OnceLock<Option<Arc<Searcher>>> = OnceLock::new();

/// Chooses the process's search engine: `given` (a path that must exist, or a name on
/// PATH), else Stockfish found as [`crate::stockfish::find`] finds it. The first choice
/// holds for the life of the process (a later call changes nothing).
pub fn use_engine(given: Option<&Path>) -> Result<(), StockfishError> {
    let found = crate::stockfish::find(given)?;
    let _ = SHARED.set(found.map(|p| Arc::new(Searcher::new(p))));
    Ok(())
}

/// The process's search engine ([`use_engine`], else Stockfish if one is found), which
/// every [`crate::Engine`] is made with; `None` when there is none.
pub fn shared() -> Option<Arc<Searcher>> {
    SHARED
        .get_or_init(|| {
            // Without a given path `find` cannot fail: it looks and finds one or none.
            crate::stockfish::find(None)
                .ok()
                .flatten()
                .map(|p| Arc::new(Searcher::new(p)))
        })
        .clone()
}

/// The external engine that searches, its processes shared by the engines of a process
/// (a server's requests, eval's positions): each search takes an idle process, or starts
/// one while fewer than the machine's cores run, or waits for one, and gives it back.
/// Evaluations are kept per (position, moves, nodes): a search from a cleared hash with
/// one thread and a node limit always gives the same answer.
#[derive(Debug)]
pub struct Searcher {
    path: PathBuf,
    most: usize,
    pool: Mutex<Pool>,
    freed: Condvar,
    kept: Mutex<HashMap<Question, Vec<f64>>>,
    /// The engine's own choices kept, per (position, nodes).
    chosen: Mutex<HashMap<(String, u32), Option<String>>>,
}

/// The processes: those idle, and how many run (idle or searching).
#[derive(Debug, Default)]
struct Pool {
    idle: Vec<Stockfish>,
    running: usize,
}

impl Searcher {
    /// The UCI engine at `path`, started when a search first needs it.
    pub fn new(path: PathBuf) -> Searcher {
        Searcher {
            path,
            most: std::thread::available_parallelism().map_or(1, usize::from),
            pool: Mutex::new(Pool::default()),
            freed: Condvar::new(),
            kept: Mutex::new(HashMap::new()),
            chosen: Mutex::new(HashMap::new()),
        }
    }

    /// An idle process, a new one while fewer than `most` run, else the next one freed.
    fn take(&self) -> Result<Stockfish, StockfishError> {
        let lock = || {
            self.pool
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        let mut pool = lock();
        loop {
            if let Some(sf) = pool.idle.pop() {
                return Ok(sf);
            }
            if pool.running < self.most {
                pool.running += 1;
                drop(pool);
                return Stockfish::start(&self.path).inspect_err(|_| self.lost());
            }
            pool = self
                .freed
                .wait(pool)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }

    /// Gives a process back.
    fn give(&self, sf: Stockfish) {
        self.pool
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .idle
            .push(sf);
        self.freed.notify_one();
    }

    /// Runs `search` on a process of the pool: given back after an answer, dropped after
    /// an error (another may start in its place).
    fn with_process<T>(
        &self,
        search: impl FnOnce(&mut Stockfish) -> Result<T, StockfishError>,
    ) -> Result<T, StockfishError> {
        let mut sf = self.take()?;
        match search(&mut sf) {
            Ok(answer) => {
                self.give(sf);
                Ok(answer)
            }
            Err(e) => {
                drop(sf);
                self.lost();
                Err(e)
            }
        }
    }

    /// A process that failed (dropped): another may start in its place.
    fn lost(&self) {
        let mut pool = self
            .pool
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        pool.running = pool.running.saturating_sub(1);
        drop(pool);
        self.freed.notify_one();
    }

    /// The engine, as its answers name it: its path (the same before and after it runs,
    /// so that kept answers and fresh ones read alike).
    pub fn path_name(&self) -> String {
        self.path.display().to_string()
    }
}

impl Judge for Searcher {
    fn name(&self, nodes: u32) -> String {
        format!("{}, {nodes} nodes", self.path_name())
    }

    /// The mover's win% after each of `moves` in `pos`, searched together within `nodes`
    /// (Stockfish searches them alike, whatever their priors).
    fn win_percents(
        &self,
        pos: &Chess,
        moves: &[(Move, f64)],
        nodes: u32,
    ) -> Result<Vec<f64>, JudgeError> {
        let fen = mirror_core::notation::fen(pos);
        let ucis: Vec<String> = moves
            .iter()
            .map(|(m, _)| mirror_core::notation::uci(*m))
            .collect();
        let key = (fen, ucis, nodes);
        let kept = |searcher: &Searcher| {
            searcher
                .kept
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .get(&key)
                .cloned()
        };
        if let Some(w) = kept(self) {
            return Ok(w);
        }
        let lines = self.with_process(|sf| sf.analyse_moves(&key.0, u64::from(nodes), &key.1))?;
        let wins = key
            .1
            .iter()
            .map(|m| {
                lines
                    .iter()
                    .find(|l| &l.mv == m)
                    .map(|l| win_percent(l.score.capped_cp()))
                    .ok_or_else(|| JudgeError::Unusable {
                        judge: self.path.display().to_string(),
                        message: format!("searched {} but gave no score for {m}", key.0),
                    })
            })
            .collect::<Result<Vec<f64>, _>>()?;
        let mut kept = self
            .kept
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if kept.len() >= CACHE_POSITIONS {
            kept.clear();
        }
        kept.insert(key, wins.clone());
        Ok(wins)
    }

    /// Stockfish's best move after `go nodes N` over every legal move.
    fn own_choice(&self, pos: &Chess, nodes: u32) -> Result<Option<Move>, JudgeError> {
        let key = (mirror_core::notation::fen(pos), nodes);
        let lock = || {
            self.chosen
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        let kept = lock().get(&key).cloned();
        let uci = match kept {
            Some(uci) => uci,
            None => {
                let best = self.with_process(|sf| sf.best_within(&key.0, u64::from(nodes)))?;
                let mut chosen = lock();
                if chosen.len() >= CACHE_POSITIONS {
                    chosen.clear();
                }
                chosen.insert(key.clone(), best.clone());
                best
            }
        };
        uci.map(|u| {
            mirror_core::notation::parse_move(pos, &u).map_err(|e| JudgeError::Unusable {
                judge: self.path.display().to_string(),
                message: format!("its best move {u} in {} is not legal there: {e}", key.0),
            })
        })
        .transpose()
    }
}

/// The fallback's distribution `dist` (likeliest first, every probability above 0)
/// re-weighed by the search: its first `opts.top` moves, each probability multiplied by
/// `exp(-weight * loss)` and normalised, likeliest first. Sampling draws from all of them;
/// otherwise the first is played. Each move's detail names its prior and its win%.
pub fn searched(
    judge: &dyn Judge,
    pos: &Chess,
    dist: &[(Move, f64)],
    opts: SearchOptions,
    sample: bool,
) -> Result<FallbackOutcomes, JudgeError> {
    let mut top: Vec<(Move, f64)> = dist.iter().take(opts.top.max(1)).copied().collect();
    // The judge's own choice joins when the model's likeliest leave it out.
    if opts.own > 0
        && dist.len() > top.len()
        && let Some(own) = judge.own_choice(pos, opts.own)?
        && !top.iter().any(|(m, _)| *m == own)
    {
        top.extend(dist.iter().find(|(m, _)| *m == own).copied());
    }
    if top.len() < 2 {
        // One move (or none) to play: nothing to compare it with, nothing searched.
        let moves = top
            .into_iter()
            .map(|(m, _)| {
                (
                    m,
                    1.0,
                    "the only move left to search: not searched".to_string(),
                )
            })
            .collect();
        return Ok(FallbackOutcomes {
            draws: sample,
            moves,
        });
    }
    let wins = judge.win_percents(pos, &top, opts.nodes)?;
    let best = wins.iter().copied().fold(f64::MIN, f64::max);
    let weights: Vec<f64> = top
        .iter()
        .zip(&wins)
        .map(|((_, p), w)| p * (-opts.weight * (best - w)).exp())
        .collect();
    let sum: f64 = weights.iter().sum();
    let mut moves: Vec<(Move, f64, String)> = top
        .iter()
        .zip(&wins)
        .zip(&weights)
        .map(|(((m, prior), win), w)| {
            let p = w / sum;
            let detail = format!(
                "searched: p={p:.2} (model {prior:.2}, {win:.0} win% by {}, {} moves \
                 searched)",
                judge.name(opts.nodes),
                top.len()
            );
            (*m, p, detail)
        })
        .collect();
    moves.sort_by(|a, b| b.1.total_cmp(&a.1));
    if !sample {
        moves.truncate(1);
        if let Some(first) = moves.first_mut() {
            first.1 = 1.0;
        }
    }
    Ok(FallbackOutcomes {
        draws: sample,
        moves,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirror_core::notation;
    use shakmaty::Position;

    fn stockfish() -> Searcher {
        let path = crate::stockfish::find(None)
            .expect("find")
            .expect("Stockfish is installed (tests/setup.sh)");
        Searcher::new(path)
    }

    /// White to move after 1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6: Qxf7 mates, Qe2 keeps the
    /// queen, Qh6 (gxh6) and Qxh7 (Rxh7) lose it.
    const SCHOLAR: &str = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";

    fn dist(pos: &Chess, moves: &[(&str, f64)]) -> Vec<(Move, f64)> {
        moves
            .iter()
            .map(|(m, p)| (notation::parse_move(pos, m).expect("legal"), *p))
            .collect()
    }

    #[test]
    fn the_search_weighs_the_models_moves_by_the_win_they_lose() {
        let sf = stockfish();
        let pos = notation::parse_fen(SCHOLAR).expect("fen");
        let model = dist(
            &pos,
            &[("h5h6", 0.4), ("h5e2", 0.3), ("h5f7", 0.2), ("h5h7", 0.1)],
        );
        let opts = |weight| SearchOptions {
            nodes: 2000,
            by: SearchBy::Stockfish,
            top: 4,
            weight,
            own: 0,
        };
        // Weight 0: the model's distribution as it was.
        let same = searched(&sf, &pos, &model, opts(0.0), true).expect("search");
        assert!(same.draws);
        for ((m, p, detail), (m0, p0)) in same.moves.iter().zip(&model) {
            assert_eq!(m, m0);
            assert!((p - p0).abs() < 1e-12, "{p} {p0}");
            assert!(detail.starts_with("searched: p="), "{detail}");
        }
        // A weight: the mate is the likeliest, then the queen kept; the two that lose it
        // are all but gone.
        let w = searched(&sf, &pos, &model, opts(0.1), true).expect("search");
        let uci: Vec<String> = w.moves.iter().map(|(m, _, _)| notation::uci(*m)).collect();
        assert_eq!(uci[..2], ["h5f7", "h5e2"], "{:?}", w.moves);
        assert!(w.moves[0].1 > 0.9, "{:?}", w.moves);
        assert!(w.moves[2].1 < 0.001, "{:?}", w.moves);
        assert!((w.moves.iter().map(|m| m.1).sum::<f64>() - 1.0).abs() < 1e-9);
        // Top-1: the first only; the top 2 searched leave the others out.
        let one = searched(&sf, &pos, &model, opts(0.1), false).expect("search");
        assert!(!one.draws);
        assert_eq!(one.moves.len(), 1);
        assert_eq!(notation::uci(one.moves[0].0), "h5f7");
        let two = searched(
            &sf,
            &pos,
            &model,
            SearchOptions {
                top: 2,
                ..opts(0.1)
            },
            true,
        )
        .expect("search");
        let uci: Vec<String> = two
            .moves
            .iter()
            .map(|(m, _, _)| notation::uci(*m))
            .collect();
        assert_eq!(uci, ["h5e2", "h5h6"]);
        // One move to play: nothing searched, no win% claimed.
        let alone = searched(&sf, &pos, &model[..1], opts(0.1), true).expect("one move");
        assert_eq!(alone.moves.len(), 1);
        assert_eq!(alone.moves[0].1, 1.0);
        assert!(!alone.moves[0].2.contains("win%"), "{:?}", alone.moves);
        // The same search again is the kept one, and the name is the engine's.
        assert_eq!(
            searched(&sf, &pos, &model, opts(0.1), true).expect("search"),
            w
        );
        assert!(w.moves[0].2.contains("stockfish"), "{:?}", w.moves[0]);
    }

    #[test]
    fn the_engines_own_choice_joins_the_models_moves_when_they_leave_it_out() {
        let sf = stockfish();
        let pos = notation::parse_fen(SCHOLAR).expect("fen");
        // The model's two likeliest both lose the queen; the mate is its least likely.
        let model = dist(
            &pos,
            &[("h5h6", 0.5), ("h5h7", 0.3), ("h5e2", 0.15), ("h5f7", 0.05)],
        );
        let opts = |own| SearchOptions {
            nodes: 2000,
            by: SearchBy::Stockfish,
            top: 2,
            weight: 0.1,
            own,
        };
        let uci = |o: &FallbackOutcomes| -> Vec<String> {
            o.moves.iter().map(|(m, _, _)| notation::uci(*m)).collect()
        };
        // Without it, the better of the two searched.
        let models = searched(&sf, &pos, &model, opts(0), true).expect("search");
        assert_eq!(uci(&models).len(), 2, "{:?}", models.moves);
        assert!(!uci(&models).contains(&"h5f7".to_string()));
        // With it, Stockfish's own search finds the mate, which joins and is played.
        assert_eq!(
            sf.own_choice(&pos, 2000)
                .expect("search")
                .map(notation::uci),
            Some("h5f7".to_string())
        );
        let own = searched(&sf, &pos, &model, opts(2000), false).expect("search");
        assert_eq!(uci(&own), ["h5f7"], "{:?}", own.moves);
        let drawn = searched(&sf, &pos, &model, opts(2000), true).expect("search");
        assert_eq!(drawn.moves.len(), 3, "{:?}", drawn.moves);
        assert!(
            drawn.moves[0].2.contains("3 moves searched"),
            "{:?}",
            drawn.moves
        );
        // A choice the model's likeliest hold already adds nothing.
        let held = searched(
            &sf,
            &pos,
            &model,
            SearchOptions {
                top: 4,
                ..opts(2000)
            },
            true,
        )
        .expect("search");
        assert_eq!(held.moves.len(), 4, "{:?}", held.moves);
        // A choice the guard stopped (not in the distribution) is not played.
        let guarded = searched(&sf, &pos, &model[..3], opts(2000), true).expect("search");
        assert_eq!(guarded.moves.len(), 2, "{:?}", guarded.moves);
        // In a position without moves there is no choice.
        let mated = notation::parse_fen(
            "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4",
        )
        .expect("fen");
        assert_eq!(sf.own_choice(&mated, 2000).expect("search"), None);
    }

    #[test]
    fn searches_at_once_share_at_most_one_process_a_core() {
        // Eight threads, each its own positions (nothing kept helps): every search
        // answers, and no more processes ran than the machine has cores.
        let sf = Searcher {
            most: 2,
            ..stockfish()
        };
        let games = mirror_testkit::conformance::sample_games(8);
        std::thread::scope(|scope| {
            for (g, _) in &games {
                let sf = &sf;
                scope.spawn(move || {
                    for ply in g.replay().take(12) {
                        let pos = ply.expect("replays").pos;
                        let moves: Vec<(Move, f64)> = pos
                            .legal_moves()
                            .into_iter()
                            .take(3)
                            .map(|m| (m, 1.0 / 3.0))
                            .collect();
                        let wins = sf.win_percents(&pos, &moves, 300).expect("search");
                        assert_eq!(wins.len(), moves.len());
                        assert!(wins.iter().all(|w| (0.0..=100.0).contains(w)), "{wins:?}");
                    }
                });
            }
        });
        let pool = sf.pool.lock().expect("pool");
        assert!(
            pool.running <= 2 && pool.idle.len() == pool.running,
            "{pool:?}"
        );
    }
}
