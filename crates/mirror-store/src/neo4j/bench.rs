//! What the benchmarks and the tests do to a Neo4j database and mirror's ingest never
//! does: empty it, and write games the seed's way (the benchmark's peer).

use mirror_core::{GameRecord, MoveStats, PositionKey};
use shakmaty::Color;

use super::{BENCH_SEED_MOVE, Neo4jStore, TEST_WIPE, color_name, key_param};
use crate::{Result, StoreError, player_key};

/// Deletes everything in the database (tests, and benchmarks on a database that held
/// nothing of mirror's). Auto-commit: `CALL ... IN TRANSACTIONS` cannot run inside an
/// explicit transaction.
pub fn wipe(store: &Neo4jStore) -> Result<()> {
    let q = TEST_WIPE.query(vec![])?;
    store
        .rt()
        .block_on(store.graph.run(q))
        .map_err(|e| store.server_error("empty the database", 1, e))?;
    // An empty graph of this mirror's schema.
    store.check_version()
}

/// The benchmark's peer: writes one game the seed's way (MyLittleEngine), one `MERGE`
/// chain per move in one transaction per game, counting every move (a repeated
/// position counts again). Not used by mirror's ingest. Returns the moves written.
pub fn write_game_seed_style(
    store: &Neo4jStore,
    player: &str,
    game: &GameRecord,
    color: Color,
) -> Result<u64> {
    let key = player_key(player)?;
    let stats = MoveStats::from_game(
        game.result.outcome_for(color),
        game.side(!color).rating,
        game.date,
    );
    let month = game
        .date
        .and_then(|d| d.month())
        .map(|m| m.to_string())
        .unwrap_or_default();
    let mut queries = Vec::with_capacity(game.moves.len());
    for ply in game.replay() {
        let ply = ply.map_err(|e| StoreError::Corrupt(format!("game {}: {e}", game.id.0)))?;
        let mut next = ply.pos.clone();
        shakmaty::Position::play_unchecked(&mut next, ply.mv);
        queries.push(BENCH_SEED_MOVE.query(vec![
            ("player", key.clone().into()),
            ("from", key_param(ply.key).into()),
            ("fromEpd", mirror_core::key::epd(&ply.pos).into()),
            ("to", key_param(PositionKey::from_position(&next)).into()),
            ("toEpd", mirror_core::key::epd(&next).into()),
            ("uci", ply.code.to_string().into()),
            ("color", color_name(color).into()),
            ("tc", game.time_class.as_str().into()),
            ("rated", game.rated.into()),
            ("month", month.clone().into()),
            ("date", i64::from(stats.first).into()),
            ("w", i64::from(stats.wins).into()),
            ("d", i64::from(stats.draws).into()),
            ("l", i64::from(stats.losses).into()),
        ])?);
    }
    let n = queries.len() as u64;
    store.transaction("write a game the seed's way", |mut txn| {
        let queries = queries.clone();
        async move {
            for q in queries {
                txn.run(q).await?;
            }
            txn.commit().await?;
            Ok(n)
        }
    })
}

/// The seed's loading against mirror's batches on the same games (see
/// [`seed_against_batches`]).
#[derive(Clone, Copy, Debug)]
pub struct SeedRace {
    /// Moves the seed's way wrote (a repeated position counts again).
    pub moves: u64,
    /// Seconds the seed's way took.
    pub seed_secs: f64,
    /// Seconds mirror's batches took.
    pub batches_secs: f64,
}

/// Writes `games` of `player` the seed's way, then as mirror's batches of `batch_size`,
/// each into the emptied database, after warming the server with both ways on the first
/// 100 games (so that neither pays for a cold JVM); empties the database after.
pub fn seed_against_batches(
    store: &Neo4jStore,
    player: &str,
    games: &[(GameRecord, Color)],
    batch_size: usize,
) -> Result<SeedRace> {
    use crate::GraphWrite;
    use mirror_core::batch::Batch;
    let batch = |games: &[(GameRecord, Color)]| {
        Batch::from_games(games.iter()).map_err(|e| StoreError::Corrupt(e.to_string()))
    };
    let warm = &games[..games.len().min(100)];
    for (g, c) in warm {
        write_game_seed_style(store, player, g, *c)?;
    }
    wipe(store)?;
    store.write_batch(player, &batch(warm)?)?;
    wipe(store)?;
    let t = std::time::Instant::now();
    let mut moves = 0u64;
    for (g, c) in games {
        moves += write_game_seed_style(store, player, g, *c)?;
    }
    let seed_secs = t.elapsed().as_secs_f64();
    wipe(store)?;
    let t = std::time::Instant::now();
    for chunk in games.chunks(batch_size.max(1)) {
        store.write_batch(player, &batch(chunk)?)?;
    }
    let batches_secs = t.elapsed().as_secs_f64();
    wipe(store)?;
    Ok(SeedRace {
        moves,
        seed_secs,
        batches_secs,
    })
}
