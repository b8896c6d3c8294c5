//! `mirror bench model`: the CNN's inference latency for one position (as the engine asks,
//! past the position cache) and its training throughput. Measured and printed
//! ([`std::fmt::Display`]), never asserted.

use std::{fmt, time::Instant};

use mirror_core::GameRecord;
use shakmaty::Color;

use crate::{
    ModelError, NetConfig, Predictor,
    data::Samples,
    training::{TrainConfig, train},
};

/// The figures of [`measure`].
#[derive(Clone, Debug)]
pub struct ModelBench {
    /// The model's hidden layers and channels.
    pub layers: usize,
    /// Hidden channels.
    pub channels: usize,
    /// Inference latency of one position, median and 99th percentile, ms.
    pub p50_ms: f64,
    /// 99th percentile, ms.
    pub p99_ms: f64,
    /// Positions timed.
    pub positions: usize,
    /// Training: positions per second of one epoch with the model's shape (`None`: no
    /// epoch report).
    pub train_per_sec: Option<f64>,
    /// Its mini-batch.
    pub batch: usize,
    /// Its positions.
    pub train_positions: usize,
}

impl fmt::Display for ModelBench {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "inference, one position ({} layers x {} channels): p50 {:.2} ms, p99 {:.2} ms over {} positions",
            self.layers, self.channels, self.p50_ms, self.p99_ms, self.positions
        )?;
        if let Some(rate) = self.train_per_sec {
            write!(
                f,
                "\ntraining: {rate:.0} positions/s (batch {}, {} positions, Adam)",
                self.batch, self.train_positions
            )?;
        }
        Ok(())
    }
}

/// Times `predictor` on the positions of the player's last 200 `games` (2,000 at most),
/// then one epoch of 4,096 of them with its shape.
pub fn measure(
    predictor: &Predictor,
    games: &[(GameRecord, Color)],
) -> Result<ModelBench, ModelError> {
    let mut s = Samples::default();
    for (g, c) in games.iter().rev().take(200) {
        s.add_game(g, *c, |_| true);
    }
    if s.len() < 100 {
        return Err(ModelError::TooFewPositions {
            positions: s.len(),
            needed: 100,
        });
    }
    let mut lat: Vec<f64> = Vec::with_capacity(s.len().min(2000));
    for pos in s.positions.iter().take(2000) {
        let t = Instant::now();
        if let Some(l) = predictor.logits(&[(pos, None)]).pop() {
            let _ = crate::inference::rank_with(pos, &l);
        }
        lat.push(t.elapsed().as_secs_f64() * 1e3);
    }
    lat.sort_by(f64::total_cmp);
    let pct = |p: f64| lat[((lat.len() - 1) as f64 * p).round() as usize];
    let first: Vec<usize> = (0..4096.min(s.len())).collect();
    let small = s.subset(&first);
    let net_cfg = NetConfig::new()
        .with_channels(predictor.meta.channels)
        .with_layers(predictor.meta.layers);
    let cfg = TrainConfig {
        epochs: 1,
        ..TrainConfig::default()
    };
    let (_, reports, _) = train(
        &net_cfg,
        &cfg,
        None,
        &small,
        &Samples::default(),
        &mut |_, _, _| {},
    );
    Ok(ModelBench {
        layers: predictor.meta.layers,
        channels: predictor.meta.channels,
        p50_ms: pct(0.5),
        p99_ms: pct(0.99),
        positions: lat.len(),
        train_per_sec: reports.first().map(|r| r.positions_per_sec),
        batch: cfg.batch,
        train_positions: small.len(),
    })
}
