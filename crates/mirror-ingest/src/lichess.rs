//! Incremental ingest from lichess's game export.
//!
//! The store remembers, per player, a cursor: the time of the last complete export minus
//! one day (games are exported by creation time, so games still running at the last export
//! are fetched again next time; game ids keep the counts exact). A broken stream keeps the
//! games read before the break and does not move the cursor, so a rerun completes it.

use mirror_core::time::Month;
use mirror_online::lichess::{LichessConfig, open_export, validate_username};
use mirror_store::{FetchState, GraphStore};

use crate::{IngestError, IngestOptions, Input, Progress, Summary, ingest_inputs};

/// The store's unit name of a lichess account's export (`user` as validated).
pub fn unit(user: &str) -> String {
    format!("lichess/{}/games", user.to_ascii_lowercase())
}

/// How far before the last export the next one starts.
pub const OVERLAP_MS: i64 = 86_400_000;

/// What to fetch.
#[derive(Clone, Debug)]
pub struct LichessOptions {
    /// The player (profile) the games are stored for.
    pub player: String,
    /// The lichess username.
    pub user: String,
    /// Client settings.
    pub config: LichessConfig,
    /// Only games from this month on (overrides the cursor).
    pub since: Option<Month>,
    /// Only games up to the end of this month (the cursor is then left alone).
    pub until: Option<Month>,
    /// Now, in Unix milliseconds.
    pub now_ms: i64,
    /// Games per write transaction.
    pub batch_size: usize,
}

/// The outcome of a lichess ingest.
#[derive(Clone, Debug, Default)]
pub struct LichessSummary {
    /// The `since` sent (Unix ms), if any.
    pub since_ms: Option<i64>,
    /// The cursor saved for the next run, if the export completed.
    pub cursor_saved: Option<i64>,
    /// Game counts.
    pub games: Summary,
}

fn month_start_ms(m: Month) -> i64 {
    m.first_day().to_unix_days() * 86_400_000
}

/// Ingests the user's lichess games into `store`.
pub fn ingest_lichess<S: GraphStore + Sync>(
    store: &S,
    opts: &LichessOptions,
    progress: &mut dyn Progress,
) -> Result<LichessSummary, IngestError> {
    let user = validate_username(&opts.user)?;
    let unit = unit(&user);
    let state = store.fetch_state(&opts.player, &unit)?;
    let since_ms = opts
        .since
        .map(month_start_ms)
        .or_else(|| state.as_ref().and_then(|s| s.cursor));
    let until_ms = opts.until.map(|u| month_start_ms(u.next()) - 1);
    let stream = open_export(&opts.config, &user, since_ms, until_ms)?;
    let input = Input {
        name: format!("lichess:{user}"),
        open: Box::new(move || Ok(Box::new(stream) as Box<dyn std::io::Read + Send>)),
    };
    let ingest_opts = IngestOptions {
        player: opts.player.clone(),
        names: vec![user.clone()],
        batch_size: opts.batch_size,
    };
    let games = ingest_inputs(store, vec![input], &ingest_opts, progress)?;
    let mut out = LichessSummary {
        since_ms,
        cursor_saved: None,
        games,
    };
    if out.games.source_errors.is_empty() && opts.until.is_none() {
        let cursor = opts.now_ms - OVERLAP_MS;
        store.set_fetch_state(
            &opts.player,
            &unit,
            &FetchState {
                cursor: Some(cursor),
                games: out.games.games_read,
                ..FetchState::default()
            },
        )?;
        out.cursor_saved = Some(cursor);
    }
    Ok(out)
}
