//! `mirror explore`, `mirror edges`, `mirror players`: reading the graph.

use std::{
    io::{BufWriter, Write},
    process::ExitCode,
};

use anyhow::Context;
use clap::Args;
use mirror_core::{MoveStats, PositionKey};
use mirror_server::response::ExploreTable;
use mirror_store::{GraphStore, embedded::OpenMode};
use rustc_hash::FxHashMap;
use serde::Serialize;
use shakmaty::{Chess, Color, Position};

use mirror_core::{notation, stats::FEW_GAMES};

use crate::{
    cli::{ColorArg, FilterArgs, StoreArgs},
    play::require_player,
};

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
        (None, Some(moves)) => {
            let (_, played) = notation::play_moves(moves).context("invalid --moves")?;
            let mut pos = Chess::default();
            let mut path = vec![pos.clone()];
            for m in played {
                pos.play_unchecked(m);
                path.push(pos.clone());
            }
            path
        }
        (None, None) => vec![Chess::default()],
    };
    let pos = path.last().expect("a path has its start").clone();
    let filter = args
        .filters
        .filter(Some(args.color.map_or(pos.turn(), Color::from)))?;
    let store = store_args.open(OpenMode::MustExist)?;
    let user = require_player(&store, &args.user)?;
    let key = PositionKey::from_position(&pos);
    let rows = match &args.opponent {
        Some(name) => mirror_store::analysis::moves_against(&store, &user, key, name, &filter)?,
        None => store.moves(&args.user, key, &filter)?,
    };
    let out = ExploreTable::new(user, &path, filter.color, args.opponent.clone(), &rows)?;
    let stdout = std::io::stdout();
    let mut w = BufWriter::new(stdout.lock());
    if args.json {
        serde_json::to_writer_pretty(&mut w, &out)?;
        writeln!(w)?;
    } else {
        print_table(&mut w, &out)?;
    }
    w.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn print_table(w: &mut impl Write, out: &ExploreTable) -> std::io::Result<()> {
    writeln!(w, "{}  ({} to move)", out.fen, out.side_to_move)?;
    if let Some(o) = &out.opening {
        writeln!(w, "opening: {} {}", o.eco, o.name)?;
    }
    let whose = match (out.player_color, out.players_moves) {
        (Some(c), Some(true)) => format!("{}'s moves as {c}", out.user),
        (Some(c), Some(false)) => format!("opponents' replies to {} playing {c}", out.user),
        _ => format!("moves in {}'s games (both colours)", out.user),
    };
    let whose = match &out.opponent {
        Some(o) => format!("{whose} against {o}"),
        None => whose,
    };
    writeln!(
        w,
        "{whose}: {} games; win/draw/loss from {}'s side",
        out.games, out.user
    )?;
    if out.moves.is_empty() {
        writeln!(w, "(no games reach this position with these filters)")?;
        return Ok(());
    }
    writeln!(
        w,
        "{:<8} {:>7} {:>6} {:>6} {:>6} {:>18} {:>7} {:>6}  {:<11} opening",
        "move", "games", "win%", "draw%", "loss%", "score% (95%)", "avg opp", "perf", "last played",
    )?;
    for m in &out.moves {
        let score = format!(
            "{}{:.1} [{:.0}-{:.0}]",
            if m.few_games { "?" } else { "" },
            m.score,
            m.score_low,
            m.score_high
        );
        writeln!(
            w,
            "{:<8} {:>7} {:>6.1} {:>6.1} {:>6.1} {:>18} {:>7} {:>6}  {:<11} {}",
            m.san,
            m.games,
            m.win_pct,
            m.draw_pct,
            m.loss_pct,
            score,
            m.average_opponent_rating
                .map_or("-".to_string(), |r| r.to_string()),
            m.performance.map_or("-".to_string(), |r| r.to_string()),
            m.last_played.as_deref().unwrap_or("-"),
            m.opening
                .as_ref()
                .map_or(String::new(), |o| format!("{} {}", o.eco, o.name))
        )?;
    }
    if out.moves.iter().any(|m| m.few_games) {
        writeln!(
            w,
            "? fewer than {FEW_GAMES} games: the score means little (see its interval)"
        )?;
    }
    Ok(())
}

#[derive(Serialize)]
struct EdgeJson<'a> {
    epd: &'a str,
    uci: String,
    w: u32,
    d: u32,
    l: u32,
}

pub fn edges(store_args: &StoreArgs, args: EdgesArgs) -> anyhow::Result<ExitCode> {
    let store = store_args.open(OpenMode::MustExist)?;
    require_player(&store, &args.user)?;
    let filter = args.filters.filter(args.color)?;
    let mut sums: FxHashMap<(PositionKey, mirror_core::MoveCode), MoveStats> = FxHashMap::default();
    for e in store.edges(&args.user)? {
        if filter.accepts(&e.dims) {
            sums.entry((e.pos, e.mv)).or_default().merge(&e.stats);
        }
    }
    let mut epds: FxHashMap<PositionKey, String> = FxHashMap::default();
    let mut lines = Vec::with_capacity(sums.len());
    for ((pos, mv), s) in &sums {
        if !epds.contains_key(pos) {
            let text = store
                .position_epd(*pos)?
                .with_context(|| format!("position {pos} has no EPD"))?;
            epds.insert(*pos, text);
        }
        let epd_text = &epds[pos];
        lines.push(serde_json::to_string(&EdgeJson {
            epd: epd_text,
            uci: mv.to_string(),
            w: s.wins,
            d: s.draws,
            l: s.losses,
        })?);
    }
    lines.sort();
    let stdout = std::io::stdout();
    let mut w = BufWriter::new(stdout.lock());
    for l in lines {
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

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct PlayerJson {
    name: String,
    games: u64,
    edge_rows: u64,
    accounts: Vec<AccountJson>,
}

#[derive(serde::Serialize)]
struct AccountJson {
    source: &'static str,
    name: String,
}

pub fn players(store_args: &StoreArgs, args: &PlayersArgs) -> anyhow::Result<ExitCode> {
    let store = store_args.open(OpenMode::MustExist)?;
    let mut players = Vec::new();
    for p in store.players()? {
        let c = store.counts(&p.name)?;
        let accounts = store
            .accounts(&p.name)?
            .into_iter()
            .map(|a| AccountJson {
                source: a.source.as_str(),
                name: a.name,
            })
            .collect();
        players.push(PlayerJson {
            name: p.name,
            games: p.games,
            edge_rows: c.edge_rows,
            accounts,
        });
    }
    let positions = store.position_count()?;
    if args.json {
        println!(
            "{}",
            serde_json::json!({ "players": players, "positions": positions })
        );
        return Ok(ExitCode::SUCCESS);
    }
    for p in &players {
        let accounts: Vec<String> = p
            .accounts
            .iter()
            .map(|a| format!("{}:{}", a.source, a.name))
            .collect();
        let accounts = if accounts.is_empty() {
            String::new()
        } else {
            format!("\taccounts {}", accounts.join(", "))
        };
        println!(
            "{}\t{} games\t{} edge rows{accounts}",
            p.name, p.games, p.edge_rows
        );
    }
    println!("{positions} positions in {}", store_args.describe()?);
    Ok(ExitCode::SUCCESS)
}
