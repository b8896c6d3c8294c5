//! Any bytes through the PGN decoder: no panic, and every game it accepts replays and
//! survives its binary encoding unchanged.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mirror_core::{GameRecord, pgn::{Decoded, read_games}};

fuzz_target!(|data: &[u8]| {
    for item in read_games(data) {
        let Ok((_, decoded)) = item else { break };
        if let Decoded::Game(game) = decoded {
            let again = GameRecord::decode(&game.encode()).expect("an encoded game decodes");
            assert_eq!(again, game);
            assert!(game.replay().all(|ply| ply.is_ok()), "an accepted game replays");
        }
    }
});
