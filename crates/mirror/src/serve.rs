//! `mirror serve` and `mirror bench serve`.

use std::{
    collections::HashMap,
    net::SocketAddr,
    process::ExitCode,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use anyhow::Context;
use clap::Args;
use mirror_core::PositionKey;
use mirror_core::notation;
use mirror_engine::{Fallback, FallbackFactory, ModelFallback, RandomLegal};
use mirror_model::Predictor;
use mirror_server::{AppState, serve};
use mirror_store::{GraphStore, embedded::OpenMode};
use shakmaty::{Chess, Position};

use crate::{cli::StoreArgs, play::require_player};

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on (loopback unless told otherwise).
    #[arg(long, env = "MIRROR_BIND", default_value = "127.0.0.1:8080")]
    pub bind: String,
    /// Store operations running at once (the rest wait).
    #[arg(long, default_value_t = 64)]
    pub blocking: usize,
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        () = ctrl_c => {},
        () = term => {},
    }
}

/// Each player's model fallback, loaded on the first request that needs it and shared by
/// every request after it; a player without a model gets a random legal move (and so does
/// one whose model cannot be loaded, after an error on stderr).
pub fn model_fallbacks(store_args: &StoreArgs) -> FallbackFactory {
    let store_args = store_args.clone();
    let cache: Mutex<HashMap<String, Option<Arc<Predictor>>>> = Mutex::new(HashMap::new());
    Arc::new(move |player: &str| -> Box<dyn Fallback> {
        let key = player.to_lowercase();
        let model = {
            let mut cache = cache
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            cache
                .entry(key)
                .or_insert_with(|| match crate::train::load_model(&store_args, player) {
                    Ok(model) => model.map(Arc::new),
                    Err(e) => {
                        eprintln!(
                            "mirror: error: {e:#}; {player}'s moves outside their games will be random"
                        );
                        None
                    }
                })
                .clone()
        };
        match model {
            Some(p) => Box::new(ModelFallback::new(p)),
            None => Box::new(RandomLegal),
        }
    })
}

pub fn run(store_args: &StoreArgs, args: ServeArgs) -> anyhow::Result<ExitCode> {
    let addr: SocketAddr = args.bind.parse().with_context(|| {
        format!(
            "--bind {:?} is not an address like 127.0.0.1:8080",
            args.bind
        )
    })?;
    let store = Arc::new(store_args.open(OpenMode::MustExist)?);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .with_context(|| format!("cannot listen on {addr}"))?;
        eprintln!(
            "mirror serving {} on http://{}/ (Ctrl-C to stop)",
            store_args.describe()?,
            listener.local_addr()?
        );
        serve(
            listener,
            AppState::with_fallbacks(store, args.blocking, Some(model_fallbacks(store_args))),
            shutdown_signal(),
        )
        .await?;
        eprintln!("mirror stopped");
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// Book positions of the player: positions from their games (first 12 plies) where they
/// are to move and have a book answer, as FENs.
fn book_positions<S: GraphStore>(
    store: &S,
    user: &str,
    limit: usize,
) -> anyhow::Result<Vec<String>> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (game, color) in store.games(user)?.iter().rev() {
        let mut pos = Chess::default();
        for code in game.moves.iter().take(12) {
            let Ok(m) = code.to_move(&pos) else { break };
            if pos.turn() == *color && seen.insert(PositionKey::from_position(&pos)) {
                out.push(notation::fen(&pos));
            }
            pos.play_unchecked(m);
        }
        if out.len() >= limit {
            break;
        }
    }
    Ok(out)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

pub fn bench(
    store_args: &StoreArgs,
    user: &str,
    connections: usize,
    seconds: u64,
) -> anyhow::Result<ExitCode> {
    let store = Arc::new(store_args.open(OpenMode::MustExist)?);
    let user = require_player(&*store, user)?;
    let fens = book_positions(&*store, &user, 500)?;
    anyhow::ensure!(!fens.is_empty(), "{user} has no stored games");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        // The same state as `mirror serve`: the player's model answers outside the book.
        let state = AppState::with_fallbacks(store, 64, Some(model_fallbacks(store_args)));
        let server = tokio::spawn(serve(listener, state, async move {
            let _ = stopped.await;
        }));
        let urls: Arc<Vec<String>> = Arc::new(
            fens.iter()
                .map(|f| {
                    format!(
                        "http://{addr}/api/v1/move?user={}&fen={}",
                        user,
                        f.replace(' ', "%20").replace('/', "%2F")
                    )
                })
                .collect(),
        );
        let client = reqwest::Client::builder()
            .pool_max_idle_per_host(connections)
            .build()?;
        let warmup_end = Instant::now() + Duration::from_secs(1);
        let end = warmup_end + Duration::from_secs(seconds);
        let mut tasks = Vec::new();
        for t in 0..connections {
            let client = client.clone();
            let urls = urls.clone();
            tasks.push(tokio::spawn(async move {
                let mut lat = Vec::new();
                let (mut errors, mut book, mut i) = (0u64, 0u64, t * 7919);
                loop {
                    let now = Instant::now();
                    if now >= end {
                        break;
                    }
                    let url = &urls[i % urls.len()];
                    i += 1;
                    let r = client.get(url).send().await;
                    let ok = match r {
                        Ok(resp) if resp.status().is_success() => match resp.bytes().await {
                            Ok(b) => {
                                const BOOK: &[u8] = b"\"kind\":\"book\"";
                                if now >= warmup_end && b.windows(BOOK.len()).any(|w| w == BOOK) {
                                    book += 1;
                                }
                                true
                            }
                            Err(_) => false,
                        },
                        _ => false,
                    };
                    if now >= warmup_end {
                        lat.push(now.elapsed());
                        if !ok {
                            errors += 1;
                        }
                    }
                }
                (lat, errors, book)
            }));
        }
        let mut all = Vec::new();
        let (mut errors, mut book) = (0, 0);
        for t in tasks {
            let (l, e, b) = t.await?;
            all.extend(l);
            errors += e;
            book += b;
        }
        let _ = stop.send(());
        let _ = server.await;
        all.sort_unstable();
        let n = all.len() as f64;
        println!(
            "mirror bench serve: GET /api/v1/move, {} book positions of {user}, {connections} connections, {seconds} s (server and load generator share this machine's cores)",
            urls.len()
        );
        println!(
            "  {:.0} requests/s   p50 {:.2} ms   p99 {:.2} ms   max {:.2} ms   errors {errors}   book answers {:.1}%",
            n / seconds as f64,
            percentile(&all, 0.5).as_secs_f64() * 1e3,
            percentile(&all, 0.99).as_secs_f64() * 1e3,
            all.last().copied().unwrap_or_default().as_secs_f64() * 1e3,
            100.0 * book as f64 / n.max(1.0)
        );
        anyhow::Ok(())
    })?;
    Ok(ExitCode::SUCCESS)
}
