//! The drill on real games: FSRS's intervals as py-fsrs computes them, the opponent's
//! replies drawn as often as they were played (a chi-square test by scipy), a session's
//! answers stored and read back, retirement and return of a card.

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::{Command, Stdio},
    time::Duration,
};

use mirror_core::{PositionKey, notation};
use mirror_drill::{CardOptions, Deck, Grade, Scheduler, Session, SessionOptions, Why};
use mirror_ingest::{IngestOptions, NoProgress, Source, ingest};
use mirror_store::{
    Drills, Filter, GraphRead,
    embedded::{EmbeddedStore, OpenMode},
};
use rand::{Rng, SeedableRng};
use shakmaty::{Chess, Color, Position};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python() -> String {
    std::env::var("MIRROR_PYTHON").unwrap_or_else(|_| "python3".into())
}

/// Runs a reference script with `input` on its stdin; its stdout as JSON.
fn reference(script: &str, args: &[&str], input: &str) -> serde_json::Value {
    let mut child = Command::new(python())
        .arg(repo().join("tests/reference").join(script))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 with the reference packages (tests/setup.sh installs them)");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes())
        .expect("write");
    let out = child.wait_with_output().expect("the reference runs");
    assert!(out.status.success(), "{script} failed");
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// A store holding `player`'s games of `pgn`.
fn store_of(dir: &Path, pgn: &Path, player: &str) -> EmbeddedStore {
    let store =
        EmbeddedStore::open(&dir.join("drill.redb"), OpenMode::CreateIfMissing).expect("open");
    ingest(
        &store,
        &[Source::File(pgn.to_path_buf())],
        &IngestOptions::new(player),
        &mut NoProgress,
    )
    .expect("ingest");
    store
}

fn first500() -> PathBuf {
    mirror_testkit::conformance::shared_data().join("pgn/single-player/biskupstunga_first500.pgn")
}

/// The days of FSRS's intervals, the stability and difficulty after each answer, equal
/// py-fsrs's (the reference implementation, from PyPI) for the same grades on the same
/// days: fixed sequences (same-day answers, lapses, long gaps) and random ones.
#[test]
fn the_schedule_equals_py_fsrs() {
    let mut cards: Vec<Vec<(u8, u32)>> = vec![
        vec![(3, 0), (3, 3), (1, 10), (4, 0), (2, 5)],
        vec![(1, 0), (1, 0), (1, 1), (3, 1), (3, 2), (3, 6)],
        vec![(4, 0), (4, 9), (4, 40), (4, 200), (1, 900), (3, 1)],
        vec![(2, 0), (2, 2), (2, 3), (2, 5), (2, 8)],
    ];
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
    for _ in 0..40 {
        let n = rng.random_range(2..10);
        cards.push(
            (0..n)
                .map(|_| (rng.random_range(1..=4), rng.random_range(0..60)))
                .collect(),
        );
    }
    for retention in [0.9f32, 0.8] {
        let json = serde_json::to_string(&cards).expect("json");
        let want = reference("fsrs_schedule.py", &[&retention.to_string()], &json);
        let scheduler = Scheduler::new(retention).expect("scheduler");
        let mut compared = 0;
        for (c, answers) in cards.iter().enumerate() {
            let mut record = mirror_store::DrillRecord::new(PositionKey(1), Color::White);
            let mut now = 1_767_268_800; // 2026-01-01 12:00 UTC, as the reference starts
            for (i, &(grade, days)) in answers.iter().enumerate() {
                if i > 0 {
                    now += i64::from(days) * 86_400;
                }
                let grade = Grade::from_number(grade).expect("a grade");
                let (next, interval) = scheduler
                    .review(&record, grade, now, 1_000)
                    .expect("review");
                let w = &want[c][i];
                let (stability, difficulty) = next.memory.expect("a memory");
                let (ws, wd, wi) = (
                    w[0].as_f64().expect("stability"),
                    w[1].as_f64().expect("difficulty"),
                    w[2].as_u64().expect("interval"),
                );
                let at = format!("card {c} answer {i} at retention {retention}: {answers:?}");
                assert!(
                    (f64::from(stability) - ws).abs() <= 1e-3 * ws.max(1.0),
                    "stability {stability} against {ws}, {at}"
                );
                assert!(
                    (f64::from(difficulty) - wd).abs() <= 1e-3,
                    "difficulty {difficulty} against {wd}, {at}"
                );
                assert_eq!(u64::from(interval), wi, "interval, {at}");
                record = next;
                compared += 1;
            }
        }
        assert!(compared > 150, "{compared} answers compared");
    }
}

/// The other side's replies are drawn as often as they were played: 4,000 draws after the
/// player's main first move, against the store's counts, by scipy's chi-square test.
#[test]
fn replies_are_drawn_with_the_stores_frequencies() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = store_of(dir.path(), &first500(), "Biskupstunga");
    let opts = CardOptions {
        color: Some(Color::White),
        min_games: 5,
        engine: 0,
        ..CardOptions::default()
    };
    let deck = Deck::build(&store, "Biskupstunga", &opts).expect("deck");
    let start = deck
        .find(PositionKey::from_position(&Chess::default()), Color::White)
        .expect("a card at the start position");
    let card = deck.entries[start].card.clone();
    let mut session = Session::new(&store, deck, SessionOptions::default(), 0).expect("session");
    let mut after = Chess::default();
    after.play_unchecked(notation::parse_move(&after, &card.right[0]).expect("legal"));
    let rows = store
        .moves(
            "Biskupstunga",
            PositionKey::from_position(&after),
            &Filter {
                color: Some(Color::White),
                ..Filter::default()
            },
        )
        .expect("moves");
    assert!(rows.len() >= 4, "several replies: {}", rows.len());
    let index: Vec<String> = rows.iter().map(|r| r.mv.to_string()).collect();
    let mut observed = vec![0u32; rows.len()];
    for _ in 0..4_000 {
        let reply = session.reply(start).expect("reply").expect("a reply");
        let i = index
            .iter()
            .position(|u| *u == reply.reply)
            .expect("a reply the store holds");
        observed[i] += 1;
    }
    let expected: Vec<u32> = rows.iter().map(|r| r.stats.games()).collect();
    let p = reference(
        "chisquare.py",
        &[],
        &serde_json::json!({ "observed": observed, "weights": expected }).to_string(),
    );
    let p = p.as_f64().expect("a p-value");
    assert!(
        p > 0.001,
        "p = {p}: observed {observed:?} against games {expected:?}"
    );
}

/// A session asks the new cards in the deck's order, checks an answer against the card's
/// right moves, stores each answer at once (read back by a fresh deck), walks on along the
/// line, asks a wrong card again, and a card whose position left the repertoire retires
/// with its history and comes back with it.
#[test]
fn a_session_stores_every_answer_and_cards_retire_and_return() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = store_of(dir.path(), &first500(), "Biskupstunga");
    let opts = CardOptions {
        color: Some(Color::White),
        min_games: 5,
        engine: 0,
        ..CardOptions::default()
    };
    let deck = Deck::build(&store, "Biskupstunga", &opts).expect("deck");
    assert!(deck.entries.len() > 10, "{} cards", deck.entries.len());
    assert!(deck.entries.iter().all(|e| e.is_new()));
    // Every card's right moves are the player's: the main move first.
    for e in &deck.entries {
        let Why::Repertoire { games, of, .. } = e.card.why else {
            panic!(
                "only repertoire cards without an analysis: {:?}",
                e.card.why
            );
        };
        assert!(of >= 5 && games >= 1 && of >= games, "{:?}", e.card);
        // The main move is the most played there.
        let rows = store
            .moves(
                "Biskupstunga",
                e.card.key,
                &Filter {
                    color: Some(Color::White),
                    ..Filter::default()
                },
            )
            .expect("moves");
        assert_eq!(rows[0].mv.to_string(), e.card.right[0]);
        assert_eq!(rows[0].stats.games(), games);
        assert_eq!(e.card.position().expect("replays").turn(), Color::White);
    }
    let counts = deck.counts(Color::White, 0);
    assert_eq!(counts.new, deck.entries.len());
    let now = 1_800_000_000;
    let mut session = Session::new(
        &store,
        deck,
        SessionOptions {
            new: 3,
            ..SessionOptions::default()
        },
        now,
    )
    .expect("session");
    assert_eq!(session.left(), 3);
    let first = session.ask().expect("a question");
    assert!(first.new);
    let pos = first.card.position().expect("position");
    // A wrong answer: a legal move that is not right.
    let wrong = pos
        .legal_moves()
        .into_iter()
        .find(|&m| !first.card.is_right(m))
        .expect("a wrong move");
    let verdict = session
        .answer(Some(wrong), Duration::from_secs(3), now)
        .expect("answer");
    assert!(!verdict.right);
    assert_eq!(verdict.grade, Grade::Again);
    assert_eq!(verdict.right_moves[0].uci, first.card.right[0]);
    assert!(verdict.right_moves[0].games >= 5);
    // Stored at once: a fresh deck reads the answer.
    let stored = store.drill_records("Biskupstunga").expect("records");
    assert_eq!(stored.len(), 1);
    assert_eq!(stored[0].key, first.card.key);
    assert_eq!(stored[0].history.len(), 1);
    assert_eq!(stored[0].history[0].grade, 1);
    // The wrong card is asked again in this session.
    assert_eq!(session.left(), 3);
    // The line goes on: the reply to the right move, and the next card on it (if any).
    let reply = session.reply(first.entry).expect("reply");
    let mut asked = vec![first.card.key];
    while let Some(ask) = session.ask() {
        let right = notation::parse_move(&ask.card.position().expect("pos"), &ask.card.right[0])
            .expect("legal");
        let v = session
            .answer(Some(right), Duration::from_secs(2), now)
            .expect("answer");
        assert!(v.right && v.grade == Grade::Easy && v.days >= 1);
        asked.push(ask.card.key);
        let _ = session.reply(ask.entry).expect("reply");
    }
    assert!(
        asked[1..].contains(&first.card.key),
        "the wrong card came back"
    );
    if let Some(r) = reply {
        assert!(r.games.0 > 0 && r.games.0 <= r.games.1);
    }
    let summary = session.summary();
    assert_eq!(summary.wrong, 1);
    assert_eq!(summary.right, asked.len() - 1);
    let deck = Deck::build(&store, "Biskupstunga", &opts).expect("deck");
    let later = deck.counts(Color::White, now);
    assert_eq!(later.later, summary.cards);
    assert_eq!(later.due, 0);
    assert_eq!(
        deck.counts(Color::White, now + 400 * 86_400).due,
        summary.cards
    );

    // A narrower repertoire: the answered cards that are no longer made retire, with
    // their history; back to the first options, they return.
    let narrow = CardOptions {
        depth: 1,
        ..opts.clone()
    };
    let small = Deck::build(&store, "Biskupstunga", &narrow).expect("deck");
    assert_eq!(small.entries.len(), 1, "the start position only");
    let retired: Vec<_> = store
        .drill_records("Biskupstunga")
        .expect("records")
        .into_iter()
        .filter(|r| r.retired)
        .collect();
    assert!(!retired.is_empty() && retired.iter().all(|r| !r.history.is_empty()));
    assert_eq!(small.counts(Color::White, now).retired, retired.len());
    let back = Deck::build(&store, "Biskupstunga", &opts).expect("deck");
    assert!(back.retired.is_empty());
    assert!(
        store
            .drill_records("Biskupstunga")
            .expect("records")
            .iter()
            .all(|r| !r.retired)
    );
    assert_eq!(back.counts(Color::White, now).later, summary.cards);
}
