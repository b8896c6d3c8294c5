//! The board as 14 planes of 8x8, seen from the side to move (the seed's encoding):
//! planes 0-5 the side to move's pawns, knights, bishops, rooks, queens, king; planes 6-11
//! the opponent's; plane 12 the squares the side to move attacks; plane 13 the squares the
//! opponent attacks. For Black the board is mirrored top to bottom (a8 becomes a1), so the
//! side to move always plays "up". Moves are labelled by from- and to-square in the same
//! frame.

use shakmaty::{Bitboard, Chess, Color, Move, Position, Role, Square};

/// Version of this encoding; stored with every model.
pub const ENCODING_VERSION: u32 = 1;

/// Planes per position.
pub const PLANES: usize = 14;

/// Floats per encoded position.
pub const INPUT_LEN: usize = PLANES * 64;

const ROLES: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

/// The index of `sq` in the frame of `turn` (ranks flipped for Black).
pub fn frame(sq: Square, turn: Color) -> usize {
    let i = usize::from(sq);
    match turn {
        Color::White => i,
        Color::Black => i ^ 56,
    }
}

fn attacks(pos: &Chess, color: Color) -> Bitboard {
    let board = pos.board();
    let mut all = Bitboard::EMPTY;
    for sq in board.by_color(color) {
        all |= board.attacks_from(sq);
    }
    all
}

/// Writes the 14 x 64 planes of `pos` into `out` (`INPUT_LEN` floats, zeroed first).
pub fn encode_into(pos: &Chess, out: &mut [f32]) {
    out[..INPUT_LEN].fill(0.0);
    let turn = pos.turn();
    let board = pos.board();
    for (side, color) in [(0usize, turn), (1, !turn)] {
        for (r, role) in ROLES.iter().enumerate() {
            let plane = side * 6 + r;
            for sq in board.by_role(*role) & board.by_color(color) {
                out[plane * 64 + frame(sq, turn)] = 1.0;
            }
        }
        for sq in attacks(pos, color) {
            out[(12 + side) * 64 + frame(sq, turn)] = 1.0;
        }
    }
}

/// The planes of `pos` as a new vector.
pub fn encode(pos: &Chess) -> Vec<f32> {
    let mut v = vec![0.0; INPUT_LEN];
    encode_into(pos, &mut v);
    v
}

/// The (from, to) labels of a move in the frame of the side to move. Castling is the king's
/// move (e1g1), as UCI writes it.
pub fn move_label(m: &Move, turn: Color) -> Option<(usize, usize)> {
    let (from, to) = match *m {
        Move::Castle { king, rook } => {
            let file = if rook.file() > king.file() {
                shakmaty::File::G
            } else {
                shakmaty::File::C
            };
            (king, Square::from_coords(file, king.rank()))
        }
        Move::Put { .. } => return None,
        _ => (m.from()?, m.to()),
    };
    Some((frame(from, turn), frame(to, turn)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .expect("fen")
            .into_position(CastlingMode::Standard)
            .expect("legal")
    }

    fn plane(v: &[f32], p: usize) -> Vec<usize> {
        (0..64).filter(|i| v[p * 64 + i] == 1.0).collect()
    }

    #[test]
    fn start_position_plane_by_plane() {
        let v = encode(&Chess::default());
        assert_eq!(
            plane(&v, 0),
            (8..16).collect::<Vec<_>>(),
            "own pawns on rank 2"
        );
        assert_eq!(plane(&v, 1), vec![1, 6], "own knights b1 g1");
        assert_eq!(plane(&v, 2), vec![2, 5]);
        assert_eq!(plane(&v, 3), vec![0, 7]);
        assert_eq!(plane(&v, 4), vec![3]);
        assert_eq!(plane(&v, 5), vec![4]);
        assert_eq!(
            plane(&v, 6),
            (48..56).collect::<Vec<_>>(),
            "their pawns on rank 7"
        );
        assert_eq!(plane(&v, 11), vec![60]);
        // White attacks all of rank 3 (pawns and knights) plus pieces defending each other.
        assert!((16..24).all(|i| v[12 * 64 + i] == 1.0));
        assert!((40..48).all(|i| v[13 * 64 + i] == 1.0));
        assert_eq!(v.iter().filter(|x| **x != 0.0 && **x != 1.0).count(), 0);
    }

    #[test]
    fn black_to_move_is_mirrored() {
        // After 1. e4: Black to move sees its own pawns on "rank 2" and White's e-pawn on e5
        // (mirrored e4 -> e5).
        let p = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        let v = encode(&p);
        assert_eq!(
            plane(&v, 0),
            (8..16).collect::<Vec<_>>(),
            "own (black) pawns"
        );
        assert_eq!(plane(&v, 5), vec![4], "own king on e1 in its frame");
        assert!(
            plane(&v, 6).contains(&36),
            "white e4 pawn appears on e5 (36)"
        );
        assert!(!plane(&v, 6).contains(&28));
        // The same position with colours swapped encodes identically.
        let swapped = pos("rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(encode(&swapped), v);
    }

    #[test]
    fn move_labels_in_frame() {
        let p = Chess::default();
        let e4 = p
            .legal_moves()
            .into_iter()
            .find(|m| m.to() == Square::E4)
            .expect("e4");
        assert_eq!(move_label(&e4, Color::White), Some((12, 28)));
        let b = pos("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
        let oo = b
            .legal_moves()
            .into_iter()
            .find(|m| m.is_castle() && m.to() == Square::H8)
            .expect("O-O");
        // e8g8 for Black is e1g1 in Black's frame.
        assert_eq!(move_label(&oo, Color::Black), Some((4, 6)));
    }
}
