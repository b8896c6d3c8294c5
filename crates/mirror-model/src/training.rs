//! Training: Adam on the cross-entropy of the move played (plus [`VALUE_WEIGHT`] times
//! that of the game's outcome, for a network with a value head), the learning rate falling on a
//! half cosine from its start to a tenth of it over the epochs, mini-batches shuffled with
//! a seeded RNG, early stopping on validation top-1.

use burn::{
    module::Module,
    nn::loss::CrossEntropyLossConfig,
    optim::{AdamConfig, GradientsParams},
    tensor::Device,
};
use rand::{SeedableRng, seq::SliceRandom};
use rand_chacha::ChaCha8Rng;

use crate::{
    data::Samples,
    encoding::{MOVES, move_index},
    inference::rank_with,
    model::{Net, NetConfig},
};

/// How to train.
#[derive(Debug, Clone)]
pub struct TrainConfig {
    /// Most epochs.
    pub epochs: usize,
    /// Mini-batch size.
    pub batch: usize,
    /// Learning rate.
    pub lr: f64,
    /// Seed of initialisation and shuffling.
    pub seed: u64,
    /// Epochs without a better validation top-1 before stopping.
    pub patience: usize,
}

impl Default for TrainConfig {
    fn default() -> Self {
        TrainConfig {
            epochs: 10,
            batch: 256,
            lr: 1e-3,
            seed: 0,
            patience: 2,
        }
    }
}

/// The value head's share of the loss: its cross-entropy counts this much against the
/// move's. Half, so that the moves the player chose stay what the trunk learns first
/// (docs/model.md: the player's validation top-1 with it and without).
pub const VALUE_WEIGHT: f32 = 0.5;

/// What one epoch did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EpochReport {
    /// 1-based epoch.
    pub epoch: usize,
    /// Mean training loss (cross-entropy of the move played).
    pub train_loss: f64,
    /// Mean cross-entropy of the game's outcome (`None` without a value head).
    pub value_loss: Option<f64>,
    /// Validation top-1 over legal moves.
    pub val_top1: f64,
    /// Validation top-3.
    pub val_top3: f64,
    /// Training positions per second.
    pub positions_per_sec: f64,
}

impl EpochReport {
    /// The losses in words: "1.745", or "1.745 (outcome 0.981)" with a value head.
    pub fn losses(&self) -> String {
        match self.value_loss {
            None => format!("{:.3}", self.train_loss),
            Some(v) => format!("{:.3} (outcome {v:.3})", self.train_loss),
        }
    }
}

/// Top-1 and top-3 of ranking legal moves by the network on `samples`.
pub fn evaluate(net: &Net, samples: &Samples) -> (f64, f64) {
    if samples.is_empty() {
        return (0.0, 0.0);
    }
    let infer = net.valid();
    let device = Device::flex();
    let (mut top1, mut top3) = (0usize, 0usize);
    let idx: Vec<usize> = (0..samples.len()).collect();
    for chunk in idx.chunks(512) {
        let logits = infer
            .forward(samples.inputs(chunk, &device))
            .into_data()
            .try_to_vec::<f32>()
            .expect("the move head outputs f32 logits");
        for (j, &i) in chunk.iter().enumerate() {
            let pos = &samples.positions[i];
            let ranked = rank_with(pos, &logits[j * MOVES..(j + 1) * MOVES]);
            let turn = shakmaty::Position::turn(pos);
            let hit = |m: &shakmaty::Move| {
                move_index(m, turn).is_some_and(|k| k as i64 == samples.label[i])
            };
            if ranked.first().is_some_and(|(m, _)| hit(m)) {
                top1 += 1;
            }
            if ranked.iter().take(3).any(|(m, _)| hit(m)) {
                top3 += 1;
            }
        }
    }
    let n = samples.len() as f64;
    (top1 as f64 / n, top3 as f64 / n)
}

/// A copy of `net` that training the original leaves alone. A clone is not: Burn's clones
/// share batch norm's running statistics, which every training forward pass updates, so a
/// kept "best" network would drift with the one still training.
fn detached(net: &Net) -> Net {
    net.valid().train()
}

/// The learning rate at `step` of `steps`: a half cosine from `lr` down to `lr / 10`.
fn scheduled(lr: f64, step: usize, steps: usize) -> f64 {
    let t = step as f64 / steps.max(1) as f64;
    lr * (0.1 + 0.9 * 0.5 * (1.0 + (std::f64::consts::PI * t.min(1.0)).cos()))
}

/// Batches in one epoch over `positions` (the last one may be short): what [`train`]
/// reports as an epoch's batches.
pub fn batches_per_epoch(positions: usize, batch: usize) -> usize {
    positions.div_ceil(batch.max(1))
}

/// The device training runs on (autodiff over the CPU backend); a network to fine-tune
/// ([`train`]'s `start`) is loaded onto it.
pub fn training_device() -> Device {
    Device::flex().autodiff()
}

/// Trains a network, from `start` (a network of `net_cfg`'s shape on [`training_device`],
/// e.g. a pretrained base to fine-tune, with its validation top-1) or from a fresh seeded
/// initialisation; `progress` hears about every epoch and may print. Returns the network
/// of the best validation epoch (`start` itself when no epoch beats it), every epoch's
/// report, and which of them the network is from (`None`: the start, unchanged; never
/// `None` without a start).
pub fn train(
    net_cfg: &NetConfig,
    cfg: &TrainConfig,
    start: Option<(Net, f64)>,
    train_set: &Samples,
    val_set: &Samples,
    progress: &mut dyn FnMut(&EpochReport, usize, usize),
) -> (Net, Vec<EpochReport>, Option<usize>) {
    let device = training_device();
    device.seed(cfg.seed);
    // A start is the network to beat: training that only makes it worse keeps it.
    let (mut net, mut best) = match start {
        Some((net, top1)) => (detached(&net), Some((top1, net, None))),
        None => (net_cfg.init(&device), None),
    };
    let mut optim = AdamConfig::new().init();
    let loss_fn = CrossEntropyLossConfig::new().init(&device);
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let mut order: Vec<usize> = (0..train_set.len()).collect();
    let mut reports = Vec::new();
    let mut since_best = 0;
    for epoch in 1..=cfg.epochs.max(1) {
        order.shuffle(&mut rng);
        let started = std::time::Instant::now();
        let (mut loss_sum, mut value_sum, mut batches) = (0.0f64, 0.0f64, 0usize);
        let total = batches_per_epoch(order.len(), cfg.batch);
        let steps = total * cfg.epochs.max(1);
        for (b, chunk) in order.chunks(cfg.batch.max(1)).enumerate() {
            let (x, label, outcome) = train_set.batch(chunk, &device);
            let (logits, value) = net.forward_both(x);
            let mut loss = loss_fn.forward(logits, label);
            loss_sum += f64::from(loss.clone().into_scalar::<f32>());
            if let Some(value) = value {
                let value_loss = loss_fn.forward(value, outcome);
                value_sum += f64::from(value_loss.clone().into_scalar::<f32>());
                loss = loss + value_loss.mul_scalar(VALUE_WEIGHT);
            }
            batches += 1;
            let value_loss = net.has_value_head().then(|| value_sum / batches as f64);
            let grads = GradientsParams::from_grads(loss.backward(), &net);
            net = optim.step(
                scheduled(cfg.lr, (epoch - 1) * total + b, steps),
                net,
                grads,
            );
            if b % 20 == 0 {
                let partial = EpochReport {
                    epoch,
                    train_loss: loss_sum / batches as f64,
                    value_loss,
                    val_top1: f64::NAN,
                    val_top3: f64::NAN,
                    positions_per_sec: (b + 1) as f64 * cfg.batch as f64
                        / started.elapsed().as_secs_f64().max(1e-9),
                };
                progress(&partial, b + 1, total);
            }
        }
        let secs = started.elapsed().as_secs_f64().max(1e-9);
        let (val_top1, val_top3) = evaluate(&net, val_set);
        let report = EpochReport {
            epoch,
            train_loss: loss_sum / batches.max(1) as f64,
            value_loss: net
                .has_value_head()
                .then(|| value_sum / batches.max(1) as f64),
            val_top1,
            val_top3,
            positions_per_sec: train_set.len() as f64 / secs,
        };
        progress(&report, total, total);
        reports.push(report);
        if best.as_ref().is_none_or(|(b, _, _)| val_top1 > *b) {
            best = Some((val_top1, detached(&net), Some(reports.len() - 1)));
            since_best = 0;
        } else {
            since_best += 1;
            if since_best >= cfg.patience {
                break;
            }
        }
    }
    match best {
        Some((_, kept, at)) => (kept, reports, at),
        None => (net, reports, None),
    }
}
