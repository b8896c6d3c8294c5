//! Any text as a UCI session (the lines a GUI sends): the loop answers, reports a bad line
//! with `info string` and goes on, and never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mirror_engine::{Book, Engine, EngineOptions};
use mirror_frontend::uci::{FallbackFor, run};

/// A book with no moves: the loop, not the store, is under test.
struct NoBook;

impl Book for NoBook {
    fn rows(
        &self,
        _: &str,
        _: mirror_core::PositionKey,
        _: &mirror_store::Filter,
    ) -> Result<Vec<mirror_store::MoveRow>, mirror_store::StoreError> {
        Ok(Vec::new())
    }

    fn newest_month(
        &self,
        _: &str,
    ) -> Result<Option<mirror_core::time::Month>, mirror_store::StoreError> {
        Ok(None)
    }
}

fuzz_target!(|data: &[u8]| {
    // PlayerPace waits as long as the clock a line gives allows (by design): a session
    // that turns it on would only measure sleeping.
    if data
        .windows(10)
        .any(|w| w.eq_ignore_ascii_case(b"playerpace"))
    {
        return;
    }
    let mut engine = Engine::new(NoBook, "fuzz", EngineOptions::default());
    let no_model: FallbackFor<'_> = &|name| Err(format!("no model for {name}"));
    let mut out = Vec::new();
    // Invalid UTF-8 ends the session with an I/O error: an answer, not a panic.
    let _ = run(
        &mut engine,
        no_model,
        std::io::Cursor::new(data.to_vec()),
        &mut out,
    );
});
