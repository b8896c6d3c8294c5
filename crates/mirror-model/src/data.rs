//! Training samples from games: every position where the player is to move, with the move
//! they played; and batches of them as tensors.

use burn::tensor::{Device, Int, Tensor, TensorData};
use mirror_core::GameRecord;
use shakmaty::{Color, Position};

use crate::encoding::{INPUT_LEN, encode_into, move_label};

/// Encoded positions and the moves played.
#[derive(Debug, Default, Clone)]
pub struct Samples {
    /// `len * INPUT_LEN` floats.
    pub inputs: Vec<f32>,
    /// From-square labels.
    pub from: Vec<i64>,
    /// To-square labels.
    pub to: Vec<i64>,
    /// The positions (for ranking legal moves when evaluating).
    pub positions: Vec<shakmaty::Chess>,
}

impl Samples {
    /// Number of samples.
    pub fn len(&self) -> usize {
        self.from.len()
    }

    /// No samples.
    pub fn is_empty(&self) -> bool {
        self.from.is_empty()
    }

    /// Adds every position of `game` where the player (with `color`) moved; `keep` may skip
    /// some (e.g. positions inside the player's book).
    pub fn add_game(
        &mut self,
        game: &GameRecord,
        color: Color,
        mut keep: impl FnMut(&shakmaty::Chess) -> bool,
    ) {
        let mut buf = vec![0.0f32; INPUT_LEN];
        for ply in game.replay() {
            let Ok(ply) = ply else { break };
            if ply.pos.turn() != color || !keep(&ply.pos) {
                continue;
            }
            let Some((f, t)) = move_label(&ply.mv, color) else {
                continue;
            };
            encode_into(&ply.pos, &mut buf);
            self.inputs.extend_from_slice(&buf);
            self.from.push(f as i64);
            self.to.push(t as i64);
            self.positions.push(ply.pos);
        }
    }

    /// A copy of the samples at `idx`, in that order.
    pub fn subset(&self, idx: &[usize]) -> Samples {
        let mut out = Samples::default();
        for &i in idx {
            out.inputs
                .extend_from_slice(&self.inputs[i * INPUT_LEN..(i + 1) * INPUT_LEN]);
            out.from.push(self.from[i]);
            out.to.push(self.to[i]);
            out.positions.push(self.positions[i].clone());
        }
        out
    }

    /// The samples at `idx` as (input `[n, 14, 8, 8]`, from `[n]`, to `[n]`) tensors.
    pub fn batch(
        &self,
        idx: &[usize],
        device: &Device,
    ) -> (Tensor<4>, Tensor<1, Int>, Tensor<1, Int>) {
        let n = idx.len();
        let mut x = Vec::with_capacity(n * INPUT_LEN);
        let mut f = Vec::with_capacity(n);
        let mut t = Vec::with_capacity(n);
        for &i in idx {
            x.extend_from_slice(&self.inputs[i * INPUT_LEN..(i + 1) * INPUT_LEN]);
            f.push(self.from[i]);
            t.push(self.to[i]);
        }
        (
            Tensor::from_data(TensorData::new(x, [n, 14, 8, 8]), device),
            Tensor::from_data(TensorData::new(f, [n]), device),
            Tensor::from_data(TensorData::new(t, [n]), device),
        )
    }
}
