//! The time of each move: a game's clock comments (`[%clk H:MM:SS.s]`, the clock after the
//! move, as Chess.com and lichess write it; `[%emt ...]`, the time the move took, as FICS
//! writes it) and its `TimeControl` tag, turned into the time each move took, the clock
//! left when it was made and whether that was time trouble.
//!
//! The rules (the reference script `tests/reference/graph.py --times` follows them too):
//!
//! - A move's `[%emt]` is its time, as written (`3.4` seconds or `0:00:03.4`).
//! - Else its `[%clk]`: the time is the same side's previous clock (the base time before its
//!   first move) plus the increment minus this clock. The clock includes the increment the
//!   move earned. A move whose side's previous clock is unknown (no `[%clk]` there), or whose
//!   time would be negative (the clock rose by more than the increment: time added by an
//!   arbiter or a new stage), has no time.
//! - The clock left when the move was made is the clock before the move minus its time
//!   (`[%clk]` minus the increment for a `[%clk]`).
//! - Time trouble: less than 10% of the base time, or under 10 s, left when the move was made.
//! - Time controls: `B` and `B+I` (seconds) give the base and increment; `1/S` (Chess.com's
//!   daily games) gives S seconds for every move, the clock full again after each. Anything
//!   else (`-`, `?`, several stages such as `40/5400:1800`) is unknown: `[%clk]` gives no
//!   times then (the increment is unknown), `[%emt]` gives times but no clock left, so
//!   never time trouble.
//! - A daily game's `[%clk]` gives no time either: it is not the clock left. Chess.com writes
//!   `0:00:00` on every move of older daily games, and in newer ones values that cannot be a
//!   clock of days (in the 27,200 games of `../shared/data`, 22,946 daily stamps, none above
//!   14 h of a 3-day clock, median 17 min). Read as a clock, both made every daily move
//!   take about three days and every one of them time trouble. `[%emt]` still counts.
//! - In a move's comments, of each command the first whose value reads counts.
//! - Seconds are kept in whole milliseconds, rounded half up.

use std::fmt;

use shakmaty::Color;

use crate::GameRecord;

/// Seconds left below which a move is always in time trouble.
pub const TROUBLE_SECONDS: u64 = 10;

/// A game's time control, as far as the times of its moves need it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Control {
    /// A base time and an increment per move, in milliseconds (`180`, `180+2`).
    Sudden {
        /// Base time.
        base_ms: u64,
        /// Added after each move.
        increment_ms: u64,
    },
    /// The same time for every move, the clock full again after each (`1/259200`).
    PerMove {
        /// Time for each move.
        ms: u64,
    },
    /// No usable control (`-`, `?`, missing, several stages).
    Unknown,
}

impl Control {
    /// The control of a PGN `TimeControl` tag.
    pub fn from_tag(tag: &str) -> Control {
        let tag = tag.trim();
        let secs = |s: &str| s.parse::<u64>().ok().map(|v| v.saturating_mul(1000));
        if tag.contains(':') {
            return Control::Unknown;
        }
        if let Some((moves, per)) = tag.split_once('/') {
            return match (moves.parse::<u64>(), secs(per)) {
                (Ok(1), Some(ms)) if ms > 0 => Control::PerMove { ms },
                _ => Control::Unknown,
            };
        }
        let (base, inc) = match tag.split_once('+') {
            Some((b, i)) => (secs(b), secs(i)),
            None => (secs(tag), Some(0)),
        };
        match (base, inc) {
            (Some(base_ms), Some(increment_ms)) if base_ms > 0 => Control::Sudden {
                base_ms,
                increment_ms,
            },
            _ => Control::Unknown,
        }
    }

    /// The clock left below which a move is in time trouble (10% of the base, at least
    /// [`TROUBLE_SECONDS`]); `None` when the control is unknown.
    pub fn trouble_below_ms(self) -> Option<u64> {
        let base = match self {
            Control::Sudden { base_ms, .. } => base_ms,
            Control::PerMove { ms } => ms,
            Control::Unknown => return None,
        };
        Some((base / 10).max(TROUBLE_SECONDS * 1000))
    }

    /// The clock before a side's first move; `None` when unknown.
    fn start_ms(self) -> Option<u64> {
        match self {
            Control::Sudden { base_ms, .. } => Some(base_ms),
            Control::PerMove { ms } => Some(ms),
            Control::Unknown => None,
        }
    }

    fn increment_ms(self) -> u64 {
        match self {
            Control::Sudden { increment_ms, .. } => increment_ms,
            _ => 0,
        }
    }
}

/// What a move's comment said about time.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub struct Stamp {
    /// `[%clk]`: the clock after the move, in milliseconds.
    pub clock_ms: Option<u64>,
    /// `[%emt]`: the time the move took, in milliseconds.
    pub elapsed_ms: Option<u64>,
}

impl Stamp {
    /// Reads the clock commands of a comment into this stamp: of each kind, the first
    /// whose value reads counts (a move with several comments keeps what its first such
    /// command said).
    pub fn read_comment(&mut self, comment: &[u8]) {
        if self.clock_ms.is_none() {
            self.clock_ms = first_value(comment, b"[%clk");
        }
        if self.elapsed_ms.is_none() {
            self.elapsed_ms = first_value(comment, b"[%emt");
        }
    }

    /// Whether the comment gave anything.
    pub fn is_empty(&self) -> bool {
        self.clock_ms.is_none() && self.elapsed_ms.is_none()
    }
}

/// The milliseconds of the first `name` command of a comment whose argument reads
/// (`[%clk 0:02:57.3]` -> 177,300).
fn first_value(comment: &[u8], name: &[u8]) -> Option<u64> {
    let mut from = 0;
    while let Some(at) = comment[from..].windows(name.len()).position(|w| w == name) {
        from += at + name.len();
        let rest = &comment[from..];
        let Some(rest) = rest.strip_prefix(b" ").or_else(|| rest.strip_prefix(b"\t")) else {
            continue;
        };
        let Some(end) = rest.iter().position(|&b| b == b']') else {
            continue;
        };
        if let Some(ms) = parse_seconds(rest[..end].trim_ascii()) {
            return Some(ms);
        }
    }
    None
}

/// `H:MM:SS(.fff)`, `MM:SS(.fff)` or `SS(.fff)` in milliseconds, rounded half up at the
/// millisecond; `None` for anything else.
pub fn parse_seconds(text: &[u8]) -> Option<u64> {
    let text = std::str::from_utf8(text).ok()?;
    let (whole, frac) = match text.split_once('.') {
        Some((w, f)) => (w, f),
        None => (text, ""),
    };
    if !frac.bytes().all(|b| b.is_ascii_digit()) || frac.len() > 9 {
        return None;
    }
    let mut secs: u64 = 0;
    let parts: Vec<&str> = whole.split(':').collect();
    if parts.len() > 3 {
        return None;
    }
    for p in &parts {
        if p.is_empty() || p.len() > 9 || !p.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        secs = secs.checked_mul(60)?.checked_add(p.parse::<u64>().ok()?)?;
    }
    let digits = |s: &str, n: usize| -> u64 {
        s.bytes()
            .take(n)
            .fold(0u64, |acc, b| acc * 10 + u64::from(b - b'0'))
            * 10u64.pow(u32::try_from(n.saturating_sub(s.len())).unwrap_or(0))
    };
    let mut ms = digits(frac, 3);
    if frac.len() > 3 && frac.as_bytes()[3] >= b'5' {
        ms += 1;
    }
    secs.checked_mul(1000)?.checked_add(ms)
}

/// The time one move took.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct MoveTime {
    /// Milliseconds the move took.
    pub spent_ms: u32,
    /// The clock left when it was made (before any increment), when known.
    pub left_ms: Option<u32>,
    /// Made in time trouble (see the module's rules).
    pub trouble: bool,
}

impl fmt::Display for MoveTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.1}s", f64::from(self.spent_ms) / 1000.0)
    }
}

/// The time of each move of a game from its stamps (one per move, in order) and its
/// control; empty when no move has a time.
pub fn move_times(stamps: &[Stamp], control: Control) -> Vec<Option<MoveTime>> {
    let inc = control.increment_ms();
    let trouble_below = control.trouble_below_ms();
    // The clock of each side before its next move (white, black).
    let mut before = [control.start_ms(), control.start_ms()];
    let times: Vec<Option<MoveTime>> = stamps
        .iter()
        .enumerate()
        .map(|(ply, stamp)| {
            let side = ply % 2;
            let (spent, left, after) = match (stamp.elapsed_ms, stamp.clock_ms) {
                (Some(e), _) => {
                    let left = before[side].map(|b| b.saturating_sub(e));
                    (Some(e), left, left.map(|l| l + inc))
                }
                (None, Some(c)) if matches!(control, Control::Sudden { .. }) => {
                    let spent = before[side].and_then(|b| (b + inc).checked_sub(c));
                    (spent, Some(c.saturating_sub(inc)), Some(c))
                }
                _ => (None, None, None),
            };
            before[side] = match control {
                Control::PerMove { ms } => Some(ms),
                Control::Sudden { .. } => after,
                Control::Unknown => None,
            };
            let spent_ms = u32::try_from(spent?).ok()?;
            let left_ms = left.and_then(|l| u32::try_from(l).ok());
            Some(MoveTime {
                spent_ms,
                left_ms,
                trouble: match (left, trouble_below) {
                    (Some(l), Some(t)) => l < t,
                    _ => false,
                },
            })
        })
        .collect();
    if times.iter().all(Option::is_none) {
        Vec::new()
    } else {
        times
    }
}

/// Plies at which a game's stages end for [`TimeModel`]: the opening (moves 1-10), the
/// middlegame (11-30), the rest.
const STAGE_ENDS: [usize; 2] = [20, 60];
/// Shares of the clock at the start of the game that bound the
/// model's clock bands: half or more left, a quarter to a half, a tenth to a quarter, less
/// than a tenth (time trouble, roughly).
const BAND_FLOORS: [f64; 3] = [0.5, 0.25, 0.1];
/// Moves a cell of the model needs before it speaks for itself (else its stage's moves
/// all together, else all the player's timed moves).
const MIN_CELL_MOVES: u32 = 30;

/// The stages of [`TimeModel`], in words.
pub const STAGES: [&str; 3] = ["moves 1-10", "moves 11-30", "moves 31 on"];
/// Its clock bands, in words.
pub const BANDS: [&str; 4] = [
    "half the clock or more left",
    "a quarter to a half left",
    "a tenth to a quarter left",
    "under a tenth left",
];

/// How much of their clock a player spends on a move, by the stage of the game and how
/// much of the clock is left: learned from the player's own timed moves
/// ([`TimeModel::learn`]), it sets the pace where the book has no time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimeModel {
    /// Per stage and clock band: (sum of the shares of the clock spent, moves).
    cells: [[(f64, u32); 4]; 3],
}

/// The stage of a game at `ply` (0-based), as an index of [`STAGE_ENDS`].
fn stage(ply: usize) -> usize {
    STAGE_ENDS.iter().take_while(|&&end| ply >= end).count()
}

/// The clock band of `left` out of `base`, as an index of [`BAND_FLOORS`].
fn band(left_ms: u64, base_ms: u64) -> usize {
    let share = left_ms as f64 / base_ms.max(1) as f64;
    BAND_FLOORS
        .iter()
        .take_while(|&&floor| share < floor)
        .count()
}

impl TimeModel {
    /// The model of the moves `games` give the player (each with the player's colour):
    /// every move of theirs whose time and clock are known counts the share of the clock
    /// it used, the time it took out of the clock at the start of the thinking (the clock
    /// left when it was made plus the time), in the cell of its stage and of the share of
    /// the game's start clock then left. A game's start clock is the clock at the start of
    /// the player's first timed move. Games without clocks add nothing.
    pub fn learn<'a>(games: impl IntoIterator<Item = &'a (GameRecord, Color)>) -> TimeModel {
        let mut model = TimeModel::default();
        for (game, color) in games {
            model.add(game, *color);
        }
        model
    }

    /// Adds the moves of one game, played by the player with `color` ([`TimeModel::learn`]).
    pub fn add(&mut self, game: &GameRecord, color: Color) {
        let mut base: Option<u64> = None;
        let first = usize::from(color == Color::Black);
        for ply in (first..game.moves.len()).step_by(2) {
            let Some(t) = game.time_of(ply) else { continue };
            let Some(left) = t.left_ms else { continue };
            let before = u64::from(left) + u64::from(t.spent_ms);
            if before == 0 {
                continue;
            }
            let base = *base.get_or_insert(before);
            let cell = &mut self.cells[stage(ply)][band(before, base)];
            cell.0 += f64::from(t.spent_ms) / before as f64;
            cell.1 += 1;
        }
    }

    /// The cell of `stage` ([`STAGES`]) and `band` ([`BANDS`]): the average share of the
    /// clock spent (`None` without moves) and the moves it comes from.
    pub fn cell(&self, stage: usize, band: usize) -> (Option<f64>, u32) {
        let (sum, n) = self.cells[stage][band];
        ((n > 0).then(|| sum / f64::from(n)), n)
    }

    /// Timed moves learned.
    pub fn moves(&self) -> u32 {
        self.cells.iter().flatten().map(|c| c.1).sum()
    }

    /// The share of the clock left the player spends at `ply` with `left_ms` of a game
    /// started with `base_ms` (unknown: a full clock), and over how many moves: the cell's
    /// average when it has [`MIN_CELL_MOVES`], else its stage's, else all moves';
    /// `None` without any timed move.
    pub fn share(&self, ply: usize, left_ms: u64, base_ms: Option<u64>) -> Option<(f64, u32)> {
        let row = &self.cells[stage(ply)];
        let cell = row[band(left_ms, base_ms.unwrap_or(left_ms))];
        let sum = |cells: &mut dyn Iterator<Item = &(f64, u32)>| {
            cells.fold((0.0, 0u32), |(s, n), c| (s + c.0, n + c.1))
        };
        [
            cell,
            sum(&mut row.iter()),
            sum(&mut self.cells.iter().flatten()),
        ]
        .into_iter()
        .find(|&(_, n)| n >= MIN_CELL_MOVES)
        .or_else(|| Some(sum(&mut self.cells.iter().flatten())).filter(|c| c.1 > 0))
        .map(|(s, n)| (s / f64::from(n), n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_model_speaks_from_a_cell_with_enough_moves_else_its_stage_else_all() {
        let mut m = TimeModel::default();
        // 40 opening moves at 2% with the whole clock, 5 middlegame moves at 20% in time
        // trouble, 30 middlegame moves at 5% with most of the clock.
        m.cells[0][0] = (40.0 * 0.02, 40);
        m.cells[1][3] = (5.0 * 0.2, 5);
        m.cells[1][0] = (30.0 * 0.05, 30);
        let near = |got: Option<(f64, u32)>, share: f64, n: u32| {
            let (s, moves) = got.expect("a share");
            assert!((s - share).abs() < 1e-12 && moves == n, "{got:?}");
        };
        near(m.share(4, 600_000, Some(600_000)), 0.02, 40);
        near(m.share(30, 590_000, Some(600_000)), 0.05, 30);
        // 5 moves in trouble are too few: the middlegame's 35.
        near(m.share(30, 30_000, Some(600_000)), 2.5 / 35.0, 35);
        // No endgame move: all 75 moves.
        near(m.share(80, 300_000, Some(600_000)), 3.3 / 75.0, 75);
        // Without a base the clock counts as full.
        assert_eq!(band(30_000, 30_000), 0);
        assert_eq!((stage(19), stage(20), stage(59), stage(60)), (0, 1, 1, 2));
        assert_eq!(TimeModel::default().share(0, 1_000, None), None);
        assert_eq!(m.moves(), 75);
    }

    fn clk(s: &str) -> Stamp {
        let mut st = Stamp::default();
        st.read_comment(format!("[%clk {s}]").as_bytes());
        st
    }

    #[test]
    fn seconds_in_every_written_form() {
        assert_eq!(parse_seconds(b"0:02:57.3"), Some(177_300));
        assert_eq!(parse_seconds(b"0:00:01.617"), Some(1_617));
        assert_eq!(parse_seconds(b"1.748"), Some(1_748));
        assert_eq!(parse_seconds(b"9.27"), Some(9_270));
        assert_eq!(parse_seconds(b"0.0"), Some(0));
        assert_eq!(parse_seconds(b"71:59:59"), Some(259_199_000));
        assert_eq!(parse_seconds(b"0.0005"), Some(1));
        assert_eq!(parse_seconds(b"0.0004"), Some(0));
        for bad in [&b""[..], b"x", b"1:2:3:4", b"-1", b"1.2.3", b"1:", b"1.a"] {
            assert_eq!(parse_seconds(bad), None, "{:?}", std::str::from_utf8(bad));
        }
    }

    #[test]
    fn comments_keep_the_first_of_each_command() {
        let mut s = Stamp::default();
        s.read_comment(b"a note [%eval 0.3] [%clk 0:01:00] [%emt 0:00:02]");
        s.read_comment(b"[%clk 0:00:10]");
        assert_eq!(s.clock_ms, Some(60_000));
        assert_eq!(s.elapsed_ms, Some(2_000));
        let mut none = Stamp::default();
        none.read_comment(b"[%clkx 1] [%clk]");
        assert!(none.is_empty());
        // A command whose value does not read is passed over for the next one.
        let mut later = Stamp::default();
        later.read_comment(b"[%clk soon] [%clkx 3] [%clk 0:00:07]");
        assert_eq!(later.clock_ms, Some(7_000));
    }

    #[test]
    fn controls_from_tags() {
        assert_eq!(
            Control::from_tag("180+2"),
            Control::Sudden {
                base_ms: 180_000,
                increment_ms: 2_000
            }
        );
        assert_eq!(
            Control::from_tag("60"),
            Control::Sudden {
                base_ms: 60_000,
                increment_ms: 0
            }
        );
        assert_eq!(
            Control::from_tag("1/259200"),
            Control::PerMove { ms: 259_200_000 }
        );
        for unknown in ["-", "?", "", "40/5400:1800", "40/7200", "abc", "0"] {
            assert_eq!(Control::from_tag(unknown), Control::Unknown, "{unknown}");
        }
        assert_eq!(Control::from_tag("180").trouble_below_ms(), Some(18_000));
        assert_eq!(Control::from_tag("60").trouble_below_ms(), Some(10_000));
    }

    #[test]
    fn clocks_give_times_with_the_increment() {
        // 180+2: White's clock 3:01.9 after 1. e4 took 0.1 s; 2:58 after move 2 took 5.9 s.
        let stamps = [
            clk("0:03:01.9"),
            clk("0:03:02"),
            clk("0:02:58"),
            clk("0:00:09"),
        ];
        let t = move_times(&stamps, Control::from_tag("180+2"));
        assert_eq!(t[0].map(|m| m.spent_ms), Some(100));
        assert_eq!(t[1].map(|m| m.spent_ms), Some(0));
        assert_eq!(
            t[2].map(|m| (m.spent_ms, m.left_ms)),
            Some((5_900, Some(176_000)))
        );
        // Black: 3:02 + 2 - 0:09 = 175 s, made with 7 s left: time trouble.
        assert_eq!(
            t[3],
            Some(MoveTime {
                spent_ms: 175_000,
                left_ms: Some(7_000),
                trouble: true
            })
        );
        // Unknown control: a clock says nothing about the time taken.
        assert!(move_times(&stamps, Control::Unknown).is_empty());
    }

    #[test]
    fn elapsed_times_run_the_clock_and_a_gap_stops_it() {
        let emt = |s: &str| {
            let mut st = Stamp::default();
            st.read_comment(format!("[%emt {s}]").as_bytes());
            st
        };
        let stamps = [
            emt("0.0"),
            emt("0.0"),
            emt("170"),
            Stamp::default(),
            emt("1"),
            emt("1"),
        ];
        let t = move_times(&stamps, Control::from_tag("180+0"));
        // 10 s left of a 180 s base is under its 10% (18 s).
        assert_eq!(
            t[2].map(|m| (m.left_ms, m.trouble)),
            Some((Some(10_000), true))
        );
        assert_eq!(
            t[1].map(|m| (m.left_ms, m.trouble)),
            Some((Some(180_000), false))
        );
        assert_eq!(t[3], None);
        assert_eq!(
            t[4].map(|m| (m.left_ms, m.trouble)),
            Some((Some(9_000), true))
        );
        // Black's clock broke at its missing stamp: a time, no clock left.
        assert_eq!(t[5].map(|m| (m.spent_ms, m.left_ms)), Some((1_000, None)));
        let unknown = move_times(&stamps, Control::Unknown);
        assert_eq!(
            unknown[2].map(|m| (m.spent_ms, m.left_ms)),
            Some((170_000, None))
        );
    }

    #[test]
    fn a_clock_that_rises_past_the_increment_gives_no_time() {
        let stamps = [
            clk("0:01:00"),
            clk("0:01:00"),
            clk("0:05:00"),
            clk("0:00:50"),
        ];
        let t = move_times(&stamps, Control::from_tag("60"));
        assert_eq!(t[2], None);
        assert_eq!(t[3].map(|m| m.spent_ms), Some(10_000));
    }

    #[test]
    fn daily_clocks_give_no_time_and_elapsed_times_a_full_clock_before_every_move() {
        // As Chess.com writes them: 0:00:00, or minutes and hours that are no clock of days.
        for stamps in [
            [clk("0:00:00"), clk("0:00:00"), clk("0:00:00")],
            [clk("0:04:28"), clk("0:15:57.2"), clk("1:10:36.6")],
        ] {
            assert_eq!(move_times(&stamps, Control::from_tag("1/259200")), vec![]);
        }
        let emt = |s: &str| {
            let mut st = Stamp::default();
            st.read_comment(format!("[%emt {s}]").as_bytes());
            st
        };
        let stamps = [emt("1:00:00"), emt("10:00:00"), emt("70:00:00")];
        let t = move_times(&stamps, Control::from_tag("1/259200"));
        assert_eq!(
            t[0].map(|m| (m.spent_ms, m.left_ms, m.trouble)),
            Some((3_600_000, Some(255_600_000), false))
        );
        // 2 h of the 72 left when the move was made: under a tenth of the day's clock.
        assert_eq!(
            t[2].map(|m| (m.spent_ms, m.left_ms, m.trouble)),
            Some((252_000_000, Some(7_200_000), true))
        );
    }
}
