//! `mirror report`: where to study — costly positions, deviations, surprises and
//! repertoire drift from the player's graph (see `mirror_store::report`).

use std::{
    io::{BufWriter, Write},
    process::ExitCode,
};

use clap::Args;
use mirror_server::response::{ReportJson, ReportMove, ReportPlace};
use mirror_store::{embedded::OpenMode, report::ReportOptions};

use crate::{
    cli::{ColorArg, FilterArgs, StoreArgs},
    play::require_player,
};

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
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub min_games: u32,
    /// An opponent reply met in at most this many games is a surprise.
    #[arg(long, default_value_t = 2)]
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
    let store = store_args.open(OpenMode::MustExist)?;
    let user = require_player(&store, &args.user)?;
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
    let stdout = std::io::stdout();
    let mut w = BufWriter::new(stdout.lock());
    if args.json {
        serde_json::to_writer_pretty(&mut w, &json)?;
        writeln!(w)?;
    } else {
        print_text(&mut w, &json)?;
    }
    w.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn pct(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn place_line(p: &ReportPlace) -> String {
    format!(
        "{} ({} as {}, {} games, score {} [{}-{}]){}",
        if p.moves.is_empty() {
            "start position".to_string()
        } else {
            p.moves.join(" ")
        },
        p.fen,
        p.color,
        p.games,
        pct(p.score),
        pct(p.low),
        pct(p.high),
        p.opening
            .as_ref()
            .map_or(String::new(), |o| format!("  {} {}", o.eco, o.name))
    )
}

fn move_line(m: &ReportMove) -> String {
    format!(
        "{} {} games ({}), W/D/L {}/{}/{}, score {} [{}-{}]",
        m.san,
        m.games,
        pct(m.share),
        m.wins,
        m.draws,
        m.losses,
        pct(m.score),
        pct(m.low),
        pct(m.high)
    )
}

fn print_text(w: &mut impl Write, r: &ReportJson) -> std::io::Result<()> {
    writeln!(
        w,
        "Where {} should study (average score: as White {}, as Black {})",
        r.user,
        r.average_white.map_or("-".into(), pct),
        r.average_black.map_or("-".into(), pct)
    )?;
    writeln!(w, "\nCostly positions (games x score below the average):")?;
    for c in &r.costly {
        writeln!(
            w,
            "- {}\n  {:.1} points lost: {} below the average {}",
            place_line(&c.place),
            c.cost,
            pct(c.deficit),
            pct(c.average)
        )?;
        for m in &c.played {
            writeln!(w, "    {}", move_line(m))?;
        }
    }
    writeln!(
        w,
        "\nDeviations (positions where the player varies their move):"
    )?;
    for d in &r.deviations {
        writeln!(w, "- {}", place_line(&d.place))?;
        for m in &d.choices {
            writeln!(w, "    {}", move_line(m))?;
        }
    }
    writeln!(w, "\nSurprises (opponent replies met only a few times):")?;
    for s in &r.surprises {
        writeln!(w, "- {}\n    {}", place_line(&s.place), move_line(&s.reply))?;
    }
    writeln!(w, "\nRepertoire drift (share of each move by quarter):")?;
    for d in &r.drift {
        writeln!(w, "- {}", place_line(&d.place))?;
        for q in &d.quarters {
            let shares: Vec<String> = q
                .shares
                .iter()
                .map(|(m, s)| format!("{m} {}", pct(*s)))
                .collect();
            writeln!(
                w,
                "    {} ({} games): {}",
                q.quarter,
                q.games,
                shares.join(", ")
            )?;
        }
    }
    Ok(())
}
