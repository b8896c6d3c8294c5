//! The Neo4j backend (neo4rs, Bolt 4.4): the same [`GraphStore`] as the embedded store, as
//! a property graph people can explore in Neo4j Browser:
//! `(:Player {name, displayName, games, edgeRows})-[:INGESTED {color, date}]->(:Game {id, record})`,
//! `(:Position {key, epd})-[:MOVE {player, uci, color, tc, rated, month, w, d, l,
//! ratingSum, ratedGames, first, last}]->(:Position)`, `(:FetchState {player, unit, ...})`.
//!
//! Every statement is a file in `cypher/` loaded with `include_str!` and run with
//! parameters only; [`STATEMENTS`] lists each with the parameters the code passes, and a
//! test checks them against the files. Writes are batched `UNWIND $rows` over rows
//! aggregated in Rust ([`Batch`]: one row per edge key per batch), in one transaction per
//! batch. The store's methods are blocking (a private runtime drives neo4rs); call them
//! from blocking threads.

use std::{collections::HashMap, time::Duration};

use mirror_core::{
    GameId, GameRecord, MoveCode, MoveStats, PositionKey, TimeClass,
    batch::{Batch, unpack_epd},
    stats::EdgeDims,
    time::Month,
};
use neo4rs::{BoltType, ConfigBuilder, Graph, Query};
use shakmaty::Color;

use crate::{
    EdgeRow, FetchState, Filter, GraphStore, MoveRow, PlayerCounts, PlayerInfo, RecentGame, Result,
    StoreError, WriteReport, first_recent_games, player_key, sum_by_move,
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
statement!(INGESTED, "ingested.cypher", ["player", "ids"]);
statement!(
    WRITE_GAMES,
    "write_games.cypher",
    ["player", "display", "games"]
);
statement!(WRITE_POSITIONS, "write_positions.cypher", ["positions"]);
statement!(WRITE_EDGES, "write_edges.cypher", ["rows"]);
statement!(
    WRITE_TOTALS,
    "write_totals.cypher",
    ["player", "games", "edgeRows"]
);
statement!(MOVES, "moves.cypher", ["key", "player"]);
statement!(EDGES, "edges.cypher", ["player"]);
statement!(GAMES, "games.cypher", ["player", "limit"]);
statement!(GAME, "game.cypher", ["id"]);
statement!(POSITION_EPD, "position_epd.cypher", ["key"]);
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
statement!(TEST_WIPE, "test_wipe.cypher", []);
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

/// Every statement, for the parameter check.
pub const STATEMENTS: &[Statement] = &[
    SCHEMA,
    INGESTED,
    WRITE_GAMES,
    WRITE_POSITIONS,
    WRITE_EDGES,
    WRITE_TOTALS,
    MOVES,
    EDGES,
    GAMES,
    GAME,
    POSITION_EPD,
    PLAYERS,
    COUNTS,
    POSITION_COUNT,
    FETCH_GET,
    FETCH_SET,
    TEST_WIPE,
    EX_MOST_PLAYED,
    EX_WORST,
    EX_TRANSPOSITIONS,
    EX_DEVIATIONS,
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
            return Err(StoreError::Backend(format!(
                "{}: parameters {given:?} passed, {declared:?} declared",
                self.file
            )));
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
    /// Password (`MIRROR_NEO4J_PASSWORD`).
    pub password: String,
    /// Edge rows per `UNWIND` statement.
    pub batch_rows: usize,
    /// Retries of a transient failure (with backoff).
    pub retries: u32,
}

impl std::fmt::Debug for Neo4jConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Neo4jConfig")
            .field("uri", &self.uri)
            .field("user", &self.user)
            .field("password", &"<hidden>")
            .field("batch_rows", &self.batch_rows)
            .finish()
    }
}

impl Neo4jConfig {
    /// From `MIRROR_NEO4J_URI`, `MIRROR_NEO4J_USER`, `MIRROR_NEO4J_PASSWORD`; `None` when
    /// no URI is set.
    pub fn from_env() -> Option<Neo4jConfig> {
        let uri = std::env::var("MIRROR_NEO4J_URI")
            .ok()
            .filter(|u| !u.is_empty())?;
        Some(Neo4jConfig {
            uri,
            user: std::env::var("MIRROR_NEO4J_USER").unwrap_or_else(|_| "neo4j".into()),
            password: std::env::var("MIRROR_NEO4J_PASSWORD").unwrap_or_default(),
            batch_rows: 5000,
            retries: 3,
        })
    }
}

/// The Neo4j store.
pub struct Neo4jStore {
    graph: Graph,
    rt: tokio::runtime::Runtime,
    cfg: Neo4jConfig,
}

impl std::fmt::Debug for Neo4jStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Neo4jStore")
            .field("cfg", &self.cfg)
            .finish()
    }
}

fn neo(e: neo4rs::Error) -> StoreError {
    StoreError::Backend(format!("neo4j: {e}"))
}

fn de(e: neo4rs::DeError) -> StoreError {
    StoreError::Corrupt(format!("neo4j row: {e}"))
}

/// Position keys are u64; Neo4j integers are i64: the bits are kept.
pub fn key_param(k: PositionKey) -> i64 {
    k.0 as i64
}

fn key_of(v: i64) -> PositionKey {
    PositionKey(v as u64)
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
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
    /// Statistics.
    pub stats: MoveStats,
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
            stats: d.stats,
        })
        .collect();
    rows.sort_by(|a, b| {
        (a.from, &a.uci, a.color, a.tc, a.rated, &a.month)
            .cmp(&(b.from, &b.uci, b.color, b.tc, b.rated, &b.month))
    });
    rows
}

impl From<EdgeParams> for BoltType {
    fn from(r: EdgeParams) -> BoltType {
        let mut m: HashMap<String, BoltType> = HashMap::new();
        m.insert("player".into(), r.player.into());
        m.insert("from".into(), r.from.into());
        m.insert("to".into(), r.to.into());
        m.insert("uci".into(), r.uci.into());
        m.insert("color".into(), r.color.into());
        m.insert("tc".into(), r.tc.into());
        m.insert("rated".into(), r.rated.into());
        m.insert("month".into(), r.month.into());
        m.insert("w".into(), i64::from(r.stats.wins).into());
        m.insert("d".into(), i64::from(r.stats.draws).into());
        m.insert("l".into(), i64::from(r.stats.losses).into());
        m.insert("ratingSum".into(), (r.stats.rating_sum as i64).into());
        m.insert("ratedGames".into(), i64::from(r.stats.rated_games).into());
        m.insert("first".into(), i64::from(r.stats.first).into());
        m.insert("last".into(), i64::from(r.stats.last).into());
        m.into()
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

fn dims_of(color: &str, tc: &str, rated: bool, month: &str) -> EdgeDims {
    EdgeDims {
        color: if color == "black" {
            Color::Black
        } else {
            Color::White
        },
        time_class: tc.parse::<TimeClass>().unwrap_or(TimeClass::Unknown),
        rated,
        month: month.parse::<Month>().ok(),
    }
}

fn edge_of(row: &neo4rs::Row) -> Result<EdgeRow> {
    let get_i = |k: &str| row.get::<i64>(k).map_err(de);
    let uci: String = row.get("uci").map_err(de)?;
    let mv = uci
        .parse::<shakmaty::uci::UciMove>()
        .ok()
        .and_then(|u| MoveCode::from_uci(&u).ok())
        .ok_or_else(|| StoreError::Corrupt(format!("move {uci:?}")))?;
    let color: String = row.get("color").map_err(de)?;
    let tc: String = row.get("tc").map_err(de)?;
    let rated: bool = row.get("rated").map_err(de)?;
    let month: String = row.get("month").map_err(de)?;
    let u32_of = |v: i64| u32::try_from(v).unwrap_or(0);
    Ok(EdgeRow {
        pos: key_of(get_i("from")?),
        mv,
        dims: dims_of(&color, &tc, rated, &month),
        stats: MoveStats {
            wins: u32_of(get_i("w")?),
            draws: u32_of(get_i("d")?),
            losses: u32_of(get_i("l")?),
            rating_sum: u64::try_from(get_i("ratingSum")?).unwrap_or(0),
            rated_games: u32_of(get_i("ratedGames")?),
            first: u32_of(get_i("first")?),
            last: u32_of(get_i("last")?),
        },
        child: key_of(get_i("to")?),
    })
}

impl Neo4jStore {
    /// Connects and sets up constraints and indexes (idempotent).
    pub fn connect(cfg: Neo4jConfig) -> Result<Neo4jStore> {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| StoreError::Backend(e.to_string()))?;
        let config = ConfigBuilder::default()
            .uri(cfg.uri.clone())
            .user(cfg.user.clone())
            .password(cfg.password.clone())
            .build()
            .map_err(neo)?;
        let graph = rt
            .block_on(Graph::connect(config))
            .map_err(|e| StoreError::Open {
                path: cfg.uri.clone().into(),
                message: format!("cannot connect to Neo4j: {e}"),
            })?;
        let store = Neo4jStore { graph, rt, cfg };
        for stmt in SCHEMA.text.split(';').map(str::trim).filter(|s| {
            s.lines()
                .any(|l| !l.trim().is_empty() && !l.trim_start().starts_with("//"))
        }) {
            store.run(neo4rs::query(stmt))?;
        }
        Ok(store)
    }

    fn run(&self, q: Query) -> Result<()> {
        self.rt.block_on(self.graph.run(q)).map_err(neo)
    }

    fn rows(&self, q: Query) -> Result<Vec<neo4rs::Row>> {
        self.rt.block_on(async {
            let mut stream = self.graph.execute(q).await.map_err(neo)?;
            let mut out = Vec::new();
            while let Some(row) = stream.next().await.map_err(neo)? {
                out.push(row);
            }
            Ok(out)
        })
    }

    /// Deletes everything in the database (tests against a throwaway Neo4j only).
    #[doc(hidden)]
    pub fn wipe_for_tests(&self) -> Result<()> {
        self.run(TEST_WIPE.query(vec![])?)
    }

    /// Runs one of the example queries and returns its rows as JSON-like maps.
    pub fn example(
        &self,
        stmt: Statement,
        args: Vec<(&'static str, BoltType)>,
    ) -> Result<Vec<neo4rs::Row>> {
        self.rows(stmt.query(args)?)
    }

    async fn write_txn(
        &self,
        player: &str,
        display: &str,
        batch: &Batch,
    ) -> std::result::Result<WriteReport, neo4rs::Error> {
        let mut txn = self.graph.start_txn().await?;
        let games: Vec<BoltType> = batch
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
        let q = WRITE_GAMES
            .query(vec![
                ("player", player.into()),
                ("display", display.into()),
                ("games", games.into()),
            ])
            .map_err(|e| neo4rs::Error::UnexpectedMessage(e.to_string()))?;
        txn.run(q).await?;
        let mut report = WriteReport {
            games: batch.len() as u64,
            ..WriteReport::default()
        };
        let positions: Vec<BoltType> = batch
            .positions()
            .map(|(k, packed)| {
                let mut m: HashMap<String, BoltType> = HashMap::new();
                m.insert("key".into(), key_param(k).into());
                m.insert("epd".into(), unpack_epd(packed).unwrap_or_default().into());
                m.into()
            })
            .collect();
        for chunk in positions.chunks(self.cfg.batch_rows.max(1)) {
            let q = WRITE_POSITIONS
                .query(vec![("positions", chunk.to_vec().into())])
                .map_err(|e| neo4rs::Error::UnexpectedMessage(e.to_string()))?;
            let mut s = txn.execute(q).await?;
            while let Some(row) = s.next(txn.handle()).await? {
                report.new_positions +=
                    u64::try_from(row.get::<i64>("created").unwrap_or(0)).unwrap_or(0);
            }
        }
        let rows: Vec<BoltType> = edge_params(player, batch)
            .into_iter()
            .map(Into::into)
            .collect();
        for chunk in rows.chunks(self.cfg.batch_rows.max(1)) {
            let q = WRITE_EDGES
                .query(vec![("rows", chunk.to_vec().into())])
                .map_err(|e| neo4rs::Error::UnexpectedMessage(e.to_string()))?;
            let mut s = txn.execute(q).await?;
            while let Some(row) = s.next(txn.handle()).await? {
                report.new_edges +=
                    u64::try_from(row.get::<i64>("created").unwrap_or(0)).unwrap_or(0);
            }
        }
        let q = WRITE_TOTALS
            .query(vec![
                ("player", player.into()),
                ("games", (report.games as i64).into()),
                ("edgeRows", (report.new_edges as i64).into()),
            ])
            .map_err(|e| neo4rs::Error::UnexpectedMessage(e.to_string()))?;
        txn.run(q).await?;
        txn.commit().await?;
        Ok(report)
    }
}

impl GraphStore for Neo4jStore {
    fn write_batch(&self, player: &str, batch: &Batch) -> Result<WriteReport> {
        let key = player_key(player)?;
        let ids: Vec<GameId> = batch.games().iter().map(|(g, _)| g.id.clone()).collect();
        let present = self.ingested(player, &ids)?;
        if !present.is_empty() {
            return Err(StoreError::AlreadyIngested(present));
        }
        let mut wait = Duration::from_millis(200);
        let mut last = String::new();
        for _ in 0..=self.cfg.retries {
            match self.rt.block_on(self.write_txn(&key, player.trim(), batch)) {
                Ok(r) => return Ok(r),
                Err(e) => {
                    last = e.to_string();
                    // The transaction was rolled back; transient errors are worth a retry.
                    std::thread::sleep(wait);
                    wait *= 2;
                }
            }
        }
        Err(StoreError::Backend(format!(
            "neo4j write failed after retries: {last}"
        )))
    }

    fn ingested(&self, player: &str, ids: &[GameId]) -> Result<Vec<GameId>> {
        let key = player_key(player)?;
        let list: Vec<BoltType> = ids.iter().map(|i| i.0.clone().into()).collect();
        let rows =
            self.rows(INGESTED.query(vec![("player", key.into()), ("ids", list.into())])?)?;
        rows.iter()
            .map(|r| r.get::<String>("id").map(GameId).map_err(de))
            .collect()
    }

    fn moves(&self, player: &str, pos: PositionKey, filter: &Filter) -> Result<Vec<MoveRow>> {
        let key = player_key(player)?;
        let rows =
            self.rows(MOVES.query(vec![("key", key_param(pos).into()), ("player", key.into())])?)?;
        sum_by_move(rows.iter().map(edge_of), filter)
    }

    fn edges(&self, player: &str) -> Result<Vec<EdgeRow>> {
        let key = player_key(player)?;
        let rows = self.rows(EDGES.query(vec![("player", key.into())])?)?;
        let mut out = rows.iter().map(edge_of).collect::<Result<Vec<_>>>()?;
        // The embedded store's key order: position, move, flags, month.
        out.sort_by_key(|e| {
            (
                e.pos,
                e.mv,
                e.dims.flags(),
                e.dims.month.map_or(0, Month::to_u16),
            )
        });
        Ok(out)
    }

    fn games(&self, player: &str) -> Result<Vec<(GameRecord, Color)>> {
        let key = player_key(player)?;
        let rows =
            self.rows(GAMES.query(vec![("player", key.into()), ("limit", i64::MAX.into())])?)?;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            let rec = decode_record(&r.get::<String>("record").map_err(de)?)?;
            let color: String = r.get("color").map_err(de)?;
            let date: i64 = r.get("date").map_err(de)?;
            out.push((
                date,
                rec,
                if color == "black" {
                    Color::Black
                } else {
                    Color::White
                },
            ));
        }
        out.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.id.cmp(&b.1.id)));
        Ok(out.into_iter().map(|(_, g, c)| (g, c)).collect())
    }

    fn game(&self, id: &GameId) -> Result<Option<GameRecord>> {
        let rows = self.rows(GAME.query(vec![("id", id.0.clone().into())])?)?;
        rows.first()
            .map(|r| decode_record(&r.get::<String>("record").map_err(de)?))
            .transpose()
    }

    fn position_epd(&self, pos: PositionKey) -> Result<Option<String>> {
        let rows = self.rows(POSITION_EPD.query(vec![("key", key_param(pos).into())])?)?;
        rows.first()
            .map(|r| r.get::<String>("epd").map_err(de))
            .transpose()
    }

    fn players(&self) -> Result<Vec<PlayerInfo>> {
        let rows = self.rows(PLAYERS.query(vec![])?)?;
        rows.iter()
            .map(|r| {
                Ok(PlayerInfo {
                    name: r.get::<String>("name").map_err(de)?,
                    games: u64::try_from(r.get::<i64>("games").map_err(de)?).unwrap_or(0),
                })
            })
            .collect()
    }

    fn counts(&self, player: &str) -> Result<PlayerCounts> {
        let key = player_key(player)?;
        let rows = self.rows(COUNTS.query(vec![("player", key.into())])?)?;
        match rows.first() {
            None => Ok(PlayerCounts::default()),
            Some(r) => Ok(PlayerCounts {
                games: u64::try_from(r.get::<i64>("games").map_err(de)?).unwrap_or(0),
                edge_rows: u64::try_from(r.get::<i64>("edgeRows").map_err(de)?).unwrap_or(0),
            }),
        }
    }

    fn position_count(&self) -> Result<u64> {
        let rows = self.rows(POSITION_COUNT.query(vec![])?)?;
        Ok(rows
            .first()
            .and_then(|r| r.get::<i64>("positions").ok())
            .map_or(0, |n| u64::try_from(n).unwrap_or(0)))
    }

    fn recent_games(
        &self,
        player: &str,
        pos: PositionKey,
        filter: &Filter,
        limit: usize,
    ) -> Result<Vec<RecentGame>> {
        let key = player_key(player)?;
        let rows =
            self.rows(GAMES.query(vec![("player", key.into()), ("limit", 2000i64.into())])?)?;
        let candidates = rows.iter().map(|r| {
            let rec = decode_record(&r.get::<String>("record").map_err(de)?)?;
            let color: String = r.get("color").map_err(de)?;
            let c = if color == "black" {
                Color::Black
            } else {
                Color::White
            };
            Ok(Some((rec, c)))
        });
        first_recent_games(candidates, pos, filter, limit)
    }

    fn fetch_state(&self, player: &str, unit: &str) -> Result<Option<FetchState>> {
        let key = player_key(player)?;
        let rows =
            self.rows(FETCH_GET.query(vec![("player", key.into()), ("unit", unit.into())])?)?;
        rows.first()
            .map(|r| {
                let text = |k: &str| {
                    r.get::<Option<String>>(k)
                        .ok()
                        .flatten()
                        .filter(|s| !s.is_empty())
                };
                Ok(FetchState {
                    etag: text("etag"),
                    last_modified: text("lastModified"),
                    complete: r.get::<bool>("complete").unwrap_or(false),
                    games: u64::try_from(r.get::<i64>("games").unwrap_or(0)).unwrap_or(0),
                    cursor: r.get::<Option<i64>>("cursor").ok().flatten(),
                })
            })
            .transpose()
    }

    fn set_fetch_state(&self, player: &str, unit: &str, state: &FetchState) -> Result<()> {
        let key = player_key(player)?;
        self.run(FETCH_SET.query(vec![
            ("player", key.into()),
            ("unit", unit.into()),
            ("etag", state.etag.clone().unwrap_or_default().into()),
            (
                "lastModified",
                state.last_modified.clone().unwrap_or_default().into(),
            ),
            ("complete", state.complete.into()),
            ("games", (state.games as i64).into()),
            ("cursor", state.cursor.into()),
        ])?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conformance::{PLAYER, sample_games};

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
        let bolt: BoltType = rows[0].clone().into();
        let text = format!("{bolt:?}");
        for k in [
            "player",
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
        ] {
            assert!(text.contains(&format!("\"{k}\"")), "{k} missing in {text}");
        }
        let _ = PLAYER;
    }

    #[test]
    fn keys_keep_their_bits_and_secrets_stay_hidden() {
        for k in [0u64, 1, u64::MAX, 0x8000_0000_0000_0000] {
            assert_eq!(key_of(key_param(PositionKey(k))), PositionKey(k));
        }
        let cfg = Neo4jConfig {
            uri: "bolt://localhost:7687".into(),
            user: "neo4j".into(),
            password: "s3cret-pass".into(),
            batch_rows: 10,
            retries: 0,
        };
        assert!(!format!("{cfg:?}").contains("s3cret"));
        let r = sample_games(1).remove(0).0;
        assert_eq!(decode_record(&hex(&r.encode())).expect("round trip"), r);
    }
}
