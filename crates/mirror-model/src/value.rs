//! The value head judged: how well its outcome probabilities (loss, draw, win for the side
//! to move) match how the games really ended, as log-loss and Brier score, beside two
//! baselines that see less: the material on the board alone (the outcome shares of the
//! training positions with the same material balance), and no position at all (the
//! training positions' outcome shares).

use std::collections::BTreeMap;

use burn::{module::Module, tensor::Device};
use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Color, Position, Role};

use crate::{data::Samples, model::Net, model::OUTCOMES};

/// Outcome probabilities for the side to move: loss, draw, win.
pub type Outcomes = [f64; OUTCOMES];

/// How well some probabilities foretold the outcomes.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// Mean negative log-likelihood of the real outcome (natural log; ln 3 = 1.099 for
    /// "no idea").
    pub log_loss: f64,
    /// Mean Brier score over the three outcomes (0 perfect, 2 always sure and wrong).
    pub brier: f64,
}

/// The value head's calibration on a model's validation positions, beside the baselines
/// (kept in its `meta.json`).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ValueFigures {
    /// Validation positions judged.
    pub positions: usize,
    /// The value head.
    pub model: Calibration,
    /// The outcome shares of training positions with the same material balance.
    pub material: Calibration,
    /// The outcome shares of all training positions.
    pub shares: Calibration,
}

/// The log-loss and Brier score of `probs` against the `outcomes` (indices as
/// [`crate::data::outcome_index`]); `None` when there are none.
pub fn calibration(probs: &[Outcomes], outcomes: &[i64]) -> Option<Calibration> {
    if probs.is_empty() || probs.len() != outcomes.len() {
        return None;
    }
    let (mut log_loss, mut brier) = (0.0, 0.0);
    for (p, &o) in probs.iter().zip(outcomes) {
        let o = usize::try_from(o).ok().filter(|&o| o < OUTCOMES)?;
        log_loss -= p[o].max(1e-12).ln();
        brier += (0..OUTCOMES)
            .map(|k| (p[k] - f64::from(u8::from(k == o))).powi(2))
            .sum::<f64>();
    }
    let n = probs.len() as f64;
    Some(Calibration {
        log_loss: log_loss / n,
        brier: brier / n,
    })
}

/// The side to move's material minus the opponent's, in pawns (1, 3, 3, 5, 9).
pub fn material_balance(pos: &Chess) -> i32 {
    let board = pos.board();
    let of = |color: Color| -> i32 {
        [
            (Role::Pawn, 1),
            (Role::Knight, 3),
            (Role::Bishop, 3),
            (Role::Rook, 5),
            (Role::Queen, 9),
        ]
        .iter()
        .map(|&(role, worth)| worth * board.by_piece(role.of(color)).count() as i32)
        .sum()
    };
    of(pos.turn()) - of(!pos.turn())
}

/// Balances further apart than this share one bucket.
const MATERIAL_CLAMP: i32 = 10;

/// The material baseline: the outcome shares of training positions by material balance
/// (clamped to +-10 pawns; a balance never seen takes all positions' shares), each count
/// starting at one so that no outcome is impossible.
#[derive(Clone, Debug)]
pub struct MaterialBaseline {
    by_balance: BTreeMap<i32, [f64; OUTCOMES]>,
    all: [f64; OUTCOMES],
}

impl MaterialBaseline {
    /// Counts the outcomes of `samples` by material balance.
    pub fn fit(samples: &Samples) -> MaterialBaseline {
        let mut by_balance: BTreeMap<i32, [f64; OUTCOMES]> = BTreeMap::new();
        let mut all = [1.0; OUTCOMES];
        for (pos, &o) in samples.positions.iter().zip(&samples.outcome) {
            let Some(o) = usize::try_from(o).ok().filter(|&o| o < OUTCOMES) else {
                continue;
            };
            let balance = material_balance(pos).clamp(-MATERIAL_CLAMP, MATERIAL_CLAMP);
            by_balance.entry(balance).or_insert([1.0; OUTCOMES])[o] += 1.0;
            all[o] += 1.0;
        }
        MaterialBaseline { by_balance, all }
    }

    /// The outcome probabilities of a position with this material balance.
    pub fn predict(&self, pos: &Chess) -> Outcomes {
        let balance = material_balance(pos).clamp(-MATERIAL_CLAMP, MATERIAL_CLAMP);
        normalised(self.by_balance.get(&balance).unwrap_or(&self.all))
    }

    /// All positions' outcome shares, whatever the position.
    pub fn shares(&self) -> Outcomes {
        normalised(&self.all)
    }
}

fn normalised(counts: &[f64; OUTCOMES]) -> Outcomes {
    let sum: f64 = counts.iter().sum();
    counts.map(|c| c / sum)
}

/// The softmax of one position's outcome logits.
pub fn outcome_probs(logits: &[f32]) -> Outcomes {
    let top = logits.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let mut out = [0.0; OUTCOMES];
    for (o, &l) in out.iter_mut().zip(logits) {
        *o = f64::from(l - top).exp();
    }
    let sum: f64 = out.iter().sum();
    out.map(|p| p / sum)
}

/// The value head's outcome probabilities of every sample; `None` without a value head.
pub fn value_probs(net: &Net, samples: &Samples) -> Option<Vec<Outcomes>> {
    if !net.has_value_head() {
        return None;
    }
    let infer = net.valid();
    let device = Device::flex();
    let idx: Vec<usize> = (0..samples.len()).collect();
    let mut out = Vec::with_capacity(samples.len());
    for chunk in idx.chunks(512) {
        let (_, value) = infer.forward_both(samples.inputs(chunk, &device));
        let logits = value?
            .into_data()
            .try_to_vec::<f32>()
            .expect("the value head outputs f32 logits");
        out.extend(logits.chunks_exact(OUTCOMES).map(outcome_probs));
    }
    Some(out)
}

/// The value head's calibration on `val` beside the baselines fitted on `train`; `None`
/// without a value head or validation positions.
pub fn value_figures(net: &Net, train: &Samples, val: &Samples) -> Option<ValueFigures> {
    let probs = value_probs(net, val)?;
    let baseline = MaterialBaseline::fit(train);
    let material: Vec<Outcomes> = val.positions.iter().map(|p| baseline.predict(p)).collect();
    let shares = vec![baseline.shares(); val.len()];
    Some(ValueFigures {
        positions: val.len(),
        model: calibration(&probs, &val.outcome)?,
        material: calibration(&material, &val.outcome)?,
        shares: calibration(&shares, &val.outcome)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibration_scores_sure_right_sure_wrong_and_no_idea() {
        let sure_win = [0.0, 0.0, 1.0];
        let right = calibration(&[sure_win], &[2]).expect("one outcome");
        assert!(right.log_loss.abs() < 1e-9 && right.brier.abs() < 1e-9);
        let wrong = calibration(&[sure_win], &[0]).expect("one outcome");
        assert!((wrong.brier - 2.0).abs() < 1e-9);
        assert!(wrong.log_loss > 20.0);
        let third = 1.0 / 3.0;
        let none = calibration(&[[third; 3]], &[1]).expect("one outcome");
        assert!((none.log_loss - 3f64.ln()).abs() < 1e-9);
        assert!((none.brier - 2.0 / 3.0).abs() < 1e-9);
        assert_eq!(calibration(&[], &[]), None);
        assert_eq!(calibration(&[sure_win], &[3]), None, "no fourth outcome");
    }

    #[test]
    fn the_material_balance_is_the_side_to_moves() {
        let start = Chess::default();
        assert_eq!(material_balance(&start), 0);
        // 1. e4 d5 2. exd5: White is a pawn up, Black to move.
        let (pos, _) = mirror_core::notation::play_moves("e4 d5 exd5").expect("legal moves");
        assert_eq!(material_balance(&pos), -1);
    }

    #[test]
    fn outcome_probabilities_sum_to_one() {
        let p = outcome_probs(&[2.0, -1.0, 0.5]);
        assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert!(p[0] > p[2] && p[2] > p[1]);
    }
}
