//! The test Neo4j launcher's interface (`tests/neo4j/run.sh`): exactly one ready line on
//! stdout, a clean shutdown when stdin closes and on SIGTERM (the temporary data directory
//! is gone afterwards), and a fresh directory per server.

use mirror_testkit::{Neo4jServer, ServerOptions, private};

/// The data directory the launcher reported on stderr.
fn data_dir(server: &Neo4jServer) -> std::path::PathBuf {
    let log = std::fs::read_to_string(server.log()).expect("log");
    let line = log
        .lines()
        .find_map(|l| l.strip_prefix("mirror test Neo4j: data in "))
        .unwrap_or_else(|| panic!("no data line in {log}"));
    line.trim_end_matches(" (deleted at shutdown)").into()
}

#[test]
fn one_ready_line_then_a_clean_stop_when_stdin_closes_or_on_sigterm() {
    let Some(a) = private("launcher::stdin", &ServerOptions::default()) else {
        return;
    };
    let Some(b) = private("launcher::sigterm", &ServerOptions::default()) else {
        return;
    };
    assert!(a.uri().starts_with("bolt://127.0.0.1:"), "{}", a.uri());
    assert_ne!(a.uri(), b.uri(), "each server has its own port");
    let (da, db) = (data_dir(&a), data_dir(&b));
    assert_ne!(da, db, "each server has a fresh directory");
    assert!(da.is_dir() && db.is_dir());

    let log_a = a.log().to_path_buf();
    let (status, rest) = a.stop();
    assert!(status.success(), "stdin closed: {status:?}");
    assert!(rest.is_empty(), "exactly one line on stdout: {rest:?}");
    assert!(!da.exists(), "the temporary data directory is deleted");
    let log = std::fs::read_to_string(log_a).expect("log");
    assert!(log.contains("mirror test Neo4j: stopped cleanly"), "{log}");

    let log_b = b.log().to_path_buf();
    let (status, rest) = b.terminate();
    assert!(rest.is_empty(), "exactly one line on stdout: {rest:?}");
    assert!(
        !db.exists(),
        "the temporary data directory is deleted: {status:?}"
    );
    let log = std::fs::read_to_string(log_b).expect("log");
    assert!(log.contains("mirror test Neo4j: stopped cleanly"), "{log}");
}
