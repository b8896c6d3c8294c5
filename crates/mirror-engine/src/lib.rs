//! Chooses a move the way a player would: the tiered sampler over the player's own moves
//! ([`mirror_core::sampler`]), and where their tree ends a [`Fallback`] policy. Also the
//! UCI loop ([`uci`]) and the terminal game ([`play`]).

pub mod board;
pub mod engine;
pub mod guard;
pub mod notation;
pub mod play;
pub mod uci;

#[cfg(feature = "model")]
pub use engine::ModelFallback;
pub use engine::{
    Choice, Engine, EngineError, EngineOptions, Fallback, FallbackFactory, Guard, ParsePolicyError,
    Policy, RandomLegal, Source,
};
