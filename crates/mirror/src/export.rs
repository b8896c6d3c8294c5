//! `mirror export --to neo4j`: a player's graph from the embedded store into Neo4j.

use clap::{Args, ValueEnum};
use std::process::ExitCode;

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
}

#[derive(Args, Debug)]
pub struct ExportArgs {
    /// Where to copy to.
    #[arg(long, value_enum)]
    pub to: ExportTarget,
    /// The player.
    #[arg(long, short = 'u')]
    pub user: String,
    /// Games per Neo4j transaction.
    #[arg(long, default_value_t = 500)]
    pub batch_size: usize,
}

pub fn run(store_args: &StoreArgs, args: ExportArgs) -> anyhow::Result<ExitCode> {
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
