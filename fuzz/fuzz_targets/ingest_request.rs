//! Any body of `POST /api/v1/ingest`: an `IngestRequest` or a serde error, and a request's
//! check an answer or a 400-class error naming the bad path, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mirror_server::IngestRequest;

fuzz_target!(|data: &[u8]| {
    if let Ok(request) = serde_json::from_slice::<IngestRequest>(data)
        && let Err(e) = request.check()
    {
        let status = e.status().as_u16();
        assert!((400..500).contains(&status), "{status}: {e}");
    }
});
