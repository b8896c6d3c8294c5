//! Incremental ingest from Chess.com: archives list -> each month (skipping finished
//! months, revalidating the others) -> decode -> dedupe -> batches.
//!
//! Per player and month the store remembers the validators and whether the month was
//! complete when fetched (fetched after it ended). A month's state is written after its
//! games, so an interrupted run refetches that month and the game ids keep the counts
//! exact.

use std::time::Instant;

use mirror_core::{batch::Batch, pgn::Decoded, time::Month};
use mirror_online::{
    FetchError,
    chesscom::{Client, ClientConfig, MonthFetch, Validators, decode_game},
};
use mirror_store::{FetchState, GraphStore};

use crate::{IngestError, InvalidGame, Summary, reason_key, write};

/// What to fetch.
#[derive(Clone, Debug)]
pub struct ChesscomOptions {
    /// The player (profile) the games are stored for.
    pub player: String,
    /// The Chess.com username.
    pub user: String,
    /// Client settings (base URL, contact, timeouts, retries).
    pub client: ClientConfig,
    /// First month to fetch.
    pub since: Option<Month>,
    /// Last month to fetch.
    pub until: Option<Month>,
    /// The current month (UTC): months before it are final once fetched.
    pub now: Month,
    /// Games per write transaction.
    pub batch_size: usize,
}

/// Month counts of a Chess.com ingest.
#[derive(Clone, Debug, Default)]
pub struct MonthCounts {
    /// Months in range.
    pub total: u64,
    /// Downloaded (new or changed).
    pub fetched: u64,
    /// Revalidated: 304 Not Modified.
    pub not_modified: u64,
    /// Final months fetched before: not asked again.
    pub up_to_date: u64,
    /// Months that still failed after retries, with the reason.
    pub failed: Vec<(Month, String)>,
}

/// The outcome of a Chess.com ingest.
#[derive(Clone, Debug, Default)]
pub struct ChesscomSummary {
    /// Months.
    pub months: MonthCounts,
    /// Games (the same counts as a PGN ingest).
    pub games: Summary,
}

/// Progress of a Chess.com ingest.
pub trait ChesscomProgress {
    /// The archive list is known.
    fn start(&mut self, _months: u64) {}
    /// A month was handled (`done` of the total so far).
    fn month(&mut self, _month: Month, _done: u64, _summary: &ChesscomSummary) {}
    /// Whether to stop: asked before each month (a month written is kept).
    fn cancelled(&self) -> bool {
        false
    }
}

impl ChesscomProgress for crate::NoProgress {}

/// The store's unit name of a Chess.com account's month (`user` as validated: lower case).
pub fn unit(user: &str, month: Month) -> String {
    format!("chess.com/{user}/{month}")
}

/// Ingests the user's Chess.com games into `store`.
pub fn ingest_chesscom<S: GraphStore>(
    store: &S,
    opts: &ChesscomOptions,
    progress: &mut dyn ChesscomProgress,
) -> Result<ChesscomSummary, IngestError> {
    let started = Instant::now();
    let user = mirror_online::chesscom::validate_username(&opts.user)?;
    let client = Client::new(opts.client.clone(), &user)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| IngestError::Online(FetchError::Runtime(e)))?;
    let months: Vec<Month> = rt
        .block_on(client.archives(&user))?
        .into_iter()
        .filter(|m| opts.since.is_none_or(|s| *m >= s) && opts.until.is_none_or(|u| *m <= u))
        .collect();
    let mut out = ChesscomSummary::default();
    out.months.total = months.len() as u64;
    progress.start(out.months.total);
    for (i, month) in months.iter().enumerate() {
        if progress.cancelled() {
            return Err(IngestError::Cancelled);
        }
        let unit = unit(&user, *month);
        let state = store.fetch_state(&opts.player, &unit)?;
        if state.as_ref().is_some_and(|s| s.complete) {
            out.months.up_to_date += 1;
            progress.month(*month, i as u64 + 1, &out);
            continue;
        }
        let validators = state.as_ref().map(|s| Validators {
            etag: s.etag.clone(),
            last_modified: s.last_modified.clone(),
        });
        let final_month = *month < opts.now;
        match rt.block_on(client.month(&user, *month, validators.as_ref())) {
            Ok(MonthFetch::NotModified) => {
                out.months.not_modified += 1;
                if final_month && let Some(mut s) = state {
                    s.complete = true;
                    store.set_fetch_state(&opts.player, &unit, &s)?;
                }
            }
            Ok(MonthFetch::Games { games, validators }) => {
                out.months.fetched += 1;
                let n = games.len() as u64;
                ingest_month(store, opts, &user, *month, &games, &mut out.games)?;
                store.set_fetch_state(
                    &opts.player,
                    &unit,
                    &FetchState {
                        etag: validators.etag,
                        last_modified: validators.last_modified,
                        complete: final_month,
                        games: n,
                        cursor: None,
                    },
                )?;
            }
            // Without contact information every request fails the same way: stop.
            Err(e @ FetchError::Forbidden { .. }) => return Err(e.into()),
            Err(e) => out.months.failed.push((*month, e.to_string())),
        }
        progress.month(*month, i as u64 + 1, &out);
    }
    out.games.elapsed = started.elapsed();
    Ok(out)
}

fn ingest_month<S: GraphStore>(
    store: &S,
    opts: &ChesscomOptions,
    user: &str,
    month: Month,
    games: &[mirror_online::chesscom::ApiGame],
    summary: &mut Summary,
) -> Result<(), IngestError> {
    let mut pending = Vec::new();
    for (n, g) in games.iter().enumerate() {
        summary.games_read += 1;
        match decode_game(g) {
            Decoded::Game(rec) => match rec.color_of(&[user]) {
                Some(c) => pending.push((rec, c)),
                None => summary.other_players += 1,
            },
            Decoded::Skipped(r) => *summary.skipped.entry(reason_key(&r)).or_default() += 1,
            Decoded::Invalid(error) => {
                summary.invalid += 1;
                summary.invalid_games.push(InvalidGame {
                    source: format!("chess.com {month} {}", g.url),
                    number: n as u64 + 1,
                    error,
                });
            }
        }
    }
    for chunk in pending.chunks(opts.batch_size.max(1)) {
        let ids: Vec<_> = chunk.iter().map(|(g, _)| g.id.clone()).collect();
        let known = store.ingested(&opts.player, &ids)?;
        let mut batch = Batch::new();
        for (g, c) in chunk {
            if known.contains(&g.id) || !matches!(batch.add_game(g.clone(), *c), Ok(true)) {
                summary.duplicates += 1;
            }
        }
        let (report, dup, plies) = write(store, &opts.player, batch)?;
        summary.add_written(&report, dup, plies);
    }
    Ok(())
}
