//! mirror's HTTP API (axum):
//!
//! - `GET|POST /api/v1/move`: the move the player's mirror plays in a position, with where
//!   it came from (book tier and statistics, or the fallback) and the candidates.
//! - `GET /api/v1/explore`: the player's moves from a position in the shape of lichess's
//!   opening explorer player endpoint (`white`, `draws`, `black`, `moves[]`,
//!   `recentGames[]`).
//! - `GET /api/v1/player` (and lichess's own `/player`): lichess's player explorer with
//!   lichess's parameters, answered as NDJSON, for clients written for lichess.
//! - `GET /api/v1/session`: the write token, for the page of the server's owner only
//!   (this machine, the same user: `owner.rs`).
//! - `GET /api/v1/game`: one of the player's stored games, to replay.
//! - `GET /api/v1/players`: the players in the store.
//! - `GET /api/v1/book`, `GET /api/v1/book/newest`: what the engine reads (a position's
//!   summed move rows, the newest game's month), for `mirror play`/`uci` in another
//!   process while the server holds the store.
//! - `POST /api/v1/ingest`: `mirror ingest` run by the server on its store, for the
//!   command line while the server holds the store (with the server's token).
//! - `POST /api/v1/imports`, `POST /api/v1/imports/pgn`, `GET /api/v1/imports[/{id}]`:
//!   the page adds a player (a Chess.com or lichess account, a PGN upload) or fetches an
//!   existing player's new games, and follows the ingest as it runs (`jobs.rs`).
//! - `GET /api/v1/openapi.json`: the OpenAPI document of all this.
//! - `GET /health`, `GET /metrics` (Prometheus text).
//! - `GET /`: the web page (explore your tree on a board, play your mirror), its files
//!   embedded in the binary (`web.rs`).
//!
//! Every bad request gets a 4xx JSON body naming the problem. Store reads run on the
//! blocking pool, bounded by a semaphore, so they never block the async runtime.

pub mod bench;
pub mod body;
pub mod cache;
pub mod client;
pub mod error;
mod handlers;
pub mod jobs;
pub mod listen;

pub use handlers::openapi_document;
pub mod metrics;
pub mod owner;
pub mod params;
pub mod prep;
pub mod response;
pub mod unparsed;
pub mod versions;
pub mod web;

use std::{
    sync::{Arc, atomic::AtomicU64},
    time::Instant,
};

use axum::{
    Router,
    extract::{DefaultBodyLimit, MatchedPath, Request, State},
    middleware::{self, Next},
    response::Response,
    routing::get,
};
use mirror_engine::FallbackFactory;
use mirror_ingest::run::{FetchSetup, IngestPlan, Tuning};
use mirror_store::GraphStore;
use tokio::sync::Semaphore;

pub use error::ApiError;
pub use listen::Limits;
use metrics::Metrics;

/// Expensive answers (reports) computed at once; more wait their turn.
pub const HEAVY_AT_ONCE: usize = 2;

/// Largest accepted request body.
pub const BODY_LIMIT: usize = 16 * 1024;

/// What a command run by the server printed, and whether it succeeded.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct CommandOutput {
    /// Its standard output.
    pub stdout: String,
    /// Its standard error (warnings, progress, the error that stopped it).
    pub stderr: String,
    /// Whether it succeeded.
    pub ok: bool,
}

/// What `POST /api/v1/ingest` may ask the server to ingest: the inputs of `mirror ingest`,
/// by name. Where the games come from online is the server's own setting (its Chess.com
/// and lichess addresses), not the caller's; PGN inputs are absolute paths of regular
/// files or directories (never the server's standard input).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase", default)]
pub struct IngestRequest {
    /// The profile (`--user`).
    pub user: Option<String>,
    /// A profile for every player of the PGN inputs (`--all-players`).
    pub all_players: bool,
    /// With `all_players`: the fewest games that make a profile (`--min-games`).
    pub min_games: Option<u64>,
    /// Chess.com accounts (`--chesscom`).
    pub chesscom: Vec<String>,
    /// lichess accounts (`--lichess`).
    pub lichess: Vec<String>,
    /// Other spellings of the player's name (`--alias`).
    pub aliases: Vec<String>,
    /// PGN files or directories, absolute (`--pgn`).
    pub pgn: Vec<String>,
    /// The contact sent to Chess.com (`--contact`).
    pub contact: Option<String>,
    /// First month to fetch, `YYYY-MM` (`--since`).
    pub since: Option<String>,
    /// Last month to fetch, `YYYY-MM` (`--until`).
    pub until: Option<String>,
    /// Seconds before a request times out (`--timeout`).
    pub timeout_secs: Option<u64>,
    /// Retries of a failing request (`--retries`).
    pub retries: Option<u32>,
    /// Games per write transaction (`--batch-size`).
    pub batch_size: Option<u32>,
    /// One line per committed batch in the answer's `stderr` (`--progress plain`).
    pub plain_progress: bool,
}

impl IngestRequest {
    /// What the request cannot ask, named: a relative PGN path, standard input, a path
    /// that is not a regular file or a directory.
    pub fn check(&self) -> Result<(), ApiError> {
        for p in &self.pgn {
            let path = std::path::Path::new(p);
            if p == "-" || !path.is_absolute() {
                return Err(ApiError::BadRequest(format!(
                    "pgn: {p:?} is not an absolute path (the server reads files, not its \
                     standard input)"
                )));
            }
            let meta = std::fs::metadata(path)
                .map_err(|e| ApiError::BadRequest(format!("pgn: cannot read {p:?}: {e}")))?;
            if !meta.is_file() && !meta.is_dir() {
                return Err(ApiError::BadRequest(format!(
                    "pgn: {p:?} is not a regular file or a directory"
                )));
            }
        }
        Ok(())
    }

    /// The ingest this request stands for, with the defaults of `mirror ingest`; or what
    /// is wrong with it (a month that is not `YYYY-MM`).
    pub fn plan(&self) -> Result<(IngestPlan, Tuning), String> {
        let month = |m: &Option<String>, name: &str| {
            m.as_deref()
                .map(|t| {
                    t.parse()
                        .map_err(|e| format!("{name}: {t:?} is not a month (YYYY-MM): {e}"))
                })
                .transpose()
        };
        let plan = IngestPlan {
            user: self.user.clone(),
            all_players: self.all_players,
            min_games: self.min_games.unwrap_or(10),
            chesscom: self.chesscom.clone(),
            lichess: self.lichess.clone(),
            aliases: self.aliases.clone(),
            pgn: self.pgn.iter().map(std::path::PathBuf::from).collect(),
            since: month(&self.since, "since")?,
            until: month(&self.until, "until")?,
        };
        if self
            .batch_size
            .is_some_and(|n| !(1..=1_000_000).contains(&n))
        {
            return Err("batchSize: from 1 to 1,000,000 games".into());
        }
        let defaults = Tuning::default();
        let tuning = Tuning {
            contact: self.contact.clone(),
            timeout_secs: self.timeout_secs.unwrap_or(defaults.timeout_secs),
            retries: self.retries.unwrap_or(defaults.retries),
            batch_size: self.batch_size,
        };
        Ok((plan, tuning))
    }

    /// The request that runs `plan` with `tuning` on a server (the inverse of
    /// [`IngestRequest::plan`]): PGN paths made absolute, since the server runs elsewhere;
    /// standard input refused.
    pub fn of_plan(
        plan: &IngestPlan,
        tuning: &Tuning,
        plain_progress: bool,
    ) -> Result<IngestRequest, String> {
        let mut pgn = Vec::new();
        for p in &plan.pgn {
            if p.as_os_str() == "-" {
                return Err(
                    "--pgn - (standard input) cannot go through mirror serve, which \
                            holds the store: write the games to a file, or stop the server"
                        .into(),
                );
            }
            let abs = std::fs::canonicalize(p)
                .map_err(|e| format!("cannot read {}: {e}", p.display()))?;
            let text = abs.to_str();
            pgn.push(
                text.ok_or_else(|| format!("{} is not UTF-8", abs.display()))?
                    .to_string(),
            );
        }
        Ok(IngestRequest {
            user: plan.user.clone(),
            all_players: plan.all_players,
            min_games: Some(plan.min_games),
            chesscom: plan.chesscom.clone(),
            lichess: plan.lichess.clone(),
            aliases: plan.aliases.clone(),
            pgn,
            contact: tuning.contact.clone(),
            since: plan.since.map(|m| m.to_string()),
            until: plan.until.map(|m| m.to_string()),
            timeout_secs: Some(tuning.timeout_secs),
            retries: Some(tuning.retries),
            batch_size: tuning.batch_size,
            plain_progress,
        })
    }
}

/// Writes through the server: the store is held by this process, so other mirror
/// commands on the same machine send their writes here (`POST /api/v1/ingest`). Only a
/// caller that knows the token may: the server writes it to a file next to the store,
/// readable by its user only, so a web page or another user cannot.
pub struct Writes {
    /// The secret a write must present (`Authorization: Bearer TOKEN`).
    pub token: String,
    /// Where the server's ingests fetch from.
    pub fetch: FetchSetup,
    /// The store in words, for the ingests' reports ("the embedded store PATH").
    pub place: String,
    /// One write at a time (held by the ingest itself, which goes on when its caller
    /// leaves).
    pub lock: Arc<tokio::sync::Mutex<()>>,
}

impl Writes {
    /// Whether `headers` carry the token (`Authorization: Bearer TOKEN`), compared in
    /// constant time: how long a wrong guess takes says nothing about the token.
    pub fn authorized(&self, headers: &axum::http::HeaderMap) -> bool {
        headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .is_some_and(|given| {
                bool::from(subtle::ConstantTimeEq::ct_eq(
                    given.as_bytes(),
                    self.token.as_bytes(),
                ))
            })
    }
}

/// Shared state of the server.
pub struct AppState<S> {
    /// The store.
    pub store: Arc<S>,
    /// Bounds concurrent blocking store work.
    pub blocking: Arc<Semaphore>,
    /// Metrics.
    pub metrics: Arc<Metrics>,
    /// Seeds of requests that do not give one.
    pub seeds: AtomicU64,
    /// The fallback of each player's engine (their model, loaded once); `None` = a random
    /// legal move.
    pub fallbacks: Option<FallbackFactory>,
    /// Players found to have games (mirror never removes a player's games, so a player
    /// once found stays known; unknown ones are asked again).
    pub known_players: Arc<std::sync::Mutex<std::collections::HashSet<String>>>,
    /// The explorer's and the report's answers while their player's data is unchanged.
    pub kept: Arc<cache::ResponseCache>,
    /// The engine's book reads (`/move`) while their player's data is unchanged.
    pub book_cache: Arc<mirror_engine::BookCache>,
    /// The engine's outcomes in book positions (`/move`'s answers before the draw) while
    /// their player's data is unchanged.
    pub kept_moves: Arc<cache::ResponseCache<Arc<cache::KeptMove>>>,
    /// Each player's time model (`/api/v1/pace`) while their data is unchanged.
    pub pace_models: Arc<cache::ResponseCache<Arc<mirror_core::clock::TimeModel>>>,
    /// Each player's drill cards (`/api/v1/drill`) while their data is unchanged.
    pub drill_cards: Arc<cache::ResponseCache<Arc<Vec<mirror_drill::Card>>>>,
    /// Expensive answers (the report) computed at once: few, so that many distinct
    /// requests cannot take the server's memory (each reads a player's whole graph).
    pub heavy: Arc<Semaphore>,
    /// Identical expensive requests running, answered once.
    pub in_flight: Arc<cache::InFlight>,
    /// The requests waiting for a player's version, sharing one read.
    pub versions: versions::VersionReads,
    /// Writes through this server (`None`: none accepted).
    pub writes: Option<Arc<Writes>>,
    /// The ingests run through this server, running and recent.
    pub jobs: Arc<jobs::Jobs>,
}

impl<S> std::fmt::Debug for AppState<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AppState")
    }
}

impl<S: GraphStore + Send + Sync + 'static> AppState<S> {
    /// State over `store` allowing `blocking` concurrent store operations.
    pub fn new(store: Arc<S>, blocking: usize) -> Arc<AppState<S>> {
        Self::with_fallbacks(store, blocking, None)
    }

    /// State whose engines take their fallback from `fallbacks` (e.g. the player's model).
    pub fn with_fallbacks(
        store: Arc<S>,
        blocking: usize,
        fallbacks: Option<FallbackFactory>,
    ) -> Arc<AppState<S>> {
        Self::build(store, blocking, fallbacks, None)
    }

    fn build(
        store: Arc<S>,
        blocking: usize,
        fallbacks: Option<FallbackFactory>,
        writes: Option<Arc<Writes>>,
    ) -> Arc<AppState<S>> {
        // The opening table is read once per process (a few milliseconds): at start, not
        // in the first explorer request.
        mirror_core::openings::Openings::builtin();
        let seed = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        Arc::new(AppState {
            store,
            blocking: Arc::new(Semaphore::new(blocking.max(1))),
            metrics: Arc::new(Metrics::default()),
            seeds: AtomicU64::new(seed),
            fallbacks,
            known_players: Arc::default(),
            kept: Arc::new(cache::ResponseCache::new(cache::CACHE_BYTES)),
            book_cache: Arc::new(mirror_engine::BookCache::new()),
            kept_moves: Arc::new(cache::ResponseCache::new(cache::CACHE_BYTES)),
            pace_models: Arc::new(cache::ResponseCache::new(1 << 20)),
            drill_cards: Arc::new(cache::ResponseCache::new(16 << 20)),
            heavy: Arc::new(Semaphore::new(HEAVY_AT_ONCE)),
            in_flight: Arc::default(),
            versions: versions::VersionReads::default(),
            writes,
            jobs: Arc::default(),
        })
    }

    /// State that also accepts writes (see [`Writes`]).
    pub fn with_writes(
        store: Arc<S>,
        blocking: usize,
        fallbacks: Option<FallbackFactory>,
        token: String,
        (fetch, place): (FetchSetup, String),
    ) -> Arc<AppState<S>> {
        let writes = Writes {
            token,
            fetch,
            place,
            lock: Arc::new(tokio::sync::Mutex::new(())),
        };
        Self::build(store, blocking, fallbacks, Some(Arc::new(writes)))
    }

    /// Runs a short store read: on this task when the store's reads are local and quick
    /// ([`GraphRead::reads_inline`]: the explorer's reads take microseconds, and handing
    /// them to the blocking pool cost more than the read: measured under load, a third of
    /// the server's time went to thread switches, and the tail grew with them), else on
    /// the blocking pool like [`AppState::blocking`].
    pub async fn quick<T, F>(self: &Arc<Self>, work: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&S, Option<&FallbackFactory>) -> Result<T, ApiError> + Send + 'static,
    {
        if self.store.reads_inline() {
            return work(&self.store, self.fallbacks.as_ref());
        }
        self.blocking(work).await
    }

    /// Runs store work on the blocking pool, at most `blocking` at a time.
    pub async fn blocking<T, F>(self: &Arc<Self>, work: F) -> Result<T, ApiError>
    where
        T: Send + 'static,
        F: FnOnce(&S, Option<&FallbackFactory>) -> Result<T, ApiError> + Send + 'static,
    {
        let permit = self
            .blocking
            .clone()
            .acquire_owned()
            .await
            .map_err(|_| ApiError::Busy)?;
        let state = self.clone();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            work(&state.store, state.fallbacks.as_ref())
        })
        .await
        .map_err(|e| ApiError::Internal(format!("store task failed: {e}")))?
    }
}

async fn track<S: Send + Sync + 'static>(
    State(state): State<Arc<AppState<S>>>,
    req: Request,
    next: Next,
) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |p| p.as_str().to_string());
    let span = tracing::info_span!("http", method = %req.method(), route = %route);
    let started = Instant::now();
    let mut resp = tracing::Instrument::instrument(next.run(req), span.clone()).await;
    // No answer is to be read as anything but what its Content-Type says (a JSON error
    // that quotes a request's text must never be taken for HTML).
    resp.headers_mut()
        .entry(axum::http::header::X_CONTENT_TYPE_OPTIONS)
        .or_insert(axum::http::HeaderValue::from_static("nosniff"));
    let elapsed = started.elapsed();
    state
        .metrics
        .record(&route, resp.status().as_u16(), elapsed);
    span.in_scope(|| {
        tracing::debug!(
            status = resp.status().as_u16(),
            micros = elapsed.as_micros() as u64,
            "answered"
        );
    });
    resp
}

/// The router with every route, error fallback and the metrics layer.
pub fn router<S: GraphStore + Send + Sync + 'static>(state: Arc<AppState<S>>) -> Router {
    Router::new()
        .route(
            "/api/v1/move",
            get(handlers::move_get::<S>)
                .post(handlers::move_post::<S>)
                .fallback(handlers::method_not_allowed),
        )
        .route(
            "/api/v1/explore",
            get(handlers::explore::<S>).fallback(handlers::method_not_allowed),
        )
        .route(
            "/api/v1/player",
            get(handlers::player::<S>).fallback(handlers::method_not_allowed),
        )
        // lichess's own path, for clients that join their explorer's path to a host (berserk
        // asks `/player` of the explorer's address, whatever path that address has).
        .route(
            "/player",
            get(handlers::player::<S>).fallback(handlers::method_not_allowed),
        )
        .route(
            "/api/v1/session",
            get(handlers::session::<S>).fallback(handlers::method_not_allowed),
        )
        .route(
            "/api/v1/game",
            get(handlers::game::<S>).fallback(handlers::method_not_allowed),
        )
        .route(
            "/api/v1/report",
            get(handlers::report::<S>).fallback(handlers::method_not_allowed),
        )
        .route(
            "/api/v1/pace",
            get(handlers::pace::<S>).fallback(handlers::method_not_allowed),
        )
        .route(
            "/api/v1/ingest",
            axum::routing::post(handlers::ingest::<S>).fallback(handlers::method_not_allowed),
        )
        .route(
            "/api/v1/imports",
            get(handlers::imports::<S>)
                .post(handlers::import::<S>)
                .fallback(handlers::method_not_allowed),
        )
        .route(
            "/api/v1/imports/pgn",
            axum::routing::post(handlers::import_pgn::<S>)
                .layer(DefaultBodyLimit::max(jobs::UPLOAD_LIMIT))
                .fallback(handlers::method_not_allowed),
        )
        .route(
            "/api/v1/imports/{id}",
            get(handlers::import_status::<S>)
                .delete(handlers::import_cancel::<S>)
                .fallback(handlers::method_not_allowed),
        )
        .route(
            "/api/v1/book",
            get(handlers::book::<S>).fallback(handlers::method_not_allowed),
        )
        .route(
            "/api/v1/book/newest",
            get(handlers::book_newest::<S>).fallback(handlers::method_not_allowed),
        )
        .route(
            "/api/v1/prep",
            axum::routing::get(handlers::prep::<S>).fallback(handlers::method_not_allowed),
        )
        .route(
            "/api/v1/repertoire",
            get(handlers::repertoire::<S>).fallback(handlers::method_not_allowed),
        )
        .route(
            "/api/v1/drill",
            get(handlers::drill_queue::<S>)
                .post(handlers::drill_answer::<S>)
                .fallback(handlers::method_not_allowed),
        )
        .route(
            "/api/v1/players",
            get(handlers::players::<S>).fallback(handlers::method_not_allowed),
        )
        .route(
            "/api/v1/openapi.json",
            get(handlers::openapi).fallback(handlers::method_not_allowed),
        )
        .route(
            "/health",
            get(handlers::health::<S>).fallback(handlers::method_not_allowed),
        )
        .route(
            "/metrics",
            get(handlers::metrics::<S>).fallback(handlers::method_not_allowed),
        )
        .route("/", get(web::index).fallback(handlers::method_not_allowed))
        .route(
            "/assets/{name}",
            get(web::file).fallback(handlers::method_not_allowed),
        )
        .fallback(handlers::not_found)
        .layer(middleware::from_fn_with_state(state.clone(), track::<S>))
        .layer(DefaultBodyLimit::max(BODY_LIMIT))
        .with_state(state)
}

/// Serves on `listener` until `shutdown` resolves, within the default [`Limits`]:
/// in-flight requests get 5 s to finish, then the server stops whatever its clients do.
pub async fn serve<S, F>(
    listener: tokio::net::TcpListener,
    state: Arc<AppState<S>>,
    shutdown: F,
) -> std::io::Result<()>
where
    S: GraphStore + Send + Sync + 'static,
    F: std::future::Future<Output = ()> + Send + 'static,
{
    listen::serve_router(listener, router(state), Limits::default(), shutdown).await
}
