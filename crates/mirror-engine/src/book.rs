//! What the engine reads: [`Book`], the player's moves from a position and the month of
//! their newest game. Every store is a book; so is a store read through a running
//! `mirror serve` (the command line's remote book, while the server holds the store).

use mirror_core::{PositionKey, clock::TimeModel, time::Month};
use mirror_store::{Filter, GraphRead, MoveRow, StoreError};

/// The reads the engine makes.
pub trait Book {
    /// The player's moves from `pos` under `filter`, summed per move (as
    /// [`GraphRead::moves`]).
    fn rows(
        &self,
        player: &str,
        pos: PositionKey,
        filter: &Filter,
    ) -> Result<Vec<MoveRow>, StoreError>;

    /// The month of the player's newest game (`None`: no dated game).
    fn newest_month(&self, player: &str) -> Result<Option<Month>, StoreError>;

    /// The player's pace where the book has no time, learned from their games
    /// ([`TimeModel::learn`]); `None` where this book cannot read the games (a store read
    /// through a running server, which serves positions' rows only).
    fn time_model(&self, player: &str) -> Result<Option<TimeModel>, StoreError> {
        let _ = player;
        Ok(None)
    }
}

impl<S: GraphRead + ?Sized> Book for S {
    fn rows(
        &self,
        player: &str,
        pos: PositionKey,
        filter: &Filter,
    ) -> Result<Vec<MoveRow>, StoreError> {
        GraphRead::moves(self, player, pos, filter)
    }

    fn newest_month(&self, player: &str) -> Result<Option<Month>, StoreError> {
        Ok(self.newest_date(player)?.and_then(|d| d.month()))
    }

    fn time_model(&self, player: &str) -> Result<Option<TimeModel>, StoreError> {
        mirror_store::pace_of(self, player).map(Some)
    }
}

/// Reads of a [`Book`] kept per player and version, shared by the requests of a server:
/// a popular position's rows are read once per change of the player's data, whoever
/// asks. Entries of an older version of a player are never returned (the version is part
/// of the key) and go when the cache is full.
#[derive(Debug, Default)]
pub struct BookCache {
    inner: std::sync::Mutex<KeptReads>,
}

/// The rows of a (player, version, position, filter) and the newest month of a (player,
/// version).
type RowsKey = (String, u64, PositionKey, String);

#[derive(Debug, Default)]
struct KeptReads {
    rows: std::collections::HashMap<RowsKey, Vec<MoveRow>>,
    newest: std::collections::HashMap<(String, u64), Option<Month>>,
}

/// Row lists kept at most (a list is a position's moves: about 1 KiB for a popular one, so
/// a full cache holds some tens of MiB); the cache is emptied when it would hold more (a
/// server's popular positions fill it again in a few requests).
pub const BOOK_CACHE_ENTRIES: usize = 32_768;

impl BookCache {
    /// An empty cache.
    pub fn new() -> BookCache {
        BookCache::default()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, KeptReads> {
        // Every update is one insert or clear: a poisoned map is still consistent.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Number of kept row lists.
    pub fn len(&self) -> usize {
        self.lock().rows.len()
    }

    /// Whether nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A [`Book`] read through a [`BookCache`] at one version of the player's data (the
/// version read from the store before the book: see
/// [`GraphRead::player_version`](mirror_store::GraphRead::player_version)). Without a
/// version every read goes to the book.
#[derive(Debug)]
pub struct KeptBook<'a, B: ?Sized> {
    book: &'a B,
    cache: &'a BookCache,
    version: Option<u64>,
}

impl<'a, B: Book + ?Sized> KeptBook<'a, B> {
    /// `book` read through `cache` at `version` of the player's data.
    pub fn new(book: &'a B, cache: &'a BookCache, version: Option<u64>) -> KeptBook<'a, B> {
        KeptBook {
            book,
            cache,
            version,
        }
    }
}

impl<B: Book + ?Sized> Book for KeptBook<'_, B> {
    fn rows(
        &self,
        player: &str,
        pos: PositionKey,
        filter: &Filter,
    ) -> Result<Vec<MoveRow>, StoreError> {
        let Some(version) = self.version else {
            return self.book.rows(player, pos, filter);
        };
        let key = (
            player.to_ascii_lowercase(),
            version,
            pos,
            format!("{filter:?}"),
        );
        if let Some(rows) = self.cache.lock().rows.get(&key) {
            return Ok(rows.clone());
        }
        let rows = self.book.rows(player, pos, filter)?;
        let mut kept = self.cache.lock();
        if kept.rows.len() >= BOOK_CACHE_ENTRIES {
            kept.rows.clear();
            kept.newest.clear();
        }
        kept.rows.insert(key, rows.clone());
        Ok(rows)
    }

    fn time_model(&self, player: &str) -> Result<Option<TimeModel>, StoreError> {
        self.book.time_model(player)
    }

    fn newest_month(&self, player: &str) -> Result<Option<Month>, StoreError> {
        let Some(version) = self.version else {
            return self.book.newest_month(player);
        };
        let key = (player.to_ascii_lowercase(), version);
        if let Some(m) = self.cache.lock().newest.get(&key) {
            return Ok(*m);
        }
        let m = self.book.newest_month(player)?;
        self.cache.lock().newest.insert(key, m);
        Ok(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Chess;
    use std::cell::Cell;

    /// A book that counts its reads and answers one row list.
    struct Counting {
        reads: Cell<u32>,
        rows: Vec<MoveRow>,
    }

    impl Book for Counting {
        fn rows(&self, _: &str, _: PositionKey, _: &Filter) -> Result<Vec<MoveRow>, StoreError> {
            self.reads.set(self.reads.get() + 1);
            Ok(self.rows.clone())
        }

        fn newest_month(&self, _: &str) -> Result<Option<Month>, StoreError> {
            self.reads.set(self.reads.get() + 1);
            Ok(Month::from_u16(24_000))
        }
    }

    #[test]
    fn reads_are_kept_per_player_version_and_filter() {
        let book = Counting {
            reads: Cell::new(0),
            rows: vec![MoveRow {
                mv: mirror_core::MoveCode(796),
                stats: mirror_core::MoveStats::default(),
                child: PositionKey(7),
            }],
        };
        let cache = BookCache::new();
        let start = PositionKey::from_position(&Chess::default());
        let white = Filter {
            color: Some(shakmaty::Color::White),
            ..Filter::default()
        };
        let at = |v: Option<u64>| KeptBook::new(&book, &cache, v);
        for _ in 0..3 {
            assert_eq!(
                at(Some(1)).rows("Alice", start, &white).expect("rows"),
                book.rows
            );
            at(Some(1)).newest_month("alice").expect("month");
        }
        assert_eq!(book.reads.get(), 2, "one read of each, then kept");
        at(Some(1))
            .rows("alice", start, &Filter::default())
            .expect("rows");
        assert_eq!(book.reads.get(), 3, "another filter is another question");
        at(Some(2)).rows("alice", start, &white).expect("rows");
        assert_eq!(book.reads.get(), 4, "a new version reads again");
        at(None).rows("alice", start, &white).expect("rows");
        at(None).rows("alice", start, &white).expect("rows");
        assert_eq!(book.reads.get(), 6, "without a version nothing is kept");
        assert_eq!(cache.len(), 3);
    }
}
