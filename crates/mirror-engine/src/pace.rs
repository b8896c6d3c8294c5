//! Playing at the player's pace: how long to wait before answering, from the time the
//! player took in the position (the book rows' times, `mirror_core::clock`), else the
//! share of their clock the player spends at that stage of a game with that much of the
//! clock left ([`TimeModel`]), else a fixed share of the clock left; never more than the
//! clock or the move time allows.

use std::{fmt, time::Duration};

use mirror_core::{MoveStats, clock::TimeModel, notation::thousands};

/// Share of the clock left spent on a move the book has no time for.
const SHARE_OF_CLOCK: u64 = 30;
/// The longest wait when the GUI gives no clock.
const MAX_WITHOUT_CLOCK: Duration = Duration::from_secs(60);

/// What the GUI's `go` says about time, in milliseconds.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct GoClock {
    /// The clock of the side to move at the start of the game (the model's clock bands
    /// are shares of it; unknown: the band of a full clock).
    pub base_ms: Option<u64>,
    /// The side to move's time left (`wtime`/`btime`).
    pub left_ms: Option<u64>,
    /// Its increment (`winc`/`binc`).
    pub increment_ms: u64,
    /// A fixed time for this move (`movetime`).
    pub movetime_ms: Option<u64>,
}

/// A game's clock, the same for both sides: the base time and the increment, read as
/// PGN's `TimeControl` (seconds: `300+2`, `600`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GameClock {
    /// Each side's time at the start, in milliseconds.
    pub base_ms: u64,
    /// Added after each move, in milliseconds.
    pub increment_ms: u64,
}

impl std::str::FromStr for GameClock {
    type Err = String;

    fn from_str(s: &str) -> Result<GameClock, String> {
        match mirror_core::clock::Control::from_tag(s) {
            mirror_core::clock::Control::Sudden {
                base_ms,
                increment_ms,
            } => Ok(GameClock {
                base_ms,
                increment_ms,
            }),
            _ => Err(format!(
                "{s:?} is not a clock: seconds and an increment, as PGN's TimeControl (300+2, or 600)"
            )),
        }
    }
}

impl GoClock {
    /// The clock of the side to move in a game played with `clock` (none: untimed), with
    /// `left_ms` left.
    pub fn of_game(clock: Option<GameClock>, left_ms: Option<u64>) -> GoClock {
        GoClock {
            base_ms: clock.map(|c| c.base_ms),
            left_ms,
            increment_ms: clock.map_or(0, |c| c.increment_ms),
            movetime_ms: None,
        }
    }
}

/// Where a wait comes from.
#[derive(Copy, Clone, Debug, PartialEq)]
pub enum PaceSource {
    /// The player's average time here over this many timed games.
    Book {
        /// Timed games in the book here.
        timed: u32,
    },
    /// No timed game here: the player's usual share of the clock left at this stage and
    /// clock band ([`TimeModel`]), over this many of their timed moves.
    Model {
        /// The share of the clock left.
        share: f64,
        /// The player's timed moves it comes from.
        moves: u32,
    },
    /// No timed game here and no time model: a share of the clock left and the increment.
    ClockShare,
    /// No timed game here and no clock: no wait.
    Nothing,
}

/// How long to wait before answering, and why.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Pace {
    /// The wait.
    pub wait: Duration,
    /// Where it comes from.
    pub source: PaceSource,
    /// Whether the clock or the move time cut it short.
    pub capped: bool,
}

impl fmt::Display for Pace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pace: {:.1} s", self.wait.as_secs_f64())?;
        match self.source {
            PaceSource::Book { timed } => write!(
                f,
                " (the player's average here over {} timed games",
                thousands(u64::from(timed))
            )?,
            PaceSource::Model { share, moves } => write!(
                f,
                " (no timed game here: the player's usual {:.1}% of the clock left at this stage, over {} timed moves",
                share * 100.0,
                thousands(u64::from(moves))
            )?,
            PaceSource::ClockShare => write!(
                f,
                " (no timed game here: 1/{SHARE_OF_CLOCK} of the clock left and the increment"
            )?,
            PaceSource::Nothing => write!(f, " (no timed game here and no clock")?,
        }
        if self.capped {
            write!(f, "; cut to what the clock allows")?;
        }
        write!(f, ")")
    }
}

/// The ply (0-based) of a game at `pos`, from its move number and side to move (the
/// stage of [`TimeModel`]).
pub fn ply_of(pos: &shakmaty::Chess) -> usize {
    use shakmaty::Position;
    (pos.fullmoves().get() as usize - 1) * 2 + usize::from(pos.turn() == shakmaty::Color::Black)
}

/// The time class of a game played with `clock` (its base and increment, as Chess.com
/// counts: base + 40 x increment under 3 min is bullet, under 10 min blitz, else rapid);
/// `None` without a base time.
pub fn time_class_of(clock: GoClock) -> Option<mirror_core::TimeClass> {
    let base = clock.base_ms? / 1000;
    let increment = clock.increment_ms / 1000;
    Some(mirror_core::TimeClass::from_time_control(
        &format!("{base}+{increment}"),
        mirror_core::time::Convention::ChessCom,
    ))
}

/// The player's moves in a position as the pace reads them: `read` with `filter` narrowed
/// to the time class of the game's `clock` (a blitz game waits as the player does in
/// blitz), unless the filter leaves that class out or the player has no timed game of it
/// there; then `read` with `filter` itself.
pub fn timed_stats<E>(
    filter: &mirror_store::Filter,
    clock: GoClock,
    read: impl Fn(&mirror_store::Filter) -> Result<Vec<MoveStats>, E>,
) -> Result<Vec<MoveStats>, E> {
    let class = time_class_of(clock)
        .filter(|c| filter.time_classes.is_empty() || filter.time_classes.contains(c));
    if let Some(class) = class {
        let narrowed = mirror_store::Filter {
            time_classes: vec![class],
            ..filter.clone()
        };
        let stats = read(&narrowed)?;
        if stats.iter().any(|s| s.timed > 0) {
            return Ok(stats);
        }
    }
    read(filter)
}

/// The wait before answering in a position whose book moves have `stats` (the player's,
/// with the engine's filter), under `clock`, at `ply` of the game; where the book has no
/// time, from `model` (the player's [`TimeModel`]) when it has any timed move.
pub fn pace<'a>(
    stats: impl IntoIterator<Item = &'a MoveStats>,
    clock: GoClock,
    model: Option<&TimeModel>,
    ply: usize,
) -> Pace {
    let mut here = MoveStats::default();
    for s in stats {
        here.merge(s);
    }
    let (wanted, source) = match here.average_seconds() {
        Some(secs) => (
            Duration::from_secs_f64(secs),
            PaceSource::Book { timed: here.timed },
        ),
        None => match (
            clock.left_ms,
            clock
                .left_ms
                .and_then(|left| model?.share(ply, left, clock.base_ms)),
        ) {
            (Some(left), Some((share, moves))) => (
                Duration::from_secs_f64(left as f64 / 1000.0 * share),
                PaceSource::Model { share, moves },
            ),
            (Some(left), None) => (
                Duration::from_millis(left / SHARE_OF_CLOCK + clock.increment_ms),
                PaceSource::ClockShare,
            ),
            (None, _) => (Duration::ZERO, PaceSource::Nothing),
        },
    };
    // Never more than the move time, nor than half of the clock left (less a second for
    // the GUI's own overhead), nor a minute without either.
    let limit = match (clock.movetime_ms, clock.left_ms) {
        (Some(m), _) => Duration::from_millis(m),
        (None, Some(left)) => Duration::from_millis(left.saturating_sub(1_000) / 2),
        (None, None) => MAX_WITHOUT_CLOCK,
    };
    Pace {
        wait: wanted.min(limit),
        source,
        capped: wanted > limit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn timed(n: u32, ms: u64) -> MoveStats {
        MoveStats {
            wins: n,
            timed: n,
            time_ms: ms,
            ..MoveStats::default()
        }
    }

    #[test]
    fn the_books_average_else_a_share_of_the_clock_within_what_it_allows() {
        let clock = GoClock {
            base_ms: None,
            left_ms: Some(180_000),
            increment_ms: 2_000,
            movetime_ms: None,
        };
        // 3 games at 2 s and 1 at 6 s: 3 s.
        let p = pace(&[timed(3, 6_000), timed(1, 6_000)], clock, None, 0);
        assert_eq!(p.wait, Duration::from_secs(3));
        assert_eq!(p.source, PaceSource::Book { timed: 4 });
        assert!(p.to_string().contains("over 4 timed games"), "{p}");
        let untimed = MoveStats {
            wins: 5,
            ..MoveStats::default()
        };
        let p = pace(&[untimed], clock, None, 0);
        assert_eq!(
            (p.wait, p.source),
            (Duration::from_millis(8_000), PaceSource::ClockShare)
        );
        // 9 s left: at most 4 s; a move time of 500 ms: at most that.
        let short = GoClock {
            left_ms: Some(9_000),
            ..clock
        };
        let p = pace(&[timed(1, 20_000)], short, None, 0);
        assert_eq!((p.wait, p.capped), (Duration::from_secs(4), true));
        let fixed = GoClock {
            movetime_ms: Some(500),
            ..clock
        };
        assert_eq!(
            pace(&[timed(1, 20_000)], fixed, None, 0).wait,
            Duration::from_millis(500)
        );
        assert_eq!(pace(&[], GoClock::default(), None, 0).wait, Duration::ZERO);
    }
}
