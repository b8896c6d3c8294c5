//! The embedded backend: one redb database file (pure Rust, ACID, crash-safe).
//!
//! Tables:
//! - `meta`: `schema_version`.
//! - `players`: lower-cased name -> (id, name as first written).
//! - `player_totals`: player id -> (games, edge rows).
//! - `games`: game id -> compact [`GameRecord`].
//! - `player_games`: (player id, game id) -> (date `YYYYMMDD`, colour 0/1): the "ingested"
//!   marks that make re-ingesting a no-op.
//! - `player_games_by_date`: (player id, date, game id) -> colour: the player's games in
//!   date order (recent games of a position are found from the newest back).
//! - `positions`: position key -> the position packed without move counters (shakmaty's
//!   `PackedSetup`, about 24 bytes), shown as EPD.
//! - `fetch_state`: (lower-cased player, unit such as `chess.com/2024-03`) -> what an
//!   incremental source remembers (validators, complete, games, cursor).
//! - `edges`: 19-byte key `player id (4) | position (8) | move (2) | flags (1) | month (2) |
//!   opponent rating (2)`,
//!   big-endian so that one player's moves from one position are one range scan, -> 40-byte
//!   value: [`MoveStats`] (32) and the child position key (8).
//! - `move_totals`: 15-byte key `player id | position | colour | move` -> the same 40-byte
//!   value summed over every other dimension, for positions with at least
//!   [`TOTAL_MIN_PIECES`] pieces (where the popular positions are): their unfiltered (or
//!   colour-only) moves in one short scan instead of one row per edge row (the start
//!   position of a 27k-game player has about 27,000 edge rows and 40 totals). A position
//!   has totals exactly when it has that many pieces and games.
//! - `game_positions`: game id -> the keys of the positions a move was played from, sorted
//!   (8 bytes each): "does this game go through P" without replaying it, for recent games.
//! - `position_games`: (player id, position, date, game number) -> (colour, first move
//!   played there), for the positions that keep totals: a popular position's newest games
//!   in date order, without looking at any other game; `game_numbers`: (player id, game
//!   number) -> game id (a player's games are numbered in ingest order; a number is 4
//!   bytes where an id is about 40).
//! - `accounts`: (lower-cased player, source code, lower-cased name) -> the name as given.
//! - `drill`: (lower-cased player, position, colour 0/1) -> the player's drill record of
//!   that card ([`codec::drill`]).
//!
//! The byte forms are in [`crate::codec`], one module per stored type.

use std::path::{Path, PathBuf};

use crate::codec;
use mirror_core::{
    GameId, GameRecord, GameSource, MoveStats, PositionKey,
    batch::unpack_epd,
    batch::{Batch, EdgeDelta, EdgeKey},
};
use redb::{
    Database, ReadableDatabase, ReadableTable, ReadableTableMetadata, TableDefinition,
    WriteTransaction,
};
use shakmaty::Color;

use crate::{
    Account, Accounts, DrillRecord, Drills, EdgeRow, Evaluation, FetchState, Filter, GraphRead,
    GraphWrite, MoveRow, PlayerCounts, PlayerInfo, RecentGame, Result, StoreError, WriteReport,
    player_key, recent_game, sum_by_move,
};

/// One search for a position's recent games over the player's games by date.
struct RecentSearch<'a> {
    by_date: redb::ReadOnlyTable<(u32, u32, &'static str), u8>,
    games: redb::ReadOnlyTable<&'static str, &'static [u8]>,
    positions: redb::ReadOnlyTable<&'static str, &'static [u8]>,
    pid: u32,
    pos: PositionKey,
    filter: &'a Filter,
    limit: usize,
    found: Vec<RecentGame>,
    checks: usize,
}

/// The newest games through a position that keeps totals (its games are listed in date
/// order; a day's games in ingest order: all of the last day found are read, then ordered
/// by id as everywhere else); `None` when the position has no list.
fn listed_recent(
    txn: &redb::ReadTransaction,
    games: &redb::ReadOnlyTable<&'static str, &'static [u8]>,
    pid: u32,
    pos: PositionKey,
    filter: &Filter,
    limit: usize,
) -> Result<Option<Vec<RecentGame>>> {
    // A position that keeps totals has its games in date order (a day's games in
    // ingest order: all of the last day found are read, then ordered by id as
    // everywhere else).
    let postings = txn.open_table(POSITION_GAMES)?;
    let numbers = txn.open_table(GAME_NUMBERS)?;
    let mut listed = false;
    let mut found: Vec<RecentGame> = Vec::new();
    let mut last_day = None;
    for item in postings
        .range((pid, pos.0, 0, 0)..=(pid, pos.0, u32::MAX, u32::MAX))?
        .rev()
        .take(RECENT_MAX_CHECKS)
    {
        let (k, v) = item?;
        listed = true;
        let (_, _, date, number) = k.value();
        if last_day.is_some_and(|d| d != date) {
            break;
        }
        let (c, mv) = v.value();
        let color = mirror_core::codec::color_from_bit(c)
            .ok_or_else(|| StoreError::Corrupt(format!("game number {number}: colour byte {c}")))?;
        if filter.color.is_some_and(|f| f != color) {
            continue;
        }
        let id = numbers
            .get((pid, number))?
            .ok_or_else(|| StoreError::Corrupt(format!("game number {number} has no id")))?;
        let id = id.value();
        let rec = games
            .get(id)?
            .ok_or_else(|| StoreError::Corrupt(format!("game {id} is listed but missing")))?;
        let game =
            GameRecord::decode(rec.value()).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        if filter.accepts(&mirror_core::EdgeDims::of_game(&game, color)) {
            let mv = mirror_core::MoveCode(mv);
            let (ply, _) = crate::reached(&game, pos, Some(mv)).ok_or_else(|| {
                StoreError::Corrupt(format!(
                    "game {id} is listed at a position it never plays {mv}"
                ))
            })?;
            found.push(RecentGame {
                game,
                color,
                mv,
                ply,
            });
            if found.len() >= limit {
                last_day = Some(date);
            }
        }
    }
    if !listed {
        return Ok(None);
    }
    found.sort_by(|a, b| (b.game.date, &b.game.id).cmp(&(a.game.date, &a.game.id)));
    found.truncate(limit);
    Ok(Some(found))
}

/// The spans of days on which the player's edge rows from `pos` that `filter` accepts
/// were played (a row's games share its month; a row without a month may hold undated
/// games), newest first, overlapping spans merged.
fn played_days(
    edges: &redb::ReadOnlyTable<&'static [u8], &'static [u8]>,
    pid: u32,
    pos: PositionKey,
    filter: &Filter,
) -> Result<Vec<(u32, u32)>> {
    let mut days: Vec<(u32, u32)> = Vec::new();
    let (lo, hi) = (
        codec::edge::first_key(pid, pos),
        codec::edge::last_key(pid, pos),
    );
    for item in edges.range(lo.as_slice()..=hi.as_slice())? {
        let (k, v) = item?;
        let row = codec::edge::decode(k.value(), v.value())?;
        if filter.accepts(&row.dims) {
            let first = if row.dims.month.is_some() {
                row.stats.first
            } else {
                0
            };
            days.push((first, row.stats.last));
        }
    }
    days.sort_unstable_by_key(|d| std::cmp::Reverse(d.1));
    let mut merged: Vec<(u32, u32)> = Vec::new();
    for (lo, hi) in days {
        match merged.last_mut() {
            Some(last) if hi >= last.0 => last.0 = last.0.min(lo),
            _ => merged.push((lo, hi)),
        }
    }
    Ok(merged)
}

/// Where a scan stopped: (date, game id) of the first game it did not check.
type Cursor = (u32, String);

/// How a scan of a date range ended.
enum Scan {
    /// Enough games found, or the bound on checks reached: the search is over.
    Done,
    /// `max` games checked; the rest of the range is older than the cursor.
    Stopped(Cursor),
    /// The range ran out.
    Exhausted,
}

impl RecentSearch<'_> {
    /// Checks the player's games dated `lo..=hi`, newest first, from `from` on (that game
    /// and older ones) if given: at most `max.0` games looked at, of which at most `max.1`
    /// had the filter's colour and so were checked further.
    fn scan(
        &mut self,
        lo: u32,
        hi: u32,
        from: Option<&Cursor>,
        max: (usize, usize),
    ) -> Result<Scan> {
        let range = self
            .by_date
            .range((self.pid, lo, "")..=(self.pid, hi, "\u{10ffff}"))?;
        let (mut seen, mut checked) = (0, 0);
        for item in range.rev() {
            let (k, v) = item?;
            let (_, date, id) = k.value();
            if let Some((d, i)) = from
                && (date, id) > (*d, i.as_str())
            {
                continue;
            }
            if seen == max.0 || checked == max.1 {
                return Ok(Scan::Stopped((date, id.to_string())));
            }
            if self.checks >= RECENT_MAX_CHECKS {
                return Ok(Scan::Done);
            }
            seen += 1;
            self.checks += 1;
            // The colour is in the date index: no lookup for the other colour's games.
            let color = codec::mark::decode_color(v.value(), id)?;
            if self.filter.color.is_some_and(|c| c != color) {
                continue;
            }
            checked += 1;
            let through = match self.positions.get(id)? {
                Some(keys) => codec::positions::contains(keys.value(), self.pos)?,
                // No position list: replay the game to know.
                None => true,
            };
            if !through {
                continue;
            }
            let Some(rec) = self.games.get(id)? else {
                continue;
            };
            let rec =
                GameRecord::decode(rec.value()).map_err(|e| StoreError::Corrupt(e.to_string()))?;
            if let Some(g) = recent_game(rec, color, self.pos, self.filter) {
                self.found.push(g);
                if self.found.len() >= self.limit {
                    return Ok(Scan::Done);
                }
            }
        }
        Ok(Scan::Exhausted)
    }
}

/// Games looked at, and checked (of the filter's colour), newest first before a position's
/// recent games are looked for only on the days its edge rows were played.
const RECENT_QUICK: (usize, usize) = (1024, 64);
/// Games checked at most when looking for a position's recent games (a bound on the
/// search that a position's days never reach in practice).
const RECENT_MAX_CHECKS: usize = 100_000;

pub use crate::TOTAL_MIN_PIECES;

/// Version of the table layout; checked on open (5: rows and game records may hold the
/// moves' times; a version 4 file is upgraded as it opens).
pub const SCHEMA_VERSION: u64 = 5;

/// The most memory the store's page cache takes (pages read, and the pages a write
/// transaction changed, which it keeps until the commit up to half of this): redb's own
/// default. A large ingest changes positions all over their table; a smaller cache writes
/// changed pages out and reads them back before the commit (`--all-players` on the
/// population corpus, 10,000 game-sides a transaction: 295 s at 256 MiB, 231 s at
/// 2 GiB; 50,000: 171 s at 1 GiB, 161 s at 4 GiB).
const CACHE_BYTES: usize = 1 << 30;

/// The page cache of a store opened to read once ([`OpenMode::ReadOnce`]): enough for the
/// tables' upper pages. The system caches the file already; a second copy of every page
/// read costs a one-shot reader memory and time (`mirror report` of the 27k-game player
/// reads 1.9 million rows: 0.75 s and 220 MiB with this cache, 1.2 s and 330 MiB with
/// [`CACHE_BYTES`]).
const READ_ONCE_CACHE_BYTES: usize = 16 << 20;

const META: TableDefinition<'_, &str, u64> = TableDefinition::new("meta");
const PLAYERS: TableDefinition<'_, &str, (u32, &str)> = TableDefinition::new("players");
const PLAYER_TOTALS: TableDefinition<'_, u32, (u64, u64)> = TableDefinition::new("player_totals");
const GAMES: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("games");
const PLAYER_GAMES: TableDefinition<'_, (u32, &str), (u32, u8)> =
    TableDefinition::new("player_games");
const GAMES_BY_DATE: TableDefinition<'_, (u32, u32, &str), u8> =
    TableDefinition::new("player_games_by_date");
const POSITIONS: TableDefinition<'_, u64, &[u8]> = TableDefinition::new("positions");
const EDGES: TableDefinition<'_, &[u8], &[u8]> = TableDefinition::new("edges");
const MOVE_TOTALS: TableDefinition<'_, &[u8], &[u8]> = TableDefinition::new("move_totals");
const GAME_POSITIONS: TableDefinition<'_, &str, &[u8]> = TableDefinition::new("game_positions");
/// (player id, position, date, game number) -> (colour, the first move from the position).
const POSITION_GAMES: TableDefinition<'_, (u32, u64, u32, u32), (u8, u16)> =
    TableDefinition::new("position_games");
/// A `position_games` key without the player: (position, date, game number).
type Posting = (u64, u32, u32);
/// (player id, game number) -> game id: the player's games numbered in ingest order.
const GAME_NUMBERS: TableDefinition<'_, (u32, u32), &str> = TableDefinition::new("game_numbers");
const FETCH: TableDefinition<'_, (&str, &str), &[u8]> = TableDefinition::new("fetch_state");
/// (player key, source code, name lower-cased) -> the name as given.
const ACCOUNTS: TableDefinition<'_, (&str, u8, &str), &str> = TableDefinition::new("accounts");
/// Each analysed position's evaluation ([`mirror_core::evaluation::Evaluation::encode`]),
/// shared by every player who reaches it.
const EVALS: TableDefinition<'_, u64, &[u8]> = TableDefinition::new("evaluations");
/// (player key, position, colour 0 White / 1 Black) -> the drill record of that card.
const DRILL: TableDefinition<'_, (&str, u64, u8), &[u8]> = TableDefinition::new("drill");

/// How to open a store file.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum OpenMode {
    /// Create the file (and its directory) when missing.
    CreateIfMissing,
    /// Fail with a clear error when the file does not exist.
    MustExist,
    /// As [`OpenMode::MustExist`], for a command that reads, answers and exits: a small
    /// page cache.
    ReadOnce,
    /// As [`OpenMode::CreateIfMissing`], for a server that answers many requests: the
    /// evaluations (a few bytes per analysed position) are read once at open into the page
    /// cache (at most [`WARM_EVALUATIONS_BYTES`]), so that the explorer's first answer at a
    /// position does not read them from the file.
    Serve,
}

/// The most evaluation bytes [`OpenMode::Serve`] reads at open.
pub const WARM_EVALUATIONS_BYTES: usize = 256 << 20;

/// The default embedded store: one redb file.
#[derive(Debug)]
pub struct EmbeddedStore {
    db: Database,
    path: PathBuf,
    /// Counts this handle's commits: redb holds the file for one process, so every change
    /// of the data goes through this handle (see [`GraphRead::data_version`]).
    version: std::sync::atomic::AtomicU64,
}

impl EmbeddedStore {
    /// The player's games in id order, each with its date key and the player's colour.
    fn each_game(
        &self,
        player: &str,
        each: &mut dyn FnMut(u32, GameRecord, Color) -> Result<()>,
    ) -> Result<()> {
        let Some(pid) = self.player_id(player)? else {
            return Ok(());
        };
        let txn = self.db.begin_read()?;
        let pg = txn.open_table(PLAYER_GAMES)?;
        let games = txn.open_table(GAMES)?;
        for item in pg.range((pid, "")..(pid + 1, ""))? {
            let (k, v) = item?;
            let (_, id) = k.value();
            let (date, color) = v.value();
            let rec = games
                .get(id)?
                .ok_or_else(|| StoreError::Corrupt(format!("game {id} has no record")))?;
            let rec =
                GameRecord::decode(rec.value()).map_err(|e| StoreError::Corrupt(e.to_string()))?;
            each(date, rec, codec::mark::decode_color(color, id)?)?;
        }
        Ok(())
    }

    /// Opens (or creates) the store at `path` and checks its schema version.
    pub fn open(path: &Path, mode: OpenMode) -> Result<EmbeddedStore> {
        let open_err = |source: Box<dyn std::error::Error + Send + Sync>| StoreError::Open {
            path: path.to_path_buf(),
            source,
        };
        let exists = path.exists();
        if !exists && !matches!(mode, OpenMode::CreateIfMissing | OpenMode::Serve) {
            return Err(StoreError::Missing {
                path: path.to_path_buf(),
            });
        }
        if !exists {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| open_err(Box::new(e)))?;
            }
            // A new store is its owner's alone (the games, and the players' names): an
            // empty file of mode 0600 that redb then fills.
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create_new(true);
            #[cfg(unix)]
            std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
            match options.open(path) {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(open_err(Box::new(e))),
            }
        }
        let db = Database::builder()
            .set_cache_size(if mode == OpenMode::ReadOnce {
                READ_ONCE_CACHE_BYTES
            } else {
                CACHE_BYTES
            })
            .create(path)
            .map_err(|e| match e {
                redb::DatabaseError::DatabaseAlreadyOpen => StoreError::InUse {
                    path: path.to_path_buf(),
                },
                other => open_err(Box::new(other)),
            })?;
        let store = EmbeddedStore {
            db,
            path: path.to_path_buf(),
            version: std::sync::atomic::AtomicU64::new(0),
        };
        store.init_schema()?;
        if mode == OpenMode::Serve {
            let started = std::time::Instant::now();
            let read = store.warm_evaluations(WARM_EVALUATIONS_BYTES)?;
            tracing::debug!(read, took = ?started.elapsed(), "evaluations read at open");
        }
        Ok(store)
    }

    /// Reads the evaluations in key order, at most `bytes` of them, so that their pages
    /// are in the page cache; returns how many were read.
    pub fn warm_evaluations(&self, bytes: usize) -> Result<usize> {
        let txn = self.db.begin_read()?;
        let t = txn.open_table(EVALS)?;
        let (mut read, mut count) = (0usize, 0usize);
        for entry in t.range::<u64>(..)? {
            let (_, v) = entry?;
            read += 8 + v.value().len();
            count += 1;
            if read >= bytes {
                break;
            }
        }
        Ok(count)
    }

    /// Commits `txn` and counts the change (see [`GraphRead::data_version`]).
    /// The count is odd while the commit runs (a seqlock's protocol): a reader that saw
    /// an even count before its read knows that its data is at least that version, and
    /// that no commit was half seen.
    fn commit(&self, txn: redb::WriteTransaction) -> Result<()> {
        use std::sync::atomic::Ordering;
        self.version.fetch_add(1, Ordering::AcqRel);
        let done = txn.commit().map_err(StoreError::from);
        // Counted even when the commit failed: the data may have changed.
        self.version.fetch_add(1, Ordering::AcqRel);
        done
    }

    /// The file this store lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn init_schema(&self) -> Result<()> {
        let txn = self.db.begin_write()?;
        {
            let mut meta = txn.open_table(META)?;
            let found = meta.get("schema_version")?.map(|v| v.value());
            match found {
                Some(v) if v == SCHEMA_VERSION => {}
                // Schema 4 is schema 5 without times: its rows and game records read as
                // rows and games without times, so the file is upgraded by its mark (its
                // games keep no times; an ingest into a new store reads them).
                Some(4) => {
                    meta.insert("schema_version", SCHEMA_VERSION)?;
                }
                Some(v) => {
                    return Err(StoreError::SchemaMismatch {
                        path: self.path.clone(),
                        found: v,
                        expected: SCHEMA_VERSION,
                    });
                }
                None => {
                    let games = txn.open_table(GAMES)?;
                    if !games.is_empty()? {
                        return Err(StoreError::SchemaMismatch {
                            path: self.path.clone(),
                            found: 0,
                            expected: SCHEMA_VERSION,
                        });
                    }
                    meta.insert("schema_version", SCHEMA_VERSION)?;
                }
            }
            // Create every table so that readers never meet a missing one.
            txn.open_table(PLAYERS)?;
            txn.open_table(PLAYER_TOTALS)?;
            txn.open_table(GAMES)?;
            txn.open_table(PLAYER_GAMES)?;
            txn.open_table(GAMES_BY_DATE)?;
            txn.open_table(POSITIONS)?;
            txn.open_table(EDGES)?;
            txn.open_table(MOVE_TOTALS)?;
            txn.open_table(GAME_POSITIONS)?;
            txn.open_table(POSITION_GAMES)?;
            txn.open_table(GAME_NUMBERS)?;
            txn.open_table(FETCH)?;
            txn.open_table(ACCOUNTS)?;
            txn.open_table(EVALS)?;
            txn.open_table(DRILL)?;
        }
        txn.commit().map_err(StoreError::from)
    }

    /// Overwrites the schema version (for tests of the mismatch error).
    #[doc(hidden)]
    pub fn set_schema_version_for_test(&self, v: u64) -> Result<()> {
        let txn = self.db.begin_write()?;
        txn.open_table(META)?.insert("schema_version", v)?;
        txn.commit().map_err(StoreError::from)
    }

    fn player_id(&self, player: &str) -> Result<Option<u32>> {
        let key = player_key(player)?;
        let txn = self.db.begin_read()?;
        let players = txn.open_table(PLAYERS)?;
        Ok(players.get(key.as_str())?.map(|v| v.value().0))
    }

    fn player_id_or_create(txn: &WriteTransaction, player: &str) -> Result<u32> {
        let key = player_key(player)?;
        let mut players = txn.open_table(PLAYERS)?;
        if let Some(v) = players.get(key.as_str())? {
            return Ok(v.value().0);
        }
        let id = u32::try_from(players.len()? + 1).map_err(|_| StoreError::Full("players"))?;
        players.insert(key.as_str(), (id, player.trim()))?;
        Ok(id)
    }

    /// Writes `batches` in one transaction: all of them or, on an error, none.
    fn write_all(&self, batches: &[(&str, &Batch)]) -> Result<WriteReport> {
        let txn = self.db.begin_write()?;
        match Self::write_in(&txn, batches) {
            Ok(report) => {
                self.commit(txn)?;
                Ok(report)
            }
            Err(e) => {
                txn.abort()?;
                Err(e)
            }
        }
    }

    /// Stores each evaluation in `txn` where its position has none or one that gives way
    /// to it; returns how many were stored.
    fn put_evaluations(
        txn: &WriteTransaction,
        evals: &[(PositionKey, Evaluation)],
    ) -> Result<usize> {
        let mut stored = 0;
        let mut t = txn.open_table(EVALS)?;
        for (k, e) in evals {
            let old = t
                .get(k.0)?
                .map(|v| Evaluation::decode(v.value()))
                .transpose()
                .map_err(|err| StoreError::Corrupt(format!("position {k}: {err}")))?;
            if old.is_none_or(|old| old.yields_to(e)) {
                t.insert(k.0, e.encode().as_slice())?;
                stored += 1;
            }
        }
        Ok(stored)
    }

    /// The batches, written in `txn` on two threads: the games (and the players' game
    /// counts) and positions on this one, the edge rows and move totals on another (redb
    /// lets one write transaction fill different tables from several threads; the writer
    /// is what bounds a large ingest), then the players' edge-row counts.
    fn write_in(txn: &WriteTransaction, batches: &[(&str, &Batch)]) -> Result<WriteReport> {
        let pids = batches
            .iter()
            .map(|(player, _)| Self::player_id_or_create(txn, player))
            .collect::<Result<Vec<u32>>>()?;
        let (games, rows) = std::thread::scope(|scope| {
            let rows = scope.spawn(|| {
                pids.iter()
                    .zip(batches)
                    .map(|(&pid, (_, batch))| {
                        let new_edges = Self::write_edges(txn, pid, batch)?;
                        Self::write_totals(txn, pid, batch)?;
                        Ok(new_edges)
                    })
                    .collect::<Result<Vec<u64>>>()
            });
            let games = (|| -> Result<WriteReport> {
                let mut report = WriteReport::default();
                for (&pid, (_, batch)) in pids.iter().zip(batches) {
                    report.games += Self::write_games(txn, pid, batch)?;
                }
                Self::write_positions(txn, batches.iter().map(|(_, b)| *b), &mut report)?;
                Ok(report)
            })();
            let rows = rows
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (games, rows)
        });
        let (mut report, new_edges) = (games?, rows?);
        // The evaluations the games' comments gave, on their positions.
        for (_, batch) in batches {
            Self::put_evaluations(txn, &batch.evaluations())?;
        }
        let mut totals = txn.open_table(PLAYER_TOTALS)?;
        for (pid, e) in pids.iter().zip(new_edges) {
            let (g, e0) = totals.get(*pid)?.map_or((0, 0), |v| v.value());
            totals.insert(*pid, (g, e0 + e))?;
            report.new_edges += e;
        }
        Ok(report)
    }

    /// The batch's games: the player's list of them (by id, date and number), their
    /// records, and the dated game lists of the positions that keep totals; refused whole
    /// when the player has any of them already. Adds them to the player's game count (the
    /// next batch's numbers go on from it) and returns how many were written.
    fn write_games(txn: &WriteTransaction, pid: u32, batch: &Batch) -> Result<u64> {
        let mut pg = txn.open_table(PLAYER_GAMES)?;
        let mut by_date = txn.open_table(GAMES_BY_DATE)?;
        let mut games = txn.open_table(GAMES)?;
        let mut game_positions = txn.open_table(GAME_POSITIONS)?;
        let mut position_games = txn.open_table(POSITION_GAMES)?;
        let mut numbers = txn.open_table(GAME_NUMBERS)?;
        let mut postings: Vec<(Posting, (u8, u16))> = Vec::new();
        let mut new_positions: Vec<(&str, Vec<u8>)> = Vec::new();
        // The next game number: the player's games so far.
        let mut totals = txn.open_table(PLAYER_TOTALS)?;
        let (stored, edge_rows) = totals.get(pid)?.map_or((0, 0), |t| t.value());
        let mut number =
            u32::try_from(stored).map_err(|_| StoreError::Full("games of one player"))?;
        let mut written = 0;
        let mut present = Vec::new();
        for (g, _) in batch.games() {
            if pg.get((pid, g.id.0.as_str()))?.is_some() {
                present.push(g.id.clone());
            }
        }
        if !present.is_empty() {
            return Err(StoreError::AlreadyIngested(present));
        }
        for ((g, color), firsts) in batch.games().iter().zip(batch.move_positions()) {
            let date = codec::mark::date(g.date);
            let c = codec::mark::color(*color);
            numbers.insert((pid, number), g.id.0.as_str())?;
            postings.extend(
                firsts
                    .iter()
                    .filter(|f| f.pieces >= TOTAL_MIN_PIECES)
                    .map(|f| ((f.pos.0, date, number), (c, f.mv.0))),
            );
            number = number
                .checked_add(1)
                .ok_or(StoreError::Full("games of one player"))?;
            pg.insert((pid, g.id.0.as_str()), (date, c))?;
            by_date.insert((pid, date, g.id.0.as_str()), c)?;
            if games.get(g.id.0.as_str())?.is_none() {
                games.insert(g.id.0.as_str(), g.encode().as_slice())?;
                let keys: Vec<PositionKey> = firsts.iter().map(|f| f.pos).collect();
                new_positions.push((g.id.0.as_str(), codec::positions::encode(&keys)));
            }
            written += 1;
        }
        // In key order: neighbouring inserts touch the same pages.
        postings.sort_unstable();
        for ((pos, date, number), value) in postings {
            position_games.insert((pid, pos, date, number), value)?;
        }
        new_positions.sort_unstable();
        for (id, keys) in new_positions {
            game_positions.insert(id, keys.as_slice())?;
        }
        totals.insert(pid, (stored + written, edge_rows))?;
        Ok(written)
    }

    /// The positions of a transaction's batches, each once (new ones counted). A position
    /// is looked up before it is written: most of a large ingest's positions are stored
    /// already (the other side of a game, a common opening), and a lookup leaves the
    /// page it reads clean, where an overwrite would copy it.
    fn write_positions<'b>(
        txn: &WriteTransaction,
        batches: impl Iterator<Item = &'b Batch>,
        report: &mut WriteReport,
    ) -> Result<()> {
        let mut positions = txn.open_table(POSITIONS)?;
        let mut keys: Vec<(PositionKey, &[u8])> = batches.flat_map(Batch::positions).collect();
        keys.sort_unstable_by_key(|(k, _)| *k);
        keys.dedup_by_key(|(k, _)| *k);
        for (k, packed) in keys {
            if positions.get(k.0)?.is_none() {
                positions.insert(k.0, packed)?;
                report.new_positions += 1;
            }
        }
        Ok(())
    }

    /// The batch's edge rows, merged into the stored ones; returns the new ones.
    fn write_edges(txn: &WriteTransaction, pid: u32, batch: &Batch) -> Result<u64> {
        let mut new_edges = 0;
        let mut edges = txn.open_table(EDGES)?;
        let mut rows: Vec<([u8; codec::edge::KEY_LEN], &EdgeKey, &EdgeDelta)> = batch
            .edges()
            .iter()
            .map(|(k, d)| (codec::edge::key(pid, k.pos, k.mv, &k.dims), k, d))
            .collect();
        rows.sort_unstable_by_key(|r| r.0);
        for (key, k, d) in rows {
            // Most rows of a large ingest are new: insert first, merge only when the
            // insert replaced an existing row.
            let old = edges
                .insert(
                    key.as_slice(),
                    codec::edge::value(&d.stats, d.child).as_slice(),
                )?
                .map(|v| codec::edge::decode_value(v.value(), k.pos, k.mv));
            match old {
                Some(old) => {
                    let mut stats = d.stats;
                    stats.merge(&old?.0);
                    edges.insert(
                        key.as_slice(),
                        codec::edge::value(&stats, d.child).as_slice(),
                    )?;
                }
                None => new_edges += 1,
            }
        }
        Ok(new_edges)
    }

    /// The move totals of the positions that keep them.
    fn write_totals(txn: &WriteTransaction, pid: u32, batch: &Batch) -> Result<()> {
        // The same rows summed per (position, colour, move), then added to the totals.
        let mut sums: rustc_hash::FxHashMap<
            [u8; codec::total::KEY_LEN],
            (MoveStats, PositionKey, &EdgeKey),
        > = rustc_hash::FxHashMap::default();
        for (k, d) in batch.edges() {
            if d.pieces < TOTAL_MIN_PIECES {
                continue;
            }
            sums.entry(codec::total::key(pid, k.pos, k.dims.color, k.mv))
                .and_modify(|(s, _, _)| s.merge(&d.stats))
                .or_insert((d.stats, d.child, k));
        }
        let mut rows: Vec<_> = sums.into_iter().collect();
        rows.sort_unstable_by_key(|r| r.0);
        let mut totals = txn.open_table(MOVE_TOTALS)?;
        for (key, (mut stats, child, k)) in rows {
            let old = totals
                .insert(key.as_slice(), codec::edge::value(&stats, child).as_slice())?
                .map(|v| codec::edge::decode_value(v.value(), k.pos, k.mv));
            if let Some(old) = old {
                stats.merge(&old?.0);
                totals.insert(key.as_slice(), codec::edge::value(&stats, child).as_slice())?;
            }
        }
        Ok(())
    }
}

impl GraphRead for EmbeddedStore {
    fn ingested(&self, player: &str, ids: &[GameId]) -> Result<Vec<GameId>> {
        let Some(pid) = self.player_id(player)? else {
            return Ok(Vec::new());
        };
        let txn = self.db.begin_read()?;
        let pg = txn.open_table(PLAYER_GAMES)?;
        let mut out = Vec::new();
        for id in ids {
            if pg.get((pid, id.0.as_str()))?.is_some() {
                out.push(id.clone());
            }
        }
        Ok(out)
    }

    fn moves(&self, player: &str, pos: PositionKey, filter: &Filter) -> Result<Vec<MoveRow>> {
        let Some(pid) = self.player_id(player)? else {
            return Ok(Vec::new());
        };
        let txn = self.db.begin_read()?;
        if filter.is_colour_only() {
            // Both colours' totals: any row means the position keeps totals.
            let totals = txn.open_table(MOVE_TOTALS)?;
            let (lo, hi) = codec::total::range(pid, pos);
            let mut kept = false;
            let mut out: Vec<MoveRow> = Vec::new();
            for item in totals.range(lo.as_slice()..=hi.as_slice())? {
                let (k, v) = item?;
                kept = true;
                let (color, mv) = codec::total::color_and_move(k.value())?;
                if filter.color.is_some_and(|c| c != color) {
                    continue;
                }
                let (stats, child) = codec::edge::decode_value(v.value(), pos, mv)?;
                match out.iter_mut().find(|r| r.mv == mv) {
                    Some(r) => r.stats.merge(&stats),
                    None => out.push(MoveRow { mv, stats, child }),
                }
            }
            if kept {
                crate::sort_moves(&mut out);
                return Ok(out);
            }
        }
        let edges = txn.open_table(EDGES)?;
        let (lo, hi) = (
            codec::edge::first_key(pid, pos),
            codec::edge::last_key(pid, pos),
        );
        let rows = edges.range(lo.as_slice()..=hi.as_slice())?.map(|item| {
            let (k, v) = item?;
            codec::edge::decode(k.value(), v.value())
        });
        sum_by_move(rows, filter)
    }

    fn edges(&self, player: &str) -> Result<Vec<EdgeRow>> {
        let mut out = Vec::new();
        self.for_each_edge(player, &mut |e| {
            out.push(e);
            Ok(())
        })?;
        Ok(out)
    }

    fn for_each_edge(
        &self,
        player: &str,
        each: &mut dyn FnMut(EdgeRow) -> Result<()>,
    ) -> Result<()> {
        let Some(pid) = self.player_id(player)? else {
            return Ok(());
        };
        let txn = self.db.begin_read()?;
        let edges = txn.open_table(EDGES)?;
        let lo = pid.to_be_bytes();
        let hi = (pid + 1).to_be_bytes();
        for item in edges.range(lo.as_slice()..hi.as_slice())? {
            let (k, v) = item?;
            each(codec::edge::decode(k.value(), v.value())?)?;
        }
        Ok(())
    }

    fn games(&self, player: &str) -> Result<Vec<(GameRecord, Color)>> {
        crate::oldest_first(|each| self.each_game(player, each))
    }

    fn for_each_game(
        &self,
        player: &str,
        each: &mut dyn FnMut(GameRecord, Color) -> Result<()>,
    ) -> Result<()> {
        self.each_game(player, &mut |_, g, c| each(g, c))
    }

    fn game(&self, id: &GameId) -> Result<Option<GameRecord>> {
        let txn = self.db.begin_read()?;
        let games = txn.open_table(GAMES)?;
        let Some(v) = games.get(id.0.as_str())? else {
            return Ok(None);
        };
        GameRecord::decode(v.value())
            .map(Some)
            .map_err(|e| StoreError::Corrupt(e.to_string()))
    }

    fn position_epd(&self, pos: PositionKey) -> Result<Option<String>> {
        let txn = self.db.begin_read()?;
        let positions = txn.open_table(POSITIONS)?;
        match positions.get(pos.0)? {
            None => Ok(None),
            Some(v) => unpack_epd(v.value())
                .map(Some)
                .ok_or_else(|| StoreError::Corrupt(format!("position {pos} does not unpack"))),
        }
    }

    fn players(&self) -> Result<Vec<PlayerInfo>> {
        let txn = self.db.begin_read()?;
        let players = txn.open_table(PLAYERS)?;
        let totals = txn.open_table(PLAYER_TOTALS)?;
        let mut out = Vec::new();
        for item in players.iter()? {
            let (_, v) = item?;
            let (id, name) = v.value();
            let games = totals.get(id)?.map_or(0, |t| t.value().0);
            out.push(PlayerInfo {
                name: name.to_string(),
                games,
            });
        }
        Ok(out)
    }

    fn counts(&self, player: &str) -> Result<PlayerCounts> {
        let Some(pid) = self.player_id(player)? else {
            return Ok(PlayerCounts::default());
        };
        let txn = self.db.begin_read()?;
        let totals = txn.open_table(PLAYER_TOTALS)?;
        let (games, edge_rows) = totals.get(pid)?.map_or((0, 0), |v| v.value());
        Ok(PlayerCounts { games, edge_rows })
    }

    fn position_count(&self) -> Result<u64> {
        let txn = self.db.begin_read()?;
        txn.open_table(POSITIONS)?.len().map_err(StoreError::from)
    }

    fn recent_games(
        &self,
        player: &str,
        pos: PositionKey,
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<RecentGame>> {
        let Some(pid) = self.player_id(player)? else {
            return Ok(Vec::new());
        };
        if limit == 0 {
            return Ok(Vec::new());
        }
        let txn = self.db.begin_read()?;
        let games = txn.open_table(GAMES)?;
        if let Some(found) = listed_recent(&txn, &games, pid, pos, filter, limit)? {
            return Ok(found);
        }
        let mut search = RecentSearch {
            by_date: txn.open_table(GAMES_BY_DATE)?,
            games,
            positions: txn.open_table(GAME_POSITIONS)?,
            pid,
            pos,
            filter,
            limit,
            found: Vec::new(),
            checks: 0,
        };
        // Popular positions: the newest games go through them.
        let cursor = match search.scan(0, u32::MAX, None, RECENT_QUICK)? {
            Scan::Stopped(cursor) => cursor,
            Scan::Done | Scan::Exhausted => return Ok(search.found),
        };
        // The others: only on the days the position's edge rows were played.
        let merged = played_days(&txn.open_table(EDGES)?, pid, pos, filter)?;
        for (lo, hi) in merged {
            if let Scan::Done = search.scan(lo, hi, Some(&cursor), (usize::MAX, usize::MAX))? {
                break;
            }
        }
        Ok(search.found)
    }

    fn fetch_state(&self, player: &str, unit: &str) -> Result<Option<FetchState>> {
        let key = player_key(player)?;
        let txn = self.db.begin_read()?;
        let t = txn.open_table(FETCH)?;
        match t.get((key.as_str(), unit))? {
            None => Ok(None),
            Some(v) => codec::fetch::decode(v.value(), unit).map(Some),
        }
    }

    fn reads_inline(&self) -> bool {
        true
    }

    fn evaluations(&self, keys: &[PositionKey]) -> Result<Vec<Option<Evaluation>>> {
        let txn = self.db.begin_read()?;
        let t = txn.open_table(EVALS)?;
        keys.iter()
            .map(|k| {
                t.get(k.0)?
                    .map(|v| {
                        Evaluation::decode(v.value())
                            .map_err(|e| StoreError::Corrupt(format!("position {k}: {e}")))
                    })
                    .transpose()
            })
            .collect()
    }

    fn data_version(&self) -> Option<u64> {
        let v = self.version.load(std::sync::atomic::Ordering::Acquire);
        // Odd: a commit is under way.
        v.is_multiple_of(2).then_some(v / 2)
    }
}

impl GraphWrite for EmbeddedStore {
    fn write_batch(&self, player: &str, batch: &Batch) -> Result<WriteReport> {
        let _span = tracing::debug_span!("store.write", backend = "embedded", player).entered();
        self.write_all(&[(player, batch)])
    }

    fn write_batches(&self, batches: &[(String, Batch)]) -> Result<WriteReport> {
        let _span =
            tracing::debug_span!("store.write", backend = "embedded", players = batches.len())
                .entered();
        let batches: Vec<(&str, &Batch)> = batches.iter().map(|(p, b)| (p.as_str(), b)).collect();
        self.write_all(&batches)
    }

    fn set_fetch_state(&self, player: &str, unit: &str, state: &FetchState) -> Result<()> {
        let key = player_key(player)?;
        let txn = self.db.begin_write()?;
        txn.open_table(FETCH)?
            .insert((key.as_str(), unit), codec::fetch::encode(state).as_slice())?;
        self.commit(txn)
    }

    fn write_evaluations(&self, evals: &[(PositionKey, Evaluation)]) -> Result<usize> {
        if evals.is_empty() {
            return Ok(0);
        }
        let txn = self.db.begin_write()?;
        let stored = Self::put_evaluations(&txn, evals)?;
        self.commit(txn)?;
        Ok(stored)
    }
}

fn color_code(c: Color) -> u8 {
    u8::from(c == Color::Black)
}

impl Drills for EmbeddedStore {
    fn drill_records(&self, player: &str) -> Result<Vec<DrillRecord>> {
        let key = player_key(player)?;
        let txn = self.db.begin_read()?;
        // A store opened read-only before the table existed has no drill yet.
        let t = match txn.open_table(DRILL) {
            Ok(t) => t,
            Err(redb::TableError::TableDoesNotExist(_)) => return Ok(Vec::new()),
            Err(e) => return Err(e.into()),
        };
        let mut out = Vec::new();
        for item in t.range((key.as_str(), 0u64, 0u8)..=(key.as_str(), u64::MAX, u8::MAX))? {
            let (k, v) = item?;
            let (_, pos, color) = k.value();
            let color = match color {
                0 => Color::White,
                1 => Color::Black,
                c => return Err(StoreError::Corrupt(format!("drill colour code {c}"))),
            };
            out.push(codec::drill::decode(v.value(), PositionKey(pos), color)?);
        }
        Ok(out)
    }

    fn put_drill_records(&self, player: &str, records: &[DrillRecord]) -> Result<()> {
        let key = player_key(player)?;
        let txn = self.db.begin_write()?;
        {
            let mut t = txn.open_table(DRILL)?;
            for r in records {
                t.insert(
                    (key.as_str(), r.key.0, color_code(r.color)),
                    codec::drill::encode(r).as_slice(),
                )?;
            }
        }
        self.commit(txn)
    }
}

impl Accounts for EmbeddedStore {
    fn accounts(&self, player: &str) -> Result<Vec<Account>> {
        let key = player_key(player)?;
        let txn = self.db.begin_read()?;
        let t = txn.open_table(ACCOUNTS)?;
        let mut out = Vec::new();
        // Source codes are 0-2, so code 255 bounds the player's rows.
        let range = (key.as_str(), 0u8, "")..(key.as_str(), u8::MAX, "");
        for item in t.range(range)? {
            let (k, v) = item?;
            let (_, code, _) = k.value();
            out.push(Account {
                source: GameSource::from_code(code)
                    .ok_or_else(|| StoreError::Corrupt(format!("account source code {code}")))?,
                name: v.value().to_string(),
            });
        }
        crate::sort_accounts(&mut out);
        Ok(out)
    }

    fn add_account(&self, player: &str, account: &Account) -> Result<()> {
        let key = player_key(player)?;
        let name = account.checked_name()?;
        let lower = name.to_ascii_lowercase();
        let txn = self.db.begin_write()?;
        {
            let mut t = txn.open_table(ACCOUNTS)?;
            let k = (key.as_str(), account.source.code(), lower.as_str());
            if t.get(k)?.is_none() {
                t.insert(k, name)?;
            }
        }
        self.commit(txn)
    }
}
