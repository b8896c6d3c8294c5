//! The [`GraphStore`] trait of mirror and its backends.
//!
//! A store holds, per player, every position they reached and every move played from it
//! (both sides' moves), with statistics split by the player's colour, time class,
//! rated/casual and month ([`mirror_core::EdgeDims`]), plus each ingested game's record.
//! Backends: [`embedded::EmbeddedStore`] (one redb file, the default). The
//! conformance suite (`mirror_testkit::conformance`, a dev-dependency) runs the same checks
//! against every backend.

pub mod analysis;
pub mod codec;
pub mod drill;
pub mod embedded;
#[cfg(feature = "neo4j")]
pub mod neo4j;
pub mod place;
pub mod polyglot;
pub mod prep;
pub mod repertoire;
pub mod report;

use std::path::PathBuf;

pub use mirror_core::evaluation::Evaluation;
use mirror_core::{
    GameId, GameRecord, GameSource, MoveCode, MoveStats, PositionKey, TimeClass, batch::Batch,
    stats::EdgeDims, time::Month,
};
use shakmaty::Color;

pub use drill::{DrillAnswer, DrillRecord, Drills};
pub use embedded::EmbeddedStore;

/// Errors of a store.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The store's file does not exist (and was not to be created).
    #[error("cannot open store {path}: no such file (ingest some games first, or pass --db)")]
    Missing {
        /// The file.
        path: PathBuf,
    },
    /// The database file could not be opened or created; the cause is kept.
    #[error("cannot open store {path}")]
    Open {
        /// The file.
        path: PathBuf,
        /// What failed: creating its directory, or redb opening the file.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Another process holds the embedded store's file (redb allows one at a time).
    #[error("cannot open store {path}: it is in use by another mirror process")]
    InUse {
        /// The file.
        path: PathBuf,
    },
    /// The file was written by another version of mirror's schema.
    #[error(
        "store {path} has schema version {found}, this mirror needs {expected} (version 3 \
         added the opponent's rating to every edge, version 4 the site each game was played \
         on, Neo4j's version 5 each player's own position nodes and move totals, version 5 \
         (Neo4j 6) the time of each move from the games' clocks; an embedded store of \
         version 4 is upgraded as it opens): rebuild it by ingesting \
         the same games from their source into a new store, e.g. `mirror --db NEW.redb ingest \
         --user NAME --pgn FILES` (or `--user NAME` for Chess.com, `--lichess NAME`; for \
         Neo4j, into an empty database: `mirror --store neo4j ingest ...`, or `mirror \
         export --to neo4j` from an embedded store), or keep using a matching mirror \
         version"
    )]
    SchemaMismatch {
        /// The file.
        path: PathBuf,
        /// Version in the file.
        found: u64,
        /// Version this build writes.
        expected: u64,
    },
    /// The embedded store's database (redb) failed; its error is the cause.
    #[error("the embedded store's database (redb) failed")]
    Embedded(#[source] Box<redb::Error>),
    /// The database (the embedded redb file, or the Neo4j server) could not do what was
    /// asked; its error is kept as the cause.
    #[error("{what}")]
    Database {
        /// What mirror was doing, and what to check.
        what: String,
        /// The driver's error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The database has not the memory for a write even of one game (Neo4j's
    /// `dbms.memory.transaction.total.max`, `db.memory.transaction.max` or heap); larger
    /// writes that fail this way are split by the store and never reach the caller.
    #[error("{what} (give it more heap, or raise dbms.memory.transaction.total.max)")]
    TooLarge {
        /// What was written, and where.
        what: String,
        /// The server's refusal.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A Cypher statement was given other parameters than its file declares (a bug of
    /// mirror's, caught before anything is sent).
    #[error("{file}: parameters {given:?} passed, {declared:?} declared")]
    StatementParams {
        /// The statement's file in `cypher/`.
        file: String,
        /// The parameters passed.
        given: Vec<String>,
        /// The parameters the file declares.
        declared: Vec<String>,
    },
    /// The embedded store numbers players and each player's games with 32 bits: no more
    /// fit.
    #[error("the store holds as many {0} as it can number (2^32)")]
    Full(&'static str),
    /// No data directory was given and the platform has no user data directory.
    #[error("no user data directory on this platform: pass --data-dir or --db")]
    NoDataDir,
    /// A store file was given beside Neo4j asked for.
    #[error(
        "--db {} names an embedded store file, but the store asked for is Neo4j (--store \
         neo4j or MIRROR_STORE): drop one of them",
        db.display()
    )]
    TwoStores {
        /// The file given.
        db: PathBuf,
    },
    /// Neo4j was asked for, but the environment names none (or this build has no Neo4j).
    #[error(
        "the Neo4j store needs MIRROR_NEO4J_URI (and MIRROR_NEO4J_USER, MIRROR_NEO4J_PASSWORD)"
    )]
    NoNeo4j,
    /// Stored data could not be decoded.
    #[error("corrupt store data: {0}")]
    Corrupt(String),
    /// Some games of a batch were ingested meanwhile (by another writer); nothing of the
    /// batch was written. Retry without them.
    #[error("{} game(s) of the batch were already ingested", .0.len())]
    AlreadyIngested(Vec<GameId>),
    /// A player name that cannot be stored (the reason is in it).
    #[error(transparent)]
    InvalidPlayer(#[from] mirror_core::InvalidName),
    /// No player of that name in the store (the names it has are listed).
    #[error(
        "unknown player {name:?}{}",
        if known.is_empty() {
            ": the store is empty (run mirror ingest first)".to_string()
        } else {
            format!("; the store has: {}", known.join(", "))
        }
    )]
    UnknownPlayer {
        /// The name asked for.
        name: String,
        /// The players the store has.
        known: Vec<String>,
    },
}

/// Each of redb's errors becomes [`StoreError::Embedded`], kept as the cause.
macro_rules! from_redb {
    ($($t:ty),* $(,)?) => {
        $(impl From<$t> for StoreError {
            fn from(e: $t) -> StoreError {
                StoreError::Embedded(Box::new(e.into()))
            }
        })*
    };
}

from_redb!(
    redb::Error,
    redb::DatabaseError,
    redb::TransactionError,
    redb::TableError,
    redb::StorageError,
    redb::CommitError,
);

/// Positions with at least this many pieces keep move totals in every store (22.6% of the
/// plies of the shared player's games; every one of their 20 most played positions): the
/// threshold keeps the extra writes of an ingest small while the rest, rarer by far, sum
/// few rows. A position's unfiltered (or colour-only) question reads its totals when it
/// has them, else sums its rows.
pub const TOTAL_MIN_PIECES: u8 = 30;

/// Result alias for store operations.
pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// Which games an explorer or engine query looks at. The default takes everything.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Filter {
    /// Only games where the player had this colour.
    pub color: Option<Color>,
    /// Only these time classes (empty = all).
    pub time_classes: Vec<TimeClass>,
    /// Only rated (`Some(true)`) or casual (`Some(false)`) games.
    pub rated: Option<bool>,
    /// Only games from this month on (games without a known month are then left out).
    pub since: Option<Month>,
    /// Only games up to and including this month.
    pub until: Option<Month>,
    /// Only games against an opponent rated in this range (inclusive); games without the
    /// opponent's rating are then left out.
    pub opponent_rating: Option<RatingRange>,
    /// Only games played on these sources (empty = all).
    pub sources: Vec<GameSource>,
}

/// An inclusive range of ratings, `1600-1900` as text.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct RatingRange {
    /// Lowest rating counted.
    pub min: u16,
    /// Highest rating counted.
    pub max: u16,
}

impl RatingRange {
    /// Whether `rating` is inside.
    pub fn contains(self, rating: u16) -> bool {
        (self.min..=self.max).contains(&rating)
    }
}

/// A rating range that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid rating range {0:?}: expected MIN-MAX with 0 <= MIN <= MAX <= 4000, e.g. 1600-1900"
)]
pub struct ParseRatingRangeError(pub String);

impl std::str::FromStr for RatingRange {
    type Err = ParseRatingRangeError;

    fn from_str(s: &str) -> std::result::Result<RatingRange, ParseRatingRangeError> {
        let err = || ParseRatingRangeError(s.to_string());
        let (a, b) = s.trim().split_once('-').ok_or_else(err)?;
        let min: u16 = a.trim().parse().map_err(|_| err())?;
        let max: u16 = b.trim().parse().map_err(|_| err())?;
        if min > max || max > 4000 {
            return Err(err());
        }
        Ok(RatingRange { min, max })
    }
}

impl std::fmt::Display for RatingRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.min, self.max)
    }
}

impl Filter {
    /// Whether the colour is the only restriction (or there is none): such a question is
    /// answered from a position's move totals without looking at the other dimensions.
    pub fn is_colour_only(&self) -> bool {
        let Filter {
            color: _,
            time_classes,
            rated,
            since,
            until,
            opponent_rating,
            sources,
        } = self;
        time_classes.is_empty()
            && rated.is_none()
            && since.is_none()
            && until.is_none()
            && opponent_rating.is_none()
            && sources.is_empty()
    }

    /// This filter with each dimension `over` restricts (time classes, rated, months,
    /// the opponent's rating, sources) taken from `over` instead: the opponent's games in
    /// `mirror prep` are the player's filter with the opponent's own on top. The colour
    /// stays this one's.
    pub fn overlaid(&self, over: &Filter) -> Filter {
        fn list<T: Clone>(mine: &[T], over: &[T]) -> Vec<T> {
            if over.is_empty() { mine } else { over }.to_vec()
        }
        Filter {
            color: self.color,
            time_classes: list(&self.time_classes, &over.time_classes),
            rated: over.rated.or(self.rated),
            since: over.since.or(self.since),
            until: over.until.or(self.until),
            opponent_rating: over.opponent_rating.or(self.opponent_rating),
            sources: list(&self.sources, &over.sources),
        }
    }

    /// Whether an edge row with these dimensions passes.
    pub fn accepts(&self, dims: &EdgeDims) -> bool {
        if self.color.is_some_and(|c| c != dims.color) {
            return false;
        }
        if !self.time_classes.is_empty() && !self.time_classes.contains(&dims.time_class) {
            return false;
        }
        if self.rated.is_some_and(|r| r != dims.rated) {
            return false;
        }
        if !self.sources.is_empty() && !self.sources.contains(&dims.source) {
            return false;
        }
        if let Some(range) = self.opponent_rating
            && !dims.opponent_rating.is_some_and(|r| range.contains(r))
        {
            return false;
        }
        if self.since.is_some() || self.until.is_some() {
            let Some(m) = dims.month else { return false };
            if self.since.is_some_and(|s| m < s) || self.until.is_some_and(|u| m > u) {
                return false;
            }
        }
        true
    }
}

/// One move from a position with its statistics summed over the rows a filter accepts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MoveRow {
    /// The move.
    pub mv: MoveCode,
    /// Summed statistics.
    pub stats: MoveStats,
    /// The position it leads to.
    pub child: PositionKey,
}

impl MoveRow {
    /// The stored move as a move of `pos` (whose key is `at`), with its score: the one
    /// policy for a row that does not make sense there (a move not legal in the position,
    /// a row without games), in the engine, the explorer, the report and the server alike:
    /// [`StoreError::Corrupt`] naming the position and the move.
    pub fn checked(
        &self,
        pos: &shakmaty::Chess,
        at: PositionKey,
    ) -> Result<(shakmaty::Move, mirror_core::stats::ScoreInterval)> {
        let mv = self.mv.to_move(pos).map_err(|_| {
            StoreError::Corrupt(format!(
                "position {:016x}: the stored move {} is not legal there",
                at.0, self.mv
            ))
        })?;
        let score = self.stats.score_interval().ok_or_else(|| {
            StoreError::Corrupt(format!(
                "position {:016x}: the stored move {} has no games",
                at.0, self.mv
            ))
        })?;
        Ok((mv, score))
    }
}

/// One stored edge row, unsummed (for exports and reference checks).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EdgeRow {
    /// From this position.
    pub pos: PositionKey,
    /// This move.
    pub mv: MoveCode,
    /// Split dimensions.
    pub dims: EdgeDims,
    /// Statistics.
    pub stats: MoveStats,
    /// The position it leads to.
    pub child: PositionKey,
}

/// What one batch write changed.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteReport {
    /// Games recorded.
    pub games: u64,
    /// Positions the store did not know before.
    pub new_positions: u64,
    /// Edge rows the store did not have before.
    pub new_edges: u64,
}

impl WriteReport {
    /// Adds another write's figures to these.
    pub fn add(&mut self, other: &WriteReport) {
        self.games += other.games;
        self.new_positions += other.new_positions;
        self.new_edges += other.new_edges;
    }
}

/// Size of a player's graph.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayerCounts {
    /// Games ingested for the player.
    pub games: u64,
    /// Edge rows (position, move, dimensions).
    pub edge_rows: u64,
}

/// A player known to the store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlayerInfo {
    /// The name as first ingested.
    pub name: String,
    /// Games ingested.
    pub games: u64,
}

/// An account or name through which a player's games reach the store: a Chess.com or
/// lichess username, or (`Otb`) a name the player has in PGN files. One player (a profile)
/// may have several.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    /// Where.
    pub source: GameSource,
    /// The username or name, as first given.
    pub name: String,
}

impl Account {
    /// The name, trimmed; an error for an empty, overlong or control-character name.
    pub fn checked_name(&self) -> Result<&str> {
        player_key(&self.name)?;
        Ok(self.name.trim())
    }
}

impl std::fmt::Display for Account {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.source, self.name)
    }
}

/// The order of [`Accounts::accounts`]: by source, then name (case-insensitive).
pub fn sort_accounts(accounts: &mut [Account]) {
    accounts.sort_by(|a, b| {
        (a.source, a.name.to_ascii_lowercase()).cmp(&(b.source, b.name.to_ascii_lowercase()))
    });
}

/// What an incremental source remembers about one unit it fetched (a Chess.com month, a
/// lichess export), so that a rerun skips finished units and revalidates the rest.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FetchState {
    /// `ETag` of the last answer.
    pub etag: Option<String>,
    /// `Last-Modified` of the last answer.
    pub last_modified: Option<String>,
    /// The unit cannot change any more (e.g. a past month fetched after it ended).
    pub complete: bool,
    /// Games the unit had at the last fetch.
    pub games: u64,
    /// A source-specific cursor (e.g. the time of the newest game fetched), if any.
    pub cursor: Option<i64>,
}

/// Sums edge rows that pass `filter` per move, most played first (ties by move): the
/// answer of [`GraphRead::moves`] for every backend.
pub fn sum_by_move(
    rows: impl IntoIterator<Item = Result<EdgeRow>>,
    filter: &Filter,
) -> Result<Vec<MoveRow>> {
    let mut out: Vec<MoveRow> = Vec::new();
    for e in rows {
        let e = e?;
        if !filter.accepts(&e.dims) {
            continue;
        }
        match out.iter_mut().find(|r| r.mv == e.mv) {
            Some(r) => r.stats.merge(&e.stats),
            None => out.push(MoveRow {
                mv: e.mv,
                stats: e.stats,
                child: e.child,
            }),
        }
    }
    sort_moves(&mut out);
    Ok(out)
}

/// The order of [`GraphRead::moves`]: most played first, ties by move.
pub fn sort_moves(rows: &mut [MoveRow]) {
    rows.sort_by(|a, b| b.stats.games().cmp(&a.stats.games()).then(a.mv.cmp(&b.mv)));
}

/// A game of the player that went through a position, for "recent games".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecentGame {
    /// The game.
    pub game: GameRecord,
    /// The player's colour in it.
    pub color: Color,
    /// The move played from the position.
    pub mv: MoveCode,
    /// The moves played before the position (0: the start), where the game reached it:
    /// by another order of moves than the one explored, maybe.
    pub ply: u32,
}

/// Where `game` reaches `pos` (its first time there, or the first time it plays `mv`
/// there): the moves played before it, and the move played from it.
pub fn reached(
    game: &GameRecord,
    pos: PositionKey,
    mv: Option<MoveCode>,
) -> Option<(u32, MoveCode)> {
    game.replay()
        .map_while(|p| p.ok())
        .enumerate()
        .find(|(_, p)| p.key == pos && mv.is_none_or(|m| m == p.code))
        .and_then(|(i, p)| Some((u32::try_from(i).ok()?, p.code)))
}

/// Whether `game` (the player having `color`) passes `filter` and goes through `pos`;
/// if so, where, and the move played there.
pub fn recent_game(
    game: GameRecord,
    color: Color,
    pos: PositionKey,
    filter: &Filter,
) -> Option<RecentGame> {
    let dims = EdgeDims::of_game(&game, color);
    if !filter.accepts(&dims) {
        return None;
    }
    let (ply, mv) = reached(&game, pos, None)?;
    Some(RecentGame {
        game,
        color,
        mv,
        ply,
    })
}

/// The first `limit` of `games` (newest first) that pass `filter` and go through `pos`:
/// the search of [`GraphRead::recent_games`] for every backend.
pub fn first_recent_games(
    games: impl IntoIterator<Item = Result<Option<(GameRecord, Color)>>>,
    pos: PositionKey,
    filter: &Filter,
    limit: usize,
) -> Result<Vec<RecentGame>> {
    let mut out = Vec::new();
    for item in games {
        let Some((game, color)) = item? else { continue };
        if let Some(found) = recent_game(game, color, pos, filter) {
            out.push(found);
            if out.len() >= limit {
                break;
            }
        }
    }
    Ok(out)
}

/// Reading a graph of players' positions and moves. All methods are blocking and take
/// `&self`, so one store can serve readers while a writer ingests.
pub trait GraphRead {
    /// Which of `ids` are already ingested for `player`.
    fn ingested(&self, player: &str, ids: &[GameId]) -> Result<Vec<GameId>>;

    /// The moves played from `pos` in `player`'s games that pass `filter`, summed per move,
    /// most played first.
    fn moves(&self, player: &str, pos: PositionKey, filter: &Filter) -> Result<Vec<MoveRow>>;

    /// [`GraphRead::moves`] at each of `keys`, in their order: one round trip where the
    /// store is a server (a walk over many positions, e.g. [`prep::prep`]).
    fn moves_many(
        &self,
        player: &str,
        keys: &[PositionKey],
        filter: &Filter,
    ) -> Result<Vec<Vec<MoveRow>>> {
        keys.iter()
            .map(|&k| self.moves(player, k, filter))
            .collect()
    }

    /// Every edge row of `player` (unsummed), in key order.
    fn edges(&self, player: &str) -> Result<Vec<EdgeRow>>;

    /// Every edge row of `player`, in key order, handed to `each` one at a time, so that a
    /// store that reads them in order need not hold them all (a big player has millions);
    /// stops at the first error `each` returns. Default: [`GraphRead::edges`], then each.
    fn for_each_edge(
        &self,
        player: &str,
        each: &mut dyn FnMut(EdgeRow) -> Result<()>,
    ) -> Result<()> {
        self.edges(player)?.into_iter().try_for_each(each)
    }

    /// The player's games with their colour, oldest first (by date, then id).
    fn games(&self, player: &str) -> Result<Vec<(GameRecord, Color)>>;

    /// The player's games with their colour, in no particular order, handed to `each` one
    /// at a time (a store that reads them one by one need not hold them all); stops at
    /// the first error `each` returns. Default: [`GraphRead::games`], then each.
    fn for_each_game(
        &self,
        player: &str,
        each: &mut dyn FnMut(GameRecord, Color) -> Result<()>,
    ) -> Result<()> {
        self.games(player)?
            .into_iter()
            .try_for_each(|(g, c)| each(g, c))
    }

    /// One game's record.
    fn game(&self, id: &GameId) -> Result<Option<GameRecord>>;

    /// EPD text of a stored position.
    fn position_epd(&self, pos: PositionKey) -> Result<Option<String>>;

    /// Players in the store.
    fn players(&self) -> Result<Vec<PlayerInfo>>;

    /// Size of a player's graph (zero counts for an unknown player).
    fn counts(&self, player: &str) -> Result<PlayerCounts>;

    /// Number of distinct positions in the store.
    fn position_count(&self) -> Result<u64>;

    /// Up to `limit` of the player's most recent games (newest first) that pass `filter`
    /// and go through `pos`, with the move played there. Backends may bound the search to
    /// the player's most recent few thousand games.
    fn recent_games(
        &self,
        player: &str,
        pos: PositionKey,
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<RecentGame>>;

    /// The date of the player's newest game (`None`: no dated game, or no game). Default:
    /// the newest of [`GraphRead::recent_games`] at the start position (every game goes
    /// through it).
    fn newest_date(&self, player: &str) -> Result<Option<mirror_core::Date>> {
        let start = PositionKey::from_position(&shakmaty::Chess::default());
        Ok(self
            .recent_games(player, start, &Filter::default(), 1)?
            .first()
            .and_then(|g| g.game.date))
    }

    /// The remembered state of a fetched unit (e.g. `chess.com/2024-03`) for `player`.
    fn fetch_state(&self, player: &str, unit: &str) -> Result<Option<FetchState>>;

    /// Whether reads are local and take microseconds (no network, no async runtime), so
    /// that a server may run them on its async tasks. Default: no.
    fn reads_inline(&self) -> bool {
        false
    }

    /// A number that changes whenever the stored data changes, when the store can know
    /// that without asking anyone: the embedded store counts its own commits (its file is
    /// held by one process, so no one else writes to it). A read that follows the call
    /// sees the data of at least that version. `None` while a change is being committed,
    /// and always when others may write unseen (Neo4j): answers read then must not be
    /// reused.
    fn data_version(&self) -> Option<u64> {
        None
    }

    /// A number that changes whenever `player`'s data changes (a batch of their games, an
    /// account), read from the store itself, so that it holds whoever wrote: answers about
    /// the player read at this version may be kept while it is unchanged. A read that
    /// follows the call sees the data of at least that version. Default: the store's
    /// [`GraphRead::data_version`] (a change of any player's data counts). `None`: do not
    /// keep answers.
    fn player_version(&self, player: &str) -> Result<Option<u64>> {
        let _ = player;
        Ok(self.data_version())
    }

    /// The stored evaluations of the positions `keys` (shared by every player), in their
    /// order.
    fn evaluations(&self, keys: &[PositionKey]) -> Result<Vec<Option<Evaluation>>>;
}

/// Writing a graph: games, fetch states, evaluations and the claims on their work.
pub trait GraphWrite {
    /// Writes a batch of one player's games in one transaction: the games' records, the
    /// "ingested" marks, new positions and the edge rows. Either all of it is written or
    /// nothing. Fails with [`StoreError::AlreadyIngested`] (writing nothing) when some
    /// games are already recorded for the player.
    fn write_batch(&self, player: &str, batch: &Batch) -> Result<WriteReport>;

    /// Writes batches of several players in one transaction where the backend can (the
    /// embedded store and Neo4j do), so that a corpus of many players costs one commit per
    /// chunk, not one per player. All or nothing as [`GraphWrite::write_batch`]; fails
    /// with [`StoreError::AlreadyIngested`] when some game is already recorded for its
    /// player (the caller then writes player by player, which says whose). The default
    /// writes one player at a time.
    fn write_batches(&self, batches: &[(String, Batch)]) -> Result<WriteReport> {
        let mut total = WriteReport::default();
        for (player, batch) in batches {
            total.add(&self.write_batch(player, batch)?);
        }
        Ok(total)
    }

    /// Remembers the state of a fetched unit; call it after the unit's games are written.
    fn set_fetch_state(&self, player: &str, unit: &str, state: &FetchState) -> Result<()>;

    /// Stores each evaluation where its position has none yet or one that gives way to it
    /// ([`Evaluation::yields_to`]: a deeper search, or an engine's where a comment's was);
    /// all in one transaction. Returns how many were stored.
    fn write_evaluations(&self, evals: &[(PositionKey, Evaluation)]) -> Result<usize>;

    /// Takes the positions `keys` for the analysis `worker` for `lease_ms` milliseconds:
    /// returns those it should search now, that is not already evaluated by an engine at
    /// `depth` or deeper, and not taken by another worker whose lease still runs. Several
    /// `mirror analyse` processes on one store so share the work without searching a
    /// position twice. Default (a store one process holds): every key.
    fn claim_analysis(
        &self,
        keys: &[PositionKey],
        depth: u16,
        worker: &str,
        lease_ms: u64,
    ) -> Result<Vec<PositionKey>> {
        let _ = (depth, worker, lease_ms);
        Ok(keys.to_vec())
    }
}

/// The accounts (Chess.com, lichess) and spellings that make up a player.
pub trait Accounts {
    /// The accounts and names recorded for `player`, by source then name.
    fn accounts(&self, player: &str) -> Result<Vec<Account>>;

    /// Records an account or name of `player` (again: nothing changes; names compare
    /// case-insensitively).
    fn add_account(&self, player: &str, account: &Account) -> Result<()>;
}

/// A whole store: read, written, its players' accounts and their drill ([`GraphRead`],
/// [`GraphWrite`], [`Accounts`], [`Drills`]); what a command that does all takes. A
/// function that only reads takes [`GraphRead`].
pub trait GraphStore: GraphRead + GraphWrite + Accounts + Drills {}

impl<S: GraphRead + GraphWrite + Accounts + Drills + ?Sized> GraphStore for S {}

/// The canonical form of a player name used as identity ([`mirror_core::PlayerKey`]:
/// trimmed, ASCII-lowercased, never a path), as text.
pub fn player_key(name: &str) -> Result<String> {
    Ok(mirror_core::PlayerKey::new(name)?.into_string())
}

/// The player of `players` named `user` (in any case), as stored: a typo is an error
/// naming the players there ([`StoreError::UnknownPlayer`]), not an empty answer.
pub fn find_player(players: &[PlayerInfo], user: &str) -> Result<String> {
    let key = player_key(user)?;
    match players.iter().find(|p| p.name.eq_ignore_ascii_case(&key)) {
        Some(p) => Ok(p.name.clone()),
        None => Err(StoreError::UnknownPlayer {
            name: user.to_string(),
            known: players.iter().map(|p| p.name.clone()).collect(),
        }),
    }
}

/// The games a store's reader hands out with their date keys (`read` calls its argument
/// once per game), oldest first (by date, then id), as [`GraphRead::games`] gives them:
/// one home for both stores' `games`.
pub(crate) fn oldest_first<D: Ord>(
    read: impl FnOnce(&mut dyn FnMut(D, GameRecord, Color) -> Result<()>) -> Result<()>,
) -> Result<Vec<(GameRecord, Color)>> {
    let mut games = Vec::new();
    read(&mut |date, g, c| {
        games.push((date, g, c));
        Ok(())
    })?;
    games.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.id.cmp(&b.1.id)));
    Ok(games.into_iter().map(|(_, g, c)| (g, c)).collect())
}

/// The player's pace ([`mirror_core::clock::TimeModel`]) learned from all their games,
/// read one at a time.
pub fn pace_of(
    store: &(impl GraphRead + ?Sized),
    player: &str,
) -> Result<mirror_core::clock::TimeModel> {
    let mut model = mirror_core::clock::TimeModel::default();
    store.for_each_game(player, &mut |g, c| {
        model.add(&g, c);
        Ok(())
    })?;
    Ok(model)
}

/// The player named `user` in `store`, as stored ([`find_player`] among its players):
/// every command checks the player this way before it reads, so that a typo is an error.
pub fn require_player(store: &impl GraphRead, user: &str) -> Result<String> {
    find_player(&store.players()?, user)
}

macro_rules! forward_store {
    ($($ty:ty),*) => {$(
        impl<S: GraphRead + ?Sized> GraphRead for $ty {
            fn ingested(&self, player: &str, ids: &[GameId]) -> Result<Vec<GameId>> {
                (**self).ingested(player, ids)
            }

            fn moves(&self, player: &str, pos: PositionKey, filter: &Filter) -> Result<Vec<MoveRow>> {
                (**self).moves(player, pos, filter)
            }

            fn moves_many(&self, player: &str, keys: &[PositionKey], filter: &Filter) -> Result<Vec<Vec<MoveRow>>> {
                (**self).moves_many(player, keys, filter)
            }

            fn edges(&self, player: &str) -> Result<Vec<EdgeRow>> {
                (**self).edges(player)
            }

            fn for_each_edge(&self, player: &str, each: &mut dyn FnMut(EdgeRow) -> Result<()>) -> Result<()> {
                (**self).for_each_edge(player, each)
            }

            fn games(&self, player: &str) -> Result<Vec<(GameRecord, Color)>> {
                (**self).games(player)
            }

            fn for_each_game(&self, player: &str, each: &mut dyn FnMut(GameRecord, Color) -> Result<()>) -> Result<()> {
                (**self).for_each_game(player, each)
            }

            fn game(&self, id: &GameId) -> Result<Option<GameRecord>> {
                (**self).game(id)
            }

            fn position_epd(&self, pos: PositionKey) -> Result<Option<String>> {
                (**self).position_epd(pos)
            }

            fn players(&self) -> Result<Vec<PlayerInfo>> {
                (**self).players()
            }

            fn counts(&self, player: &str) -> Result<PlayerCounts> {
                (**self).counts(player)
            }

            fn position_count(&self) -> Result<u64> {
                (**self).position_count()
            }

            fn recent_games(&self, player: &str, pos: PositionKey, filter: &Filter, limit: usize) -> Result<Vec<RecentGame>> {
                (**self).recent_games(player, pos, filter, limit)
            }

            fn fetch_state(&self, player: &str, unit: &str) -> Result<Option<FetchState>> {
                (**self).fetch_state(player, unit)
            }

            fn evaluations(&self, keys: &[PositionKey]) -> Result<Vec<Option<Evaluation>>> {
                (**self).evaluations(keys)
            }

            fn reads_inline(&self) -> bool {
                (**self).reads_inline()
            }

            fn data_version(&self) -> Option<u64> {
                (**self).data_version()
            }

            fn player_version(&self, player: &str) -> Result<Option<u64>> {
                (**self).player_version(player)
            }

            fn newest_date(&self, player: &str) -> Result<Option<mirror_core::Date>> {
                (**self).newest_date(player)
            }
        }

        impl<S: GraphWrite + ?Sized> GraphWrite for $ty {
            fn write_batch(&self, player: &str, batch: &Batch) -> Result<WriteReport> {
                (**self).write_batch(player, batch)
            }

            fn write_batches(&self, batches: &[(String, Batch)]) -> Result<WriteReport> {
                (**self).write_batches(batches)
            }

            fn set_fetch_state(&self, player: &str, unit: &str, state: &FetchState) -> Result<()> {
                (**self).set_fetch_state(player, unit, state)
            }

            fn write_evaluations(&self, evals: &[(PositionKey, Evaluation)]) -> Result<usize> {
                (**self).write_evaluations(evals)
            }

            fn claim_analysis(&self, keys: &[PositionKey], depth: u16, worker: &str, lease_ms: u64) -> Result<Vec<PositionKey>> {
                (**self).claim_analysis(keys, depth, worker, lease_ms)
            }
        }

        impl<S: Accounts + ?Sized> Accounts for $ty {
            fn accounts(&self, player: &str) -> Result<Vec<Account>> {
                (**self).accounts(player)
            }

            fn add_account(&self, player: &str, account: &Account) -> Result<()> {
                (**self).add_account(player, account)
            }
        }
    )*};
}

forward_store!(&S, std::sync::Arc<S>, Box<S>);
