//! The conformance suite and backend-specific checks for the embedded (redb) store.

use mirror_store::{
    GraphRead, GraphWrite, StoreError,
    embedded::{EmbeddedStore, OpenMode, SCHEMA_VERSION},
};

fn fresh() -> EmbeddedStore {
    let dir = tempfile::tempdir().expect("tempdir");
    // Keep the directory alive for the test's duration by leaking it.
    let path = dir.keep().join("store.redb");
    EmbeddedStore::open(&path, OpenMode::CreateIfMissing).expect("open")
}

/// Every conformance check, against a fresh store and a fresh store to compare with.
fn with(_test: &str, check: impl FnOnce(EmbeddedStore, EmbeddedStore)) {
    check(fresh(), fresh());
}

mirror_testkit::conformance_tests!(with);

#[test]
fn schema_version_is_checked_on_open() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    {
        let s = EmbeddedStore::open(&path, OpenMode::CreateIfMissing).expect("open");
        s.set_schema_version_for_test(SCHEMA_VERSION + 1)
            .expect("set");
    }
    let err = EmbeddedStore::open(&path, OpenMode::CreateIfMissing).expect_err("mismatch");
    assert!(matches!(err, StoreError::SchemaMismatch { found, .. } if found == SCHEMA_VERSION + 1));
    assert!(err.to_string().contains("schema version"), "{err}");
    // Schema 4 (before the moves' times) opens as it is, marked 5: its rows and records
    // read as ones without times (their bytes: the codecs' tests).
    let four = dir.path().join("four.redb");
    {
        let s = EmbeddedStore::open(&four, OpenMode::CreateIfMissing).expect("open");
        let b =
            mirror_core::batch::Batch::from_games(&mirror_testkit::conformance::sample_games(5))
                .expect("legal");
        s.write_batch("p", &b).expect("write");
        s.set_schema_version_for_test(4).expect("set");
    }
    let s = EmbeddedStore::open(&four, OpenMode::MustExist).expect("schema 4 upgrades");
    assert_eq!(s.games("p").expect("games").len(), 5);
    drop(s);
    EmbeddedStore::open(&four, OpenMode::MustExist).expect("marked 5");
    // A store of the previous schema (before opponent ratings) says how to rebuild it.
    let old = dir.path().join("old.redb");
    EmbeddedStore::open(&old, OpenMode::CreateIfMissing)
        .expect("open")
        .set_schema_version_for_test(2)
        .expect("set");
    let err = EmbeddedStore::open(&old, OpenMode::MustExist).expect_err("old");
    let text = err.to_string();
    assert!(
        text.contains("schema version 2") && text.contains("rebuild it by ingesting"),
        "{text}"
    );
}

#[test]
fn missing_file_is_a_clear_error_when_it_must_exist() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("none.redb");
    let err = EmbeddedStore::open(&path, OpenMode::MustExist).expect_err("missing");
    assert!(err.to_string().contains("none.redb"), "{err}");
    assert!(!path.exists(), "not created");
}

#[test]
fn creates_parent_directories_and_reopens() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("a/b/store.redb");
    {
        let s = EmbeddedStore::open(&path, OpenMode::CreateIfMissing).expect("open");
        let games = mirror_testkit::conformance::sample_games(5);
        let mut b = mirror_core::batch::Batch::new();
        for (g, c) in games {
            b.add_game(g, c).expect("legal");
        }
        s.write_batch("Biskupstunga", &b).expect("write");
    }
    let s = EmbeddedStore::open(&path, OpenMode::MustExist).expect("reopen");
    assert_eq!(s.counts("Biskupstunga").expect("counts").games, 5);
}

#[test]
fn second_open_of_same_file_says_in_use() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("s.redb");
    let _first = EmbeddedStore::open(&path, OpenMode::CreateIfMissing).expect("open");
    let err = EmbeddedStore::open(&path, OpenMode::CreateIfMissing).expect_err("locked");
    assert!(err.to_string().contains("in use"), "{err}");
}

/// A server's store reads the evaluations at open, at most the bytes it is given, and
/// answers with them as any handle does; opened to serve, a missing file is created.
#[test]
fn a_served_store_reads_its_evaluations_at_open() {
    use mirror_core::{
        PositionKey,
        evaluation::{EvalScore, EvalSource, Evaluation},
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("new/serve.redb");
    let evals: Vec<(PositionKey, Evaluation)> = (1..=3u64)
        .map(|i| {
            let e = Evaluation {
                score: EvalScore::Cp(-(i as i32) * 7),
                best: Some("e2e4".into()),
                depth: 8,
                engine: "Stockfish 15.1".into(),
                source: EvalSource::Engine,
            };
            (PositionKey(i * 0x9e37_79b9_7f4a_7c15), e)
        })
        .collect();
    {
        let s = EmbeddedStore::open(&path, OpenMode::Serve).expect("created to serve");
        assert_eq!(s.warm_evaluations(usize::MAX).expect("read"), 0);
        s.write_evaluations(&evals).expect("write");
    }
    let s = EmbeddedStore::open(&path, OpenMode::Serve).expect("open");
    assert_eq!(s.warm_evaluations(usize::MAX).expect("read"), 3);
    assert_eq!(
        s.warm_evaluations(1).expect("read"),
        1,
        "stops at the bound"
    );
    let keys: Vec<PositionKey> = evals.iter().map(|(k, _)| *k).collect();
    let found = s.evaluations(&keys).expect("evaluations");
    assert_eq!(
        found,
        evals.into_iter().map(|(_, e)| Some(e)).collect::<Vec<_>>()
    );
}
