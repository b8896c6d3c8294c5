//! Any bytes through every decoder of the embedded store's `codec/` (edge rows and their
//! values, move totals' keys, fetch states, position lists, move statistics, drill records):
//! a value or `StoreError::Corrupt`, never a panic; a drill record read back encodes to the
//! same bytes.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mirror_core::{MoveCode, MoveStats, PositionKey};
use mirror_store::codec::{drill, edge, fetch, positions, total};
use shakmaty::Color;

fuzz_target!(|data: &[u8]| {
    let split = usize::from(data.first().copied().unwrap_or(0)).min(data.len());
    let (key, value) = data.split_at(split);
    let _ = edge::decode(key, value);
    let _ = edge::decode_value(data, PositionKey(0), MoveCode(0));
    let _ = total::color_and_move(data);
    let _ = fetch::decode(data, "2024-01");
    if let Ok(record) = drill::decode(data, PositionKey(7), Color::White) {
        assert_eq!(drill::encode(&record), data, "a drill record's bytes are its only form");
    }
    let probe = data
        .get(..8)
        .and_then(|b| <[u8; 8]>::try_from(b).ok())
        .map_or(0, u64::from_le_bytes);
    let _ = positions::contains(data, PositionKey(probe));
    if let Some(stats) = MoveStats::decode(data) {
        let _ = stats.score_interval();
        let _ = stats.performance();
    }
});
