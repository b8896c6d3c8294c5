//! Any bytes as a stored game (`GameRecord::decode`, what the store reads back): a record
//! or an error naming the damage, never a panic; a record read back encodes to bytes that
//! decode to the same record.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mirror_core::GameRecord;

fuzz_target!(|data: &[u8]| {
    if let Ok(record) = GameRecord::decode(data) {
        let again = GameRecord::decode(&record.encode()).expect("an encoded record decodes");
        assert_eq!(again, record);
    }
});
