//! `mirror bench serve`: the HTTP API under load, on the player's heaviest and on random
//! positions of their tree, cold (a fresh store handle, each position asked for the first
//! time) and warm. Figures are printed, never asserted.

use std::{
    path::PathBuf,
    process::ExitCode,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use anyhow::Context;
use clap::{Args, ValueEnum};
use mirror_core::PositionKey;
use mirror_server::{AppState, serve};
use mirror_store::{GraphStore, embedded::OpenMode};
use rand::{SeedableRng, seq::SliceRandom};
use rustc_hash::FxHashMap;
use shakmaty::Position;

use crate::{cli::StoreArgs, play::require_player, serve::model_fallbacks};

/// The endpoint a serve benchmark loads.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum Endpoint {
    /// `GET /api/v1/explore` (with `recentGames`).
    Explore,
    /// `GET /api/v1/move`.
    Move,
}

#[derive(Args, Debug)]
pub struct ServeBenchArgs {
    /// The player (must be in the store).
    #[arg(long, short = 'u')]
    pub user: String,
    /// The endpoint to load.
    #[arg(long, value_enum, default_value_t = Endpoint::Explore)]
    pub endpoint: Endpoint,
    /// Concurrent connections.
    #[arg(long, default_value_t = 64)]
    pub connections: usize,
    /// Seconds of warm load per position set.
    #[arg(long, default_value_t = 10)]
    pub seconds: u64,
    /// The player's most played positions loaded (the start position is one).
    #[arg(long, default_value_t = 20)]
    pub top: usize,
    /// Random positions of the player's tree loaded (seeded).
    #[arg(long, default_value_t = 200)]
    pub random: usize,
    /// `recentGames` of each explore request.
    #[arg(long, default_value_t = 4)]
    pub recent_games: usize,
    /// Seed of the random positions.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also write the request paths to DIR/top.txt and DIR/random.txt (for wrk with
    /// bench/wrk/paths.lua) and stop.
    #[arg(long, value_name = "DIR")]
    pub paths_out: Option<PathBuf>,
}

/// The player's `top` most played positions (games through each, both colours) and
/// `random` others drawn uniformly, as FENs.
fn positions<S: GraphStore + ?Sized>(
    store: &S,
    user: &str,
    top: usize,
    random: usize,
    seed: u64,
) -> anyhow::Result<(Vec<String>, Vec<String>)> {
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
    let fen = |k: PositionKey| -> anyhow::Result<String> {
        let epd = store
            .position_epd(k)?
            .with_context(|| format!("position {k} has no EPD"))?;
        Ok(format!("{epd} 0 1"))
    };
    let tops = all[..rest_start]
        .iter()
        .map(|(k, _)| fen(*k))
        .collect::<anyhow::Result<_>>()?;
    let randoms = rest.into_iter().map(fen).collect::<anyhow::Result<_>>()?;
    Ok((tops, randoms))
}

fn path(endpoint: Endpoint, user: &str, fen: &str, recent_games: usize) -> String {
    let fen = fen.replace(' ', "%20").replace('/', "%2F");
    match endpoint {
        Endpoint::Explore => {
            format!("/api/v1/explore?user={user}&fen={fen}&recentGames={recent_games}")
        }
        Endpoint::Move => format!("/api/v1/move?user={user}&fen={fen}"),
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// Latencies (sorted) and failed requests of one load.
struct Load {
    latencies: Vec<Duration>,
    errors: u64,
    elapsed: Duration,
}

impl Load {
    fn line(&self, label: &str, rate: bool) -> String {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        let n = self.latencies.len();
        let rate = if rate {
            format!(
                "{:>7.0} requests/s",
                n as f64 / self.elapsed.as_secs_f64().max(1e-9)
            )
        } else {
            format!("{n:>4} requests")
        };
        format!(
            "  {label:<22} {rate}   p50 {:>6.2} ms   p99 {:>6.2} ms   max {:>7.2} ms   errors {}",
            ms(percentile(&self.latencies, 0.5)),
            ms(percentile(&self.latencies, 0.99)),
            ms(self.latencies.last().copied().unwrap_or_default()),
            self.errors
        )
    }
}

/// Sends the URLs with `connections` clients: each once (`seconds == 0`) or round and
/// round for `seconds`.
async fn load(
    client: &reqwest::Client,
    urls: &Arc<Vec<String>>,
    connections: usize,
    seconds: u64,
) -> anyhow::Result<Load> {
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
    let mut out = Load {
        latencies: Vec::new(),
        errors: 0,
        elapsed: Duration::ZERO,
    };
    for t in tasks {
        let (l, e) = t.await?;
        out.latencies.extend(l);
        out.errors += e;
    }
    out.elapsed = started.elapsed();
    out.latencies.sort_unstable();
    Ok(out)
}

pub fn run(store_args: &StoreArgs, args: ServeBenchArgs) -> anyhow::Result<ExitCode> {
    let (user, tops, randoms) = {
        let store = store_args.open(OpenMode::MustExist)?;
        let user = require_player(&store, &args.user)?;
        let (tops, randoms) = positions(&store, &user, args.top, args.random, args.seed)?;
        (user, tops, randoms)
    };
    anyhow::ensure!(!tops.is_empty(), "{user} has no stored games");
    let paths = |fens: &[String]| -> Vec<String> {
        fens.iter()
            .map(|f| path(args.endpoint, &user, f, args.recent_games))
            .collect()
    };
    let (top_paths, random_paths) = (paths(&tops), paths(&randoms));
    // The floor: a route that reads nothing (its answer is a few lines of text), loaded
    // the same way, so that the explorer's figures can be read against what HTTP alone
    // costs on this machine.
    let floor_paths: Vec<String> = (0..top_paths.len())
        .map(|i| format!("/metrics?{i}"))
        .collect();
    if let Some(dir) = &args.paths_out {
        std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
        let lists = [
            ("top.txt", &top_paths),
            ("random.txt", &random_paths),
            ("floor.txt", &floor_paths),
        ];
        for (name, list) in lists {
            let file = dir.join(name);
            std::fs::write(&file, list.join("\n") + "\n")
                .with_context(|| format!("write {}", file.display()))?;
        }
        println!(
            "wrote {} and {} paths to {}/top.txt and random.txt (and floor.txt)",
            top_paths.len(),
            random_paths.len(),
            dir.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    if args.endpoint == Endpoint::Explore {
        // A handle of its own (dropped before the server opens a fresh one).
        let store = store_args.open(OpenMode::MustExist)?;
        // The store's share of an explore request, without HTTP: its two reads.
        println!(
            "store reads of an explore request (moves + {} recent games), in this thread, no HTTP:",
            args.recent_games
        );
        for (name, fens) in [("most played", &tops), ("random", &randoms)] {
            if fens.is_empty() {
                continue;
            }
            let keys = fens
                .iter()
                .map(|f| {
                    let pos = mirror_core::notation::parse_fen(f)?;
                    Ok((PositionKey::from_position(&pos), pos.turn()))
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            // Round 0 is each position's first read on this handle; rounds 1-19 are warm.
            let (mut cold, mut warm) = (Vec::new(), Vec::new());
            for round in 0..20 {
                for (key, turn) in &keys {
                    let filter = mirror_store::Filter {
                        color: Some(*turn),
                        ..mirror_store::Filter::default()
                    };
                    let t = Instant::now();
                    store.moves(&user, *key, &filter)?;
                    store.recent_games(&user, *key, &filter, args.recent_games)?;
                    if round == 0 { &mut cold } else { &mut warm }.push(t.elapsed());
                }
            }
            cold.sort_unstable();
            warm.sort_unstable();
            let us = |d: Duration| d.as_secs_f64() * 1e6;
            println!(
                "  {name:<12} cold p50 {:>7.0} us  p99 {:>7.0} us   warm p50 {:>6.0} us  p99 {:>6.0} us",
                us(percentile(&cold, 0.5)),
                us(percentile(&cold, 0.99)),
                us(percentile(&warm, 0.5)),
                us(percentile(&warm, 0.99)),
            );
        }
    }
    // A fresh handle: the store's own cache starts empty (the OS may still cache the file).
    let store = Arc::new(store_args.open(OpenMode::MustExist)?);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let state = AppState::with_fallbacks(store, 64, Some(model_fallbacks(store_args)));
        let server = tokio::spawn(serve(listener, state, async move {
            let _ = stopped.await;
        }));
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(args.connections)
            .build()?;
        let urls = |p: &[String]| -> Arc<Vec<String>> {
            Arc::new(p.iter().map(|p| format!("http://{addr}{p}")).collect())
        };
        let (top_urls, random_urls) = (urls(&top_paths), urls(&random_paths));
        let floor_urls = urls(&floor_paths);
        let endpoint = match args.endpoint {
            Endpoint::Explore => format!("/api/v1/explore (recentGames={})", args.recent_games),
            Endpoint::Move => "/api/v1/move".to_string(),
        };
        println!(
            "mirror bench serve: GET {endpoint}, {user}: {} most played and {} random positions of the tree, {} connections (server and load generator share this machine's cores)",
            top_urls.len(),
            random_urls.len(),
            args.connections
        );
        let sets = [("most played", &top_urls), ("random", &random_urls)];
        for (name, urls) in sets {
            if !urls.is_empty() {
                // One connection: each position's first answer, not the queue of 64.
                let cold = load(&client, urls, 1, 0).await?;
                println!("{}", cold.line(&format!("cold, {name}, 1 conn."), false));
            }
        }
        let floor = [("floor: GET /metrics, no store read", &floor_urls)];
        for (name, urls) in sets.iter().chain(&floor) {
            if !urls.is_empty() {
                let warm = load(&client, urls, args.connections, args.seconds).await?;
                println!("{}", warm.line(&format!("warm, {name}"), true));
            }
        }
        let _ = stop.send(());
        let _ = server.await;
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}
