//! An ingest as `mirror ingest` and the server run it: what is asked ([`IngestPlan`]),
//! where this machine fetches from ([`FetchSetup`]), the run itself ([`run`]), and its
//! report as lines of text into a [`Reporter`]: the command line's terminal (with bars),
//! or a server's job, which the page reads. Both say the same words.

use std::{
    path::{Path, PathBuf},
    time::Duration,
};

use mirror_core::time::{Date, Month};
use mirror_online::{RetryPolicy, chesscom::ClientConfig, lichess::LichessConfig};
use mirror_store::{GraphStore, StoreError, WriteReport};

use crate::{
    IngestError, InvalidGame, Progress, SourceError, Summary,
    chesscom::{ChesscomProgress, ChesscomSummary},
    corpus::{self, CorpusOptions},
    profile::{self, Feed, FeedResult, FetchSettings, ProfileError, ProfileEvents, ProfileRequest},
};

/// What an ingest is asked: the inputs of `mirror ingest`, typed.
#[derive(Clone, Debug, Default)]
pub struct IngestPlan {
    /// The profile (alone: its recorded accounts, else the Chess.com account of its name).
    pub user: Option<String>,
    /// A profile for every player of the PGN inputs with at least `min_games` games.
    pub all_players: bool,
    /// With `all_players`: the fewest games that make a profile.
    pub min_games: u64,
    /// Chess.com accounts.
    pub chesscom: Vec<String>,
    /// lichess accounts.
    pub lichess: Vec<String>,
    /// Other spellings of the player's name in PGN files.
    pub aliases: Vec<String>,
    /// PGN files, directories, or `-` (standard input).
    pub pgn: Vec<PathBuf>,
    /// Chess.com / lichess: the first month to fetch.
    pub since: Option<Month>,
    /// Chess.com / lichess: the last month to fetch.
    pub until: Option<Month>,
}

/// Why an ingest did not run, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The plan asks what cannot be done (named).
    #[error("{0}")]
    Plan(String),
    /// The profile or one of its sources.
    #[error(transparent)]
    Profile(#[from] ProfileError),
    /// An input could not be used.
    #[error(transparent)]
    Source(#[from] SourceError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The corpus could not be ingested.
    #[error("ingest into {place}")]
    Corpus {
        /// The store, in words.
        place: String,
        /// Why.
        #[source]
        source: IngestError,
    },
    /// The first pass of `--all-players` failed.
    #[error(transparent)]
    Ingest(#[from] IngestError),
    /// `config.toml` cannot be read as TOML.
    #[error("invalid config {}", path.display())]
    Config {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: toml::de::Error,
    },
    /// The system clock gives no usable date.
    #[error("the system clock gives no date (it is before 1970)")]
    Clock,
}

impl IngestPlan {
    /// Every name checked before anything touches the disk or the network.
    /// `Ok(Some((profile, e)))`: the plan is `--user NAME` alone with a name that cannot be
    /// a Chess.com account, so it holds only if the profile has an online account recorded
    /// ([`profile::has_online_account`]; else `e` is the error).
    pub fn check(&self) -> Result<Option<(String, ProfileError)>, RunError> {
        if self.all_players {
            if self.pgn.is_empty() {
                return Err(RunError::Plan("--all-players needs --pgn".into()));
            }
            if self.user.is_some()
                || !self.chesscom.is_empty()
                || !self.lichess.is_empty()
                || !self.aliases.is_empty()
            {
                return Err(RunError::Plan(
                    "--all-players makes a profile for every player: it takes no --user, \
                     --chesscom, --lichess or --alias"
                        .into(),
                ));
            }
            if self.min_games == 0 {
                return Err(RunError::Plan("--min-games must be at least 1".into()));
            }
            if self.pgn.iter().any(|p| p.as_os_str() == "-") {
                return Err(RunError::Plan(
                    "--all-players reads its inputs twice (first to count each player's \
                     games): pass files, not - (standard input)"
                        .into(),
                ));
            }
            return Ok(None);
        }
        let request = self.request(Vec::new());
        let profile = request.profile()?;
        if request.feeds().is_empty() && self.pgn.is_empty() {
            return Ok(request
                .chesscom_fallback(&profile)
                .err()
                .map(|e| (profile, e)));
        }
        Ok(None)
    }

    fn request(&self, pgn: Vec<crate::Source>) -> ProfileRequest {
        ProfileRequest {
            user: self.user.clone(),
            chesscom: self.chesscom.clone(),
            lichess: self.lichess.clone(),
            aliases: self.aliases.clone(),
            pgn,
            since: self.since,
            until: self.until,
        }
    }
}

/// Where this machine fetches from: the sites' addresses, the contact sent to them, the
/// lichess token, and the store's batch size; [`FetchSetup::settings`] adds one run's
/// timeout and retries, and the clock.
#[derive(Clone, Debug)]
pub struct FetchSetup {
    /// Chess.com's API.
    pub chesscom_base: String,
    /// lichess's API.
    pub lichess_base: String,
    /// The contact (e-mail or URL) sent in the User-Agent.
    pub contact: Option<String>,
    /// A lichess API token (faster exports).
    pub lichess_token: Option<String>,
    /// Games per write transaction unless a run says otherwise.
    pub batch_size: usize,
}

/// One run's fetching and writing: what a caller may change.
#[derive(Clone, Debug)]
pub struct Tuning {
    /// The contact, over the setup's.
    pub contact: Option<String>,
    /// Seconds before a request (or a stalled stream) times out.
    pub timeout_secs: u64,
    /// Retries of a failing request.
    pub retries: u32,
    /// Games per write transaction, over the setup's.
    pub batch_size: Option<u32>,
}

impl Default for Tuning {
    /// 30 s, 4 retries, the setup's contact and batch size.
    fn default() -> Tuning {
        Tuning {
            contact: None,
            timeout_secs: 30,
            retries: 4,
            batch_size: None,
        }
    }
}

impl FetchSetup {
    /// The settings of one run, with the clock read now.
    pub fn settings(&self, tuning: &Tuning) -> Result<FetchSettings, RunError> {
        let now_ms = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
            .map_err(|_| RunError::Clock)?;
        let now = Date::today()
            .and_then(|d| d.month())
            .ok_or(RunError::Clock)?;
        let contact = tuning.contact.clone().or_else(|| self.contact.clone());
        let retry = RetryPolicy {
            timeout: Duration::from_secs(tuning.timeout_secs.max(1)),
            retries: tuning.retries,
            ..RetryPolicy::default()
        };
        Ok(FetchSettings {
            chesscom: ClientConfig {
                base: self.chesscom_base.clone(),
                contact: contact.clone(),
                retry: retry.clone(),
            },
            lichess: LichessConfig {
                base: self.lichess_base.clone(),
                token: self.lichess_token.clone(),
                contact,
                retry,
            },
            batch_size: tuning.batch_size.map_or(self.batch_size, |n| n as usize),
            now,
            now_ms,
        })
    }
}

/// The contact of `contact = "..."` in `DATA_DIR/config.toml` (none without the file).
pub fn config_contact(data_dir: &Path) -> Result<Option<String>, RunError> {
    #[derive(serde::Deserialize)]
    struct Config {
        contact: Option<String>,
    }
    let path = data_dir.join("config.toml");
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    let cfg: Config = toml::from_str(&text).map_err(|source| RunError::Config {
        path: path.clone(),
        source,
    })?;
    Ok(cfg.contact.filter(|c| !c.trim().is_empty()))
}

/// Where an ingest reports: lines of its report and warnings, the counters a server's
/// job shows, and (on a terminal) progress bars.
pub trait Reporter {
    /// A line of the report (standard output).
    fn say(&self, line: String);
    /// A warning, an error or progress (standard error).
    fn warn(&self, line: String);
    /// Games read and written so far in the current source.
    fn games(&self, _read: u64, _ingested: u64) {}
    /// `n` more invalid games.
    fn invalid(&self, _n: u64) {}
    /// Chess.com months done out of `total`.
    fn months(&self, _done: u64, _total: u64) {}
    /// The next source starts.
    fn next_source(&self) {}
    /// A progress bar for a source (`None`: none drawn).
    fn meter(&self, _kind: MeterKind) -> Option<Box<dyn Meter>> {
        None
    }
    /// Whether whoever runs the ingest asked it to stop (checked between batches and
    /// before each Chess.com month).
    fn cancelled(&self) -> bool {
        false
    }
    /// A PGN source's games left out as other players': how many, and the names most
    /// often in them (most frequent first), where a misspelt player usually is.
    fn left_out(&self, _games: u64, _names: &[(String, u64)]) {}
}

/// What a progress bar counts.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum MeterKind {
    /// Games read (no end known).
    Games,
    /// Chess.com's months.
    Months,
}

/// A progress bar.
pub trait Meter {
    /// Its end.
    fn set_length(&self, len: u64);
    /// Where it is.
    fn set_position(&self, pos: u64);
    /// The words beside it.
    fn set_message(&self, message: String);
    /// A line above it.
    fn println(&self, line: &str);
    /// Gone.
    fn finish(&self);
}

/// How many invalid games are reported one by one.
const SHOWN_INVALID: u64 = 20;

/// The ingest's events as lines into a [`Reporter`].
struct TextEvents<'a> {
    bar: Option<Box<dyn Meter>>,
    plain: bool,
    invalid_shown: u64,
    out: &'a dyn Reporter,
    place: &'a str,
    profile: String,
    several: bool,
}

impl<'a> TextEvents<'a> {
    fn new(out: &'a dyn Reporter, place: &'a str, plain: bool) -> TextEvents<'a> {
        TextEvents {
            bar: None,
            plain,
            invalid_shown: 0,
            out,
            place,
            profile: String::new(),
            several: false,
        }
    }

    fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish();
        }
    }

    fn println(&self, line: &str) {
        match &self.bar {
            Some(bar) => bar.println(line),
            None => self.out.warn(line.to_string()),
        }
    }
}

impl Progress for TextEvents<'_> {
    fn cancelled(&self) -> bool {
        self.out.cancelled()
    }
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
        self.out.games(games_read, ingested);
    }

    fn committed(&mut self, report: &WriteReport, summary: &Summary) {
        self.out.games(summary.games_read, summary.ingested);
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
        self.out.invalid(1);
        self.invalid_shown += 1;
        if self.invalid_shown <= SHOWN_INVALID {
            self.println(&format!("warning: skipped invalid game: {game}"));
        } else if self.invalid_shown == SHOWN_INVALID + 1 {
            self.println("warning: more invalid games; the summary counts them all");
        }
    }
}

impl ChesscomProgress for TextEvents<'_> {
    fn cancelled(&self) -> bool {
        self.out.cancelled()
    }
    fn start(&mut self, months: u64) {
        self.out.months(0, months);
        if let Some(bar) = &self.bar {
            bar.set_length(months);
        } else if self.plain {
            self.out.warn(format!("{months} months to check"));
        }
    }

    fn month(&mut self, month: Month, done: u64, s: &ChesscomSummary) {
        self.out.months(done, s.months.total);
        self.out.games(s.games.games_read, s.games.ingested);
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

impl ProfileEvents for TextEvents<'_> {
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
        self.out.next_source();
        if self.several {
            self.out.say(format!("== {feed} =="));
        }
        self.clear();
        self.invalid_shown = 0;
        self.bar = self.out.meter(match feed {
            Feed::Chesscom(_) => MeterKind::Months,
            Feed::Lichess(_) | Feed::Pgn => MeterKind::Games,
        });
    }

    fn feed_done(&mut self, feed: &Feed, result: Option<&FeedResult>) {
        self.clear();
        if let Some(result) = result {
            report_feed(self.out, &self.profile, self.place, feed, result);
            if let FeedResult::Pgn(s) = result
                && s.other_players > 0
            {
                self.out.left_out(s.other_players, &s.frequent_names);
            }
        }
    }
}

/// Runs `plan` on `store` (`place`: the store in words, for the report), reporting into
/// `out` (`plain`: a line per batch and per month, for logs). Returns whether every source
/// was read to its end; an error stops the ingest (what was written stays written).
pub fn run<S: GraphStore + Sync>(
    store: &S,
    place: &str,
    plan: &IngestPlan,
    settings: &FetchSettings,
    out: &dyn Reporter,
    plain: bool,
) -> Result<bool, RunError> {
    if plan.all_players {
        plan.check()?;
        return all_players(store, place, plan, settings.batch_size, out, plain);
    }
    if let Some((profile, e)) = plan.check()?
        && !profile::has_online_account(store, &profile)?
    {
        return Err(e.into());
    }
    let request = plan.request(crate::expand(&plan.pgn)?);
    let mut events = TextEvents::new(out, place, plain);
    events.profile = request.profile()?;
    let outcome = profile::ingest_profile(store, &request, settings, &mut events)?;
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
            "profile {}: {total} new games ({}), {dup} already stored or seen twice",
            outcome.profile,
            parts.join(", ")
        ));
    }
    Ok(outcome.ok())
}

/// `--all-players`: a profile for every player of the PGN inputs with enough games.
fn all_players<S: GraphStore + Sync>(
    store: &S,
    place: &str,
    plan: &IngestPlan,
    batch_size: usize,
    out: &dyn Reporter,
    plain: bool,
) -> Result<bool, RunError> {
    let sources = crate::expand(&plan.pgn)?;
    let inputs = || -> Vec<crate::Input> {
        sources
            .iter()
            .cloned()
            .map(crate::Input::from_source)
            .collect()
    };
    let mut events = TextEvents::new(out, place, plain);
    events.bar = out.meter(MeterKind::Games);
    let roster = corpus::count_players(inputs(), &mut events)?;
    events.clear();
    let players = roster.players(plan.min_games);
    out.say(format!(
        "{} players with at least {} games in {} games (counted in {:.2} s)",
        players.len(),
        plan.min_games,
        roster.games,
        roster.elapsed.as_secs_f64()
    ));
    if players.is_empty() {
        let top: Vec<String> = roster
            .players(1)
            .iter()
            .take(5)
            .map(|(n, c)| format!("{n} ({c})"))
            .collect();
        return Err(RunError::Plan(format!(
            "no player has {} games in the input: lower --min-games (the most: {})",
            plan.min_games,
            if top.is_empty() {
                "no named player".to_string()
            } else {
                top.join(", ")
            }
        )));
    }
    let defaults = CorpusOptions::new(plan.min_games);
    let opts = CorpusOptions {
        batch_size,
        ..defaults
    };
    events.bar = out.meter(MeterKind::Games);
    let summary =
        corpus::ingest_corpus(store, inputs(), &roster, &opts, &mut events).map_err(|source| {
            RunError::Corpus {
                place: place.to_string(),
                source,
            }
        })?;
    events.clear();
    let secs = summary.elapsed.as_secs_f64().max(1e-9);
    report_summary(
        out,
        &format!(
            "ingested {} new game-sides of {} players into {place} ({:.0} game-sides/s)",
            summary.ingested,
            players.len(),
            summary.ingested as f64 / secs
        ),
        &summary,
    );
    Ok(!summary.has_errors())
}

/// What one source did, in words.
fn report_feed(out: &dyn Reporter, profile: &str, place: &str, feed: &Feed, result: &FeedResult) {
    let games = result.games();
    if let FeedResult::Chesscom(s) = result {
        let m = &s.months;
        out.say(format!(
            "Chess.com months: {} in range, {} fetched, {} not modified, {} already complete, {} failed",
            m.total,
            m.fetched,
            m.not_modified,
            m.up_to_date,
            m.failed.len()
        ));
        out.invalid(games.invalid);
        for g in games.invalid_games.iter().take(SHOWN_INVALID as usize) {
            out.warn(format!("warning: skipped invalid game: {g}"));
        }
    }
    if let (FeedResult::Lichess(s), Feed::Lichess(user)) = (result, feed) {
        out.say(match s.since_ms {
            Some(ms) => format!(
                "lichess export of {user} since {} (Unix ms {ms})",
                Date::from_unix(ms.div_euclid(1000)).map_or_else(|| "?".into(), |d| d.to_string())
            ),
            None => format!("lichess export of {user}: all games"),
        });
    }
    report_summary(
        out,
        &format!(
            "ingested {} new games of {profile} into {place}",
            games.ingested
        ),
        games,
    );
    match result {
        FeedResult::Chesscom(s) if !s.months.failed.is_empty() => {
            for (month, why) in &s.months.failed {
                out.warn(format!("error: month {month} failed: {why}"));
            }
            out.warn(format!(
                "error: {} month(s) failed; run the same command again to retry them",
                s.months.failed.len()
            ));
        }
        FeedResult::Lichess(s) if s.games.has_errors() => out.warn(
            "error: the export broke off; the games read before are kept: run the same command again"
                .to_string(),
        ),
        _ => {}
    }
}

/// A summary's headline and counts.
fn report_summary(out: &dyn Reporter, headline: &str, s: &Summary) {
    let (games_s, plies_s) = crate::rates(s);
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
