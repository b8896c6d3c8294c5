//! Chooses a move the way a player would: the player's own moves in a position (the book)
//! through a [`policy`] (the seed's tiers, `habit`, `likely`), and where the book does not
//! answer a [`fallback`] (their CNN behind the blunder [`guard`], or a random legal move).
//! Every knob is in [`EngineOptions`]; every answer says where it came from ([`Choice`]).
//! Front ends (terminal game, UCI, HTTP) live in other crates.

pub mod book;
pub mod choice;
pub mod config;
pub mod draw;
pub mod endgame;
pub mod engine;
pub mod fallback;
pub mod guard;
#[cfg(feature = "model")]
pub mod lookahead;
pub mod options;
pub mod outcomes;
pub mod pace;
pub mod policy;
pub mod polyglot;
pub mod search;
pub mod stockfish;

pub use book::{Book, BookCache, KeptBook};
pub use choice::{BookRule, Choice, FallbackWhy, Source};
pub use draw::FallbackOutcomes;
pub use engine::{BookView, Engine, EngineError, first_draw};
#[cfg(feature = "model")]
pub use fallback::ModelFallback;
pub use fallback::{Fallback, FallbackFactory, RandomLegal, Tuned};
pub use guard::Guard;
pub use options::{
    EngineOptions, KNOBS, Knob, KnobGroup, KnobKind, OptionError, canonical_name, knob, knob_names,
};
pub use outcomes::Outcomes;
pub use policy::{BookMove, ParsePolicyError, ParseTiersError, Policy, Tiers};
pub use search::{Judge, JudgeError, SearchBy, SearchOptions, Searcher};
