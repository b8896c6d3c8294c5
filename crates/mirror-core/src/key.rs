//! Position identity: a transposition-friendly key and its human-readable EPD.

use std::fmt;

use shakmaty::{Chess, EnPassantMode, Position, fen::Epd, zobrist::Zobrist64};

/// Stable identity of a position: shakmaty's 64-bit Zobrist hash of board, side to move,
/// castling rights and the en-passant square *only when an en-passant capture is legal*.
///
/// Move counters are ignored, so transpositions meet in one key.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PositionKey(pub u64);

impl PositionKey {
    /// The key of a position.
    pub fn from_position(pos: &Chess) -> PositionKey {
        let Zobrist64(h) = pos.zobrist_hash(EnPassantMode::Legal);
        PositionKey(h)
    }

    /// Big-endian bytes, the order used in store keys.
    pub fn to_be_bytes(self) -> [u8; 8] {
        self.0.to_be_bytes()
    }

    /// Inverse of [`PositionKey::to_be_bytes`].
    pub fn from_be_bytes(bytes: [u8; 8]) -> PositionKey {
        PositionKey(u64::from_be_bytes(bytes))
    }
}

impl fmt::Display for PositionKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

/// Text that is not a [`PositionKey`]'s display form (16 lower-case hex digits).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not a position key (16 hex digits)")]
pub struct ParseKeyError(pub String);

impl std::str::FromStr for PositionKey {
    type Err = ParseKeyError;

    /// Inverse of the display form.
    fn from_str(s: &str) -> Result<PositionKey, ParseKeyError> {
        let hex = s.len() == 16 && s.bytes().all(|b| b.is_ascii_hexdigit());
        hex.then(|| u64::from_str_radix(s, 16).ok())
            .flatten()
            .map(PositionKey)
            .ok_or_else(|| ParseKeyError(s.to_string()))
    }
}

/// EPD text of a position (FEN without move counters), en passant only when legal.
pub fn epd(pos: &Chess) -> String {
    Epd::from_position(pos, EnPassantMode::Legal).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen, san::San};

    fn play(sans: &[&str]) -> Chess {
        let mut pos = Chess::default();
        for s in sans {
            let m = s.parse::<San>().expect("san").to_move(&pos).expect("legal");
            pos.play_unchecked(m);
        }
        pos
    }

    #[test]
    fn transpositions_meet() {
        let a = play(&["e4", "e6", "d4", "d5"]);
        let b = play(&["d4", "e6", "e4", "d5"]);
        assert_eq!(
            PositionKey::from_position(&a),
            PositionKey::from_position(&b)
        );
        assert_ne!(
            PositionKey::from_position(&a),
            PositionKey::from_position(&play(&["e4", "e6", "d4"]))
        );
    }

    #[test]
    fn en_passant_only_when_legal() {
        // 1. e4: the e3 square is not capturable by any black pawn, so the key equals the
        // same position reached without a double push (via FEN without ep square).
        let after_e4 = play(&["e4"]);
        let fen: Fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
            .parse()
            .expect("fen");
        let same: Chess = fen.into_position(CastlingMode::Standard).expect("pos");
        assert_eq!(
            PositionKey::from_position(&after_e4),
            PositionKey::from_position(&same)
        );
        assert_eq!(
            epd(&after_e4),
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -"
        );

        // 1. e4 Nf6 2. e5 d5: exd6 is legal, so the ep square is part of the key.
        let ep = play(&["e4", "Nf6", "e5", "d5"]);
        assert!(epd(&ep).ends_with("w KQkq d6"));
        let fen: Fen = "rnbqkb1r/ppp1pppp/5n2/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq - 0 3"
            .parse()
            .expect("fen");
        let no_ep: Chess = fen.into_position(CastlingMode::Standard).expect("pos");
        assert_ne!(
            PositionKey::from_position(&ep),
            PositionKey::from_position(&no_ep)
        );
    }

    #[test]
    fn display_and_bytes_round_trip() {
        let k = PositionKey::from_position(&Chess::default());
        assert_eq!(PositionKey::from_be_bytes(k.to_be_bytes()), k);
        assert_eq!(k.to_string().len(), 16);
    }

    #[test]
    fn keys_read_back_from_their_text() {
        for k in [0, 255, u64::MAX, 0x463b_9618_1691_fc9c] {
            let key = PositionKey(k);
            assert_eq!(key.to_string().parse::<PositionKey>(), Ok(key));
        }
        for bad in [
            "",
            "ff",
            "00000000000000fg",
            "+0000000000000ff",
            "0000000000000000f",
        ] {
            assert!(bad.parse::<PositionKey>().is_err(), "{bad}");
        }
    }
}
