//! `mirror ingest`: PGN files, Chess.com and lichess accounts into the store
//! ([`mirror_ingest::run`]), with progress bars on a terminal; through `mirror serve` when
//! it holds the store.

use std::{io::IsTerminal, path::PathBuf, process::ExitCode, time::Duration};

use anyhow::Context;
use clap::{Args, ValueEnum};
use indicatif::ProgressBar;
use mirror_core::time::Month;
use mirror_ingest::run::{FetchSetup, IngestPlan, Meter, MeterKind, Reporter, Tuning};
use mirror_store::embedded::OpenMode;

use crate::args::{StoreArgs, is_in_use};

/// Where games are fetched from, shared by `ingest` and `serve` (whose page adds players).
#[derive(Args, Debug, Clone)]
pub struct FetchArgs {
    /// Chess.com API base URL (for mirrors and tests).
    #[arg(long, env = "MIRROR_CHESSCOM_API", default_value = mirror_online::chesscom::DEFAULT_BASE)]
    pub api_base: String,
    /// lichess base URL (for tests and mirrors).
    #[arg(long, env = "MIRROR_LICHESS_API", default_value = mirror_online::lichess::DEFAULT_BASE)]
    pub lichess_api: String,
    /// Contact (e-mail or URL) sent in the User-Agent, which Chess.com requires (default:
    /// `contact = "..."` in DATA_DIR/config.toml).
    #[arg(long, env = "MIRROR_CONTACT", hide_env_values = true)]
    pub contact: Option<String>,
}

impl FetchArgs {
    /// The setup: these addresses, the contact (flag, environment or config), the lichess
    /// token (`MIRROR_LICHESS_TOKEN`) and the store's batch size.
    pub fn setup(&self, store_args: &StoreArgs) -> anyhow::Result<FetchSetup> {
        let contact = match &self.contact {
            Some(c) => Some(c.clone()),
            None => mirror_ingest::run::config_contact(&store_args.data_dir()?)?,
        };
        Ok(FetchSetup {
            chesscom_base: self.api_base.clone(),
            lichess_base: self.lichess_api.clone(),
            contact,
            lichess_token: std::env::var("MIRROR_LICHESS_TOKEN")
                .ok()
                .filter(|t| !t.is_empty()),
            batch_size: store_args.place().batch_size(None),
        })
    }
}

#[derive(Args, Debug)]
pub struct IngestArgs {
    /// The player (profile) the games are stored for. Alone: the Chess.com account of that
    /// name, or every account recorded for the profile by earlier ingests. With --pgn, the
    /// player's name in the files (matched case-insensitively on White/Black, with --alias
    /// and the profile's account names).
    #[arg(
        long,
        short = 'u',
        required_unless_present_any = ["lichess", "chesscom", "all_players"]
    )]
    pub user: Option<String>,
    /// With --pgn: a profile for every player of the files who has at least --min-games
    /// standard games in them (a game counts for both of its players), instead of one
    /// --user. The files are read twice: first the tags, to count each player's games.
    #[arg(
        long,
        requires = "pgn",
        conflicts_with_all = ["user", "chesscom", "lichess", "aliases"]
    )]
    pub all_players: bool,
    /// With --all-players: the fewest games that make a profile.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub min_games: u64,
    /// Fetch this Chess.com account's games into the profile (repeatable).
    #[arg(long, value_name = "USER")]
    pub chesscom: Vec<String>,
    /// Fetch this lichess account's games from lichess's export into the profile
    /// (repeatable; without --user, the profile is named after the account).
    #[arg(long, value_name = "USER")]
    pub lichess: Vec<String>,
    /// Other spellings of the player's name in PGN files (repeatable; recorded with the
    /// profile, so later ingests match them too).
    #[arg(long = "alias", value_name = "NAME")]
    pub aliases: Vec<String>,
    /// PGN inputs: files (.pgn, .pgn.gz, .pgn.zst), directories, or `-` for stdin, such as
    /// over-the-board games (a game is deduplicated against what the profile has from any
    /// source: a Chess.com or lichess game is known by its URL).
    #[arg(long, num_args = 1.., value_name = "PATH")]
    pub pgn: Vec<PathBuf>,
    #[command(flatten)]
    pub fetch: FetchArgs,
    /// Chess.com / lichess: first month to fetch (YYYY-MM).
    #[arg(long)]
    pub since: Option<Month>,
    /// Chess.com / lichess: last month to fetch (YYYY-MM).
    #[arg(long)]
    pub until: Option<Month>,
    /// Chess.com / lichess: seconds before a request (or a stalled stream) times out.
    #[arg(long, default_value_t = 30)]
    pub timeout: u64,
    /// Chess.com / lichess: retries of a failing request (429, 5xx, timeouts, cut-off answers).
    #[arg(long, default_value_t = 4)]
    pub retries: u32,
    /// Games per write transaction (default 50,000 embedded, 1,000 in Neo4j, whose
    /// transactions hold their changes in the server's heap).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub batch_size: Option<u32>,
    /// How to show progress.
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto)]
    pub progress: ProgressMode,
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

impl IngestArgs {
    fn plan(&self) -> IngestPlan {
        IngestPlan {
            user: self.user.clone(),
            all_players: self.all_players,
            min_games: self.min_games,
            chesscom: self.chesscom.clone(),
            lichess: self.lichess.clone(),
            aliases: self.aliases.clone(),
            pgn: self.pgn.clone(),
            since: self.since,
            until: self.until,
        }
    }

    /// The fetches' timeout, retries and batch size (the contact is the fetch setup's).
    fn tuning(&self) -> Tuning {
        Tuning {
            contact: None,
            timeout_secs: self.timeout,
            retries: self.retries,
            batch_size: self.batch_size,
        }
    }
}

/// This process's stdout and stderr, with bars on a terminal.
struct Terminal(ProgressMode);

impl Reporter for Terminal {
    fn say(&self, line: String) {
        println!("{line}");
    }

    fn warn(&self, line: String) {
        eprintln!("{line}");
    }

    fn meter(&self, kind: MeterKind) -> Option<Box<dyn Meter>> {
        let shown = match self.0 {
            ProgressMode::Bar => true,
            ProgressMode::Auto => std::io::stderr().is_terminal(),
            ProgressMode::Plain | ProgressMode::None => false,
        };
        shown.then(|| -> Box<dyn Meter> {
            let bar = match kind {
                MeterKind::Games => crate::args::bar(
                    None,
                    "{spinner} {elapsed_precise} {human_pos} games read ({per_sec}) {msg}",
                ),
                MeterKind::Months => crate::args::bar(
                    Some(0),
                    "{elapsed_precise} [{bar:30}] {pos}/{len} months {msg}",
                ),
            };
            if kind == MeterKind::Games {
                bar.enable_steady_tick(Duration::from_millis(120));
            }
            Box::new(Bar(bar))
        })
    }
}

struct Bar(ProgressBar);

impl Meter for Bar {
    fn set_length(&self, len: u64) {
        self.0.set_length(len);
    }

    fn set_position(&self, pos: u64) {
        self.0.set_position(pos);
    }

    fn set_message(&self, message: String) {
        self.0.set_message(message);
    }

    fn println(&self, line: &str) {
        self.0.println(line);
    }

    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

pub fn run(store_args: &StoreArgs, args: IngestArgs) -> anyhow::Result<ExitCode> {
    let ok = match ingest(store_args, &args) {
        Err(e) if is_in_use(&e) => forward(store_args, &args, e)?,
        other => other?,
    };
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The ingest in this process; whether every source was read to its end.
fn ingest(store_args: &StoreArgs, args: &IngestArgs) -> anyhow::Result<bool> {
    let plan = args.plan();
    // Every name and input checked before a store is created.
    if let Some((profile, e)) = plan.check()? {
        // `mirror ingest --user NAME` alone: the profile's recorded accounts, else the
        // Chess.com account NAME, which this cannot be. Look without creating a store.
        let known = match store_args.open(OpenMode::MustExist) {
            Ok(store) => mirror_ingest::profile::has_online_account(&store, &profile)?,
            Err(e) if is_in_use(&e) => return Err(e),
            Err(_) => false,
        };
        anyhow::ensure!(known, e);
    }
    mirror_ingest::expand(&plan.pgn)?;
    let place = store_args.place().describe()?;
    let settings = args.fetch.setup(store_args)?.settings(&args.tuning())?;
    let store = store_args.open(OpenMode::CreateIfMissing)?;
    let reporter = Terminal(args.progress);
    let plain = args.progress == ProgressMode::Plain;
    Ok(mirror_ingest::run::run(
        &store, &place, &plan, &settings, &reporter, plain,
    )?)
}

/// `mirror ingest` while `mirror serve` holds the store: the request sent to the server
/// (`POST /api/v1/ingest` with the token from the server's file), which runs the ingest
/// in its process; its report is printed here. `in_use`: the error of the open, returned
/// when no server holds the store.
fn forward(
    store_args: &StoreArgs,
    args: &IngestArgs,
    in_use: anyhow::Error,
) -> anyhow::Result<bool> {
    let Some(server) = crate::args::server_file(store_args)? else {
        return Err(in_use);
    };
    // The contact resolved here (the server's environment may have none), progress as
    // lines at most (the server draws no bars). Where games are fetched from is the
    // server's setting.
    let tuning = Tuning {
        contact: args.fetch.setup(store_args)?.contact,
        ..args.tuning()
    };
    let plain = args.progress == ProgressMode::Plain;
    let request = mirror_server::IngestRequest::of_plan(&args.plan(), &tuning, plain)
        .map_err(anyhow::Error::msg)?;
    eprintln!(
        "the store is held by mirror serve at {}: ingesting through it",
        server.url
    );
    let answer = server
        .ingest(&request)
        .with_context(|| format!("{in_use:#}"))?;
    print!("{}", answer.stdout);
    eprint!("{}", answer.stderr);
    Ok(answer.ok)
}
