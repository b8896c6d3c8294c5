//! `mirror bench serve`: the HTTP API under load, on the player's heaviest and on random
//! positions of their tree, cold (a fresh store handle, each position asked for the first
//! time) and warm. Figures are printed, never asserted.

use std::{path::PathBuf, process::ExitCode, sync::Arc};

use anyhow::Context;
use clap::{Args, ValueEnum};
use mirror_server::bench;
use mirror_store::embedded::OpenMode;

use crate::{args::StoreArgs, serve::model_fallbacks};

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
    #[arg(long, short = 'u', required_unless_present = "sample_players")]
    pub user: Option<String>,
    /// Instead of one player: N players drawn at random (--seed), each loaded on this
    /// embedded store and then on a temporary store of that player alone.
    #[arg(long, value_name = "N", conflicts_with_all = ["user", "paths_out"])]
    pub sample_players: Option<usize>,
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
    /// Seed of the random positions (and of the players drawn).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also write the request paths to DIR/top.txt and DIR/random.txt (for wrk with
    /// bench/wrk/paths.lua) and stop.
    #[arg(long, value_name = "DIR")]
    pub paths_out: Option<PathBuf>,
}

pub fn run(store_args: &StoreArgs, args: ServeBenchArgs) -> anyhow::Result<ExitCode> {
    let endpoint = match args.endpoint {
        Endpoint::Explore => bench::Endpoint::Explore {
            recent_games: args.recent_games,
        },
        Endpoint::Move => bench::Endpoint::Move,
    };
    if let Some(n) = args.sample_players {
        let embedded = store_args.place().backend() == mirror_store::place::Backend::Embedded;
        anyhow::ensure!(embedded, "--sample-players runs on the embedded store");
        let open = || store_args.open_embedded(OpenMode::MustExist);
        let fallbacks = || Some(model_fallbacks(store_args));
        let shape = (args.top, args.random, args.seed);
        let load = (args.connections, args.seconds);
        let starting = &mut |s: bench::sample::Starting<'_>| {
            println!(
                "[{}/{}] {} ({} games): {} most played and {} random positions",
                s.index, s.of, s.player, s.games, s.top, s.random
            )
        };
        let compared =
            bench::sample::compare_alone(open, n, endpoint, shape, load, &fallbacks, starting)?;
        print!("{}", bench::sample::table(&compared));
        return Ok(ExitCode::SUCCESS);
    }
    let requests = {
        // A handle of its own (dropped before the server opens a fresh one).
        let store = store_args.open(OpenMode::MustExist)?;
        let user = args
            .user
            .as_deref()
            .expect("clap: --user or --sample-players");
        let user = mirror_store::require_player(&store, user)?;
        let requests =
            bench::Requests::new(&store, &user, endpoint, (args.top, args.random, args.seed))?;
        if let Some(dir) = &args.paths_out {
            let said = requests
                .write(dir)
                .with_context(|| format!("cannot write the paths to {}", dir.display()))?;
            println!("{said}");
            return Ok(ExitCode::SUCCESS);
        }
        requests
    };
    // The store as the server opens it (the evaluations read at open), each measure on a
    // handle of its own so that each starts cold.
    print!(
        "{}",
        requests.store_read_lines(&store_args.open(OpenMode::Serve)?)?
    );
    println!("{}", requests.headline(args.connections));
    let store = Arc::new(store_args.open(OpenMode::Serve)?);
    let figures = requests.load(
        store,
        Some(model_fallbacks(store_args)),
        args.connections,
        args.seconds,
    )?;
    print!("{figures}");
    Ok(ExitCode::SUCCESS)
}
