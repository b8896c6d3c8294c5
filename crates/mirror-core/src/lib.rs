//! Domain types and pure logic of mirror.
//!
//! Vocabulary types live at the crate root: [`PositionKey`], [`GameRecord`],
//! [`Outcome`], [`MoveStats`], [`TimeClass`], [`MoveCode`]. One module per concern:
//! [`key`] (position identity), [`game`] (game records and their compact encoding),
//! [`stats`] (per-edge statistics), [`time`] (time classes and dates), [`pgn`] (PGN
//! decoding with pgn-reader). Nothing here does I/O besides reading from a caller's
//! `Read`.

pub mod batch;
pub mod clock;
pub mod codec;
pub mod errors;
pub mod evaluation;
pub mod game;
pub mod key;
pub mod moves;
pub mod name;
pub mod notation;
pub mod openings;
pub mod pgn;
pub mod pgn_write;
pub mod polyglot;
pub mod split;
pub mod stats;
pub mod time;
pub mod values;

pub use game::{GameId, GameRecord, GameResult, GameSource, Outcome, PlayerSide};
pub use key::PositionKey;
pub use moves::MoveCode;
pub use name::{InvalidName, PlayerKey, command_word};
pub use stats::{EdgeDims, MoveStats};
pub use time::{Date, Month, TimeClass};
