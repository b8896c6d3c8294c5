//! `mirror bench`: measured figures, printed, never asserted.

use std::{path::PathBuf, process::ExitCode};

use anyhow::Context;
use clap::{Args, Subcommand};
use mirror_ingest::bench;
use mirror_model::Predictor;
use mirror_store::embedded::OpenMode;

use mirror_store::place::Backend;

use crate::args::StoreArgs;

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: BenchCommand,
}

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Ingest a PGN file into a fresh temporary store and compare with the python-chess peer.
    Ingest {
        /// The PGN file.
        #[arg(long)]
        pgn: PathBuf,
        /// The player.
        #[arg(long, short = 'u')]
        user: String,
        /// Games the python-chess peer reads (its rate is scaled to the full run).
        #[arg(long, default_value_t = 2000)]
        peer_games: u64,
        /// Python interpreter with python-chess (and zstandard for .zst input).
        #[arg(long, default_value = "python3")]
        python: String,
        /// Skip the peer.
        #[arg(long)]
        no_peer: bool,
        /// Games per write transaction (default 50,000 embedded, 1,000 in Neo4j).
        #[arg(long)]
        batch_size: Option<u32>,
        /// With --store neo4j: games loaded the seed's way (one MERGE chain per move, a
        /// transaction per game) and, for the ratio, the same games mirror's way.
        #[arg(long, default_value_t = 1000)]
        seed_games: usize,
    },
    /// The CNN: inference latency for one position and training throughput.
    Model {
        /// A saved model directory (default: the player's trained or shipped model).
        #[arg(long)]
        model: Option<PathBuf>,
        /// The player whose stored games give the positions.
        #[arg(long, short = 'u')]
        user: String,
    },
    /// `mirror analyse` against the engine alone on the same positions at the same depth
    /// (the positions are left analysed).
    Analyse {
        /// The player whose positions are searched.
        #[arg(long, short = 'u', required_unless_present = "sharing")]
        user: Option<String>,
        /// Instead: over every player of the store, how many of their positions to analyse
        /// are shared (the searches the shared graph saves); nothing is searched.
        #[arg(long)]
        sharing: bool,
        /// Positions searched by each side.
        #[arg(long, default_value_t = 400)]
        positions: usize,
        /// The depth.
        #[arg(long, default_value_t = 12)]
        depth: u16,
        /// The fewest games of a position (as `mirror analyse --min-games`).
        #[arg(long, default_value_t = 2)]
        min_games: u32,
        /// Engine processes on each side (default: every core).
        #[arg(long)]
        threads: Option<usize>,
        /// The UCI engine (default: Stockfish found as `mirror analyse` finds it).
        #[arg(long)]
        engine: Option<PathBuf>,
    },
    /// Load the HTTP API (explore or move) on the player's most played positions and
    /// random positions of their tree, cold and warm (server and load generator in this
    /// process, on loopback).
    Serve(crate::bench_serve::ServeBenchArgs),
}

pub fn run(store_args: &StoreArgs, args: BenchArgs) -> anyhow::Result<ExitCode> {
    match args.what {
        BenchCommand::Serve(args) => crate::bench_serve::run(store_args, args),
        BenchCommand::Analyse {
            user,
            sharing,
            positions,
            depth,
            min_games,
            threads,
            engine,
        } => {
            let store = store_args.open(OpenMode::MustExist)?;
            if sharing {
                println!("{}", mirror_eval::analyse::sharing(&store, min_games)?);
                return Ok(ExitCode::SUCCESS);
            }
            let user = user.context("pass --user NAME (or --sharing)")?;
            let player = mirror_store::require_player(&store, &user)?;
            let opts = mirror_eval::analyse::AnalyseOptions::found(
                engine.as_deref(),
                threads,
                min_games,
                depth,
                200,
            )?;
            let figures = mirror_eval::analyse::bench(&store, &player, &opts, positions)?;
            println!("{figures}");
            Ok(ExitCode::SUCCESS)
        }
        BenchCommand::Model { model, user } => {
            let store = store_args.open(OpenMode::MustExist)?;
            let player = mirror_store::require_player(&store, &user)?;
            let predictor = match model {
                Some(dir) => Predictor::load(&dir)?,
                None => crate::train::load_model(store_args, &player)?
                    .context("no model for this player: pass --model DIR or run mirror train")?,
            };
            let games = store.games(&player)?;
            println!("{}", mirror_model::bench::measure(&predictor, &games)?);
            Ok(ExitCode::SUCCESS)
        }
        BenchCommand::Ingest {
            pgn,
            user,
            peer_games,
            python,
            no_peer,
            batch_size,
            seed_games,
        } => {
            let place = store_args.place();
            let batch_size = place.batch_size(batch_size);
            if place.backend() == Backend::Neo4j {
                let neo = mirror_store::place::open_neo4j()?;
                let run = bench::neo4j(&neo, &pgn, &user, batch_size, seed_games)?;
                println!("{run}");
                return Ok(ExitCode::SUCCESS);
            }
            let mine = bench::embedded(&pgn, &user, batch_size)?;
            println!("{mine}");
            if !no_peer {
                println!(
                    "{}",
                    bench::python_peer(&pgn, &user, peer_games, &python, &mine)?
                );
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}
