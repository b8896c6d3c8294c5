//! The Neo4j backend (neo4rs 0.8, Bolt 4.1): the same [`GraphStore`] as the embedded store, as
//! a property graph people can explore in Neo4j Browser (schema 6):
//!
//! - `(:Position {key, epd})`: one node per position, whoever reached it (transpositions
//!   and players meet here);
//! - `(:PlayerPosition {player, key})-[:AT]->(:Position)`: a player's own node of each
//!   position they reached. Every read and write of a player starts at these (a unique
//!   index seek on `(player, key)`), so that its cost does not depend on how many other
//!   players share a position;
//! - `(:PlayerPosition)-[:MOVE {uci, color, tc, rated, month, opp, src, w, d, l,
//!   ratingSum, ratedGames, first, last, row, timed, timeMs, trouble}]->(:PlayerPosition)`:
//!   the player's edge rows, one per edge key, found again by their unique `row` key when
//!   a batch adds to them (`timed`: games whose move here has a time, `timeMs`: those
//!   moves' milliseconds, `trouble`: how many were made in time trouble; see
//!   `mirror_core::clock`);
//! - `(:PlayerPosition)-[:PLAYED {uci, color, w, d, l, ...}]->(:PlayerPosition)`: the
//!   player's move totals, one per move and colour, of positions with at least
//!   [`TOTAL_MIN_PIECES`](crate::TOTAL_MIN_PIECES) pieces, kept up to date in the write
//!   transaction: an unfiltered (or colour-only) question there reads these instead of the
//!   rows;
//! - `(:Player {name, displayName, games, edgeRows, version})-[:INGESTED {color,
//!   date}]->(:Game {id, record})`, `(:FetchState {player, unit, ...})`,
//!   `(:Account {player, source, key, name})`, `(:DrillCard {player, key, color, ...})`
//!   (a player's drill record of a card, [`crate::drill`]). `version` rises with every write of the
//!   player's data, so that servers may keep answers ([`GraphRead::player_version`]).
//!
//! Every statement is a file in `cypher/` loaded with `include_str!` and run with
//! parameters only; [`STATEMENTS`] lists each with the parameters the code passes, and a
//! test checks them against the files. Writes are batched `UNWIND $rows` over rows
//! aggregated in Rust ([`Batch`]: one row per edge key per batch), in one transaction per
//! batch that first takes the player's write lock and checks, inside the same
//! transaction, that none of the batch's games is ingested yet: a batch counts exactly
//! once even when a commit reply is lost and the batch is retried, or when two ingests of
//! the same player run at once. Only transient errors (a lost connection, a deadlock, a
//! server restarting) are retried, a bounded number of times; every error keeps the
//! driver's error as its cause. The store's methods are blocking (a private runtime
//! drives neo4rs); call them from blocking threads.

pub mod bench;

use std::{
    collections::{BTreeMap, HashMap},
    future::Future,
    time::Duration,
};

use mirror_core::{
    GameId, GameRecord, MoveCode, MoveStats, PositionKey, TimeClass,
    batch::{Batch, unpack_epd},
    stats::EdgeDims,
    time::Month,
};
use neo4rs::{BoltType, ConfigBuilder, Graph, Query, Row};
use shakmaty::Color;

use crate::{
    Account, Accounts, DrillAnswer, DrillRecord, Drills, EdgeRow, Evaluation, FetchState, Filter,
    GraphRead, GraphWrite, MoveRow, PlayerCounts, PlayerInfo, RecentGame, Result, StoreError,
    WriteReport, drill::DRILL_HISTORY, first_recent_games, player_key, sort_moves,
};

/// A Cypher statement from `cypher/` and the parameters the code passes to it.
#[derive(Debug, Clone, Copy)]
pub struct Statement {
    /// File name in `cypher/`.
    pub file: &'static str,
    /// The statement text.
    pub text: &'static str,
    /// Parameters the code passes (without `$`).
    pub params: &'static [&'static str],
}

macro_rules! statement {
    ($name:ident, $file:literal, [$($p:literal),*]) => {
        #[doc = concat!("`cypher/", $file, "`.")]
        pub const $name: Statement = Statement {
            file: $file,
            text: include_str!(concat!("../../../cypher/", $file)),
            params: &[$($p),*],
        };
    };
}

statement!(SCHEMA, "schema.cypher", []);
statement!(SCHEMA_VERSION, "schema_version.cypher", []);
statement!(SCHEMA_VERSION_SET, "schema_version_set.cypher", ["version"]);

/// The graph's schema version this mirror writes (3: every MOVE has `opp`; 4: and `src`,
/// the site the game was played on; 5: a player's moves join the player's own
/// `PlayerPosition` nodes, with `PLAYED` totals and a per-player version; 6: every `MOVE`
/// and `PLAYED` keeps the time of its moves, `timed`, `timeMs` and `trouble`).
pub const GRAPH_SCHEMA_VERSION: i64 = 6;
statement!(INGESTED, "ingested.cypher", ["player", "ids"]);
statement!(
    WRITE_BEGIN,
    "write_begin.cypher",
    ["player", "display", "ids"]
);
statement!(WRITE_GAMES, "write_games.cypher", ["player", "games"]);
statement!(
    WRITE_POSITIONS,
    "write_positions.cypher",
    ["player", "positions"]
);
statement!(WRITE_EDGES, "write_edges.cypher", ["rows"]);
statement!(WRITE_NEW_EDGES, "write_new_edges.cypher", ["rows"]);
statement!(WRITE_NEW_TOTALS, "write_new_totals.cypher", ["rows"]);
statement!(WRITE_MOVE_TOTALS, "write_move_totals.cypher", ["rows"]);
statement!(
    WRITE_TOTALS,
    "write_totals.cypher",
    ["player", "games", "edgeRows"]
);
statement!(PLAYER_VERSION, "player_version.cypher", ["player"]);
statement!(
    MOVES_TOTALS,
    "moves_totals.cypher",
    ["keys", "player", "color"]
);
statement!(
    MOVES,
    "moves.cypher",
    [
        "keys", "player", "color", "tcs", "rated", "since", "until", "oppMin", "oppMax", "sources"
    ]
);
statement!(EDGES, "edges.cypher", ["player"]);
statement!(GAMES, "games.cypher", ["player", "limit"]);
statement!(RECENT_SPANS, "recent_spans.cypher", ["player", "key"]);
statement!(
    GAMES_IN_SPANS,
    "games_in_spans.cypher",
    ["player", "spans", "limit"]
);
statement!(GAME, "game.cypher", ["id"]);
statement!(POSITION_EPD, "position_epd.cypher", ["key"]);
statement!(EVALUATIONS, "evaluations.cypher", ["keys"]);
statement!(WRITE_EVALUATIONS, "write_evaluations.cypher", ["rows"]);
statement!(
    CLAIM_ANALYSIS,
    "claim_analysis.cypher",
    ["keys", "depth", "worker", "now", "until"]
);
statement!(PLAYERS, "players.cypher", []);
statement!(COUNTS, "counts.cypher", ["player"]);
statement!(POSITION_COUNT, "position_count.cypher", []);
statement!(FETCH_GET, "fetch_state_get.cypher", ["player", "unit"]);
statement!(
    FETCH_SET,
    "fetch_state_set.cypher",
    [
        "player",
        "unit",
        "etag",
        "lastModified",
        "complete",
        "games",
        "cursor"
    ]
);
statement!(ACCOUNTS, "accounts.cypher", ["player"]);
statement!(
    ACCOUNT_ADD,
    "account_add.cypher",
    ["player", "source", "key", "name"]
);
statement!(DRILL_RECORDS, "drill_records.cypher", ["player"]);
statement!(
    WRITE_DRILL_RECORDS,
    "write_drill_records.cypher",
    ["player", "rows"]
);
statement!(TEST_WIPE, "test_wipe.cypher", []);
statement!(
    BENCH_SEED_MOVE,
    "bench_seed_move.cypher",
    [
        "player", "from", "fromEpd", "to", "toEpd", "uci", "color", "tc", "rated", "month", "date",
        "w", "d", "l"
    ]
);
statement!(
    EX_MOST_PLAYED,
    "examples/most_played.cypher",
    ["player", "limit"]
);
statement!(
    EX_WORST,
    "examples/worst_positions.cypher",
    ["player", "minGames"]
);
statement!(
    EX_TRANSPOSITIONS,
    "examples/transpositions.cypher",
    ["player"]
);
statement!(
    EX_DEVIATIONS,
    "examples/deviations.cypher",
    ["player", "minGames"]
);
statement!(
    EX_SLOW,
    "examples/slow_positions.cypher",
    ["player", "timeClass", "minGames", "limit"]
);

/// Every statement, for the parameter check.
pub const STATEMENTS: &[Statement] = &[
    SCHEMA,
    INGESTED,
    WRITE_BEGIN,
    WRITE_GAMES,
    WRITE_POSITIONS,
    WRITE_EDGES,
    WRITE_NEW_EDGES,
    WRITE_NEW_TOTALS,
    WRITE_MOVE_TOTALS,
    WRITE_TOTALS,
    PLAYER_VERSION,
    MOVES,
    MOVES_TOTALS,
    EDGES,
    GAMES,
    RECENT_SPANS,
    GAMES_IN_SPANS,
    GAME,
    POSITION_EPD,
    EVALUATIONS,
    WRITE_EVALUATIONS,
    CLAIM_ANALYSIS,
    PLAYERS,
    COUNTS,
    POSITION_COUNT,
    FETCH_GET,
    FETCH_SET,
    ACCOUNTS,
    ACCOUNT_ADD,
    DRILL_RECORDS,
    WRITE_DRILL_RECORDS,
    TEST_WIPE,
    BENCH_SEED_MOVE,
    EX_MOST_PLAYED,
    EX_WORST,
    EX_TRANSPOSITIONS,
    EX_DEVIATIONS,
    EX_SLOW,
];

/// The `$parameters` a statement's text uses (comments ignored), sorted and unique.
pub fn used_params(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find('$') {
            let name: String = rest[i + 1..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && !out.contains(&name) {
                out.push(name.clone());
            }
            rest = &rest[i + 1 + name.len()..];
        }
    }
    out.sort();
    out
}

impl Statement {
    /// A query with exactly the declared parameters (anything else is an error, so code
    /// and file cannot drift apart unnoticed).
    pub fn query(&self, args: Vec<(&'static str, BoltType)>) -> Result<Query> {
        let mut given: Vec<&str> = args.iter().map(|(k, _)| *k).collect();
        given.sort_unstable();
        let mut declared: Vec<&str> = self.params.to_vec();
        declared.sort_unstable();
        if given != declared {
            return Err(StoreError::StatementParams {
                file: self.file.to_string(),
                given: given.iter().map(ToString::to_string).collect(),
                declared: declared.iter().map(ToString::to_string).collect(),
            });
        }
        let mut q = neo4rs::query(self.text);
        for (k, v) in args {
            q = q.param(k, v);
        }
        Ok(q)
    }
}

/// Connection settings. The password is never printed (`Debug` hides it).
#[derive(Clone)]
pub struct Neo4jConfig {
    /// Bolt URI, e.g. `bolt://localhost:7687` (`MIRROR_NEO4J_URI`).
    pub uri: String,
    /// User (`MIRROR_NEO4J_USER`, default `neo4j`).
    pub user: String,
    /// Password (`MIRROR_NEO4J_PASSWORD`; empty when the server has auth off).
    pub password: String,
    /// Rows per `UNWIND` statement.
    pub batch_rows: usize,
    /// Retries of a transient failure (with exponential backoff from 100 ms).
    pub retries: u32,
    /// Bolt connections kept open at most (concurrent requests wait for one).
    pub max_connections: usize,
}

impl std::fmt::Debug for Neo4jConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Neo4jConfig")
            .field("uri", &self.uri)
            .field("user", &self.user)
            .field("password", &"<hidden>")
            .field("batch_rows", &self.batch_rows)
            .field("retries", &self.retries)
            .field("max_connections", &self.max_connections)
            .finish()
    }
}

impl Neo4jConfig {
    /// Settings for `uri` with the defaults: user `neo4j`, no password.
    pub fn new(uri: impl Into<String>) -> Neo4jConfig {
        Neo4jConfig {
            uri: uri.into(),
            user: "neo4j".into(),
            password: String::new(),
            batch_rows: 5000,
            retries: 4,
            max_connections: 32,
        }
    }

    /// From `MIRROR_NEO4J_URI`, `MIRROR_NEO4J_USER`, `MIRROR_NEO4J_PASSWORD`; `None` when
    /// no URI is set.
    pub fn from_env() -> Option<Neo4jConfig> {
        let uri = std::env::var("MIRROR_NEO4J_URI")
            .ok()
            .filter(|u| !u.is_empty())?;
        let mut cfg = Neo4jConfig::new(uri);
        if let Ok(user) = std::env::var("MIRROR_NEO4J_USER")
            && !user.is_empty()
        {
            cfg.user = user;
        }
        cfg.password = std::env::var("MIRROR_NEO4J_PASSWORD").unwrap_or_default();
        Some(cfg)
    }
}

/// The Neo4j store.
pub struct Neo4jStore {
    graph: Graph,
    /// Always `Some` until drop (taken there to shut it down without blocking).
    rt: Option<tokio::runtime::Runtime>,
    cfg: Neo4jConfig,
    /// The most games one write transaction carries: unbounded until the server refuses a
    /// transaction for its memory, then half of what it refused (see
    /// [`Neo4jStore::games_per_transaction`]).
    games_per_txn: std::sync::atomic::AtomicUsize,
}

impl Drop for Neo4jStore {
    fn drop(&mut self) {
        // The store may be dropped inside an async context (a server shutting down), where
        // a runtime must not block while it stops.
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

impl std::fmt::Debug for Neo4jStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Neo4jStore")
            .field("cfg", &self.cfg)
            .finish()
    }
}

/// Games of a position's days read at most when looking for its recent games (the bound
/// [`GraphRead::recent_games`] allows).
const RECENT_MAX: usize = 2000;

/// Spans of days at most passed to `games_in_spans.cypher`; more are joined into one.
const MAX_SPANS: usize = 32;

/// Date spans sorted and merged where they overlap or touch; more than [`MAX_SPANS`] become
/// the one span from the earliest to the latest day. An unknown first day (0) starts at
/// the beginning.
fn merge_spans(mut spans: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    for s in &mut spans {
        s.1 = s.1.max(s.0);
    }
    spans.sort_unstable();
    let mut out: Vec<(i64, i64)> = Vec::with_capacity(spans.len());
    for (a, b) in spans {
        match out.last_mut() {
            Some(last) if a <= last.1.saturating_add(1) => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    if out.len() > MAX_SPANS {
        let lo = out.first().map_or(0, |s| s.0);
        let hi = out.last().map_or(0, |s| s.1);
        out = vec![(lo, hi)];
    }
    out
}

/// How long a read may wait for the server's first answer.
const READ_START_TIMEOUT: Duration = Duration::from_secs(10);

/// Why one attempt at a transaction failed: the driver (maybe worth another attempt) or
/// mirror's own reasons (final).
enum TxnError {
    Driver(neo4rs::Error),
    Store(StoreError),
}

impl From<neo4rs::Error> for TxnError {
    fn from(e: neo4rs::Error) -> TxnError {
        TxnError::Driver(e)
    }
}

impl From<StoreError> for TxnError {
    fn from(e: StoreError) -> TxnError {
        TxnError::Store(e)
    }
}

/// The code of Neo4j's answer to `CREATE ... IF NOT EXISTS` when another transaction
/// created the same rule after this one looked for it.
const SCHEMA_RULE_RACED: &str = "Neo.ClientError.Schema.EquivalentSchemaRuleAlreadyExists";

/// Whether another attempt may succeed: the server said so (`Neo.TransientError.*`:
/// deadlocks, lock timeouts, a database starting), or the connection failed (the server
/// restarting, or gone; a lost reply). Everything else (syntax, constraints, credentials)
/// fails the same way again.
fn is_transient(e: &neo4rs::Error) -> bool {
    match e {
        neo4rs::Error::IOError { .. } | neo4rs::Error::ConnectionError => true,
        _ => failure_code(e).is_some_and(|code| {
            code.starts_with("Neo.TransientError.")
                && code != "Neo.TransientError.Transaction.Terminated"
        }),
    }
}

/// The status code of the server's refusal: a failed statement's, or a failed `COMMIT`'s,
/// which neo4rs 0.8 hands over as the text of the server's message (its `code` field a
/// quoted `Neo.` string).
fn failure_code(e: &neo4rs::Error) -> Option<&str> {
    match e {
        neo4rs::Error::Neo4j(n) => Some(n.code()),
        neo4rs::Error::UnexpectedMessage(text) => {
            let from = text.find("\"Neo.")? + 1;
            let rest = &text[from..];
            Some(&rest[..rest.find('"')?])
        }
        _ => None,
    }
}

/// The codes with which Neo4j refuses a transaction for the memory it needs: the
/// transactions' shared pool (`dbms.memory.transaction.total.max`, by default 70% of the
/// heap), one transaction's bound (`db.memory.transaction.max`), or the heap itself.
const MEMORY_CODES: [&str; 3] = [
    "Neo.TransientError.General.MemoryPoolOutOfMemoryError",
    "Neo.ClientError.General.TransactionOutOfMemoryError",
    "Neo.TransientError.General.OutOfMemoryError",
];

/// Whether the server refused a transaction for its memory: the same transaction would
/// fail again, a smaller one may pass.
fn is_memory_error(e: &neo4rs::Error) -> bool {
    failure_code(e).is_some_and(|code| MEMORY_CODES.contains(&code))
}

fn is_auth_failure(e: &neo4rs::Error) -> bool {
    match e {
        neo4rs::Error::AuthenticationError(_) => true,
        neo4rs::Error::Neo4j(n) => n.code().starts_with("Neo.ClientError.Security."),
        _ => false,
    }
}

fn de(e: neo4rs::DeError) -> StoreError {
    StoreError::Corrupt(format!("neo4j row: {e}"))
}

/// `write_evaluations.cypher`'s rows: [key, kind, value (text), best, depth, engine, source].
fn evaluation_rows(evals: &[(PositionKey, Evaluation)]) -> Vec<BoltType> {
    use mirror_core::evaluation::EvalScore;
    evals
        .iter()
        .map(|(k, e)| {
            let (kind, value) = match e.score {
                EvalScore::Cp(c) => ("cp", c),
                EvalScore::Mate(m) => ("mate", m),
            };
            let source = e.source.as_str();
            let row: Vec<BoltType> = vec![
                key_param(*k).into(),
                kind.into(),
                value.to_string().into(),
                e.best.clone().unwrap_or_default().into(),
                i64::from(e.depth).into(),
                e.engine.clone().into(),
                source.into(),
            ];
            BoltType::from(row)
        })
        .collect()
}

/// Position keys are u64; Neo4j integers are i64: the bits are kept.
pub fn key_param(k: PositionKey) -> i64 {
    k.0 as i64
}

fn key_of(v: i64) -> PositionKey {
    PositionKey(v as u64)
}

use mirror_core::codec::color_name;

fn color_of(name: &str) -> Result<Color> {
    mirror_core::codec::color_from_name(name)
        .ok_or_else(|| StoreError::Corrupt(format!("neo4j: colour {name:?}")))
}

/// A stored integer that must fit the Rust type.
fn int<T: TryFrom<i64>>(row: &Row, key: &str) -> Result<T> {
    let v: i64 = row.get(key).map_err(de)?;
    T::try_from(v).map_err(|_| StoreError::Corrupt(format!("neo4j: {key} = {v} out of range")))
}

/// One `UNWIND $rows` row of [`WRITE_EDGES`], before conversion to Bolt.
#[derive(Clone, Debug, PartialEq)]
pub struct EdgeParams {
    /// Player (lower-cased).
    pub player: String,
    /// From-position key.
    pub from: i64,
    /// To-position key.
    pub to: i64,
    /// Move in UCI.
    pub uci: String,
    /// Player's colour.
    pub color: &'static str,
    /// Time class.
    pub tc: &'static str,
    /// Rated.
    pub rated: bool,
    /// `YYYY-MM`, or empty when unknown (MERGE cannot match on null).
    pub month: String,
    /// The opponent's rating, 0 when unknown.
    pub opp: i64,
    /// Where the games were played (`chesscom`, `lichess`, `otb`).
    pub src: &'static str,
    /// Statistics.
    pub stats: MoveStats,
    /// The row's key, unique in the graph ([`row_key`]).
    pub row: String,
}

/// The key of one edge row of `player` (lower-cased): the player, then the from-position,
/// move, flags (colour, rated, time class, source), month and opponent's rating as
/// fixed-width hexadecimal, so that two rows share a key exactly when they are one row.
pub fn row_key(player: &str, pos: PositionKey, mv: MoveCode, dims: &EdgeDims) -> String {
    format!(
        "{player}/{:016x}{:04x}{:02x}{:04x}{:04x}",
        pos.0,
        mv.0,
        dims.flags(),
        dims.month.map_or(0, Month::to_u16),
        dims.opponent_rating.unwrap_or(0)
    )
}

/// The edge rows of a batch, one per edge key.
pub fn edge_params(player: &str, batch: &Batch) -> Vec<EdgeParams> {
    let mut rows: Vec<EdgeParams> = batch
        .edges()
        .iter()
        .map(|(k, d)| EdgeParams {
            player: player.to_string(),
            from: key_param(k.pos),
            to: key_param(d.child),
            uci: k.mv.to_string(),
            color: color_name(k.dims.color),
            tc: k.dims.time_class.as_str(),
            rated: k.dims.rated,
            month: k.dims.month.map(|m| m.to_string()).unwrap_or_default(),
            opp: i64::from(k.dims.opponent_rating.unwrap_or(0)),
            src: k.dims.source.as_str(),
            stats: d.stats,
            row: row_key(player, k.pos, k.mv, &k.dims),
        })
        .collect();
    rows.sort_by(|a, b| {
        (
            a.from, &a.uci, a.color, a.tc, a.rated, &a.month, a.opp, a.src,
        )
            .cmp(&(
                b.from, &b.uci, b.color, b.tc, b.rated, &b.month, b.opp, b.src,
            ))
    });
    rows
}

/// The order of an edge row's fields in the `UNWIND $rows` lists of
/// `write_new_edges.cypher` and `write_edges.cypher` (the player is a separate parameter).
pub const EDGE_ROW_FIELDS: [&str; 20] = [
    "from",
    "to",
    "uci",
    "color",
    "tc",
    "rated",
    "month",
    "w",
    "d",
    "l",
    "ratingSum",
    "ratedGames",
    "first",
    "last",
    "opp",
    "src",
    "row",
    "timed",
    "timeMs",
    "trouble",
];

impl EdgeParams {
    /// The row as a list in [`EDGE_ROW_FIELDS`] order, its two positions given as the
    /// element ids of the player's nodes (`from`, `to`: what `write_positions` returned).
    pub fn to_bolt(&self, from: BoltType, to: BoltType) -> BoltType {
        let row: Vec<BoltType> = vec![
            from,
            to,
            self.uci.clone().into(),
            self.color.into(),
            self.tc.into(),
            self.rated.into(),
            self.month.clone().into(),
            i64::from(self.stats.wins).into(),
            i64::from(self.stats.draws).into(),
            i64::from(self.stats.losses).into(),
            (self.stats.rating_sum as i64).into(),
            i64::from(self.stats.rated_games).into(),
            i64::from(self.stats.first).into(),
            i64::from(self.stats.last).into(),
            self.opp.into(),
            self.src.into(),
            self.row.clone().into(),
            i64::from(self.stats.timed).into(),
            (self.stats.time_ms as i64).into(),
            i64::from(self.stats.trouble).into(),
        ];
        row.into()
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

fn decode_record(hex_text: &str) -> Result<GameRecord> {
    let bytes =
        unhex(hex_text).ok_or_else(|| StoreError::Corrupt("game record is not hex".into()))?;
    GameRecord::decode(&bytes).map_err(|e| StoreError::Corrupt(e.to_string()))
}

fn dims_of(
    color: &str,
    tc: &str,
    rated: bool,
    month: &str,
    opp: i64,
    src: &str,
) -> Result<EdgeDims> {
    let opponent_rating = u16::try_from(opp)
        .map_err(|_| StoreError::Corrupt(format!("neo4j: opponent rating {opp}")))?;
    Ok(EdgeDims {
        color: color_of(color)?,
        time_class: tc
            .parse::<TimeClass>()
            .map_err(|e| StoreError::Corrupt(format!("neo4j: time class {tc:?}: {e}")))?,
        rated,
        month: if month.is_empty() {
            None
        } else {
            Some(
                month
                    .parse::<Month>()
                    .map_err(|e| StoreError::Corrupt(format!("neo4j: month {month:?}: {e}")))?,
            )
        },
        opponent_rating: (opponent_rating != 0).then_some(opponent_rating),
        source: src
            .parse()
            .map_err(|e| StoreError::Corrupt(format!("neo4j: source {src:?}: {e}")))?,
    })
}

fn move_of(uci: &str) -> Result<MoveCode> {
    uci.parse::<shakmaty::uci::UciMove>()
        .ok()
        .and_then(|u| MoveCode::from_uci(&u).ok())
        .ok_or_else(|| StoreError::Corrupt(format!("neo4j: move {uci:?}")))
}

/// The statistics columns (`w`, `d`, `l`, `ratingSum`, `ratedGames`, `first`, `last`,
/// `timed`, `timeMs`, `trouble`) of an edge or move row.
fn stats_of(row: &Row) -> Result<MoveStats> {
    Ok(MoveStats {
        wins: int(row, "w")?,
        draws: int(row, "d")?,
        losses: int(row, "l")?,
        rating_sum: int(row, "ratingSum")?,
        rated_games: int(row, "ratedGames")?,
        first: int(row, "first")?,
        last: int(row, "last")?,
        timed: int(row, "timed")?,
        time_ms: int(row, "timeMs")?,
        trouble: int(row, "trouble")?,
    })
}

fn edge_of(row: &Row) -> Result<EdgeRow> {
    let uci: String = row.get("uci").map_err(de)?;
    let mv = move_of(&uci)?;
    let color: String = row.get("color").map_err(de)?;
    let tc: String = row.get("tc").map_err(de)?;
    let rated: bool = row.get("rated").map_err(de)?;
    let month: String = row.get("month").map_err(de)?;
    let src: String = row.get("src").map_err(de)?;
    Ok(EdgeRow {
        pos: key_of(row.get("from").map_err(de)?),
        mv,
        dims: dims_of(
            &color,
            &tc,
            rated,
            &month,
            row.get("opp").map_err(de)?,
            &src,
        )?,
        stats: stats_of(row)?,
        child: key_of(row.get("to").map_err(de)?),
    })
}

/// The rows of `moves.cypher` or `moves_totals.cypher` by the position they leave, each
/// position's most played first.
fn moves_by_position(rows: &[Row]) -> Result<HashMap<PositionKey, Vec<MoveRow>>> {
    let mut out: HashMap<PositionKey, Vec<MoveRow>> = HashMap::new();
    for row in rows {
        let uci: String = row.get("uci").map_err(de)?;
        let from = key_of(row.get("from").map_err(de)?);
        out.entry(from).or_default().push(MoveRow {
            mv: move_of(&uci)?,
            stats: stats_of(row)?,
            child: key_of(row.get("to").map_err(de)?),
        });
    }
    for moves in out.values_mut() {
        sort_moves(moves);
    }
    Ok(out)
}

/// Position keys as a Cypher list parameter.
fn key_list(keys: &[PositionKey]) -> BoltType {
    keys.iter()
        .map(|&k| BoltType::from(key_param(k)))
        .collect::<Vec<_>>()
        .into()
}

/// The statements of `cypher/schema.cypher`: comment lines dropped, split at `;`.
fn schema_statements() -> Vec<String> {
    let code: String = SCHEMA
        .text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    code.split(';')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// The rows a query returns, read to the end inside the transaction.
async fn collect(txn: &mut neo4rs::Txn, q: Query) -> neo4rs::Result<Vec<Row>> {
    let mut stream = txn.execute(q).await?;
    let mut out = Vec::new();
    while let Some(row) = stream.next(txn.handle()).await? {
        out.push(row);
    }
    Ok(out)
}

/// The one row a statement that aggregates (`RETURN count(...)`, `collect(...)`) returns.
fn one_row<'r>(rows: &'r [Row], file: &str) -> Result<&'r Row> {
    match rows {
        [row] => Ok(row),
        _ => Err(StoreError::Corrupt(format!(
            "neo4j: cypher/{file} returned {} rows, expected one",
            rows.len()
        ))),
    }
}

impl Neo4jStore {
    /// Connects and sets up constraints and indexes (idempotent). Wrong credentials fail at
    /// once; a server that cannot be reached fails after the configured retries.
    pub fn connect(cfg: Neo4jConfig) -> Result<Neo4jStore> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("mirror-neo4j")
            .enable_all()
            .build()
            .map_err(|e| StoreError::Database {
                what: "cannot start the Neo4j client's runtime".into(),
                source: Box::new(e),
            })?;
        let config = ConfigBuilder::default()
            .uri(cfg.uri.clone())
            .user(cfg.user.clone())
            .password(cfg.password.clone())
            .fetch_size(10_000)
            .max_connections(cfg.max_connections.max(1))
            .build()
            .map_err(|e| StoreError::Database {
                what: format!("invalid Neo4j settings for {}", cfg.uri),
                source: Box::new(e),
            })?;
        // Creating the pool opens no connection; the schema below is the first contact.
        let graph = rt
            .block_on(Graph::connect(config))
            .map_err(|e| StoreError::Database {
                what: format!("cannot connect to Neo4j at {}", cfg.uri),
                source: Box::new(e),
            })?;
        let store = Neo4jStore {
            graph,
            rt: Some(rt),
            cfg,
            games_per_txn: std::sync::atomic::AtomicUsize::new(usize::MAX),
        };
        for stmt in schema_statements() {
            store.run_schema(&stmt)?;
        }
        store.check_version()?;
        Ok(store)
    }

    /// Runs one statement of `cypher/schema.cypher` (each `IF NOT EXISTS`). Two clients
    /// that set up a new graph at once (two `mirror serve`, or an ingest beside a server)
    /// may both find a rule missing; the second to create it is refused with
    /// `EquivalentSchemaRuleAlreadyExists`, which means the rule is there as asked.
    fn run_schema(&self, stmt: &str) -> Result<()> {
        self.transaction("set up the schema", |mut txn| {
            let q = neo4rs::query(stmt);
            async move {
                match txn.run(q).await {
                    Ok(()) => {}
                    Err(neo4rs::Error::Neo4j(n)) if n.code() == SCHEMA_RULE_RACED => {
                        return Ok(());
                    }
                    Err(e) => return Err(e.into()),
                }
                match txn.commit().await {
                    Err(neo4rs::Error::Neo4j(n)) if n.code() == SCHEMA_RULE_RACED => Ok(()),
                    other => Ok(other?),
                }
            }
        })
    }

    /// Fails on a graph written by another schema version; marks a graph without moves
    /// (a new one) with this version.
    fn check_version(&self) -> Result<()> {
        let rows = self.rows("read the schema version", SCHEMA_VERSION.query(vec![])?)?;
        let row = rows
            .first()
            .ok_or_else(|| StoreError::Corrupt("neo4j: no schema version row".into()))?;
        let version: Option<i64> = row.get("version").map_err(de)?;
        let has_moves: bool = row.get("hasMoves").map_err(de)?;
        let mismatch = |found: i64| StoreError::SchemaMismatch {
            path: self.cfg.uri.clone().into(),
            found: u64::try_from(found).unwrap_or(0),
            expected: GRAPH_SCHEMA_VERSION as u64,
        };
        match version {
            Some(v) if v == GRAPH_SCHEMA_VERSION => Ok(()),
            Some(v) => Err(mismatch(v)),
            None if has_moves => Err(mismatch(0)),
            None => self.run(
                "mark the schema version",
                SCHEMA_VERSION_SET.query(vec![("version", GRAPH_SCHEMA_VERSION.into())])?,
            ),
        }
    }

    fn rt(&self) -> &tokio::runtime::Runtime {
        self.rt
            .as_ref()
            .expect("the runtime is only taken when the store is dropped")
    }

    /// The URI this store talks to (never the password), for messages.
    pub fn uri(&self) -> &str {
        &self.cfg.uri
    }

    /// Runs `attempt` in a fresh transaction until it succeeds, fails for good, or the
    /// retries of transient failures are used up. `attempt` commits (or rolls back) itself;
    /// a transaction dropped after a failure is rolled back by the server, and its
    /// connection is reset before reuse (neo4rs 0.8 cannot read the IGNORED replies that
    /// follow a failure inside a transaction, so nothing more is sent on it).
    fn transaction<T, F, Fut>(&self, what: &str, attempt: F) -> Result<T>
    where
        F: Fn(neo4rs::Txn) -> Fut,
        Fut: Future<Output = std::result::Result<T, TxnError>>,
    {
        let mut wait = Duration::from_millis(100);
        let mut attempts = 0u32;
        loop {
            attempts += 1;
            let outcome = self.rt().block_on(async {
                let txn = self.graph.start_txn().await?;
                attempt(txn).await
            });
            match outcome {
                Ok(v) => return Ok(v),
                Err(TxnError::Store(e)) => return Err(e),
                Err(TxnError::Driver(e)) if is_memory_error(&e) => {
                    return Err(StoreError::TooLarge {
                        what: format!(
                            "Neo4j at {} has not the memory to {what} in one transaction",
                            self.cfg.uri
                        ),
                        source: Box::new(e),
                    });
                }
                Err(TxnError::Driver(e)) => {
                    if !is_transient(&e) || attempts > self.cfg.retries {
                        return Err(self.server_error(what, attempts, e));
                    }
                    std::thread::sleep(wait);
                    wait = (wait * 2).min(Duration::from_secs(5));
                }
            }
        }
    }

    fn server_error(&self, what: &str, attempts: u32, e: neo4rs::Error) -> StoreError {
        let uri = &self.cfg.uri;
        let what = if is_auth_failure(&e) {
            format!(
                "Neo4j at {uri} refused the credentials of user {:?} (check MIRROR_NEO4J_USER \
                 and MIRROR_NEO4J_PASSWORD) while trying to {what}",
                self.cfg.user
            )
        } else if failure_code(&e).is_some() && is_transient(&e) {
            format!("cannot {what}: Neo4j at {uri} refused it {attempts} time(s)")
        } else if is_transient(&e) {
            format!(
                "cannot {what}: Neo4j at {uri} did not answer after {attempts} attempt(s) \
                 (is the server running?)"
            )
        } else {
            format!("cannot {what} in Neo4j at {uri}")
        };
        StoreError::Database {
            what,
            source: Box::new(e),
        }
    }

    /// Every row of a read-only query, in an auto-commit transaction: two round trips
    /// instead of four (`bench serve --store neo4j`: p99 111 ms -> 58 ms). neo4rs retries a
    /// connection that cannot be opened for up to a minute; the answer must start within
    /// [`READ_START_TIMEOUT`] or the read fails, naming the server.
    /// The player's games as they arrive, each with its date key and the player's colour.
    fn each_game(
        &self,
        player: &str,
        each: &mut dyn FnMut(i64, GameRecord, Color) -> Result<()>,
    ) -> Result<()> {
        let key = player_key(player)?;
        self.each_row(
            "read the player's games",
            GAMES.query(vec![("player", key.into()), ("limit", i64::MAX.into())])?,
            &mut |r| {
                let rec = decode_record(&r.get::<String>("record").map_err(de)?)?;
                let color: String = r.get("color").map_err(de)?;
                let date: i64 = r.get("date").map_err(de)?;
                each(date, rec, color_of(&color)?)
            },
        )
    }

    fn rows(&self, what: &str, q: Query) -> Result<Vec<Row>> {
        let mut out = Vec::new();
        self.each_row(what, q, &mut |row| {
            out.push(row);
            Ok(())
        })?;
        Ok(out)
    }

    /// Runs one read statement and hands its rows to `each` as they arrive (a reader that
    /// keeps what it needs of each row need not hold them all: neo4rs's rows of a big
    /// player's 1.9 million edges took 8 GB).
    fn each_row(
        &self,
        what: &str,
        q: Query,
        each: &mut dyn FnMut(Row) -> Result<()>,
    ) -> Result<()> {
        let uri = &self.cfg.uri;
        self.rt().block_on(async {
            let started = tokio::time::timeout(READ_START_TIMEOUT, self.graph.execute(q)).await;
            let mut stream = match started {
                Ok(s) => s.map_err(|e| self.server_error(what, 1, e))?,
                Err(elapsed) => {
                    return Err(StoreError::Database {
                        what: format!(
                            "cannot {what}: Neo4j at {uri} did not answer within {} s \
                             (is the server running?)",
                            READ_START_TIMEOUT.as_secs()
                        ),
                        source: Box::new(elapsed),
                    });
                }
            };
            while let Some(row) = stream
                .next()
                .await
                .map_err(|e| self.server_error(what, 1, e))?
            {
                each(row)?;
            }
            Ok(())
        })
    }

    /// Runs one statement that returns nothing.
    fn run(&self, what: &str, q: Query) -> Result<()> {
        self.transaction(what, |mut txn| {
            let q = q.clone();
            async move {
                txn.run(q).await?;
                txn.commit().await?;
                Ok(())
            }
        })
    }

    /// Runs one of the example queries and returns its rows.
    pub fn example(
        &self,
        stmt: Statement,
        args: Vec<(&'static str, BoltType)>,
    ) -> Result<Vec<Row>> {
        self.rows(&format!("run cypher/{}", stmt.file), stmt.query(args)?)
    }

    /// One attempt at writing a batch: lock the player, check, write, commit.
    /// One transaction writing the batches of `players` (key, display name, parameters)
    /// in turn; rolled back when a game is already recorded for its player.
    async fn write_txn(
        &self,
        mut txn: neo4rs::Txn,
        players: &[(String, &str, BatchParams)],
    ) -> std::result::Result<WriteReport, TxnError> {
        let mut total = WriteReport::default();
        for (key, display, params) in players {
            match self.write_player(&mut txn, key, display, params).await {
                Ok(report) => total.add(&report),
                Err(TxnError::Store(e @ StoreError::AlreadyIngested(_))) => {
                    txn.rollback().await?;
                    return Err(e.into());
                }
                Err(e) => return Err(e),
            }
        }
        txn.commit().await?;
        Ok(total)
    }

    /// One player's batch, written in `txn` (not committed).
    async fn write_player(
        &self,
        txn: &mut neo4rs::Txn,
        key: &str,
        display: &str,
        params: &BatchParams,
    ) -> std::result::Result<WriteReport, TxnError> {
        let present = collect(
            txn,
            WRITE_BEGIN.query(vec![
                ("player", key.into()),
                ("display", display.into()),
                ("ids", params.ids.clone().into()),
            ])?,
        )
        .await?;
        if !present.is_empty() {
            let ids = present
                .iter()
                .map(|r| r.get::<String>("id").map(GameId).map_err(de))
                .collect::<Result<Vec<_>>>()?;
            return Err(StoreError::AlreadyIngested(ids).into());
        }
        txn.run(WRITE_GAMES.query(vec![
            ("player", key.into()),
            ("games", params.games.clone().into()),
        ])?)
        .await?;
        let mut report = WriteReport {
            games: params.ids.len() as u64,
            ..WriteReport::default()
        };
        let nodes = self.write_positions(txn, key, params).await?;
        report.new_positions = nodes.new_positions;
        report.new_edges = self.write_rows(txn, params, &nodes).await?;
        if !params.evals.is_empty() {
            // The games' [%eval] comments, on the positions just written.
            txn.run(WRITE_EVALUATIONS.query(vec![("rows", params.evals.clone().into())])?)
                .await?;
        }
        let as_int = |n: u64| {
            i64::try_from(n).map_err(|_| StoreError::Corrupt(format!("count {n} too large")))
        };
        txn.run(WRITE_TOTALS.query(vec![
            ("player", key.into()),
            ("games", as_int(report.games)?.into()),
            ("edgeRows", as_int(report.new_edges)?.into()),
        ])?)
        .await?;
        Ok(report)
    }

    /// The batch's positions: those new to the graph (counted), the player's own nodes new
    /// to the player (the rows and totals leaving those cannot exist yet), and every
    /// position's node.
    async fn write_positions(
        &self,
        txn: &mut neo4rs::Txn,
        key: &str,
        params: &BatchParams,
    ) -> std::result::Result<Nodes, TxnError> {
        let mut new_positions = 0;
        let mut mine: rustc_hash::FxHashSet<i64> = rustc_hash::FxHashSet::default();
        let mut node: rustc_hash::FxHashMap<i64, String> = rustc_hash::FxHashMap::default();
        for chunk in params.positions.chunks(self.cfg.batch_rows.max(1)) {
            let rows = collect(
                txn,
                WRITE_POSITIONS.query(vec![
                    ("player", key.into()),
                    ("positions", chunk.to_vec().into()),
                ])?,
            )
            .await?;
            let row = one_row(&rows, WRITE_POSITIONS.file)?;
            let created: Vec<i64> = row.get("created").map_err(de)?;
            new_positions += created.len() as u64;
            let keys: Vec<i64> = row.get("mine").map_err(de)?;
            mine.extend(keys);
            let ids: Vec<(i64, String)> = row.get("ids").map_err(de)?;
            node.extend(ids);
        }
        Ok(Nodes {
            new_positions,
            mine,
            node,
        })
    }

    /// The batch's edge rows and move totals, from the nodes of [`Self::write_positions`]
    /// (the player's nodes new in this batch have no rows yet); returns the new edge rows.
    async fn write_rows(
        &self,
        txn: &mut neo4rs::Txn,
        params: &BatchParams,
        nodes: &Nodes,
    ) -> std::result::Result<u64, TxnError> {
        let (mine, node) = (&nodes.mine, &nodes.node);
        let mut new_edges = 0;
        let node_of = |k: i64| -> Result<BoltType> {
            node.get(&k).map(|id| id.clone().into()).ok_or_else(|| {
                StoreError::Corrupt(format!(
                    "neo4j: cypher/{} gave no node for position {k}",
                    WRITE_POSITIONS.file
                ))
            })
        };
        let mut new_rows: Vec<BoltType> = Vec::new();
        let mut old_rows: Vec<BoltType> = Vec::new();
        for e in &params.edges {
            let row = e.to_bolt(node_of(e.from)?, node_of(e.to)?);
            if mine.contains(&e.from) {
                new_rows.push(row);
            } else {
                old_rows.push(row);
            }
        }
        for chunk in new_rows.chunks(self.cfg.batch_rows.max(1)) {
            txn.run(WRITE_NEW_EDGES.query(vec![("rows", chunk.to_vec().into())])?)
                .await?;
            new_edges += chunk.len() as u64;
        }
        for chunk in old_rows.chunks(self.cfg.batch_rows.max(1)) {
            let rows = collect(
                txn,
                WRITE_EDGES.query(vec![("rows", chunk.to_vec().into())])?,
            )
            .await?;
            new_edges += int::<u64>(one_row(&rows, WRITE_EDGES.file)?, "created")?;
        }
        let mut new_totals: Vec<BoltType> = Vec::new();
        let mut old_totals: Vec<BoltType> = Vec::new();
        for (from, to, rest) in &params.totals {
            let mut row = vec![node_of(*from)?, node_of(*to)?];
            row.extend(rest.iter().cloned());
            if mine.contains(from) {
                new_totals.push(row.into());
            } else {
                old_totals.push(row.into());
            }
        }
        for (stmt, part) in [
            (WRITE_NEW_TOTALS, new_totals),
            (WRITE_MOVE_TOTALS, old_totals),
        ] {
            for chunk in part.chunks(self.cfg.batch_rows.max(1)) {
                txn.run(stmt.query(vec![("rows", chunk.to_vec().into())])?)
                    .await?;
            }
        }
        Ok(new_edges)
    }
}

/// What `write_positions.cypher` gave for a batch's positions.
struct Nodes {
    /// Positions new to the graph.
    new_positions: u64,
    /// Positions whose player's node is new in this batch.
    mine: rustc_hash::FxHashSet<i64>,
    /// Each position's node (its element id).
    node: rustc_hash::FxHashMap<i64, String>,
}

/// A batch converted to Bolt parameters once, for every attempt (but for the positions of
/// the rows and totals: the element ids of the player's nodes, known once
/// `write_positions` has run in the attempt's transaction).
struct BatchParams {
    ids: Vec<BoltType>,
    games: Vec<BoltType>,
    positions: Vec<BoltType>,
    /// Edge rows, in edge-key order.
    edges: Vec<EdgeParams>,
    /// Move totals (`PLAYED`) of the positions that keep them, in (position, move,
    /// colour) order: from- and to-position keys and the other fields of
    /// `write_new_totals.cypher`'s rows.
    totals: Vec<(i64, i64, Vec<BoltType>)>,
    /// The evaluations the games' comments gave (`write_evaluations.cypher`'s rows).
    evals: Vec<BoltType>,
}

/// One move total of a batch: the player's colour, the child position and the statistics.
pub type MoveTotal = (Color, PositionKey, MoveStats);

/// A batch's move totals: its edge rows of positions with at least
/// [`TOTAL_MIN_PIECES`](crate::TOTAL_MIN_PIECES) pieces summed per (position, move,
/// colour), in key order (what `PLAYED` keeps); the key's colour is its bit
/// ([`mirror_core::codec::color_bit`]).
pub fn move_totals(batch: &Batch) -> BTreeMap<(PositionKey, MoveCode, u8), MoveTotal> {
    let mut out: BTreeMap<(PositionKey, MoveCode, u8), MoveTotal> = BTreeMap::new();
    for (k, d) in batch.edges() {
        if d.pieces < crate::TOTAL_MIN_PIECES {
            continue;
        }
        let bit = mirror_core::codec::color_bit(k.dims.color);
        out.entry((k.pos, k.mv, bit))
            .or_insert_with(|| (k.dims.color, d.child, MoveStats::default()))
            .2
            .merge(&d.stats);
    }
    out
}

impl BatchParams {
    fn new(key: &str, batch: &Batch) -> Result<BatchParams> {
        let ids = batch
            .games()
            .iter()
            .map(|(g, _)| g.id.0.clone().into())
            .collect();
        let games = batch
            .games()
            .iter()
            .map(|(g, c)| {
                let mut m: HashMap<String, BoltType> = HashMap::new();
                m.insert("id".into(), g.id.0.clone().into());
                m.insert("record".into(), hex(&g.encode()).into());
                m.insert("color".into(), color_name(*c).into());
                m.insert(
                    "date".into(),
                    i64::from(g.date.map_or(0, |d| d.to_u32())).into(),
                );
                m.into()
            })
            .collect();
        let positions = batch
            .positions()
            .map(|(k, packed)| {
                let epd = unpack_epd(packed).ok_or_else(|| {
                    StoreError::Corrupt(format!("position {k:?} of the batch cannot be unpacked"))
                })?;
                let row: Vec<BoltType> = vec![key_param(k).into(), epd.into()];
                Ok(row.into())
            })
            .collect::<Result<Vec<BoltType>>>()?;
        let edges = edge_params(key, batch);
        let totals = move_totals(batch)
            .into_iter()
            .map(|((pos, mv, _), (color, child, s))| {
                let rest: Vec<BoltType> = vec![
                    mv.to_string().into(),
                    color_name(color).into(),
                    i64::from(s.wins).into(),
                    i64::from(s.draws).into(),
                    i64::from(s.losses).into(),
                    (s.rating_sum as i64).into(),
                    i64::from(s.rated_games).into(),
                    i64::from(s.first).into(),
                    i64::from(s.last).into(),
                    i64::from(s.timed).into(),
                    (s.time_ms as i64).into(),
                    i64::from(s.trouble).into(),
                ];
                (key_param(pos), key_param(child), rest)
            })
            .collect();
        Ok(BatchParams {
            ids,
            games,
            positions,
            edges,
            totals,
            evals: evaluation_rows(&batch.evaluations()),
        })
    }
}

impl Neo4jStore {
    /// The most games one write transaction carries now: `usize::MAX` until the server
    /// refused a write for its memory, then half of the smallest write it refused.
    pub fn games_per_transaction(&self) -> usize {
        self.games_per_txn
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Writes one player's batch in transactions the server has the memory for: a batch
    /// of more games than [`Self::games_per_transaction`] is written in parts of that
    /// many, and a part the server refuses for its memory is halved (down to one game,
    /// which fails with [`StoreError::TooLarge`]). Each part is its own transaction, so a
    /// failure keeps the parts before it, as a crash between batches would; an ingest run
    /// again skips their games.
    fn write_sized(&self, key: &str, display: &str, batch: &Batch) -> Result<WriteReport> {
        let limit = self.games_per_transaction().max(1);
        if batch.len() > limit {
            let mut total = WriteReport::default();
            for part in batch.games().chunks(limit) {
                total.add(&self.write_sized(key, display, &rebuilt(part)?)?);
            }
            return Ok(total);
        }
        let players = [(key.to_string(), display, BatchParams::new(key, batch)?)];
        match self.transaction("write a batch of games", |txn| {
            self.write_txn(txn, &players)
        }) {
            Err(StoreError::TooLarge { what, source }) if batch.len() > 1 => {
                let half = batch.len().div_ceil(2);
                let was = self
                    .games_per_txn
                    .fetch_min(half, std::sync::atomic::Ordering::Relaxed);
                tracing::warn!(
                    games = batch.len(),
                    now = half.min(was),
                    cause = %source,
                    "{what}: writing fewer games per transaction"
                );
                self.write_sized(key, display, batch)
            }
            other => other,
        }
    }
}

/// A batch of some of another batch's games (already replayed once, so a move that does
/// not replay is the store's bug).
fn rebuilt(games: &[(mirror_core::GameRecord, Color)]) -> Result<Batch> {
    Batch::from_games(games)
        .map_err(|e| StoreError::Corrupt(format!("a batch's game no longer replays: {e}")))
}

impl GraphRead for Neo4jStore {
    fn ingested(&self, player: &str, ids: &[GameId]) -> Result<Vec<GameId>> {
        let key = player_key(player)?;
        let list: Vec<BoltType> = ids.iter().map(|i| i.0.clone().into()).collect();
        let rows = self.rows(
            "look up ingested games",
            INGESTED.query(vec![("player", key.into()), ("ids", list.into())])?,
        )?;
        rows.iter()
            .map(|r| r.get::<String>("id").map(GameId).map_err(de))
            .collect()
    }

    fn moves(&self, player: &str, pos: PositionKey, filter: &Filter) -> Result<Vec<MoveRow>> {
        let mut many = self.moves_many(player, &[pos], filter)?;
        Ok(many.pop().expect("moves_many answers each key"))
    }

    fn moves_many(
        &self,
        player: &str,
        keys: &[PositionKey],
        filter: &Filter,
    ) -> Result<Vec<Vec<MoveRow>>> {
        // Filtered and summed by the server: one row per move crosses the wire, not one per
        // (move, colour, time class, rated, month) row. A question with no filter but the
        // colour reads the move totals (a few relationships) of the positions that keep
        // them, and the rows of the others: two round trips at most, however many keys.
        let key = player_key(player)?;
        let color: BoltType = filter.color.map(|c| color_name(c).to_string()).into();
        let mut found: HashMap<PositionKey, Vec<MoveRow>> = HashMap::new();
        // Each key once: a key twice in `$keys` would count its rows twice.
        let mut rest = keys.to_vec();
        let mut asked = std::collections::HashSet::new();
        rest.retain(|k| asked.insert(*k));
        if filter.is_colour_only() && !rest.is_empty() {
            let totals = self.rows(
                "read the move totals of positions",
                MOVES_TOTALS.query(vec![
                    ("keys", key_list(&rest)),
                    ("player", key.clone().into()),
                    ("color", color.clone()),
                ])?,
            )?;
            found = moves_by_position(&totals)?;
            rest.retain(|k| !found.contains_key(k));
        }
        if !rest.is_empty() {
            let tcs: Vec<BoltType> = filter
                .time_classes
                .iter()
                .map(|t| t.as_str().into())
                .collect();
            let sources: Vec<BoltType> = filter
                .sources
                .iter()
                .map(|s| BoltType::from(s.as_str()))
                .collect();
            let query = MOVES.query(vec![
                ("keys", key_list(&rest)),
                ("player", key.into()),
                ("color", color),
                ("tcs", tcs.into()),
                ("rated", filter.rated.into()),
                ("since", filter.since.map(|m| m.to_string()).into()),
                ("until", filter.until.map(|m| m.to_string()).into()),
                (
                    "oppMin",
                    filter.opponent_rating.map(|r| i64::from(r.min)).into(),
                ),
                (
                    "oppMax",
                    filter.opponent_rating.map(|r| i64::from(r.max)).into(),
                ),
                ("sources", sources.into()),
            ])?;
            let rows = self.rows("read the moves from positions", query)?;
            found.extend(moves_by_position(&rows)?);
        }
        Ok(keys
            .iter()
            .map(|k| found.get(k).cloned().unwrap_or_default())
            .collect())
    }

    fn edges(&self, player: &str) -> Result<Vec<EdgeRow>> {
        let key = player_key(player)?;
        let mut out = Vec::new();
        self.each_row(
            "read the player's edges",
            EDGES.query(vec![("player", key.into())])?,
            &mut |row| {
                out.push(edge_of(&row)?);
                Ok(())
            },
        )?;
        // The embedded store's key order: position, move, flags, month.
        out.sort_by_key(|e| {
            (
                e.pos,
                e.mv,
                e.dims.flags(),
                e.dims.month.map_or(0, Month::to_u16),
                e.dims.opponent_rating.unwrap_or(0),
            )
        });
        Ok(out)
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
        let rows = self.rows(
            "read a game",
            GAME.query(vec![("id", id.0.clone().into())])?,
        )?;
        rows.first()
            .map(|r| decode_record(&r.get::<String>("record").map_err(de)?))
            .transpose()
    }

    fn position_epd(&self, pos: PositionKey) -> Result<Option<String>> {
        let rows = self.rows(
            "read a position",
            POSITION_EPD.query(vec![("key", key_param(pos).into())])?,
        )?;
        rows.first()
            .map(|r| r.get::<String>("epd").map_err(de))
            .transpose()
    }

    fn players(&self) -> Result<Vec<PlayerInfo>> {
        let rows = self.rows("list the players", PLAYERS.query(vec![])?)?;
        rows.iter()
            .map(|r| {
                Ok(PlayerInfo {
                    name: r.get::<String>("name").map_err(de)?,
                    games: int(r, "games")?,
                })
            })
            .collect()
    }

    fn counts(&self, player: &str) -> Result<PlayerCounts> {
        let key = player_key(player)?;
        let rows = self.rows(
            "count the player's graph",
            COUNTS.query(vec![("player", key.into())])?,
        )?;
        match rows.first() {
            None => Ok(PlayerCounts::default()),
            Some(r) => Ok(PlayerCounts {
                games: int(r, "games")?,
                edge_rows: int(r, "edgeRows")?,
            }),
        }
    }

    fn position_count(&self) -> Result<u64> {
        let rows = self.rows("count positions", POSITION_COUNT.query(vec![])?)?;
        int(one_row(&rows, POSITION_COUNT.file)?, "positions")
    }

    fn recent_games(
        &self,
        player: &str,
        pos: PositionKey,
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<RecentGame>> {
        // The days the player's moves from here were played bound the candidates (a deep
        // position: a few games; a popular one: the newest games of the player), read
        // newest first: the first few, then up to RECENT_MAX when those were not enough.
        let key = player_key(player)?;
        let rows = self.rows(
            "read the days of a position's moves",
            RECENT_SPANS.query(vec![
                ("player", key.clone().into()),
                ("key", key_param(pos).into()),
            ])?,
        )?;
        let Some(row) = rows.first() else {
            return Ok(Vec::new());
        };
        let spans = merge_spans(row.get::<Vec<(i64, i64)>>("spans").map_err(de)?);
        if spans.is_empty() {
            return Ok(Vec::new());
        }
        let spans: Vec<BoltType> = spans
            .into_iter()
            .map(|(a, b)| BoltType::from(vec![BoltType::from(a), BoltType::from(b)]))
            .collect();
        let first = (8 * limit).max(64);
        for page in [first, RECENT_MAX] {
            let rows = self.rows(
                "read the player's recent games",
                GAMES_IN_SPANS.query(vec![
                    ("player", key.clone().into()),
                    ("spans", spans.clone().into()),
                    ("limit", i64::try_from(page).unwrap_or(i64::MAX).into()),
                ])?,
            )?;
            let candidates = rows.iter().map(|r| {
                let rec = decode_record(&r.get::<String>("record").map_err(de)?)?;
                let color: String = r.get("color").map_err(de)?;
                Ok(Some((rec, color_of(&color)?)))
            });
            let found = first_recent_games(candidates, pos, filter, limit)?;
            if found.len() >= limit || rows.len() < page || page >= RECENT_MAX {
                return Ok(found);
            }
        }
        Ok(Vec::new())
    }

    fn newest_date(&self, player: &str) -> Result<Option<mirror_core::Date>> {
        // One row (the newest game), not the few thousand recent_games reads.
        let key = player_key(player)?;
        let rows = self.rows(
            "read the player's newest game",
            GAMES.query(vec![("player", key.into()), ("limit", 1i64.into())])?,
        )?;
        match rows.first() {
            None => Ok(None),
            Some(r) => Ok(decode_record(&r.get::<String>("record").map_err(de)?)?.date),
        }
    }

    fn fetch_state(&self, player: &str, unit: &str) -> Result<Option<FetchState>> {
        let key = player_key(player)?;
        let rows = self.rows(
            "read the fetch state",
            FETCH_GET.query(vec![("player", key.into()), ("unit", unit.into())])?,
        )?;
        rows.first()
            .map(|r| {
                let text = |k: &str| -> Result<Option<String>> {
                    Ok(r.get::<Option<String>>(k)
                        .map_err(de)?
                        .filter(|s| !s.is_empty()))
                };
                Ok(FetchState {
                    etag: text("etag")?,
                    last_modified: text("lastModified")?,
                    complete: r.get::<bool>("complete").map_err(de)?,
                    games: int(r, "games")?,
                    cursor: r.get::<Option<i64>>("cursor").map_err(de)?,
                })
            })
            .transpose()
    }

    fn evaluations(&self, keys: &[PositionKey]) -> Result<Vec<Option<Evaluation>>> {
        use mirror_core::evaluation::{EvalScore, EvalSource};
        let rows = self.rows(
            "read evaluations",
            EVALUATIONS.query(vec![("keys", key_list(keys))])?,
        )?;
        let mut found: rustc_hash::FxHashMap<PositionKey, Evaluation> =
            rustc_hash::FxHashMap::default();
        for r in &rows {
            let key = key_of(r.get::<i64>("key").map_err(de)?);
            let text = r.get::<String>("value").map_err(de)?;
            let value: i32 = text.parse().map_err(|_| {
                StoreError::Corrupt(format!("position {key}: score {text:?} is no number"))
            })?;
            let score = match r.get::<String>("kind").map_err(de)?.as_str() {
                "cp" => EvalScore::Cp(value),
                "mate" => EvalScore::Mate(value),
                other => {
                    return Err(StoreError::Corrupt(format!(
                        "position {key}: score kind {other:?}"
                    )));
                }
            };
            let source = match r.get::<String>("source").map_err(de)?.as_str() {
                "engine" => EvalSource::Engine,
                "comment" => EvalSource::Comment,
                other => {
                    return Err(StoreError::Corrupt(format!(
                        "position {key}: evaluation source {other:?}"
                    )));
                }
            };
            let best = r.get::<String>("best").map_err(de)?;
            let depth = u16::try_from(r.get::<i64>("depth").map_err(de)?)
                .map_err(|_| StoreError::Corrupt(format!("position {key}: depth out of range")))?;
            found.insert(
                key,
                Evaluation {
                    score,
                    best: (!best.is_empty()).then_some(best),
                    depth,
                    engine: r.get::<String>("engine").map_err(de)?,
                    source,
                },
            );
        }
        Ok(keys.iter().map(|k| found.get(k).cloned()).collect())
    }

    fn player_version(&self, player: &str) -> Result<Option<u64>> {
        let key = player_key(player)?;
        let rows = self.rows(
            "read the player's version",
            PLAYER_VERSION.query(vec![("player", key.into())])?,
        )?;
        // An unknown player has nothing to keep: version 0 until their first write.
        rows.first()
            .map_or(Ok(Some(0)), |r| int::<u64>(r, "version").map(Some))
    }
}

impl GraphWrite for Neo4jStore {
    fn write_batch(&self, player: &str, batch: &Batch) -> Result<WriteReport> {
        let _span = tracing::debug_span!("store.write", backend = "neo4j", player).entered();
        let key = player_key(player)?;
        self.write_sized(&key, player.trim(), batch)
    }

    /// Several players in one transaction while the server has the memory for it; past
    /// that, each player's batch on its own ([`Self::write_sized`]).
    fn write_batches(&self, batches: &[(String, Batch)]) -> Result<WriteReport> {
        let _span = tracing::debug_span!("store.write", backend = "neo4j", players = batches.len())
            .entered();
        let games: usize = batches.iter().map(|(_, b)| b.len()).sum();
        let alone = || {
            let mut total = WriteReport::default();
            for (player, batch) in batches {
                total.add(&self.write_sized(&player_key(player)?, player.trim(), batch)?);
            }
            Ok(total)
        };
        if games > self.games_per_transaction() {
            return alone();
        }
        let players = batches
            .iter()
            .map(|(player, batch)| {
                let key = player_key(player)?;
                let params = BatchParams::new(&key, batch)?;
                Ok((key, player.trim(), params))
            })
            .collect::<Result<Vec<_>>>()?;
        match self.transaction("write batches of several players", |txn| {
            self.write_txn(txn, &players)
        }) {
            Err(StoreError::TooLarge { .. }) if batches.len() > 1 => alone(),
            other => other,
        }
    }

    fn write_evaluations(&self, evals: &[(PositionKey, Evaluation)]) -> Result<usize> {
        if evals.is_empty() {
            return Ok(0);
        }
        let rows = evaluation_rows(evals);
        let out = self.rows(
            "store evaluations",
            WRITE_EVALUATIONS.query(vec![("rows", rows.into())])?,
        )?;
        let stored = out
            .first()
            .map(|r| r.get::<i64>("stored").map_err(de))
            .transpose()?
            .unwrap_or(0);
        Ok(usize::try_from(stored).unwrap_or(0))
    }

    fn claim_analysis(
        &self,
        keys: &[PositionKey],
        depth: u16,
        worker: &str,
        lease_ms: u64,
    ) -> Result<Vec<PositionKey>> {
        if keys.is_empty() {
            return Ok(Vec::new());
        }
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX));
        let until = now.saturating_add(i64::try_from(lease_ms).unwrap_or(i64::MAX));
        let rows = self.rows(
            "take positions to analyse",
            CLAIM_ANALYSIS.query(vec![
                ("keys", key_list(keys)),
                ("depth", i64::from(depth).into()),
                ("worker", worker.into()),
                ("now", now.into()),
                ("until", until.into()),
            ])?,
        )?;
        let mut taken: Vec<PositionKey> = rows
            .iter()
            .map(|r| r.get::<i64>("key").map(key_of).map_err(de))
            .collect::<Result<_>>()?;
        taken.sort_unstable_by_key(|k| k.0);
        Ok(taken)
    }

    fn set_fetch_state(&self, player: &str, unit: &str, state: &FetchState) -> Result<()> {
        let key = player_key(player)?;
        let games = i64::try_from(state.games)
            .map_err(|_| StoreError::Corrupt(format!("game count {} too large", state.games)))?;
        self.run(
            "remember the fetch state",
            FETCH_SET.query(vec![
                ("player", key.into()),
                ("unit", unit.into()),
                ("etag", state.etag.clone().unwrap_or_default().into()),
                (
                    "lastModified",
                    state.last_modified.clone().unwrap_or_default().into(),
                ),
                ("complete", state.complete.into()),
                ("games", games.into()),
                ("cursor", state.cursor.into()),
            ])?,
        )
    }
}

impl Drills for Neo4jStore {
    fn drill_records(&self, player: &str) -> Result<Vec<DrillRecord>> {
        let key = player_key(player)?;
        let rows = self.rows(
            "read the player's drill records",
            DRILL_RECORDS.query(vec![("player", key.into())])?,
        )?;
        let mut out = rows
            .iter()
            .map(|r| {
                let pos = key_of(r.get::<i64>("key").map_err(de)?);
                let color = color_of(&r.get::<String>("color").map_err(de)?)?;
                let memory = r
                    .get::<bool>("memory")
                    .map_err(de)?
                    .then(|| -> Result<(f32, f32)> {
                        Ok((
                            r.get::<f64>("stability").map_err(de)? as f32,
                            r.get::<f64>("difficulty").map_err(de)? as f32,
                        ))
                    })
                    .transpose()?;
                let flat: Vec<i64> = r.get("history").map_err(de)?;
                if !flat.len().is_multiple_of(3) {
                    return Err(StoreError::Corrupt(format!(
                        "neo4j: drill history of {pos} holds {} numbers",
                        flat.len()
                    )));
                }
                let history = flat
                    .chunks_exact(3)
                    .map(|a| {
                        let grade = u8::try_from(a[1])
                            .ok()
                            .filter(|g| (1..=4).contains(g))
                            .ok_or_else(|| {
                                StoreError::Corrupt(format!("neo4j: drill grade {}", a[1]))
                            })?;
                        Ok(DrillAnswer {
                            at: a[0],
                            grade,
                            millis: u32::try_from(a[2]).map_err(|_| {
                                StoreError::Corrupt(format!("neo4j: drill answer time {}", a[2]))
                            })?,
                        })
                    })
                    .collect::<Result<Vec<_>>>()?;
                Ok(DrillRecord {
                    key: pos,
                    color,
                    memory,
                    due: r.get("due").map_err(de)?,
                    reviews: int(r, "reviews")?,
                    lapses: int(r, "lapses")?,
                    retired: r.get("retired").map_err(de)?,
                    history,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        out.sort_by_key(|r| (r.key, r.color == Color::Black));
        Ok(out)
    }

    fn put_drill_records(&self, player: &str, records: &[DrillRecord]) -> Result<()> {
        if records.is_empty() {
            return Ok(());
        }
        let key = player_key(player)?;
        let rows: Vec<BoltType> = records
            .iter()
            .map(|r| {
                let (stability, difficulty) = r.memory.unwrap_or((0.0, 0.0));
                let history = &r.history[r.history.len().saturating_sub(DRILL_HISTORY)..];
                let flat: Vec<BoltType> = history
                    .iter()
                    .flat_map(|a| [a.at, i64::from(a.grade), i64::from(a.millis)])
                    .map(BoltType::from)
                    .collect();
                let row: Vec<BoltType> = vec![
                    key_param(r.key).into(),
                    color_name(r.color).into(),
                    r.memory.is_some().into(),
                    f64::from(stability).into(),
                    f64::from(difficulty).into(),
                    r.due.into(),
                    i64::from(r.reviews).into(),
                    i64::from(r.lapses).into(),
                    r.retired.into(),
                    BoltType::from(flat),
                ];
                BoltType::from(row)
            })
            .collect();
        self.run(
            "store the player's drill records",
            WRITE_DRILL_RECORDS.query(vec![("player", key.into()), ("rows", rows.into())])?,
        )
    }
}

impl Accounts for Neo4jStore {
    fn accounts(&self, player: &str) -> Result<Vec<Account>> {
        let key = player_key(player)?;
        let rows = self.rows(
            "read the player's accounts",
            ACCOUNTS.query(vec![("player", key.into())])?,
        )?;
        let mut out = rows
            .iter()
            .map(|r| {
                let source: String = r.get("source").map_err(de)?;
                Ok(Account {
                    source: source.parse().map_err(|e| {
                        StoreError::Corrupt(format!("neo4j: account source {source:?}: {e}"))
                    })?,
                    name: r.get("name").map_err(de)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        crate::sort_accounts(&mut out);
        Ok(out)
    }

    fn add_account(&self, player: &str, account: &Account) -> Result<()> {
        let key = player_key(player)?;
        let name = account.checked_name()?;
        self.run(
            "record the player's account",
            ACCOUNT_ADD.query(vec![
                ("player", key.into()),
                ("source", account.source.as_str().into()),
                ("key", name.to_ascii_lowercase().into()),
                ("name", name.into()),
            ])?,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirror_testkit::conformance::{PLAYER, sample_games};

    #[test]
    fn every_statement_passes_exactly_the_parameters_its_file_uses() {
        for s in STATEMENTS {
            let mut declared: Vec<String> = s.params.iter().map(|p| p.to_string()).collect();
            declared.sort();
            assert_eq!(used_params(s.text), declared, "cypher/{}", s.file);
            assert!(!s.text.trim().is_empty(), "{}", s.file);
        }
        let q = MOVES.query(vec![("key", 1i64.into())]);
        assert!(q.is_err(), "a missing parameter is refused");
    }

    #[test]
    fn statements_are_parameterised_not_built() {
        for s in STATEMENTS {
            // No string interpolation markers and no literal player names in any file.
            assert!(
                !s.text.contains("{}") && !s.text.contains("format!"),
                "{}",
                s.file
            );
            assert!(
                !s.text.to_lowercase().contains("biskupstunga"),
                "{}",
                s.file
            );
        }
    }

    #[test]
    fn edge_rows_are_the_batch_aggregate() {
        let games = sample_games(60);
        let mut b = Batch::new();
        for (g, c) in &games {
            b.add_game(g.clone(), *c).expect("legal");
        }
        let rows = edge_params("biskupstunga", &b);
        assert_eq!(rows.len(), b.edges().len(), "one row per edge key");
        let total: u64 = rows.iter().map(|r| u64::from(r.stats.games())).sum();
        let want: u64 = b.edges().values().map(|d| u64::from(d.stats.games())).sum();
        assert_eq!(total, want);
        let mut keys: Vec<_> = rows
            .iter()
            .map(|r| {
                (
                    r.from,
                    r.uci.clone(),
                    r.color,
                    r.tc,
                    r.rated,
                    r.month.clone(),
                    r.opp,
                )
            })
            .collect();
        keys.dedup();
        assert_eq!(keys.len(), rows.len(), "no two rows share an edge key");
        assert!(
            rows.iter()
                .all(|r| r.player == "biskupstunga" && !r.month.is_empty())
        );
        let start = key_param(PositionKey::from_position(&shakmaty::Chess::default()));
        let from_start: u32 = rows
            .iter()
            .filter(|r| r.from == start)
            .map(|r| r.stats.games())
            .sum();
        assert_eq!(from_start, 60, "every game leaves the start position once");
        let BoltType::List(list) = rows[0].to_bolt("a".into(), "b".into()) else {
            panic!("an edge row is a list");
        };
        assert_eq!(list.len(), EDGE_ROW_FIELDS.len());
        // The Cypher files read the fields at the positions EDGE_ROW_FIELDS gives.
        for (i, f) in EDGE_ROW_FIELDS.iter().enumerate().skip(2) {
            let want = format!("{f}: row[{i}]");
            assert!(
                WRITE_NEW_EDGES.text.contains(&want),
                "write_new_edges: {want}"
            );
            if i <= 6 || i == 16 {
                assert!(WRITE_EDGES.text.contains(&want), "write_edges: {want}");
            } else {
                assert!(
                    WRITE_EDGES.text.contains(&format!("row[{i}]")),
                    "write_edges: {f}"
                );
            }
        }
        assert!(
            WRITE_NEW_EDGES.text.contains("elementId(a) = row[0]")
                && WRITE_NEW_EDGES.text.contains("elementId(b) = row[1]")
        );
        // Row keys: one per edge key, fixed-width after the player's name.
        let mut row_keys: Vec<&str> = rows.iter().map(|r| r.row.as_str()).collect();
        row_keys.sort_unstable();
        row_keys.dedup();
        assert_eq!(row_keys.len(), rows.len(), "one row key per edge key");
        assert!(
            rows.iter()
                .all(|r| r.row.len() == "biskupstunga/".len() + 30)
        );
        // Totals: the rows of positions with 30+ pieces summed per position, move and
        // colour.
        let totals = move_totals(&b);
        let games: u64 = totals.values().map(|(_, _, s)| u64::from(s.games())).sum();
        let of_big: u64 = b
            .edges()
            .values()
            .filter(|d| d.pieces >= crate::TOTAL_MIN_PIECES)
            .map(|d| u64::from(d.stats.games()))
            .sum();
        assert_eq!(games, of_big);
        assert!(!totals.is_empty() && totals.len() < rows.len());
        let start = PositionKey::from_position(&shakmaty::Chess::default());
        let at_start: u32 = totals
            .iter()
            .filter(|(k, _)| k.0 == start)
            .map(|(_, (_, _, s))| s.games())
            .sum();
        assert_eq!(
            at_start, 60,
            "the start position keeps totals of every game"
        );
        let _ = PLAYER;
    }

    #[test]
    fn spans_merge_and_stay_few() {
        assert_eq!(
            merge_spans(vec![(5, 7), (1, 2), (3, 4), (10, 10), (0, 1), (9, 8)]),
            vec![(0, 7), (9, 10)]
        );
        let many: Vec<(i64, i64)> = (0..100).map(|i| (i * 10, i * 10)).collect();
        assert_eq!(merge_spans(many), vec![(0, 990)]);
        assert!(merge_spans(Vec::new()).is_empty());
    }

    #[test]
    fn a_refused_commit_is_known_by_its_code() {
        // What neo4rs 0.8 gave for a COMMIT the test server (512 MiB heap) refused.
        let commit = neo4rs::Error::UnexpectedMessage(
            "unexpected response for COMMIT: Failure(Failure { metadata: BoltMap { value: \
             {BoltString { value: \"code\" }: String(BoltString { value: \
             \"Neo.TransientError.General.MemoryPoolOutOfMemoryError\" }), BoltString { \
             value: \"message\" }: String(BoltString { value: \"The allocation of an extra \
             2.0 MiB would use more than the limit 318.8 MiB.\" })} } })"
                .into(),
        );
        assert_eq!(
            failure_code(&commit),
            Some("Neo.TransientError.General.MemoryPoolOutOfMemoryError")
        );
        assert!(is_memory_error(&commit));
        assert!(is_transient(&commit));
        let other =
            neo4rs::Error::UnexpectedMessage("unexpected response for PULL: Ignored".into());
        assert_eq!(failure_code(&other), None);
        assert!(!is_memory_error(&other) && !is_transient(&other));
        assert!(!is_memory_error(&neo4rs::Error::ConnectionError));
    }

    #[test]
    fn keys_keep_their_bits_and_secrets_stay_hidden() {
        for k in [0u64, 1, u64::MAX, 0x8000_0000_0000_0000] {
            assert_eq!(key_of(key_param(PositionKey(k))), PositionKey(k));
        }
        let cfg = Neo4jConfig {
            password: "s3cret-pass".into(),
            ..Neo4jConfig::new("bolt://localhost:7687")
        };
        assert!(!format!("{cfg:?}").contains("s3cret"));
        let r = sample_games(1).remove(0).0;
        assert_eq!(decode_record(&hex(&r.encode())).expect("round trip"), r);
    }
}
