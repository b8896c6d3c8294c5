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
    #[arg(long, default_value_t = mirror_drill::DEFAULT_RETENTION)]
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
    let now = mirror_frontend::drill::unix_now();
    if args.list {
        let listing = deck.listing(now);
        let mut w = BufWriter::new(std::io::stdout().lock());
        if args.json {
            serde_json::to_writer_pretty(&mut w, &listing)?;
            writeln!(w)?;
        } else {
            write!(w, "{}", mirror_frontend::drill::list_text(&listing, &user)?)?;
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
