//! `mirror export --to neo4j`: a player's graph from the embedded store into Neo4j;
//! `mirror export --to polyglot FILE.bin`: the player's book as a Polyglot opening book.

use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use mirror_core::batch::Batch;
use mirror_store::{GraphStore, embedded::OpenMode};

use crate::{
    cli::{StoreArgs, open_neo4j},
    play::require_player,
};

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
    pub color: Option<crate::cli::ColorArg>,
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
    let user = require_player(&local, &args.user)?;
    let games = local.games(&user)?;
    let neo = open_neo4j()?;
    let bar = ProgressBar::new(games.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} games {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let (mut copied, mut present, mut positions, mut edges) = (0u64, 0u64, 0u64, 0u64);
    for chunk in games.chunks(args.batch_size.max(1)) {
        let ids: Vec<_> = chunk.iter().map(|(g, _)| g.id.clone()).collect();
        let known = neo.ingested(&user, &ids)?;
        let mut batch = Batch::new();
        for (g, c) in chunk {
            if known.contains(&g.id) {
                present += 1;
            } else {
                batch.add_game(g.clone(), *c)?;
            }
        }
        // Games another writer adds meanwhile are counted as already there.
        let (r, meanwhile, _) = mirror_ingest::write(&neo, &user, batch)?;
        copied += r.games;
        present += meanwhile;
        positions += r.new_positions;
        edges += r.new_edges;
        bar.inc(chunk.len() as u64);
    }
    bar.finish_and_clear();
    println!(
        "exported {user} to Neo4j: {copied} games copied, {present} already there, {positions} new positions, {edges} new edges"
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
    let user = require_player(&store, &args.user)?;
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
            policy_entries(&mut engine, policy, &positions)?
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

/// Entries weighted by the engine's policy in every position where the player was to
/// move: the probabilities of a sampling policy, the one move of a deterministic one.
fn policy_entries<S: mirror_store::GraphStore>(
    engine: &mut mirror_engine::Engine<S>,
    policy: mirror_engine::Policy,
    positions: &[mirror_store::polyglot::OwnPosition],
) -> anyhow::Result<Vec<mirror_core::polyglot::Entry>> {
    let bar = ProgressBar::new(positions.len() as u64);
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} positions ({eta})")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let deterministic = matches!(
        policy,
        mirror_engine::Policy::Likely { .. } | mirror_engine::Policy::Lower
    );
    let mut out = Vec::new();
    for (pos, _) in positions {
        bar.inc(1);
        let weighted: Vec<(shakmaty::Move, f64)> = if deterministic {
            match engine.peek(pos) {
                // The book's move, or the model's where the blend prefers it in a position
                // the player knows: what the mirror plays.
                Ok(c)
                    if matches!(
                        c.source,
                        mirror_engine::Source::Book { .. }
                            | mirror_engine::Source::Fallback {
                                why: mirror_engine::FallbackWhy::PriorChose,
                                ..
                            }
                    ) =>
                {
                    vec![(c.mv, 1.0)]
                }
                // The book does not answer here: no entry.
                Ok(_) => Vec::new(),
                Err(e) => return Err(e.into()),
            }
        } else {
            engine.distribution(pos)?
        };
        for (mv, p) in weighted {
            if p > 0.0 {
                let w = (p * f64::from(u16::MAX))
                    .round()
                    .clamp(1.0, f64::from(u16::MAX));
                out.push(mirror_store::polyglot::entry(pos, mv, w as u16));
            }
        }
    }
    bar.finish_and_clear();
    Ok(out)
}
