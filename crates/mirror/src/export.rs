//! `mirror export --to neo4j`: a player's graph from the embedded store into Neo4j;
//! `mirror export --to polyglot FILE.bin`: the player's book as a Polyglot opening book.

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
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Where to copy to.
    #[arg(long, value_enum)]
    pub to: ExportTarget,
    /// With --to polyglot: the book file to write.
    #[arg(value_name = "FILE.bin", required_if_eq("to", "polyglot"))]
    pub file: Option<std::path::PathBuf>,
    /// With --to polyglot: only the player's moves with this colour (default both).
    #[arg(long, value_enum)]
    pub color: Option<crate::args::ColorArg>,
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
    if args.to == ExportTarget::Polyglot {
        return polyglot(store_args, &args);
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
            let positions = mirror_store::polyglot::own_positions(&store, &user, color)?;
            let model = crate::train::load_model(store_args, &user)?;
            let mut engine = mirror_engine::Engine::new(
                store,
                user.clone(),
                mirror_engine::EngineOptions {
                    policy,
                    // The policy given, with its own weight.
                    model_weight: false,
                    ..mirror_engine::EngineOptions::default()
                },
            );
            if let Some(p) = model {
                engine.set_fallback(Box::new(mirror_engine::ModelFallback::new(
                    std::sync::Arc::new(p),
                )));
            }
            let bar = crate::args::bar(
                Some(positions.len() as u64),
                "{elapsed_precise} [{bar:30}] {pos}/{len} positions ({eta})",
            );
            let entries =
                mirror_engine::polyglot::policy_entries(&mut engine, &positions, &mut || {
                    bar.inc(1);
                })?;
            bar.finish_and_clear();
            entries
        }
    };
    let positions = {
        let mut keys: Vec<u64> = entries.iter().map(|e| e.key).collect();
        keys.sort_unstable();
        keys.dedup();
        keys.len()
    };
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
