//! The report: a table for people and JSON for tools.

use std::fmt::Write as _;

use serde::Serialize;

use crate::stats::Estimate;

/// How the games were split.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SplitInfo {
    /// Percentages, `train,validation,test`.
    pub fractions: String,
    /// Training games (the book and the model learn from these only).
    pub train_games: usize,
    /// Validation games.
    pub val_games: usize,
    /// Test games (evaluated).
    pub test_games: usize,
    /// First and last date of the training games.
    pub train_dates: (String, String),
    /// First and last date of the validation games (`?` when there are none).
    pub val_dates: (String, String),
    /// First and last date of the test games.
    pub test_dates: (String, String),
    /// The games evaluated: `test` or `validation`.
    pub evaluated: String,
}

/// The games `mirror eval` builds the book from and the games it measures on (the test
/// games, or the validation games with `on_validation`), as ranges of the player's games
/// oldest first, with the split's description.
#[derive(Debug)]
pub struct EvalSplit {
    /// The training games.
    pub train: std::ops::Range<usize>,
    /// The games measured.
    pub measured: std::ops::Range<usize>,
    /// The split, as reports name it.
    pub info: SplitInfo,
}

impl EvalSplit {
    /// Splits `player`'s `games` by `split`; an error says when a set needed is empty.
    pub fn new(
        player: &str,
        games: &[(mirror_core::GameRecord, shakmaty::Color)],
        split: mirror_core::split::Fractions,
        on_validation: bool,
    ) -> Result<EvalSplit, crate::EvalError> {
        let sp = split.split(games.len());
        if sp.train.is_empty() || sp.test.is_empty() {
            return Err(crate::EvalError::Split(format!(
                "{player} has {} games: too few to split {split} into training and test games",
                games.len()
            )));
        }
        let measured = if on_validation { sp.val } else { sp.test };
        if measured.is_empty() {
            return Err(crate::EvalError::Split(format!(
                "the split {split} leaves no validation games to evaluate"
            )));
        }
        Ok(EvalSplit {
            train: sp.train,
            measured,
            info: SplitInfo::new(
                games,
                split,
                if on_validation { "validation" } else { "test" },
            ),
        })
    }
}

impl SplitInfo {
    /// How `games` (oldest first) fall into `split`, with the set `evaluated` ("test" or
    /// "validation"), as reports and the model's fairness check read it.
    pub fn new(
        games: &[(mirror_core::GameRecord, shakmaty::Color)],
        split: mirror_core::split::Fractions,
        evaluated: &str,
    ) -> SplitInfo {
        let sp = split.split(games.len());
        let dates = |r: std::ops::Range<usize>| mirror_core::split::date_range(&games[r]);
        SplitInfo {
            fractions: split.to_string(),
            train_games: sp.train.len(),
            val_games: sp.val.len(),
            test_games: sp.test.len(),
            train_dates: dates(sp.train.clone()),
            val_dates: dates(sp.val.clone()),
            test_dates: dates(sp.test.clone()),
            evaluated: evaluated.to_string(),
        }
    }
}

/// One predictor in one segment.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PredictorReport {
    /// Its name.
    pub name: String,
    /// Positions where it gave an answer (it counts as a miss elsewhere).
    pub answered: usize,
    /// Top-1 match over all positions of the segment.
    pub top1: Option<Estimate>,
    /// Top-3 match.
    pub top3: Option<Estimate>,
    /// For a predictor with a distribution (the model's softmax, the sampling engine):
    /// the mean natural log of the probability it gives the move played, over the
    /// positions where that is not 0.
    pub log_likelihood: Option<Estimate>,
    /// Positions where its distribution gives the move played probability 0 (the guard
    /// stops it, or a book policy never plays it).
    pub never: usize,
}

/// One segment of the test positions.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SegmentReport {
    /// `all`, `in book`, `out of book`, `plies 1-10`, ...
    pub name: String,
    /// Positions in it.
    pub positions: usize,
    /// Each predictor.
    pub predictors: Vec<PredictorReport>,
}

/// The player's promotions in the evaluated positions (the model always promotes to a
/// queen).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Promotions {
    /// Promotions played.
    pub played: usize,
    /// Of which to a queen.
    pub to_queen: usize,
}

impl Promotions {
    /// Counts the player's move `played` if it promotes.
    pub fn count(&mut self, played: shakmaty::Move) {
        if let Some(role) = played.promotion() {
            self.played += 1;
            self.to_queen += usize::from(role == shakmaty::Role::Queen);
        }
    }
}

/// Mistakes judged by Stockfish.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MistakeReport {
    /// Judge depth.
    pub depth: u32,
    /// Win% points lost that make a mistake.
    pub threshold: f64,
    /// Share of the player's moves that are mistakes.
    pub player: Option<Estimate>,
    /// Share of the mirror's (engine's) moves that are mistakes.
    pub mirror: Option<Estimate>,
    /// Mirror minus player, paired by position.
    pub difference: Option<Estimate>,
    /// Mean win% lost by the player's moves.
    pub player_mean_loss: Option<Estimate>,
    /// Mean win% lost by the mirror's moves.
    pub mirror_mean_loss: Option<Estimate>,
    /// Share of mistakes of the sampling mirror (play's and serve's defaults: the book
    /// sampled by habit, the guarded model sampled), one seeded draw a position.
    pub sampled: Option<Estimate>,
    /// Mean win% lost by those draws.
    pub sampled_mean_loss: Option<Estimate>,
    /// The mistake shares of the judged positions whose move has a time, in time trouble
    /// and not.
    pub by_clock: Vec<ClockMistakes>,
}

/// Mistake shares of the judged positions of one side of the clock.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ClockMistakes {
    /// `in time trouble` or `timed, not in time trouble`.
    pub name: String,
    /// Judged positions there.
    pub positions: usize,
    /// Share of the player's moves that are mistakes.
    pub player: Option<Estimate>,
    /// Share of the mirror's moves that are mistakes.
    pub mirror: Option<Estimate>,
}

/// The whole evaluation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    /// The player.
    pub player: String,
    /// The split (filled by the caller who made it).
    pub split: Option<SplitInfo>,
    /// Test positions evaluated.
    pub positions: usize,
    /// The seed.
    pub seed: u64,
    /// The engine's fallback (the model's description, or the random policy).
    pub fallback: String,
    /// The engine's policy in book positions.
    pub policy: String,
    /// The sampler's tiers.
    pub tiers: String,
    /// Fewest training games of a book move.
    pub min_games: u32,
    /// Stockfish's name, when used.
    pub stockfish: Option<String>,
    /// Every segment, `all` first.
    pub segments: Vec<SegmentReport>,
    /// The player's promotions.
    pub promotions: Promotions,
    /// Mistakes, when Stockfish judged.
    pub mistakes: Option<MistakeReport>,
}

fn pct(e: Option<&Estimate>) -> String {
    match e {
        Some(e) => format!("{:5.1}% ±{:4.1}", 100.0 * e.value, 100.0 * e.half_width()),
        None => format!("{:>12}", "—"),
    }
}

impl Report {
    /// The table.
    pub fn table(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "mirror eval: {}", self.player);
        let mut evaluated = "test";
        if let Some(s) = &self.split {
            let _ = writeln!(
                out,
                "split {} by date: train {} games ({} .. {}), validation {}, test {} ({} .. {})",
                s.fractions,
                s.train_games,
                s.train_dates.0,
                s.train_dates.1,
                s.val_games,
                s.test_games,
                s.test_dates.0,
                s.test_dates.1
            );
            evaluated = &s.evaluated;
        }
        let _ = writeln!(
            out,
            "{} {evaluated} positions with {} to move; seed {}; engine policy {} (tiers {}), min games {}; fallback: {}",
            self.positions,
            self.player,
            self.seed,
            self.policy,
            self.tiers,
            self.min_games,
            self.fallback
        );
        let _ = writeln!(
            out,
            "match with the move played, 95% interval clustered by game; a predictor without an answer counts as a miss (answered = where it had one)"
        );
        // A clock's segment without positions (no test game has clocks) is left out.
        for seg in self
            .segments
            .iter()
            .filter(|s| s.positions > 0 || !s.name.contains("time trouble"))
        {
            let _ = writeln!(out);
            let _ = writeln!(out, "{} ({} positions)", seg.name, seg.positions);
            let _ = writeln!(
                out,
                "  {:<28} {:>9}  {:>12}  {:>12}  {:>14}",
                "predictor", "answered", "top-1", "top-3", "log-lik. (p=0)"
            );
            for p in &seg.predictors {
                let ll = p.log_likelihood.as_ref().map_or(String::new(), |e| {
                    format!("{:6.3} ±{:.3} ({})", e.value, e.half_width(), p.never)
                });
                let _ = writeln!(
                    out,
                    "  {:<28} {:>9}  {}  {}  {}",
                    p.name,
                    p.answered,
                    pct(p.top1.as_ref()),
                    pct(p.top3.as_ref()),
                    ll
                );
            }
        }
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "promotions played: {}, to a queen: {}",
            self.promotions.played, self.promotions.to_queen
        );
        if let Some(m) = &self.mistakes {
            let _ = writeln!(out);
            let n = m.player.as_ref().map_or(0, |e| e.n);
            let _ = writeln!(
                out,
                "mistakes (lose >= {} win% points; Stockfish depth {}, {} positions):",
                m.threshold, m.depth, n
            );
            let _ = writeln!(out, "  player's moves       {}", pct(m.player.as_ref()));
            let _ = writeln!(out, "  mirror's moves       {}", pct(m.mirror.as_ref()));
            let _ = writeln!(
                out,
                "  mirror - player      {}",
                match &m.difference {
                    Some(d) => format!(
                        "{:+5.1} points ±{:.1}",
                        100.0 * d.value,
                        100.0 * d.half_width()
                    ),
                    None => "—".into(),
                }
            );
            let loss = |e: Option<&Estimate>| {
                e.map_or_else(
                    || "—".into(),
                    |e| format!("{:.2} ±{:.2}", e.value, e.half_width()),
                )
            };
            let _ = writeln!(
                out,
                "  mean win% lost: player {}, mirror {}",
                loss(m.player_mean_loss.as_ref()),
                loss(m.mirror_mean_loss.as_ref())
            );
            let _ = writeln!(
                out,
                "  the mirror sampling, as play and serve do (a draw a position): mistakes {}, mean win% lost {}",
                pct(m.sampled.as_ref()).trim(),
                loss(m.sampled_mean_loss.as_ref())
            );
            for c in m.by_clock.iter().filter(|c| c.positions > 0) {
                let _ = writeln!(
                    out,
                    "  {} ({} positions): player {}, mirror {}",
                    c.name,
                    c.positions,
                    pct(c.player.as_ref()),
                    pct(c.mirror.as_ref())
                );
            }
        }
        out
    }
}
