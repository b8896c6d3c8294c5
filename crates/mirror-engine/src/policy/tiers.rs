//! The tiered sampler of MyLittleEngine (see `shared/SEEDS.md`): among the player's own
//! moves from a position, take the first non-empty tier — win rate > 0.5; win+draw > 0.5;
//! win > 0.4; win+draw > 0.4; win+draw > 0.3; win+draw > 0.0 — and pick within it at
//! random, weighted by how often each move was played.
//!
//! Pure logic: the caller supplies the uniform random number.

use std::{fmt, str::FromStr};

use mirror_core::MoveStats;

use super::BookMove;

/// What a tier measures.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Metric {
    /// Win rate.
    Win,
    /// Win rate plus draw rate.
    WinDraw,
}

/// One tier: moves whose metric is strictly above the threshold.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Tier {
    /// The measure.
    pub metric: Metric,
    /// Strict lower bound.
    pub threshold: f64,
}

impl Tier {
    /// Whether a move with these statistics is in the tier.
    pub fn accepts(&self, s: &MoveStats) -> bool {
        let value = match self.metric {
            Metric::Win => s.win_rate(),
            Metric::WinDraw => s.win_rate() + s.draw_rate(),
        };
        s.games() > 0 && value > self.threshold
    }
}

impl fmt::Display for Tier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = match self.metric {
            Metric::Win => "win",
            Metric::WinDraw => "win+draw",
        };
        write!(f, "{m} > {}", self.threshold)
    }
}

/// An ordered list of tiers.
#[derive(Clone, Debug, PartialEq)]
pub struct Tiers(pub Vec<Tier>);

impl Default for Tiers {
    /// The seed's six tiers.
    fn default() -> Self {
        use Metric::{Win, WinDraw};
        Tiers(
            [
                (Win, 0.5),
                (WinDraw, 0.5),
                (Win, 0.4),
                (WinDraw, 0.4),
                (WinDraw, 0.3),
                (WinDraw, 0.0),
            ]
            .into_iter()
            .map(|(metric, threshold)| Tier { metric, threshold })
            .collect(),
        )
    }
}

/// Tiers that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid tiers {0:?}: expected comma-separated w>X or wd>X with X in [0, 1], \
     e.g. \"w>0.5,wd>0.5,w>0.4,wd>0.4,wd>0.3,wd>0\""
)]
pub struct ParseTiersError(pub String);

impl FromStr for Tiers {
    type Err = ParseTiersError;

    fn from_str(s: &str) -> Result<Tiers, ParseTiersError> {
        let err = || ParseTiersError(s.to_string());
        let mut out = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (m, t) = part.split_once('>').ok_or_else(err)?;
            let metric = match m.trim().to_ascii_lowercase().as_str() {
                "w" | "win" => Metric::Win,
                "wd" | "win+draw" | "windraw" => Metric::WinDraw,
                _ => return Err(err()),
            };
            let threshold: f64 = t.trim().parse().map_err(|_| err())?;
            if !(0.0..=1.0).contains(&threshold) {
                return Err(err());
            }
            out.push(Tier { metric, threshold });
        }
        if out.is_empty() {
            return Err(err());
        }
        Ok(Tiers(out))
    }
}

impl fmt::Display for Tiers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, t) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            let m = match t.metric {
                Metric::Win => "w",
                Metric::WinDraw => "wd",
            };
            write!(f, "{m}>{}", t.threshold)?;
        }
        Ok(())
    }
}

/// The tier that applies and each of its moves with its probability. Never empty: a
/// tier without moves is not selected.
#[derive(Clone, Debug, PartialEq)]
pub struct Selection {
    /// Index into the tiers (0 = first).
    pub tier: usize,
    /// The tier's rule.
    pub rule: Tier,
    /// The moves of the tier with their probabilities (summing to 1), most played first.
    pub moves: Vec<(BookMove, f64)>,
}

impl Selection {
    /// The move for a uniform random number `u` in `[0, 1)`: walks the cumulative
    /// probabilities.
    pub fn pick(&self, u: f64) -> &BookMove {
        // Rounding can leave the sum a hair under 1: the last move takes the rest.
        let i = crate::draw::draw_index(true, self.moves.iter().map(|(_, p)| *p), u);
        &self
            .moves
            .get(i)
            .expect("select() never returns a tier without moves")
            .0
    }

    /// The probability the tier gives `mv` (0 outside it).
    pub fn probability(&self, mv: &shakmaty::Move) -> f64 {
        self.moves
            .iter()
            .find(|(c, _)| c.mv == *mv)
            .map_or(0.0, |(_, p)| *p)
    }

    /// The tier's moves with their probabilities, likeliest first (ties by UCI).
    pub fn ranked(&self) -> Vec<(shakmaty::Move, f64)> {
        let mut out: Vec<(shakmaty::Move, f64, String)> = self
            .moves
            .iter()
            .map(|(c, p)| (c.mv, *p, c.code.to_string()))
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.2.cmp(&b.2)));
        out.into_iter().map(|(m, p, _)| (m, p)).collect()
    }
}

/// The first non-empty tier among `candidates` (moves with fewer than `min_games` games
/// are left out), or `None` when no tier has a move.
pub fn select(candidates: &[BookMove], tiers: &Tiers, min_games: u32) -> Option<Selection> {
    let eligible: Vec<&BookMove> = candidates
        .iter()
        .filter(|c| c.stats.games() >= min_games.max(1))
        .collect();
    for (i, tier) in tiers.0.iter().enumerate() {
        let mut inside: Vec<BookMove> = eligible
            .iter()
            .filter(|c| tier.accepts(&c.stats))
            .map(|c| **c)
            .collect();
        if inside.is_empty() {
            continue;
        }
        inside.sort_by(|a, b| {
            b.stats
                .games()
                .cmp(&a.stats.games())
                .then(a.code.cmp(&b.code))
        });
        let total: f64 = inside.iter().map(|c| f64::from(c.stats.games())).sum();
        return Some(Selection {
            tier: i,
            rule: *tier,
            moves: inside
                .into_iter()
                .map(|c| (c, f64::from(c.stats.games()) / total))
                .collect(),
        });
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirror_core::MoveCode;
    use shakmaty::{Chess, Position};

    /// A distinct legal move of the start position per number (its code is the number).
    fn cand(code: u16, w: u32, d: u32, l: u32) -> BookMove {
        let legal = Chess::default().legal_moves();
        BookMove {
            mv: legal[usize::from(code)],
            code: MoveCode(code),
            stats: MoveStats {
                wins: w,
                draws: d,
                losses: l,
                ..MoveStats::default()
            },
        }
    }

    fn probs(sel: &Selection) -> Vec<(u16, f64)> {
        sel.moves.iter().map(|(c, p)| (c.code.0, *p)).collect()
    }

    #[test]
    fn the_seeds_example_two_thirds_one_third() {
        // e4 played 200 times and d4 100 times, both winning more than half.
        let c = [cand(1, 120, 20, 60), cand(2, 60, 10, 30)];
        let sel = select(&c, &Tiers::default(), 1).expect("tier");
        assert_eq!(sel.tier, 0);
        let p = probs(&sel);
        assert_eq!(p[0].0, 1);
        assert!((p[0].1 - 2.0 / 3.0).abs() < 1e-12);
        assert!((p[1].1 - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(sel.pick(0.0).code.0, 1);
        assert_eq!(sel.pick(0.6666).code.0, 1);
        assert_eq!(sel.pick(0.6667).code.0, 2);
        assert_eq!(sel.pick(0.999_999).code.0, 2);
        // Rounding below 1 still lands on a move of the tier.
        assert_eq!(sel.pick(1.0).code.0, 2);
    }

    #[test]
    fn each_tier_in_order() {
        let t = Tiers::default();
        // Tier 1 (win > 0.5) beats a more played move that only draws.
        let c = [cand(1, 6, 0, 4), cand(2, 0, 50, 0)];
        let s = select(&c, &t, 1).expect("tier");
        assert_eq!((s.tier, probs(&s)), (0, vec![(1, 1.0)]));
        // Tier 2: win+draw > 0.5 (win exactly 0.5 is not > 0.5).
        let c = [cand(1, 5, 1, 4), cand(2, 5, 0, 5)];
        let s = select(&c, &t, 1).expect("tier");
        assert_eq!((s.tier, probs(&s)), (1, vec![(1, 1.0)]));
        // Tier 3: win > 0.4 (win+draw not > 0.5).
        let c = [cand(1, 9, 0, 11), cand(2, 1, 0, 9)];
        let s = select(&c, &t, 1).expect("tier");
        assert_eq!((s.tier, probs(&s)), (2, vec![(1, 1.0)]));
        // Tier 4: win+draw > 0.4.
        let c = [cand(1, 3, 6, 11), cand(2, 0, 0, 5)];
        let s = select(&c, &t, 1).expect("tier");
        assert_eq!((s.tier, probs(&s)), (3, vec![(1, 1.0)]));
        // Tier 5: win+draw > 0.3.
        let c = [cand(1, 1, 2, 6), cand(2, 0, 0, 5)];
        let s = select(&c, &t, 1).expect("tier");
        assert_eq!((s.tier, probs(&s)), (4, vec![(1, 1.0)]));
        // Tier 6: anything not lost every time; weighted 3:1.
        let c = [cand(1, 1, 0, 11), cand(2, 0, 1, 3), cand(3, 0, 0, 7)];
        let s = select(&c, &t, 1).expect("tier");
        assert_eq!(s.tier, 5);
        assert_eq!(probs(&s), vec![(1, 0.75), (2, 0.25)]);
        // Nothing: every move always lost.
        assert!(select(&[cand(1, 0, 0, 3)], &t, 1).is_none());
        assert!(select(&[], &t, 1).is_none());
    }

    #[test]
    fn minimum_games_filters_moves() {
        let c = [cand(1, 2, 0, 0), cand(2, 3, 1, 4)];
        let s = select(&c, &Tiers::default(), 3).expect("tier");
        // The 2-game winner is out; the 8-game move is in tier 2 (win+draw = 0.5? no: 0.5
        // is not > 0.5) -> tier 3 (win 0.375 no) -> tier 4 (win+draw 0.5 > 0.4).
        assert_eq!((s.tier, probs(&s)), (3, vec![(2, 1.0)]));
    }

    #[test]
    fn tiers_parse_and_print() {
        let t: Tiers = "w>0.5,wd>0.5,w>0.4,wd>0.4,wd>0.3,wd>0"
            .parse()
            .expect("tiers");
        assert_eq!(t, Tiers::default());
        assert_eq!(t.to_string().parse::<Tiers>(), Ok(t));
        for bad in ["", "x>0.5", "w>1.5", "w0.5", "w>abc"] {
            assert!(bad.parse::<Tiers>().is_err(), "{bad}");
        }
    }
}
