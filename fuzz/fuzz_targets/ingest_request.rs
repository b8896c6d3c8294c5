//! Any body of `POST /api/v1/ingest`: an `IngestRequest` or a serde error, a request's
//! check an answer or a 400-class error naming the bad path, and its typed plan (months,
//! batch size) and the plan's own check an answer or an error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mirror_server::IngestRequest;

fuzz_target!(|data: &[u8]| {
    let Ok(request) = serde_json::from_slice::<IngestRequest>(data) else {
        return;
    };
    if let Err(e) = request.check() {
        let status = e.status().as_u16();
        assert!((400..500).contains(&status), "{status}: {e}");
    }
    if let Ok((plan, _)) = request.plan() {
        // Names and paths are checked without touching the disk or the network.
        let _ = plan.check();
    }
});
