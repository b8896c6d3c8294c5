//! Per-edge statistics and the dimensions they are split by.

use shakmaty::Color;

use crate::{
    game::{GameSource, Outcome},
    time::{Date, Month, TimeClass},
};

/// The dimensions every edge is split by, so that each filter is a query, not a re-ingest:
/// the player's colour in the game, time class, rated/casual, month, the opponent's rating
/// and where the game was played.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct EdgeDims {
    /// The colour the *player* had in the game (not necessarily the side to move).
    pub color: Color,
    /// Time class of the game.
    pub time_class: TimeClass,
    /// Rated game.
    pub rated: bool,
    /// Month of the game, when known.
    pub month: Option<Month>,
    /// The opponent's rating in the game, when known (filters by opponent strength
    /// answer exactly from it).
    pub opponent_rating: Option<u16>,
    /// Where the game was played (Chess.com, lichess, over the board).
    pub source: GameSource,
}

impl EdgeDims {
    /// The dimensions of every edge of `game`, played by the player with `color`.
    pub fn of_game(game: &crate::GameRecord, color: Color) -> EdgeDims {
        EdgeDims {
            color,
            time_class: game.time_class,
            rated: game.rated,
            month: game.date.and_then(|d| d.month()),
            opponent_rating: game.side(!color).rating,
            source: game.source(),
        }
    }

    /// One byte for colour, rated, time class and source: bit 0 colour (1 = black), bit 1
    /// rated, bits 2-4 time class, bits 5-6 source.
    pub fn flags(self) -> u8 {
        crate::codec::color_bit(self.color)
            | (u8::from(self.rated) << 1)
            | ((self.time_class as u8) << 2)
            | (self.source.code() << 5)
    }

    /// Inverse of [`EdgeDims::flags`] with the month and the opponent's rating (0 =
    /// unknown, as stored).
    /// `None` when the source bits hold no known source.
    pub fn from_parts(flags: u8, month: u16, opponent_rating: u16) -> Option<EdgeDims> {
        Some(EdgeDims {
            color: crate::codec::color_from_bit(flags & 1).expect("one bit is 0 or 1"),
            rated: flags & 2 == 2,
            time_class: TimeClass::from_code((flags >> 2) & 7),
            month: Month::from_u16(month),
            opponent_rating: (opponent_rating != 0).then_some(opponent_rating),
            source: GameSource::from_code((flags >> 5) & 3)?,
        })
    }
}

/// Statistics of one edge (or a sum of edges), seen from the player's side.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct MoveStats {
    /// Games the player won.
    pub wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Games the player lost.
    pub losses: u32,
    /// Sum of the opponents' ratings over the games where it is known.
    pub rating_sum: u64,
    /// Number of games whose opponent rating is known.
    pub rated_games: u32,
    /// First date played (`YYYYMMDD`, 0 = unknown).
    pub first: u32,
    /// Last date played (`YYYYMMDD`, 0 = unknown).
    pub last: u32,
    /// Games in which the move's time is known ([`crate::clock`]).
    pub timed: u32,
    /// Milliseconds those moves took in all.
    pub time_ms: u64,
    /// How many of them were made in time trouble.
    pub trouble: u32,
}

/// Size of [`MoveStats::encode`].
pub const STATS_LEN: usize = 48;
/// The bytes of [`MoveStats::encode`] before the times (the stores leave the times out of
/// rows without any).
pub const STATS_UNTIMED_LEN: usize = 32;

/// A score with its 95% confidence interval.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct ScoreInterval {
    /// The observed score, 0 to 1.
    pub score: f64,
    /// Lower bound.
    pub low: f64,
    /// Upper bound.
    pub high: f64,
}

/// Games below which a move's score means little: the table marks such rows (its 95%
/// interval spans more than half the scale at a 50% score).
pub const FEW_GAMES: u32 = 10;

impl ScoreInterval {
    /// The Wilson score interval (z = 1.96) of score `p` over `n` games (draws count half).
    pub fn wilson(p: f64, n: f64) -> ScoreInterval {
        const Z: f64 = 1.959_963_984_540_054;
        let z2 = Z * Z;
        let denom = 1.0 + z2 / n;
        let centre = (p + z2 / (2.0 * n)) / denom;
        let half = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
        ScoreInterval {
            score: p,
            low: (centre - half).max(0.0),
            high: (centre + half).min(1.0),
        }
    }
}

/// The most games one stored row (or total) may count: far more than any player plays
/// (a row is one player's games of one move, month and kind of game), small enough that
/// the sums of a position's rows cannot overflow.
pub const MAX_ROW_GAMES: u32 = 1 << 24;

impl MoveStats {
    /// Statistics of a single game.
    pub fn from_game(outcome: Outcome, opponent_rating: Option<u16>, date: Option<Date>) -> Self {
        let d = date.map_or(0, Date::to_u32);
        MoveStats {
            wins: u32::from(outcome == Outcome::Win),
            draws: u32::from(outcome == Outcome::Draw),
            losses: u32::from(outcome == Outcome::Loss),
            rating_sum: opponent_rating.map_or(0, u64::from),
            rated_games: u32::from(opponent_rating.is_some()),
            first: d,
            last: d,
            ..MoveStats::default()
        }
    }

    /// These statistics with the time of the game's move through the edge, when known.
    pub fn with_time(self, time: Option<crate::clock::MoveTime>) -> MoveStats {
        match time {
            None => self,
            Some(t) => MoveStats {
                timed: 1,
                time_ms: u64::from(t.spent_ms),
                trouble: u32::from(t.trouble),
                ..self
            },
        }
    }

    /// Whether any time is counted (timed moves, their milliseconds or time trouble).
    pub fn has_times(&self) -> bool {
        self.timed != 0 || self.time_ms != 0 || self.trouble != 0
    }

    /// The average time of the timed moves, in seconds; `None` when none is timed.
    pub fn average_seconds(&self) -> Option<f64> {
        (self.timed > 0).then(|| self.time_ms as f64 / 1000.0 / f64::from(self.timed))
    }

    /// Adds `other` into `self` (saturating: only damaged rows, refused by
    /// [`MoveStats::decode`], could count 2^32 games).
    pub fn merge(&mut self, other: &MoveStats) {
        self.wins = self.wins.saturating_add(other.wins);
        self.draws = self.draws.saturating_add(other.draws);
        self.losses = self.losses.saturating_add(other.losses);
        self.rating_sum = self.rating_sum.saturating_add(other.rating_sum);
        self.rated_games = self.rated_games.saturating_add(other.rated_games);
        self.first = match (self.first, other.first) {
            (0, o) => o,
            (s, 0) => s,
            (s, o) => s.min(o),
        };
        self.last = self.last.max(other.last);
        self.timed = self.timed.saturating_add(other.timed);
        self.time_ms = self.time_ms.saturating_add(other.time_ms);
        self.trouble = self.trouble.saturating_add(other.trouble);
    }

    /// Games counted.
    pub fn games(&self) -> u32 {
        self.wins
            .saturating_add(self.draws)
            .saturating_add(self.losses)
    }

    /// Share of wins, 0 when there are no games.
    pub fn win_rate(&self) -> f64 {
        ratio(self.wins, self.games())
    }

    /// Share of draws.
    pub fn draw_rate(&self) -> f64 {
        ratio(self.draws, self.games())
    }

    /// Share of losses.
    pub fn loss_rate(&self) -> f64 {
        ratio(self.losses, self.games())
    }

    /// The score (wins + half the draws, per game) with its 95% Wilson interval; `None`
    /// without games. The interval is honest about small samples: a move won once scores
    /// 1.0 within [0.21, 1.0], a move scored 30/50 0.6 within [0.46, 0.72].
    pub fn score_interval(&self) -> Option<ScoreInterval> {
        let n = self.games();
        (n > 0).then(|| {
            let score = (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(n);
            ScoreInterval::wilson(score, f64::from(n))
        })
    }

    /// Average opponent rating, when any is known.
    pub fn average_opponent_rating(&self) -> Option<u32> {
        (self.rated_games > 0).then(|| {
            u32::try_from(self.rating_sum / u64::from(self.rated_games)).unwrap_or(u32::MAX)
        })
    }

    /// Performance rating by the "algorithm of 400" that lichess's explorer uses: average
    /// opponent rating plus 400 x (wins - losses) / games. `None` without opponent ratings.
    pub fn performance(&self) -> Option<i32> {
        let avg = i64::from(self.average_opponent_rating()?);
        let n = i64::from(self.games().max(1));
        let perf = avg + 400 * (i64::from(self.wins) - i64::from(self.losses)) / n;
        i32::try_from(perf).ok()
    }

    /// Fixed-size little-endian form (the store's value format).
    pub fn encode(&self) -> [u8; STATS_LEN] {
        let mut out = [0u8; STATS_LEN];
        out[0..4].copy_from_slice(&self.wins.to_le_bytes());
        out[4..8].copy_from_slice(&self.draws.to_le_bytes());
        out[8..12].copy_from_slice(&self.losses.to_le_bytes());
        out[12..20].copy_from_slice(&self.rating_sum.to_le_bytes());
        out[20..24].copy_from_slice(&self.rated_games.to_le_bytes());
        out[24..28].copy_from_slice(&self.first.to_le_bytes());
        out[28..32].copy_from_slice(&self.last.to_le_bytes());
        out[32..36].copy_from_slice(&self.timed.to_le_bytes());
        out[36..44].copy_from_slice(&self.time_ms.to_le_bytes());
        out[44..48].copy_from_slice(&self.trouble.to_le_bytes());
        out
    }

    /// Inverse of [`MoveStats::encode`]; `None` when `bytes` is too short or cannot be a
    /// count of games: more than [`MAX_ROW_GAMES`] games, more rated games than games, a
    /// rating sum over 65,535 (a rating's largest value) a rated game, more timed moves than
    /// games or more moves in time trouble than timed ones, over 2^32 ms a timed move
    /// (damaged bytes; the sums of such values would overflow).
    pub fn decode(bytes: &[u8]) -> Option<MoveStats> {
        let b: &[u8; STATS_LEN] = bytes.get(..STATS_LEN)?.try_into().ok()?;
        let u32_at = |i: usize| u32::from_le_bytes([b[i], b[i + 1], b[i + 2], b[i + 3]]);
        let u64_at = |i: usize| {
            let mut v = [0u8; 8];
            v.copy_from_slice(&b[i..i + 8]);
            u64::from_le_bytes(v)
        };
        let stats = MoveStats {
            wins: u32_at(0),
            draws: u32_at(4),
            losses: u32_at(8),
            rating_sum: u64_at(12),
            rated_games: u32_at(20),
            first: u32_at(24),
            last: u32_at(28),
            timed: u32_at(32),
            time_ms: u64_at(36),
            trouble: u32_at(44),
        };
        let games = u64::from(stats.wins) + u64::from(stats.draws) + u64::from(stats.losses);
        let sane = games <= u64::from(MAX_ROW_GAMES)
            && stats.rated_games as u64 <= games
            && stats.rating_sum <= u64::from(u16::MAX) * u64::from(stats.rated_games)
            && u64::from(stats.timed) <= games
            && stats.trouble <= stats.timed
            && stats.time_ms <= u64::from(u32::MAX) * u64::from(stats.timed);
        sane.then_some(stats)
    }
}

fn ratio(a: u32, b: u32) -> f64 {
    if b == 0 {
        0.0
    } else {
        f64::from(a) / f64::from(b)
    }
}

/// The two-sided p-value of Fisher's exact test of the 2x2 table `[[a, b], [c, d]]`
/// (`table = [a, b, c, d]`): how likely a split at least this uneven is when the rows do
/// not differ. `None` for a table too large for the test (a count above `i32::MAX`).
pub fn fisher_exact(table: [u32; 4]) -> Option<f64> {
    fishers_exact::fishers_exact(&table)
        .ok()
        .map(|p| p.two_tail_pvalue.clamp(0.0, 1.0))
}

/// The smallest two-sided p-value Fisher's exact test can give for a 2x2 table with the
/// margins of `table` (the most uneven tables with them): where it is not below a level,
/// no outcome could be significant, and the table is better left out of the tests whose
/// p-values are adjusted together (Tarone's filter) than counted as one more test.
pub fn fisher_least_p(table: [u32; 4]) -> Option<f64> {
    let [a, b, c, d] = table;
    let (row1, row2, col1) = (a + b, c + d, a + c);
    let low = col1.saturating_sub(row2);
    let high = row1.min(col1);
    let at = |a: u32| fisher_exact([a, row1 - a, col1 - a, row2 - (col1 - a)]);
    Some(at(low)?.min(at(high)?))
}

/// Benjamini-Hochberg's q-values of `p_values` (the same order): a difference whose
/// q-value is below a level holds with at most that share of false findings among those
/// kept, however many tests were run.
pub fn benjamini_hochberg(p_values: &[f64]) -> Vec<f64> {
    adjustp::adjust(p_values, adjustp::Procedure::BenjaminiHochberg)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_and_rates() {
        let d1 = Date::from_pgn("2020.01.05");
        let d2 = Date::from_pgn("2019.03.01");
        let mut s = MoveStats::from_game(Outcome::Win, Some(1500), d1);
        s.merge(&MoveStats::from_game(Outcome::Loss, None, d2));
        s.merge(&MoveStats::from_game(Outcome::Draw, Some(1700), None));
        assert_eq!((s.wins, s.draws, s.losses, s.games()), (1, 1, 1, 3));
        assert_eq!(s.average_opponent_rating(), Some(1600));
        assert_eq!(s.performance(), Some(1600));
        assert_eq!(s.first, 20_190_301);
        assert_eq!(s.last, 20_200_105);
        assert!((s.win_rate() - 1.0 / 3.0).abs() < 1e-12);
        assert_eq!(MoveStats::decode(&s.encode()), Some(s));
        assert_eq!(MoveStats::decode(&[0; 31]), None);
        let t = |spent_ms, trouble| crate::clock::MoveTime {
            spent_ms,
            left_ms: None,
            trouble,
        };
        s.merge(&MoveStats::from_game(Outcome::Win, None, None).with_time(Some(t(1_500, true))));
        s.merge(&MoveStats::from_game(Outcome::Win, None, None).with_time(Some(t(500, false))));
        s.merge(&MoveStats::from_game(Outcome::Win, None, None).with_time(None));
        assert_eq!((s.games(), s.timed, s.time_ms, s.trouble), (6, 2, 2_000, 1));
        assert_eq!(s.average_seconds(), Some(1.0));
        assert_eq!(MoveStats::decode(&s.encode()), Some(s));
        let too_many_timed = MoveStats { timed: 7, ..s };
        assert_eq!(MoveStats::decode(&too_many_timed.encode()), None);
        let trouble_untimed = MoveStats { trouble: 3, ..s };
        assert_eq!(MoveStats::decode(&trouble_untimed.encode()), None);
    }

    #[test]
    fn performance_by_algorithm_of_400() {
        let mut s = MoveStats::default();
        for _ in 0..3 {
            s.merge(&MoveStats::from_game(Outcome::Win, Some(2000), None));
        }
        s.merge(&MoveStats::from_game(Outcome::Loss, Some(2000), None));
        // 2000 + 400 * (3 - 1) / 4
        assert_eq!(s.performance(), Some(2200));
        assert_eq!(MoveStats::default().performance(), None);
    }

    #[test]
    fn dims_round_trip() {
        for color in [Color::White, Color::Black] {
            for tc in TimeClass::ALL {
                for (rated, source) in [false, true].into_iter().flat_map(|r| {
                    crate::game::GameSource::ALL
                        .into_iter()
                        .map(move |s| (r, s))
                }) {
                    let d = EdgeDims {
                        color,
                        time_class: tc,
                        rated,
                        month: Month::new(2021, 7),
                        opponent_rating: Some(1873),
                        source,
                    };
                    let m = d.month.map_or(0, Month::to_u16);
                    assert_eq!(EdgeDims::from_parts(d.flags(), m, 1873), Some(d));
                }
            }
        }
        assert_eq!(EdgeDims::from_parts(3 << 5, 0, 0), None, "source code 3");
    }

    #[test]
    fn wilson_intervals_match_the_formula_and_are_honest_about_one_game() {
        let once = MoveStats {
            wins: 1,
            ..MoveStats::default()
        };
        let i = once.score_interval().expect("one game");
        assert_eq!(i.score, 1.0);
        assert!((i.low - 0.2065).abs() < 1e-4 && i.high == 1.0, "{i:?}");
        let thirty_of_fifty = MoveStats {
            wins: 25,
            draws: 10,
            losses: 15,
            ..MoveStats::default()
        };
        let j = thirty_of_fifty.score_interval().expect("fifty games");
        assert!((j.score - 0.6).abs() < 1e-12);
        // Wilson for p = 0.6, n = 50: 0.4618 .. 0.7239.
        assert!(
            (j.low - 0.4618).abs() < 1e-4 && (j.high - 0.7239).abs() < 1e-4,
            "{j:?}"
        );
        assert!(j.low > i.low, "30/50 is surer than 1/1");
        assert!(MoveStats::default().score_interval().is_none());
    }

    /// Found by the `store_codecs` fuzz target: damaged bytes counting 2^32 games made
    /// `games()` overflow. Counts that cannot be are refused; real ones round-trip.
    #[test]
    fn impossible_counts_do_not_decode() {
        let real = MoveStats {
            wins: 3,
            draws: 1,
            losses: 2,
            rating_sum: 4 * 1500,
            rated_games: 4,
            first: 20_170_101,
            last: 20_250_101,
            timed: 5,
            time_ms: 31_400,
            trouble: 1,
        };
        assert_eq!(MoveStats::decode(&real.encode()), Some(real));
        let mut damaged = real.encode();
        damaged[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(MoveStats::decode(&damaged), None);
        let mut rated = real.encode();
        rated[20..24].copy_from_slice(&7u32.to_le_bytes());
        assert_eq!(
            MoveStats::decode(&rated),
            None,
            "more rated games than games"
        );
        let mut sum = real.encode();
        sum[12..20].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(
            MoveStats::decode(&sum),
            None,
            "a rating sum no rated game gives"
        );
    }
}
