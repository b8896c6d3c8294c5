//! `mirror eval`: how faithfully mirror plays like the player, measured on the player's
//! newest games (the test split), with a book built from their oldest games only.
//!
//! For every test position where the player is to move it asks each predictor for its
//! move(s) and compares with the move actually played:
//!
//! - **book**: the move the player played most often there in training games;
//! - **sampler**: the tiered sampler's distribution (top-1 = its expected match, the
//!   probability it gives the move played);
//! - **policies**: every other book policy on the same in-book positions — `habit:1`
//!   (expected match), `likely:1` and `lower` (their move);
//! - **model**: the CNN's ranking of the legal moves;
//! - **engine**: the whole engine as it plays, with the seed: its policy in the book, then
//!   the model behind the blunder guard;
//! - baselines: a uniformly random legal move (its expectation) and Stockfish at depth 1.
//!
//! Each figure is given in-book / out-of-book and by phase with a 95% interval clustered by
//! game ([`stats`]). With Stockfish as a judge it also measures how often the player's and
//! the mirror's moves lose 15 win% points or more ([`mirror_engine::stockfish::win_percent`]).

pub mod analyse;
pub mod book;
pub mod dial;
pub mod report;
pub mod stats;
pub mod tune;

use std::{path::PathBuf, sync::Arc};

use mirror_core::notation::{fen, uci};
use mirror_core::{GameRecord, TimeClass};
use mirror_engine::{Engine, EngineOptions, Fallback, ModelFallback, Policy, RandomLegal, Source};
use mirror_model::{Predictor, inference::rank_with};
use mirror_store::{GraphRead, StoreError};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use shakmaty::{Chess, Color, Move, Position};

use mirror_engine::stockfish::{Stockfish, win_percent};
pub use report::{
    ClockMistakes, MistakeReport, PredictorReport, Promotions, Report, SegmentReport,
};
use stats::Clustered;

/// Errors of an evaluation.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The engine failed.
    #[error(transparent)]
    Engine(#[from] mirror_engine::EngineError),
    /// Stockfish failed.
    #[error(transparent)]
    Stockfish(#[from] mirror_engine::stockfish::StockfishError),
    /// A stored game does not replay (the store is damaged).
    #[error("stored game {game} does not replay")]
    Replay {
        /// The game's id.
        game: String,
        /// Why.
        #[source]
        source: mirror_core::moves::IllegalMoveCode,
    },
    /// The model was trained on another split.
    #[error("{0}")]
    ModelSplit(String),
    /// The player's games do not split into the sets an evaluation needs.
    #[error("{0}")]
    Split(String),
    /// A judging thread panicked.
    #[error("internal: {0}")]
    Internal(String),
    /// The model's files could not be written.
    #[error("cannot record the weight in {}", dir.display())]
    Model {
        /// The model's directory.
        dir: PathBuf,
        /// Why.
        #[source]
        source: mirror_model::ModelError,
    },
    /// A file or directory of the evaluation could not be made.
    #[error("{what}")]
    Io {
        /// What was being done.
        what: String,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
}

/// How to evaluate.
#[derive(Clone, Debug)]
pub struct EvalConfig {
    /// Seed of the engine's choices and of the judged sample.
    pub seed: u64,
    /// Evaluate at most this many positions (the oldest test games first).
    pub max_positions: Option<usize>,
    /// Stockfish, for the depth-1 baseline and the mistake judge.
    pub stockfish: Option<PathBuf>,
    /// Depth of the mistake judge.
    pub judge_depth: u32,
    /// Judge at most this many positions (a seeded random sample); `None` = all.
    pub judge_positions: Option<usize>,
    /// Stockfish processes for judging.
    pub judge_threads: usize,
    /// The engine's options (its seed is `seed`).
    pub engine: EngineOptions,
}

impl Default for EvalConfig {
    fn default() -> Self {
        EvalConfig {
            seed: 0,
            max_positions: None,
            stockfish: None,
            judge_depth: 8,
            judge_positions: None,
            judge_threads: 2,
            engine: EngineOptions::default(),
        }
    }
}

/// Win% points a move must lose to count as a mistake.
pub const MISTAKE_WIN_PERCENT: f64 = 15.0;

/// The predictors, in report order.
pub const PREDICTORS: [&str; 10] = [
    "book (most played)",
    "sampler (expected)",
    "policy habit:1 (expected)",
    "policy likely:1",
    "policy lower",
    "model",
    "engine",
    "engine, sampling (expected)",
    "random legal",
    "stockfish depth 1",
];
const BOOK: usize = 0;
const SAMPLER: usize = 1;
const HABIT: usize = 2;
const LIKELY: usize = 3;
const LOWER: usize = 4;
const MODEL: usize = 5;
const ENGINE: usize = 6;
const SAMPLING: usize = 7;
const RANDOM: usize = 8;
const SF1: usize = 9;

/// The book policies compared on every in-book position (at their default weights), with
/// their report rows; `sampler (expected)` is the tiers policy.
const POLICIES: [(Policy, usize); 3] = [
    (Policy::Habit { prior: 1.0 }, HABIT),
    (Policy::Likely { prior: 1.0 }, LIKELY),
    (Policy::Lower, LOWER),
];

/// The segments, in report order. The last two hold the positions whose move has a time
/// (`mirror_core::clock`): made in time trouble or not.
pub const SEGMENTS: [&str; 8] = [
    "all",
    "in book",
    "out of book",
    "plies 1-10",
    "plies 11-30",
    "plies 31+",
    "in time trouble",
    "timed, not in time trouble",
];

/// One test position where the player is to move.
#[derive(Clone, Debug)]
pub struct TestPosition {
    /// Index of its game in the test set.
    pub game: u32,
    /// 1-based ply of the move played.
    pub ply: u32,
    /// The position.
    pub pos: Chess,
    /// The player's move.
    pub played: Move,
    /// The opponent's move into the position (`None` on White's first move).
    pub last: Option<Move>,
    /// Its game's time class, as the engine playing that game would know it.
    pub time_class: Option<TimeClass>,
    /// Whether the player's move was made in time trouble (`None`: its time is unknown).
    pub trouble: Option<bool>,
}

/// The probability `dist` gives the UCI move `played` (0 when it is not there).
pub(crate) fn probability_of(dist: &[(Move, f64)], played: &str) -> f64 {
    dist.iter()
        .filter(|(m, _)| uci(*m) == played)
        .map(|(_, p)| p)
        .sum()
}

/// The player's test positions, game by game, oldest first; at most `max`.
pub fn test_positions(games: &[(GameRecord, Color)], max: Option<usize>) -> Vec<TestPosition> {
    let mut out = Vec::new();
    'games: for (gi, (g, color)) in games.iter().enumerate() {
        let time_class = Some(g.time_class).filter(|tc| *tc != TimeClass::Unknown);
        let mut last = None;
        for (i, ply) in g.replay().map_while(Result::ok).enumerate() {
            let before = last.replace(ply.mv);
            if ply.pos.turn() != *color {
                continue;
            }
            if max.is_some_and(|m| out.len() >= m) {
                break 'games;
            }
            out.push(TestPosition {
                game: gi as u32,
                ply: i as u32 + 1,
                pos: ply.pos,
                played: ply.mv,
                last: before,
                time_class,
                trouble: g.time_of(i).map(|t| t.trouble),
            });
        }
    }
    out
}

fn phase(ply: u32) -> usize {
    match ply {
        0..=10 => 3,
        11..=30 => 4,
        _ => 5,
    }
}

/// Top-1 and top-3 accumulators of one predictor in one segment, and for predictors with
/// a distribution the log-likelihood of the move played (where it is not 0).
#[derive(Clone, Debug, Default)]
struct Cell {
    top1: Clustered,
    top3: Clustered,
    answered: usize,
    log_likelihood: Clustered,
    never: usize,
}

/// What is collected per position before judging.
struct Judged {
    game: u32,
    pos: Chess,
    played: Move,
    mirror: Move,
    /// A draw of the sampling engine (play's and serve's defaults) at this position.
    drawn: Move,
    trouble: Option<bool>,
}

/// Where the evaluation is (for a progress bar).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Predicting moves.
    Predict,
    /// Stockfish judging.
    Judge,
}

/// Every game replays (a stored game that does not is a damaged store, named).
fn check_replays(games: &[(GameRecord, Color)]) -> Result<(), EvalError> {
    for (g, _) in games {
        g.check_replay().map_err(|source| EvalError::Replay {
            game: g.id.0.clone(),
            source,
        })?;
    }
    Ok(())
}

/// The engine evaluated: `cfg`'s options and seed, the model (if any) as its fallback.
fn evaluated_engine<S: GraphRead>(
    book: S,
    player: &str,
    model: Option<&Arc<Predictor>>,
    cfg: &EvalConfig,
) -> Engine<S> {
    let mut engine = Engine::new(
        book,
        player,
        EngineOptions {
            seed: cfg.seed,
            ..cfg.engine.clone()
        },
    );
    let fallback: Box<dyn Fallback> = match model {
        Some(p) => Box::new(ModelFallback::new(p.clone())),
        None => Box::new(RandomLegal::because("evaluated without a model")),
    };
    engine.set_fallback(fallback);
    engine
}

/// Evaluates `player`'s test games against a `book` store holding their training games
/// only, with the model (if any) as the engine's fallback.
pub fn evaluate<S: GraphRead>(
    book: S,
    player: &str,
    test: &[(GameRecord, Color)],
    model: Option<Arc<Predictor>>,
    cfg: &EvalConfig,
    progress: &(dyn Fn(Phase, usize, usize) + Sync),
) -> Result<Report, EvalError> {
    // Every test game replays in full, so its positions are all of its positions.
    check_replays(test)?;
    let positions = test_positions(test, cfg.max_positions);
    let mut engine = evaluated_engine(book, player, model.as_ref(), cfg);
    let fallback_name = engine.fallback_name();
    let policy = engine.policy();
    let policy_text = if policy == cfg.engine.policy {
        policy.to_string()
    } else {
        format!("{policy} (the model's weight, chosen on validation)")
    };
    let mut sf1 = cfg.stockfish.as_deref().map(Stockfish::start).transpose()?;
    let stockfish_name = sf1.as_ref().map(|s| s.name.clone());
    let mut cells = vec![vec![Cell::default(); PREDICTORS.len()]; SEGMENTS.len()];
    let mut counts = vec![0usize; SEGMENTS.len()];
    let mut judged = Vec::new();
    let mut draws = ChaCha8Rng::seed_from_u64(cfg.seed ^ 0x0064_7261_7773);
    let total = positions.len();
    let mut promotions = Promotions::default();
    const CHUNK: usize = 256;
    for (ci, chunk) in positions.chunks(CHUNK).enumerate() {
        let logits = match &model {
            Some(p) => p.logits(
                &chunk
                    .iter()
                    .map(|t| (&t.pos, t.last.as_ref()))
                    .collect::<Vec<_>>(),
            ),
            None => Vec::new(),
        };
        for (i, t) in chunk.iter().enumerate() {
            let played = uci(t.played);
            promotions.count(t.played);
            let legal = t.pos.legal_moves();
            let k = legal.len().max(1) as f64;
            engine.set_game_time_class(t.time_class);
            let view = engine.book(&t.pos)?;
            let in_book = !view.candidates.is_empty();
            let mut segs = vec![0, if in_book { 1 } else { 2 }, phase(t.ply)];
            segs.extend(t.trouble.map(|tt| if tt { 6 } else { 7 }));
            for &s in &segs {
                counts[s] += 1;
            }
            // (top-1 value, top-3 value) per predictor; `None` = no answer.
            let mut row: Row = [None; PREDICTORS.len()];
            let hit = |ms: &[String], n: usize| hit(ms, &played, n);
            book_answers(&mut engine, t, &view, &played, &mut row)?;
            let mut likelihood: [Option<f64>; PREDICTORS.len()] = [None; PREDICTORS.len()];
            let (choice, sampled) = engine_answers(
                &mut engine,
                t,
                logits.get(i).map(Vec::as_slice),
                &played,
                &mut row,
                &mut likelihood,
            )?;
            // One draw a position, in order, from the eval's seed: the same every run.
            let drawn = draw(&sampled, draws.random()).ok_or_else(|| {
                EvalError::Internal(format!(
                    "the sampling engine had no move in {}, where the player moved",
                    fen(&t.pos)
                ))
            })?;
            row[RANDOM] = Some((1.0 / k, (3.0f64).min(k) / k));
            if let Some(sf) = sf1.as_mut() {
                let lines = sf.analyse(&fen(&t.pos), 1, 3)?;
                let ms: Vec<String> = lines.into_iter().map(|l| l.mv).collect();
                row[SF1] = Some((hit(&ms, 1), hit(&ms, 3)));
            }
            record(&mut cells, &segs, &row, &likelihood, t.game);
            judged.push(Judged {
                game: t.game,
                pos: t.pos.clone(),
                played: t.played,
                mirror: choice.mv,
                drawn,
                trouble: t.trouble,
            });
        }
        progress(Phase::Predict, (ci * CHUNK + chunk.len()).min(total), total);
    }
    drop(sf1);
    let segments = segment_reports(&cells, &counts, cfg.stockfish.is_some(), model.is_some());
    let mistakes = match &cfg.stockfish {
        Some(path) => Some(judge(path, judged, cfg, progress)?),
        None => None,
    };
    Ok(Report {
        player: player.to_string(),
        split: None,
        positions: total,
        seed: cfg.seed,
        fallback: fallback_name,
        policy: policy_text,
        tiers: cfg.engine.tiers.to_string(),
        min_games: cfg.engine.min_games,
        stockfish: stockfish_name,
        segments,
        promotions,
        mistakes,
    })
}

/// One predictor's answer at a position: (top-1 value, top-3 value); `None` = no answer.
type Row = [Option<(f64, f64)>; PREDICTORS.len()];

/// Whether the player's move `played` is among the first `n` of `ms`.
fn hit(ms: &[String], played: &str, n: usize) -> f64 {
    f64::from(u8::from(ms.iter().take(n).any(|m| m == played)))
}

/// The book's answers at `t` (the book, the tiers' sampler, and every book policy on the
/// same position; the engine's own policy is put back afterwards).
fn book_answers<S: GraphRead>(
    engine: &mut Engine<S>,
    t: &TestPosition,
    view: &mirror_engine::BookView,
    played: &str,
    row: &mut Row,
) -> Result<(), EvalError> {
    let in_book = !view.candidates.is_empty();
    let hit = |ms: &[String], n: usize| hit(ms, played, n);
    // Book: most played first (the store's order), then by UCI.
    if in_book {
        let mut by_games: Vec<(u32, String)> = view
            .candidates
            .iter()
            .map(|c| (c.stats.games(), uci(c.mv)))
            .collect();
        by_games.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        let ms: Vec<String> = by_games.into_iter().map(|(_, m)| m).collect();
        row[BOOK] = Some((hit(&ms, 1), hit(&ms, 3)));
    }
    // Sampler: expected match, and the move among its three likeliest.
    if let Some(sel) = &view.selection {
        let probs: Vec<(String, f64)> =
            sel.ranked().into_iter().map(|(m, p)| (uci(m), p)).collect();
        let expected: f64 = probs
            .iter()
            .filter(|(m, _)| *m == played)
            .map(|(_, p)| p)
            .sum();
        let ms: Vec<String> = probs.into_iter().map(|(m, _)| m).collect();
        row[SAMPLER] = Some((expected, hit(&ms, 3)));
    }
    // Every book policy on the same position: the expected match of a sampling
    // policy, the first move of a deterministic one; and the move among its three
    // likeliest. The engine's own policy is put back afterwards.
    if in_book {
        let own = engine.options().clone();
        for (policy, at) in POLICIES {
            engine.set_policy(policy);
            let dist = engine.distribution_after(&t.pos, t.last)?;
            if dist.is_empty() {
                continue;
            }
            let ms: Vec<String> = dist.iter().map(|(m, _)| uci(*m)).collect();
            let top1 = match policy {
                Policy::Habit { .. } => dist
                    .iter()
                    .filter(|(m, _)| uci(*m) == played)
                    .map(|(_, p)| p)
                    .sum(),
                _ => hit(&ms, 1),
            };
            row[at] = Some((top1, hit(&ms, 3)));
        }
        engine.set_options(own);
    }
    Ok(())
}

/// The model's, the sampling engine's and the engine's answers at `t` (`logits`: the
/// model's for this position, if there is a model); returns the engine's choice and the
/// sampling engine's distribution.
fn engine_answers<S: GraphRead>(
    engine: &mut Engine<S>,
    t: &TestPosition,
    logits: Option<&[f32]>,
    played: &str,
    row: &mut Row,
    likelihood: &mut [Option<f64>; PREDICTORS.len()],
) -> Result<(mirror_engine::Choice, Vec<(Move, f64)>), EvalError> {
    let hit = |ms: &[String], n: usize| hit(ms, played, n);
    // Model.
    let model_list: Vec<String> = match logits {
        Some(l) => rank_with(&t.pos, l)
            .into_iter()
            .map(|(m, _)| uci(m))
            .collect(),
        None => Vec::new(),
    };
    // The played move's probability under each distribution (model, sampling engine).
    if !model_list.is_empty() {
        row[MODEL] = Some((hit(&model_list, 1), hit(&model_list, 3)));
        if let Some(l) = logits {
            likelihood[MODEL] = Some(probability_of(
                &mirror_model::inference::softmax(&rank_with(&t.pos, l)),
                played,
            ));
        }
    }
    // The engine sampling (play's and serve's defaults: habit:1 without the time
    // class's weight, the guarded model sampled), with the other knobs as given:
    // its expected match is the probability it gives the move played.
    let own = engine.options().clone();
    let sampling = EngineOptions::sampling();
    engine.set_options(EngineOptions {
        policy: sampling.policy,
        sample: sampling.sample,
        context_weight: sampling.context_weight,
        ..own.clone()
    });
    let sampled = engine.choice_distribution(&t.pos, t.last);
    engine.set_options(own);
    let sampled = sampled?;
    let p_sampled = probability_of(&sampled, played);
    let sampled_list: Vec<String> = sampled.iter().map(|(m, _)| uci(*m)).collect();
    row[SAMPLING] = Some((p_sampled, hit(&sampled_list, 3)));
    likelihood[SAMPLING] = Some(p_sampled);
    // Engine: its real (seeded) choice; its top 3 = its policy's moves by
    // probability, then the model's ranking.
    let mut engine_list: Vec<String> = engine
        .distribution_after(&t.pos, t.last)?
        .into_iter()
        .map(|(m, _)| uci(m))
        .collect();
    let choice = engine.choose_after(&t.pos, t.last)?;
    let chosen = uci(choice.mv);
    if matches!(choice.source, Source::Fallback { .. }) {
        engine_list = vec![chosen.clone()];
    }
    for m in &model_list {
        if engine_list.len() >= 3 {
            break;
        }
        if !engine_list.contains(m) {
            engine_list.push(m.clone());
        }
    }
    row[ENGINE] = Some((f64::from(u8::from(chosen == played)), hit(&engine_list, 3)));
    Ok((choice, sampled))
}

/// A move drawn from `dist` (probabilities summing to 1 or about) at `u` in [0, 1); the
/// last move when rounding leaves `u` past them all, `None` when `dist` is empty.
pub(crate) fn draw(dist: &[(Move, f64)], u: f64) -> Option<Move> {
    let mut left = u * dist.iter().map(|(_, p)| p).sum::<f64>();
    for (m, p) in dist {
        if left < *p {
            return Some(*m);
        }
        left -= p;
    }
    dist.last().map(|(m, _)| *m)
}

/// Each segment's figures, for the predictors that ran.
fn segment_reports(
    cells: &[Vec<Cell>],
    counts: &[usize],
    stockfish: bool,
    model: bool,
) -> Vec<SegmentReport> {
    SEGMENTS
        .iter()
        .enumerate()
        .map(|(s, name)| SegmentReport {
            name: (*name).to_string(),
            positions: counts[s],
            predictors: PREDICTORS
                .iter()
                .enumerate()
                .filter(|(p, _)| *p != SF1 || stockfish)
                .filter(|(p, _)| *p != MODEL || model)
                .map(|(p, pname)| {
                    let c = &cells[s][p];
                    PredictorReport {
                        name: (*pname).to_string(),
                        answered: c.answered,
                        top1: if c.answered > 0 {
                            c.top1.estimate()
                        } else {
                            None
                        },
                        top3: if c.answered > 0 {
                            c.top3.estimate()
                        } else {
                            None
                        },
                        log_likelihood: c.log_likelihood.estimate_within(f64::NEG_INFINITY, 0.0),
                        never: c.never,
                    }
                })
                .collect(),
        })
        .collect()
}

/// Adds a position's answers to the cells of each of its segments.
fn record(
    cells: &mut [Vec<Cell>],
    segs: &[usize],
    row: &Row,
    likelihood: &[Option<f64>; PREDICTORS.len()],
    game: u32,
) {
    for &s in segs {
        for (p, r) in row.iter().enumerate() {
            let cell = &mut cells[s][p];
            match likelihood[p] {
                Some(q) if q > 0.0 => cell.log_likelihood.push(game, q.ln()),
                Some(_) => cell.never += 1,
                None => {}
            }
            let (a, b) = match r {
                Some(v) => {
                    cell.answered += 1;
                    *v
                }
                // A predictor without an answer does not match.
                None => (0.0, 0.0),
            };
            cell.top1.push(game, a);
            cell.top3.push(game, b);
        }
    }
}

/// A seeded sample of `max` of the indices `0..n` (all of them if fewer), in order.
pub(crate) fn seeded_sample(n: usize, max: usize, seed: u64) -> Vec<usize> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut keyed: Vec<(f64, usize)> = (0..n).map(|i| (rng.random(), i)).collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut keep: Vec<usize> = keyed.into_iter().take(max).map(|(_, i)| i).collect();
    keep.sort_unstable();
    keep
}

/// Win% of the side to move in `pos` before its move, judged at `depth`: what
/// [`win_loss`] measures a move against.
pub(crate) fn win_before(sf: &mut Stockfish, pos: &Chess, depth: u32) -> Result<f64, EvalError> {
    let best = sf.analyse(&fen(pos), depth, 1)?;
    Ok(win_percent(
        best.first().map_or(0.0, |l| l.score.capped_cp()),
    ))
}

/// Win% the mover loses with `mv` in `pos`, judged at `depth`.
pub(crate) fn win_loss(
    sf: &mut Stockfish,
    pos: &Chess,
    before: f64,
    mv: Move,
    depth: u32,
) -> Result<f64, EvalError> {
    let mut after = pos.clone();
    after.play_unchecked(mv);
    // From the mover's side after the move.
    let mover_cp = if after.is_checkmate() {
        1000.0
    } else if after.is_stalemate() || after.is_insufficient_material() {
        0.0
    } else {
        let lines = sf.analyse(&fen(&after), depth, 1)?;
        match lines.first() {
            Some(l) => -l.score.capped_cp(),
            None => 0.0,
        }
    };
    Ok((before - win_percent(mover_cp)).max(0.0))
}

/// (index of the judged position, win% lost by the player's move, by the mirror's, by the
/// sampling mirror's draw).
type Loss = (usize, f64, f64, f64);

fn judge(
    path: &std::path::Path,
    mut judged: Vec<Judged>,
    cfg: &EvalConfig,
    progress: &(dyn Fn(Phase, usize, usize) + Sync),
) -> Result<MistakeReport, EvalError> {
    if let Some(max) = cfg.judge_positions
        && judged.len() > max
    {
        let keep = seeded_sample(judged.len(), max, cfg.seed ^ 0x006a_7564_6765);
        let mut it = keep.into_iter().peekable();
        judged = judged
            .into_iter()
            .enumerate()
            .filter(|(i, _)| it.next_if_eq(i).is_some())
            .map(|(_, j)| j)
            .collect();
    }
    let total = judged.len();
    let threads = cfg.judge_threads.clamp(1, 16);
    let done = std::sync::atomic::AtomicUsize::new(0);
    let depth = cfg.judge_depth;
    // Each position's searches start from a cleared hash, so results do not depend on
    // how positions are shared between processes.
    let results: Vec<Result<Vec<Loss>, EvalError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let judged = &judged;
                let done = &done;
                scope.spawn(move || -> Result<Vec<Loss>, EvalError> {
                    let mut sf = Stockfish::start(path)?;
                    let mut out = Vec::new();
                    for (i, j) in judged.iter().enumerate().skip(t).step_by(threads) {
                        let before = win_before(&mut sf, &j.pos, depth)?;
                        let lp = win_loss(&mut sf, &j.pos, before, j.played, depth)?;
                        let lm = if j.mirror == j.played {
                            lp
                        } else {
                            win_loss(&mut sf, &j.pos, before, j.mirror, depth)?
                        };
                        let ls = if j.drawn == j.played {
                            lp
                        } else if j.drawn == j.mirror {
                            lm
                        } else {
                            win_loss(&mut sf, &j.pos, before, j.drawn, depth)?
                        };
                        out.push((i, lp, lm, ls));
                        let n = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                        if n.is_multiple_of(64) || n == total {
                            progress(Phase::Judge, n, total);
                        }
                    }
                    Ok(out)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(EvalError::Internal("a judging thread panicked".into()))
                })
            })
            .collect()
    });
    let mut losses = vec![(0.0, 0.0, 0.0); total];
    for r in results {
        for (i, lp, lm, ls) in r? {
            losses[i] = (lp, lm, ls);
        }
    }
    let (mut player, mut mirror, mut diff) = (
        Clustered::default(),
        Clustered::default(),
        Clustered::default(),
    );
    let (mut player_loss, mut mirror_loss) = (Clustered::default(), Clustered::default());
    let (mut sampled, mut sampled_loss) = (Clustered::default(), Clustered::default());
    // By the clock: [in time trouble, timed and not] x [player, mirror].
    let mut by_clock: [[Clustered; 2]; 2] = Default::default();
    for (j, (lp, lm, ls)) in judged.iter().zip(&losses) {
        let mp = f64::from(u8::from(*lp >= MISTAKE_WIN_PERCENT));
        let mm = f64::from(u8::from(*lm >= MISTAKE_WIN_PERCENT));
        sampled.push(j.game, f64::from(u8::from(*ls >= MISTAKE_WIN_PERCENT)));
        sampled_loss.push(j.game, *ls);
        player.push(j.game, mp);
        mirror.push(j.game, mm);
        diff.push(j.game, mm - mp);
        player_loss.push(j.game, *lp);
        mirror_loss.push(j.game, *lm);
        if let Some(tt) = j.trouble {
            let [p, m] = &mut by_clock[usize::from(!tt)];
            p.push(j.game, mp);
            m.push(j.game, mm);
        }
    }
    let by_clock = ["in time trouble", "timed, not in time trouble"]
        .into_iter()
        .zip(by_clock)
        .map(|(name, [p, m])| ClockMistakes {
            name: name.to_string(),
            positions: p.len(),
            player: p.estimate(),
            mirror: m.estimate(),
        })
        .collect();
    Ok(MistakeReport {
        by_clock,
        depth,
        threshold: MISTAKE_WIN_PERCENT,
        player: player.estimate(),
        mirror: mirror.estimate(),
        difference: diff.estimate_within(-1.0, 1.0),
        player_mean_loss: player_loss.estimate_within(0.0, 100.0),
        mirror_mean_loss: mirror_loss.estimate_within(0.0, 100.0),
        sampled: sampled.estimate(),
        sampled_mean_loss: sampled_loss.estimate_within(0.0, 100.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirror_testkit::conformance::sample_games;

    #[test]
    fn a_draw_falls_where_its_share_of_the_probabilities_says() {
        let pos = Chess::default();
        let moves: Vec<Move> = pos.legal_moves().into_iter().take(3).collect();
        let dist = [(moves[0], 0.25), (moves[1], 0.5), (moves[2], 0.25)];
        assert_eq!(draw(&dist, 0.0), Some(moves[0]));
        assert_eq!(draw(&dist, 0.24), Some(moves[0]));
        assert_eq!(draw(&dist, 0.26), Some(moves[1]));
        assert_eq!(draw(&dist, 0.74), Some(moves[1]));
        assert_eq!(draw(&dist, 0.76), Some(moves[2]));
        assert_eq!(draw(&dist, 0.999_999), Some(moves[2]));
        // Probabilities that do not quite sum to 1 are read as shares of their sum.
        let half = [(moves[0], 0.1), (moves[1], 0.1)];
        assert_eq!(draw(&half, 0.6), Some(moves[1]));
        assert_eq!(draw(&[], 0.5), None);
    }

    #[test]
    fn test_positions_are_the_players_moves_with_their_ply() {
        let games = sample_games(20);
        let all = test_positions(&games, None);
        let expected: usize = games
            .iter()
            .map(|(g, c)| {
                let first = usize::from(*c == Color::Black);
                (g.moves.len() + 1 - first) / 2
            })
            .sum();
        assert_eq!(all.len(), expected);
        for t in &all {
            let (g, c) = &games[t.game as usize];
            assert_eq!(t.pos.turn(), *c);
            // White moves on odd plies, Black on even ones.
            assert_eq!(t.ply % 2 == 1, *c == Color::White, "{}", g.id);
            assert!(t.pos.is_legal(t.played));
        }
        assert_eq!(test_positions(&games, Some(7)).len(), 7);
        assert_eq!(phase(10), 3);
        assert_eq!(phase(11), 4);
        assert_eq!(phase(31), 5);
    }
}
