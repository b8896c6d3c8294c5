//! Test support shared by the ingest tests and the CLI tests.

pub mod fake_chesscom;
pub mod fake_lichess;

/// A sleeper that waits for nothing and records each wait asked for in `waits`.
#[allow(dead_code)]
pub fn recorded(
    waits: std::sync::Arc<std::sync::Mutex<Vec<std::time::Duration>>>,
) -> mirror_online::Sleeper {
    mirror_online::Sleeper::instead(move |d| {
        waits
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(d);
    })
}
