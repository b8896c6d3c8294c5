//! `mirror report`: where to study — costly positions, deviations, surprises and
//! repertoire drift from the player's graph (see `mirror_store::report`).

use std::{
    io::{BufWriter, Write},
    process::ExitCode,
};

use clap::Args;
use mirror_server::response::ReportJson;
use mirror_store::{
    embedded::OpenMode,
    report::{MIN_GAMES_FLOOR, ReportOptions},
};

use crate::args::{ColorArg, FilterArgs, StoreArgs};

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// The player.
    #[arg(long, short = 'u')]
    pub user: String,
    /// Only the player's games with this colour.
    #[arg(long, value_enum)]
    pub color: Option<ColorArg>,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Positions reached in fewer games are left out.
    #[arg(long, default_value_t = 10,
          value_parser = clap::value_parser!(u32).range(i64::from(MIN_GAMES_FLOOR)..))]
    pub min_games: u32,
    /// An opponent reply met in at most this percent of a position's games is rare (a
    /// surprise when the player loses more often after it than after the others).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=100))]
    pub rare: u32,
    /// Items per list at most.
    #[arg(long, default_value_t = 10)]
    pub limit: usize,
    /// Print JSON (the shape of `/api/v1/report`).
    #[arg(long)]
    pub json: bool,
}

pub fn run(store_args: &StoreArgs, args: ReportArgs) -> anyhow::Result<ExitCode> {
    let color = args.color.map(shakmaty::Color::from);
    let filter = args.filters.filter(color)?;
    let store = store_args.open(OpenMode::ReadOnce)?;
    let user = mirror_store::require_player(&store, &args.user)?;
    let report = mirror_store::report::report(
        &store,
        &user,
        &ReportOptions {
            color,
            filter,
            min_games: args.min_games,
            rare: args.rare,
            limit: args.limit,
        },
    )?;
    let json = ReportJson::new(&user, &report);
    let mut w = BufWriter::new(std::io::stdout().lock());
    if args.json {
        serde_json::to_writer_pretty(&mut w, &json)?;
        writeln!(w)?;
    } else {
        write!(w, "{json}")?;
    }
    w.flush()?;
    Ok(ExitCode::SUCCESS)
}
