//! `mirror bench serve`: the HTTP API under load, on the player's heaviest and on random
//! positions of their tree, cold (a fresh store handle, each position asked for the first
//! time) and warm. Figures are printed, never asserted.

use std::{path::PathBuf, process::ExitCode, sync::Arc, time::Duration};

use anyhow::Context;
use clap::{Args, ValueEnum};
use mirror_server::bench::{self, Load, percentile};
use mirror_store::embedded::OpenMode;

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

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// One load as a line: requests (or requests/s), p50, p99, max, errors.
fn line(label: &str, l: &Load, rate: bool) -> String {
    let n = l.latencies.len();
    let rate = if rate {
        format!("{:>7.0} requests/s", l.rate())
    } else {
        format!("{n:>4} requests")
    };
    format!(
        "  {label:<22} {rate}   p50 {:>6.2} ms   p99 {:>6.2} ms   max {:>7.2} ms   errors {}",
        ms(percentile(&l.latencies, 0.5)),
        ms(percentile(&l.latencies, 0.99)),
        ms(l.latencies.last().copied().unwrap_or_default()),
        l.errors
    )
}

/// The request paths in DIR/top.txt, random.txt and floor.txt (for wrk with
/// bench/wrk/paths.lua).
fn write_paths(
    dir: &std::path::Path,
    top_paths: &[String],
    random_paths: &[String],
    floor_paths: &[String],
) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("create {}", dir.display()))?;
    let lists = [
        ("top.txt", top_paths),
        ("random.txt", random_paths),
        ("floor.txt", floor_paths),
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
    Ok(())
}

pub fn run(store_args: &StoreArgs, args: ServeBenchArgs) -> anyhow::Result<ExitCode> {
    let (user, tops, randoms) = {
        let store = store_args.open(OpenMode::MustExist)?;
        let user = require_player(&store, &args.user)?;
        let (tops, randoms) = bench::positions(&store, &user, args.top, args.random, args.seed)?;
        (user, tops, randoms)
    };
    anyhow::ensure!(!tops.is_empty(), "{user} has no stored games");
    let endpoint = match args.endpoint {
        Endpoint::Explore => bench::Endpoint::Explore {
            recent_games: args.recent_games,
        },
        Endpoint::Move => bench::Endpoint::Move,
    };
    let (top_paths, random_paths) = (
        bench::paths(endpoint, &user, &tops),
        bench::paths(endpoint, &user, &randoms),
    );
    let floor_paths = bench::floor_paths(top_paths.len());
    if let Some(dir) = &args.paths_out {
        write_paths(dir, &top_paths, &random_paths, &floor_paths)?;
        return Ok(ExitCode::SUCCESS);
    }
    if args.endpoint == Endpoint::Explore {
        // A handle of its own (dropped before the server opens a fresh one).
        let store = store_args.open(OpenMode::MustExist)?;
        println!(
            "store reads of an explore request (moves + {} recent games), in this thread, no HTTP:",
            args.recent_games
        );
        for (name, fens) in [("most played", &tops), ("random", &randoms)] {
            if fens.is_empty() {
                continue;
            }
            let (cold, warm) = bench::store_reads(&store, &user, fens, args.recent_games)?;
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
    let what = match endpoint {
        bench::Endpoint::Explore { recent_games } => {
            format!("/api/v1/explore (recentGames={recent_games})")
        }
        bench::Endpoint::Move => "/api/v1/move".to_string(),
    };
    println!(
        "mirror bench serve: GET {what}, {user}: {} most played and {} random positions of the tree, {} connections (server and load generator share this machine's cores)",
        top_paths.len(),
        random_paths.len(),
        args.connections
    );
    // A fresh handle: the store's own cache starts empty (the OS may still cache the file).
    let store = Arc::new(store_args.open(OpenMode::MustExist)?);
    let sets = vec![
        ("most played".to_string(), top_paths),
        ("random".to_string(), random_paths),
    ];
    // The floor: a route that reads nothing, loaded the same way, so that the endpoint's
    // figures can be read against what HTTP alone costs on this machine.
    let floor = vec![(
        "floor: GET /metrics, no store read".to_string(),
        floor_paths,
    )];
    let figures = bench::run(
        store,
        Some(model_fallbacks(store_args)),
        &sets,
        &floor,
        args.connections,
        args.seconds,
    )?;
    for (name, l) in &figures.cold {
        println!("{}", line(&format!("cold, {name}, 1 conn."), l, false));
    }
    for (name, l) in &figures.warm {
        println!("{}", line(&format!("warm, {name}"), l, true));
    }
    Ok(ExitCode::SUCCESS)
}
