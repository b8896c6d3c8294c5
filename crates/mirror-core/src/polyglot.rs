//! Polyglot opening books (`.bin`), the format GUIs and lichess-bot read: 16-byte entries
//! `key (u64) | move (u16) | weight (u16) | learn (u32)`, big-endian, sorted by key. The
//! key is Polyglot's Zobrist hash, which shakmaty computes (its 64-bit Zobrist values are
//! Polyglot's; en passant counts when a capture is legal, as in python-chess). A move is
//! `to file | to row << 3 | from file << 6 | from row << 9 | promotion << 12`, castling as
//! the king taking its rook (e1h1).

use shakmaty::{CastlingMode, Chess, Move, Role, uci::UciMove};

use crate::PositionKey;

/// One book entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The position's Polyglot key.
    pub key: u64,
    /// The move, Polyglot-encoded.
    pub mv: u16,
    /// Its weight (relative within the position).
    pub weight: u16,
}

/// Polyglot's key of a position: mirror's own position key is that very hash.
pub fn key(pos: &Chess) -> u64 {
    PositionKey::from_position(pos).0
}

/// Polyglot's encoding of a legal move.
pub fn encode_move(mv: Move) -> u16 {
    // Chess960-style UCI names castling as the king taking its rook, as Polyglot does.
    let UciMove::Normal {
        from,
        to,
        promotion,
    } = mv.to_uci(CastlingMode::Chess960)
    else {
        unreachable!("a standard chess move has from and to squares")
    };
    let promo = match promotion {
        None => 0,
        Some(Role::Knight) => 1,
        Some(Role::Bishop) => 2,
        Some(Role::Rook) => 3,
        Some(_) => 4,
    };
    u16::from(to.file())
        | u16::from(to.rank()) << 3
        | u16::from(from.file()) << 6
        | u16::from(from.rank()) << 9
        | promo << 12
}

/// Weights of one position's moves from counts: the counts themselves, or scaled down so
/// that the largest is 65,535 (no move with a count drops to 0).
pub fn weights(counts: &[u64]) -> Vec<u16> {
    let max = counts.iter().copied().max().unwrap_or(0);
    counts
        .iter()
        .map(|&c| {
            let w = if max <= u64::from(u16::MAX) {
                c
            } else {
                (c * u64::from(u16::MAX) / max).max(u64::from(c > 0))
            };
            u16::try_from(w).expect("scaled to at most u16::MAX")
        })
        .collect()
}

/// The book file: entries sorted by key, then heaviest first.
pub fn to_bytes(entries: &mut [Entry]) -> Vec<u8> {
    entries.sort_by(|a, b| {
        a.key
            .cmp(&b.key)
            .then(b.weight.cmp(&a.weight))
            .then(a.mv.cmp(&b.mv))
    });
    let mut out = Vec::with_capacity(16 * entries.len());
    for e in entries.iter() {
        out.extend_from_slice(&e.key.to_be_bytes());
        out.extend_from_slice(&e.mv.to_be_bytes());
        out.extend_from_slice(&e.weight.to_be_bytes());
        out.extend_from_slice(&0u32.to_be_bytes());
    }
    out
}

/// How many positions `entries` cover (distinct keys).
pub fn positions(entries: &[Entry]) -> usize {
    let mut keys: Vec<u64> = entries.iter().map(|e| e.key).collect();
    keys.sort_unstable();
    keys.dedup();
    keys.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation;

    #[test]
    fn keys_and_moves_are_polyglots() {
        // The keys of Polyglot's own specification.
        assert_eq!(key(&Chess::default()), 0x463b_9618_1691_fc9c);
        let (after_e4, _) = notation::play_moves("e4").expect("legal");
        assert_eq!(key(&after_e4), 0x823c_9b50_fd11_4196);
        let (after_e4_d5, _) = notation::play_moves("e4 d5").expect("legal");
        assert_eq!(key(&after_e4_d5), 0x0756_b944_61c5_0fb0);
        // e2e4: to e4 (file 4, row 3), from e2 (file 4, row 1).
        let e4 = notation::parse_move(&Chess::default(), "e4").expect("legal");
        assert_eq!(encode_move(e4), 4 | 3 << 3 | 4 << 6 | 1 << 9);
        let (pos, _) = notation::play_moves("e4 e5 Nf3 Nc6 Bc4 Nf6").expect("legal");
        let castle = notation::parse_move(&pos, "O-O").expect("legal");
        assert_eq!(encode_move(castle), 7 | 4 << 6, "e1h1");
        let promo = notation::parse_fen("8/P6k/8/8/8/8/8/K7 w - - 0 1").expect("fen");
        let q = notation::parse_move(&promo, "a8=Q").expect("legal");
        let n = notation::parse_move(&promo, "a8=N").expect("legal");
        assert_eq!(encode_move(q) >> 12, 4);
        assert_eq!(encode_move(n) >> 12, 1);
    }

    #[test]
    fn weights_fit_and_files_sort() {
        assert_eq!(weights(&[3, 1]), vec![3, 1]);
        assert_eq!(weights(&[200_000, 100_000, 1]), vec![65_535, 32_767, 1]);
        let mut e = vec![
            Entry {
                key: 2,
                mv: 1,
                weight: 1,
            },
            Entry {
                key: 1,
                mv: 5,
                weight: 1,
            },
            Entry {
                key: 2,
                mv: 9,
                weight: 7,
            },
        ];
        let b = to_bytes(&mut e);
        assert_eq!(b.len(), 48);
        assert_eq!(&b[..8], &1u64.to_be_bytes());
        assert_eq!(&b[16..24], &2u64.to_be_bytes());
        assert_eq!(&b[26..28], &7u16.to_be_bytes(), "heaviest first");
    }
}
