//! Every player of a corpus: `mirror ingest --pgn FILE --all-players --min-games N`.
//!
//! Two passes over the inputs. The first reads the tags only ([`read_sides`]) and counts
//! each player's standard games (a game counts for both of its players). The second
//! decodes the games and gives each one to the profiles of its players who have at least
//! `min_games`: the same game, from each side. Three threads share the work: one decodes
//! and routes the games, one aggregates them into per-player [`Batch`]es (the replay that
//! computes positions), and the caller's writes chunks of several players in one
//! transaction ([`GraphWrite::write_batches`]). Exactly once, as a one-player ingest:
//! a game is recorded for its player in the transaction that writes its edges, and games
//! already recorded are dropped before they are written.

use std::{
    sync::mpsc,
    time::{Duration, Instant},
};

use mirror_core::{GameRecord, batch::Batch, pgn::read_sides};
use mirror_store::{GraphStore, StoreError, WriteReport, player_key};
use rustc_hash::{FxHashMap, FxHashSet};
use shakmaty::Color;

use crate::{IngestError, Input, Progress, Seen, Summary, read_inputs};

/// How a corpus is split into profiles and written.
#[derive(Clone, Debug)]
pub struct CorpusOptions {
    /// A player gets a profile with at least this many standard games in the inputs.
    pub min_games: u64,
    /// Game-sides per write transaction (a game counts once for each profiled player).
    pub batch_size: usize,
    /// Game-sides of players whose games are all read, handed on together to be
    /// aggregated and written. A player's games are held until the last one is read
    /// (about 0.3 KiB per game-side; at most the whole corpus), then written in one go.
    pub buffer: usize,
}

impl CorpusOptions {
    /// Profiles for players with at least `min_games` games; 10,000 game-sides per
    /// transaction, handed on 10,000 at a time.
    pub fn new(min_games: u64) -> CorpusOptions {
        CorpusOptions {
            min_games,
            batch_size: 10_000,
            buffer: 10_000,
        }
    }
}

/// The players of a corpus and their numbers of standard games.
#[derive(Clone, Debug, Default)]
pub struct Roster {
    /// Player key (see [`player_key`]) -> (the name as first written, games).
    players: FxHashMap<String, (String, u64)>,
    /// Games read in the first pass (any kind).
    pub games: u64,
    /// Games with a player without a usable name (empty, `?`, over 100 bytes, control
    /// characters), not counted for that side.
    pub unnamed_sides: u64,
    /// Wall time of the first pass.
    pub elapsed: Duration,
}

impl Roster {
    /// The profile name of `name` if that player has at least `min_games` games.
    fn profile(&self, name: &str, min_games: u64) -> Option<&str> {
        let key = player_key(name).ok()?;
        self.players
            .get(&key)
            .filter(|(_, n)| *n >= min_games)
            .map(|(display, _)| display.as_str())
    }

    /// How many players have at least `min_games` games.
    pub fn profiled(&self, min_games: u64) -> usize {
        self.players
            .values()
            .filter(|(_, n)| *n >= min_games)
            .count()
    }

    /// Every player with at least `min_games` games and their games, most games first.
    pub fn players(&self, min_games: u64) -> Vec<(&str, u64)> {
        let mut v: Vec<(&str, u64)> = self
            .players
            .values()
            .filter(|(_, n)| *n >= min_games)
            .map(|(d, n)| (d.as_str(), *n))
            .collect();
        v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
        v
    }
}

/// A name that can be a profile: not empty, not PGN's unknown `?`, accepted as a player.
fn usable(name: &str) -> Option<String> {
    let t = name.trim();
    if t.is_empty() || t == "?" {
        return None;
    }
    player_key(t).ok()
}

/// The first pass: each player's standard games in `inputs` (see [`Roster`]). An input
/// that fails is an error here (the second pass would read a different corpus). Asked to
/// stop, it stops before its next input or within 10,000 games.
pub fn count_players(
    inputs: Vec<Input>,
    progress: &mut dyn Progress,
) -> Result<Roster, IngestError> {
    let started = Instant::now();
    let mut roster = Roster::default();
    let total = inputs.len();
    for (i, input) in inputs.into_iter().enumerate() {
        if progress.cancelled() {
            return Err(IngestError::Cancelled);
        }
        progress.source(&input.name, i, total);
        let reader = (input.open)().map_err(|source| IngestError::Input {
            what: format!("cannot read {}", input.name),
            source,
        })?;
        for sides in read_sides(reader) {
            let sides = sides.map_err(|source| IngestError::Input {
                what: format!("{}: read error after some games", input.name),
                source,
            })?;
            roster.games += 1;
            if roster.games % 10_000 == 0 {
                progress.games(roster.games, 0);
                if progress.cancelled() {
                    return Err(IngestError::Cancelled);
                }
            }
            let Some((white, black)) = sides else {
                continue;
            };
            let (w, b) = (usable(&white), usable(&black));
            if w.is_some() && w == b {
                // A game against oneself has no side (as in a one-player ingest).
                continue;
            }
            for (key, name) in [(w, white), (b, black)] {
                let Some(key) = key else {
                    roster.unnamed_sides += 1;
                    continue;
                };
                roster
                    .players
                    .entry(key)
                    .or_insert_with(|| (name.trim().to_string(), 0))
                    .1 += 1;
            }
        }
    }
    progress.games(roster.games, 0);
    roster.elapsed = started.elapsed();
    Ok(roster)
}

/// What the decoder tells the writer.
enum Msg {
    Seen(Seen),
    /// A readable game with no profiled player.
    Other,
    /// Batches of several players for one transaction, and the game-sides dropped as
    /// already stored or seen twice.
    Chunk {
        batches: Vec<(String, Batch)>,
        duplicates: u64,
    },
}

/// Game-sides waiting for aggregation, per profile name.
type Pending = FxHashMap<String, Vec<(GameRecord, Color)>>;

/// The second pass: every game of `inputs` into the profiles of its players who have at
/// least `opts.min_games` games in `roster`, stopped when `progress` asks (after the
/// chunk it is writing, which stays). The summary counts game-sides: `ingested`
/// and `duplicates` once per profiled player of a game, `other_players` the readable
/// games with no profiled player.
pub fn ingest_corpus<S: GraphStore + Sync>(
    store: &S,
    inputs: Vec<Input>,
    roster: &Roster,
    opts: &CorpusOptions,
    progress: &mut dyn Progress,
) -> Result<Summary, IngestError> {
    let _span = tracing::info_span!(
        "ingest_corpus",
        players = roster.profiled(opts.min_games),
        inputs = inputs.len()
    )
    .entered();
    let started = Instant::now();
    let mut summary = Summary::default();
    let total = inputs.len();
    let (tx, rx) = mpsc::sync_channel::<Msg>(64);
    let (buf_tx, buf_rx) = mpsc::sync_channel::<Pending>(1);
    // A chunk holds a token here from before it is sent until it is written: at most two
    // aggregated chunks (about 80 MB each at 10,000 game-sides) wait for the writer.
    let (slot_tx, slot_rx) = mpsc::sync_channel::<()>(2);
    let result = std::thread::scope(|scope| -> Result<(), IngestError> {
        // Owned here, so that a stop drops it: an aggregator waiting for a token then
        // stops instead of waiting for ever.
        let slot_rx = slot_rx;
        let decoder = {
            let tx = tx.clone();
            scope.spawn(move || decode(inputs, roster, opts, &tx, &buf_tx))
        };
        let aggregator = scope.spawn(move || aggregate(store, opts, &buf_rx, &tx, &slot_tx));
        let mut outcome = Ok(());
        // Dropping the channel on a stop ends the decoder at its next game and the
        // aggregator at its next chunk.
        for msg in rx {
            match msg {
                Msg::Seen(seen) => {
                    seen.record(&mut summary, progress, total);
                    if outcome.is_ok() && progress.cancelled() {
                        outcome = Err(IngestError::Cancelled);
                        break;
                    }
                }
                Msg::Other => summary.other_players += 1,
                Msg::Chunk {
                    batches,
                    duplicates,
                } => {
                    summary.duplicates += duplicates;
                    // The token was sent before the chunk: this does not wait.
                    let _ = slot_rx.recv();
                    if outcome.is_err() {
                        continue;
                    }
                    match write_chunk(store, batches) {
                        Ok((report, dup, plies)) => {
                            summary.add_written(&report, dup, plies);
                            progress.committed(&report, &summary);
                            if progress.cancelled() {
                                outcome = Err(IngestError::Cancelled);
                                break;
                            }
                        }
                        Err(e) => outcome = Err(e),
                    }
                }
            }
        }
        drop(slot_rx);
        decoder.join().map_err(|_| IngestError::DecoderPanicked)?;
        aggregator
            .join()
            .map_err(|_| IngestError::DecoderPanicked)??;
        outcome
    });
    result?;
    summary.elapsed = started.elapsed();
    Ok(summary)
}

/// Writes a chunk in one transaction; when another writer recorded some of its games
/// meanwhile, player by player instead (each drops its own duplicates). Returns the
/// report, those duplicates and the plies written.
fn write_chunk<S: GraphStore + ?Sized>(
    store: &S,
    batches: Vec<(String, Batch)>,
) -> Result<(WriteReport, u64, u64), IngestError> {
    let plies = |batches: &[(String, Batch)]| -> u64 {
        batches
            .iter()
            .flat_map(|(_, b)| b.games())
            .map(|(g, _)| g.moves.len() as u64)
            .sum()
    };
    match store.write_batches(&batches) {
        Ok(report) => {
            let plies = plies(&batches);
            Ok((report, 0, plies))
        }
        Err(StoreError::AlreadyIngested(_)) => {
            let mut total = (WriteReport::default(), 0, 0);
            for (player, batch) in batches {
                let (report, dup, plies) = crate::write(store, &player, batch)?;
                total.0.add(&report);
                total.1 += dup;
                total.2 += plies;
            }
            Ok(total)
        }
        Err(e) => Err(e.into()),
    }
}

/// The decoding side: reads the inputs, sends what it saw to the writer and the
/// game-sides of profiled players to the aggregator. A player's games go on once all of
/// them are read (as the first pass counted them), so that each profile is written in
/// one go: its rows land side by side in the store instead of among rows written
/// earlier. Players still waiting at the end (some of their games did not decode) go
/// last.
fn decode(
    inputs: Vec<Input>,
    roster: &Roster,
    opts: &CorpusOptions,
    tx: &mpsc::SyncSender<Msg>,
    buf_tx: &mpsc::SyncSender<Pending>,
) {
    // A closed channel means the writer stopped on an error: stop quietly.
    let send = |m: Msg| tx.send(m).is_ok();
    let seen = |s: Seen| send(Msg::Seen(s));
    let mut waiting: FxHashMap<&str, u64> = roster.players(opts.min_games).into_iter().collect();
    let mut pending = Pending::default();
    let mut ready = Pending::default();
    let mut held = 0usize;
    // Holds a game-side; returns how many game-sides it made ready.
    let mut route = |player: &str, game: GameRecord, color: Color, ready: &mut Pending| {
        let left = waiting.get_mut(player).map(|n| {
            *n = n.saturating_sub(1);
            *n
        });
        pending
            .entry(player.to_string())
            .or_default()
            .push((game, color));
        if left != Some(0) {
            return 0;
        }
        match pending.remove_entry(player) {
            Some((name, games)) => {
                let n = games.len();
                ready.insert(name, games);
                n
            }
            None => 0,
        }
    };
    let finished = read_inputs(inputs, &seen, |g| {
        let w = roster.profile(&g.white.name, opts.min_games);
        let b = roster.profile(&g.black.name, opts.min_games);
        let sent = match (w, b) {
            (None, None) => send(Msg::Other),
            (Some(w), Some(b)) if w == b => {
                seen(Seen::Skipped("the player is on both sides".into()))
            }
            (w, b) => {
                if let Some(w) = w {
                    held += route(w, g.clone(), Color::White, &mut ready);
                }
                if let Some(b) = b {
                    held += route(b, g, Color::Black, &mut ready);
                }
                true
            }
        };
        if sent && held >= opts.buffer.max(1) {
            held = 0;
            return Ok::<_, std::convert::Infallible>(
                buf_tx.send(std::mem::take(&mut ready)).is_ok(),
            );
        }
        Ok(sent)
    });
    if matches!(finished, Ok(true)) {
        // An error here means the aggregator stopped on an error it reports itself.
        for last in [ready, std::mem::take(&mut pending)] {
            if !last.is_empty() && buf_tx.send(last).is_err() {
                return;
            }
        }
    }
}

/// The aggregating side: drops game-sides already stored (or seen earlier in this run),
/// aggregates each player's games into a batch and sends chunks of about
/// `opts.batch_size` game-sides to the writer.
fn aggregate<S: GraphStore>(
    store: &S,
    opts: &CorpusOptions,
    buf_rx: &mpsc::Receiver<Pending>,
    tx: &mpsc::SyncSender<Msg>,
    slot_tx: &mpsc::SyncSender<()>,
) -> Result<(), IngestError> {
    // (player, game) pairs of this run, as 128-bit hashes: a game twice in the inputs is
    // caught even when its copies fall into different buffers.
    let mut seen: FxHashSet<u128> = FxHashSet::default();
    let mut chunk: Vec<(String, Batch)> = Vec::new();
    let mut chunk_sides = 0usize;
    let mut duplicates = 0u64;
    let limit = opts.batch_size.max(1);
    // Sends the chunk when it holds `limit` game-sides; false when the writer stopped.
    let ship = |chunk: &mut Vec<(String, Batch)>,
                chunk_sides: &mut usize,
                duplicates: &mut u64,
                force: bool|
     -> bool {
        if *chunk_sides < limit && !force {
            return true;
        }
        *chunk_sides = 0;
        if slot_tx.send(()).is_err() {
            return false;
        }
        tx.send(Msg::Chunk {
            batches: std::mem::take(chunk),
            duplicates: std::mem::take(duplicates),
        })
        .is_ok()
    };
    for pending in buf_rx {
        let mut players: Vec<(String, Vec<(GameRecord, Color)>)> = pending.into_iter().collect();
        players.sort_by(|a, b| a.0.cmp(&b.0));
        for (player, games) in players {
            let ids: Vec<_> = games.iter().map(|(g, _)| g.id.clone()).collect();
            let known: FxHashSet<_> = store.ingested(&player, &ids)?.into_iter().collect();
            let key = player_key(&player)?;
            let mut batch = Batch::new();
            for (g, c) in games {
                let pair = {
                    let mut bytes = Vec::with_capacity(key.len() + 1 + g.id.0.len());
                    bytes.extend_from_slice(key.as_bytes());
                    bytes.push(0);
                    bytes.extend_from_slice(g.id.0.as_bytes());
                    xxhash_rust::xxh3::xxh3_128(&bytes)
                };
                if known.contains(&g.id) || !seen.insert(pair) {
                    duplicates += 1;
                    continue;
                }
                // Decoded games were replayed legally once already, so `add_game` cannot
                // fail; `Ok(false)` is the same game twice in the buffer.
                if !matches!(batch.add_game(g, c), Ok(true)) {
                    duplicates += 1;
                }
                // A player with more games than a transaction holds (a Neo4j
                // transaction keeps its changes in the server's memory) gets several.
                if chunk_sides + batch.games().len() >= limit {
                    chunk_sides += batch.games().len();
                    chunk.push((player.clone(), std::mem::take(&mut batch)));
                    if !ship(&mut chunk, &mut chunk_sides, &mut duplicates, false) {
                        return Ok(());
                    }
                }
            }
            if batch.is_empty() {
                continue;
            }
            chunk_sides += batch.games().len();
            chunk.push((player, batch));
            if !ship(&mut chunk, &mut chunk_sides, &mut duplicates, false) {
                return Ok(());
            }
        }
    }
    if !chunk.is_empty() || duplicates > 0 {
        // False only when the writer stopped on an error it reports itself.
        ship(&mut chunk, &mut chunk_sides, &mut duplicates, true);
    }
    Ok(())
}
