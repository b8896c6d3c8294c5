//! The version of a player's data for each request, read from the store and shared by the
//! requests waiting at that moment.
//!
//! Kept answers are valid while their player's version is unchanged, so every request
//! reads the version ([`GraphRead::player_version`]): a write by anyone (another
//! server, `mirror ingest` elsewhere) is seen at the next request. On Neo4j that read is a
//! round trip, and one per request would make the server as slow as the database's query
//! rate. Here the requests that wait for a player's version at the same time share one
//! read: a request joins the next read that starts after it arrived (never one already
//! running, which may have read before a write the request must see), so each answer is
//! still at least as new as the request, and the database sees one read per round trip
//! whatever the number of requests.

use std::{collections::HashMap, sync::Arc};

use mirror_store::GraphStore;
use tokio::sync::oneshot;

use crate::{AppState, error::ApiError};

/// A version, or why it could not be read (shared by the requests that waited for it).
type Shared = Result<Option<u64>, String>;

/// The requests waiting for each player's version, and whether a read runs for them.
#[derive(Debug, Default)]
pub struct VersionReads {
    players: std::sync::Mutex<HashMap<String, Waiting>>,
}

#[derive(Debug, Default)]
struct Waiting {
    /// A read is running (its requests taken; these wait for the next one).
    running: bool,
    waiters: Vec<oneshot::Sender<Shared>>,
}

impl VersionReads {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Waiting>> {
        // Every update leaves the map consistent: a poisoned lock is still usable.
        self.players
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The version of `player`'s data, read after this call began: directly when the store's
/// reads are local, else by the next shared read.
pub async fn player_version<S: GraphStore + Send + Sync + 'static>(
    state: &Arc<AppState<S>>,
    player: &str,
) -> Result<Option<u64>, ApiError> {
    if state.store.reads_inline() {
        return Ok(state.store.player_version(player)?);
    }
    let key = player.to_ascii_lowercase();
    let (tx, rx) = oneshot::channel();
    let start = {
        let mut players = state.versions.lock();
        let w = players.entry(key.clone()).or_default();
        w.waiters.push(tx);
        !std::mem::replace(&mut w.running, true)
    };
    if start {
        tokio::spawn(drive(state.clone(), key));
    }
    rx.await
        .map_err(|_| ApiError::Internal("the read of the player's version stopped".into()))?
        .map_err(ApiError::Internal)
}

/// Reads `player`'s version for the requests waiting, again while more arrived meanwhile.
async fn drive<S: GraphStore + Send + Sync + 'static>(state: Arc<AppState<S>>, player: String) {
    loop {
        let waiters = {
            let mut players = state.versions.lock();
            let Some(w) = players.get_mut(&player) else {
                return;
            };
            if w.waiters.is_empty() {
                players.remove(&player);
                return;
            }
            std::mem::take(&mut w.waiters)
        };
        let name = player.clone();
        let read: Shared = state
            .blocking(move |store, _| Ok(store.player_version(&name)?))
            .await
            .map_err(|e| e.to_string());
        for w in waiters {
            // A request that gave up (its connection closed) no longer listens.
            let _ = w.send(read.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

    use mirror_core::{GameId, GameRecord, PositionKey, batch::Batch};
    use mirror_store::{
        Account, Accounts, EdgeRow, FetchState, Filter, GraphRead, GraphWrite, MoveRow,
        PlayerCounts, PlayerInfo, RecentGame, Result, WriteReport,
        embedded::{EmbeddedStore, OpenMode},
    };
    use shakmaty::Color;

    use super::*;

    /// A store read over a network, as Neo4j is: a version read takes 20 ms, is counted,
    /// and answers the version as it is when the read starts.
    struct Remote {
        inner: EmbeddedStore,
        version: AtomicU64,
        reads: AtomicUsize,
    }

    impl GraphRead for Remote {
        fn player_version(&self, _: &str) -> Result<Option<u64>> {
            self.reads.fetch_add(1, Ordering::SeqCst);
            let v = self.version.load(Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(20));
            Ok(Some(v))
        }

        fn ingested(&self, p: &str, ids: &[GameId]) -> Result<Vec<GameId>> {
            self.inner.ingested(p, ids)
        }

        fn moves(&self, p: &str, pos: PositionKey, f: &Filter) -> Result<Vec<MoveRow>> {
            self.inner.moves(p, pos, f)
        }

        fn edges(&self, p: &str) -> Result<Vec<EdgeRow>> {
            self.inner.edges(p)
        }

        fn games(&self, p: &str) -> Result<Vec<(GameRecord, Color)>> {
            self.inner.games(p)
        }

        fn game(&self, id: &GameId) -> Result<Option<GameRecord>> {
            self.inner.game(id)
        }

        fn position_epd(&self, pos: PositionKey) -> Result<Option<String>> {
            self.inner.position_epd(pos)
        }

        fn players(&self) -> Result<Vec<PlayerInfo>> {
            self.inner.players()
        }

        fn counts(&self, p: &str) -> Result<PlayerCounts> {
            self.inner.counts(p)
        }

        fn position_count(&self) -> Result<u64> {
            self.inner.position_count()
        }

        fn recent_games(
            &self,
            p: &str,
            pos: PositionKey,
            f: &Filter,
            limit: usize,
        ) -> Result<Vec<RecentGame>> {
            self.inner.recent_games(p, pos, f, limit)
        }

        fn fetch_state(&self, p: &str, unit: &str) -> Result<Option<FetchState>> {
            self.inner.fetch_state(p, unit)
        }

        fn evaluations(
            &self,
            keys: &[PositionKey],
        ) -> Result<Vec<Option<mirror_store::Evaluation>>> {
            self.inner.evaluations(keys)
        }
    }

    impl GraphWrite for Remote {
        fn write_batch(&self, p: &str, b: &Batch) -> Result<WriteReport> {
            self.inner.write_batch(p, b)
        }

        fn set_fetch_state(&self, p: &str, unit: &str, s: &FetchState) -> Result<()> {
            self.inner.set_fetch_state(p, unit, s)
        }

        fn write_evaluations(
            &self,
            evals: &[(PositionKey, mirror_store::Evaluation)],
        ) -> Result<usize> {
            self.inner.write_evaluations(evals)
        }
    }

    impl mirror_store::Drills for Remote {
        fn drill_records(&self, p: &str) -> Result<Vec<mirror_store::DrillRecord>> {
            self.inner.drill_records(p)
        }

        fn put_drill_records(&self, p: &str, r: &[mirror_store::DrillRecord]) -> Result<()> {
            self.inner.put_drill_records(p, r)
        }
    }

    impl Accounts for Remote {
        fn accounts(&self, p: &str) -> Result<Vec<Account>> {
            self.inner.accounts(p)
        }

        fn add_account(&self, p: &str, a: &Account) -> Result<()> {
            self.inner.add_account(p, a)
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn waiting_requests_share_a_read_and_never_see_an_older_version() {
        let dir = tempfile::tempdir().expect("tempdir");
        let inner = EmbeddedStore::open(&dir.path().join("s.redb"), OpenMode::CreateIfMissing)
            .expect("open");
        let store = Arc::new(Remote {
            inner,
            version: AtomicU64::new(1),
            reads: AtomicUsize::new(0),
        });
        let state = AppState::new(store.clone(), 64);
        // 200 requests at once: a handful of reads, not 200.
        let asks: Vec<_> = (0..200)
            .map(|_| {
                let state = state.clone();
                tokio::spawn(async move { player_version(&state, "alice").await })
            })
            .collect();
        for a in asks {
            assert_eq!(a.await.expect("task").expect("version"), Some(1));
        }
        let reads = store.reads.load(Ordering::SeqCst);
        assert!((1..=3).contains(&reads), "{reads} reads for 200 requests");
        // A write lands while a read runs: a request that arrives after it never gets the
        // version of the read that was already running.
        for round in 0..20u64 {
            let state2 = state.clone();
            let early = tokio::spawn(async move { player_version(&state2, "alice").await });
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            let written = store.version.fetch_add(1, Ordering::SeqCst) + 1;
            let late = player_version(&state, "alice").await.expect("version");
            assert!(late >= Some(written), "round {round}: {late:?} < {written}");
            early.await.expect("task").expect("version");
        }
    }
}
