//! Answers kept for reuse: the explorer's and the report's JSON bodies by request, each
//! valid while its player's data has not changed
//! ([`GraphRead::player_version`](mirror_store::GraphRead::player_version), read from the
//! store at every request, so that a write through another server or by `mirror ingest`
//! elsewhere is seen at once).
//!
//! A popular position is asked for again and again (the start position, the first moves of
//! the player's repertoire), and its answer only changes when the player's games are added.
//! A store that cannot tell a version gets no cache: every answer is read afresh.

use std::{hash::Hash, sync::Mutex};

use axum::body::Bytes;
use mirror_core::{PlayerKey, PositionKey};
use mirror_store::{Filter, report::ReportOptions};
use rustc_hash::FxHashMap;

/// Bodies of at most this many bytes in all are kept.
pub const CACHE_BYTES: usize = 64 << 20;

/// What a kept answer weighs against the cache's budget, in bytes.
pub trait Weight {
    /// Bytes held.
    fn weight(&self) -> usize;
}

/// What a kept answer answers: the route and its question as parsed, one value per meaning
/// (the player by key, not as written; the position by its key, not by the moves or FEN
/// that reached it), hashed as the caches' map key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Question {
    /// `/explore`.
    Explore {
        /// The player.
        player: PlayerKey,
        /// The position.
        position: PositionKey,
        /// The opening named on the path given (the answer names it).
        opening: Option<&'static str>,
        /// Whose games.
        filter: Filter,
        /// Recent games listed.
        recent_games: usize,
        /// Moves listed (all when none).
        moves: Option<usize>,
    },
    /// `/report`.
    Report {
        /// The player.
        player: PlayerKey,
        /// What the report looks at.
        options: ReportOptions,
    },
    /// `/prep`: kept under the player's version, with the opponent's here.
    Prep {
        /// The player.
        player: PlayerKey,
        /// The opponent.
        opponent: PlayerKey,
        /// The version of the opponent's data read.
        theirs: Option<u64>,
        /// What to walk.
        options: Knobs,
    },
    /// `/move`, before its draw.
    Move {
        /// The player.
        player: PlayerKey,
        /// The position as FEN (its counters too: the engine may read them).
        fen: String,
        /// The move into it (the model reads it).
        last: Option<shakmaty::Move>,
        /// The engine's settings but the seed (the draw is made after).
        options: Knobs,
    },
    /// `/pace`: the player's time model.
    Pace {
        /// The player.
        player: PlayerKey,
    },
    /// `/drill`: the player's cards (their records are read at every request).
    Drill {
        /// The player.
        player: PlayerKey,
        /// How the cards are made.
        options: Knobs,
    },
}

/// Settings that hold real numbers, as one value: equal when they print alike, every float
/// by the shortest text that reads back as it (so two settings are one question exactly
/// when every knob has the same value, and equality stays reflexive where a float would
/// not be).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Knobs(Box<str>);

impl Knobs {
    /// `options` as one comparable value.
    pub fn of<T: std::fmt::Debug>(options: &T) -> Knobs {
        Knobs(format!("{options:?}").into_boxed_str())
    }
}

impl Weight for Question {
    fn weight(&self) -> usize {
        let heap = match self {
            Question::Explore { player, .. }
            | Question::Report { player, .. }
            | Question::Pace { player } => player.as_str().len(),
            Question::Drill { player, options } => player.as_str().len() + options.0.len(),
            Question::Prep {
                player,
                opponent,
                options,
                ..
            } => player.as_str().len() + opponent.as_str().len() + options.0.len(),
            Question::Move {
                player,
                fen,
                options,
                ..
            } => player.as_str().len() + fen.len() + options.0.len(),
        };
        std::mem::size_of::<Question>() + heap
    }
}

impl Weight for String {
    fn weight(&self) -> usize {
        self.len()
    }
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

impl Weight for std::sync::Arc<Vec<mirror_drill::Card>> {
    fn weight(&self) -> usize {
        self.iter()
            .map(|c| {
                std::mem::size_of::<mirror_drill::Card>()
                    + c.fen.len()
                    + c.line
                        .iter()
                        .chain(&c.right)
                        .map(|m| m.len() + 24)
                        .sum::<usize>()
            })
            .sum()
    }
}

impl Weight for std::sync::Arc<KeptMove> {
    fn weight(&self) -> usize {
        self.bodies.iter().map(|(_, b)| b.len() + 8).sum()
    }
}

/// A bounded map from a request (its [`Question`]) to its JSON body (or, for `/move`, its
/// bodies before the draw) and the version of the player's data it was read at.
#[derive(Debug)]
pub struct ResponseCache<V = Bytes, K = Question> {
    inner: Mutex<Inner<K, V>>,
    budget: usize,
}

#[derive(Debug)]
struct Inner<K, V> {
    entries: FxHashMap<K, (u64, V)>,
    bytes: usize,
}

impl<V: Clone + Weight, K: Clone + Eq + Hash + Weight> ResponseCache<V, K> {
    /// A cache holding at most `budget` bytes of keys and bodies.
    pub fn new(budget: usize) -> ResponseCache<V, K> {
        ResponseCache {
            inner: Mutex::new(Inner {
                entries: FxHashMap::default(),
                bytes: 0,
            }),
            budget,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner<K, V>> {
        // A panic while holding the lock leaves a consistent map (every update is one
        // insert or removal), so a poisoned lock is still usable.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The body kept for `key` if it was read at version `version` of its player's data.
    pub fn get(&self, key: &K, version: u64) -> Option<V> {
        let inner = self.lock();
        match inner.entries.get(key) {
            Some((v, body)) if *v == version => Some(body.clone()),
            _ => None,
        }
    }

    /// Keeps `body` for `key`, read at version `version` of its player's data (an answer
    /// read at an older version than the one kept is dropped). When the budget is spent,
    /// entries are dropped in the map's order (an arbitrary one: no position is favoured).
    pub fn put(&self, key: K, version: u64, body: V) {
        let size = key.weight() + body.weight();
        if size > self.budget {
            return;
        }
        let mut inner = self.lock();
        if let Some((v, old)) = inner.entries.get(&key) {
            if *v > version {
                // Read before a change that another request has already seen.
                return;
            }
            let freed = key.weight() + old.weight();
            inner.bytes -= freed;
            inner.entries.remove(&key);
        }
        while inner.bytes + size > self.budget {
            let Some(victim) = inner.entries.keys().next().cloned() else {
                break;
            };
            let Some((_, old)) = inner.entries.remove(&victim) else {
                // A key that is not equal to itself would never be found again.
                break;
            };
            inner.bytes -= victim.weight() + old.weight();
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
        let c = ResponseCache::<Bytes, String>::new(1 << 10);
        let (a, b) = (String::from("a"), String::from("b"));
        c.put("a".into(), 1, Bytes::from_static(b"one"));
        assert_eq!(c.get(&a, 1).as_deref(), Some(&b"one"[..]));
        assert_eq!(c.get(&a, 2), None, "the data changed since");
        c.put("a".into(), 2, Bytes::from_static(b"two"));
        assert_eq!(c.get(&a, 1), None, "version 2 replaced it");
        assert_eq!(c.get(&a, 2).as_deref(), Some(&b"two"[..]));
        c.put("a".into(), 1, Bytes::from_static(b"stale"));
        assert_eq!(
            c.get(&a, 2).as_deref(),
            Some(&b"two"[..]),
            "a read from before the change is dropped"
        );
        // Each key has its own version: another player's answers stay.
        c.put("b".into(), 7, Bytes::from_static(b"bob"));
        assert_eq!(c.get(&a, 2).as_deref(), Some(&b"two"[..]));
        assert_eq!(c.get(&b, 7).as_deref(), Some(&b"bob"[..]));
        assert_eq!(c.len(), 2);
    }

    #[test]
    fn one_question_one_key() {
        let explore = |name: &str, filter: Filter| Question::Explore {
            player: PlayerKey::new(name).expect("a name"),
            position: PositionKey(7),
            opening: None,
            filter,
            recent_games: 4,
            moves: None,
        };
        let c = ResponseCache::<Bytes>::new(1 << 12);
        c.put(
            explore("Hikaru", Filter::default()),
            1,
            Bytes::from_static(b"x"),
        );
        // The name as written does not matter; the filter does.
        assert!(c.get(&explore("hikaru", Filter::default()), 1).is_some());
        let blitz = Filter {
            time_classes: vec![mirror_core::TimeClass::Blitz],
            ..Filter::default()
        };
        assert!(c.get(&explore("hikaru", blitz), 1).is_none());
        // Real-valued settings: equal values are one key, any other value another.
        let weight = |w: f64| {
            Knobs::of(&mirror_engine::EngineOptions {
                recent_weight: w,
                ..mirror_engine::EngineOptions::default()
            })
        };
        assert_eq!(weight(1.5), weight(1.5));
        assert_ne!(weight(1.5), weight(1.5000000000000002));
        assert_eq!(weight(f64::NAN), weight(f64::NAN), "reflexive");
    }

    #[test]
    fn the_budget_holds() {
        let c = ResponseCache::<Bytes, String>::new(100);
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
        assert!(
            c.get(&"k49".into(), 0).is_some(),
            "the newest entry is kept"
        );
        c.put("huge".into(), 0, Bytes::from(vec![b'x'; 200]));
        assert_eq!(c.get(&"huge".into(), 0), None);
    }
}

/// Identical expensive requests being answered: the first computes, the others wait for
/// its answer instead of computing it again (48 identical reports cost one).
#[derive(Debug)]
pub struct InFlight<K = (Question, Option<u64>)> {
    running: Mutex<FxHashMap<K, std::sync::Arc<tokio::sync::OnceCell<Bytes>>>>,
}

impl<K> Default for InFlight<K> {
    fn default() -> Self {
        InFlight {
            running: Mutex::default(),
        }
    }
}

impl<K: Clone + Eq + Hash> InFlight<K> {
    /// The answer to `key`: `compute`'s, or that of an identical request already running.
    /// A failed or abandoned computation is taken over by the next waiting request.
    pub async fn run<F, Fut, E>(&self, key: K, compute: F) -> Result<Bytes, E>
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
        let flight = Arc::new(InFlight::<String>::default());
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
