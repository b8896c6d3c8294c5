//! `mirror analyse`: a UCI engine's evaluation of the positions of a player's tree, stored
//! on the positions (`mirror_eval::analyse`); this file parses, calls it and prints.

use std::{io::Write, path::PathBuf, process::ExitCode};

use clap::Args;
use mirror_eval::analyse::{AnalyseEvent, AnalyseOptions};
use mirror_store::embedded::OpenMode;

use crate::{args::StoreArgs, ingest::ProgressMode};

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

pub fn run(store_args: &StoreArgs, args: AnalyseArgs) -> anyhow::Result<ExitCode> {
    let store = store_args.open(OpenMode::MustExist)?;
    let player = mirror_store::require_player(&store, &args.user)?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    if args.list {
        for listed in mirror_eval::analyse::evaluated(&*store, &player, args.min_games)? {
            writeln!(out, "{}", serde_json::to_string(&listed)?)?;
        }
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let opts = AnalyseOptions::found(
        args.engine.as_deref(),
        args.threads,
        args.min_games,
        args.depth,
        args.batch,
    )?;
    let bar = crate::args::bar(
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
        writeln!(out, "analysed {player}'s tree: {summary}")?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
