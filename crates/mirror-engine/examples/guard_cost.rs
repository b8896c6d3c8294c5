//! What the blunder guard costs on the positions that cost it most: legal positions with
//! nine queens a side (every move a capture sequence), every legal move checked as the
//! engine checks the model's top 64. Prints each position's time (best of 5) and the
//! worst; run with `cargo run --release -p mirror-engine --example guard_cost`.

use std::time::{Duration, Instant};

use mirror_engine::guard::acceptable;
use shakmaty::{Chess, Move, Position};

fn main() {
    let mut worst = Duration::ZERO;
    let mut total = Duration::ZERO;
    let mut n = 0u32;
    for line in include_str!("../data/nine-queens.fen").lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let Ok(pos) = mirror_core::notation::parse_fen(line) else {
            eprintln!("skipped (not a legal position): {line}");
            continue;
        };
        let pos: Chess = pos;
        let ranked: Vec<Move> = pos.legal_moves().into_iter().collect();
        let best = (0..5)
            .map(|_| {
                let started = Instant::now();
                std::hint::black_box(acceptable(&pos, &ranked, 64, 50));
                started.elapsed()
            })
            .min()
            .unwrap_or_default();
        println!(
            "{:>8.2} ms  {:>3} moves  {line}",
            best.as_secs_f64() * 1e3,
            ranked.len()
        );
        worst = worst.max(best);
        total += best;
        n += 1;
    }
    println!(
        "{n} positions: mean {:.2} ms, worst {:.2} ms (node budget {})",
        total.as_secs_f64() * 1e3 / f64::from(n.max(1)),
        worst.as_secs_f64() * 1e3,
        mirror_engine::guard::NODE_BUDGET
    );
}
