//! `mirror drill`: spaced repetition over the player's own tree (see `mirror_drill`), in
//! the terminal, or the cards listed.

use std::{
    io::{BufWriter, Write},
    process::ExitCode,
};

use clap::Args;
use mirror_drill::{CardOptions, Deck, Session, SessionOptions, schedule::Grading};
use mirror_store::embedded::OpenMode;

use crate::args::{ColorArg, FilterArgs, StoreArgs};

#[derive(Args, Debug)]
pub struct DrillArgs {
    /// The player.
    #[arg(long, short = 'u')]
    pub user: String,
    /// Only the cards of the player's games with this colour.
    #[arg(long, value_enum)]
    pub color: Option<ColorArg>,
    /// Drill the lines against this opponent (a stored player), their replies drawn from
    /// their own games.
    #[arg(long)]
    pub opponent: Option<String>,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// New cards at most in this session (besides the due ones).
    #[arg(long, default_value_t = 10)]
    pub new: usize,
    /// A position is a card when the player reached it in at least this many games.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    pub min_games: u32,
    /// Plies from the start at most.
    #[arg(long, default_value_t = 20)]
    pub depth: usize,
    /// A move played in at least this share of a position's games counts as right beside
    /// the main move (0-1).
    #[arg(long, default_value_t = 0.25)]
    pub share: f64,
    /// The share of answers FSRS aims to have right when a card comes back (0-1).
    #[arg(long, default_value_t = 0.9)]
    pub retention: f32,
    /// The seed of the other side's replies (random when not given).
    #[arg(long)]
    pub seed: Option<u64>,
    /// List the cards (position, right moves, why, due date) instead of drilling.
    #[arg(long)]
    pub list: bool,
    /// With `--list`: print JSON.
    #[arg(long, requires = "list")]
    pub json: bool,
}

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

pub fn run(store_args: &StoreArgs, args: DrillArgs) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        (0.0..=1.0).contains(&args.share),
        "--share must be between 0 and 1, not {}",
        args.share
    );
    let color = args.color.map(shakmaty::Color::from);
    let filter = args.filters.filter(None::<shakmaty::Color>)?;
    // The deck stores retirements, and a session every answer: a writable store.
    let store = store_args.open(OpenMode::MustExist)?;
    let user = mirror_store::require_player(&store, &args.user)?;
    let opponent = args
        .opponent
        .as_deref()
        .map(|o| mirror_store::require_player(&store, o))
        .transpose()?;
    let opts = CardOptions {
        color,
        filter: filter.clone(),
        min_games: args.min_games,
        depth: args.depth,
        share: args.share,
        opponent: opponent.clone(),
        ..CardOptions::default()
    };
    let deck = Deck::build(&store, &user, &opts)?;
    let now = unix_now();
    if args.list {
        let listing = deck.listing(now);
        let mut w = BufWriter::new(std::io::stdout().lock());
        if args.json {
            serde_json::to_writer_pretty(&mut w, &listing)?;
            writeln!(w)?;
        } else {
            for (name, c) in [("White", listing.white), ("Black", listing.black)] {
                writeln!(
                    w,
                    "{name}: {} due, {} new, {} later, {} retired",
                    c.due, c.new, c.later, c.retired
                )?;
            }
            for l in &listing.cards {
                let pos = l.card.position()?;
                let right: Vec<String> = l
                    .card
                    .right
                    .iter()
                    .map(|u| {
                        mirror_core::notation::parse_move(&pos, u)
                            .map_or_else(|_| u.clone(), |m| mirror_core::notation::san(&pos, m))
                    })
                    .collect();
                let when = if l.new {
                    "new".to_string()
                } else {
                    l.due_date.clone().unwrap_or_default()
                };
                let line = mirror_frontend::drill::line_san(&l.card);
                writeln!(
                    w,
                    "{when:>10}  {:<5}  {:<40}  {}  ({})",
                    mirror_core::codec::color_name(l.card.color),
                    if line.is_empty() { "start" } else { &line },
                    right.join(", "),
                    mirror_frontend::drill::why_listed(&l.card, &user, &pos)
                )?;
            }
        }
        w.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut session = Session::new(
        &store,
        deck,
        SessionOptions {
            new: args.new,
            retention: args.retention,
            grading: Grading::default(),
            filter,
            opponent,
            seed: args.seed.unwrap_or(now.unsigned_abs()),
        },
        now,
    )?;
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    mirror_frontend::drill::drill(&mut session, &user, stdin.lock(), &mut out)?;
    Ok(ExitCode::SUCCESS)
}
