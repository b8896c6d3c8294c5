//! `mirror bench ingest`: a PGN file into a fresh embedded store beside the python-chess
//! peer (the reference test's script, same rules, in memory), and into Neo4j beside the
//! seed's per-move loading. Figures are measured and printed ([`std::fmt::Display`]),
//! never asserted.

use std::{fmt, io::Write, path::Path, process::Command};

use mirror_store::{
    GraphRead, StoreError,
    embedded::{EmbeddedStore, OpenMode},
};

use crate::{IngestError, IngestOptions, NoProgress, Summary};

/// The python-chess peer (the same script the reference test uses).
const PEER: &str = include_str!("../../../tests/reference/graph.py");

/// Why a benchmark could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The ingest failed.
    #[error(transparent)]
    Ingest(#[from] IngestError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A temporary file or the peer's script could not be written.
    #[error("benchmark files")]
    Files(#[source] std::io::Error),
    /// The peer could not run or said something else than its figures.
    #[error("the python-chess peer: {0}")]
    Peer(String),
    /// The benchmark needs something it does not have (named).
    #[error("{0}")]
    Needs(String),
}

/// Peak resident set size of this process (Linux), in MiB.
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// A file into a fresh embedded store.
#[derive(Debug)]
pub struct EmbeddedRun {
    /// The file.
    pub pgn: String,
    /// What the ingest did.
    pub summary: Summary,
    /// Positions and edge rows in the store after it.
    pub positions: u64,
    /// Edge rows of the player.
    pub edge_rows: u64,
    /// The store file's size.
    pub store_bytes: u64,
    /// This process's peak resident set size, MiB.
    pub peak_rss_mib: Option<f64>,
}

impl EmbeddedRun {
    /// Games per second.
    pub fn games_per_sec(&self) -> f64 {
        self.summary.games_read as f64 / self.summary.elapsed.as_secs_f64()
    }
}

impl fmt::Display for EmbeddedRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = &self.summary;
        let secs = s.elapsed.as_secs_f64();
        writeln!(f, "mirror ingest {}", self.pgn)?;
        writeln!(
            f,
            "  games read {}  ingested {}  plies {}  positions {}  edge rows {}",
            s.games_read, s.ingested, s.plies, self.positions, self.edge_rows
        )?;
        write!(
            f,
            "  {secs:.2} s   {:.0} games/s   {:.0} positions/s   peak RSS {:.0} MiB   store {:.1} MiB",
            self.games_per_sec(),
            s.plies as f64 / secs,
            self.peak_rss_mib.unwrap_or(f64::NAN),
            self.store_bytes as f64 / (1 << 20) as f64
        )
    }
}

/// Ingests `pgn` for `user` into a fresh embedded store in a temporary directory.
pub fn embedded(pgn: &Path, user: &str, batch_size: usize) -> Result<EmbeddedRun, BenchError> {
    let dir = tempfile::tempdir().map_err(BenchError::Files)?;
    let db = dir.path().join("bench.redb");
    let store = EmbeddedStore::open(&db, OpenMode::CreateIfMissing)?;
    let sources = crate::expand(&[pgn.to_path_buf()]).map_err(IngestError::from)?;
    let mut opts = IngestOptions::new(user);
    opts.batch_size = batch_size;
    let summary = crate::ingest(&store, &sources, &opts, &mut NoProgress)?;
    Ok(EmbeddedRun {
        pgn: pgn.display().to_string(),
        positions: store.position_count()?,
        edge_rows: store.counts(user)?.edge_rows,
        store_bytes: std::fs::metadata(&db).map_err(BenchError::Files)?.len(),
        peak_rss_mib: peak_rss_mib(),
        summary,
    })
}

/// The python-chess peer's run on the first games of a file.
#[derive(Debug)]
pub struct PeerRun {
    /// Games it read.
    pub games: f64,
    /// Seconds it took.
    pub secs: f64,
    /// mirror's rate on the whole file, for the ratio.
    pub mirror_games_per_sec: f64,
}

impl fmt::Display for PeerRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rate = self.games / self.secs;
        writeln!(
            f,
            "python-chess peer (same rules, in memory, first {} games): {:.2} s   {rate:.0} games/s",
            self.games, self.secs
        )?;
        write!(
            f,
            "  ratio mirror/peer (games/s): {:.0}x",
            self.mirror_games_per_sec / rate
        )
    }
}

/// Runs the python-chess peer (`python` with python-chess, and zstandard for .zst) on the
/// first `games` games of `pgn`, against `mine`.
pub fn python_peer(
    pgn: &Path,
    user: &str,
    games: u64,
    python: &str,
    mine: &EmbeddedRun,
) -> Result<PeerRun, BenchError> {
    let dir = tempfile::tempdir().map_err(BenchError::Files)?;
    let script = dir.path().join("graph.py");
    std::fs::File::create(&script)
        .and_then(|mut f| f.write_all(PEER.as_bytes()))
        .map_err(BenchError::Files)?;
    let out = Command::new(python)
        .arg(&script)
        .arg(pgn)
        .arg(user)
        .args(["--limit", &games.to_string(), "--bench"])
        .output()
        .map_err(|e| BenchError::Peer(format!("cannot run {python}: {e}")))?;
    if !out.status.success() {
        return Err(BenchError::Peer(
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut it = text.split_whitespace().map(str::parse::<f64>);
    match (it.next(), it.next()) {
        (Some(Ok(games)), Some(Ok(secs))) => Ok(PeerRun {
            games,
            secs,
            mirror_games_per_sec: mine.games_per_sec(),
        }),
        _ => Err(BenchError::Peer(format!("unexpected output {text:?}"))),
    }
}

/// `mirror bench ingest --store neo4j`: the seed's loading against mirror's batches on the
/// first games, and the whole file into Neo4j beside the embedded store.
#[cfg(feature = "neo4j")]
#[derive(Debug)]
pub struct Neo4jRun {
    /// The server.
    pub uri: String,
    /// The player.
    pub user: String,
    /// The file.
    pub pgn: String,
    /// Games per transaction.
    pub batch_size: usize,
    /// The race on the first games.
    pub race: mirror_store::neo4j::bench::SeedRace,
    /// Games of the race.
    pub race_games: usize,
    /// The whole file into Neo4j.
    pub neo4j: Summary,
    /// Edge rows and positions in Neo4j after it.
    pub rows: u64,
    /// Positions in Neo4j.
    pub positions: u64,
    /// The whole file into the embedded store.
    pub embedded: Summary,
}

#[cfg(feature = "neo4j")]
impl fmt::Display for Neo4jRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let r = &self.race;
        let n = self.race_games as f64;
        writeln!(
            f,
            "Neo4j at {}: the first {} games of {}",
            self.uri, self.race_games, self.user
        )?;
        writeln!(
            f,
            "  seed's way (MERGE chain per move, a transaction per game): {:.2} s   {:.1} games/s   {:.0} moves/s",
            r.seed_secs,
            n / r.seed_secs,
            r.moves as f64 / r.seed_secs
        )?;
        writeln!(
            f,
            "  mirror's batches ({} games per transaction):               {:.2} s   {:.1} games/s",
            self.batch_size,
            r.batches_secs,
            n / r.batches_secs
        )?;
        writeln!(
            f,
            "  ratio mirror/seed (games/s): {:.1}x",
            r.seed_secs / r.batches_secs
        )?;
        let (s, e) = (&self.neo4j, &self.embedded);
        let (secs, esecs) = (s.elapsed.as_secs_f64(), e.elapsed.as_secs_f64());
        writeln!(
            f,
            "mirror ingest {} ({} games per transaction)",
            self.pgn, self.batch_size
        )?;
        writeln!(
            f,
            "  Neo4j:    {secs:.1} s   {:.0} games/s   {:.0} edge rows/s   ({} games, {} edge rows, {} positions)",
            s.games_read as f64 / secs,
            self.rows as f64 / secs,
            s.ingested,
            self.rows,
            self.positions
        )?;
        writeln!(
            f,
            "  embedded: {esecs:.1} s   {:.0} games/s   {:.0} edge rows/s",
            e.games_read as f64 / esecs,
            self.rows as f64 / esecs
        )?;
        write!(f, "  ratio embedded/Neo4j (games/s): {:.1}x", secs / esecs)
    }
}

/// Runs [`Neo4jRun`] on `neo`, which must hold nothing of mirror's: it is emptied between
/// and after the runs.
#[cfg(feature = "neo4j")]
pub fn neo4j(
    neo: &mirror_store::neo4j::Neo4jStore,
    pgn: &Path,
    user: &str,
    batch_size: usize,
    seed_games: usize,
) -> Result<Neo4jRun, BenchError> {
    use mirror_core::pgn::{Decoded, read_games};
    if !(neo.players()?.is_empty() && neo.position_count()? == 0) {
        return Err(BenchError::Needs(
            "bench ingest --store neo4j empties the database between runs, so it needs one \
             without players or positions: point MIRROR_NEO4J_URI at a throwaway server \
             (e.g. `bash tests/neo4j/run.sh`)"
                .into(),
        ));
    }
    let sources = crate::expand(&[pgn.to_path_buf()]).map_err(IngestError::from)?;
    let mut opts = IngestOptions::new(user);
    opts.batch_size = batch_size;
    // 1. The seed's way on the first games, then mirror's way on the same games.
    let mut games = Vec::new();
    let source = crate::Source::File(pgn.to_path_buf());
    let reader = crate::source::open(&source).map_err(BenchError::Files)?;
    for item in read_games(reader) {
        if games.len() >= seed_games {
            break;
        }
        if let (_, Decoded::Game(g)) = item.map_err(BenchError::Files)?
            && let Some(c) = g.color_of(&[user])
        {
            games.push((g, c));
        }
    }
    let race = mirror_store::neo4j::bench::seed_against_batches(neo, user, &games, batch_size)?;
    // 2. The whole file into Neo4j, and into the embedded store.
    let neo4j = crate::ingest(neo, &sources, &opts, &mut NoProgress)?;
    let (rows, positions) = (neo.counts(user)?.edge_rows, neo.position_count()?);
    mirror_store::neo4j::bench::wipe(neo)?;
    let embedded = embedded(pgn, user, batch_size)?.summary;
    Ok(Neo4jRun {
        uri: neo.uri().to_string(),
        user: user.to_string(),
        pgn: pgn.display().to_string(),
        batch_size,
        race,
        race_games: games.len(),
        neo4j,
        rows,
        positions,
        embedded,
    })
}
