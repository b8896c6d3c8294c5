//! `lower`: the book move whose score has the highest 95% lower bound (Wilson interval),
//! so that a move won once (score 1.0, lower bound 0.21) no longer outranks a move scored
//! 30/50 (0.6, lower bound 0.46). Deterministic; ties go to the move played more often.

use shakmaty::Move;

use super::BookMove;

/// The book moves with at least `min_games` games, best lower bound first (ties: more
/// games, then the stored move order), each with its lower bound.
pub fn rank(book: &[BookMove], min_games: u32) -> Vec<(Move, f64)> {
    let mut ranked: Vec<(&BookMove, f64)> = book
        .iter()
        .filter(|c| c.stats.games() >= min_games.max(1))
        .filter_map(|c| Some((c, c.stats.score_interval()?.low)))
        .collect();
    ranked.sort_by(|a, b| {
        b.1.total_cmp(&a.1)
            .then_with(|| b.0.stats.games().cmp(&a.0.stats.games()))
            .then_with(|| a.0.code.cmp(&b.0.code))
    });
    ranked.into_iter().map(|(c, low)| (c.mv, low)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirror_core::{MoveCode, MoveStats};
    use shakmaty::{Chess, Position};

    fn book_move(i: usize, wins: u32, draws: u32, losses: u32) -> BookMove {
        let legal = Chess::default().legal_moves();
        BookMove {
            mv: legal[i],
            code: MoveCode(i as u16),
            stats: MoveStats {
                wins,
                draws,
                losses,
                ..MoveStats::default()
            },
        }
    }

    #[test]
    fn a_surer_move_beats_a_lucky_one() {
        let once = book_move(0, 1, 0, 0);
        let steady = book_move(1, 25, 10, 15);
        let r = rank(&[once, steady], 1);
        assert_eq!(r[0].0, steady.mv, "{r:?}");
        assert!((r[0].1 - 0.4618).abs() < 1e-4 && (r[1].1 - 0.2065).abs() < 1e-4);
        // With a minimum of games the lucky move is not even considered.
        assert_eq!(rank(&[once, steady], 2).len(), 1);
        // Equal bounds: the move played more often.
        let a = book_move(2, 2, 0, 2);
        let b = book_move(3, 1, 0, 1);
        let r = rank(&[b, a], 1);
        assert!(r[0].1 > r[1].1 || r[0].0 == a.mv);
        assert!(rank(&[], 1).is_empty());
    }
}
