//! Means with 95% intervals. Positions of one game are not independent (the same player,
//! the same opening), so the standard error is the cluster-robust one with games as
//! clusters: `Var(mean) = Σ_g (Σ_{i∈g} (x_i − mean))² / n²`, times `G / (G − 1)`.

use serde::Serialize;

/// A running mean of per-position values in `[0, 1]`, grouped by game.
#[derive(Clone, Debug, Default)]
pub struct Clustered {
    /// (game, value) in arrival order.
    values: Vec<(u32, f64)>,
}

/// An estimate with its 95% interval.
#[derive(Copy, Clone, Debug, PartialEq, Serialize)]
pub struct Estimate {
    /// The mean.
    pub value: f64,
    /// Lower end of the 95% interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
    /// Positions averaged.
    pub n: usize,
}

impl Estimate {
    /// Half the interval's width.
    pub fn half_width(&self) -> f64 {
        (self.high - self.low) / 2.0
    }
}

impl Clustered {
    /// Adds one position's value.
    pub fn push(&mut self, game: u32, value: f64) {
        self.values.push((game, value));
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// No values.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// The mean and its 95% interval (clamped to `[lo, hi]`); `None` without values.
    pub fn estimate_within(&self, lo: f64, hi: f64) -> Option<Estimate> {
        let n = self.values.len();
        if n == 0 {
            return None;
        }
        let mean = self.values.iter().map(|(_, v)| v).sum::<f64>() / n as f64;
        // Values arrive game by game; sum the residuals of each run of one game.
        let mut sum_sq = 0.0;
        let mut clusters = 0usize;
        let mut current: Option<u32> = None;
        let mut acc = 0.0;
        for &(g, v) in &self.values {
            if current != Some(g) {
                sum_sq += acc * acc;
                acc = 0.0;
                clusters += 1;
                current = Some(g);
            }
            acc += v - mean;
        }
        sum_sq += acc * acc;
        let correction = if clusters > 1 {
            clusters as f64 / (clusters as f64 - 1.0)
        } else {
            1.0
        };
        let se = (sum_sq * correction).sqrt() / n as f64;
        Some(Estimate {
            value: mean,
            low: (mean - 1.96 * se).max(lo),
            high: (mean + 1.96 * se).min(hi),
            n,
        })
    }

    /// [`Clustered::estimate_within`] for shares in `[0, 1]`.
    pub fn estimate(&self) -> Option<Estimate> {
        self.estimate_within(0.0, 1.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn independent_values_give_the_usual_interval() {
        // 400 games of one position each, 100 hits: p = 0.25, se = sqrt(p(1-p)/n) * sqrt(G/(G-1)).
        let mut c = Clustered::default();
        for g in 0..400 {
            c.push(g, if g % 4 == 0 { 1.0 } else { 0.0 });
        }
        let e = c.estimate().expect("values");
        assert!((e.value - 0.25).abs() < 1e-12);
        let se = (0.25f64 * 0.75 / 400.0).sqrt() * (400.0f64 / 399.0).sqrt();
        assert!((e.half_width() - 1.96 * se).abs() < 1e-9, "{e:?}");
    }

    #[test]
    fn correlated_games_widen_the_interval() {
        // Same 25% share, but each game's 10 positions are all hits or all misses.
        let mut c = Clustered::default();
        for g in 0..40 {
            for _ in 0..10 {
                c.push(g, if g % 4 == 0 { 1.0 } else { 0.0 });
            }
        }
        let mut flat = Clustered::default();
        for i in 0..400 {
            flat.push(i, if i % 4 == 0 { 1.0 } else { 0.0 });
        }
        let (a, b) = (c.estimate().expect("v"), flat.estimate().expect("v"));
        assert!((a.value - b.value).abs() < 1e-12);
        assert!(a.half_width() > 3.0 * b.half_width(), "{a:?} {b:?}");
        assert!(Clustered::default().estimate().is_none());
    }
}
