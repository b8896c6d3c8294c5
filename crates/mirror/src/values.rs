//! `mirror values`: a player's own piece values by logistic regression.

use std::{path::PathBuf, process::ExitCode};

use anyhow::Context;
use clap::Args;
use mirror_core::GameRecord;
use mirror_frontend::values::ValuesReport;
use mirror_store::embedded::OpenMode;

use crate::args::StoreArgs;

#[derive(Args, Debug)]
pub struct ValuesArgs {
    /// The player: their stored games, or with --pgn their games in the files.
    #[arg(long, short = 'u')]
    pub user: Option<String>,
    /// Read games from PGN files or directories instead of the store.
    #[arg(long, num_args = 1.., value_name = "PATH")]
    pub pgn: Vec<PathBuf>,
    /// With --pgn: every game of the files, whoever played.
    #[arg(long, conflicts_with = "user")]
    pub all: bool,
    /// L2 regularisation strength.
    #[arg(long, default_value_t = 1e-6)]
    pub lambda: f64,
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
    /// Write the score-vs-material curve with binned data points as SVG.
    #[arg(long, value_name = "FILE.svg")]
    pub plot: Option<PathBuf>,
}

pub fn run(store_args: &StoreArgs, args: ValuesArgs) -> anyhow::Result<ExitCode> {
    let (who, games) = if args.pgn.is_empty() {
        let user = args
            .user
            .as_deref()
            .context("pass --user NAME (from the store), or --pgn FILE with --user or --all")?;
        let store = store_args.open(OpenMode::MustExist)?;
        let name = mirror_store::require_player(&store, user)?;
        let games = store.games(&name)?.into_iter().map(|(g, _)| g).collect();
        (name, games)
    } else {
        if args.user.is_none() && !args.all {
            anyhow::bail!(
                "with --pgn, pass --user NAME (that player's games) or --all (every game)"
            );
        }
        let sources = mirror_ingest::expand(&args.pgn)?;
        let games: Vec<GameRecord> = mirror_ingest::read_games_of(&sources, args.user.as_deref())?;
        if games.is_empty() {
            anyhow::bail!(
                "no standard games{} in the input",
                match &args.user {
                    Some(u) => format!(" of {u:?}"),
                    None => String::new(),
                }
            );
        }
        let who = args.user.clone().unwrap_or_else(|| "all games".to_string());
        (who, games)
    };
    let report = ValuesReport::fit(&who, &games, args.lambda)
        .with_context(|| format!("cannot fit piece values for {who} ({} games)", games.len()))?;
    if let (Some(path), Some(svg)) = (&args.plot, report.chart()) {
        std::fs::write(path, svg).with_context(|| format!("cannot write {}", path.display()))?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    print!("{report}");
    if let Some(p) = &args.plot {
        println!("curve and binned scores written to {}", p.display());
    }
    Ok(ExitCode::SUCCESS)
}
