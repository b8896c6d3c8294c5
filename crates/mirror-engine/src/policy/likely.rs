//! `likely`: always the move `habit` finds likeliest (deterministic; the model breaks ties
//! between moves played equally often).

use shakmaty::Move;

/// The answer when the model cannot change it: the heaviest book move outweighs the
/// runner-up, and any move the prior alone could lift, by more than the prior (a server
/// then answers book positions without running the network). `None`: ask the blend.
pub fn without_model(book: &[(Move, f64)], prior: f64) -> Option<Move> {
    let mut w: Vec<(Move, f64)> = book.to_vec();
    w.sort_by(|a, b| b.1.total_cmp(&a.1));
    let (best, games) = *w.first()?;
    let second = w.get(1).map_or(0.0, |(_, g)| *g);
    (games > second + prior && games > prior).then_some(best)
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn decides_alone_only_when_the_prior_cannot_matter() {
        let legal = Chess::default().legal_moves();
        let (a, b) = (legal[0], legal[1]);
        assert_eq!(without_model(&[(a, 5.0), (b, 3.0)], 1.0), Some(a));
        // A lead of exactly the prior: the model could tie it.
        assert_eq!(without_model(&[(a, 4.0), (b, 3.0)], 1.0), None);
        // One game against a prior of one game: an unplayed move could match it.
        assert_eq!(without_model(&[(a, 1.0)], 1.0), None);
        assert_eq!(without_model(&[(a, 2.0)], 1.0), Some(a));
        assert_eq!(without_model(&[], 1.0), None);
    }
}
