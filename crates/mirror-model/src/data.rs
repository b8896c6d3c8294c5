//! Training samples from games: every position where the player is to move, with the
//! opponent's move before it, the move they played and how the game ended for them; and
//! batches of them as tensors.

use burn::tensor::{Device, Int, Tensor, TensorData};
use mirror_core::{GameRecord, Outcome};
use shakmaty::{Chess, Color, Move, Position};

use crate::encoding::{INPUT_LEN, PLANES, Packed, encode_packed, move_index, unpack_into};

/// Encoded positions (one bit per square and plane) and the moves played.
#[derive(Debug, Default, Clone)]
pub struct Samples {
    /// The planes of each position.
    pub packed: Vec<Packed>,
    /// The index of the move played (`encoding::move_index`).
    pub label: Vec<i64>,
    /// How each game ended for the side to move ([`outcome_index`]), what the value head
    /// learns.
    pub outcome: Vec<i64>,
    /// The positions (for ranking legal moves when evaluating).
    pub positions: Vec<Chess>,
}

/// The value head's index of an outcome for the side to move: 0 loss, 1 draw, 2 win.
pub fn outcome_index(outcome: Outcome) -> i64 {
    match outcome {
        Outcome::Loss => 0,
        Outcome::Draw => 1,
        Outcome::Win => 2,
    }
}

impl Samples {
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.label.len()
    }

    /// No samples.
    pub fn is_empty(&self) -> bool {
        self.label.is_empty()
    }

    /// Adds every position of `game` where the player (with `color`) moved; `keep` may skip
    /// some (e.g. positions inside the player's book).
    pub fn add_game(
        &mut self,
        game: &GameRecord,
        color: Color,
        mut keep: impl FnMut(&Chess) -> bool,
    ) {
        let mut last: Option<Move> = None;
        let outcome = outcome_index(game.result.outcome_for(color));
        for ply in game.replay() {
            let Ok(ply) = ply else { break };
            let before = last.replace(ply.mv);
            if ply.pos.turn() != color || !keep(&ply.pos) {
                continue;
            }
            let Some(label) = move_index(&ply.mv, color) else {
                continue;
            };
            self.packed.push(encode_packed(&ply.pos, before.as_ref()));
            self.label.push(label as i64);
            self.outcome.push(outcome);
            self.positions.push(ply.pos);
        }
    }

    /// A copy of the samples at `idx`, in that order.
    pub fn subset(&self, idx: &[usize]) -> Samples {
        Samples {
            packed: idx.iter().map(|&i| self.packed[i]).collect(),
            label: idx.iter().map(|&i| self.label[i]).collect(),
            outcome: idx.iter().map(|&i| self.outcome[i]).collect(),
            positions: idx.iter().map(|&i| self.positions[i].clone()).collect(),
        }
    }

    /// The inputs at `idx` as a `[n, PLANES, 8, 8]` tensor.
    pub fn inputs(&self, idx: &[usize], device: &Device) -> Tensor<4> {
        inputs(idx.iter().map(|&i| &self.packed[i]), idx.len(), device)
    }

    /// The samples at `idx` as (input `[n, PLANES, 8, 8]`, move label `[n]`, outcome
    /// `[n]`) tensors.
    pub fn batch(
        &self,
        idx: &[usize],
        device: &Device,
    ) -> (Tensor<4>, Tensor<1, Int>, Tensor<1, Int>) {
        let ints = |of: &[i64]| {
            let v: Vec<i64> = idx.iter().map(|&i| of[i]).collect();
            Tensor::from_data(TensorData::new(v, [idx.len()]), device)
        };
        (
            self.inputs(idx, device),
            ints(&self.label),
            ints(&self.outcome),
        )
    }
}

/// `n` packed positions as a `[n, PLANES, 8, 8]` float tensor.
pub fn inputs<'a>(
    packed: impl Iterator<Item = &'a Packed>,
    n: usize,
    device: &Device,
) -> Tensor<4> {
    let mut x = vec![0.0f32; n * INPUT_LEN];
    for (i, p) in packed.enumerate() {
        unpack_into(p, &mut x[i * INPUT_LEN..(i + 1) * INPUT_LEN]);
    }
    Tensor::from_data(TensorData::new(x, [n, PLANES, 8, 8]), device)
}
