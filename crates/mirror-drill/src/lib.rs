//! Drill: spaced repetition over a player's own tree.
//!
//! - [`cards`]: the positions worth drilling, made from the player's games each time (their
//!   repertoire, where the engine says their usual move loses, the lines against a named
//!   opponent), each with the moves that count as right and why it exists.
//! - [`schedule`]: when a card comes back, by FSRS (the `fsrs` crate), from a grade made of
//!   the answer and the time it took.
//! - [`deck`]: the cards joined with what the store keeps of them ([`mirror_store::Drills`]):
//!   due, new and retired cards per colour.
//! - [`session`]: a drill without input or output: the next question, an answer checked and
//!   recorded at once, and the opponent's reply drawn as the player's opponents (or the named
//!   opponent) played it, so that a session walks whole lines.

pub mod cards;
pub mod deck;
pub mod schedule;
pub mod session;

pub use cards::{Card, CardOptions, Why, cards};
pub use deck::{Deck, DueCounts, Entry, Listed, Listing};
pub use schedule::{DEFAULT_RETENTION, Grade, Grading, Scheduler};
pub use session::{
    Ask, MoveResult, Reply, Session, SessionOptions, Summary, Verdict, answer_card, draw_reply,
};

/// What can go wrong in a drill.
#[derive(Debug, thiserror::Error)]
pub enum DrillError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] mirror_store::StoreError),
    /// Nothing to prepare against the opponent (or the store failed while walking).
    #[error(transparent)]
    Prep(#[from] mirror_store::prep::PrepError),
    /// The scheduler refused a memory state or its parameters.
    #[error("the scheduler: {0}")]
    Schedule(String),
    /// An answer to a card not asked, or a move that is not legal there.
    #[error("{0}")]
    Answer(String),
}

/// This crate's result.
pub type Result<T> = std::result::Result<T, DrillError>;
