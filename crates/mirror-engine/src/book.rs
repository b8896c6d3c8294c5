//! What the engine reads: [`Book`], the player's moves from a position and the month of
//! their newest game. Every store is a book; so is a store read through a running
//! `mirror serve` (the command line's remote book, while the server holds the store).

use mirror_core::{PositionKey, time::Month};
use mirror_store::{Filter, GraphStore, MoveRow, StoreError};
use shakmaty::Chess;

/// The reads the engine makes.
pub trait Book {
    /// The player's moves from `pos` under `filter`, summed per move (as
    /// [`GraphStore::moves`]).
    fn rows(
        &self,
        player: &str,
        pos: PositionKey,
        filter: &Filter,
    ) -> Result<Vec<MoveRow>, StoreError>;

    /// The month of the player's newest game (`None`: no dated game).
    fn newest_month(&self, player: &str) -> Result<Option<Month>, StoreError>;
}

impl<S: GraphStore + ?Sized> Book for S {
    fn rows(
        &self,
        player: &str,
        pos: PositionKey,
        filter: &Filter,
    ) -> Result<Vec<MoveRow>, StoreError> {
        GraphStore::moves(self, player, pos, filter)
    }

    fn newest_month(&self, player: &str) -> Result<Option<Month>, StoreError> {
        // Every game starts in the start position: its newest game is the player's.
        let start = PositionKey::from_position(&Chess::default());
        Ok(self
            .recent_games(player, start, &Filter::default(), 1)?
            .first()
            .and_then(|g| g.game.date)
            .and_then(|d| d.month()))
    }
}
