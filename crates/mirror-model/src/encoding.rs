//! What the network sees and says, from the side to move (the board mirrored top to bottom
//! for Black, a8 becoming a1, so the side to move always plays "up").
//!
//! Input, 21 planes of 8x8 (encoding version 2): planes 0-5 the side to move's pawns,
//! knights, bishops, rooks, queens, king; 6-11 the opponent's; 12 the squares the side to
//! move attacks; 13 the squares the opponent attacks (the seed's 14 planes); 14-17 castling
//! rights (own king side, own queen side, theirs), whole planes; 18 the en passant square;
//! 19 and 20 the from- and to-square of the opponent's last move (empty when it is not
//! known, as at the start of a game). A position is stored as one bit per square
//! ([`Packed`], 168 bytes instead of 5,376 as floats).
//!
//! Output: one logit per move as AlphaZero and lc0 name moves, 73 planes of 64
//! from-squares: 56 queen-like moves (8 directions x 1-7 squares; castling is the king's
//! two-square move), 8 knight moves, 9 under-promotions (3 directions x knight, bishop,
//! rook). A queen promotion is the pawn's queen-like move.

use shakmaty::{Bitboard, CastlingSide, Chess, Color, Move, Position, Role, Square};

/// Version of this encoding; stored with every model.
pub const ENCODING_VERSION: u32 = 2;

/// Planes per position.
pub const PLANES: usize = 21;

/// Floats per encoded position.
pub const INPUT_LEN: usize = PLANES * 64;

/// Move planes of the output.
pub const MOVE_PLANES: usize = 73;

/// Logits per position: one per (move plane, from-square).
pub const MOVES: usize = MOVE_PLANES * 64;

/// A position's planes, one bit per square in the side to move's frame.
pub type Packed = [u64; PLANES];

const ROLES: [Role; 6] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];

/// Queen-like directions (file step, rank step), in the order of the move planes.
const DIRECTIONS: [(i32, i32); 8] = [
    (0, 1),
    (1, 1),
    (1, 0),
    (1, -1),
    (0, -1),
    (-1, -1),
    (-1, 0),
    (-1, 1),
];

/// Knight jumps, in the order of planes 56-63.
const KNIGHT: [(i32, i32); 8] = [
    (1, 2),
    (2, 1),
    (2, -1),
    (1, -2),
    (-1, -2),
    (-2, -1),
    (-2, 1),
    (-1, 2),
];

/// The index of `sq` in the frame of `turn` (ranks flipped for Black).
pub fn frame(sq: Square, turn: Color) -> usize {
    let i = usize::from(sq);
    match turn {
        Color::White => i,
        Color::Black => i ^ 56,
    }
}

/// A bitboard in the frame of `turn`.
fn framed(bb: Bitboard, turn: Color) -> u64 {
    match turn {
        Color::White => bb.0,
        Color::Black => bb.flip_vertical().0,
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

/// The squares a move goes from and to; castling is the king's move (e1g1), as UCI writes
/// it. `None` for a drop (not in standard chess).
pub fn move_squares(m: &Move) -> Option<(Square, Square)> {
    match *m {
        Move::Castle { king, rook } => {
            let file = if rook.file() > king.file() {
                shakmaty::File::G
            } else {
                shakmaty::File::C
            };
            Some((king, Square::from_coords(file, king.rank())))
        }
        Move::Put { .. } => None,
        _ => Some((m.from()?, m.to())),
    }
}

/// The planes of `pos`, reached by the opponent's move `last` if known.
pub fn encode_packed(pos: &Chess, last: Option<&Move>) -> Packed {
    let mut out = [0u64; PLANES];
    let turn = pos.turn();
    let board = pos.board();
    for (side, color) in [(0usize, turn), (1, !turn)] {
        for (r, role) in ROLES.iter().enumerate() {
            out[side * 6 + r] = framed(board.by_role(*role) & board.by_color(color), turn);
        }
        out[12 + side] = framed(attacks(pos, color), turn);
        for (k, cs) in [CastlingSide::KingSide, CastlingSide::QueenSide]
            .into_iter()
            .enumerate()
        {
            if pos.castles().has(color, cs) {
                out[14 + side * 2 + k] = u64::MAX;
            }
        }
    }
    if let Some(ep) = pos.ep_square(shakmaty::EnPassantMode::Legal) {
        out[18] = 1 << frame(ep, turn);
    }
    if let Some((from, to)) = last.and_then(move_squares) {
        out[19] = 1 << frame(from, turn);
        out[20] = 1 << frame(to, turn);
    }
    out
}

/// Writes packed planes as floats (0 or 1) into `out` (`INPUT_LEN` floats).
pub fn unpack_into(packed: &Packed, out: &mut [f32]) {
    for (p, bits) in packed.iter().enumerate() {
        for (sq, v) in out[p * 64..(p + 1) * 64].iter_mut().enumerate() {
            *v = if bits >> sq & 1 == 1 { 1.0 } else { 0.0 };
        }
    }
}

/// The planes of `pos` as floats.
pub fn encode(pos: &Chess, last: Option<&Move>) -> Vec<f32> {
    let mut v = vec![0.0; INPUT_LEN];
    unpack_into(&encode_packed(pos, last), &mut v);
    v
}

/// The index of a move among the [`MOVES`] logits (`plane * 64 + from`) for the side
/// `turn`; `None` for a move the encoding has no name for (drops, king promotions: not in
/// standard chess).
pub fn move_index(m: &Move, turn: Color) -> Option<usize> {
    let (from, to) = move_squares(m)?;
    let (f, t) = (frame(from, turn), frame(to, turn));
    let dx = (t % 8) as i32 - (f % 8) as i32;
    let dy = (t / 8) as i32 - (f / 8) as i32;
    let plane = match m.promotion() {
        Some(Role::Queen) | None => match KNIGHT.iter().position(|d| *d == (dx, dy)) {
            Some(k) => 56 + k,
            None => {
                if (dx != 0 && dy != 0 && dx.abs() != dy.abs()) || (dx == 0 && dy == 0) {
                    return None;
                }
                let dir = DIRECTIONS
                    .iter()
                    .position(|d| *d == (dx.signum(), dy.signum()))?;
                let dist = dx.abs().max(dy.abs()) as usize;
                dir * 7 + dist - 1
            }
        },
        Some(role) => {
            let piece = match role {
                Role::Knight => 0,
                Role::Bishop => 1,
                Role::Rook => 2,
                _ => return None,
            };
            64 + 3 * usize::try_from(dx + 1).ok()? + piece
        }
    };
    Some(plane * 64 + f)
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
        let v = encode(&Chess::default(), None);
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
        for p in 14..18 {
            assert_eq!(plane(&v, p).len(), 64, "every castling right");
        }
        for p in 18..21 {
            assert!(plane(&v, p).is_empty(), "no en passant, no last move");
        }
        assert_eq!(v.iter().filter(|x| **x != 0.0 && **x != 1.0).count(), 0);
    }

    #[test]
    fn black_to_move_is_mirrored_with_the_last_move_and_en_passant() {
        // After 1. e4: Black to move sees its own pawns on "rank 2" and White's e-pawn on e5
        // (mirrored e4 -> e5); the last move e2e4 is e7 -> e5 in Black's frame.
        let p = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1");
        let e4 = Chess::default()
            .legal_moves()
            .into_iter()
            .find(|m| m.to() == Square::E4)
            .expect("e4");
        let v = encode(&p, Some(&e4));
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
        assert_eq!(plane(&v, 19), vec![52], "from e2, seen as e7");
        assert_eq!(plane(&v, 20), vec![36], "to e4, seen as e5");
        assert!(plane(&v, 18).is_empty(), "no pawn can take en passant");
        // The same position with colours swapped encodes identically.
        let swapped = pos("rnbqkbnr/pppp1ppp/8/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert_eq!(encode(&swapped, None)[..18 * 64], v[..18 * 64]);
        // En passant only when a pawn can take: after 1. e4 d5 2. e5 f5, e5xf6 is legal.
        let ep = pos("rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3");
        assert_eq!(plane(&encode(&ep, None), 18), vec![45]);
        // Castling rights are per side, in the mover's order (own first).
        let rights = pos("r3k2r/8/8/8/8/8/8/R3K2R b Kq - 0 1");
        let v = encode(&rights, None);
        let full = |p: usize| plane(&v, p).len() == 64;
        assert_eq!(
            [full(14), full(15), full(16), full(17)],
            [false, true, true, false]
        );
    }

    #[test]
    fn every_legal_move_has_its_own_index() {
        // Castling, promotions (queen and under), en passant, knights, sliders: the legal
        // moves of positions with all of them get distinct indices below MOVES.
        for fen in [
            "r3k2r/1P4P1/8/3pP3/8/8/1p4p1/R3K2R w KQkq d6 0 1",
            "r3k2r/1P4P1/8/8/3Pp3/8/1p4p1/R3K2R b KQkq d3 0 1",
            "4k3/8/8/3QN3/8/8/8/4K3 w - - 0 1",
        ] {
            let p = pos(fen);
            let mut seen = std::collections::HashSet::new();
            for m in p.legal_moves() {
                let i = move_index(&m, p.turn()).expect("named");
                assert!(i < MOVES);
                assert!(seen.insert(i), "{m:?} shares index {i}");
            }
        }
        let p = Chess::default();
        let e4 = p
            .legal_moves()
            .into_iter()
            .find(|m| m.to() == Square::E4)
            .expect("e4");
        // North, two squares, from e2 (12).
        assert_eq!(move_index(&e4, Color::White), Some(64 + 12));
        let b = pos("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
        let oo = b
            .legal_moves()
            .into_iter()
            .find(|m| m.is_castle() && m.to() == Square::H8)
            .expect("O-O");
        // e8g8 for Black is e1g1 in Black's frame: east, two squares, from e1 (4).
        assert_eq!(move_index(&oo, Color::Black), Some((2 * 7 + 1) * 64 + 4));
    }
}
