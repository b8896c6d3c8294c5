//! Answers kept for reuse: the explorer's and the report's JSON bodies by request, each
//! valid while its player's data has not changed
//! ([`GraphRead::player_version`](mirror_store::GraphRead::player_version), read from the
//! store at every request, so that a write through another server or by `mirror ingest`
//! elsewhere is seen at once).
//!
//! A popular position is asked for again and again (the start position, the first moves of
//! the player's repertoire), and its answer only changes when the player's games are added.
//! A store that cannot tell a version gets no cache: every answer is read afresh.

use std::sync::Mutex;

use axum::body::Bytes;
use rustc_hash::FxHashMap;

/// Bodies of at most this many bytes in all are kept.
pub const CACHE_BYTES: usize = 64 << 20;

/// What a kept answer weighs against the cache's budget, in bytes.
pub trait Weight {
    /// Bytes held.
    fn weight(&self) -> usize;
}

impl Weight for Bytes {
    fn weight(&self) -> usize {
        self.len()
    }
}

/// A `/move` answer kept before its draw: the JSON body of each move the engine may play,
/// with its probability, in the order of the draw ([`mirror_engine::Outcomes`]).
#[derive(Debug)]
pub struct KeptMove {
    /// Whether the engine draws (else the first body is the answer).
    pub draws: bool,
    /// Each move's probability and body.
    pub bodies: Vec<(f64, Bytes)>,
}

impl KeptMove {
    /// The body for the uniform number `u`: the rule of
    /// [`Outcomes::index`](mirror_engine::Outcomes::index).
    pub fn body(&self, u: f64) -> Option<&Bytes> {
        let i = mirror_engine::draw::draw_index(self.draws, self.bodies.iter().map(|(p, _)| *p), u);
        self.bodies.get(i).map(|(_, b)| b)
    }
}

impl Weight for std::sync::Arc<mirror_core::clock::TimeModel> {
    fn weight(&self) -> usize {
        std::mem::size_of::<mirror_core::clock::TimeModel>()
    }
}

impl Weight for std::sync::Arc<KeptMove> {
    fn weight(&self) -> usize {
        self.bodies.iter().map(|(_, b)| b.len() + 8).sum()
    }
}

/// A bounded map from a request (its route and parsed parameters) to its JSON body (or, for
/// `/move`, its bodies before the draw) and the version of the player's data it was read
/// at.
#[derive(Debug)]
pub struct ResponseCache<V = Bytes> {
    inner: Mutex<Inner<V>>,
    budget: usize,
}

#[derive(Debug)]
struct Inner<V> {
    entries: FxHashMap<String, (u64, V)>,
    bytes: usize,
}

impl<V: Clone + Weight> ResponseCache<V> {
    /// A cache holding at most `budget` bytes of keys and bodies.
    pub fn new(budget: usize) -> ResponseCache<V> {
        ResponseCache {
            inner: Mutex::new(Inner {
                entries: FxHashMap::default(),
                bytes: 0,
            }),
            budget,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner<V>> {
        // A panic while holding the lock leaves a consistent map (every update is one
        // insert or removal), so a poisoned lock is still usable.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The body kept for `key` if it was read at version `version` of its player's data.
    pub fn get(&self, key: &str, version: u64) -> Option<V> {
        let inner = self.lock();
        match inner.entries.get(key) {
            Some((v, body)) if *v == version => Some(body.clone()),
            _ => None,
        }
    }

    /// Keeps `body` for `key`, read at version `version` of its player's data (an answer
    /// read at an older version than the one kept is dropped). When the budget is spent,
    /// entries are dropped in the map's order (an arbitrary one: no position is favoured).
    pub fn put(&self, key: String, version: u64, body: V) {
        let size = key.len() + body.weight();
        if size > self.budget {
            return;
        }
        let mut inner = self.lock();
        if let Some((v, old)) = inner.entries.get(&key) {
            if *v > version {
                // Read before a change that another request has already seen.
                return;
            }
            let freed = key.len() + old.weight();
            inner.bytes -= freed;
            inner.entries.remove(&key);
        }
        while inner.bytes + size > self.budget {
            let Some(victim) = inner.entries.keys().next().cloned() else {
                break;
            };
            if let Some((_, old)) = inner.entries.remove(&victim) {
                inner.bytes -= victim.len() + old.weight();
            }
        }
        inner.entries.insert(key, (version, body));
        inner.bytes += size;
    }

    /// Number of kept answers.
    pub fn len(&self) -> usize {
        self.lock().entries.len()
    }

    /// Whether nothing is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_version_forgets_and_old_reads_are_not_kept() {
        let c = ResponseCache::new(1 << 10);
        c.put("a".into(), 1, Bytes::from_static(b"one"));
        assert_eq!(c.get("a", 1).as_deref(), Some(&b"one"[..]));
        assert_eq!(c.get("a", 2), None, "the data changed since");
        c.put("a".into(), 2, Bytes::from_static(b"two"));
        assert_eq!(c.get("a", 1), None, "version 2 replaced it");
        assert_eq!(c.get("a", 2).as_deref(), Some(&b"two"[..]));
        c.put("a".into(), 1, Bytes::from_static(b"stale"));
        assert_eq!(
            c.get("a", 2).as_deref(),
            Some(&b"two"[..]),
            "a read from before the change is dropped"
        );
        // Each key has its own version: another player's answers stay.
        c.put("b".into(), 7, Bytes::from_static(b"bob"));
        assert_eq!(c.get("a", 2).as_deref(), Some(&b"two"[..]));
        assert_eq!(c.get("b", 7).as_deref(), Some(&b"bob"[..]));
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn the_budget_holds() {
        let c = ResponseCache::new(100);
        for i in 0..50 {
            c.put(format!("k{i:02}"), 0, Bytes::from(vec![b'x'; 20]));
            let inner = c.lock();
            let real: usize = inner
                .entries
                .iter()
                .map(|(k, (_, v))| k.len() + v.len())
                .sum();
            assert_eq!(inner.bytes, real);
            assert!(inner.bytes <= 100, "{} bytes kept", inner.bytes);
        }
        assert_eq!(c.len(), 4);
        assert!(c.get("k49", 0).is_some(), "the newest entry is kept");
        c.put("huge".into(), 0, Bytes::from(vec![b'x'; 200]));
        assert_eq!(c.get("huge", 0), None);
    }
}

/// Identical expensive requests being answered: the first computes, the others wait for
/// its answer instead of computing it again (48 identical reports cost one).
#[derive(Debug, Default)]
pub struct InFlight {
    running: Mutex<FxHashMap<String, std::sync::Arc<tokio::sync::OnceCell<Bytes>>>>,
}

impl InFlight {
    /// The answer to `key`: `compute`'s, or that of an identical request already running.
    /// A failed or abandoned computation is taken over by the next waiting request.
    pub async fn run<F, Fut, E>(&self, key: String, compute: F) -> Result<Bytes, E>
    where
        F: FnOnce() -> Fut,
        Fut: std::future::Future<Output = Result<Bytes, E>>,
    {
        let lock = || {
            self.running
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        let cell = lock().entry(key.clone()).or_default().clone();
        let out = cell.get_or_try_init(compute).await.cloned();
        let mut running = lock();
        if running
            .get(&key)
            .is_some_and(|c| std::sync::Arc::ptr_eq(c, &cell))
        {
            running.remove(&key);
        }
        out
    }
}

#[cfg(test)]
mod in_flight_tests {
    use super::*;
    use std::sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    };

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn identical_requests_share_one_computation() {
        let flight = Arc::new(InFlight::default());
        let runs = Arc::new(AtomicUsize::new(0));
        let mut tasks = Vec::new();
        for i in 0..16 {
            let (flight, runs) = (flight.clone(), runs.clone());
            // Two different keys, eight requests each.
            let key = format!("k{}", i % 2);
            tasks.push(tokio::spawn(async move {
                flight
                    .run(key.clone(), || async move {
                        runs.fetch_add(1, Ordering::SeqCst);
                        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                        Ok::<_, ()>(Bytes::from(key))
                    })
                    .await
            }));
        }
        for (i, t) in tasks.into_iter().enumerate() {
            let body = t.await.expect("task").expect("answer");
            assert_eq!(body, Bytes::from(format!("k{}", i % 2)));
        }
        assert_eq!(runs.load(Ordering::SeqCst), 2, "one computation per key");
        assert!(
            flight.running.lock().expect("lock").is_empty(),
            "nothing left"
        );
    }
}
