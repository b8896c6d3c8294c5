//! The HTTP API under load (`mirror bench serve`): the server in this process on loopback,
//! in the state `mirror serve` gives it, loaded over a player's most played and random
//! positions, each position's first answer (one connection) and then round and round with
//! many connections. Figures are returned for the caller to print, never asserted.

use std::{
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use mirror_core::PositionKey;
use mirror_engine::FallbackFactory;
use mirror_store::{GraphStore, StoreError};
use rand::{SeedableRng, seq::SliceRandom};
use rustc_hash::FxHashMap;
use shakmaty::Position;

use crate::{AppState, serve};

pub mod sample;

/// Why a load could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A stored position has no EPD.
    #[error("position {0} cannot be asked for: no EPD stored")]
    NoEpd(PositionKey),
    /// A position's FEN does not parse.
    #[error("FEN {fen:?}: {why}")]
    Fen {
        /// The FEN.
        fen: String,
        /// Why it does not parse.
        why: String,
    },
    /// The server or the client could not start, or a load task died.
    #[error("the load could not run: {0}")]
    Setup(String),
}

/// The endpoint loaded.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Endpoint {
    /// `GET /api/v1/explore` with `recentGames`.
    Explore {
        /// `recentGames` of each request.
        recent_games: usize,
    },
    /// `GET /api/v1/move`.
    Move,
}

/// The player's `top` most played positions (games through each, both colours) and
/// `random` others drawn uniformly (seeded), as FENs.
pub fn positions<S: GraphStore + ?Sized>(
    store: &S,
    user: &str,
    top: usize,
    random: usize,
    seed: u64,
) -> Result<(Vec<String>, Vec<String>), BenchError> {
    let mut games: FxHashMap<PositionKey, u64> = FxHashMap::default();
    for e in store.edges(user)? {
        *games.entry(e.pos).or_default() += u64::from(e.stats.games());
    }
    let mut all: Vec<(PositionKey, u64)> = games.into_iter().collect();
    all.sort_unstable_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let rest_start = top.min(all.len());
    let mut rest: Vec<PositionKey> = all[rest_start..].iter().map(|(k, _)| *k).collect();
    rest.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
    rest.truncate(random);
    let fen = |k: PositionKey| -> Result<String, BenchError> {
        let epd = store.position_epd(k)?.ok_or(BenchError::NoEpd(k))?;
        Ok(format!("{epd} 0 1"))
    };
    let tops = all[..rest_start]
        .iter()
        .map(|(k, _)| fen(*k))
        .collect::<Result<_, _>>()?;
    let randoms = rest.into_iter().map(fen).collect::<Result<_, _>>()?;
    Ok((tops, randoms))
}

/// The request paths of `endpoint` for `user` at each FEN.
pub fn paths(endpoint: Endpoint, user: &str, fens: &[String]) -> Vec<String> {
    fens.iter()
        .map(|fen| {
            let fen = fen.replace(' ', "%20").replace('/', "%2F");
            match endpoint {
                Endpoint::Explore { recent_games } => {
                    format!("/api/v1/explore?user={user}&fen={fen}&recentGames={recent_games}")
                }
                Endpoint::Move => format!("/api/v1/move?user={user}&fen={fen}"),
            }
        })
        .collect()
}

/// `n` paths of a route that reads nothing (`/metrics`, a few lines of text): the floor
/// the endpoints' figures are read against.
pub fn floor_paths(n: usize) -> Vec<String> {
    (0..n).map(|i| format!("/metrics?{i}")).collect()
}

/// The `p` quantile (0 to 1) of sorted durations (zero for none).
pub fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Latencies (sorted) and failed requests of one load.
#[derive(Clone, Debug, Default)]
pub struct Load {
    /// Each request's latency, sorted.
    pub latencies: Vec<Duration>,
    /// Requests that failed or did not answer 2xx.
    pub errors: u64,
    /// The load's duration.
    pub elapsed: Duration,
}

impl Load {
    /// Requests per second.
    pub fn rate(&self) -> f64 {
        self.latencies.len() as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// The latencies of one kind of store read, sorted: each position's first read on the
/// handle (cold), and the 19 rounds after it (warm).
#[derive(Clone, Debug, Default)]
pub struct ReadTimes {
    /// First reads.
    pub cold: Vec<Duration>,
    /// Later reads.
    pub warm: Vec<Duration>,
}

/// The store reads of an explore request at each position, in this thread without HTTP:
/// its moves and recent games, then apart the evaluations of the position and of the
/// positions after its moves (the explorer's one read of N+1 keys). Round 0 is each
/// position's first read on this handle, the 19 rounds after it are warm.
pub fn store_reads<S: GraphStore + ?Sized>(
    store: &S,
    user: &str,
    fens: &[String],
    recent_games: usize,
) -> Result<(ReadTimes, ReadTimes), BenchError> {
    let keys = fens
        .iter()
        .map(|f| {
            let pos = mirror_core::notation::parse_fen(f).map_err(|e| BenchError::Fen {
                fen: f.clone(),
                why: e.to_string(),
            })?;
            Ok((PositionKey::from_position(&pos), pos.turn()))
        })
        .collect::<Result<Vec<_>, BenchError>>()?;
    let (mut reads, mut evals) = (ReadTimes::default(), ReadTimes::default());
    for round in 0..20 {
        for (key, turn) in &keys {
            let filter = mirror_store::Filter {
                color: Some(*turn),
                ..mirror_store::Filter::default()
            };
            let t = Instant::now();
            let rows = store.moves(user, *key, &filter)?;
            store.recent_games(user, *key, &filter, recent_games)?;
            let read = t.elapsed();
            let t = Instant::now();
            crate::response::ExploreEvals::read(store, *key, &rows)?;
            let evaluated = t.elapsed();
            for (times, took) in [(&mut reads, read), (&mut evals, evaluated)] {
                if round == 0 {
                    &mut times.cold
                } else {
                    &mut times.warm
                }
                .push(took);
            }
        }
    }
    for times in [&mut reads, &mut evals] {
        times.cold.sort_unstable();
        times.warm.sort_unstable();
    }
    Ok((reads, evals))
}

/// Sends the URLs with `connections` clients: each once (`seconds == 0`) or round and
/// round for `seconds`.
async fn load(
    client: &reqwest::Client,
    urls: &Arc<Vec<String>>,
    connections: usize,
    seconds: u64,
) -> Result<Load, BenchError> {
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let end = started + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for t in 0..connections {
        let (client, urls, next) = (client.clone(), urls.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            let (mut lat, mut errors) = (Vec::new(), 0u64);
            let mut i = t * 7919;
            loop {
                let url = if seconds == 0 {
                    let Some(url) = urls.get(next.fetch_add(1, Ordering::Relaxed)) else {
                        break;
                    };
                    url
                } else {
                    if Instant::now() >= end {
                        break;
                    }
                    i += 1;
                    &urls[i % urls.len()]
                };
                let sent = Instant::now();
                let ok = match client.get(url).send().await {
                    Ok(resp) if resp.status().is_success() => resp.bytes().await.is_ok(),
                    _ => false,
                };
                lat.push(sent.elapsed());
                errors += u64::from(!ok);
            }
            (lat, errors)
        }));
    }
    let mut out = Load::default();
    for t in tasks {
        let (l, e) = t
            .await
            .map_err(|e| BenchError::Setup(format!("a load task died: {e}")))?;
        out.latencies.extend(l);
        out.errors += e;
    }
    out.elapsed = started.elapsed();
    out.latencies.sort_unstable();
    Ok(out)
}

/// The sets of paths a load runs, by name (e.g. "most played", "random").
pub type PathSets = Vec<(String, Vec<String>)>;

/// What [`run`] measured: each set's first answers (one connection) and its warm load.
#[derive(Debug, Default)]
pub struct Figures {
    /// Each position's first answer, one connection, by set.
    pub cold: Vec<(String, Load)>,
    /// The warm load, by set (the cold sets and then `warm_only`).
    pub warm: Vec<(String, Load)>,
}

/// Starts the server over `store` on loopback (with `fallbacks`, as `mirror serve`), asks
/// each set's paths once on one connection, then loads every set (and `warm_only`, e.g.
/// the floor) with `connections` clients for `seconds` each.
pub fn run<S: GraphStore + Send + Sync + 'static>(
    store: Arc<S>,
    fallbacks: Option<FallbackFactory>,
    sets: &PathSets,
    warm_only: &PathSets,
    connections: usize,
    seconds: u64,
) -> Result<Figures, BenchError> {
    let setup = |e: &dyn std::fmt::Display| BenchError::Setup(e.to_string());
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| setup(&e))?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| setup(&e))?;
        let addr = listener.local_addr().map_err(|e| setup(&e))?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let state = AppState::with_fallbacks(store, 64, fallbacks);
        let server = tokio::spawn(serve(listener, state, async move {
            let _ = stopped.await;
        }));
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(connections)
            .no_proxy()
            .build()
            .map_err(|e| setup(&e))?;
        let urls = |p: &[String]| -> Arc<Vec<String>> {
            Arc::new(p.iter().map(|p| format!("http://{addr}{p}")).collect())
        };
        let mut figures = Figures::default();
        for (name, paths) in sets {
            if !paths.is_empty() {
                figures
                    .cold
                    .push((name.clone(), load(&client, &urls(paths), 1, 0).await?));
            }
        }
        for (name, paths) in sets.iter().chain(warm_only) {
            if !paths.is_empty() {
                let warm = load(&client, &urls(paths), connections, seconds).await?;
                figures.warm.push((name.clone(), warm));
            }
        }
        let _ = stop.send(());
        let _ = server.await;
        Ok(figures)
    })
}

/// What `mirror bench serve` loads: the player's heaviest and random positions of their
/// tree, as request paths, and the floor (a route that reads nothing).
#[derive(Clone, Debug)]
pub struct Requests {
    /// The player, as stored.
    pub user: String,
    /// The endpoint.
    pub endpoint: Endpoint,
    /// The most played positions (FENs).
    pub tops: Vec<String>,
    /// The random positions (FENs).
    pub randoms: Vec<String>,
    /// Their request paths.
    pub top_paths: Vec<String>,
    /// The random positions' paths.
    pub random_paths: Vec<String>,
    /// The floor's paths (`/metrics`), as many as the top paths.
    pub floor_paths: Vec<String>,
}

impl Requests {
    /// The `top` most played and `random` random positions (seeded) of `user` asked of
    /// `endpoint`; an error when the player has no stored games.
    pub fn new<S: GraphStore + ?Sized>(
        store: &S,
        user: &str,
        endpoint: Endpoint,
        (top, random, seed): (usize, usize, u64),
    ) -> Result<Requests, BenchError> {
        if top == 0 {
            return Err(BenchError::Setup(
                "--top 0: the load needs one most played position at least (the start \
                 position is one)"
                    .into(),
            ));
        }
        let (tops, randoms) = positions(store, user, top, random, seed)?;
        if tops.is_empty() {
            return Err(BenchError::Setup(format!("{user} has no stored games")));
        }
        let top_paths = paths(endpoint, user, &tops);
        Ok(Requests {
            user: user.to_string(),
            endpoint,
            random_paths: paths(endpoint, user, &randoms),
            floor_paths: floor_paths(top_paths.len()),
            top_paths,
            tops,
            randoms,
        })
    }

    /// Writes the paths to DIR/top.txt, random.txt and floor.txt (for wrk with
    /// bench/wrk/paths.lua); says what it wrote.
    pub fn write(&self, dir: &std::path::Path) -> std::io::Result<String> {
        std::fs::create_dir_all(dir)?;
        let lists = [
            ("top.txt", &self.top_paths),
            ("random.txt", &self.random_paths),
            ("floor.txt", &self.floor_paths),
        ];
        for (name, list) in lists {
            std::fs::write(dir.join(name), list.join("\n") + "\n")?;
        }
        Ok(format!(
            "wrote {} and {} paths to {}/top.txt and random.txt (and floor.txt)",
            self.top_paths.len(),
            self.random_paths.len(),
            dir.display()
        ))
    }

    /// The store reads of the explore requests, in this thread, no HTTP, cold then warm,
    /// as lines.
    pub fn store_read_lines<S: GraphStore + ?Sized>(
        &self,
        store: &S,
    ) -> Result<String, BenchError> {
        let Endpoint::Explore { recent_games } = self.endpoint else {
            return Ok(String::new());
        };
        let mut text = format!(
            "store reads of an explore request (moves + {recent_games} recent games; then apart the evaluations of the position and after its moves), in this thread, no HTTP:\n"
        );
        for (name, fens) in [("most played", &self.tops), ("random", &self.randoms)] {
            if fens.is_empty() {
                continue;
            }
            let (reads, evals) = store_reads(store, &self.user, fens, recent_games)?;
            let us = |d: Duration| d.as_secs_f64() * 1e6;
            for (label, t) in [(name, &reads), ("+ evals", &evals)] {
                text.push_str(&format!(
                    "  {label:<12} cold p50 {:>7.0} us  p99 {:>7.0} us   warm p50 {:>6.0} us  p99 {:>6.0} us\n",
                    us(percentile(&t.cold, 0.5)),
                    us(percentile(&t.cold, 0.99)),
                    us(percentile(&t.warm, 0.5)),
                    us(percentile(&t.warm, 0.99)),
                ));
            }
        }
        Ok(text)
    }

    /// The two sets of paths loaded: the most played positions, the random ones.
    pub fn sets(&self) -> PathSets {
        vec![
            ("most played".to_string(), self.top_paths.clone()),
            ("random".to_string(), self.random_paths.clone()),
        ]
    }

    /// What the load is, in a line.
    pub fn headline(&self, connections: usize) -> String {
        let what = match self.endpoint {
            Endpoint::Explore { recent_games } => {
                format!("/api/v1/explore (recentGames={recent_games})")
            }
            Endpoint::Move => "/api/v1/move".to_string(),
        };
        format!(
            "mirror bench serve: GET {what}, {}: {} most played and {} random positions of the tree, {connections} connections (server and load generator share this machine's cores)",
            self.user,
            self.top_paths.len(),
            self.random_paths.len(),
        )
    }

    /// Loads both sets and the floor ([`run`]) on `store`, a fresh handle (its own cache
    /// starts empty; the OS may still cache the file).
    pub fn load<S: GraphStore + Send + Sync + 'static>(
        &self,
        store: Arc<S>,
        fallbacks: Option<FallbackFactory>,
        connections: usize,
        seconds: u64,
    ) -> Result<Figures, BenchError> {
        let sets = self.sets();
        // The floor: a route that reads nothing, loaded the same way, so that the
        // endpoint's figures can be read against what HTTP alone costs on this machine.
        let floor = vec![(
            "floor: GET /metrics, no store read".to_string(),
            self.floor_paths.clone(),
        )];
        run(store, fallbacks, &sets, &floor, connections, seconds)
    }
}

impl std::fmt::Display for Figures {
    /// A line per load: requests (or requests/s), p50, p99, max, errors.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let line = |f: &mut std::fmt::Formatter<'_>, label: String, l: &Load, rate: bool| {
            let n = l.latencies.len();
            let rate = if rate {
                format!("{:>7.0} requests/s", l.rate())
            } else {
                format!("{n:>4} requests")
            };
            writeln!(
                f,
                "  {label:<22} {rate}   p50 {:>6.2} ms   p99 {:>6.2} ms   max {:>7.2} ms   errors {}",
                ms(percentile(&l.latencies, 0.5)),
                ms(percentile(&l.latencies, 0.99)),
                ms(l.latencies.last().copied().unwrap_or_default()),
                l.errors
            )
        };
        for (name, l) in &self.cold {
            line(f, format!("cold, {name}, 1 conn."), l, false)?;
        }
        for (name, l) in &self.warm {
            line(f, format!("warm, {name}"), l, true)?;
        }
        Ok(())
    }
}
