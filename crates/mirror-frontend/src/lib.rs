//! Front ends of the engine: the terminal game ([`terminal`], drawing with [`board`]), the
//! terminal drill ([`drill`]), the UCI loop ([`uci`]) and `mirror values`' report ([`values`]) and chart ([`plot`]). They read and print; the
//! choices are the engine's ([`mirror_engine`]).

pub mod board;
pub mod drill;
pub mod plot;
pub mod terminal;
pub mod uci;
pub mod values;

/// What the front ends' own tests share.
#[cfg(test)]
mod test_support {
    use mirror_core::{PositionKey, time::Month};
    use mirror_engine::Book;
    use mirror_store::{Filter, MoveRow, StoreError};

    /// A book with no moves: the loop under test, not the store, answers (the model's
    /// place is taken by a random legal move).
    pub(crate) struct NoBook;

    impl Book for NoBook {
        fn rows(&self, _: &str, _: PositionKey, _: &Filter) -> Result<Vec<MoveRow>, StoreError> {
            Ok(Vec::new())
        }

        fn newest_month(&self, _: &str) -> Result<Option<Month>, StoreError> {
            Ok(None)
        }
    }
}
