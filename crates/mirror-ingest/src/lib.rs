//! Ingesting games into a [`GraphStore`]: sources -> PGN decoding -> player matching ->
//! dedupe against the store -> aggregation into [`Batch`]es -> one transaction per batch.
//!
//! Decoding and aggregation run on one thread, writes on the caller's, so the two cores
//! of a small machine both work. A crash loses at most the batch in flight: every batch
//! records its games as ingested in the same transaction as their edges, so running the
//! same ingest again ends with exactly the counts of one clean run.

pub mod bench;
pub mod chesscom;
pub mod corpus;
pub mod lichess;
pub mod profile;
pub mod run;
pub mod source;

use std::{
    collections::BTreeMap,
    sync::mpsc,
    time::{Duration, Instant},
};

use mirror_core::{
    GameId, GameRecord,
    batch::Batch,
    pgn::{Decoded, GameError, SkipReason, read_games},
};
use mirror_store::{GraphStore, StoreError, WriteReport};
use rustc_hash::FxHashMap;
use shakmaty::Color;

pub use source::{Source, SourceError, expand};

/// Errors that stop an ingest (a bad game never does).
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// An input could not be used.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// An input of a corpus could not be read in full (`--all-players` reads its inputs
    /// twice, so both passes must see the same games).
    #[error("{what}")]
    Input {
        /// The input and what failed.
        what: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// The decoding thread died.
    #[error("the decoding thread panicked")]
    DecoderPanicked,
    /// An online source could not be used at all (unknown user, 403, archives list or
    /// export request failing).
    #[error(transparent)]
    Online(#[from] mirror_online::FetchError),
    /// Cancelled by whoever ran it (the batches committed before stay: a new ingest
    /// resumes after them).
    #[error("cancelled")]
    Cancelled,
}

/// What to ingest for whom.
#[derive(Clone, Debug)]
pub struct IngestOptions {
    /// The player (profile) the games are stored for.
    pub player: String,
    /// The names the player has in these games (matched case-insensitively on
    /// White/Black): their own name, other spellings, account names.
    pub names: Vec<String>,
    /// Games per write transaction.
    pub batch_size: usize,
}

impl IngestOptions {
    /// Options with the default batch size (10,000 games: a crash loses a few seconds of
    /// work, and fewer commits rewrite fewer pages of the copy-on-write B-trees).
    pub fn new(player: impl Into<String>) -> IngestOptions {
        let player = player.into();
        IngestOptions {
            names: vec![player.clone()],
            player,
            batch_size: 10_000,
        }
    }
}

/// A game that could not be read, with where it was.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidGame {
    /// The source it came from.
    pub source: String,
    /// Its 1-based number in that source.
    pub number: u64,
    /// The bad move.
    pub error: GameError,
}

impl std::fmt::Display for InvalidGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: game {}: {}", self.source, self.number, self.error)
    }
}

/// The outcome of an ingest.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    /// Games read from the inputs (any kind).
    pub games_read: u64,
    /// Games of the player newly ingested.
    pub ingested: u64,
    /// Games of the player that were already in the store (or twice in the input).
    pub duplicates: u64,
    /// Readable standard games in which the player did not play.
    pub other_players: u64,
    /// Games left out, by reason.
    pub skipped: BTreeMap<String, u64>,
    /// Games with an illegal or unreadable move (all of them are counted here; the first
    /// 1,000 are kept with their details).
    pub invalid: u64,
    /// Details of invalid games.
    pub invalid_games: Vec<InvalidGame>,
    /// Inputs that failed part-way (I/O or decompression errors); their earlier games
    /// are ingested.
    pub source_errors: Vec<String>,
    /// New positions in the store.
    pub new_positions: u64,
    /// New edge rows in the store.
    pub new_edges: u64,
    /// Plies of ingested games.
    pub plies: u64,
    /// Wall time.
    pub elapsed: Duration,
    /// The names most often in the games left out as other players' (White's and
    /// Black's), most frequent first, at most 10: another spelling of the player is
    /// usually the first ("Kasparov,G" beside "Kasparov, Gary").
    pub frequent_names: Vec<(String, u64)>,
}

impl Summary {
    /// Counts a committed write: its games, the duplicates dropped on the way and the
    /// plies written.
    pub fn add_written(&mut self, report: &WriteReport, duplicates: u64, plies: u64) {
        self.ingested += report.games;
        self.duplicates += duplicates;
        self.new_positions += report.new_positions;
        self.new_edges += report.new_edges;
        self.plies += plies;
    }

    /// Whether anything went wrong that the user must hear about through the exit code.
    pub fn has_errors(&self) -> bool {
        !self.source_errors.is_empty()
    }
}

/// What [`copy_games`] did.
#[derive(Clone, Copy, Debug, Default)]
pub struct CopyReport {
    /// Games copied.
    pub copied: u64,
    /// Games the target had already (from an earlier copy, or another writer meanwhile).
    pub present: u64,
    /// New positions in the target.
    pub new_positions: u64,
    /// New edges in the target.
    pub new_edges: u64,
}

/// Copies `player`'s `games` into `to` (`mirror export --to neo4j`), `batch_size` games
/// per transaction, leaving out those it has (so a copy run again adds nothing); `tick`
/// gets the games done after each transaction.
pub fn copy_games<S: GraphStore + ?Sized>(
    to: &S,
    player: &str,
    games: &[(GameRecord, Color)],
    batch_size: usize,
    tick: &mut dyn FnMut(u64),
) -> Result<CopyReport, IngestError> {
    let mut r = CopyReport::default();
    for chunk in games.chunks(batch_size.max(1)) {
        let ids: Vec<_> = chunk.iter().map(|(g, _)| g.id.clone()).collect();
        let known = to.ingested(player, &ids)?;
        let mut batch = Batch::new();
        for (g, c) in chunk {
            if known.contains(&g.id) {
                r.present += 1;
            } else {
                batch.add_game(g.clone(), *c).map_err(|e| {
                    StoreError::Corrupt(format!("stored game {} does not replay: {e}", g.id))
                })?;
            }
        }
        // Games another writer adds meanwhile are counted as already there.
        let (w, meanwhile, _) = write(to, player, batch)?;
        r.copied += w.games;
        r.present += meanwhile;
        r.new_positions += w.new_positions;
        r.new_edges += w.new_edges;
        tick(chunk.len() as u64);
    }
    Ok(r)
}

/// Every standard game of `sources`, in order (only `user`'s, when given): games read
/// outside the store (`mirror values --pgn`). An input that cannot be read is an error.
pub fn read_games_of(
    sources: &[Source],
    user: Option<&str>,
) -> Result<Vec<GameRecord>, IngestError> {
    let mut out = Vec::new();
    for source in sources {
        let failed = |what: &str, e| IngestError::Input {
            what: format!("{what} {source}"),
            source: e,
        };
        let reader = source::open(source).map_err(|e| failed("cannot read", e))?;
        for item in read_games(reader) {
            let (_, decoded) = item.map_err(|e| failed("reading", e))?;
            if let Decoded::Game(g) = decoded
                && user.is_none_or(|u| g.color_of(&[u]).is_some())
            {
                out.push(g);
            }
        }
    }
    Ok(out)
}

/// Receives progress; called on the thread that called [`ingest`].
pub trait Progress {
    /// An input is starting.
    fn source(&mut self, _name: &str, _index: usize, _total: usize) {}
    /// `games_read` games have been read so far, `ingested` written.
    fn games(&mut self, _games_read: u64, _ingested: u64) {}
    /// A batch was committed.
    fn committed(&mut self, _report: &WriteReport, _summary: &Summary) {}
    /// A game was invalid (reported and skipped).
    fn invalid(&mut self, _game: &InvalidGame) {}
    /// Whether to stop: asked between batches (a committed batch is never undone).
    fn cancelled(&self) -> bool {
        false
    }
}

/// A [`Progress`] that ignores everything.
#[derive(Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {}

/// What reading the inputs saw, for the summary (one-player and corpus ingests alike).
pub(crate) enum Seen {
    Source(String, usize),
    Read(u64),
    Invalid(InvalidGame),
    Skipped(String),
    SourceError(String),
}

impl Seen {
    /// Counts this in `summary` and tells `progress`; `total` inputs in all.
    pub(crate) fn record(self, summary: &mut Summary, progress: &mut dyn Progress, total: usize) {
        match self {
            Seen::Source(s, i) => progress.source(&s, i, total),
            Seen::Read(n) => {
                summary.games_read += n;
                progress.games(summary.games_read, summary.ingested);
            }
            Seen::Invalid(g) => {
                summary.invalid += 1;
                progress.invalid(&g);
                if summary.invalid_games.len() < MAX_INVALID_DETAILS {
                    summary.invalid_games.push(g);
                }
            }
            Seen::Skipped(reason) => *summary.skipped.entry(reason).or_default() += 1,
            Seen::SourceError(e) => summary.source_errors.push(e),
        }
    }
}

/// Reads every game of `inputs` in turn, telling `seen` what it saw and giving each
/// standard game (with its input's name) to `game`. Stops when `seen` returns false (the
/// writer stopped) or `game` returns `Ok(false)`, and returns false then.
pub(crate) fn read_inputs<E>(
    inputs: Vec<Input>,
    seen: &impl Fn(Seen) -> bool,
    mut game: impl FnMut(GameRecord) -> Result<bool, E>,
) -> Result<bool, E> {
    for (i, input) in inputs.into_iter().enumerate() {
        let name = input.name;
        if !seen(Seen::Source(name.clone(), i)) {
            return Ok(false);
        }
        let reader = match (input.open)() {
            Ok(r) => r,
            Err(e) => {
                seen(Seen::SourceError(format!("{name}: {e}")));
                continue;
            }
        };
        let mut unreported = 0u64;
        for item in read_games(reader) {
            let (number, decoded) = match item {
                Ok(x) => x,
                Err(e) => {
                    seen(Seen::SourceError(format!(
                        "{name}: read error after some games: {e}"
                    )));
                    break;
                }
            };
            unreported += 1;
            if unreported == 1000 {
                seen(Seen::Read(unreported));
                unreported = 0;
            }
            let go_on = match decoded {
                Decoded::Game(g) => game(g)?,
                Decoded::Skipped(reason) => seen(Seen::Skipped(reason_key(&reason))),
                Decoded::Invalid(error) => seen(Seen::Invalid(InvalidGame {
                    source: name.clone(),
                    number,
                    error,
                })),
            };
            if !go_on {
                return Ok(false);
            }
        }
        seen(Seen::Read(unreported));
    }
    Ok(true)
}

enum Msg {
    Seen(Seen),
    Other(String, String),
    Batch { batch: Batch, duplicates: u64 },
}

pub(crate) const MAX_INVALID_DETAILS: usize = 1000;

/// One input stream, opened when its turn comes.
pub struct Input {
    /// Name for messages (a path, `<stdin>`, `lichess:user`).
    pub name: String,
    /// Opens the stream of PGN text.
    pub open: Box<dyn FnOnce() -> std::io::Result<Box<dyn std::io::Read + Send>> + Send>,
}

impl std::fmt::Debug for Input {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Input").field("name", &self.name).finish()
    }
}

impl Input {
    /// A file, directory entry or stdin.
    pub fn from_source(source: Source) -> Input {
        Input {
            name: source.to_string(),
            open: Box::new(move || source::open(&source)),
        }
    }
}

/// Ingests every game of `sources` played by `opts.names` into `store` for `opts.player`.
pub fn ingest<S: GraphStore + Sync>(
    store: &S,
    sources: &[Source],
    opts: &IngestOptions,
    progress: &mut dyn Progress,
) -> Result<Summary, IngestError> {
    let _span =
        tracing::info_span!("ingest", player = %opts.player, sources = sources.len()).entered();
    let inputs = sources.iter().cloned().map(Input::from_source).collect();
    ingest_inputs(store, inputs, opts, progress)
}

/// Ingests every game of `inputs` played by `opts.names` into `store` for `opts.player`.
pub fn ingest_inputs<S: GraphStore + Sync>(
    store: &S,
    inputs: Vec<Input>,
    opts: &IngestOptions,
    progress: &mut dyn Progress,
) -> Result<Summary, IngestError> {
    let started = Instant::now();
    let mut summary = Summary::default();
    let mut names: FxHashMap<String, u64> = FxHashMap::default();
    let (tx, rx) = mpsc::sync_channel::<Msg>(64);
    let total = inputs.len();
    let result = std::thread::scope(|scope| -> Result<(), IngestError> {
        let producer = scope.spawn(move || produce(store, inputs, opts, &tx));
        let mut outcome = Ok(());
        for msg in rx {
            match msg {
                Msg::Seen(seen) => {
                    seen.record(&mut summary, progress, total);
                    if outcome.is_ok() && progress.cancelled() {
                        // Dropping the channel stops the reader at its next game.
                        outcome = Err(IngestError::Cancelled);
                        break;
                    }
                }
                Msg::Other(white, black) => {
                    summary.other_players += 1;
                    *names.entry(white).or_default() += 1;
                    *names.entry(black).or_default() += 1;
                }
                Msg::Batch { batch, duplicates } => {
                    summary.duplicates += duplicates;
                    if outcome.is_err() {
                        continue;
                    }
                    match write(store, &opts.player, batch) {
                        Ok((report, dup, plies)) => {
                            summary.add_written(&report, dup, plies);
                            progress.committed(&report, &summary);
                            if progress.cancelled() {
                                outcome = Err(IngestError::Cancelled);
                                break;
                            }
                        }
                        Err(e) => outcome = Err(e),
                    }
                }
            }
        }
        producer
            .join()
            .map_err(|_| IngestError::DecoderPanicked)??;
        outcome
    });
    result?;
    if !names.is_empty() {
        let mut v: Vec<(String, u64)> = names.into_iter().collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        v.truncate(10);
        summary.frequent_names = v;
    }
    summary.elapsed = started.elapsed();
    Ok(summary)
}

/// Writes a batch; games another writer ingested meanwhile are dropped and the rest
/// written. Returns the report, those duplicates, and the plies written.
pub fn write<S: GraphStore + ?Sized>(
    store: &S,
    player: &str,
    mut batch: Batch,
) -> Result<(WriteReport, u64, u64), IngestError> {
    let _span = tracing::info_span!("write_batch", player, games = batch.games().len()).entered();
    let mut dup = 0;
    loop {
        if batch.is_empty() {
            return Ok((WriteReport::default(), dup, 0));
        }
        match store.write_batch(player, &batch) {
            Ok(r) => {
                tracing::debug!(games = r.games, new_edges = r.new_edges, "batch committed");
                let plies = batch
                    .games()
                    .iter()
                    .map(|(g, _)| g.moves.len() as u64)
                    .sum();
                return Ok((r, dup, plies));
            }
            Err(StoreError::AlreadyIngested(ids)) => {
                tracing::info!(
                    games = ids.len(),
                    "another writer ingested some of the batch's games first; writing the rest"
                );
                dup += ids.len() as u64;
                batch = batch.without(&ids);
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// The decoding side: reads sources, sends messages; returns store errors of its reads.
fn produce<S: GraphStore>(
    store: &S,
    inputs: Vec<Input>,
    opts: &IngestOptions,
    tx: &mpsc::SyncSender<Msg>,
) -> Result<(), IngestError> {
    let mut pending: Vec<(GameRecord, Color)> = Vec::with_capacity(opts.batch_size);
    let batch_size = opts.batch_size.max(1);
    // A closed channel means the consumer stopped on an error: stop quietly.
    let send = |m: Msg| tx.send(m).is_ok();
    let seen = |s: Seen| send(Msg::Seen(s));
    let finished = read_inputs(inputs, &seen, |g| match g.color_of(&opts.names) {
        Some(c) => {
            pending.push((g, c));
            if pending.len() >= batch_size {
                return flush(store, opts, &mut pending, &send);
            }
            Ok(true)
        }
        None if is_both(&g, opts) => Ok(seen(Seen::Skipped("the player is on both sides".into()))),
        None => Ok(send(Msg::Other(g.white.name, g.black.name))),
    })?;
    if finished {
        flush(store, opts, &mut pending, &send)?;
    }
    Ok(())
}

/// Whether both sides of a game are the player (a game against oneself has no side).
fn is_both(g: &GameRecord, opts: &IngestOptions) -> bool {
    let is_player = |n: &str| opts.names.iter().any(|a| n.eq_ignore_ascii_case(a));
    is_player(&g.white.name) && is_player(&g.black.name)
}

pub(crate) fn reason_key(reason: &SkipReason) -> String {
    match reason {
        SkipReason::Variant(v) => format!("variant {}", v.to_ascii_lowercase()),
        other => other.to_string(),
    }
}

/// Drops games already ingested, aggregates the rest and sends the batch.
fn flush<S: GraphStore>(
    store: &S,
    opts: &IngestOptions,
    pending: &mut Vec<(GameRecord, Color)>,
    send: &impl Fn(Msg) -> bool,
) -> Result<bool, IngestError> {
    if pending.is_empty() {
        return Ok(true);
    }
    let ids: Vec<GameId> = pending.iter().map(|(g, _)| g.id.clone()).collect();
    let known = store.ingested(&opts.player, &ids)?;
    let mut batch = Batch::new();
    let mut duplicates = 0;
    for (g, c) in pending.drain(..) {
        if known.contains(&g.id) {
            duplicates += 1;
            continue;
        }
        // Decoded games were replayed legally once already, so `add_game` cannot fail;
        // `Ok(false)` is the same game twice in the input.
        if !matches!(batch.add_game(g, c), Ok(true)) {
            duplicates += 1;
        }
    }
    Ok(send(Msg::Batch { batch, duplicates }))
}

/// The number of plies per second and games per second of a finished ingest.
pub fn rates(summary: &Summary) -> (f64, f64) {
    let secs = summary.elapsed.as_secs_f64().max(1e-9);
    (
        summary.games_read as f64 / secs,
        summary.plies as f64 / secs,
    )
}
