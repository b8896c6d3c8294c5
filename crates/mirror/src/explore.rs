//! `mirror explore`, `mirror edges`, `mirror players`: reading the graph.

use std::{
    io::{BufWriter, Write},
    process::ExitCode,
};

use anyhow::Context;
use clap::Args;
use mirror_core::PositionKey;
use mirror_server::response::ExploreTable;
use mirror_store::embedded::OpenMode;
use shakmaty::{Chess, Color, Position};

use mirror_core::notation;

use crate::args::{ColorArg, FilterArgs, StoreArgs};

#[derive(Args, Debug)]
pub struct ExploreArgs {
    /// The player.
    #[arg(long, short = 'u')]
    pub user: String,
    /// The position as FEN (default: the start position).
    #[arg(long, conflicts_with = "moves")]
    pub fen: Option<String>,
    /// Moves from the start position, SAN or UCI ("e4 c5 Nf3", "1. e4 c5", "e2e4 c7c5").
    #[arg(long)]
    pub moves: Option<String>,
    /// Only games where the player had this colour (default: the side to move, i.e. the
    /// player's own moves; the other colour shows what opponents replied).
    #[arg(long, value_enum)]
    pub color: Option<ColorArg>,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Only games against this opponent (their name as in the games, any case), answered
    /// from the stored game records.
    #[arg(long, value_name = "NAME")]
    pub opponent: Option<String>,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct EdgesArgs {
    /// The player.
    #[arg(long, short = 'u')]
    pub user: String,
    /// Only games where the player had this colour.
    #[arg(long, value_enum)]
    pub color: Option<ColorArg>,
    #[command(flatten)]
    pub filters: FilterArgs,
}

pub fn run(store_args: &StoreArgs, args: ExploreArgs) -> anyhow::Result<ExitCode> {
    // The path to the position: its opening is the last named position on it.
    let path: Vec<Chess> = match (&args.fen, &args.moves) {
        (Some(fen), _) => vec![notation::parse_fen(fen)?],
        (None, Some(moves)) => notation::path_of_moves(moves).context("invalid --moves")?,
        (None, None) => vec![Chess::default()],
    };
    let pos = path.last().expect("a path has its start").clone();
    let filter = args
        .filters
        .filter(Some(args.color.map_or(pos.turn(), Color::from)))?;
    let store = store_args.open(OpenMode::ReadOnce)?;
    let user = mirror_store::require_player(&store, &args.user)?;
    let key = PositionKey::from_position(&pos);
    let rows = match &args.opponent {
        Some(name) => mirror_store::analysis::moves_against(&store, &user, key, name, &filter)?,
        None => store.moves(&args.user, key, &filter)?,
    };
    let evals = mirror_server::response::ExploreEvals::read(&store, key, &rows)?;
    let out = ExploreTable::new(
        user,
        &path,
        filter.color,
        args.opponent.clone(),
        &rows,
        &evals,
    )?;
    let mut w = BufWriter::new(std::io::stdout().lock());
    if args.json {
        serde_json::to_writer_pretty(&mut w, &out)?;
        writeln!(w)?;
    } else {
        write!(w, "{out}")?;
    }
    w.flush()?;
    Ok(ExitCode::SUCCESS)
}

pub fn edges(store_args: &StoreArgs, args: EdgesArgs) -> anyhow::Result<ExitCode> {
    let store = store_args.open(OpenMode::ReadOnce)?;
    mirror_store::require_player(&store, &args.user)?;
    let filter = args.filters.filter(args.color)?;
    let sums = mirror_store::analysis::edge_sums(&store, &args.user, &filter)?;
    let mut w = BufWriter::new(std::io::stdout().lock());
    for l in mirror_server::response::edge_lines(&sums)? {
        writeln!(w, "{l}")?;
    }
    w.flush()?;
    Ok(ExitCode::SUCCESS)
}

#[derive(clap::Args, Debug)]
pub struct PlayersArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

pub fn players(store_args: &StoreArgs, args: &PlayersArgs) -> anyhow::Result<ExitCode> {
    let store = store_args.open(OpenMode::ReadOnce)?;
    let list = mirror_server::response::PlayerList::read(&store)?;
    if args.json {
        println!("{}", serde_json::to_string(&list)?);
    } else {
        print!("{list}");
        println!(
            "{} positions in {}",
            list.positions,
            store_args.place().describe()?
        );
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Args, Debug)]
pub struct PrepArgs {
    /// The player preparing.
    #[arg(long, short = 'u')]
    pub user: String,
    /// The opponent (a player in the store).
    #[arg(long)]
    pub opponent: String,
    /// The player's colour (default: both, White first).
    #[arg(long, value_enum)]
    pub color: Option<ColorArg>,
    /// Plies at most.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=40))]
    pub depth: u16,
    /// Lines at most, likeliest first.
    #[arg(long, default_value_t = 20)]
    pub lines: usize,
    /// The opponent's tree thins out ("out of their book") below this many games.
    #[arg(long, default_value_t = 5)]
    pub thin: u32,
    /// Which games count, for both players.
    #[command(flatten)]
    pub filters: FilterArgs,
    /// The opponent's games, where they differ from the player's.
    #[command(flatten)]
    pub their: TheirFilterArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Which of the opponent's games count, instead of the filter of the same name.
#[derive(Args, Debug)]
pub struct TheirFilterArgs {
    /// Only the opponent's games of these time classes (instead of --time-class).
    #[arg(long = "their-time-class", value_delimiter = ',')]
    pub their_time_class: Vec<mirror_core::TimeClass>,
    /// Only the opponent's games from this month on (YYYY-MM; instead of --since).
    #[arg(long = "their-since")]
    pub their_since: Option<mirror_core::Month>,
    /// Only the opponent's games up to this month (instead of --until).
    #[arg(long = "their-until")]
    pub their_until: Option<mirror_core::Month>,
    /// Only the opponent's games on these sites (instead of --source).
    #[arg(long = "their-source", value_delimiter = ',')]
    pub their_sources: Vec<mirror_core::GameSource>,
}

pub fn prep(store_args: &StoreArgs, args: &PrepArgs) -> anyhow::Result<ExitCode> {
    let store = store_args.open(OpenMode::ReadOnce)?;
    let (me, them) = (
        mirror_store::require_player(&store, &args.user)?,
        mirror_store::require_player(&store, &args.opponent)?,
    );
    let colors = args
        .color
        .map_or(vec![Color::White, Color::Black], |c| vec![c.into()]);
    let t = &args.their;
    let mine = args.filters.filter(None::<Color>)?;
    let theirs = FilterArgs {
        time_class: t.their_time_class.clone(),
        since: t.their_since,
        until: t.their_until,
        sources: t.their_sources.clone(),
        ..FilterArgs::default()
    };
    let theirs = mine.overlaid(&theirs.filter(None::<Color>)?);
    let mut answers = Vec::new();
    for color in colors {
        let opts = mirror_store::prep::PrepOptions {
            color,
            me_filter: mine.clone(),
            them_filter: theirs.clone(),
            depth: usize::from(args.depth),
            thin: args.thin,
            limit: args.lines,
            ..Default::default()
        };
        answers.push(mirror_server::prep::PrepJson::prepare(
            &store, &me, &them, &opts,
        )?);
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&answers)?);
    } else {
        let text: Vec<String> = answers.iter().map(ToString::to_string).collect();
        print!("{}", text.join("\n"));
    }
    Ok(ExitCode::SUCCESS)
}
