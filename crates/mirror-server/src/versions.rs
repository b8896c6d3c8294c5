//! The version of a player's data for each request, read from the store and shared by the
//! requests waiting at that moment.
//!
//! Kept answers are valid while their player's version is unchanged, so every request
//! reads the version ([`GraphStore::player_version`]): a write by anyone (another
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
