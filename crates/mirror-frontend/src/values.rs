//! `mirror values`: a player's own piece values by logistic regression
//! ([`mirror_core::values`]), as a table beside the classic ones, or JSON.

use std::fmt;

use mirror_core::{
    GameRecord,
    values::{
        Sample, Steepness, ValuesError, capablanca_checks, fit_steepness, fit_values, game_samples,
    },
};
use serde::Serialize;

/// One of Capablanca's rules, checked on the fitted values.
#[derive(Debug, Serialize)]
pub struct Check {
    /// The rule ("B = N", ...).
    pub rule: &'static str,
    /// Whether it holds within half a pawn.
    pub holds: bool,
    /// Its left side, rounded.
    pub left: f64,
    /// Its right side, rounded.
    pub right: f64,
}

/// The fitted values of one player (or of every game of some files).
#[derive(Debug, Serialize)]
pub struct ValuesReport {
    /// Whose games.
    pub who: String,
    /// Games read.
    pub games: usize,
    /// Samples fitted.
    pub samples: usize,
    /// L2 regularisation.
    pub lambda: f64,
    /// P, N, B, R, Q with the pawn at 100, rounded.
    pub values: [i64; 5],
    /// The raw coefficients.
    pub raw: [f64; 5],
    /// The steepness of the score against the 1-3-3-5-9 balance, per pawn.
    pub steepness_per_pawn: Option<f64>,
    /// The binned data of the steepness: (balance, score, samples).
    pub bins: Vec<(i32, f64, usize)>,
    /// Capablanca's rules.
    pub capablanca: Vec<Check>,
    /// The steepness fit (for the chart).
    #[serde(skip)]
    pub steepness: Option<Steepness>,
}

impl ValuesReport {
    /// Fits `games` of `who` with regularisation `lambda`.
    pub fn fit(who: &str, games: &[GameRecord], lambda: f64) -> Result<ValuesReport, ValuesError> {
        let samples: Vec<Sample> = games.iter().flat_map(game_samples).collect();
        let values = fit_values(&samples, lambda)?;
        let steepness = fit_steepness(&samples, lambda);
        Ok(ValuesReport {
            who: who.to_string(),
            games: games.len(),
            samples: values.samples,
            lambda,
            values: values.normalized.map(|v| v.round() as i64),
            raw: values.theta,
            steepness_per_pawn: steepness.as_ref().map(|s| s.alpha),
            bins: steepness
                .as_ref()
                .map(|s| s.bins.clone())
                .unwrap_or_default(),
            capablanca: capablanca_checks(&values.normalized)
                .into_iter()
                .map(|(rule, holds, left, right)| Check {
                    rule,
                    holds,
                    left: left.round(),
                    right: right.round(),
                })
                .collect(),
            steepness,
        })
    }

    /// The score-vs-material chart as SVG, when the steepness could be fitted.
    pub fn chart(&self) -> Option<String> {
        let title = format!(
            "{}: score vs material balance ({} samples)",
            self.who, self.samples
        );
        self.steepness
            .as_ref()
            .map(|s| crate::plot::steepness_svg(s, &title))
    }
}

impl fmt::Display for ValuesReport {
    /// The fitted values beside the classic ones, the steepness and Capablanca's rules.
    fn fmt(&self, w: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            w,
            "Piece values of {}: {} samples from {} games (logistic regression, no intercept, lambda {})",
            self.who, self.samples, self.games, self.lambda
        )?;
        writeln!(
            w,
            "{:<8} {:>8} {:>10} {:>16}",
            "piece", "fitted", "1-3-3-5-9", "100/320/330/500/900"
        )?;
        let classic = [
            ("pawn", 100, 100),
            ("knight", 300, 320),
            ("bishop", 300, 330),
            ("rook", 500, 500),
            ("queen", 900, 900),
        ];
        for ((name, classic, modern), fitted) in classic.iter().zip(self.values) {
            writeln!(w, "{name:<8} {fitted:>8} {classic:>10} {modern:>16}")?;
        }
        if let Some(a) = self.steepness_per_pawn {
            writeln!(
                w,
                "steepness of the score against the 1-3-3-5-9 balance: {a:.3} per pawn (the article found about 0.7)"
            )?;
        }
        writeln!(w, "Capablanca's rules (equalities within half a pawn):")?;
        for c in &self.capablanca {
            writeln!(
                w,
                "  {:<18} {:<3}  ({} vs {})",
                c.rule,
                if c.holds { "yes" } else { "no" },
                c.left,
                c.right
            )?;
        }
        Ok(())
    }
}
