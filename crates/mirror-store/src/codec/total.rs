//! A move total: every game of a player through one (position, colour, move), whatever the
//! other dimensions, so that an unfiltered (or colour-only) question about a popular
//! position reads one row per move instead of one per edge row. The key is `player id (4) |
//! position (8) | colour (1) | move (2)`, big-endian so that a position's totals are one
//! range scan; the value is an edge value ([`super::edge::value`]: statistics and child).

use mirror_core::{MoveCode, PositionKey};
use shakmaty::Color;

use crate::StoreError;

/// Bytes of a total key.
pub const KEY_LEN: usize = 15;

/// The key of a player's total for one position, colour and move.
pub fn key(pid: u32, pos: PositionKey, color: Color, mv: MoveCode) -> [u8; KEY_LEN] {
    let mut k = [0u8; KEY_LEN];
    k[0..4].copy_from_slice(&pid.to_be_bytes());
    k[4..12].copy_from_slice(&pos.to_be_bytes());
    k[12] = mirror_core::codec::color_bit(color);
    k[13..15].copy_from_slice(&mv.0.to_be_bytes());
    k
}

/// The first and last (inclusive) keys of a player's totals from `pos` (both colours).
pub fn range(pid: u32, pos: PositionKey) -> ([u8; KEY_LEN], [u8; KEY_LEN]) {
    let mut lo = key(pid, pos, Color::White, MoveCode(0));
    lo[12] = 0;
    let mut hi = key(pid, pos, Color::White, MoveCode(u16::MAX));
    hi[12] = 1;
    (lo, hi)
}

/// The player's colour and the move of a stored total key.
pub fn color_and_move(key: &[u8]) -> Result<(Color, MoveCode), StoreError> {
    if key.len() != KEY_LEN {
        return Err(StoreError::Corrupt(format!(
            "move total key of {} bytes, not {KEY_LEN}",
            key.len()
        )));
    }
    let color = mirror_core::codec::color_from_bit(key[12])
        .ok_or_else(|| StoreError::Corrupt(format!("move total colour byte {}", key[12])))?;
    Ok((color, MoveCode(u16::from_be_bytes([key[13], key[14]]))))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_positions_totals_are_one_range_per_colour() {
        let pos = PositionKey(0x0123_4567_89ab_cdef);
        let w = key(3, pos, Color::White, MoveCode(796));
        let b = key(3, pos, Color::Black, MoveCode(12));
        assert_eq!(
            color_and_move(&w).expect("key"),
            (Color::White, MoveCode(796))
        );
        assert_eq!(
            color_and_move(&b).expect("key"),
            (Color::Black, MoveCode(12))
        );
        let (lo, hi) = range(3, pos);
        assert!(lo <= w && w <= hi && lo <= b && b <= hi);
        let other = key(3, PositionKey(pos.0 + 1), Color::White, MoveCode(0));
        assert!(hi < other);
        assert!(color_and_move(&w[..14]).is_err());
    }
}
