//! Chess.com ingest against a fake Chess.com serving real recordings, with faults. Each
//! fault's assertion is the final store content, equal to a clean run.

mod support;

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use mirror_core::time::Month;
use mirror_ingest::{
    IngestError, NoProgress,
    chesscom::{ChesscomOptions, ChesscomSummary, ingest_chesscom},
};
use mirror_online::{FetchError, RetryPolicy, chesscom::ClientConfig};
use mirror_store::{
    EdgeRow, GraphRead, PlayerCounts,
    embedded::{EmbeddedStore, OpenMode},
};
use support::fake_chesscom::{FakeChesscom, Fault};

const FEB: &str = "/pub/player/hikaru/games/2014/02";
const MAR: &str = "/pub/player/hikaru/games/2014/03";

struct Run {
    _dir: tempfile::TempDir,
    store: EmbeddedStore,
    waits: Arc<Mutex<Vec<Duration>>>,
}

fn month(s: &str) -> Month {
    s.parse().expect("month")
}

fn new_store() -> Run {
    let dir = tempfile::tempdir().expect("tempdir");
    let store =
        EmbeddedStore::open(&dir.path().join("s.redb"), OpenMode::CreateIfMissing).expect("open");
    Run {
        _dir: dir,
        store,
        waits: Arc::default(),
    }
}

fn opts(server: &FakeChesscom, run: &Run, user: &str) -> ChesscomOptions {
    ChesscomOptions {
        player: user.into(),
        user: user.into(),
        client: ClientConfig {
            base: server.base.clone(),
            contact: Some("tests@mirror.invalid".into()),
            retry: RetryPolicy {
                timeout: Duration::from_millis(400),
                retries: 3,
                backoff: Duration::from_secs(1),
                rate_limit_wait: Duration::from_secs(60),
                max_wait: Duration::from_secs(120),
                sleeper: support::recorded(run.waits.clone()),
            },
        },
        since: None,
        until: None,
        now: month("2024-10"),
        batch_size: 50,
    }
}

fn ingest(server: &FakeChesscom, run: &Run) -> Result<ChesscomSummary, IngestError> {
    ingest_chesscom(&run.store, &opts(server, run, "Hikaru"), &mut NoProgress)
}

type Snapshot = (Vec<EdgeRow>, PlayerCounts, Vec<String>);

fn snapshot(run: &Run) -> Snapshot {
    let s = &run.store;
    let mut ids: Vec<String> = s
        .games("Hikaru")
        .expect("games")
        .into_iter()
        .map(|(g, _)| g.id.0)
        .collect();
    ids.sort();
    (
        s.edges("Hikaru").expect("edges"),
        s.counts("Hikaru").expect("counts"),
        ids,
    )
}

fn clean() -> Snapshot {
    let server = FakeChesscom::with_recordings();
    let run = new_store();
    ingest(&server, &run).expect("clean run");
    snapshot(&run)
}

#[test]
fn clean_run_then_rerun_skips_finished_months() {
    let server = FakeChesscom::with_recordings();
    let run = new_store();
    let s = ingest(&server, &run).expect("ingest");
    assert_eq!((s.months.total, s.months.fetched), (2, 2));
    assert_eq!(s.games.games_read, 54 + 162);
    assert_eq!(s.games.skipped.get("non-standard start position"), Some(&2));
    assert_eq!(s.games.ingested, 54 + 160);
    assert!(
        run.waits.lock().expect("lock").is_empty(),
        "no waits without faults"
    );
    // The User-Agent names the user and the contact.
    let ua = server.seen()[0].headers["user-agent"].clone();
    assert!(
        ua.contains("username: hikaru") && ua.contains("contact: tests@mirror.invalid"),
        "{ua}"
    );
    let first = snapshot(&run);
    assert_eq!(first.1.games, 214);

    server.clear_seen();
    let again = ingest(&server, &run).expect("rerun");
    assert_eq!((again.months.up_to_date, again.months.fetched), (2, 0));
    assert_eq!(again.games.ingested, 0);
    let paths: Vec<String> = server.seen().into_iter().map(|r| r.path).collect();
    assert_eq!(
        paths,
        ["/pub/player/hikaru/games/archives"],
        "finished months are not asked"
    );
    assert_eq!(snapshot(&run), first);
}

#[test]
fn current_month_is_revalidated_with_304() {
    let server = FakeChesscom::with_recordings();
    let run = new_store();
    let mut o = opts(&server, &run, "hikaru");
    o.now = month("2014-03");
    ingest_chesscom(&run.store, &o, &mut NoProgress).expect("ingest");
    let before = snapshot(&run);
    server.clear_seen();
    let s = ingest_chesscom(&run.store, &o, &mut NoProgress).expect("rerun");
    assert_eq!(
        (s.months.up_to_date, s.months.not_modified, s.months.fetched),
        (1, 1, 0)
    );
    let seen = server.seen();
    let march = seen
        .iter()
        .find(|r| r.path == MAR)
        .expect("march revalidated");
    assert_eq!(
        march.headers.get("if-none-match").map(String::as_str),
        Some("W/\"hikaru-2014-03\"")
    );
    assert_eq!(
        march.headers.get("if-modified-since").map(String::as_str),
        Some("Friday, 18-Oct-2024 01:24:09 GMT+0000")
    );
    assert!(!seen.iter().any(|r| r.path == FEB), "february is final");
    assert_eq!(snapshot(&run), before);
    // Once the month is over, a 304 marks it final.
    o.now = month("2014-04");
    ingest_chesscom(&run.store, &o, &mut NoProgress).expect("rerun");
    server.clear_seen();
    let s = ingest_chesscom(&run.store, &o, &mut NoProgress).expect("rerun");
    assert_eq!(s.months.up_to_date, 2);
}

#[test]
fn retry_after_on_429_is_honoured() {
    let server = FakeChesscom::with_recordings();
    let run = new_store();
    server.fault(
        FEB,
        Fault::Status(429, vec![("Retry-After".into(), "7".into())], "{}".into()),
    );
    let s = ingest(&server, &run).expect("ingest");
    assert!(s.months.failed.is_empty());
    assert_eq!(
        *run.waits.lock().expect("lock"),
        vec![Duration::from_secs(7)]
    );
    assert_eq!(snapshot(&run), clean());
}

#[test]
fn server_errors_back_off_exponentially() {
    let server = FakeChesscom::with_recordings();
    let run = new_store();
    server.fault(MAR, Fault::Status(500, vec![], "oops".into()));
    server.fault(MAR, Fault::Status(503, vec![], "busy".into()));
    let s = ingest(&server, &run).expect("ingest");
    assert!(s.months.failed.is_empty());
    assert_eq!(
        *run.waits.lock().expect("lock"),
        vec![Duration::from_secs(1), Duration::from_secs(2)]
    );
    assert_eq!(snapshot(&run), clean());
}

#[test]
fn a_response_slower_than_the_timeout_is_retried() {
    let server = FakeChesscom::with_recordings();
    let run = new_store();
    server.fault(FEB, Fault::Slow(Duration::from_millis(900)));
    let s = ingest(&server, &run).expect("ingest");
    assert!(s.months.failed.is_empty());
    assert_eq!(run.waits.lock().expect("lock").len(), 1);
    assert_eq!(snapshot(&run), clean());
}

#[test]
fn truncated_json_is_retried() {
    let server = FakeChesscom::with_recordings();
    let run = new_store();
    server.fault(MAR, Fault::Truncated);
    server.fault("/pub/player/hikaru/games/archives", Fault::Truncated);
    let s = ingest(&server, &run).expect("ingest");
    assert!(s.months.failed.is_empty());
    assert_eq!(run.waits.lock().expect("lock").len(), 2);
    assert_eq!(snapshot(&run), clean());
}

#[test]
fn a_month_that_keeps_failing_is_listed_and_a_rerun_completes() {
    let server = FakeChesscom::with_recordings();
    let run = new_store();
    for _ in 0..4 {
        server.fault(MAR, Fault::Status(500, vec![], "down".into()));
    }
    let s = ingest(&server, &run).expect("ingest");
    assert_eq!(s.months.failed.len(), 1);
    assert_eq!(s.months.failed[0].0, month("2014-03"));
    assert!(
        s.months.failed[0].1.contains("after 4 attempts"),
        "{:?}",
        s.months.failed
    );
    assert_eq!(s.games.ingested, 54, "february is in");
    let again = ingest(&server, &run).expect("rerun");
    assert!(again.months.failed.is_empty());
    assert_eq!((again.months.up_to_date, again.months.fetched), (1, 1));
    assert_eq!(snapshot(&run), clean());
}

#[test]
fn unknown_user_is_a_clear_error() {
    let server = FakeChesscom::with_recordings();
    let run = new_store();
    let err = ingest_chesscom(
        &run.store,
        &opts(&server, &run, "nosuchuser42"),
        &mut NoProgress,
    )
    .expect_err("unknown");
    let IngestError::Online(FetchError::UnknownUser { user, message, .. }) = &err else {
        panic!("{err}")
    };
    assert_eq!(user, "nosuchuser42");
    assert_eq!(message, "User \"nosuchuser42\" not found.");
    assert!(run.store.players().expect("players").is_empty());
}

#[test]
fn invalid_username_never_reaches_the_network() {
    let server = FakeChesscom::with_recordings();
    let run = new_store();
    for bad in ["../../etc", "a b", "x"] {
        let err = ingest_chesscom(&run.store, &opts(&server, &run, bad), &mut NoProgress)
            .expect_err("invalid");
        assert!(
            err.to_string().contains("invalid Chess.com username"),
            "{err}"
        );
    }
    assert!(server.seen().is_empty());
}

#[test]
fn forbidden_without_contact_explains_why() {
    let server = FakeChesscom::with_recordings();
    server.require_contact(true);
    let run = new_store();
    let mut o = opts(&server, &run, "hikaru");
    o.client.contact = None;
    let err = ingest_chesscom(&run.store, &o, &mut NoProgress).expect_err("403");
    assert!(err.to_string().contains("--contact EMAIL"), "{err}");
    assert!(run.store.players().expect("players").is_empty());
    // With a contact the same server answers.
    let s = ingest(&server, &run).expect("ingest");
    assert_eq!(s.games.ingested, 214);
    assert_eq!(snapshot(&run), clean());
}

#[test]
fn since_and_until_limit_the_months() {
    let server = FakeChesscom::with_recordings();
    let run = new_store();
    let mut o = opts(&server, &run, "hikaru");
    o.since = Some(month("2014-03"));
    let s = ingest_chesscom(&run.store, &o, &mut NoProgress).expect("ingest");
    assert_eq!((s.months.total, s.games.ingested), (1, 160));
    o.since = None;
    o.until = Some(month("2014-02"));
    let s = ingest_chesscom(&run.store, &o, &mut NoProgress).expect("ingest");
    assert_eq!((s.months.total, s.games.ingested), (1, 54));
    assert_eq!(snapshot(&run), clean());
}

#[test]
fn real_recorded_month_keeps_its_validators() {
    let server = FakeChesscom::with_recordings();
    let run = new_store();
    let o = opts(&server, &run, "fabianocaruana");
    let s = ingest_chesscom(&run.store, &o, &mut NoProgress).expect("ingest");
    assert_eq!(s.games.games_read, 17);
    assert!(s.games.ingested > 0);
    let state = run
        .store
        .fetch_state("fabianocaruana", "chess.com/fabianocaruana/2020-05")
        .expect("state")
        .expect("remembered");
    assert_eq!(
        state.etag.as_deref(),
        Some("W/\"59035ea262f2b14549892c7ed8166109\"")
    );
    assert_eq!(
        state.last_modified.as_deref(),
        Some("Thursday, 17-Oct-2024 22:34:57 GMT+0000")
    );
    assert!(state.complete);
}

#[test]
fn recorded_archive_list_is_read_and_rebased() {
    let server = FakeChesscom::with_recordings();
    let run = new_store();
    let o = opts(&server, &run, "afgano29");
    // 68 months listed with api.chess.com URLs; the months themselves are not recorded,
    // so each fails with 404 from the fake server, proving the URLs were rebased onto it.
    let s = ingest_chesscom(&run.store, &o, &mut NoProgress).expect("ingest");
    assert_eq!(s.months.total, 68);
    assert_eq!(s.months.failed.len(), 68);
    assert!(
        server
            .seen()
            .iter()
            .any(|r| r.path == "/pub/player/afgano29/games/2024/01")
    );
}
