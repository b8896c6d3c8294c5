//! Command-line options. Each command owns its options struct; store options are global.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};
use mirror_core::{TimeClass, time::Month};
use mirror_store::{
    Filter,
    embedded::{EmbeddedStore, OpenMode},
};
use shakmaty::Color;

/// mirror: learns how one chess player plays from their own games and plays back like them.
#[derive(Parser, Debug)]
#[command(name = "mirror", version, about, long_about = None)]
pub struct Cli {
    #[command(flatten)]
    pub store: StoreArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Ingest a player's games from PGN files, directories or stdin (`-`).
    Ingest(IngestArgs),
    /// What did the player play from a position, and how did it go?
    Explore(ExploreArgs),
    /// Print all of a player's edges as JSON lines (EPD, UCI, W/D/L summed over filters).
    Edges(EdgesArgs),
    /// List the players in the store.
    Players,
    /// Benchmarks (printed figures, never pass/fail).
    Bench(BenchArgs),
}

/// Where the store lives.
#[derive(Args, Debug, Clone)]
pub struct StoreArgs {
    /// mirror's data directory (default: the platform's user data dir + /mirror).
    #[arg(long, global = true, env = "MIRROR_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// The store file (default: DATA_DIR/mirror.redb).
    #[arg(long, global = true, env = "MIRROR_DB", value_name = "PATH")]
    pub db: Option<PathBuf>,
}

impl StoreArgs {
    /// The store file this invocation uses.
    pub fn path(&self) -> anyhow::Result<PathBuf> {
        if let Some(db) = &self.db {
            return Ok(db.clone());
        }
        let dir = match &self.data_dir {
            Some(d) => d.clone(),
            None => dirs::data_dir()
                .context("no user data directory on this platform: pass --data-dir or --db")?
                .join("mirror"),
        };
        Ok(dir.join("mirror.redb"))
    }

    /// Opens the store.
    pub fn open(&self, mode: OpenMode) -> anyhow::Result<EmbeddedStore> {
        Ok(EmbeddedStore::open(&self.path()?, mode)?)
    }
}

#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum ProgressMode {
    /// A progress bar on a terminal, nothing otherwise.
    Auto,
    /// Always a progress bar.
    Bar,
    /// One line per committed batch (for logs).
    Plain,
    /// Nothing.
    None,
}

#[derive(Args, Debug)]
pub struct IngestArgs {
    /// The player whose games these are (matched case-insensitively on White/Black).
    #[arg(long, short = 'u')]
    pub user: String,
    /// Other spellings of the player's name (repeatable).
    #[arg(long = "alias", value_name = "NAME")]
    pub aliases: Vec<String>,
    /// PGN inputs: files (.pgn, .pgn.gz, .pgn.zst), directories, or `-` for stdin.
    #[arg(long, num_args = 1.., value_name = "PATH", required = true)]
    pub pgn: Vec<PathBuf>,
    /// Games per write transaction.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub batch_size: u32,
    /// How to show progress.
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto)]
    pub progress: ProgressMode,
}

#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum ColorArg {
    White,
    Black,
}

/// Filters shared by explorer-like commands.
#[derive(Args, Debug, Clone)]
pub struct FilterArgs {
    /// Only games where the player had this colour (explore defaults to the side to move).
    #[arg(long, value_enum)]
    pub color: Option<ColorArg>,
    /// Only these time classes (bullet, blitz, rapid, classical, daily; comma-separated).
    #[arg(long = "time-class", value_delimiter = ',', value_parser = parse_time_class)]
    pub time_class: Vec<TimeClass>,
    /// Only rated games.
    #[arg(long, conflicts_with = "casual")]
    pub rated: bool,
    /// Only casual games.
    #[arg(long)]
    pub casual: bool,
    /// Only games from this month on (YYYY-MM).
    #[arg(long, value_parser = parse_month)]
    pub since: Option<Month>,
    /// Only games up to this month (YYYY-MM, inclusive).
    #[arg(long, value_parser = parse_month)]
    pub until: Option<Month>,
}

fn parse_time_class(s: &str) -> Result<TimeClass, String> {
    s.parse::<TimeClass>().map_err(|e| e.to_string())
}

fn parse_month(s: &str) -> Result<Month, String> {
    s.parse::<Month>().map_err(|e| e.to_string())
}

impl FilterArgs {
    /// The store filter, with `default_color` when `--color` is not given.
    pub fn filter(&self, default_color: Option<Color>) -> anyhow::Result<Filter> {
        if let (Some(s), Some(u)) = (self.since, self.until)
            && s > u
        {
            anyhow::bail!("--since {s} is after --until {u}");
        }
        Ok(Filter {
            color: match self.color {
                Some(ColorArg::White) => Some(Color::White),
                Some(ColorArg::Black) => Some(Color::Black),
                None => default_color,
            },
            time_classes: self.time_class.clone(),
            rated: match (self.rated, self.casual) {
                (true, _) => Some(true),
                (_, true) => Some(false),
                _ => None,
            },
            since: self.since,
            until: self.until,
        })
    }
}

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
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct EdgesArgs {
    /// The player.
    #[arg(long, short = 'u')]
    pub user: String,
    #[command(flatten)]
    pub filters: FilterArgs,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: BenchCommand,
}

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Ingest a PGN file into a fresh temporary store and compare with the python-chess peer.
    Ingest {
        /// The PGN file.
        #[arg(long)]
        pgn: PathBuf,
        /// The player.
        #[arg(long, short = 'u')]
        user: String,
        /// Games the python-chess peer reads (its rate is scaled to the full run).
        #[arg(long, default_value_t = 2000)]
        peer_games: u64,
        /// Python interpreter with python-chess (and zstandard for .zst input).
        #[arg(long, default_value = "python3")]
        python: String,
        /// Skip the peer.
        #[arg(long)]
        no_peer: bool,
        /// Games per write transaction.
        #[arg(long, default_value_t = 10_000)]
        batch_size: u32,
    },
}
