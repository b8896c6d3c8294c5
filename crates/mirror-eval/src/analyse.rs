//! `mirror analyse`: a UCI engine's evaluation of the positions of a player's tree, stored
//! on each position and shared by every player who reaches it.
//!
//! The positions: every position reached in at least `min_games` of the player's games
//! (either colour), and the position after each move played there at least `min_games`
//! times; positions where the game is over are left out (their outcome needs no engine).
//! A position already evaluated at least as deep as asked (by this player's analysis or by
//! another's) is reused, not searched again: a re-run searches only what is new or
//! shallower, and an analysis killed mid-way loses at most the evaluations of its last
//! unwritten batch.
//!
//! Each worker thread runs its own engine (one thread, a 16 MiB hash, cleared before each
//! search: an evaluation is the same whichever worker made it and whatever it searched
//! before) and takes a few positions at a time from the store
//! ([`GraphWrite::claim_analysis`]: on Neo4j, several processes on one or several machines
//! so share the work without searching a position twice); results are written in
//! batches, each one transaction.

use std::{
    path::PathBuf,
    sync::{
        atomic::{AtomicBool, AtomicUsize, Ordering},
        mpsc,
    },
    time::{Duration, Instant},
};

use mirror_core::{
    PositionKey,
    evaluation::{EvalScore, EvalSource, Evaluation},
};
use mirror_engine::stockfish::{Score, Stockfish, StockfishError};
use mirror_store::{GraphRead, GraphStore, StoreError};
use rustc_hash::FxHashMap;
use shakmaty::{CastlingMode, Chess, Color, Position, fen::Fen};

/// What to analyse and how deep.
#[derive(Clone, Debug)]
pub struct AnalyseOptions {
    /// The fewest of the player's games through a position (or playing a move) that make
    /// it worth an evaluation.
    pub min_games: u32,
    /// The depth of each search.
    pub depth: u16,
    /// Worker threads, each with its own engine.
    pub threads: usize,
    /// The UCI engine's executable.
    pub engine: PathBuf,
    /// Evaluations written per transaction.
    pub batch: usize,
}

impl AnalyseOptions {
    /// Options with the engine found as `mirror analyse` finds it (`engine` if given, else
    /// `stockfish` on PATH, else Debian's) and every core unless `threads` says.
    pub fn found(
        engine: Option<&std::path::Path>,
        threads: Option<usize>,
        min_games: u32,
        depth: u16,
        batch: usize,
    ) -> Result<AnalyseOptions, AnalyseError> {
        let engine = mirror_engine::stockfish::find(engine)?.ok_or(AnalyseError::NoEngine)?;
        let threads = threads.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        });
        Ok(AnalyseOptions {
            min_games,
            depth,
            threads,
            engine,
            batch,
        })
    }
}

/// What an analysis reports as it goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum AnalyseEvent {
    /// The positions are chosen.
    Planned {
        /// Positions of the player's tree that qualify.
        positions: usize,
        /// Of them, already evaluated by an engine at least as deep (by anyone): reused.
        reused: usize,
        /// Of them, to take now (searched here, unless the game is over there or another
        /// worker takes them first).
        to_take: usize,
    },
    /// A batch of evaluations was written.
    Written {
        /// Positions taken so far (searched, left out, or left to another worker).
        taken: usize,
        /// Out of.
        of: usize,
    },
}

/// What an analysis did.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct AnalyseSummary {
    /// Positions of the player's tree that qualify.
    pub positions: usize,
    /// Already evaluated by an engine at least as deep when the analysis started: reused.
    pub reused: usize,
    /// Left out: the game is over there, or it is not standard chess.
    pub skipped: usize,
    /// Searched by another worker on the same store while this one ran.
    pub by_others: usize,
    /// Searched by this run.
    pub searched: usize,
    /// Of those, stored (a concurrent writer may have stored a deeper one first).
    pub stored: usize,
    /// The engine's name.
    pub engine: String,
    /// The depth asked.
    pub depth: u16,
    /// Worker threads (one engine each).
    pub threads: usize,
    /// Wall time of the searches, in seconds.
    pub seconds: f64,
}

impl std::fmt::Display for AnalyseSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} positions, {} reused, {} searched at depth {} by {} in {:.1} s ({:.1} \
             positions/s, {} threads), {} left out (game over), {} searched by another worker",
            self.positions,
            self.reused,
            self.searched,
            self.depth,
            self.engine,
            self.seconds,
            self.searched as f64 / self.seconds.max(1e-9),
            self.threads,
            self.skipped,
            self.by_others,
        )
    }
}

/// Why an analysis stopped.
#[derive(Debug, thiserror::Error)]
pub enum AnalyseError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The engine failed.
    #[error(transparent)]
    Engine(#[from] StockfishError),
    /// No UCI engine was given or found.
    #[error("no UCI engine: install Stockfish (apt install stockfish) or pass --engine PATH")]
    NoEngine,
    /// A position's engine answer was unusable.
    #[error("the engine gave no line for the position {epd} at depth {depth}")]
    NoLine {
        /// The position.
        epd: String,
        /// The depth asked.
        depth: u16,
    },
}

/// A position to search: its FEN and the side to move.
#[derive(Clone, Debug)]
struct Job {
    fen: String,
    turn: Color,
}

/// What a worker sends back.
enum Done {
    /// A position searched.
    Searched(PositionKey, Evaluation),
    /// A position left out (game over, not standard chess).
    Skipped,
    /// Positions another worker had taken.
    ByOthers(usize),
}

/// Positions a worker takes from the store at once.
const CHUNK: usize = 8;

/// How long a worker's claim on a chunk lasts (a worker that dies frees its chunk then).
const LEASE_MS: u64 = 10 * 60 * 1000;

/// The positions of `player`'s tree that qualify (see the module's rules), in key order.
pub fn positions<S: GraphRead + ?Sized>(
    store: &S,
    player: &str,
    min_games: u32,
) -> Result<Vec<PositionKey>, StoreError> {
    let mut through: FxHashMap<PositionKey, u64> = FxHashMap::default();
    let mut move_games: FxHashMap<(PositionKey, PositionKey), u64> = FxHashMap::default();
    for row in store.edges(player)? {
        let games = u64::from(row.stats.games());
        *through.entry(row.pos).or_default() += games;
        *move_games.entry((row.pos, row.child)).or_default() += games;
    }
    let min = u64::from(min_games.max(1));
    let mut keys: Vec<PositionKey> = through
        .iter()
        .filter(|&(_, &g)| g >= min)
        .map(|(&k, _)| k)
        .chain(
            move_games
                .iter()
                .filter(|&(_, &g)| g >= min)
                .map(|(&(_, child), _)| child),
        )
        .collect();
    keys.sort_unstable_by_key(|k| k.0);
    keys.dedup();
    Ok(keys)
}

/// The FEN of a stored position and its side to move, if it is standard chess with a move
/// to play.
fn job_of<S: GraphRead + ?Sized>(store: &S, key: PositionKey) -> Result<Option<Job>, StoreError> {
    let Some(epd) = store.position_epd(key)? else {
        return Err(StoreError::Corrupt(format!(
            "position {key} is in the player's tree but not stored"
        )));
    };
    let fen = if epd.split_whitespace().count() == 4 {
        format!("{epd} 0 1")
    } else {
        epd
    };
    let Ok(parsed) = fen.parse::<Fen>() else {
        return Ok(None);
    };
    let Ok(pos) = parsed.into_position::<Chess>(CastlingMode::Standard) else {
        return Ok(None);
    };
    if pos.legal_moves().is_empty() {
        return Ok(None);
    }
    Ok(Some(Job {
        fen,
        turn: pos.turn(),
    }))
}

/// The evaluation of `job` by `engine` at `depth`.
fn search(engine: &mut Stockfish, job: &Job, depth: u16) -> Result<Evaluation, AnalyseError> {
    let lines = engine.analyse(&job.fen, u32::from(depth), 1)?;
    let Some(line) = lines.into_iter().next() else {
        return Err(AnalyseError::NoLine {
            epd: job.fen.clone(),
            depth,
        });
    };
    let white = |v: i32| if job.turn == Color::White { v } else { -v };
    Ok(Evaluation {
        score: match line.score {
            Score::Cp(c) => EvalScore::Cp(white(c)),
            Score::Mate(m) => EvalScore::Mate(white(m)),
        },
        best: Some(line.mv),
        depth,
        engine: engine.name.clone(),
        source: EvalSource::Engine,
    })
}

/// This process's name as an analysis worker: the machine's, the process's and the time
/// it started, so that workers on several machines never share one.
fn worker_name() -> String {
    let host = std::env::var("HOSTNAME").unwrap_or_else(|_| "host".into());
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    format!("{host}:{}:{nanos}", std::process::id())
}

/// Analyses `player`'s tree in `store` as `opts` says, reporting to `on_event`.
pub fn analyse<S: GraphStore + Sync + ?Sized>(
    store: &S,
    player: &str,
    opts: &AnalyseOptions,
    mut on_event: impl FnMut(AnalyseEvent),
) -> Result<AnalyseSummary, AnalyseError> {
    let keys = positions(store, player, opts.min_games)?;
    let todo = not_evaluated(store, &keys, opts.depth)?;
    let reused = keys.len() - todo.len();
    on_event(AnalyseEvent::Planned {
        positions: keys.len(),
        reused,
        to_take: todo.len(),
    });
    let mut summary = search_all(store, &todo, opts, on_event)?;
    summary.positions = keys.len();
    summary.reused = reused;
    Ok(summary)
}

/// Those of `keys` not yet evaluated by an engine at `depth` or deeper, in their order.
fn not_evaluated<S: GraphRead + ?Sized>(
    store: &S,
    keys: &[PositionKey],
    depth: u16,
) -> Result<Vec<PositionKey>, StoreError> {
    let mut todo = Vec::new();
    for chunk in keys.chunks(1000) {
        for (&key, old) in chunk.iter().zip(store.evaluations(chunk)?) {
            if !old.is_some_and(|e| e.depth >= depth && e.source == EvalSource::Engine) {
                todo.push(key);
            }
        }
    }
    Ok(todo)
}

/// Searches the positions `todo` (taking them from the store a chunk at a time) and
/// writes their evaluations; the summary's `positions` and `reused` are left 0.
fn search_all<S: GraphStore + Sync + ?Sized>(
    store: &S,
    todo: &[PositionKey],
    opts: &AnalyseOptions,
    mut on_event: impl FnMut(AnalyseEvent),
) -> Result<AnalyseSummary, AnalyseError> {
    // The engine's name, and a check that it starts, before any thread does.
    let name = Stockfish::start(&opts.engine)?.name.clone();
    let worker = worker_name();
    let started = Instant::now();
    let threads = opts.threads.clamp(1, todo.len().max(1));
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let chunks: Vec<&[PositionKey]> = todo.chunks(CHUNK).collect();
    let (tx, rx) = mpsc::channel::<Result<Done, AnalyseError>>();
    let mut summary = AnalyseSummary {
        positions: 0,
        reused: 0,
        skipped: 0,
        by_others: 0,
        searched: 0,
        stored: 0,
        engine: name,
        depth: opts.depth,
        threads,
        seconds: 0.0,
    };
    let mut failure: Option<AnalyseError> = None;
    std::thread::scope(|scope| {
        for _ in 0..threads {
            let tx = tx.clone();
            let (chunks, next, stop, worker) = (&chunks, &next, &stop, &worker);
            scope.spawn(move || {
                let work = || -> Result<(), AnalyseError> {
                    let mut engine = Stockfish::start(&opts.engine)?;
                    while !stop.load(Ordering::Relaxed) {
                        let Some(chunk) = chunks.get(next.fetch_add(1, Ordering::Relaxed)) else {
                            return Ok(());
                        };
                        let taken = store.claim_analysis(chunk, opts.depth, worker, LEASE_MS)?;
                        if taken.len() < chunk.len() {
                            let _ = tx.send(Ok(Done::ByOthers(chunk.len() - taken.len())));
                        }
                        for key in taken {
                            let done = match job_of(store, key)? {
                                Some(job) => {
                                    Done::Searched(key, search(&mut engine, &job, opts.depth)?)
                                }
                                None => Done::Skipped,
                            };
                            if tx.send(Ok(done)).is_err() {
                                return Ok(());
                            }
                        }
                    }
                    Ok(())
                };
                if let Err(e) = work() {
                    let _ = tx.send(Err(e));
                }
            });
        }
        drop(tx);
        let total = todo.len();
        let mut taken = 0;
        let mut pending: Vec<(PositionKey, Evaluation)> = Vec::new();
        let mut last_write = Instant::now();
        let batch = opts.batch.max(1);
        let mut write = |pending: &mut Vec<(PositionKey, Evaluation)>,
                         summary: &mut AnalyseSummary,
                         taken: usize|
         -> Result<(), AnalyseError> {
            if !pending.is_empty() {
                summary.stored += store.write_evaluations(pending)?;
                summary.searched += pending.len();
                pending.clear();
            }
            on_event(AnalyseEvent::Written { taken, of: total });
            Ok(())
        };
        for done in rx {
            match done {
                Ok(Done::Searched(key, e)) => {
                    pending.push((key, e));
                    taken += 1;
                }
                Ok(Done::Skipped) => {
                    summary.skipped += 1;
                    taken += 1;
                }
                Ok(Done::ByOthers(n)) => {
                    summary.by_others += n;
                    taken += n;
                }
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    failure.get_or_insert(e);
                    continue;
                }
            }
            if pending.len() >= batch || last_write.elapsed() >= Duration::from_secs(2) {
                if let Err(e) = write(&mut pending, &mut summary, taken) {
                    stop.store(true, Ordering::Relaxed);
                    failure.get_or_insert(e);
                }
                last_write = Instant::now();
            }
        }
        // What was searched before a failure is kept too.
        if let Err(e) = write(&mut pending, &mut summary, taken) {
            failure.get_or_insert(e);
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

/// One stored evaluation as `mirror analyse --list` prints it (a JSON line): the EPD, `cp`
/// or `mate` from White's side, the best move, the depth, the engine and the source.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Listed {
    /// The position.
    pub epd: String,
    /// Centipawns (absent for a mate).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cp: Option<i32>,
    /// Mate in this many moves (absent for centipawns).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mate: Option<i32>,
    /// The best move, UCI.
    pub best: Option<String>,
    /// The depth.
    pub depth: u16,
    /// The engine's name.
    pub engine: String,
    /// `engine` or `comment`.
    pub source: &'static str,
}

/// The stored evaluations of `player`'s qualifying positions, with each position's EPD:
/// what [`analyse`] (or the games' comments) left there.
pub fn evaluated<S: GraphRead + ?Sized>(
    store: &S,
    player: &str,
    min_games: u32,
) -> Result<Vec<Listed>, StoreError> {
    let keys = positions(store, player, min_games)?;
    let mut out = Vec::new();
    for chunk in keys.chunks(1000) {
        for (&key, e) in chunk.iter().zip(store.evaluations(chunk)?) {
            if let Some(e) = e {
                let (cp, mate) = e.score.cp_mate();
                out.push(Listed {
                    epd: store.position_epd(key)?.unwrap_or_default(),
                    cp,
                    mate,
                    best: e.best,
                    depth: e.depth,
                    engine: e.engine,
                    source: e.source.as_str(),
                });
            }
        }
    }
    Ok(out)
}

/// `mirror bench analyse`: the same positions searched by `mirror analyse` and by the
/// engine alone (as many engine processes, the same depth, no store), in one run.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct BenchFigures {
    /// The player's positions that qualify.
    pub positions: usize,
    /// Positions searched by each side.
    pub sample: usize,
    /// The depth.
    pub depth: u16,
    /// Engine processes on each side.
    pub threads: usize,
    /// The engine's name.
    pub engine: String,
    /// The engine alone: seconds, positions per second.
    pub engine_seconds: f64,
    /// The engine alone's rate.
    pub engine_rate: f64,
    /// `mirror analyse`: seconds (claims, reads, searches, writes).
    pub mirror_seconds: f64,
    /// `mirror analyse`'s rate.
    pub mirror_rate: f64,
}

impl std::fmt::Display for BenchFigures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{} of the player's {} positions not yet analysed at depth {}, {} engine processes ({})",
            self.sample, self.positions, self.depth, self.threads, self.engine
        )?;
        writeln!(
            f,
            "  the engine alone:  {:>8.1} s  {:>8.1} positions/s",
            self.engine_seconds, self.engine_rate
        )?;
        writeln!(
            f,
            "  mirror analyse:    {:>8.1} s  {:>8.1} positions/s",
            self.mirror_seconds, self.mirror_rate
        )?;
        write!(
            f,
            "  mirror's overhead: {:+.1}% of the engine's time",
            100.0 * (self.mirror_seconds / self.engine_seconds.max(1e-9) - 1.0)
        )
    }
}

/// Searches `sample` of `player`'s positions not yet analysed at `opts.depth` (spread over
/// the tree), first by the engine alone, then by `mirror analyse`'s own workers (which
/// store them: the bench leaves them analysed).
pub fn bench<S: GraphStore + Sync + ?Sized>(
    store: &S,
    player: &str,
    opts: &AnalyseOptions,
    sample: usize,
) -> Result<BenchFigures, AnalyseError> {
    let keys = positions(store, player, opts.min_games)?;
    let todo = not_evaluated(store, &keys, opts.depth)?;
    let mut chosen = Vec::new();
    let mut jobs = Vec::new();
    let step = (todo.len() / sample.max(1)).max(1);
    for &key in todo.iter().step_by(step) {
        if jobs.len() >= sample {
            break;
        }
        if let Some(job) = job_of(store, key)? {
            chosen.push(key);
            jobs.push(job);
        }
    }
    let threads = opts.threads.clamp(1, jobs.len().max(1));
    // The engine alone: the same searches, the same processes, nothing else.
    let next = AtomicUsize::new(0);
    let started = Instant::now();
    let name = std::thread::scope(|scope| -> Result<String, AnalyseError> {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let (jobs, next) = (&jobs, &next);
                scope.spawn(move || -> Result<String, AnalyseError> {
                    let mut engine = Stockfish::start(&opts.engine)?;
                    while let Some(job) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
                        search(&mut engine, job, opts.depth)?;
                    }
                    Ok(engine.name.clone())
                })
            })
            .collect();
        let mut name = String::new();
        for h in handles {
            name = h
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
        }
        Ok(name)
    })?;
    let engine_seconds = started.elapsed().as_secs_f64();
    let mine = search_all(store, &chosen, opts, |_| {})?;
    Ok(BenchFigures {
        positions: keys.len(),
        sample: jobs.len(),
        depth: opts.depth,
        threads,
        engine: name,
        engine_seconds,
        engine_rate: jobs.len() as f64 / engine_seconds.max(1e-9),
        mirror_seconds: mine.seconds,
        mirror_rate: mine.searched as f64 / mine.seconds.max(1e-9),
    })
}

/// How much analysis the shared graph saves across players: each player's qualifying
/// positions (as [`positions`] chooses them), and how many are shared.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct Sharing {
    /// Players with at least one qualifying position.
    pub players: usize,
    /// The sum over players of their qualifying positions: the searches without sharing.
    pub per_player: usize,
    /// Distinct positions among them: the searches the graph needs.
    pub distinct: usize,
    /// Distinct positions in two or more players' trees.
    pub shared: usize,
}

impl std::fmt::Display for Sharing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} players: {} positions to analyse player by player, {} distinct ({} of them in \
             two or more players' trees, {:.1}%); the shared graph saves {:.1}% of the searches",
            self.players,
            self.per_player,
            self.distinct,
            self.shared,
            100.0 * self.shared as f64 / self.distinct.max(1) as f64,
            100.0 * (1.0 - self.distinct as f64 / self.per_player.max(1) as f64)
        )
    }
}

/// [`Sharing`] over every player of `store`.
pub fn sharing<S: GraphRead + ?Sized>(store: &S, min_games: u32) -> Result<Sharing, StoreError> {
    let mut seen: FxHashMap<PositionKey, u32> = FxHashMap::default();
    let (mut players, mut per_player) = (0, 0);
    for p in store.players()? {
        let keys = positions(store, &p.name, min_games)?;
        if keys.is_empty() {
            continue;
        }
        players += 1;
        per_player += keys.len();
        for k in keys {
            *seen.entry(k).or_default() += 1;
        }
    }
    Ok(Sharing {
        players,
        per_player,
        distinct: seen.len(),
        shared: seen.values().filter(|&&n| n >= 2).count(),
    })
}
