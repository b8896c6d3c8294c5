//! Any query string (and any JSON body) through the HTTP parameter parsing of every
//! endpoint that takes parameters (move, explore, player, report, prep, repertoire, drill,
//! book, book/newest), and any JSON body as a drill answer: an answer or a 400-class
//! error, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mirror_server::params::{
    BookQuery, DrillAnswerBody, DrillQuery, ExploreQuery, MoveQuery, NewestQuery, PlayerQuery,
    PrepQuery, Query, Raw, RepertoireQuery, ReportQuery, from_json, from_query,
};

fn check(raw: Raw) {
    for result in [
        MoveQuery::from_raw(raw.clone()).and_then(|q| q.parse().map(|_| ())),
        ExploreQuery::from_raw(raw.clone()).and_then(|q| q.parse().map(|_| ())),
        PlayerQuery::from_raw(raw.clone()).and_then(|q| q.parse().map(|_| ())),
        ReportQuery::from_raw(raw.clone()).and_then(|q| q.parse().map(|_| ())),
        PrepQuery::from_raw(raw.clone()).and_then(|q| q.parse().map(|_| ())),
        RepertoireQuery::from_raw(raw.clone()).and_then(|q| q.parse().map(|_| ())),
        DrillQuery::from_raw(raw.clone()).and_then(|q| q.parse().map(|_| ())),
        BookQuery::from_raw(raw.clone()).and_then(|q| q.parse().map(|_| ())),
        NewestQuery::from_raw(raw).and_then(|q| q.parse().map(|_| ())),
    ] {
        if let Err(e) = result {
            let status = e.status().as_u16();
            assert!((400..500).contains(&status), "{status}: {e}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    // A query string as the server reads it (a parameter given twice is a 400 too).
    if let Ok(text) = std::str::from_utf8(data) {
        match from_query(text) {
            Ok(raw) => check(raw),
            Err(e) => assert!((400..500).contains(&e.status().as_u16()), "{e}"),
        }
    }
    if let Ok(json) = serde_json::from_slice::<serde_json::Value>(data) {
        // As a drill answer's body (a serde error is the handler's 400).
        if let Ok(body) = serde_json::from_value::<DrillAnswerBody>(json.clone())
            && let Err(e) = body.parse()
        {
            assert!((400..500).contains(&e.status().as_u16()), "{e}");
        }
        match from_json(json) {
            Ok(raw) => check(raw),
            Err(e) => assert!((400..500).contains(&e.status().as_u16()), "{e}"),
        }
    }
});
