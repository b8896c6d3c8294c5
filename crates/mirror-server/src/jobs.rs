//! Ingests run by the server, each a [`Job`] whose progress anyone can read while it runs:
//! the page's "Add a player" (`POST /api/v1/imports`, a PGN upload at
//! `POST /api/v1/imports/pgn`), "sync new games", and `mirror ingest` sent by another
//! process (`POST /api/v1/ingest`). One ingest writes at a time; the others wait their
//! turn, in order, up to [`WAITING_JOBS`].

use std::{
    collections::VecDeque,
    sync::{
        Arc, Mutex, PoisonError,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use mirror_store::GraphStore;
use serde::{Deserialize, Serialize};

use crate::{ApiError, CommandOutput, IngestRequest};

/// Finished jobs kept for `GET /api/v1/imports` (the oldest go first).
pub const KEPT_JOBS: usize = 32;

/// Jobs waiting or running at once; one more is refused (429) until one ends.
pub const WAITING_JOBS: usize = 8;

/// Lines of a job's log kept (the last ones; the count of those dropped is kept).
pub const LOG_LINES: usize = 400;

/// Largest PGN upload (`POST /api/v1/imports/pgn`).
pub const UPLOAD_LIMIT: usize = 64 * 1024 * 1024;

/// Where a job is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum JobState {
    /// Waiting for the ingest before it.
    Waiting,
    /// Running.
    Running,
    /// Finished; every source answered.
    Done,
    /// Finished with errors (what was read before them is kept; running it again resumes).
    Failed,
    /// Cancelled: before it started, or at its next batch (the batches committed before
    /// are kept; running it again resumes after them).
    Cancelled,
}

/// A job as the page reads it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JobStatus {
    /// Its number, for `GET /api/v1/imports/{id}`.
    pub id: u64,
    /// What it ingests, in words ("Chess.com hikaru").
    pub what: String,
    /// The profile the games go to, when one is named.
    pub player: Option<String>,
    /// Where it is.
    pub state: JobState,
    /// Chess.com months to check (once known).
    pub months_total: Option<u64>,
    /// Chess.com months checked.
    pub months_done: u64,
    /// Games read so far, every source.
    pub games_read: u64,
    /// Games new to the store so far.
    pub games_new: u64,
    /// Games skipped as invalid (an illegal or unreadable move).
    pub invalid: u64,
    /// Errors and warnings, in order.
    pub errors: Vec<String>,
    /// What the ingest printed, its last [`LOG_LINES`] lines.
    pub log: Vec<String>,
    /// Lines dropped from the front of `log`.
    pub log_dropped: u64,
    /// Milliseconds since it started running (0 while waiting).
    pub elapsed_ms: u64,
    /// Games of a PGN left out as other players', with the names most often in them
    /// (none until a PGN source has been read).
    pub left_out: Option<LeftOut>,
}

/// Games of a PGN left out as other players' ([`mirror_ingest::run::Reporter::left_out`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LeftOut {
    /// How many games.
    pub games: u64,
    /// The names most often in them, most frequent first: a spelling of the player the
    /// import did not know is usually the first.
    pub names: Vec<NameCount>,
}

/// A name and the games it is in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NameCount {
    /// The name as the games spell it.
    pub name: String,
    /// Its games.
    pub games: u64,
}

#[derive(Debug)]
struct Inner {
    state: JobState,
    months_total: Option<u64>,
    months_done: u64,
    /// Games of the sources before the current one.
    earlier: (u64, u64),
    /// Games of the current source.
    current: (u64, u64),
    invalid: u64,
    errors: Vec<String>,
    log: VecDeque<String>,
    log_dropped: u64,
    stdout: String,
    stderr: String,
    started: Option<Instant>,
    took: Option<Duration>,
    left_out: Option<LeftOut>,
}

/// One ingest: the request, and what it has done so far. The ingest reports into it as it
/// goes ([`Job::say`], [`Job::warn`], [`Job::games`], [`Job::months`]).
#[derive(Debug)]
pub struct Job {
    id: u64,
    what: String,
    player: Option<String>,
    inner: Mutex<Inner>,
    /// Asked to stop ([`Job::cancel`]); the ingest reads it between batches.
    cancel: AtomicBool,
}

impl Job {
    fn new(id: u64, what: String, player: Option<String>) -> Job {
        Job {
            id,
            what,
            player,
            cancel: AtomicBool::new(false),
            inner: Mutex::new(Inner {
                state: JobState::Waiting,
                months_total: None,
                months_done: 0,
                earlier: (0, 0),
                current: (0, 0),
                invalid: 0,
                errors: Vec::new(),
                log: VecDeque::new(),
                log_dropped: 0,
                stdout: String::new(),
                stderr: String::new(),
                started: None,
                took: None,
                left_out: None,
            }),
        }
    }

    /// A job outside any registry (an ingest whose progress nobody reads).
    pub fn detached(what: impl Into<String>) -> Job {
        Job::new(0, what.into(), None)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Its number.
    pub fn id(&self) -> u64 {
        self.id
    }

    fn line(&self, line: &str, to_stderr: bool) {
        let mut inner = self.lock();
        let text = if to_stderr {
            &mut inner.stderr
        } else {
            &mut inner.stdout
        };
        text.push_str(line);
        text.push('\n');
        if to_stderr && (line.starts_with("error") || line.starts_with("mirror: error")) {
            inner.errors.push(line.to_string());
        }
        inner.log.push_back(line.to_string());
        if inner.log.len() > LOG_LINES {
            inner.log.pop_front();
            inner.log_dropped += 1;
        }
    }

    /// A line of the ingest's report (its standard output).
    pub fn say(&self, line: &str) {
        self.line(line, false);
    }

    /// A warning, an error or a progress line (its standard error); errors also go to
    /// [`JobStatus::errors`].
    pub fn warn(&self, line: &str) {
        self.line(line, true);
    }

    /// A new source begins (the games counted so far stay counted).
    pub fn next_source(&self) {
        let mut inner = self.lock();
        let (r, n) = inner.current;
        inner.earlier.0 += r;
        inner.earlier.1 += n;
        inner.current = (0, 0);
        inner.months_total = None;
        inner.months_done = 0;
    }

    /// The current source has read `read` games, `new` of them new to the store (counts
    /// only grow within a source: a report behind an earlier one changes nothing).
    pub fn games(&self, read: u64, new: u64) {
        let mut inner = self.lock();
        inner.current = (inner.current.0.max(read), inner.current.1.max(new));
    }

    /// Chess.com months: `done` of `total` checked.
    pub fn months(&self, done: u64, total: u64) {
        let mut inner = self.lock();
        inner.months_done = done;
        inner.months_total = Some(total);
    }

    /// `n` more games skipped as invalid.
    pub fn invalid(&self, n: u64) {
        self.lock().invalid += n;
    }

    pub(crate) fn start(&self) {
        let mut inner = self.lock();
        inner.state = JobState::Running;
        inner.started = Some(Instant::now());
    }

    /// The ingest ended: `ok` when every source answered.
    pub fn finish(&self, ok: bool) {
        let mut inner = self.lock();
        inner.state = match (ok, self.cancel.load(Ordering::Relaxed)) {
            (true, _) => JobState::Done,
            (false, true) => JobState::Cancelled,
            (false, false) => JobState::Failed,
        };
        inner.took = inner.started.map(|s| s.elapsed());
    }

    /// Asks the job to stop: a waiting job never starts, a running one stops after the
    /// batch it is writing. `false` when it had already ended.
    pub fn cancel(&self) -> bool {
        if self.ended() {
            return false;
        }
        self.cancel.store(true, Ordering::Relaxed);
        true
    }

    /// Whether it was asked to stop.
    pub fn cancelled(&self) -> bool {
        self.cancel.load(Ordering::Relaxed)
    }

    /// Whether it has ended.
    pub fn ended(&self) -> bool {
        matches!(
            self.lock().state,
            JobState::Done | JobState::Failed | JobState::Cancelled
        )
    }

    /// Where it is, for the page.
    pub fn status(&self) -> JobStatus {
        let inner = self.lock();
        let elapsed = inner
            .took
            .or_else(|| inner.started.map(|s| s.elapsed()))
            .unwrap_or_default();
        JobStatus {
            id: self.id,
            what: self.what.clone(),
            player: self.player.clone(),
            state: inner.state,
            months_total: inner.months_total,
            months_done: inner.months_done,
            games_read: inner.earlier.0 + inner.current.0,
            games_new: inner.earlier.1 + inner.current.1,
            invalid: inner.invalid,
            errors: inner.errors.clone(),
            log: inner.log.iter().cloned().collect(),
            log_dropped: inner.log_dropped,
            elapsed_ms: u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX),
            left_out: inner.left_out.clone(),
        }
    }

    /// Everything it printed, and whether it succeeded (`POST /api/v1/ingest`'s answer).
    pub fn output(&self) -> CommandOutput {
        let inner = self.lock();
        CommandOutput {
            stdout: inner.stdout.clone(),
            stderr: inner.stderr.clone(),
            ok: inner.state == JobState::Done,
        }
    }
}

/// The server's jobs: the running and waiting ones, and the last [`KEPT_JOBS`] finished.
#[derive(Debug, Default)]
pub struct Jobs {
    next: AtomicU64,
    list: Mutex<VecDeque<Arc<Job>>>,
}

impl Jobs {
    fn lock(&self) -> std::sync::MutexGuard<'_, VecDeque<Arc<Job>>> {
        self.list.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A new waiting job, or [`ApiError::TooMany`] when [`WAITING_JOBS`] have not ended.
    pub fn add(&self, what: String, player: Option<String>) -> Result<Arc<Job>, ApiError> {
        let mut list = self.lock();
        if list.iter().filter(|j| !j.ended()).count() >= WAITING_JOBS {
            return Err(ApiError::TooMany(format!(
                "{WAITING_JOBS} imports are waiting or running: try again when one has ended"
            )));
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed) + 1;
        let job = Arc::new(Job::new(id, what, player));
        list.push_back(job.clone());
        while list.len() > KEPT_JOBS {
            match list.iter().position(|j| j.ended()) {
                Some(oldest_ended) => {
                    list.remove(oldest_ended);
                }
                None => break,
            }
        }
        Ok(job)
    }

    /// Job `id`, while kept.
    pub fn get(&self, id: u64) -> Option<Arc<Job>> {
        self.lock().iter().find(|j| j.id == id).cloned()
    }

    /// Every kept job, the newest first.
    pub fn statuses(&self) -> Vec<JobStatus> {
        let jobs: Vec<Arc<Job>> = self.lock().iter().rev().cloned().collect();
        jobs.iter().map(|j| j.status()).collect()
    }
}

/// What the page may ask (`POST /api/v1/imports`): a Chess.com or a lichess account into a
/// profile (named after the account unless `user` is given), or, with `user` alone, the
/// new games of an existing profile from the accounts recorded with it ("sync").
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ImportRequest {
    /// The profile.
    pub user: Option<String>,
    /// A Chess.com account.
    pub chesscom: Option<String>,
    /// A lichess account.
    pub lichess: Option<String>,
    /// The first month to fetch (`YYYY-MM`).
    pub since: Option<String>,
}

impl ImportRequest {
    /// The ingest it stands for, and its name in words; or what is wrong with it (an
    /// invalid account name, two accounts, nothing to import).
    pub fn ingest(&self) -> Result<(IngestRequest, String), ApiError> {
        let bad = |e: &dyn std::fmt::Display| ApiError::BadRequest(e.to_string());
        if let Some(u) = &self.user {
            mirror_store::player_key(u).map_err(|e| bad(&e))?;
        }
        if let Some(m) = &self.since {
            m.parse::<mirror_core::time::Month>()
                .map_err(|e| bad(&format!("since: {e}")))?;
        }
        let (what, chesscom, lichess) = match (&self.chesscom, &self.lichess) {
            (Some(_), Some(_)) => {
                return Err(bad(&"name a Chess.com or a lichess account, not both"));
            }
            (Some(c), None) => {
                mirror_online::chesscom::validate_username(c).map_err(|e| bad(&e))?;
                (format!("Chess.com {c}"), vec![c.clone()], Vec::new())
            }
            (None, Some(l)) => {
                mirror_online::lichess::validate_username(l).map_err(|e| bad(&e))?;
                (format!("lichess {l}"), Vec::new(), vec![l.clone()])
            }
            (None, None) => match &self.user {
                Some(u) => (format!("new games of {u}"), Vec::new(), Vec::new()),
                None => {
                    return Err(bad(
                        &"name a Chess.com account (chesscom), a lichess account (lichess), \
                          or a player whose new games to fetch (user)",
                    ));
                }
            },
        };
        let request = IngestRequest {
            user: self.user.clone(),
            chesscom,
            lichess,
            since: self.since.clone(),
            plain_progress: true,
            ..IngestRequest::default()
        };
        Ok((request, what))
    }

    /// The profile the games go to.
    pub fn player(&self) -> Option<String> {
        self.user
            .clone()
            .or_else(|| self.chesscom.clone())
            .or_else(|| self.lichess.clone())
    }
}

impl mirror_ingest::run::Reporter for Job {
    fn say(&self, line: String) {
        Job::say(self, &line);
    }

    fn warn(&self, line: String) {
        Job::warn(self, &line);
    }

    fn games(&self, read: u64, ingested: u64) {
        Job::games(self, read, ingested);
    }

    fn invalid(&self, n: u64) {
        Job::invalid(self, n);
    }

    fn months(&self, done: u64, total: u64) {
        Job::months(self, done, total);
    }

    fn next_source(&self) {
        Job::next_source(self);
    }

    fn cancelled(&self) -> bool {
        Job::cancelled(self)
    }

    fn left_out(&self, games: u64, names: &[(String, u64)]) {
        let mut inner = self.lock();
        let kept = inner.left_out.get_or_insert(LeftOut {
            games: 0,
            names: Vec::new(),
        });
        kept.games += games;
        kept.names
            .extend(names.iter().map(|(name, games)| NameCount {
                name: name.clone(),
                games: *games,
            }));
        kept.names
            .sort_by(|a, b| b.games.cmp(&a.games).then_with(|| a.name.cmp(&b.name)));
        kept.names.truncate(10);
    }
}

/// Runs `request` on the server's store as `mirror ingest` would (the same checks, words
/// and politeness towards the sites), reporting into `job`; whether every source answered.
pub(crate) fn run_ingest<S: GraphStore + Sync>(
    store: &S,
    writes: &crate::Writes,
    request: &IngestRequest,
    job: &Job,
) -> bool {
    let ran = request
        .plan()
        .map_err(mirror_ingest::run::RunError::Plan)
        .and_then(|(plan, tuning)| {
            let settings = writes.fetch.settings(&tuning)?;
            mirror_ingest::run::run(
                store,
                &writes.place,
                &plan,
                &settings,
                job,
                request.plain_progress,
            )
        });
    ran.unwrap_or_else(|e| {
        job.warn(&format!(
            "mirror: error: {}",
            mirror_core::errors::error_text(&e)
        ));
        false
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_across_sources_and_never_go_back() {
        let job = Job::detached("two accounts");
        job.months(0, 5);
        job.games(10, 4);
        job.games(8, 3);
        job.months(5, 5);
        job.next_source();
        job.games(7, 7);
        job.invalid(2);
        let s = job.status();
        assert_eq!((s.games_read, s.games_new, s.invalid), (17, 11, 2));
        assert_eq!((s.months_done, s.months_total), (0, None));
    }

    #[test]
    fn errors_are_listed_and_the_log_keeps_its_last_lines() {
        let job = Job::detached("x");
        job.warn("warning: skipped invalid game: 1");
        job.warn("error: month 2024-01 failed: 500");
        job.say("error in a report line is not an error");
        for i in 0..LOG_LINES + 5 {
            job.warn(&format!("line {i}"));
        }
        job.finish(false);
        let s = job.status();
        assert_eq!(s.errors, ["error: month 2024-01 failed: 500"]);
        assert_eq!(s.log.len(), LOG_LINES);
        assert_eq!(s.log_dropped, 8);
        assert_eq!(s.log.last().map(String::as_str), Some("line 404"));
        let out = job.output();
        assert!(!out.ok);
        assert!(out.stdout.starts_with("error in a report line"));
        assert!(
            out.stderr.contains("line 0\n"),
            "the output keeps every line"
        );
    }

    #[test]
    fn waiting_jobs_are_bounded_and_ended_ones_make_room() {
        let jobs = Jobs::default();
        let mut started = Vec::new();
        for i in 0..WAITING_JOBS {
            started.push(jobs.add(format!("job {i}"), None).expect("room"));
        }
        assert!(matches!(
            jobs.add("one more".into(), None),
            Err(ApiError::TooMany(_))
        ));
        started[0].start();
        started[0].finish(true);
        let next = jobs.add("one more".into(), None).expect("room again");
        assert_eq!(next.id(), WAITING_JOBS as u64 + 1);
        assert_eq!(jobs.statuses()[0].id, next.id(), "the newest first");
        for j in &started[1..] {
            j.finish(true);
        }
        next.finish(true);
        for i in 0..KEPT_JOBS + 3 {
            jobs.add(format!("more {i}"), None)
                .expect("room")
                .finish(true);
        }
        assert_eq!(jobs.statuses().len(), KEPT_JOBS);
        assert!(jobs.get(1).is_none(), "the oldest went first");
    }

    #[test]
    fn the_page_may_ask_for_one_account_or_a_known_player() {
        let ask = |json: &str| {
            serde_json::from_str::<ImportRequest>(json)
                .map_err(|e| e.to_string())
                .and_then(|r| r.ingest().map_err(|e| e.to_string()))
        };
        let (req, what) = ask(r#"{"chesscom":"hikaru","since":"2024-01"}"#).expect("valid");
        assert_eq!(what, "Chess.com hikaru");
        assert_eq!(req.chesscom, ["hikaru"]);
        assert_eq!(req.since.as_deref(), Some("2024-01"));
        assert!(req.pgn.is_empty() && req.user.is_none());
        let (req, what) = ask(r#"{"user":"Some One"}"#).expect("valid");
        assert_eq!(what, "new games of Some One");
        assert!(req.chesscom.is_empty() && req.lichess.is_empty());
        for (bad, says) in [
            (r#"{"chesscom":"a b"}"#, "Chess.com"),
            (r#"{"lichess":"x"}"#, "lichess"),
            (r#"{"chesscom":"abc","lichess":"abc"}"#, "not both"),
            (r#"{}"#, "name a Chess.com account"),
            (r#"{"since":"2024-13","chesscom":"abc"}"#, "since"),
            (r#"{"pgn":["/etc/passwd"]}"#, "unknown field"),
        ] {
            let e = ask(bad).expect_err(bad);
            assert!(e.contains(says), "{bad}: {e}");
        }
    }
}
