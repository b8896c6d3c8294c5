//! A player's mark on a game they played: the date (`YYYYMMDD`, 0 when unknown) and their
//! colour as one byte ([`mirror_core::codec::color_bit`]). Stored as the value of
//! `player_games` (date and colour) and of `player_games_by_date` (colour).

use mirror_core::{
    Date,
    codec::{color_bit, color_from_bit},
};
use shakmaty::Color;

use crate::StoreError;

/// The date as stored: `YYYYMMDD`, 0 when unknown (sorts first).
pub fn date(date: Option<Date>) -> u32 {
    date.map_or(0, |d| d.to_u32())
}

/// The colour as stored.
pub fn color(color: Color) -> u8 {
    color_bit(color)
}

/// The colour of a stored byte of game `id`; anything but 0 or 1 is corruption.
pub fn decode_color(byte: u8, id: &str) -> Result<Color, StoreError> {
    color_from_bit(byte)
        .ok_or_else(|| StoreError::Corrupt(format!("game {id}: colour byte {byte}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_round_trip() {
        for c in [Color::White, Color::Black] {
            assert_eq!(decode_color(color(c), "g").expect("colour"), c);
        }
        let e = decode_color(7, "g1").expect_err("corrupt");
        assert!(e.to_string().contains("g1: colour byte 7"), "{e}");
        let d = Date::from_pgn("2024.03.09").expect("date");
        assert_eq!(date(Some(d)), 20_240_309);
        assert_eq!(date(None), 0);
        assert!(date(None) < date(Some(d)));
    }
}
