//! The command line's top level: the commands. Each command's own options live beside it
//! in its file; the option groups several commands share are in [`crate::args`].

use clap::{Parser, Subcommand};

use crate::args::StoreArgs;

/// mirror: learns how one chess player plays from their own games and plays back like them.
#[derive(Parser, Debug)]
#[command(name = "mirror", version, about, long_about = None)]
pub struct Cli {
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(subcommand)]
    pub command: Command,
}

// Parsed once per run: boxing the larger variants would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Ingest a player's games from PGN files, directories or stdin (`-`).
    Ingest(crate::ingest::IngestArgs),
    /// What did the player play from a position, and how did it go?
    Explore(crate::explore::ExploreArgs),
    /// Print all of a player's edges as JSON lines (EPD, UCI, W/D/L summed over filters).
    Edges(crate::explore::EdgesArgs),
    /// List the players in the store, with the accounts and names each profile has.
    Players(crate::explore::PlayersArgs),
    /// Prepare against an opponent: the lines where your repertoire meets theirs.
    Prep(crate::explore::PrepArgs),
    /// Play against the player's mirror in the terminal.
    Play(crate::play::PlayArgs),
    /// Train the CNN fallback on the player's stored games.
    Train(crate::train::TrainArgs),
    /// Train a population base model on many players' PGN games (both sides), to
    /// fine-tune with `train --base` and to play for players without a model.
    Pretrain(crate::pretrain::PretrainArgs),
    /// Measure how faithfully the mirror plays like the player on their newest games.
    Eval(crate::eval::EvalArgs),
    /// Copy a player's graph from the embedded store into Neo4j (idempotent).
    Export(crate::export::ExportArgs),
    /// Speak UCI on stdin/stdout, for chess GUIs and match runners.
    Uci(crate::play::UciArgs),
    /// The player's own piece values, by logistic regression on game results.
    Values(crate::values::ValuesArgs),
    /// Where to study: costly positions, deviations, surprises, repertoire drift.
    Report(crate::report::ReportArgs),
    /// Drill the player's repertoire (and the moves the engine says they get wrong) with
    /// spaced repetition, against the replies their opponents really play.
    Drill(crate::drill::DrillArgs),
    /// Evaluate the positions of a player's tree with a UCI engine (Stockfish), stored on
    /// the positions and shared by every player who reaches them.
    Analyse(crate::analyse::AnalyseArgs),
    /// Serve the HTTP API (move endpoint, lichess-shaped explorer, health, metrics).
    Serve(crate::serve::ServeArgs),
    /// Benchmarks (printed figures, never pass/fail).
    Bench(crate::bench::BenchArgs),
}
