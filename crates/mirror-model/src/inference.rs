//! Loading a saved model and choosing moves with it: the legal move with the highest
//! from-logit + to-logit (promotions: the queen unless the player's file says otherwise).

use std::path::{Path, PathBuf};

use burn::{
    module::Module,
    tensor::{Device, Tensor, TensorData},
};
use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Move, Position, Role};

use crate::{
    encoding::{ENCODING_VERSION, INPUT_LEN, encode_into, move_label},
    model::{Net, NetConfig},
};

/// Errors of loading or saving a model.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// A file could not be read or written.
    #[error("model file {path}: {source}")]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Too few games to train on.
    #[error("{player} has only {games} games; training needs at least 30")]
    TooFewGames {
        /// The player.
        player: String,
        /// Their games.
        games: usize,
    },
    /// The split leaves no validation games.
    #[error("the split {0} leaves no validation games: early stopping needs some")]
    NoValidationGames(String),
    /// The model was saved with another encoding.
    #[error(
        "model {path} uses encoding version {found}, this mirror reads {expected}: train it again"
    )]
    Encoding {
        /// The directory.
        path: PathBuf,
        /// In the file.
        found: u32,
        /// This build.
        expected: u32,
    },
}

/// What is saved beside the weights (`meta.json`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ModelMeta {
    /// Encoding version.
    pub encoding_version: u32,
    /// Hidden channels.
    pub channels: usize,
    /// Hidden layers.
    pub layers: usize,
    /// The player.
    pub player: String,
    /// Games in the training split.
    pub train_games: usize,
    /// Games in the validation split.
    pub val_games: usize,
    /// Games in the test split.
    pub test_games: usize,
    /// First and last date of the training games (`YYYY-MM-DD`).
    pub train_dates: (String, String),
    /// Training positions used.
    pub train_positions: usize,
    /// Epochs run.
    pub epochs: usize,
    /// Seed.
    pub seed: u64,
    /// Validation top-1 and top-3 (legal-move ranking).
    pub val_top1: f64,
    /// Validation top-3.
    pub val_top3: f64,
    /// Test top-1.
    pub test_top1: f64,
    /// Test top-3.
    pub test_top3: f64,
}

/// Logits of one position (from-square, to-square).
type Logits = ([f32; 64], [f32; 64]);

/// Positions whose logits are remembered by [`Predictor::rank`] (about 10 MiB); when full,
/// the memory starts again.
const CACHE_POSITIONS: usize = 20_000;

/// A loaded model ready to choose moves. It can be shared between threads; single-position
/// answers are cached by position (the same position always gets the same answer).
#[derive(Debug)]
pub struct Predictor {
    net: Net,
    device: Device,
    cache: std::sync::Mutex<std::collections::HashMap<u64, Logits>>,
    /// Its metadata.
    pub meta: ModelMeta,
}

const WEIGHTS: &str = "model.bpk";
const META: &str = "meta.json";

fn file_err(path: &Path, e: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> ModelError {
    ModelError::File {
        path: path.to_path_buf(),
        source: e.into(),
    }
}

/// Saves `net` (an inference copy is taken) and `meta` into `dir`.
pub fn save(net: &Net, meta: &ModelMeta, dir: &Path) -> Result<(), ModelError> {
    std::fs::create_dir_all(dir).map_err(|e| file_err(dir, e))?;
    let weights = dir.join(WEIGHTS);
    net.clone()
        .save_file(&weights)
        .map_err(|e| file_err(&weights, format!("{e:?}")))?;
    let meta_path = dir.join(META);
    let text = serde_json::to_string_pretty(meta).map_err(|e| file_err(&meta_path, e))?;
    std::fs::write(&meta_path, text).map_err(|e| file_err(&meta_path, e))
}

impl Predictor {
    /// Wraps a network (used in evaluation right after training).
    pub fn from_net(net: Net, meta: ModelMeta) -> Predictor {
        Predictor {
            net: net.valid(),
            device: Device::flex(),
            cache: Default::default(),
            meta,
        }
    }

    /// Loads the model saved in `dir`.
    pub fn load(dir: &Path) -> Result<Predictor, ModelError> {
        let meta_path = dir.join(META);
        let text = std::fs::read_to_string(&meta_path).map_err(|e| file_err(&meta_path, e))?;
        let meta: ModelMeta = serde_json::from_str(&text).map_err(|e| file_err(&meta_path, e))?;
        if meta.encoding_version != ENCODING_VERSION {
            return Err(ModelError::Encoding {
                path: dir.to_path_buf(),
                found: meta.encoding_version,
                expected: ENCODING_VERSION,
            });
        }
        let device = Device::flex();
        let weights = dir.join(WEIGHTS);
        let net = NetConfig::new()
            .with_channels(meta.channels)
            .with_layers(meta.layers)
            .init(&device)
            .try_load_file(&weights)
            .map_err(|e| file_err(&weights, format!("{e:?}")))?;
        Ok(Predictor {
            net: net.valid(),
            device,
            cache: Default::default(),
            meta,
        })
    }

    /// From and to logits for each position.
    pub fn logits(&self, positions: &[&Chess]) -> Vec<([f32; 64], [f32; 64])> {
        if positions.is_empty() {
            return Vec::new();
        }
        let n = positions.len();
        let mut x = vec![0.0f32; n * INPUT_LEN];
        for (i, p) in positions.iter().enumerate() {
            encode_into(p, &mut x[i * INPUT_LEN..(i + 1) * INPUT_LEN]);
        }
        let input: Tensor<4> = Tensor::from_data(TensorData::new(x, [n, 14, 8, 8]), &self.device);
        let (from, to) = self.net.forward(input);
        // The heads are f32 linear layers of 64 outputs per position (the net's definition).
        let from = from
            .into_data()
            .try_to_vec::<f32>()
            .expect("the from head outputs f32 logits");
        let to = to
            .into_data()
            .try_to_vec::<f32>()
            .expect("the to head outputs f32 logits");
        (0..n)
            .map(|i| {
                let mut f = [0.0; 64];
                let mut t = [0.0; 64];
                // copy_from_slice checks the length: 64 per position by the heads' shape.
                f.copy_from_slice(&from[i * 64..(i + 1) * 64]);
                t.copy_from_slice(&to[i * 64..(i + 1) * 64]);
                (f, t)
            })
            .collect()
    }

    /// The legal moves of `pos` by score (from + to logit), best first; among promotions
    /// with the same squares the queen comes first.
    pub fn rank(&self, pos: &Chess) -> Vec<(Move, f32)> {
        let key = mirror_core::PositionKey::from_position(pos).0;
        let lock = || {
            self.cache
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        let cached = lock().get(&key).copied();
        let (f, t) = match cached {
            Some(l) => l,
            None => {
                let Some(l) = self.logits(&[pos]).pop() else {
                    return Vec::new();
                };
                let mut cache = lock();
                if cache.len() >= CACHE_POSITIONS {
                    cache.clear();
                }
                cache.insert(key, l);
                l
            }
        };
        // Legal moves come from `pos` itself, so even a key collision cannot give an
        // illegal move.
        rank_with(pos, &f, &t)
    }

    /// The model's move and its score, `None` when there is no legal move.
    pub fn best(&self, pos: &Chess) -> Option<(Move, f32)> {
        self.rank(pos).into_iter().next()
    }
}

/// Ranks the legal moves of `pos` by the given logits.
pub fn rank_with(pos: &Chess, from: &[f32; 64], to: &[f32; 64]) -> Vec<(Move, f32)> {
    let turn = pos.turn();
    let mut out: Vec<(Move, f32, u8)> = pos
        .legal_moves()
        .into_iter()
        .filter_map(|m| {
            let (a, b) = move_label(&m, turn)?;
            let promo_rank = match m.promotion() {
                None | Some(Role::Queen) => 0,
                Some(_) => 1,
            };
            Some((m, from[a] + to[b], promo_rank))
        })
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
    out.into_iter().map(|(m, s, _)| (m, s)).collect()
}
