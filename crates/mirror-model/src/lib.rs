//! The CNN fallback of mirror: where a player's own tree ends, guess the move they would
//! play. Laid out like Burn's examples: [`encoding`] (21 planes from the side to move, kept
//! as bits; moves as 73 x 64 logits), [`model`] (convolutions + batch norm, a joint move
//! head), [`data`] (samples from games), [`training`] (Adam, cosine learning rate, early
//! stopping), [`inference`] (save/load, legal-move ranking and softmax),
//! [`fit`] (a player's model end to end: split, samples, baselines, report, save) and
//! [`library`] (where a player's model lives; the shipped model's install), [`value`]
//! (the value head's calibration against material alone).
//! Burn 0.22.1 on its pure-Rust `flex` CPU backend.

pub mod bench;
pub mod data;
pub mod encoding;
pub mod fit;
pub mod fit_text;
pub mod inference;
pub mod library;
pub mod model;
pub mod population;
pub mod training;
pub mod value;

pub use inference::{ModelError, ModelMeta, Predictor, SearchDial};
pub use model::{Net, NetConfig};
