//! Loading a saved model and choosing moves with it: the legal moves ranked by their
//! logits (a softmax over them is the model's distribution).

use std::path::{Path, PathBuf};

use burn::{module::Module, tensor::Device};
use serde::{Deserialize, Serialize};
use shakmaty::{Chess, Move, Position};

use crate::{
    data::inputs,
    encoding::{ENCODING_VERSION, MOVES, encode_packed, move_index},
    model::{Net, NetConfig, OUTCOMES},
    value::{Outcomes, outcome_probs},
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
    /// A player's name that cannot name a model directory.
    #[error(transparent)]
    Name(#[from] mirror_core::InvalidName),
    /// A model could not be loaded (which one is named).
    #[error("cannot load {what}")]
    Unloadable {
        /// The model and where: "Karpov's model from DIR", "the population base model
        /// from DIR".
        what: String,
        /// Why.
        #[source]
        source: Box<ModelError>,
    },
    /// Too few positions to measure the model on.
    #[error("only {positions} positions in the player's last games: the benchmark needs {needed}")]
    TooFewPositions {
        /// Positions found.
        positions: usize,
        /// Positions needed.
        needed: usize,
    },
    /// The split leaves no validation games.
    #[error("the split {0} leaves no validation games: early stopping needs some")]
    NoValidationGames(String),
    /// A game does not replay (a damaged store): training on what replays would cut it
    /// short without a word.
    #[error("game {game} does not replay")]
    Replay {
        /// The game's id.
        game: String,
        /// The first move that does not.
        #[source]
        source: mirror_core::moves::IllegalMoveCode,
    },
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
    /// The model it was fine-tuned from (`player`, games and positions of that model), if
    /// it did not start from scratch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base: Option<String>,
    /// The stages at the end, in order: the last this many training games learnt from once
    /// more (each epoch is counted in `epochs`); empty: none. A model saved before there
    /// could be several stages wrote one number (0: none).
    #[serde(
        default,
        skip_serializing_if = "Vec::is_empty",
        deserialize_with = "stages"
    )]
    pub recent_games: Vec<usize>,
    /// The model's weight in the player's book, in pseudo-games of the `likely` policy,
    /// chosen by `mirror train` on the validation games (the weight whose choices match
    /// the player's in-book moves best); `None`: not chosen (the policy's own weight plays).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub book_prior: Option<f64>,
    /// The engine's search chosen by `mirror train` on the validation games with Stockfish
    /// (the strength dial: the mirror's mistakes as near the player's as its top-1 allows);
    /// `None`: not chosen (no search unless asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub search: Option<SearchDial>,
    /// The temperature at which the sampling mirror (`play`, `serve`) draws the model's
    /// moves, chosen by `mirror train` on the validation games with Stockfish (its mistakes
    /// as near the player's as a temperature of at most 1 brings them); `None`: not chosen
    /// (1, the model's own distribution, unless asked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// Whether the network has a value head (models saved before there were value heads
    /// have none).
    #[serde(default)]
    pub value_head: bool,
    /// The value head's calibration on the validation positions beside the baselines
    /// (`None`: no value head, or not measured).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<crate::value::ValueFigures>,
}

/// The search's settings chosen for a model (see [`ModelMeta::search`]).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SearchDial {
    /// Nodes per searched position.
    pub nodes: u32,
    /// The model's likeliest moves searched.
    pub top: usize,
    /// How strongly a move's probability falls per win% point it loses (0: no search).
    pub weight: f64,
    /// Nodes of the searching engine's own search whose best move joins the searched ones
    /// (absent: 0, only the model's moves).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub own: u32,
}

/// Whether `n` is 0 (a field left out of meta.json).
fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// `recent_games` as written now (a list) or before (one number, 0 for none).
fn stages<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<usize>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Stages {
        One(usize),
        List(Vec<usize>),
    }
    Ok(match Stages::deserialize(d)? {
        Stages::One(0) => Vec::new(),
        Stages::One(n) => vec![n],
        Stages::List(list) => list,
    })
}

impl ModelMeta {
    /// "population (12800 games, 800000 positions)": what a model learnt from, and the
    /// model it started from if any ("...; from population (...)").
    pub fn summary(&self) -> String {
        let own = format!(
            "{} ({} games, {} positions",
            self.player, self.train_games, self.train_positions
        );
        match &self.base {
            Some(base) => format!("{own}; from {base})"),
            None => format!("{own})"),
        }
    }
}

/// The ranked legal moves of one position.
type Ranked = Vec<(Move, f32)>;

/// Positions whose rankings are remembered by [`Predictor::rank`] (about 15 MiB); when
/// full, the memory starts again.
const CACHE_POSITIONS: usize = 20_000;

/// A loaded model ready to choose moves. It can be shared between threads; single-position
/// answers are cached by position (the same position always gets the same answer).
#[derive(Debug)]
pub struct Predictor {
    net: Net,
    device: Device,
    cache: std::sync::Mutex<std::collections::HashMap<(u64, Option<Move>), Ranked>>,
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

/// Makes `path` its owner's alone: 0700 for a directory, 0600 for a file (a model is
/// learnt from one player's games; other local users have no business reading it).
pub(crate) fn private(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = if path.is_dir() { 0o700 } else { 0o600 };
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Saves `net` (an inference copy is taken) and `meta` into `dir`, the directory and its
/// files the owner's alone.
pub fn save(net: &Net, meta: &ModelMeta, dir: &Path) -> Result<(), ModelError> {
    std::fs::create_dir_all(dir).map_err(|e| file_err(dir, e))?;
    private(dir).map_err(|e| file_err(dir, e))?;
    let weights = dir.join(WEIGHTS);
    net.clone()
        .save_file(&weights)
        .map_err(|e| file_err(&weights, format!("{e:?}")))?;
    private(&weights).map_err(|e| file_err(&weights, e))?;
    write_meta(meta, dir)
}

/// Rewrites the metadata of the model saved in `dir` (its weights untouched), the file
/// the owner's alone.
pub fn write_meta(meta: &ModelMeta, dir: &Path) -> Result<(), ModelError> {
    let meta_path = dir.join(META);
    let text = serde_json::to_string_pretty(meta).map_err(|e| file_err(&meta_path, e))?;
    std::fs::write(&meta_path, text).map_err(|e| file_err(&meta_path, e))?;
    private(&meta_path).map_err(|e| file_err(&meta_path, e))
}

/// The metadata of the model saved in `dir`, without its weights; an error if this build
/// cannot read the model (another encoding) or a setting in it makes no sense (a
/// temperature that is not a positive number).
pub fn read_meta(dir: &Path) -> Result<ModelMeta, ModelError> {
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
    if let Some(t) = meta.temperature
        && !(t.is_finite() && t > 0.0)
    {
        return Err(file_err(
            &meta_path,
            format!("temperature {t}: a temperature must be a positive number"),
        ));
    }
    Ok(meta)
}

/// The network and metadata saved in `dir`, the weights loaded onto `device` (the
/// inference device, or the training device to fine-tune it).
pub fn load_net(dir: &Path, device: &Device) -> Result<(Net, ModelMeta), ModelError> {
    let meta = read_meta(dir)?;
    let weights = dir.join(WEIGHTS);
    let net = meta
        .net_config()
        .init(device)
        .try_load_file(&weights)
        .map_err(|e| file_err(&weights, format!("{e:?}")))?;
    Ok((net, meta))
}

impl ModelMeta {
    /// The network's shape.
    pub fn net_config(&self) -> NetConfig {
        NetConfig::new()
            .with_channels(self.channels)
            .with_layers(self.layers)
            .with_value(self.value_head)
    }
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
        let device = Device::flex();
        let (net, meta) = load_net(dir, &device)?;
        Ok(Predictor {
            net: net.valid(),
            device,
            cache: Default::default(),
            meta,
        })
    }

    /// The move logits ([`MOVES`] per position, `encoding::move_index` order) of each
    /// position, reached by the opponent's move if known.
    pub fn logits(&self, positions: &[(&Chess, Option<&Move>)]) -> Vec<Vec<f32>> {
        if positions.is_empty() {
            return Vec::new();
        }
        // The move head only: a choice of move needs no outcomes.
        move_logits(self.net.forward(self.inputs(positions)))
    }

    /// The positions as the network's input.
    fn inputs(&self, positions: &[(&Chess, Option<&Move>)]) -> burn::tensor::Tensor<4> {
        let packed: Vec<_> = positions
            .iter()
            .map(|(p, last)| encode_packed(p, *last))
            .collect();
        inputs(packed.iter(), positions.len(), &self.device)
    }

    /// Whether the model has a value head ([`Predictor::judge`] gives outcomes).
    pub fn has_value_head(&self) -> bool {
        self.net.has_value_head()
    }

    /// One pass of the network over the positions (each reached by the opponent's move if
    /// known): the move logits of each, as [`Predictor::logits`], and with a value head
    /// the outcome probabilities of each for its side to move (loss, draw, win).
    pub fn judge(
        &self,
        positions: &[(&Chess, Option<&Move>)],
    ) -> (Vec<Vec<f32>>, Option<Vec<Outcomes>>) {
        if positions.is_empty() {
            return (Vec::new(), self.has_value_head().then(Vec::new));
        }
        let (moves, value) = self.net.forward_both(self.inputs(positions));
        let outcomes = value.map(|v| {
            v.into_data()
                .try_to_vec::<f32>()
                .expect("the value head outputs f32 logits")
                .chunks_exact(OUTCOMES)
                .map(outcome_probs)
                .collect()
        });
        (move_logits(moves), outcomes)
    }

    /// The legal moves of `pos` (reached by the opponent's move `last`, if known) by score,
    /// best first.
    pub fn rank(&self, pos: &Chess, last: Option<&Move>) -> Vec<(Move, f32)> {
        let key = (
            mirror_core::PositionKey::from_position(pos).0,
            last.copied(),
        );
        let lock = || {
            self.cache
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        if let Some(ranked) = lock().get(&key) {
            // Legal moves come from `pos` itself, so even a key collision cannot give an
            // illegal move.
            if ranked.iter().all(|(m, _)| pos.is_legal(*m)) {
                return ranked.clone();
            }
        }
        let Some(logits) = self.logits(&[(pos, last)]).pop() else {
            return Vec::new();
        };
        let ranked = rank_with(pos, &logits);
        let mut cache = lock();
        if cache.len() >= CACHE_POSITIONS {
            cache.clear();
        }
        cache.insert(key, ranked.clone());
        ranked
    }

    /// The model's move and its score, `None` when there is no legal move.
    pub fn best(&self, pos: &Chess, last: Option<&Move>) -> Option<(Move, f32)> {
        self.rank(pos, last).into_iter().next()
    }
}

/// The move head's output, [`MOVES`] logits per position.
fn move_logits(moves: burn::tensor::Tensor<2>) -> Vec<Vec<f32>> {
    let all = moves
        .into_data()
        .try_to_vec::<f32>()
        .expect("the move head outputs f32 logits");
    // MOVES logits per position by the head's shape.
    all.chunks_exact(MOVES).map(<[f32]>::to_vec).collect()
}

/// Ranks the legal moves of `pos` by the given logits ([`MOVES`] of them), best first.
pub fn rank_with(pos: &Chess, logits: &[f32]) -> Vec<(Move, f32)> {
    let turn = pos.turn();
    let mut out: Vec<(Move, f32)> = pos
        .legal_moves()
        .into_iter()
        .filter_map(|m| Some((m, *logits.get(move_index(&m, turn)?)?)))
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out
}

/// The softmax of ranked scores: each move's probability, in the same order.
pub fn softmax(ranked: &[(Move, f32)]) -> Vec<(Move, f64)> {
    let Some(top) = ranked.first().map(|r| r.1) else {
        return Vec::new();
    };
    let exp: Vec<f64> = ranked
        .iter()
        .map(|(_, s)| f64::from(s - top).exp())
        .collect();
    let sum: f64 = exp.iter().sum();
    ranked
        .iter()
        .zip(exp)
        .map(|((m, _), e)| (*m, e / sum))
        .collect()
}
