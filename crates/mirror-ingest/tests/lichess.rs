//! lichess ingest against a fake export streaming real games, with faults. Each fault's
//! assertion is the final store content, equal to a clean run.

mod support;

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use mirror_ingest::{
    IngestError, NoProgress,
    lichess::{LichessOptions, LichessSummary, ingest_lichess, unit},
};
use mirror_online::{FetchError, RetryPolicy, lichess::LichessConfig};
use mirror_store::{
    EdgeRow, GraphRead,
    embedded::{EmbeddedStore, OpenMode},
};
use support::{
    fake_chesscom::{FakeChesscom, Fault, shared_data},
    fake_lichess::{Games, created_ms, serve, split_games},
};

const USER: &str = "Biskupstunga";
const EXPORT: &str = "/api/games/user/biskupstunga";

struct Run {
    _dir: tempfile::TempDir,
    store: EmbeddedStore,
    waits: Arc<Mutex<Vec<Duration>>>,
}

fn new_run() -> Run {
    let dir = tempfile::tempdir().expect("tempdir");
    let store =
        EmbeddedStore::open(&dir.path().join("s.redb"), OpenMode::CreateIfMissing).expect("open");
    Run {
        _dir: dir,
        store,
        waits: Arc::default(),
    }
}

fn all_games() -> Vec<String> {
    let text =
        std::fs::read_to_string(shared_data().join("pgn/single-player/biskupstunga_first500.pgn"))
            .expect("read");
    split_games(&text)
}

fn server(games: Vec<String>) -> (FakeChesscom, Games) {
    let s = FakeChesscom::start();
    let g: Games = Arc::new(Mutex::new(games));
    serve(&s, USER, g.clone());
    (s, g)
}

fn opts(server: &FakeChesscom, run: &Run, now_ms: i64) -> LichessOptions {
    LichessOptions {
        player: USER.into(),
        user: USER.into(),
        config: LichessConfig {
            base: server.base.clone(),
            token: Some("lip_secret".into()),
            contact: None,
            retry: RetryPolicy {
                timeout: Duration::from_millis(500),
                retries: 3,
                backoff: Duration::from_secs(1),
                rate_limit_wait: Duration::from_secs(60),
                max_wait: Duration::from_secs(300),
                sleeper: support::recorded(run.waits.clone()),
            },
        },
        since: None,
        until: None,
        now_ms,
        batch_size: 64,
    }
}

fn later() -> i64 {
    created_ms("[UTCDate \"2030.01.01\"]")
}

fn ingest(server: &FakeChesscom, run: &Run) -> Result<LichessSummary, IngestError> {
    ingest_lichess(&run.store, &opts(server, run, later()), &mut NoProgress)
}

fn edges(run: &Run) -> Vec<EdgeRow> {
    run.store.edges(USER).expect("edges")
}

fn clean() -> Vec<EdgeRow> {
    let (s, _) = server(all_games());
    let run = new_run();
    ingest(&s, &run).expect("clean");
    edges(&run)
}

#[test]
fn export_request_is_polite_and_complete() {
    let (s, _) = server(all_games());
    let run = new_run();
    let sum = ingest(&s, &run).expect("ingest");
    assert_eq!(sum.games.games_read, 500);
    assert_eq!(sum.games.ingested, 499);
    assert_eq!(sum.cursor_saved, Some(later() - 86_400_000));
    let req = &s.seen()[0];
    assert_eq!(req.path, EXPORT);
    assert!(
        req.query.contains("sort=dateAsc") && !req.query.contains("since="),
        "{}",
        req.query
    );
    assert_eq!(
        req.headers.get("accept").map(String::as_str),
        Some("application/x-chess-pgn")
    );
    assert_eq!(
        req.headers.get("authorization").map(String::as_str),
        Some("Bearer lip_secret")
    );
    let state = run
        .store
        .fetch_state(USER, &unit(USER))
        .expect("state")
        .expect("saved");
    assert_eq!(state.cursor, sum.cursor_saved);
}

#[test]
fn rerun_fetches_only_from_the_cursor() {
    let everything = all_games();
    let cut = created_ms("[UTCDate \"2017.03.05\"]");
    let early: Vec<String> = everything
        .iter()
        .filter(|g| created_ms(g) < cut)
        .cloned()
        .collect();
    assert!(early.len() > 100 && early.len() < 500);
    let (s, games) = server(early.clone());
    let run = new_run();
    let first = ingest_lichess(&run.store, &opts(&s, &run, cut), &mut NoProgress).expect("first");
    assert_eq!(first.games.games_read, early.len() as u64);
    // New games appear; the rerun asks from the cursor (a day before the first run).
    let everything_count_since =
        |t: i64| everything.iter().filter(|g| created_ms(g) >= t).count() as u64;
    *games.lock().expect("lock") = everything.clone();
    s.clear_seen();
    let second = ingest(&s, &run).expect("second");
    let since = format!("since={}", cut - 86_400_000);
    assert!(s.seen()[0].query.contains(&since), "{}", s.seen()[0].query);
    let from_cursor = everything_count_since(cut - 86_400_000);
    assert_eq!(second.games.games_read, from_cursor);
    assert_eq!(first.games.ingested + second.games.ingested, 499);
    assert_eq!(edges(&run), clean());
}

#[test]
fn rate_limit_waits_a_minute() {
    let (s, _) = server(all_games());
    let run = new_run();
    s.fault(EXPORT, Fault::Status(429, vec![], "{}".into()));
    ingest(&s, &run).expect("ingest");
    assert_eq!(
        *run.waits.lock().expect("lock"),
        vec![Duration::from_secs(60)]
    );
    assert_eq!(edges(&run), clean());
}

#[test]
fn a_broken_stream_keeps_what_was_read_and_a_rerun_completes() {
    let (s, _) = server(all_games());
    let run = new_run();
    s.fault(EXPORT, Fault::Truncated);
    let sum = ingest(&s, &run).expect("ingest");
    assert_eq!(
        sum.games.source_errors.len(),
        1,
        "{:?}",
        sum.games.source_errors
    );
    assert!(
        sum.games.ingested > 100 && sum.games.ingested < 499,
        "{}",
        sum.games.ingested
    );
    assert_eq!(sum.cursor_saved, None, "the cursor does not move");
    let again = ingest(&s, &run).expect("rerun");
    assert!(again.games.source_errors.is_empty());
    assert_eq!(sum.games.ingested + again.games.ingested, 499);
    assert_eq!(edges(&run), clean());
}

#[test]
fn unknown_and_invalid_users() {
    let (s, _) = server(all_games());
    let run = new_run();
    let mut o = opts(&s, &run, later());
    o.user = "someone-else".into();
    let err = ingest_lichess(&run.store, &o, &mut NoProgress).expect_err("unknown");
    assert!(
        matches!(
            &err,
            IngestError::Online(FetchError::UnknownUser {
                site: "lichess",
                ..
            })
        ),
        "{err}"
    );
    s.clear_seen();
    o.user = "a/b".into();
    let err = ingest_lichess(&run.store, &o, &mut NoProgress).expect_err("invalid");
    assert!(
        err.to_string().contains("invalid lichess username"),
        "{err}"
    );
    assert!(s.seen().is_empty());
}

#[test]
fn since_and_until_bound_the_export_without_moving_the_cursor() {
    let (s, _) = server(all_games());
    let run = new_run();
    let mut o = opts(&s, &run, later());
    o.since = Some("2017-03".parse().expect("month"));
    o.until = Some("2017-03".parse().expect("month"));
    let sum = ingest_lichess(&run.store, &o, &mut NoProgress).expect("ingest");
    let q = &s.seen()[0].query;
    let start = created_ms("[UTCDate \"2017.03.01\"]");
    let end = created_ms("[UTCDate \"2017.04.01\"]") - 1;
    assert!(
        q.contains(&format!("since={start}")) && q.contains(&format!("until={end}")),
        "{q}"
    );
    assert!(sum.games.ingested > 0 && sum.games.ingested < 499);
    assert_eq!(sum.cursor_saved, None);
    assert_eq!(
        run.store.fetch_state(USER, &unit(USER)).expect("state"),
        None
    );
}
