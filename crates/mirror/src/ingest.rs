//! `mirror ingest`: PGN inputs into the store, with a progress bar and a summary.

use std::{io::IsTerminal, process::ExitCode, time::Duration};

use clap::{Args, ValueEnum};
use mirror_core::time::{Date, Month};
use mirror_ingest::chesscom::{
    ChesscomOptions, ChesscomProgress, ChesscomSummary, ingest_chesscom,
};
use mirror_online::{RetryPolicy, chesscom::ClientConfig, lichess::LichessConfig};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use mirror_ingest::{
    IngestOptions, InvalidGame, Progress, Summary,
    lichess::{LichessOptions, ingest_lichess},
};
use mirror_store::{WriteReport, embedded::OpenMode};

use std::path::PathBuf;

use crate::cli::{StoreArgs, parse_month};

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

/// How many invalid games are printed one by one.
const SHOWN_INVALID: u64 = 20;

struct CliProgress {
    bar: Option<ProgressBar>,
    plain: bool,
    invalid_shown: u64,
}

impl CliProgress {
    fn new(mode: ProgressMode) -> CliProgress {
        let bar = match mode {
            ProgressMode::Bar => true,
            ProgressMode::Auto => std::io::stderr().is_terminal(),
            ProgressMode::Plain | ProgressMode::None => false,
        }
        .then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template(
                    "{spinner} {elapsed_precise} {human_pos} games read ({per_sec}) {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        });
        CliProgress {
            bar,
            plain: mode == ProgressMode::Plain,
            invalid_shown: 0,
        }
    }

    fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => eprintln!("{line}"),
        }
    }
}

impl Progress for CliProgress {
    fn source(&mut self, source: &str, index: usize, total: usize) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("[{}/{total}] {source}", index + 1));
        } else if self.plain {
            eprintln!("reading [{}/{total}] {source}", index + 1);
        }
    }

    fn games(&mut self, games_read: u64, _ingested: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(games_read);
        }
    }

    fn committed(&mut self, report: &WriteReport, summary: &Summary) {
        if self.plain {
            eprintln!(
                "committed {} games (total: {} read, {} ingested, {} new positions, {} new edges)",
                report.games,
                summary.games_read,
                summary.ingested,
                summary.new_positions,
                summary.new_edges
            );
        }
    }

    fn invalid(&mut self, game: &InvalidGame) {
        self.invalid_shown += 1;
        if self.invalid_shown <= SHOWN_INVALID {
            self.println(&format!("warning: skipped invalid game: {game}"));
        } else if self.invalid_shown == SHOWN_INVALID + 1 {
            self.println("warning: more invalid games; the summary counts them all");
        }
    }
}

pub fn run(store_args: &StoreArgs, args: IngestArgs) -> anyhow::Result<ExitCode> {
    if let Some(user) = &args.lichess {
        return run_lichess(store_args, &args, user);
    }
    let user = args
        .user
        .clone()
        .context("pass --user NAME (or --lichess USER)")?;
    if args.pgn.is_empty() {
        return run_chesscom(store_args, &args, &user);
    }
    let sources = mirror_ingest::expand(&args.pgn)?;
    let path = store_args.describe()?;
    let store = store_args.open(OpenMode::CreateIfMissing)?;
    let opts = IngestOptions {
        player: user.clone(),
        aliases: args.aliases.clone(),
        batch_size: store_args.batch_size(args.batch_size),
    };
    let mut progress = CliProgress::new(args.progress);
    let summary = mirror_ingest::ingest(&store, &sources, &opts, &mut progress)
        .with_context(|| format!("ingest into {path}"))?;
    if let Some(bar) = &progress.bar {
        bar.finish_and_clear();
    }
    print_summary(&user, &summary, &path);
    if summary.ingested + summary.duplicates == 0 {
        let mut msg = format!("no game in the input has {user:?} as White or Black");
        if !summary.frequent_names.is_empty() {
            let names: Vec<String> = summary
                .frequent_names
                .iter()
                .map(|(n, c)| format!("{n} ({c})"))
                .collect();
            msg.push_str(&format!(
                "; the most frequent names are: {} (use --user or --alias)",
                names.join(", ")
            ));
        }
        anyhow::bail!(msg);
    }
    Ok(if summary.has_errors() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

struct MonthProgress {
    bar: Option<ProgressBar>,
    plain: bool,
}

impl ChesscomProgress for MonthProgress {
    fn start(&mut self, months: u64) {
        if let Some(bar) = &self.bar {
            bar.set_length(months);
        } else if self.plain {
            eprintln!("{months} months to check");
        }
    }

    fn month(&mut self, month: Month, done: u64, s: &ChesscomSummary) {
        if let Some(bar) = &self.bar {
            bar.set_position(done);
            bar.set_message(format!("{month}: {} new games", s.games.ingested));
        } else if self.plain {
            eprintln!(
                "month {month} done ({done}/{}): {} games read, {} new",
                s.months.total, s.games.games_read, s.games.ingested
            );
        }
    }
}

/// The contact for the User-Agent: `--contact` / `MIRROR_CONTACT`, else `contact = "..."`
/// in `DATA_DIR/config.toml`.
fn contact(store_args: &StoreArgs, args: &IngestArgs) -> anyhow::Result<Option<String>> {
    if let Some(c) = &args.contact {
        return Ok(Some(c.clone()));
    }
    #[derive(serde::Deserialize)]
    struct Config {
        contact: Option<String>,
    }
    let path = store_args.data_dir()?.join("config.toml");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    let cfg: Config =
        toml::from_str(&text).with_context(|| format!("invalid config {}", path.display()))?;
    Ok(cfg.contact.filter(|c| !c.trim().is_empty()))
}

fn retry_policy(args: &IngestArgs) -> RetryPolicy {
    RetryPolicy {
        timeout: Duration::from_secs(args.timeout.max(1)),
        retries: args.retries,
        ..RetryPolicy::default()
    }
}

fn run_lichess(store_args: &StoreArgs, args: &IngestArgs, user: &str) -> anyhow::Result<ExitCode> {
    // Validate before anything touches the disk or the network.
    mirror_online::lichess::validate_username(user)?;
    let path = store_args.describe()?;
    let store = store_args.open(OpenMode::CreateIfMissing)?;
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .context("the system clock is before 1970")?;
    let opts = LichessOptions {
        user: user.to_string(),
        config: LichessConfig {
            base: args.lichess_api.clone(),
            token: std::env::var("MIRROR_LICHESS_TOKEN")
                .ok()
                .filter(|t| !t.is_empty()),
            contact: args.contact.clone(),
            retry: retry_policy(args),
        },
        since: args.since,
        until: args.until,
        now_ms,
        batch_size: store_args.batch_size(args.batch_size),
    };
    let mut progress = CliProgress::new(args.progress);
    let s = ingest_lichess(&store, &opts, &mut progress)
        .with_context(|| format!("ingest lichess games of {user}"))?;
    if let Some(bar) = &progress.bar {
        bar.finish_and_clear();
    }
    match s.since_ms {
        Some(ms) => println!(
            "lichess export of {user} since {} (Unix ms {ms})",
            date_of_ms(ms)
        ),
        None => println!("lichess export of {user}: all games"),
    }
    print_summary(user, &s.games, &path);
    if s.games.has_errors() {
        eprintln!(
            "error: the export broke off; the games read before are kept: run the same command again"
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

fn date_of_ms(ms: i64) -> String {
    Date::from_unix(ms.div_euclid(1000)).map_or_else(|| "?".into(), |d| d.to_string())
}

fn run_chesscom(store_args: &StoreArgs, args: &IngestArgs, user: &str) -> anyhow::Result<ExitCode> {
    // Validate before anything touches the disk or the network.
    mirror_online::chesscom::validate_username(user)?;
    let path = store_args.describe()?;
    let store = store_args.open(OpenMode::CreateIfMissing)?;
    let now = Date::today()
        .and_then(|d| d.month())
        .context("the system clock gives no date")?;
    let opts = ChesscomOptions {
        user: user.to_string(),
        client: ClientConfig {
            base: args.api_base.clone(),
            contact: contact(store_args, args)?,
            retry: retry_policy(args),
        },
        since: args.since,
        until: args.until,
        now,
        batch_size: store_args.batch_size(args.batch_size),
    };
    let show_bar = match args.progress {
        ProgressMode::Bar => true,
        ProgressMode::Auto => std::io::stderr().is_terminal(),
        ProgressMode::Plain | ProgressMode::None => false,
    };
    let bar = show_bar.then(|| {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} months {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        bar
    });
    let mut progress = MonthProgress {
        bar,
        plain: args.progress == ProgressMode::Plain,
    };
    let s = ingest_chesscom(&store, &opts, &mut progress)
        .with_context(|| format!("ingest Chess.com games of {user}"))?;
    if let Some(bar) = &progress.bar {
        bar.finish_and_clear();
    }
    println!(
        "Chess.com months: {} in range, {} fetched, {} not modified, {} already complete, {} failed",
        s.months.total,
        s.months.fetched,
        s.months.not_modified,
        s.months.up_to_date,
        s.months.failed.len()
    );
    for g in s.games.invalid_games.iter().take(SHOWN_INVALID as usize) {
        eprintln!("warning: skipped invalid game: {g}");
    }
    print_summary(user, &s.games, &path);
    for (month, why) in &s.months.failed {
        eprintln!("error: month {month} failed: {why}");
    }
    if !s.months.failed.is_empty() {
        eprintln!(
            "error: {} month(s) failed; run the same command again to retry them",
            s.months.failed.len()
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_summary(user: &str, s: &Summary, path: &str) {
    let (games_s, plies_s) = mirror_ingest::rates(s);
    println!("ingested {} new games of {user} into {path}", s.ingested);
    println!("  games read       {}", s.games_read);
    println!("  already stored   {}", s.duplicates);
    println!("  other players    {}", s.other_players);
    for (reason, n) in &s.skipped {
        println!("  skipped          {n} ({reason})");
    }
    if s.invalid > 0 {
        println!(
            "  invalid          {} (illegal or unreadable move; listed above)",
            s.invalid
        );
    }
    println!("  new positions    {}", s.new_positions);
    println!("  new edges        {}", s.new_edges);
    println!(
        "  time             {:.2} s ({games_s:.0} games/s, {plies_s:.0} plies/s)",
        s.elapsed.as_secs_f64()
    );
    for e in &s.source_errors {
        eprintln!("error: {e}");
    }
}
