//! A blunder guard for the model's moves: a short capture-only search (quiescence) that
//! tells how much material a move gives away. The model ranks moves like the player; the
//! guard skips those of its top choices that lose clearly more material than the best of
//! them, the kind of one-move blunder a club player rarely makes.

use shakmaty::{Chess, Move, Position, Role};

/// How the guard checks the model's choices.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Guard {
    /// How many of the model's best moves are checked.
    pub top: usize,
    /// Centipawns of material a move may lose against the best checked one.
    pub margin: i32,
}

impl Default for Guard {
    /// The model's top 64 (in practice every legal move), half a pawn: the model's best
    /// move among those that keep the most material. Chosen on the validation games of
    /// the shared player (see `mirror eval` in docs/eval.md).
    fn default() -> Self {
        Guard {
            top: 64,
            margin: 50,
        }
    }
}

/// Centipawn value of a piece.
fn value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight | Role::Bishop => 300,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 0,
    }
}

const MATE: i32 = 100_000;

/// Material of the side to move minus the other side's, in centipawns.
fn material(pos: &Chess) -> i32 {
    let board = pos.board();
    let us = pos.turn();
    board
        .iter()
        .map(|(_, piece)| {
            let v = value(piece.role);
            if piece.color == us { v } else { -v }
        })
        .sum()
}

/// Positions the guard may expand for one choice, all its checked moves together (each
/// gets an equal share): far more than real games need (the most any position of the
/// shared player's 27k games used was about 1/20 of a move's share), while a position
/// made of captures (nine queens a side) stops there instead of searching for a second.
pub const NODE_BUDGET: u32 = 64 * 300;

/// Capture-only negamax with alpha-beta from the side to move's point of view; a node
/// past the budget stands pat.
fn quiesce(pos: &Chess, mut alpha: i32, beta: i32, depth: u32, budget: &mut u32) -> i32 {
    if *budget == 0 {
        return material(pos);
    }
    *budget -= 1;
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return if pos.is_check() { -MATE } else { 0 };
    }
    let stand = material(pos);
    if depth == 0 || stand >= beta {
        return stand;
    }
    alpha = alpha.max(stand);
    let mut captures: Vec<&Move> = moves
        .iter()
        .filter(|m| m.is_capture() || m.is_promotion())
        .collect();
    // Most valuable victim first.
    captures.sort_by_key(|m| -m.capture().map_or(0, value));
    for m in captures {
        let mut next = pos.clone();
        next.play_unchecked(*m);
        let score = -quiesce(&next, -beta, -alpha, depth - 1, budget);
        if score >= beta {
            return score;
        }
        alpha = alpha.max(score);
    }
    alpha
}

/// The material balance (mover's side minus the other, centipawns) after `mv` once the
/// captures settle; a mate delivered counts as a huge gain, allowing a mate in one as a
/// huge loss. Expands at most one move's share of [`NODE_BUDGET`].
pub fn settle(pos: &Chess, mv: Move) -> i32 {
    settle_within(pos, mv, NODE_BUDGET / 64).0
}

/// [`settle`] expanding at most `budget` positions; with the budget left.
fn settle_within(pos: &Chess, mv: Move, mut budget: u32) -> (i32, u32) {
    let mut next = pos.clone();
    next.play_unchecked(mv);
    if next.is_checkmate() {
        return (MATE, budget);
    }
    let allows_mate = next.legal_moves().iter().any(|r| {
        let mut after = next.clone();
        after.play_unchecked(*r);
        after.is_checkmate()
    });
    if allows_mate {
        return (-MATE, budget);
    }
    let score = -quiesce(&next, -MATE - 1, MATE + 1, 6, &mut budget);
    (score, budget)
}

/// The settled material of each of the first `top` moves of `ranked`, each within its
/// share of [`NODE_BUDGET`], and the positions expanded in all.
fn scores(pos: &Chess, ranked: &[Move], top: usize) -> (Vec<i32>, u32) {
    let checked = ranked.len().min(top).max(1);
    let share = NODE_BUDGET / u32::try_from(checked).unwrap_or(u32::MAX).max(1);
    let mut used = 0;
    let scores = ranked
        .iter()
        .take(top)
        .map(|m| {
            let (score, left) = settle_within(pos, *m, share);
            used += share - left;
            score
        })
        .collect();
    (scores, used)
}

/// Which of the first `top` moves of `ranked` the guard lets through: those whose settled
/// material is within `margin` centipawns of the best of them (at least one).
pub fn acceptable(pos: &Chess, ranked: &[Move], top: usize, margin: i32) -> Vec<bool> {
    let scores = scores(pos, ranked, top).0;
    let best = scores.iter().max().copied().unwrap_or(0);
    scores.iter().map(|s| *s >= best - margin).collect()
}

/// Index into `ranked` (best first) of the first move whose settled material is within
/// `margin` centipawns of the best of the first `top` moves; 0 when the list is empty.
pub fn guarded_choice(pos: &Chess, ranked: &[Move], top: usize, margin: i32) -> usize {
    acceptable(pos, ranked, top, margin)
        .iter()
        .position(|ok| *ok)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirror_core::notation::{parse_fen, parse_move};

    #[test]
    fn hanging_the_queen_is_seen_and_skipped() {
        // Qd3xh7?? Rxh7: a queen for a pawn; Nf3 keeps the balance.
        let pos = parse_fen("rnbqkbnr/ppp2ppp/3p4/4p3/3P4/3Q4/PPP1PPPP/RNB1KBNR w KQkq - 0 4")
            .expect("fen");
        let blunder = parse_move(&pos, "Qxh7").expect("legal");
        let quiet = parse_move(&pos, "Nf3").expect("legal");
        assert_eq!(settle(&pos, blunder), -800);
        assert_eq!(settle(&pos, quiet), 0);
        assert_eq!(guarded_choice(&pos, &[blunder, quiet], 5, 200), 1);
        // A small loss within the margin keeps the model's first choice.
        assert_eq!(guarded_choice(&pos, &[quiet, blunder], 5, 200), 0);
        // Winning material is fine: a free queen.
        let free = parse_fen("4k3/8/8/3q4/8/8/8/3RK3 w - - 0 1").expect("fen");
        let take = parse_move(&free, "Rxd5").expect("legal");
        assert_eq!(settle(&free, take), 500);
        // Mate counts as the best outcome, allowing one as the worst.
        let mate = parse_fen("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1").expect("fen");
        let ra8 = parse_move(&mate, "Ra8#").expect("legal");
        assert_eq!(settle(&mate, ra8), MATE);
        // Back rank: Nb5?? allows Ra1#; h3 makes room (knight and pawns for the rook).
        let back = parse_fen("r5k1/8/8/8/3N4/8/5PPP/6K1 w - - 0 1").expect("fen");
        let nb5 = parse_move(&back, "Nb5").expect("legal");
        let h3 = parse_move(&back, "h3").expect("legal");
        assert_eq!(settle(&back, nb5), -MATE);
        assert_eq!(settle(&back, h3), 100);
        assert_eq!(guarded_choice(&back, &[nb5, h3], 5, 200), 1);
    }

    fn nine_queens() -> Vec<Chess> {
        include_str!("../data/nine-queens.fen")
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            .map(|l| parse_fen(l).expect("fen"))
            .collect()
    }

    /// Positions made of captures: the guard stops at its budget, where an unbounded
    /// search expands many times more (the cost the budget cuts).
    #[test]
    fn a_position_of_captures_stays_within_the_budget() {
        let mut unbounded_most = 0;
        for pos in nine_queens() {
            let ranked: Vec<Move> = pos.legal_moves().into_iter().collect();
            let (_, used) = scores(&pos, &ranked, 64);
            assert!(used <= NODE_BUDGET, "{used}");
            let unbounded: u32 = ranked
                .iter()
                .take(64)
                .map(|m| u32::MAX - settle_within(&pos, *m, u32::MAX).1)
                .sum();
            unbounded_most = unbounded_most.max(unbounded);
        }
        assert!(unbounded_most > 10 * NODE_BUDGET, "{unbounded_most}");
    }

    /// In real games the budget changes nothing: every position of the first 60 games of
    /// the shared player, every legal move checked, judged as without a budget.
    #[test]
    fn real_positions_are_judged_as_without_a_budget() {
        let pgn = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../../shared/data/pgn/single-player/biskupstunga_first500.pgn"
        ))
        .expect("read");
        let mut positions = 0;
        for item in mirror_core::pgn::read_games(pgn.as_slice()).take(60) {
            let mirror_core::pgn::Decoded::Game(g) = item.expect("io").1 else {
                continue;
            };
            let mut pos = Chess::default();
            for code in &g.moves {
                let ranked: Vec<Move> = pos.legal_moves().into_iter().collect();
                let bounded = acceptable(&pos, &ranked, 64, 50);
                let scores: Vec<i32> = ranked
                    .iter()
                    .take(64)
                    .map(|m| settle_within(&pos, *m, u32::MAX).0)
                    .collect();
                let best = scores.iter().max().copied().unwrap_or(0);
                let unbounded: Vec<bool> = scores.iter().map(|s| *s >= best - 50).collect();
                assert_eq!(bounded, unbounded, "{}", g.id.0);
                positions += 1;
                pos.play_unchecked(code.to_move(&pos).expect("legal"));
            }
        }
        assert!(positions > 3000, "{positions}");
    }
}
