//! Many players in one store against each of them alone (`mirror bench serve
//! --sample-players N`): players drawn at random from the store (seeded), each loaded on
//! the store that holds them all and then, with the same requests, on a fresh store that
//! holds only that player's games (copied from the first). Figures are returned for the
//! caller to print, never asserted.

use std::{sync::Arc, time::Duration};

use mirror_engine::FallbackFactory;
use mirror_store::{
    GraphStore,
    embedded::{EmbeddedStore, OpenMode},
};
use rand::{SeedableRng, seq::SliceRandom};

use super::{BenchError, Endpoint, Figures, Load, Requests, percentile, run};

/// One sampled player's figures on both stores.
#[derive(Debug)]
pub struct Compared {
    /// The player, as stored.
    pub player: String,
    /// The player's games.
    pub games: u64,
    /// On the store of every player.
    pub many: Figures,
    /// On a store of this player alone.
    pub alone: Figures,
}

/// `n` players of `store` drawn uniformly at random (seeded), with their games.
pub fn draw_players<S: GraphStore + ?Sized>(
    store: &S,
    n: usize,
    seed: u64,
) -> Result<Vec<(String, u64)>, BenchError> {
    let mut all: Vec<(String, u64)> = store
        .players()?
        .into_iter()
        .filter(|p| p.games > 0)
        .map(|p| (p.name, p.games))
        .collect();
    all.sort();
    all.shuffle(&mut rand_chacha::ChaCha8Rng::seed_from_u64(seed));
    all.truncate(n);
    Ok(all)
}

/// A player's load is starting (the `index`-th of `of`, from 1), with its requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Starting<'a> {
    /// Which player, from 1.
    pub index: usize,
    /// Of how many.
    pub of: usize,
    /// The player.
    pub player: &'a str,
    /// Their games.
    pub games: u64,
    /// Their most played positions asked.
    pub top: usize,
    /// Their random positions asked.
    pub random: usize,
}

/// For `n` players drawn from the store `open` opens ([`draw_players`]): each player's
/// `top` most played and `random` random positions (`seed`, as [`Requests::new`]) asked
/// of `endpoint` on that store (a fresh handle per load, as `mirror bench serve`), then
/// the same requests on a store holding only the player's games (a temporary file,
/// removed after), with `connections` clients for `seconds` per set. `starting` hears
/// each player's turn.
pub fn compare_alone<S, O, E>(
    open: O,
    n: usize,
    endpoint: Endpoint,
    (top, random, seed): (usize, usize, u64),
    (connections, seconds): (usize, u64),
    fallbacks: &dyn Fn() -> Option<FallbackFactory>,
    starting: &mut dyn FnMut(Starting<'_>),
) -> Result<Vec<Compared>, BenchError>
where
    S: GraphStore + Send + Sync + 'static,
    O: Fn() -> Result<S, E>,
    E: std::fmt::Display,
{
    let open_many =
        || open().map_err(|e| BenchError::Setup(format!("cannot open the store: {e:#}")));
    let players = draw_players(&open_many()?, n, seed)?;
    let scratch = tempfile::Builder::new()
        .prefix("mirror-bench-")
        .tempdir()
        .map_err(|e| BenchError::Setup(format!("no temporary directory: {e}")))?;
    let mut out = Vec::new();
    for (i, (player, games)) in players.iter().enumerate() {
        let (requests, stored) = {
            let many = open_many()?;
            let requests = Requests::new(&many, player, endpoint, (top, random, seed))?;
            (requests, many.games(player)?)
        };
        starting(Starting {
            index: i + 1,
            of: players.len(),
            player,
            games: *games,
            top: requests.top_paths.len(),
            random: requests.random_paths.len(),
        });
        let sets = requests.sets();
        let many = run(
            Arc::new(open_many()?),
            fallbacks(),
            &sets,
            &Vec::new(),
            connections,
            seconds,
        )?;
        let path = scratch.path().join(format!("alone-{i}.redb"));
        let alone_store = EmbeddedStore::open(&path, OpenMode::CreateIfMissing)?;
        mirror_ingest::copy_games(&alone_store, player, &stored, 50_000, &mut |_| {})
            .map_err(|e| BenchError::Setup(format!("cannot copy {player}'s games: {e}")))?;
        let alone = run(
            Arc::new(alone_store),
            fallbacks(),
            &sets,
            &Vec::new(),
            connections,
            seconds,
        )?;
        // The store is closed with its server; its file is not needed any more.
        let _ = std::fs::remove_file(&path);
        out.push(Compared {
            player: player.clone(),
            games: *games,
            many,
            alone,
        });
    }
    Ok(out)
}

/// The table of [`compare_alone`]'s figures: per player and set, warm requests/s and p99
/// on both stores and their ratios, then the worst ratios of the sample.
pub fn table(compared: &[Compared]) -> String {
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let find = |loads: &[(String, Load)], set: &str| -> Option<Load> {
        loads.iter().find(|(n, _)| n == set).map(|(_, l)| l.clone())
    };
    let mut text = String::from(
        "warm: kept answers, many connections; first: each position's first request, 1 connection\n\
         player (games)                      set          many: req/s   p99 ms | alone: req/s   p99 ms | ratio: req/s  p99 | first p99 ms: many alone\n",
    );
    let (mut worst_rate, mut worst_p99) = (f64::INFINITY, 0.0f64);
    for c in compared {
        for set in ["most played", "random"] {
            let (Some(m), Some(a)) = (find(&c.many.warm, set), find(&c.alone.warm, set)) else {
                continue;
            };
            let first = |f: &Figures| {
                find(&f.cold, set).map_or(0.0, |l| ms(percentile(&l.latencies, 0.99)))
            };
            let (pm, pa) = (
                ms(percentile(&m.latencies, 0.99)),
                ms(percentile(&a.latencies, 0.99)),
            );
            let rate = m.rate() / a.rate().max(1e-9);
            let p99 = pm / pa.max(1e-9);
            worst_rate = worst_rate.min(rate);
            worst_p99 = worst_p99.max(p99);
            let who = format!("{} ({})", c.player, c.games);
            text.push_str(&format!(
                "{who:<35} {set:<12} {:>11.0} {:>8.2} | {:>11.0} {:>8.2} | {rate:>10.2}x {p99:>4.2}x | {:>8.2} {:>6.2}{}\n",
                m.rate(),
                pm,
                a.rate(),
                pa,
                first(&c.many),
                first(&c.alone),
                if m.errors + a.errors > 0 {
                    format!("  errors {} / {}", m.errors, a.errors)
                } else {
                    String::new()
                },
            ));
        }
    }
    if worst_rate.is_finite() {
        text.push_str(&format!(
            "worst of the sample: throughput {worst_rate:.2}x of the player alone, p99 {worst_p99:.2}x\n"
        ));
    }
    text
}
