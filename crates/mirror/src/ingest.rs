//! `mirror ingest`: PGN inputs into the store, with a progress bar and a summary.

use std::{io::IsTerminal, process::ExitCode, time::Duration};

use clap::{Args, ValueEnum};
use mirror_core::time::{Date, Month};
use mirror_ingest::chesscom::{ChesscomProgress, ChesscomSummary};
use mirror_ingest::profile::{
    self, Feed, FeedResult, FetchSettings, ProfileEvents, ProfileRequest,
};
use mirror_online::{RetryPolicy, chesscom::ClientConfig, lichess::LichessConfig};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressStyle};
use mirror_ingest::{
    InvalidGame, Progress, Summary,
    corpus::{self, CorpusOptions},
};
use mirror_server::jobs::Job;
use mirror_store::{WriteReport, embedded::OpenMode};
use std::sync::Arc;

use std::path::PathBuf;

use crate::cli::{AnyStore, StoreArgs, is_in_use, parse_month};

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
    /// lichess base URL (for tests and mirrors).
    #[arg(long, env = "MIRROR_LICHESS_API", default_value = mirror_online::lichess::DEFAULT_BASE)]
    pub lichess_api: String,
    /// Other spellings of the player's name in PGN files (repeatable; recorded with the
    /// profile, so later ingests match them too).
    #[arg(long = "alias", value_name = "NAME")]
    pub aliases: Vec<String>,
    /// PGN inputs: files (.pgn, .pgn.gz, .pgn.zst), directories, or `-` for stdin, such as
    /// over-the-board games (a game is deduplicated against what the profile has from any
    /// source: a Chess.com or lichess game is known by its URL).
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

/// Where an ingest reports: this process's terminal, or (when `mirror serve` runs it) the
/// server's job, which the page and the process that sent it read.
pub struct Out {
    job: Option<Arc<Job>>,
}

impl Out {
    /// This process's stdout and stderr.
    pub fn terminal() -> Out {
        Out { job: None }
    }

    /// Into `job`.
    pub fn job(job: Arc<Job>) -> Out {
        Out { job: Some(job) }
    }

    fn emit(&self, line: String, to_stderr: bool) {
        match &self.job {
            None if to_stderr => eprintln!("{line}"),
            None => println!("{line}"),
            Some(job) if to_stderr => job.warn(&line),
            Some(job) => job.say(&line),
        }
    }

    /// A line of the report (stdout).
    pub(crate) fn say(&self, line: String) {
        self.emit(line, false);
    }

    /// A warning, an error or progress (stderr).
    pub(crate) fn warn(&self, line: String) {
        self.emit(line, true);
    }

    /// The job, when there is one (its counters follow the ingest).
    fn tally(&self) -> Option<&Job> {
        self.job.as_deref()
    }

    /// Whether progress bars may be drawn (on this process's terminal only).
    fn bars(&self, mode: ProgressMode) -> bool {
        self.job.is_none()
            && match mode {
                ProgressMode::Bar => true,
                ProgressMode::Auto => std::io::stderr().is_terminal(),
                ProgressMode::Plain | ProgressMode::None => false,
            }
    }
}

/// How many invalid games are printed one by one.
const SHOWN_INVALID: u64 = 20;

struct CliProgress<'a> {
    bar: Option<ProgressBar>,
    mode: ProgressMode,
    plain: bool,
    invalid_shown: u64,
    out: &'a Out,
    /// The store, for the summaries.
    path: String,
    /// The profile, for the summaries.
    profile: String,
    /// Several sources: each gets a header.
    several: bool,
}

impl CliProgress<'_> {
    /// Progress without a bar yet (see [`CliProgress::spinner`]).
    fn new(mode: ProgressMode, out: &Out) -> CliProgress<'_> {
        CliProgress {
            bar: None,
            mode,
            plain: mode == ProgressMode::Plain,
            invalid_shown: 0,
            out,
            path: String::new(),
            profile: String::new(),
            several: false,
        }
    }

    /// A spinner counting games, on a terminal.
    fn spinner(&self) -> Option<ProgressBar> {
        self.out.bars(self.mode).then(|| {
            let bar = ProgressBar::new_spinner();
            bar.set_style(
                ProgressStyle::with_template(
                    "{spinner} {elapsed_precise} {human_pos} games read ({per_sec}) {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
            );
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        })
    }

    /// A bar counting Chess.com's months, on a terminal.
    fn months_bar(&self) -> Option<ProgressBar> {
        self.out.bars(self.mode).then(|| {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template(
                    "{elapsed_precise} [{bar:30}] {pos}/{len} months {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        })
    }

    fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => self.out.warn(line.to_string()),
        }
    }
}

impl Progress for CliProgress<'_> {
    fn source(&mut self, source: &str, index: usize, total: usize) {
        if let Some(bar) = &self.bar {
            bar.set_message(format!("[{}/{total}] {source}", index + 1));
        } else if self.plain {
            self.out
                .warn(format!("reading [{}/{total}] {source}", index + 1));
        }
    }

    fn games(&mut self, games_read: u64, ingested: u64) {
        if let Some(bar) = &self.bar {
            bar.set_position(games_read);
        }
        if let Some(job) = self.out.tally() {
            job.games(games_read, ingested);
        }
    }

    fn committed(&mut self, report: &WriteReport, summary: &Summary) {
        if let Some(job) = self.out.tally() {
            job.games(summary.games_read, summary.ingested);
        }
        if self.plain {
            self.out.warn(format!(
                "committed {} games (total: {} read, {} ingested, {} new positions, {} new edges)",
                report.games,
                summary.games_read,
                summary.ingested,
                summary.new_positions,
                summary.new_edges
            ));
        }
    }

    fn invalid(&mut self, game: &InvalidGame) {
        if let Some(job) = self.out.tally() {
            job.invalid(1);
        }
        self.invalid_shown += 1;
        if self.invalid_shown <= SHOWN_INVALID {
            self.println(&format!("warning: skipped invalid game: {game}"));
        } else if self.invalid_shown == SHOWN_INVALID + 1 {
            self.println("warning: more invalid games; the summary counts them all");
        }
    }
}

impl ChesscomProgress for CliProgress<'_> {
    fn start(&mut self, months: u64) {
        if let Some(job) = self.out.tally() {
            job.months(0, months);
        }
        if let Some(bar) = &self.bar {
            bar.set_length(months);
        } else if self.plain {
            self.out.warn(format!("{months} months to check"));
        }
    }

    fn month(&mut self, month: Month, done: u64, s: &ChesscomSummary) {
        if let Some(job) = self.out.tally() {
            job.months(done, s.months.total);
            job.games(s.games.games_read, s.games.ingested);
        }
        if let Some(bar) = &self.bar {
            bar.set_position(done);
            bar.set_message(format!("{month}: {} new games", s.games.ingested));
        } else if self.plain {
            self.out.warn(format!(
                "month {month} done ({done}/{}): {} games read, {} new",
                s.months.total, s.games.games_read, s.games.ingested
            ));
        }
    }
}

impl ProfileEvents for CliProgress<'_> {
    fn sources(&mut self, feeds: &[Feed], recorded: bool) {
        self.several = feeds.len() > 1;
        if recorded {
            let names: Vec<String> = feeds.iter().map(Feed::to_string).collect();
            self.out.say(format!(
                "profile {}: its accounts {}",
                self.profile,
                names.join(", ")
            ));
        }
    }

    fn feed(&mut self, feed: &Feed, _index: usize, _total: usize) {
        if let Some(job) = self.out.tally() {
            job.next_source();
        }
        if self.several {
            self.out.say(format!("== {feed} =="));
        }
        self.clear();
        self.invalid_shown = 0;
        self.bar = match feed {
            Feed::Chesscom(_) => self.months_bar(),
            Feed::Lichess(_) | Feed::Pgn => self.spinner(),
        };
    }

    fn feed_done(&mut self, feed: &Feed, result: Option<&FeedResult>) {
        self.clear();
        if let Some(result) = result {
            print_feed(self.out, &self.profile, &self.path, feed, result);
        }
    }
}

pub fn run(store_args: &StoreArgs, args: IngestArgs) -> anyhow::Result<ExitCode> {
    let ok = match ingest(&Out::terminal(), store_args, &args, None) {
        Err(e) if is_in_use(&e) => forward(store_args, &args, e)?,
        other => other?,
    };
    Ok(if ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// The ingest: every feed of the profile into the store. `held`: the store when the
/// caller holds it open (`mirror serve`, running this for another process); otherwise it
/// is opened here. Returns whether every feed succeeded.
pub fn ingest(
    out: &Out,
    store_args: &StoreArgs,
    args: &IngestArgs,
    held: Option<&AnyStore>,
) -> anyhow::Result<bool> {
    if args.all_players {
        return all_players(out, store_args, args, held);
    }
    let request = ProfileRequest {
        user: args.user.clone(),
        chesscom: args.chesscom.clone(),
        lichess: args.lichess.clone(),
        aliases: args.aliases.clone(),
        pgn: Vec::new(),
        since: args.since,
        until: args.until,
    };
    // Every name checked before anything touches the disk or the network.
    let profile = request.profile()?;
    if request.feeds().is_empty()
        && args.pgn.is_empty()
        && let Err(e) = request.chesscom_fallback(&profile)
    {
        // `mirror ingest --user NAME` alone: the profile's recorded accounts, else the
        // Chess.com account NAME, which this cannot be. Look without creating a store.
        let known = match held {
            Some(store) => profile::has_online_account(store, &profile)?,
            None => match store_args.open(OpenMode::MustExist) {
                Ok(store) => profile::has_online_account(&store, &profile)?,
                Err(e) if is_in_use(&e) => return Err(e),
                Err(_) => false,
            },
        };
        if !known {
            return Err(e.into());
        }
    }
    let request = ProfileRequest {
        pgn: mirror_ingest::expand(&args.pgn)?,
        ..request
    };
    let path = store_args.describe()?;
    let mut opened = None;
    let store = held_or_open(held, &mut opened, store_args)?;
    let settings = settings(store_args, args)?;
    let mut events = CliProgress::new(args.progress, out);
    events.path = path;
    events.profile = profile.clone();
    let outcome = profile::ingest_profile(store, &request, &settings, &mut events)?;
    if outcome.feeds.len() > 1 {
        let total: u64 = outcome.feeds.iter().map(|(_, r)| r.games().ingested).sum();
        let dup: u64 = outcome
            .feeds
            .iter()
            .map(|(_, r)| r.games().duplicates)
            .sum();
        let parts: Vec<String> = outcome
            .feeds
            .iter()
            .map(|(f, r)| format!("{f}: {}", r.games().ingested))
            .collect();
        out.say(format!(
            "profile {profile}: {total} new games ({}), {dup} already stored or seen twice",
            parts.join(", ")
        ));
    }
    Ok(outcome.ok())
}

/// Where and how this machine fetches: the command line's addresses, the contact (flag,
/// environment or config), the lichess token (`MIRROR_LICHESS_TOKEN`), retries, the
/// store's batch size, and the clock.
fn settings(store_args: &StoreArgs, args: &IngestArgs) -> anyhow::Result<FetchSettings> {
    let now_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .context("the system clock is before 1970")?;
    let now = Date::today()
        .and_then(|d| d.month())
        .context("the system clock gives no date")?;
    let contact = contact(store_args, args)?;
    Ok(FetchSettings {
        chesscom: ClientConfig {
            base: args.api_base.clone(),
            contact: contact.clone(),
            retry: retry_policy(args),
        },
        lichess: LichessConfig {
            base: args.lichess_api.clone(),
            token: std::env::var("MIRROR_LICHESS_TOKEN")
                .ok()
                .filter(|t| !t.is_empty()),
            contact,
            retry: retry_policy(args),
        },
        batch_size: store_args.batch_size(args.batch_size),
        now,
        now_ms,
    })
}

/// What one source did, as the command line reports it.
fn print_feed(out: &Out, profile: &str, path: &str, feed: &Feed, result: &FeedResult) {
    match result {
        FeedResult::Chesscom(s) => {
            out.say(format!(
                "Chess.com months: {} in range, {} fetched, {} not modified, {} already complete, {} failed",
                s.months.total,
                s.months.fetched,
                s.months.not_modified,
                s.months.up_to_date,
                s.months.failed.len()
            ));
            if let Some(job) = out.tally() {
                job.invalid(s.games.invalid);
            }
            for g in s.games.invalid_games.iter().take(SHOWN_INVALID as usize) {
                out.warn(format!("warning: skipped invalid game: {g}"));
            }
            print_profile_summary(out, profile, path, &s.games);
            for (month, why) in &s.months.failed {
                out.warn(format!("error: month {month} failed: {why}"));
            }
            if !s.months.failed.is_empty() {
                out.warn(format!(
                    "error: {} month(s) failed; run the same command again to retry them",
                    s.months.failed.len()
                ));
            }
        }
        FeedResult::Lichess(s) => {
            let Feed::Lichess(user) = feed else {
                unreachable!("a lichess result comes from a lichess feed")
            };
            match s.since_ms {
                Some(ms) => out.say(format!(
                    "lichess export of {user} since {} (Unix ms {ms})",
                    date_of_ms(ms)
                )),
                None => out.say(format!("lichess export of {user}: all games")),
            }
            print_profile_summary(out, profile, path, &s.games);
            if s.games.has_errors() {
                out.warn(
                    "error: the export broke off; the games read before are kept: run the same command again"
                        .to_string(),
                );
            }
        }
        FeedResult::Pgn(s) => print_profile_summary(out, profile, path, s),
    }
}

/// `mirror ingest` while `mirror serve` holds the store: the same arguments sent to the
/// server (`POST /api/v1/ingest` with the token from the server's file), which runs the
/// ingest in its process; its report is printed here. `in_use`: the error of the open,
/// returned when no server holds the store.
fn forward(
    store_args: &StoreArgs,
    args: &IngestArgs,
    in_use: anyhow::Error,
) -> anyhow::Result<bool> {
    let Some(server) = crate::serve::server_file(store_args)? else {
        return Err(in_use);
    };
    let request = server_request(store_args, args)?;
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

/// `args` as the server's `mirror ingest` takes them: PGN paths made absolute (the server
/// runs elsewhere), the contact resolved here (the server's environment may have none),
/// progress as lines at most (the server draws no bars). Where games are fetched from is
/// the server's setting.
fn server_request(
    store_args: &StoreArgs,
    args: &IngestArgs,
) -> anyhow::Result<mirror_server::IngestRequest> {
    let mut pgn = Vec::new();
    for p in &args.pgn {
        anyhow::ensure!(
            p.as_os_str() != "-",
            "--pgn - (standard input) cannot go through mirror serve, which holds the \
             store: write the games to a file, or stop the server"
        );
        let abs =
            std::fs::canonicalize(p).with_context(|| format!("cannot read {}", p.display()))?;
        pgn.push(
            abs.to_str()
                .with_context(|| format!("{} is not UTF-8", abs.display()))?
                .to_string(),
        );
    }
    Ok(mirror_server::IngestRequest {
        user: args.user.clone(),
        all_players: args.all_players,
        min_games: Some(args.min_games),
        chesscom: args.chesscom.clone(),
        lichess: args.lichess.clone(),
        aliases: args.aliases.clone(),
        pgn,
        contact: contact(store_args, args)?,
        since: args.since.map(|m| m.to_string()),
        until: args.until.map(|m| m.to_string()),
        timeout_secs: Some(args.timeout),
        retries: Some(args.retries),
        batch_size: args.batch_size,
        plain_progress: args.progress == ProgressMode::Plain,
    })
}

/// The store the caller holds (`mirror serve`), else this invocation's, opened (created
/// if missing) into `opened`.
fn held_or_open<'a>(
    held: Option<&'a AnyStore>,
    opened: &'a mut Option<AnyStore>,
    store_args: &StoreArgs,
) -> anyhow::Result<&'a AnyStore> {
    Ok(match held {
        Some(store) => store,
        None => opened.insert(store_args.open(OpenMode::CreateIfMissing)?),
    })
}

/// `--all-players`: a profile for every player of the PGN inputs with enough games.
fn all_players(
    out: &Out,
    store_args: &StoreArgs,
    args: &IngestArgs,
    held: Option<&AnyStore>,
) -> anyhow::Result<bool> {
    anyhow::ensure!(
        args.pgn.iter().all(|p| p.as_os_str() != "-"),
        "--all-players reads its inputs twice (first to count each player's games): pass \
         files, not - (standard input)"
    );
    let sources = mirror_ingest::expand(&args.pgn)?;
    let path = store_args.describe()?;
    let mut opened = None;
    let store = held_or_open(held, &mut opened, store_args)?;
    let inputs = || -> Vec<mirror_ingest::Input> {
        sources
            .iter()
            .cloned()
            .map(mirror_ingest::Input::from_source)
            .collect()
    };
    let mut progress = CliProgress::new(args.progress, out);
    progress.bar = progress.spinner();
    let roster = corpus::count_players(inputs(), &mut progress)?;
    if let Some(bar) = &progress.bar {
        bar.finish_and_clear();
    }
    let players = roster.players(args.min_games);
    out.say(format!(
        "{} players with at least {} games in {} games (counted in {:.2} s)",
        players.len(),
        args.min_games,
        roster.games,
        roster.elapsed.as_secs_f64()
    ));
    if players.is_empty() {
        let most = roster.players(1);
        let top: Vec<String> = most
            .iter()
            .take(5)
            .map(|(n, c)| format!("{n} ({c})"))
            .collect();
        anyhow::bail!(
            "no player has {} games in the input: lower --min-games (the most: {})",
            args.min_games,
            if top.is_empty() {
                "no named player".to_string()
            } else {
                top.join(", ")
            }
        );
    }
    let batch_size = store_args.batch_size(args.batch_size);
    let defaults = CorpusOptions::new(args.min_games);
    let opts = CorpusOptions {
        batch_size,
        buffer: defaults.buffer.max(batch_size),
        ..defaults
    };
    let mut progress = CliProgress::new(args.progress, out);
    progress.bar = progress.spinner();
    let summary = corpus::ingest_corpus(store, inputs(), &roster, &opts, &mut progress)
        .with_context(|| format!("ingest into {path}"))?;
    if let Some(bar) = &progress.bar {
        bar.finish_and_clear();
    }
    let secs = summary.elapsed.as_secs_f64().max(1e-9);
    print_summary(
        out,
        &format!(
            "ingested {} new game-sides of {} players into {path} ({:.0} game-sides/s)",
            summary.ingested,
            players.len(),
            summary.ingested as f64 / secs
        ),
        &summary,
    );
    Ok(!summary.has_errors())
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

fn date_of_ms(ms: i64) -> String {
    Date::from_unix(ms.div_euclid(1000)).map_or_else(|| "?".into(), |d| d.to_string())
}

/// The summary of one profile's feed.
fn print_profile_summary(out: &Out, profile: &str, path: &str, s: &Summary) {
    print_summary(
        out,
        &format!("ingested {} new games of {profile} into {path}", s.ingested),
        s,
    );
}

fn print_summary(out: &Out, headline: &str, s: &Summary) {
    let (games_s, plies_s) = mirror_ingest::rates(s);
    out.say(headline.to_string());
    out.say(format!("  games read       {}", s.games_read));
    out.say(format!("  already stored   {}", s.duplicates));
    out.say(format!("  other players    {}", s.other_players));
    for (reason, n) in &s.skipped {
        out.say(format!("  skipped          {n} ({reason})"));
    }
    if s.invalid > 0 {
        out.say(format!(
            "  invalid          {} (illegal or unreadable move; listed above)",
            s.invalid
        ));
    }
    out.say(format!("  new positions    {}", s.new_positions));
    out.say(format!("  new edges        {}", s.new_edges));
    out.say(format!(
        "  time             {:.2} s ({games_s:.0} games/s, {plies_s:.0} plies/s)",
        s.elapsed.as_secs_f64()
    ));
    for e in &s.source_errors {
        out.warn(format!("error: {e}"));
    }
}
