//! Basic won endings played right: distance-to-mate tables for KQK, KRK, KBBK and KBNK,
//! built in the process by retrograde analysis (the Samadi seed's method) and kept for
//! the process's life.
//!
//! A table holds, for every placement of the pieces, how many plies the strong side
//! needs to mate against the best defence: with the strong side to move (a win, or
//! none) and with the lone king to move (a loss, or none). It starts from the
//! checkmates and walks backwards: a strong-side position is won in n+1 plies when one
//! of its moves reaches a position lost in n; a lone-king position is lost in n+2 when
//! every move reaches a won one (a count of unrefuted moves per position) and no move
//! captures a piece (which draws). The moves are generated from shakmaty's attack
//! tables; a test checks every table against shakmaty's own move generation.
//!
//! The engine ([`crate::Engine`]) plays a won ending by [`winning_moves`]: only moves that
//! keep the shortest mate (so the distance falls on every move and the mate comes within
//! the 50-move rule: at most 33 moves here), and among them the one the player's model
//! likes best.

use std::sync::OnceLock;

use shakmaty::{
    Bitboard, Chess, Color, FromSetup, Move, Position, Role, Square,
    attacks::{bishop_attacks, king_attacks, knight_attacks, queen_attacks, rook_attacks},
};

/// A basic ending: a king and one or two pieces against a lone king.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    /// King and queen.
    Kqk,
    /// King and rook.
    Krk,
    /// King and two bishops.
    Kbbk,
    /// King, bishop and knight.
    Kbnk,
}

impl Ending {
    /// Every ending with a table.
    pub const ALL: [Ending; 4] = [Ending::Kqk, Ending::Krk, Ending::Kbbk, Ending::Kbnk];

    /// The strong side's pieces besides its king, in the table's order.
    pub fn pieces(self) -> &'static [Role] {
        match self {
            Ending::Kqk => &[Role::Queen],
            Ending::Krk => &[Role::Rook],
            Ending::Kbbk => &[Role::Bishop, Role::Bishop],
            Ending::Kbnk => &[Role::Bishop, Role::Knight],
        }
    }

    /// `KQK`, `KBNK`.
    pub fn name(self) -> &'static str {
        match self {
            Ending::Kqk => "KQK",
            Ending::Krk => "KRK",
            Ending::Kbbk => "KBBK",
            Ending::Kbnk => "KBNK",
        }
    }

    /// The ending of these strong-side pieces (besides the king), in any order.
    fn of(mut roles: Vec<Role>) -> Option<Ending> {
        roles.sort();
        Ending::ALL.into_iter().find(|e| {
            let mut p = e.pieces().to_vec();
            p.sort();
            p == roles
        })
    }

    /// The ending's table, built on first use (KBNK and KBBK take a few seconds).
    pub fn table(self) -> &'static Table {
        static TABLES: [OnceLock<Table>; 4] = [const { OnceLock::new() }; 4];
        let i = Ending::ALL
            .iter()
            .position(|e| *e == self)
            .expect("ALL lists every ending");
        TABLES[i].get_or_init(|| Table::build(self))
    }
}

/// Builds every table on a background thread, so that a game reaching a basic ending later
/// finds it ready (a probe before then waits for the build in progress).
pub fn warm_up() {
    // A thread that cannot be spawned only means the first probe builds the table.
    let _ = std::thread::Builder::new()
        .name("endgame-tables".into())
        .spawn(|| {
            for e in Ending::ALL {
                e.table();
            }
        });
}

/// "No mate" in a table: a draw, or not a legal position.
const NONE: u8 = u8::MAX;

/// A lone-king position that can never be lost: it can capture a piece, or is stalemate.
const ESCAPE: u8 = u8::MAX;

/// Distances to mate of one ending, in plies, by the squares of (strong king, its pieces in
/// [`Ending::pieces`] order, lone king).
#[derive(Debug)]
pub struct Table {
    ending: Ending,
    /// Squares per placement (3 or 4).
    n: usize,
    /// Strong side to move: plies to mate, or [`NONE`].
    strong: Vec<u8>,
    /// Lone king to move: plies until it is mated, or [`NONE`].
    weak: Vec<u8>,
}

fn index(sq: &[Square]) -> usize {
    sq.iter().fold(0, |acc, s| acc * 64 + usize::from(*s))
}

fn squares(mut idx: usize, n: usize) -> [Square; 4] {
    let mut out = [Square::A1; 4];
    for i in (0..n).rev() {
        out[i] = Square::new((idx % 64) as u32);
        idx /= 64;
    }
    out
}

fn piece_attacks(role: Role, sq: Square, occ: Bitboard) -> Bitboard {
    match role {
        Role::King => king_attacks(sq),
        Role::Queen => queen_attacks(sq, occ),
        Role::Rook => rook_attacks(sq, occ),
        Role::Bishop => bishop_attacks(sq, occ),
        Role::Knight => knight_attacks(sq),
        Role::Pawn => unreachable!("no table has pawns"),
    }
}

/// A table under construction: distances to mate found so far from each side, and the
/// lone king's moves not yet shown to lose.
struct Retro {
    /// The strong side's king and pieces, then (implicitly) the lone king.
    roles: Vec<Role>,
    /// Pieces on the board, both kings included.
    n: usize,
    strong: Vec<u8>,
    weak: Vec<u8>,
    /// Lone-king positions: its moves not yet shown to lose, or ESCAPE.
    count: Vec<u8>,
}

impl Retro {
    /// Squares attacked by the strong side (its king and pieces, but not piece `skip`).
    fn strong_attacks(&self, sq: &[Square; 4], occ: Bitboard, skip: usize) -> Bitboard {
        let mut all = Bitboard::EMPTY;
        for (k, role) in self.roles.iter().enumerate() {
            if k != skip {
                all |= piece_attacks(*role, sq[k], occ);
            }
        }
        all
    }

    /// Counts the lone king's moves in every legal position with it to move; returns the
    /// positions where it is mated (and marks them lost in 0).
    fn mated(&mut self) -> Vec<usize> {
        let n = self.n;
        let mut frontier = Vec::new();
        for idx in 0..self.count.len() {
            let sq = squares(idx, n);
            let occ: Bitboard = sq[..n].iter().copied().collect();
            if occ.count() != n || king_attacks(sq[0]).contains(sq[n - 1]) {
                continue;
            }
            let wk = sq[n - 1];
            let without_king = occ.without(wk);
            let seen = self.strong_attacks(&sq, without_king, n);
            let mut moves = 0u8;
            let mut escape = false;
            for to in king_attacks(wk) {
                match (1..n - 1).find(|&k| sq[k] == to) {
                    Some(k) => escape |= !self.strong_attacks(&sq, without_king, k).contains(to),
                    None => moves += u8::from(!seen.contains(to)),
                }
            }
            if escape {
                continue;
            }
            if moves > 0 {
                self.count[idx] = moves;
            } else if self.strong_attacks(&sq, occ, n).contains(wk) {
                self.weak[idx] = 0;
                frontier.push(idx);
            }
        }
        frontier
    }

    /// Strong-side positions one move before a loss of the lone king in `ply` (marked won
    /// in `ply + 1`).
    fn won_before(&mut self, frontier: &[usize], ply: u8) -> Vec<usize> {
        let n = self.n;
        let mut won = Vec::new();
        for &idx in frontier {
            let sq = squares(idx, n);
            let occ: Bitboard = sq[..n].iter().copied().collect();
            let wk = sq[n - 1];
            for k in 0..self.roles.len() {
                for from in piece_attacks(self.roles[k], sq[k], occ) & !occ {
                    if k == 0 && king_attacks(from).contains(wk) {
                        continue;
                    }
                    let mut before = sq;
                    before[k] = from;
                    let occ_before = occ.without(sq[k]).with(from);
                    // The lone king may not stand in check with the strong side to move.
                    if self.strong_attacks(&before, occ_before, n).contains(wk) {
                        continue;
                    }
                    let q = index(&before[..n]);
                    if self.strong[q] == NONE {
                        self.strong[q] = ply + 1;
                        won.push(q);
                    }
                }
            }
        }
        won
    }

    /// Lone-king positions whose every move now reaches a won position (marked lost in
    /// `ply + 2`).
    fn lost_before(&mut self, won: &[usize], ply: u8) -> Vec<usize> {
        let n = self.n;
        let mut lost = Vec::new();
        for &idx in won {
            let sq = squares(idx, n);
            let occ: Bitboard = sq[..n].iter().copied().collect();
            let wk = sq[n - 1];
            for from in king_attacks(wk) & !occ {
                if king_attacks(sq[0]).contains(from) {
                    continue;
                }
                let mut before = sq;
                before[n - 1] = from;
                let q = index(&before[..n]);
                if self.count[q] == ESCAPE || self.weak[q] != NONE {
                    continue;
                }
                self.count[q] -= 1;
                if self.count[q] == 0 {
                    self.weak[q] = ply + 2;
                    lost.push(q);
                }
            }
        }
        lost
    }
}

impl Table {
    /// Builds the table of `ending` by retrograde analysis.
    pub fn build(ending: Ending) -> Table {
        let pieces = ending.pieces();
        let n = pieces.len() + 2;
        let size = 1usize << (6 * n);
        let mut r = Retro {
            roles: std::iter::once(Role::King)
                .chain(pieces.iter().copied())
                .collect(),
            n,
            strong: vec![NONE; size],
            weak: vec![NONE; size],
            count: vec![ESCAPE; size],
        };
        let mut frontier = r.mated();
        let mut ply = 0u8;
        while !frontier.is_empty() {
            let won = r.won_before(&frontier, ply);
            frontier = r.lost_before(&won, ply);
            ply += 2;
        }
        Table {
            ending,
            n,
            strong: r.strong,
            weak: r.weak,
        }
    }

    /// The ending.
    pub fn ending(&self) -> Ending {
        self.ending
    }

    /// Placements (valid or not) the table covers: 64 to the power of its pieces.
    pub fn size(&self) -> usize {
        self.strong.len()
    }

    /// Every placement's index, with the strong side to move: plies to mate, if won.
    pub fn strong_to_move(&self) -> impl Iterator<Item = (usize, u8)> + '_ {
        self.strong
            .iter()
            .enumerate()
            .filter(|(_, d)| **d != NONE)
            .map(|(i, d)| (i, *d))
    }

    /// The longest of the shortest mates, in plies (strong side to move).
    pub fn longest(&self) -> u8 {
        self.strong_to_move().map(|(_, d)| d).max().unwrap_or(0)
    }

    /// The position of placement `idx` (as [`Table::strong_to_move`] numbers them), White
    /// the strong side, `turn` to move. `None` when the placement is no legal position.
    pub fn position(&self, idx: usize, turn: Color) -> Option<Chess> {
        let sq = squares(idx, self.n);
        if sq[..self.n].iter().copied().collect::<Bitboard>().count() != self.n {
            return None;
        }
        let mut board = shakmaty::Board::empty();
        board.set_piece_at(sq[0], Role::King.of(Color::White));
        for (k, role) in self.ending.pieces().iter().enumerate() {
            board.set_piece_at(sq[k + 1], role.of(Color::White));
        }
        board.set_piece_at(sq[self.n - 1], Role::King.of(Color::Black));
        let setup = shakmaty::Setup {
            board,
            turn,
            ..shakmaty::Setup::empty()
        };
        Chess::from_setup(setup, shakmaty::CastlingMode::Standard).ok()
    }
}

/// What a table says of a position, for the side to move.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The side to move mates in this many plies against the best defence.
    Wins(u8),
    /// The side to move is mated in this many plies against the best attack (0: it is
    /// mated now).
    Loses(u8),
    /// Neither can force it: a draw.
    Draw,
}

/// The table's verdict on `pos` if it is one of the basic endings (either colour strong;
/// no castling rights), else `None`.
pub fn probe(pos: &Chess) -> Option<(Ending, Verdict)> {
    let board = pos.board();
    if board.occupied().count() > 4 || board.pawns().any() || pos.castles().any() {
        return None;
    }
    let strong = Color::ALL
        .into_iter()
        .find(|c| board.by_color(*c).count() > 1)?;
    if board.by_color(!strong).count() != 1 {
        return None;
    }
    let others = board.by_color(strong).without(board.king_of(strong)?);
    let mut pieces: Vec<(Role, Square)> = others
        .into_iter()
        .map(|sq| board.role_at(sq).map(|r| (r, sq)))
        .collect::<Option<_>>()?;
    let ending = Ending::of(pieces.iter().map(|(r, _)| *r).collect())?;
    // The table's order: bishop before knight.
    pieces.sort_by_key(|(r, _)| ending.pieces().iter().position(|p| p == r));
    let mut sq = vec![board.king_of(strong)?];
    sq.extend(pieces.iter().map(|(_, s)| *s));
    sq.push(board.king_of(!strong)?);
    let table = ending.table();
    let idx = index(&sq);
    let verdict = if pos.turn() == strong {
        match table.strong[idx] {
            NONE => Verdict::Draw,
            d => Verdict::Wins(d),
        }
    } else {
        match table.weak[idx] {
            NONE => Verdict::Draw,
            d => Verdict::Loses(d),
        }
    };
    Some((ending, verdict))
}

/// In a won basic ending with the winner to move: the moves that keep the shortest mate
/// (each with the plies to mate after it), and the ending; `None` otherwise.
pub fn winning_moves(pos: &Chess) -> Option<(Ending, u8, Vec<Move>)> {
    let (ending, Verdict::Wins(d)) = probe(pos)? else {
        return None;
    };
    let best: Vec<Move> = pos
        .legal_moves()
        .into_iter()
        .filter(|m| {
            let mut after = pos.clone();
            after.play_unchecked(*m);
            matches!(probe(&after), Some((_, Verdict::Loses(l))) if l + 1 == d)
        })
        .collect();
    // The table and shakmaty agree (tested), so a won position has a move that keeps it.
    (!best.is_empty()).then_some((ending, d, best))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn index_and_squares_round_trip() {
        for idx in [0usize, 1, 64 * 64 * 64 - 1, 123_456, 16_777_215] {
            let n = if idx < 64 * 64 * 64 { 3 } else { 4 };
            assert_eq!(index(&squares(idx, n)[..n]), idx);
        }
    }
}
