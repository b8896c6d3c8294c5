//! `habit`: the player's moves sampled by how often they played each (recent games may
//! weigh more), with the model's probabilities over every legal move added as `prior`
//! pseudo-games, so that a move played once and a move the model likes can both come, as
//! with the player.

use shakmaty::{Move, MoveList};

/// The blend over the legal moves, likeliest first (ties by UCI), summing to 1: each move
/// weighs its (weighted) games in `book` plus `prior` times its probability under `model`
/// (uniform when there is no model). Moves of weight 0 are left out; empty when `book` is.
pub fn blend(
    book: &[(Move, f64)],
    legal: &MoveList,
    prior: f64,
    model: Option<&[(Move, f64)]>,
) -> Vec<(Move, f64)> {
    if book.is_empty() {
        return Vec::new();
    }
    let uniform = 1.0 / legal.len().max(1) as f64;
    let mut dist: Vec<(Move, f64, String)> = legal
        .iter()
        .map(|m| {
            let games = book.iter().find(|(b, _)| b == m).map_or(0.0, |(_, g)| *g);
            let p = model.map_or(uniform, |ps| {
                ps.iter().find(|(b, _)| b == m).map_or(0.0, |(_, p)| *p)
            });
            (*m, games + prior * p, mirror_core::notation::uci(*m))
        })
        .filter(|(_, w, _)| *w > 0.0)
        .collect();
    let total: f64 = dist.iter().map(|(_, w, _)| w).sum();
    dist.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.2.cmp(&b.2)));
    dist.into_iter().map(|(m, w, _)| (m, w / total)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn shares_of_games_plus_the_prior() {
        let pos = Chess::default();
        let legal = pos.legal_moves();
        let (a, b) = (legal[0], legal[1]);
        // No prior: the shares of games.
        let d = blend(&[(a, 3.0), (b, 1.0)], &legal, 0.0, None);
        assert_eq!(d, vec![(a, 0.75), (b, 0.25)]);
        // A uniform prior of 20 pseudo-games: every legal move gets 1 of them.
        let d = blend(&[(a, 3.0), (b, 1.0)], &legal, 20.0, None);
        assert_eq!(d.len(), 20);
        assert!((d[0].1 - 4.0 / 24.0).abs() < 1e-12);
        assert!((d.iter().map(|(_, p)| p).sum::<f64>() - 1.0).abs() < 1e-12);
        // The model's own probabilities instead of uniform.
        let model = [(a, 0.5), (b, 0.5)];
        let d = blend(&[(a, 1.0)], &legal, 2.0, Some(&model));
        assert_eq!(d, vec![(a, 2.0 / 3.0), (b, 1.0 / 3.0)]);
        assert!(blend(&[], &legal, 1.0, None).is_empty());
    }
}
