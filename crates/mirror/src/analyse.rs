//! `mirror analyse`: a UCI engine's evaluation of the positions of a player's tree, stored
//! on the positions (`mirror_eval::analyse`); this file parses, calls it and prints.

use std::{io::Write, path::PathBuf, process::ExitCode};

use anyhow::Context;
use clap::Args;
use mirror_eval::analyse::{AnalyseEvent, AnalyseOptions};
use mirror_store::embedded::OpenMode;

use crate::{cli::StoreArgs, ingest::ProgressMode, play::require_player};

#[derive(Args, Debug)]
pub struct AnalyseArgs {
    /// The player whose tree is analysed.
    #[arg(long, short = 'u')]
    pub user: String,
    /// The fewest of the player's games through a position, or playing a move, that make
    /// it (or the position after the move) worth an evaluation.
    #[arg(long, default_value_t = 2)]
    pub min_games: u32,
    /// The depth of each search.
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u16).range(1..=60))]
    pub depth: u16,
    /// Worker threads, each with its own one-thread engine (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// The UCI engine (default: stockfish on PATH, else Debian's /usr/games/stockfish).
    #[arg(long, value_name = "PATH")]
    pub engine: Option<PathBuf>,
    /// Evaluations written per transaction.
    #[arg(long, default_value_t = 200)]
    pub batch: usize,
    /// Print the stored evaluations of the player's positions as JSON lines (EPD, score
    /// from White's side, best move, depth, engine) instead of analysing.
    #[arg(long)]
    pub list: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// How to show progress.
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto)]
    pub progress: ProgressMode,
}

/// The analysis's options: the engine found (given, on PATH, Debian's), every core unless
/// `threads` says.
pub fn options(
    engine: Option<PathBuf>,
    threads: Option<usize>,
    min_games: u32,
    depth: u16,
    batch: usize,
) -> anyhow::Result<AnalyseOptions> {
    let engine = mirror_engine::stockfish::find(engine.as_deref())?.context(
        "no UCI engine: install Stockfish (apt install stockfish) or pass --engine PATH",
    )?;
    let threads = threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    Ok(AnalyseOptions {
        min_games,
        depth,
        threads,
        engine,
        batch,
    })
}

pub fn run(store_args: &StoreArgs, args: AnalyseArgs) -> anyhow::Result<ExitCode> {
    let store = store_args.open(OpenMode::MustExist)?;
    let player = require_player(&store, &args.user)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if args.list {
        for (epd, e) in mirror_eval::analyse::evaluated(&*store, &player, args.min_games)? {
            let (kind, value) = match e.score {
                mirror_core::evaluation::EvalScore::Cp(c) => ("cp", c),
                mirror_core::evaluation::EvalScore::Mate(m) => ("mate", m),
            };
            let line = serde_json::json!({
                "epd": epd,
                kind: value,
                "best": e.best,
                "depth": e.depth,
                "engine": e.engine,
                "source": match e.source {
                    mirror_core::evaluation::EvalSource::Engine => "engine",
                    mirror_core::evaluation::EvalSource::Comment => "comment",
                },
            });
            writeln!(out, "{line}")?;
        }
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let opts = options(
        args.engine.clone(),
        args.threads,
        args.min_games,
        args.depth,
        args.batch,
    )?;
    let bar = crate::cli::bar(
        None,
        "{spinner} analysing {pos}/{len} positions [{elapsed_precise}, ETA {eta}] {msg}",
    );
    let plain = args.progress == ProgressMode::Plain;
    let shows_bar = match args.progress {
        ProgressMode::Bar => true,
        ProgressMode::Auto => std::io::IsTerminal::is_terminal(&std::io::stderr()),
        ProgressMode::Plain | ProgressMode::None => false,
    };
    if !shows_bar {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let summary = mirror_eval::analyse::analyse(&*store, &player, &opts, |event| match event {
        AnalyseEvent::Planned {
            positions,
            reused,
            to_take,
        } => {
            if shows_bar {
                bar.set_length(to_take as u64);
            }
            if plain || shows_bar {
                bar.suspend(|| {
                    eprintln!(
                        "{positions} positions in {player}'s tree with {} or more games: \
                         {reused} already analysed at depth {} or more (reused), {to_take} \
                         to search",
                        args.min_games, args.depth
                    );
                });
            }
        }
        AnalyseEvent::Written { taken, of } => {
            if shows_bar {
                bar.set_position(taken as u64);
            } else if plain {
                eprintln!("searched {taken} of {of}");
            }
        }
    });
    bar.finish_and_clear();
    let summary = summary?;
    if args.json {
        writeln!(out, "{}", serde_json::to_string(&summary)?)?;
    } else {
        writeln!(
            out,
            "analysed {player}'s tree: {} positions, {} reused, {} searched at depth {} by {} \
             in {:.1} s ({:.1} positions/s, {} threads), {} left out (game over), {} searched \
             by another worker",
            summary.positions,
            summary.reused,
            summary.searched,
            summary.depth,
            summary.engine,
            summary.seconds,
            summary.searched as f64 / summary.seconds.max(1e-9),
            summary.threads,
            summary.skipped,
            summary.by_others,
        )?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
