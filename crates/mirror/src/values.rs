//! `mirror values`: a player's own piece values by logistic regression.

use std::{io::Write, path::PathBuf, process::ExitCode};

use anyhow::Context;
use clap::Args;
use mirror_core::{
    GameRecord,
    pgn::{Decoded, read_games},
    values::{Sample, capablanca_checks, fit_steepness, fit_values, game_samples},
};
use mirror_store::{GraphStore, embedded::OpenMode};
use serde::Serialize;

use mirror_frontend::plot::steepness_svg;

use crate::{cli::StoreArgs, play::require_player};

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

#[derive(Serialize)]
struct Check {
    rule: &'static str,
    holds: bool,
    left: f64,
    right: f64,
}

#[derive(Serialize)]
struct Out {
    who: String,
    games: usize,
    samples: usize,
    lambda: f64,
    values: [i64; 5],
    raw: [f64; 5],
    steepness_per_pawn: Option<f64>,
    bins: Vec<(i32, f64, usize)>,
    capablanca: Vec<Check>,
}

fn games_from_files(paths: &[PathBuf], user: Option<&str>) -> anyhow::Result<Vec<GameRecord>> {
    let sources = mirror_ingest::expand(paths)?;
    let mut out = Vec::new();
    for source in &sources {
        let reader =
            mirror_ingest::source::open(source).with_context(|| format!("cannot read {source}"))?;
        for item in read_games(reader) {
            let (_, decoded) = item.with_context(|| format!("reading {source}"))?;
            if let Decoded::Game(g) = decoded
                && user.is_none_or(|u| g.color_of(&[u]).is_some())
            {
                out.push(g);
            }
        }
    }
    Ok(out)
}

/// The fitted values as a table beside the classic ones, the steepness and Capablanca's
/// rules.
fn print_table(w: &mut impl Write, out: &Out) -> std::io::Result<()> {
    let who = &out.who;
    writeln!(
        w,
        "Piece values of {who}: {} samples from {} games (logistic regression, no intercept, lambda {})",
        out.samples, out.games, out.lambda
    )?;
    writeln!(
        w,
        "{:<8} {:>8} {:>10} {:>16}",
        "piece", "fitted", "1-3-3-5-9", "100/320/330/500/900"
    )?;
    for (i, (name, classic, modern)) in [
        ("pawn", 100, 100),
        ("knight", 300, 320),
        ("bishop", 300, 330),
        ("rook", 500, 500),
        ("queen", 900, 900),
    ]
    .iter()
    .enumerate()
    {
        writeln!(
            w,
            "{name:<8} {:>8} {classic:>10} {modern:>16}",
            out.values[i]
        )?;
    }
    if let Some(a) = out.steepness_per_pawn {
        writeln!(
            w,
            "steepness of the score against the 1-3-3-5-9 balance: {a:.3} per pawn (the article found about 0.7)"
        )?;
    }
    writeln!(w, "Capablanca's rules (equalities within half a pawn):")?;
    for c in &out.capablanca {
        writeln!(
            w,
            "  {:<18} {:<3}  ({} vs {})",
            c.rule,
            if c.holds { "yes" } else { "no" },
            c.left,
            c.right
        )?;
    }
    Ok(())
}

pub fn run(store_args: &StoreArgs, args: ValuesArgs) -> anyhow::Result<ExitCode> {
    let (who, games) = if args.pgn.is_empty() {
        let user = args
            .user
            .as_deref()
            .context("pass --user NAME (from the store), or --pgn FILE with --user or --all")?;
        let store = store_args.open(OpenMode::MustExist)?;
        let name = require_player(&store, user)?;
        let games = store.games(&name)?.into_iter().map(|(g, _)| g).collect();
        (name, games)
    } else {
        if args.user.is_none() && !args.all {
            anyhow::bail!(
                "with --pgn, pass --user NAME (that player's games) or --all (every game)"
            );
        }
        let games = games_from_files(&args.pgn, args.user.as_deref())?;
        let who = args.user.clone().unwrap_or_else(|| "all games".to_string());
        if games.is_empty() {
            anyhow::bail!(
                "no standard games{} in the input",
                match &args.user {
                    Some(u) => format!(" of {u:?}"),
                    None => String::new(),
                }
            );
        }
        (who, games)
    };
    let samples: Vec<Sample> = games.iter().flat_map(game_samples).collect();
    let values = fit_values(&samples, args.lambda)
        .with_context(|| format!("cannot fit piece values for {who} ({} games)", games.len()))?;
    let steep = fit_steepness(&samples, args.lambda);
    let rounded = values.normalized.map(|v| v.round() as i64);
    let out = Out {
        who: who.clone(),
        games: games.len(),
        samples: values.samples,
        lambda: args.lambda,
        values: rounded,
        raw: values.theta,
        steepness_per_pawn: steep.as_ref().map(|s| s.alpha),
        bins: steep.as_ref().map(|s| s.bins.clone()).unwrap_or_default(),
        capablanca: capablanca_checks(&values.normalized)
            .into_iter()
            .map(|(rule, holds, left, right)| Check {
                rule,
                holds,
                left: left.round(),
                right: right.round(),
            })
            .collect(),
    };
    if let (Some(path), Some(s)) = (&args.plot, &steep) {
        let title = format!(
            "{who}: score vs material balance ({} samples)",
            values.samples
        );
        std::fs::write(path, steepness_svg(s, &title))
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    let stdout = std::io::stdout();
    let mut w = stdout.lock();
    if args.json {
        serde_json::to_writer_pretty(&mut w, &out)?;
        writeln!(w)?;
        return Ok(ExitCode::SUCCESS);
    }
    print_table(&mut w, &out)?;
    if let Some(p) = &args.plot {
        writeln!(w, "curve and binned scores written to {}", p.display())?;
    }
    Ok(ExitCode::SUCCESS)
}
