//! Command-line options. Each command owns its options struct; store options are global.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, Parser, Subcommand, ValueEnum};
use mirror_core::{TimeClass, time::Month};
use mirror_eval::split::Fractions;
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
    /// Play against the player's mirror in the terminal.
    Play(PlayArgs),
    /// Train the CNN fallback on the player's stored games.
    Train(TrainArgs),
    /// Measure how faithfully the mirror plays like the player on their newest games.
    Eval(EvalArgs),
    /// Copy a player's graph from the embedded store into Neo4j (idempotent).
    Export(ExportArgs),
    /// Speak UCI on stdin/stdout, for chess GUIs and match runners.
    Uci(UciArgs),
    /// The player's own piece values, by logistic regression on game results.
    Values(ValuesArgs),
    /// Serve the HTTP API (move endpoint, lichess-shaped explorer, health, metrics).
    Serve(ServeArgs),
    /// Benchmarks (printed figures, never pass/fail).
    Bench(BenchArgs),
}

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// The player.
    #[arg(long, short = 'u')]
    pub user: String,
    /// Percent of games (oldest first) for training, validation and test.
    #[arg(long, default_value = "80,10,10")]
    pub split: Fractions,
    /// Seed of initialisation, shuffling and subsampling.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Training positions at most (a seeded random subset when there are more).
    #[arg(long, default_value_t = 200_000)]
    pub max_positions: usize,
    #[command(flatten)]
    pub opts: TrainOpts,
    /// Where to save the model (default: DATA_DIR/models/PLAYER).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Hyperparameters shared by `train` and `eval --train`.
#[derive(Args, Debug, Clone)]
pub struct TrainOpts {
    /// Most epochs (early stopping on validation top-1 may stop sooner).
    #[arg(long, default_value_t = 10)]
    pub epochs: usize,
    /// Mini-batch size.
    #[arg(long, default_value_t = 256)]
    pub batch: usize,
    /// Adam's learning rate.
    #[arg(long, default_value_t = 1e-3)]
    pub lr: f64,
    /// Hidden channels.
    #[arg(long, default_value_t = 64)]
    pub channels: usize,
    /// Hidden convolution layers.
    #[arg(long, default_value_t = 6)]
    pub layers: usize,
    /// Epochs without improvement before stopping.
    #[arg(long, default_value_t = 2)]
    pub patience: usize,
}

/// The games `mirror eval` measures on.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum EvalOn {
    /// The newest games.
    Test,
    /// The games between training and test.
    Validation,
}

#[derive(Args, Debug)]
pub struct EvalArgs {
    /// The player.
    #[arg(long, short = 'u')]
    pub user: String,
    /// Percent of games (oldest first) for training, validation and test.
    #[arg(long, default_value = "80,10,10")]
    pub split: Fractions,
    /// Seed of the engine's choices, the judged sample and (with --train) training.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Evaluate at most this many test positions (oldest test games first).
    #[arg(long)]
    pub max_positions: Option<usize>,
    /// Which games to evaluate: the test games, or the validation games (to tune options
    /// without looking at the test games).
    #[arg(long, value_enum, default_value_t = EvalOn::Test)]
    pub on: EvalOn,
    /// Train the model on this split first (saved where --model points).
    #[arg(long)]
    pub train: bool,
    /// With --train: training positions at most.
    #[arg(long, default_value_t = 200_000)]
    pub train_positions: usize,
    #[command(flatten)]
    pub opts: TrainOpts,
    /// The model's directory (default: DATA_DIR/models/PLAYER); it must have been trained
    /// on the same split.
    #[arg(long)]
    pub model: Option<PathBuf>,
    /// Evaluate without a model (the engine's fallback is then a random legal move).
    #[arg(long, conflicts_with = "train")]
    pub no_model: bool,
    /// Stockfish for the depth-1 baseline and the mistake judge (default: `stockfish` on
    /// PATH or /usr/games/stockfish, if present).
    #[arg(long, env = "MIRROR_STOCKFISH")]
    pub stockfish: Option<PathBuf>,
    /// Do not use Stockfish even if it is installed.
    #[arg(long, conflicts_with = "stockfish")]
    pub no_stockfish: bool,
    /// Depth of the mistake judge.
    #[arg(long, default_value_t = 8)]
    pub judge_depth: u32,
    /// Judge at most this many positions (a seeded random sample of the evaluated ones).
    #[arg(long)]
    pub judge_positions: Option<usize>,
    /// Stockfish processes judging at once.
    #[arg(long, default_value_t = 2)]
    pub judge_threads: usize,
    /// The engine's policy in book positions, as for `play`.
    #[arg(long)]
    pub policy: Option<mirror_engine::Policy>,
    /// The sampler's tiers, as for `play` (default "w>0.5,wd>0.5,w>0.4,wd>0.4,wd>0.3,wd>0").
    #[arg(long)]
    pub tiers: Option<mirror_core::sampler::Tiers>,
    /// Play the model's first choice even when it gives material away.
    #[arg(long)]
    pub no_guard: bool,
    /// The guard checks this many of the model's best moves.
    #[arg(long, default_value_t = 64)]
    pub guard_top: usize,
    /// Centipawns of material a model move may lose against the best checked one.
    #[arg(long, default_value_t = 50)]
    pub guard_margin: i32,
    /// With habit/likely: games of the player's last N training months count extra.
    #[arg(long, default_value_t = 0)]
    pub recent_months: u32,
    /// The extra weight of a recent game.
    #[arg(long, default_value_t = 2.0)]
    pub recent_weight: f64,
    /// Moves played in fewer training games than this are left out of the book.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub min_games: u32,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

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

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on (loopback unless told otherwise).
    #[arg(long, env = "MIRROR_BIND", default_value = "127.0.0.1:8080")]
    pub bind: String,
    /// Store operations running at once (the rest wait).
    #[arg(long, default_value_t = 64)]
    pub blocking: usize,
}

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

/// How the mirror chooses its moves (flags override `--config`).
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    /// The player to mirror.
    #[arg(long, short = 'u')]
    pub user: Option<String>,
    /// A TOML file with any of: player, seed, policy, tiers, min_games, recent_months,
    /// recent_weight, time_class, rated, since, until.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// How book positions are answered: tiers (the seed's win-rate tiers), habit[:W]
    /// (sampled by games played, the model's probabilities as W pseudo-games) or
    /// likely[:W] (always the likeliest of those).
    #[arg(long)]
    pub policy: Option<String>,
    /// Seed of the random choices (default: from the clock, printed so a game can be replayed).
    #[arg(long)]
    pub seed: Option<u64>,
    /// The sampler's tiers, in order (default "w>0.5,wd>0.5,w>0.4,wd>0.4,wd>0.3,wd>0").
    #[arg(long)]
    pub tiers: Option<String>,
    /// Leave out book moves played in fewer games than this (default 1).
    #[arg(long)]
    pub min_games: Option<u32>,
    /// Play the model's first choice even when it gives material away (no blunder guard).
    #[arg(long)]
    pub no_guard: bool,
    /// With habit/likely: games of the player's last N months (up to their newest game)
    /// count --recent-weight extra (default 0: off).
    #[arg(long)]
    pub recent_months: Option<u32>,
    /// The extra weight of a recent game (default 2).
    #[arg(long)]
    pub recent_weight: Option<f64>,
    #[command(flatten)]
    pub filters: FilterArgs,
}

#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum SideArg {
    White,
    Black,
    Random,
}

#[derive(Args, Debug)]
pub struct PlayArgs {
    #[command(flatten)]
    pub engine: EngineArgs,
    /// Your colour.
    #[arg(long, value_enum, default_value_t = SideArg::White)]
    pub color: SideArg,
    /// Where to save the game as PGN (default: DATA_DIR/games/).
    #[arg(long, value_name = "PATH")]
    pub save: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub struct UciArgs {
    #[command(flatten)]
    pub engine: EngineArgs,
}

/// Which backend holds the graph.
#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum StoreKind {
    /// One redb file (the default).
    Embedded,
    /// Neo4j over Bolt (`MIRROR_NEO4J_URI`, `MIRROR_NEO4J_USER`, `MIRROR_NEO4J_PASSWORD`).
    Neo4j,
}

/// A store of either kind.
pub type AnyStore = Box<dyn mirror_store::GraphStore + Send + Sync>;

/// Where the store lives.
#[derive(Args, Debug, Clone)]
pub struct StoreArgs {
    /// The backend (default: neo4j when MIRROR_NEO4J_URI is set, else embedded).
    #[arg(long, global = true, value_enum, env = "MIRROR_STORE")]
    pub store: Option<StoreKind>,
    /// mirror's data directory (default: the platform's user data dir + /mirror).
    #[arg(long, global = true, env = "MIRROR_DATA_DIR", value_name = "DIR")]
    pub data_dir: Option<PathBuf>,
    /// The store file (default: DATA_DIR/mirror.redb).
    #[arg(long, global = true, env = "MIRROR_DB", value_name = "PATH")]
    pub db: Option<PathBuf>,
}

impl StoreArgs {
    /// mirror's data directory.
    pub fn data_dir(&self) -> anyhow::Result<PathBuf> {
        match &self.data_dir {
            Some(d) => Ok(d.clone()),
            None => Ok(dirs::data_dir()
                .context("no user data directory on this platform: pass --data-dir or --db")?
                .join("mirror")),
        }
    }

    /// The store file this invocation uses.
    pub fn path(&self) -> anyhow::Result<PathBuf> {
        match &self.db {
            Some(db) => Ok(db.clone()),
            None => Ok(self.data_dir()?.join("mirror.redb")),
        }
    }

    /// Opens the embedded store.
    pub fn open_embedded(&self, mode: OpenMode) -> anyhow::Result<EmbeddedStore> {
        Ok(EmbeddedStore::open(&self.path()?, mode)?)
    }

    /// Games per write transaction: `given`, else the backend's default (Neo4j holds a
    /// transaction's changes in its heap, so its batches are smaller).
    pub fn batch_size(&self, given: Option<u32>) -> usize {
        given.map_or(
            match self.kind() {
                StoreKind::Embedded => 10_000,
                StoreKind::Neo4j => 1_000,
            },
            |n| n as usize,
        )
    }

    /// The backend this invocation uses.
    pub fn kind(&self) -> StoreKind {
        self.store.unwrap_or_else(|| {
            if std::env::var("MIRROR_NEO4J_URI").is_ok_and(|u| !u.is_empty()) {
                StoreKind::Neo4j
            } else {
                StoreKind::Embedded
            }
        })
    }

    /// Which store and where, for messages: `the embedded store FILE` or `Neo4j at URI`
    /// (never the password).
    pub fn describe(&self) -> anyhow::Result<String> {
        Ok(match self.kind() {
            StoreKind::Embedded => format!("the embedded store {}", self.path()?.display()),
            StoreKind::Neo4j => format!(
                "Neo4j at {}",
                std::env::var("MIRROR_NEO4J_URI").unwrap_or_default()
            ),
        })
    }

    /// Opens the store of the chosen kind.
    pub fn open(&self, mode: OpenMode) -> anyhow::Result<AnyStore> {
        match self.kind() {
            StoreKind::Embedded => Ok(Box::new(self.open_embedded(mode)?)),
            StoreKind::Neo4j => Ok(Box::new(open_neo4j()?)),
        }
    }
}

/// Connects to Neo4j from the environment.
pub fn open_neo4j() -> anyhow::Result<mirror_store::neo4j::Neo4jStore> {
    let cfg = mirror_store::neo4j::Neo4jConfig::from_env().context(
        "the Neo4j store needs MIRROR_NEO4J_URI (and MIRROR_NEO4J_USER, MIRROR_NEO4J_PASSWORD)",
    )?;
    Ok(mirror_store::neo4j::Neo4jStore::connect(cfg)?)
}

impl StoreArgs {}

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
    /// The player whose games these are (matched case-insensitively on White/Black); with
    /// no --pgn, the Chess.com username whose games are fetched.
    #[arg(
        long,
        short = 'u',
        required_unless_present = "lichess",
        conflicts_with = "lichess"
    )]
    pub user: Option<String>,
    /// Fetch this lichess user's games from lichess's export (the player's name in the store).
    #[arg(long, value_name = "USER", conflicts_with = "pgn")]
    pub lichess: Option<String>,
    /// lichess base URL (for tests and mirrors).
    #[arg(long, env = "MIRROR_LICHESS_API", default_value = mirror_online::lichess::DEFAULT_BASE)]
    pub lichess_api: String,
    /// Other spellings of the player's name (repeatable).
    #[arg(long = "alias", value_name = "NAME")]
    pub aliases: Vec<String>,
    /// PGN inputs: files (.pgn, .pgn.gz, .pgn.zst), directories, or `-` for stdin. Without
    /// --pgn, the user's games are fetched from Chess.com.
    #[arg(long, num_args = 1.., value_name = "PATH")]
    pub pgn: Vec<PathBuf>,
    /// Chess.com API base URL (for mirrors and tests).
    #[arg(long, env = "MIRROR_CHESSCOM_API", default_value = mirror_online::chesscom::DEFAULT_BASE)]
    pub api_base: String,
    /// Contact (e-mail or URL) sent in the User-Agent, which Chess.com requires.
    #[arg(long, env = "MIRROR_CONTACT", hide_env_values = true)]
    pub contact: Option<String>,
    /// Chess.com / lichess: first month to fetch (YYYY-MM).
    #[arg(long, value_parser = parse_month)]
    pub since: Option<Month>,
    /// Chess.com / lichess: last month to fetch (YYYY-MM).
    #[arg(long, value_parser = parse_month)]
    pub until: Option<Month>,
    /// Chess.com / lichess: seconds before a request (or a stalled stream) times out.
    #[arg(long, default_value_t = 30)]
    pub timeout: u64,
    /// Chess.com / lichess: retries of a failing request (429, 5xx, timeouts, cut-off answers).
    #[arg(long, default_value_t = 4)]
    pub retries: u32,
    /// Games per write transaction (default 10,000 embedded, 1,000 in Neo4j, whose
    /// transactions hold their changes in the server's heap).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub batch_size: Option<u32>,
    /// How to show progress.
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto)]
    pub progress: ProgressMode,
}

#[derive(Copy, Clone, Debug, ValueEnum, PartialEq, Eq)]
pub enum ColorArg {
    White,
    Black,
}

impl From<ColorArg> for Color {
    fn from(c: ColorArg) -> Color {
        match c {
            ColorArg::White => Color::White,
            ColorArg::Black => Color::Black,
        }
    }
}

/// Which of the player's games count: time class, rated, months.
#[derive(Args, Debug, Clone, Default)]
pub struct FilterArgs {
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

pub fn parse_time_class(s: &str) -> Result<TimeClass, String> {
    s.parse::<TimeClass>().map_err(|e| e.to_string())
}

pub fn parse_month(s: &str) -> Result<Month, String> {
    s.parse::<Month>().map_err(|e| e.to_string())
}

impl FilterArgs {
    /// The store filter for games where the player had `color` (all games for `None`).
    pub fn filter(&self, color: Option<impl Into<Color>>) -> anyhow::Result<Filter> {
        if let (Some(s), Some(u)) = (self.since, self.until)
            && s > u
        {
            anyhow::bail!("--since {s} is after --until {u}");
        }
        Ok(Filter {
            color: color.map(Into::into),
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
    /// Only games where the player had this colour (default: the side to move, i.e. the
    /// player's own moves; the other colour shows what opponents replied).
    #[arg(long, value_enum)]
    pub color: Option<ColorArg>,
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
    /// Only games where the player had this colour.
    #[arg(long, value_enum)]
    pub color: Option<ColorArg>,
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
        /// Games per write transaction (default 10,000 embedded, 1,000 in Neo4j).
        #[arg(long)]
        batch_size: Option<u32>,
        /// With --store neo4j: games loaded the seed's way (one MERGE chain per move, a
        /// transaction per game) and, for the ratio, the same games mirror's way.
        #[arg(long, default_value_t = 1000)]
        seed_games: usize,
    },
    /// The CNN: inference latency for one position and training throughput.
    Model {
        /// A saved model directory (default: the player's trained or shipped model).
        #[arg(long)]
        model: Option<PathBuf>,
        /// The player whose stored games give the positions.
        #[arg(long, short = 'u')]
        user: String,
    },
    /// Load the HTTP move endpoint with book positions of a stored player (server and load
    /// generator in this process, on loopback).
    Serve {
        /// The player (must be in the store).
        #[arg(long, short = 'u')]
        user: String,
        /// Concurrent connections.
        #[arg(long, default_value_t = 64)]
        connections: usize,
        /// Seconds of measured load (after one second of warm-up).
        #[arg(long, default_value_t = 10)]
        seconds: u64,
    },
}
