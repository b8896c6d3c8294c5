//! `mirror export --to neo4j`: a player's graph from the embedded store into Neo4j;
//! `mirror export --to polyglot FILE.bin`: the player's book as a Polyglot opening book;
//! `mirror export --to pgn FILE --color C`: the player's repertoire with one colour as one
//! PGN game with variations ([`mirror_store::repertoire`]).

use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use mirror_store::{GraphRead, embedded::OpenMode, place::open_neo4j};

use crate::args::StoreArgs;

#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum ExportTarget {
    /// Neo4j (MIRROR_NEO4J_URI, MIRROR_NEO4J_USER, MIRROR_NEO4J_PASSWORD).
    Neo4j,
    /// A Polyglot opening book (`.bin`) of the player's own moves, weighted by games.
    Polyglot,
    /// The player's repertoire with one colour (--color) as one PGN game with variations:
    /// the main line their opponents' and their most played moves, each move with its
    /// games and the player's score (lichess's study import and python-chess read it).
    Pgn,
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Where to copy to.
    #[arg(long, value_enum)]
    pub to: ExportTarget,
    /// With --to polyglot: the book file to write; with --to pgn: the PGN file.
    #[arg(value_name = "FILE", required_if_eq_any([("to", "polyglot"), ("to", "pgn")]))]
    pub file: Option<std::path::PathBuf>,
    /// With --to polyglot: only the player's moves with this colour (default both); with
    /// --to pgn: the colour of the repertoire (required).
    #[arg(long, value_enum)]
    pub color: Option<crate::args::ColorArg>,
    /// With --to pgn: moves played in fewer games are left out.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub min_games: u32,
    /// With --to pgn: plies at most.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u16).range(1..=200))]
    pub depth: u16,
    /// With --to pgn: moves at most in the tree (the walk stops at the ply that would
    /// pass it, and says so).
    #[arg(long, default_value_t = 5_000, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_moves: u32,
    /// With --to pgn: one chapter (one PGN game) per opening family, at most this many
    /// (lichess's studies take 64); the least played families join the chapter they
    /// branch from.
    #[arg(long, num_args = 0..=1, default_missing_value = "64",
          value_parser = clap::value_parser!(u16).range(1..=64))]
    pub chapters: Option<u16>,
    /// With --to pgn: which of the player's games count.
    #[command(flatten)]
    pub filters: crate::args::FilterArgs,
    /// With --to polyglot: weights from the engine's policy instead of games played — the
    /// probabilities of a sampling policy (tiers, habit[:W]), or only the move a
    /// deterministic one plays (likely[:W], lower); habit and likely use the player's
    /// model.
    #[arg(long)]
    pub policy: Option<mirror_engine::Policy>,
    /// The player.
    #[arg(long, short = 'u')]
    pub user: String,
    /// Games per Neo4j transaction.
    #[arg(long, default_value_t = 500)]
    pub batch_size: usize,
}

pub fn run(store_args: &StoreArgs, args: ExportArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        args.chapters.is_none() || matches!(args.to, ExportTarget::Pgn),
        "--chapters is for --to pgn"
    );
    match args.to {
        ExportTarget::Polyglot => return polyglot(store_args, &args),
        ExportTarget::Pgn => return pgn(store_args, &args),
        ExportTarget::Neo4j => {}
    }
    anyhow::ensure!(
        args.file.is_none() && args.color.is_none() && args.policy.is_none(),
        "FILE, --color and --policy are for --to polyglot"
    );
    let local = store_args.open_embedded(OpenMode::MustExist)?;
    let user = mirror_store::require_player(&local, &args.user)?;
    let games = local.games(&user)?;
    let neo = open_neo4j()?;
    let bar = crate::args::bar(
        Some(games.len() as u64),
        "{elapsed_precise} [{bar:30}] {pos}/{len} games {msg}",
    );
    let r = mirror_ingest::copy_games(&neo, &user, &games, args.batch_size, &mut |n| {
        bar.inc(n);
    })?;
    bar.finish_and_clear();
    println!(
        "exported {user} to Neo4j: {} games copied, {} already there, {} new positions, {} new edges",
        r.copied, r.present, r.new_positions, r.new_edges
    );
    Ok(ExitCode::SUCCESS)
}

/// The player's book as a Polyglot file.
fn polyglot(store_args: &StoreArgs, args: &ExportArgs) -> anyhow::Result<ExitCode> {
    let path = args
        .file
        .as_ref()
        .context("--to polyglot needs the book FILE.bin")?;
    let store = store_args.open(OpenMode::MustExist)?;
    let user = mirror_store::require_player(&store, &args.user)?;
    let color = args.color.map(shakmaty::Color::from);
    let mut entries = match args.policy {
        None => mirror_store::polyglot::book(&store, &user, color)?,
        Some(policy) => {
            let model = crate::train::load_model(store_args, &user)?;
            let bar = crate::args::bar(
                Some(0),
                "{elapsed_precise} [{bar:30}] {pos}/{len} positions ({eta})",
            );
            let entries = mirror_engine::polyglot::policy_book(
                store,
                &user,
                (color, policy),
                model,
                (&mut |n| bar.set_length(n), &mut || bar.inc(1)),
            )?;
            bar.finish_and_clear();
            entries
        }
    };
    let positions = mirror_core::polyglot::positions(&entries);
    let bytes = mirror_core::polyglot::to_bytes(&mut entries);
    std::fs::write(path, &bytes).with_context(|| format!("cannot write {}", path.display()))?;
    println!(
        "wrote {}: {user}'s book, {} moves in {positions} positions ({} bytes)",
        path.display(),
        entries.len(),
        bytes.len()
    );
    Ok(ExitCode::SUCCESS)
}

/// The player's repertoire with one colour as a PGN file.
fn pgn(store_args: &StoreArgs, args: &ExportArgs) -> anyhow::Result<ExitCode> {
    let path = args
        .file
        .as_ref()
        .context("--to pgn needs the FILE to write")?;
    let color = args
        .color
        .context("--to pgn needs the repertoire's --color (white or black)")?;
    anyhow::ensure!(args.policy.is_none(), "--policy is for --to polyglot");
    let store = store_args.open(OpenMode::ReadOnce)?;
    let user = mirror_store::require_player(&store, &args.user)?;
    let opts = mirror_store::repertoire::RepertoireOptions {
        color: color.into(),
        filter: args.filters.filter(Some(color))?,
        min_games: args.min_games,
        depth: usize::from(args.depth),
        max_moves: args.max_moves as usize,
    };
    let rep = mirror_store::repertoire::repertoire(&store, &user, &opts)?;
    let text = match args.chapters {
        Some(n) => rep.to_pgn_chapters(usize::from(n)),
        None => rep.to_pgn(),
    };
    std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
    println!(
        "wrote {}: {user}'s repertoire as {}, {} moves played in at least {} games, {} plies deep{}",
        path.display(),
        if rep.color == shakmaty::Color::White {
            "White"
        } else {
            "Black"
        },
        rep.size,
        rep.min_games,
        rep.plies,
        if rep.cut {
            format!(
                " (cut after ply {}: the next would pass --max-moves {}; raise it, or --min-games for fewer moves a ply)",
                rep.plies, args.max_moves
            )
        } else {
            String::new()
        }
    );
    Ok(ExitCode::SUCCESS)
}
