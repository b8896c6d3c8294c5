//! The engine's draw, a leaf every policy and fallback draws through: which of some
//! moves a uniform number picks, and a fallback's moves before that draw. Nothing of the
//! engine is imported here.

use shakmaty::Move;

/// The draw rule of [`Outcomes::index`](crate::Outcomes::index), for whoever keeps outcomes in another form (a
/// server keeps each move's answer already written): with `draws`, the index of the first
/// of `probabilities` whose cumulative sum passes `u` (the last takes what rounding
/// leaves); without, 0.
pub fn draw_index(draws: bool, probabilities: impl IntoIterator<Item = f64>, u: f64) -> usize {
    if !draws {
        return 0;
    }
    let (mut acc, mut last) = (0.0, 0);
    for (i, p) in probabilities.into_iter().enumerate() {
        acc += p;
        if u < acc {
            return i;
        }
        last = i;
    }
    last
}

/// A fallback's answer before its draw (see [`Fallback::outcomes`](crate::Fallback::outcomes)).
#[derive(Clone, Debug, PartialEq)]
pub struct FallbackOutcomes {
    /// Whether it draws (samples); without, it plays the first move.
    pub draws: bool,
    /// Each move it may play, with its probability (all above 0) and the detail its choice
    /// shows, in the order of the draw.
    pub moves: Vec<(Move, f64, String)>,
}

impl FallbackOutcomes {
    /// The move played for the uniform number `u` in `[0, 1)`, and its detail.
    pub fn draw(mut self, u: f64) -> (Move, String) {
        let i = draw_index(self.draws, self.moves.iter().map(|m| m.1), u);
        let (m, _, detail) = self.moves.swap_remove(i);
        (m, detail)
    }
}
