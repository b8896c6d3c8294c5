//! Test support shared by the ingest tests and the CLI tests.

pub mod fake_chesscom;
pub mod fake_lichess;
