//! Answers kept for reuse: the explorer's and the report's JSON bodies by request, valid
//! while the store's data has not changed ([`GraphStore::data_version`](mirror_store::GraphStore::data_version)).
//!
//! A popular position is asked for again and again (the start position, the first moves of
//! the player's repertoire), and its answer only changes when games are added. A store
//! that cannot tell when its data changed (Neo4j: other processes write to it) gets no
//! cache: every answer is read afresh.

use std::sync::Mutex;

use axum::body::Bytes;
use rustc_hash::FxHashMap;

/// Bodies of at most this many bytes in all are kept.
pub const CACHE_BYTES: usize = 64 << 20;

/// A bounded map from a request (its path and query, as sent) to its JSON body.
#[derive(Debug)]
pub struct ResponseCache {
    inner: Mutex<Inner>,
    budget: usize,
}

#[derive(Debug, Default)]
struct Inner {
    /// The data version the entries were read at; a new version empties the map.
    version: u64,
    entries: FxHashMap<String, Bytes>,
    bytes: usize,
}

impl ResponseCache {
    /// A cache holding at most `budget` bytes of keys and bodies.
    pub fn new(budget: usize) -> ResponseCache {
        ResponseCache {
            inner: Mutex::new(Inner::default()),
            budget,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves a consistent map (every update is one
        // insert or clear), so a poisoned lock is still usable.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The body kept for `key` at data version `version`.
    pub fn get(&self, key: &str, version: u64) -> Option<Bytes> {
        let inner = self.lock();
        if inner.version != version {
            return None;
        }
        inner.entries.get(key).cloned()
    }

    /// Keeps `body` for `key`, read at data version `version`. When the budget is spent,
    /// entries are dropped in the map's order (an arbitrary one: no position is favoured).
    pub fn put(&self, key: String, version: u64, body: Bytes) {
        let size = key.len() + body.len();
        if size > self.budget {
            return;
        }
        let mut inner = self.lock();
        if inner.version != version {
            if version < inner.version {
                // Read before a change that another request has already seen.
                return;
            }
            inner.entries.clear();
            inner.bytes = 0;
            inner.version = version;
        }
        while inner.bytes + size > self.budget {
            let Some(victim) = inner.entries.keys().next().cloned() else {
                break;
            };
            if let Some(old) = inner.entries.remove(&victim) {
                inner.bytes -= victim.len() + old.len();
            }
        }
        if let Some(old) = inner.entries.insert(key.clone(), body) {
            inner.bytes -= key.len() + old.len();
        }
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
        c.put("b".into(), 2, Bytes::from_static(b"two"));
        assert_eq!(c.get("a", 1), None, "version 2 emptied the map");
        c.put("a".into(), 1, Bytes::from_static(b"stale"));
        assert_eq!(
            c.get("a", 2),
            None,
            "a read from before the change is dropped"
        );
        assert_eq!(c.len(), 1);
    }

    #[test]
    fn the_budget_holds() {
        let c = ResponseCache::new(100);
        for i in 0..50 {
            c.put(format!("k{i:02}"), 0, Bytes::from(vec![b'x'; 20]));
            let inner = c.lock();
            let real: usize = inner.entries.iter().map(|(k, v)| k.len() + v.len()).sum();
            assert_eq!(inner.bytes, real);
            assert!(inner.bytes <= 100, "{} bytes kept", inner.bytes);
        }
        assert_eq!(c.len(), 4);
        assert!(c.get("k49", 0).is_some(), "the newest entry is kept");
        c.put("huge".into(), 0, Bytes::from(vec![b'x'; 200]));
        assert_eq!(c.get("huge", 0), None);
    }
}
