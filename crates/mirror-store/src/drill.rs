//! What the store keeps of a player's drill: one record per card (a position where the
//! player is to move, and their colour there) with its spaced-repetition memory, its
//! schedule and its history of answers. The cards themselves are made from the player's
//! games each time (`mirror-drill`); a record outlives its card, so that a card whose
//! position left the repertoire keeps its history (it is marked retired) and comes back
//! with it.

use mirror_core::PositionKey;
use shakmaty::Color;

use crate::Result;

/// One answer to a card.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrillAnswer {
    /// When, in seconds since the Unix epoch.
    pub at: i64,
    /// The grade given (1 again, 2 hard, 3 good, 4 easy: FSRS's).
    pub grade: u8,
    /// How long the answer took, in milliseconds.
    pub millis: u32,
}

/// The answers a record keeps at most (the latest).
pub const DRILL_HISTORY: usize = 256;

/// The store's record of one card of a player.
#[derive(Clone, Debug, PartialEq)]
pub struct DrillRecord {
    /// The position.
    pub key: PositionKey,
    /// The player's colour there (the side to move).
    pub color: Color,
    /// The memory's stability in days and its difficulty (1-10), FSRS's; `None` until the
    /// first answer.
    pub memory: Option<(f32, f32)>,
    /// When the card is due, in seconds since the Unix epoch.
    pub due: i64,
    /// Answers given.
    pub reviews: u32,
    /// Of them, wrong ones after the card was learnt.
    pub lapses: u32,
    /// The card is no longer made from the player's games (its history is kept).
    pub retired: bool,
    /// The latest answers, oldest first (at most [`DRILL_HISTORY`]).
    pub history: Vec<DrillAnswer>,
}

impl DrillRecord {
    /// A record of a card never answered, due at once.
    pub fn new(key: PositionKey, color: Color) -> DrillRecord {
        DrillRecord {
            key,
            color,
            memory: None,
            due: 0,
            reviews: 0,
            lapses: 0,
            retired: false,
            history: Vec::new(),
        }
    }

    /// When the card was last answered.
    pub fn last_answer(&self) -> Option<i64> {
        self.history.last().map(|a| a.at)
    }
}

/// A player's drill records, in each backend.
pub trait Drills {
    /// Every drill record of `player` (retired ones too), by position then colour.
    fn drill_records(&self, player: &str) -> Result<Vec<DrillRecord>>;

    /// Stores `records` of `player`, each replacing the record of its position and colour,
    /// all in one transaction.
    fn put_drill_records(&self, player: &str, records: &[DrillRecord]) -> Result<()>;
}

macro_rules! forward_drills {
    ($($ty:ty),*) => {$(
        impl<S: Drills + ?Sized> Drills for $ty {
            fn drill_records(&self, player: &str) -> Result<Vec<DrillRecord>> {
                (**self).drill_records(player)
            }

            fn put_drill_records(&self, player: &str, records: &[DrillRecord]) -> Result<()> {
                (**self).put_drill_records(player, records)
            }
        }
    )*};
}

forward_drills!(&S, std::sync::Arc<S>, Box<S>);
