//! Training samples from games: every position where the player is to move, with the
//! opponent's move before it and the move they played; and batches of them as tensors.

use burn::tensor::{Device, Int, Tensor, TensorData};
use mirror_core::GameRecord;
use shakmaty::{Chess, Color, Move, Position};

use crate::encoding::{INPUT_LEN, PLANES, Packed, encode_packed, move_index, unpack_into};

/// Encoded positions (one bit per square and plane) and the moves played.
#[derive(Debug, Default, Clone)]
pub struct Samples {
    /// The planes of each position.
    pub packed: Vec<Packed>,
    /// The index of the move played (`encoding::move_index`).
    pub label: Vec<i64>,
    /// The positions (for ranking legal moves when evaluating).
    pub positions: Vec<Chess>,
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
            self.positions.push(ply.pos);
        }
    }

    /// A copy of the samples at `idx`, in that order.
    pub fn subset(&self, idx: &[usize]) -> Samples {
        Samples {
            packed: idx.iter().map(|&i| self.packed[i]).collect(),
            label: idx.iter().map(|&i| self.label[i]).collect(),
            positions: idx.iter().map(|&i| self.positions[i].clone()).collect(),
        }
    }

    /// The inputs at `idx` as a `[n, PLANES, 8, 8]` tensor.
    pub fn inputs(&self, idx: &[usize], device: &Device) -> Tensor<4> {
        inputs(idx.iter().map(|&i| &self.packed[i]), idx.len(), device)
    }

    /// The samples at `idx` as (input `[n, PLANES, 8, 8]`, label `[n]`) tensors.
    pub fn batch(&self, idx: &[usize], device: &Device) -> (Tensor<4>, Tensor<1, Int>) {
        let labels: Vec<i64> = idx.iter().map(|&i| self.label[i]).collect();
        (
            self.inputs(idx, device),
            Tensor::from_data(TensorData::new(labels, [idx.len()]), device),
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
