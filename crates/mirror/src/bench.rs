//! `mirror bench`: measured figures, printed, never asserted.

use std::{
    io::Write,
    process::{Command, ExitCode},
};

use anyhow::Context;
use clap::{Args, Subcommand};
use mirror_ingest::{IngestOptions, NoProgress};
use mirror_store::{
    GraphStore,
    embedded::{EmbeddedStore, OpenMode},
};

use std::path::PathBuf;

use crate::cli::{StoreArgs, StoreKind};

#[derive(Args, Debug)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub what: BenchCommand,
}

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Ingest a PGN file into a fresh temporary store and compare with the python-chess peer.
    Ingest {
        /// The PGN file.
        #[arg(long)]
        pgn: PathBuf,
        /// The player.
        #[arg(long, short = 'u')]
        user: String,
        /// Games the python-chess peer reads (its rate is scaled to the full run).
        #[arg(long, default_value_t = 2000)]
        peer_games: u64,
        /// Python interpreter with python-chess (and zstandard for .zst input).
        #[arg(long, default_value = "python3")]
        python: String,
        /// Skip the peer.
        #[arg(long)]
        no_peer: bool,
        /// Games per write transaction (default 10,000 embedded, 1,000 in Neo4j).
        #[arg(long)]
        batch_size: Option<u32>,
        /// With --store neo4j: games loaded the seed's way (one MERGE chain per move, a
        /// transaction per game) and, for the ratio, the same games mirror's way.
        #[arg(long, default_value_t = 1000)]
        seed_games: usize,
    },
    /// The CNN: inference latency for one position and training throughput.
    Model {
        /// A saved model directory (default: the player's trained or shipped model).
        #[arg(long)]
        model: Option<PathBuf>,
        /// The player whose stored games give the positions.
        #[arg(long, short = 'u')]
        user: String,
    },
    /// Load the HTTP API (explore or move) on the player's most played positions and
    /// random positions of their tree, cold and warm (server and load generator in this
    /// process, on loopback).
    Serve(crate::bench_serve::ServeBenchArgs),
}

/// The python-chess peer (the same script the reference test uses).
const PEER: &str = include_str!("../../../tests/reference/graph.py");

/// Peak resident set size of this process (Linux), in MiB.
fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

pub fn run(store_args: &StoreArgs, args: BenchArgs) -> anyhow::Result<ExitCode> {
    match args.what {
        BenchCommand::Serve(args) => crate::bench_serve::run(store_args, args),
        BenchCommand::Model { model, user } => bench_model(store_args, model, &user),
        BenchCommand::Ingest {
            pgn,
            user,
            peer_games,
            python,
            no_peer,
            batch_size,
            seed_games,
        } => {
            let batch_size = store_args.batch_size(batch_size);
            if store_args.kind() == StoreKind::Neo4j {
                return bench_ingest_neo4j(&pgn, &user, batch_size, seed_games);
            }
            let dir = tempfile::tempdir().context("temporary directory")?;
            let db = dir.path().join("bench.redb");
            let store = EmbeddedStore::open(&db, OpenMode::CreateIfMissing)?;
            let sources = mirror_ingest::expand(std::slice::from_ref(&pgn))?;
            let mut opts = IngestOptions::new(&user);
            opts.batch_size = batch_size;
            let s = mirror_ingest::ingest(&store, &sources, &opts, &mut NoProgress)?;
            let secs = s.elapsed.as_secs_f64();
            let games_s = s.games_read as f64 / secs;
            let plies_s = s.plies as f64 / secs;
            let size = std::fs::metadata(&db).map(|m| m.len()).unwrap_or(0);
            println!("mirror ingest {}", pgn.display());
            println!(
                "  games read {}  ingested {}  plies {}  positions {}  edge rows {}",
                s.games_read,
                s.ingested,
                s.plies,
                store.position_count()?,
                store.counts(&user)?.edge_rows
            );
            println!(
                "  {secs:.2} s   {games_s:.0} games/s   {plies_s:.0} positions/s   peak RSS {:.0} MiB   store {:.1} MiB",
                peak_rss_mib().unwrap_or(f64::NAN),
                size as f64 / (1 << 20) as f64
            );
            if no_peer {
                return Ok(ExitCode::SUCCESS);
            }
            let script = dir.path().join("graph.py");
            std::fs::File::create(&script)?.write_all(PEER.as_bytes())?;
            let out = Command::new(&python)
                .arg(&script)
                .arg(&pgn)
                .arg(&user)
                .args(["--limit", &peer_games.to_string(), "--bench"])
                .output()
                .with_context(|| format!("cannot run {python}"))?;
            if !out.status.success() {
                anyhow::bail!(
                    "python-chess peer failed: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                );
            }
            let text = String::from_utf8_lossy(&out.stdout);
            let mut it = text.split_whitespace();
            let games: f64 = it.next().context("peer output")?.parse()?;
            let psecs: f64 = it.next().context("peer output")?.parse()?;
            let peer_rate = games / psecs;
            println!(
                "python-chess peer (same rules, in memory, first {games} games): {psecs:.2} s   {peer_rate:.0} games/s"
            );
            println!("  ratio mirror/peer (games/s): {:.0}x", games_s / peer_rate);
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn bench_model(
    store_args: &crate::cli::StoreArgs,
    model: Option<std::path::PathBuf>,
    user: &str,
) -> anyhow::Result<ExitCode> {
    use mirror_model::{
        NetConfig, Predictor,
        data::Samples,
        training::{TrainConfig, train},
    };
    let store = store_args.open(OpenMode::MustExist)?;
    let player = crate::play::require_player(&store, user)?;
    let predictor = match model {
        Some(dir) => Predictor::load(&dir)?,
        None => crate::train::load_model(store_args, &player)?
            .context("no model for this player: pass --model DIR or run mirror train")?,
    };
    let games = store.games(&player)?;
    let mut s = Samples::default();
    for (g, c) in games.iter().rev().take(200) {
        s.add_game(g, *c, |_| true);
    }
    anyhow::ensure!(s.len() >= 100, "too few positions");
    // Inference: one position at a time, as the engine asks, past the position cache.
    let mut lat: Vec<f64> = Vec::with_capacity(s.len().min(2000));
    for pos in s.positions.iter().take(2000) {
        let t = std::time::Instant::now();
        if let Some(l) = predictor.logits(&[(pos, None)]).pop() {
            let _ = mirror_model::inference::rank_with(pos, &l);
        }
        lat.push(t.elapsed().as_secs_f64() * 1e3);
    }
    lat.sort_by(f64::total_cmp);
    let pct = |p: f64| lat[((lat.len() - 1) as f64 * p).round() as usize];
    println!(
        "inference, one position ({} layers x {} channels): p50 {:.2} ms, p99 {:.2} ms over {} positions",
        predictor.meta.layers,
        predictor.meta.channels,
        pct(0.5),
        pct(0.99),
        lat.len()
    );
    // Training throughput: one epoch of 4,096 positions with the model's shape.
    let first: Vec<usize> = (0..4096.min(s.len())).collect();
    let small = s.subset(&first);
    let net_cfg = NetConfig::new()
        .with_channels(predictor.meta.channels)
        .with_layers(predictor.meta.layers);
    let cfg = TrainConfig {
        epochs: 1,
        ..TrainConfig::default()
    };
    let empty = Samples::default();
    let (_, reports, _) = train(&net_cfg, &cfg, None, &small, &empty, &mut |_, _, _| {});
    if let Some(r) = reports.first() {
        println!(
            "training: {:.0} positions/s (batch {}, {} positions, Adam)",
            r.positions_per_sec,
            cfg.batch,
            small.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The embedded store's ingest of the same input, for the comparison.
fn embedded_ingest(
    sources: &[mirror_ingest::Source],
    opts: &IngestOptions,
) -> anyhow::Result<mirror_ingest::Summary> {
    let dir = tempfile::tempdir().context("temporary directory")?;
    let store = EmbeddedStore::open(&dir.path().join("bench.redb"), OpenMode::CreateIfMissing)?;
    Ok(mirror_ingest::ingest(
        &store,
        sources,
        opts,
        &mut NoProgress,
    )?)
}

/// `mirror bench ingest --store neo4j`: the file into Neo4j (games/s, edge rows/s) beside
/// the embedded store, and the seed's per-move MERGE loading against mirror's batches on
/// the same first games. Runs only on a database with nothing of mirror's in it, and
/// empties it between and after the runs.
fn bench_ingest_neo4j(
    pgn: &std::path::Path,
    user: &str,
    batch_size: usize,
    seed_games: usize,
) -> anyhow::Result<ExitCode> {
    use mirror_core::pgn::{Decoded, read_games};
    let neo = crate::cli::open_neo4j()?;
    anyhow::ensure!(
        neo.players()?.is_empty() && neo.position_count()? == 0,
        "bench ingest --store neo4j empties the database between runs, so it needs one \
         without players or positions: point MIRROR_NEO4J_URI at a throwaway server \
         (e.g. `bash tests/neo4j/run.sh`)"
    );
    let sources = mirror_ingest::expand(&[pgn.to_path_buf()])?;
    let mut opts = IngestOptions::new(user);
    opts.batch_size = batch_size;

    // 1. The seed's way on the first games, then mirror's way on the same games.
    let mut games = Vec::new();
    let reader = mirror_ingest::source::open(&mirror_ingest::Source::File(pgn.to_path_buf()))?;
    for item in read_games(reader) {
        if games.len() >= seed_games {
            break;
        }
        if let (_, Decoded::Game(g)) = item?
            && let Some(c) = g.color_of(&[user])
        {
            games.push((g, c));
        }
    }
    let race = mirror_store::neo4j::bench::seed_against_batches(&neo, user, &games, batch_size)?;
    let (moves, seed_secs, ours_secs) = (race.moves, race.seed_secs, race.batches_secs);
    let n = games.len() as f64;
    println!(
        "Neo4j at {}: the first {} games of {user}",
        neo.uri(),
        games.len()
    );
    println!(
        "  seed's way (MERGE chain per move, a transaction per game): {seed_secs:.2} s   {:.1} games/s   {:.0} moves/s",
        n / seed_secs,
        moves as f64 / seed_secs
    );
    println!(
        "  mirror's batches ({} games per transaction):               {ours_secs:.2} s   {:.1} games/s",
        batch_size,
        n / ours_secs
    );
    println!(
        "  ratio mirror/seed (games/s): {:.1}x",
        seed_secs / ours_secs
    );

    // 2. The whole file into Neo4j, and into the embedded store.
    let s = mirror_ingest::ingest(&neo, &sources, &opts, &mut NoProgress)?;
    let secs = s.elapsed.as_secs_f64();
    let rows = neo.counts(user)?.edge_rows;
    let positions = neo.position_count()?;
    mirror_store::neo4j::bench::wipe(&neo)?;
    let e = embedded_ingest(&sources, &opts)?;
    let esecs = e.elapsed.as_secs_f64();
    println!(
        "mirror ingest {} ({} games per transaction)",
        pgn.display(),
        batch_size
    );
    println!(
        "  Neo4j:    {secs:.1} s   {:.0} games/s   {:.0} edge rows/s   ({} games, {rows} edge rows, {positions} positions)",
        s.games_read as f64 / secs,
        rows as f64 / secs,
        s.ingested
    );
    println!(
        "  embedded: {esecs:.1} s   {:.0} games/s   {:.0} edge rows/s",
        e.games_read as f64 / esecs,
        rows as f64 / esecs
    );
    println!("  ratio embedded/Neo4j (games/s): {:.1}x", secs / esecs);
    Ok(ExitCode::SUCCESS)
}
