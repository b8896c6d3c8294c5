//! `mirror bench`: measured figures, printed, never asserted.

use std::{
    io::Write,
    process::{Command, ExitCode},
};

use anyhow::Context;
use mirror_ingest::{IngestOptions, NoProgress};
use mirror_store::{
    GraphStore,
    embedded::{EmbeddedStore, OpenMode},
};

use crate::cli::{BenchArgs, BenchCommand, StoreArgs};

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
        BenchCommand::Serve {
            user,
            connections,
            seconds,
        } => crate::serve::bench(store_args, &user, connections, seconds),
        BenchCommand::Model { model, user } => bench_model(store_args, model, &user),
        BenchCommand::Ingest {
            pgn,
            user,
            peer_games,
            python,
            no_peer,
            batch_size,
        } => {
            let dir = tempfile::tempdir().context("temporary directory")?;
            let db = dir.path().join("bench.redb");
            let store = EmbeddedStore::open(&db, OpenMode::CreateIfMissing)?;
            let sources = mirror_ingest::expand(std::slice::from_ref(&pgn))?;
            let mut opts = IngestOptions::new(&user);
            opts.batch_size = batch_size as usize;
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
        None => crate::train::load_model(store_args, &player)
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
        if let Some((f, to)) = predictor.logits(&[pos]).pop() {
            let _ = mirror_model::inference::rank_with(pos, &f, &to);
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
    let (_, reports) = train(&net_cfg, &cfg, &small, &empty, &mut |_, _, _| {});
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
