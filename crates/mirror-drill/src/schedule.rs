//! When a card comes back: FSRS-6 (the `fsrs` crate, its default parameters) at a desired
//! retention, in whole days as the answers' dates fall, as py-fsrs schedules a card
//! without learning steps. A grade is made of the answer and the time it took.

use std::time::Duration;

use fsrs::{FSRS, MemoryState};
use mirror_store::{DrillAnswer, DrillRecord};
use serde::Serialize;

use crate::{DrillError, Result};

/// FSRS's four grades.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Grade {
    /// Wrong.
    Again,
    /// Right, slowly.
    Hard,
    /// Right.
    Good,
    /// Right at once.
    Easy,
}

impl Grade {
    /// FSRS's number for the grade (1-4).
    pub fn number(self) -> u8 {
        match self {
            Grade::Again => 1,
            Grade::Hard => 2,
            Grade::Good => 3,
            Grade::Easy => 4,
        }
    }

    /// The grade of FSRS's number `n` (1-4).
    pub fn from_number(n: u8) -> Option<Grade> {
        Some(match n {
            1 => Grade::Again,
            2 => Grade::Hard,
            3 => Grade::Good,
            4 => Grade::Easy,
            _ => return None,
        })
    }
}

/// How an answer is graded: wrong is [`Grade::Again`]; right within `easy_within` is
/// [`Grade::Easy`], after `hard_after` [`Grade::Hard`], else [`Grade::Good`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grading {
    /// A right answer this quick is easy.
    pub easy_within: Duration,
    /// A right answer slower than this was hard.
    pub hard_after: Duration,
}

impl Default for Grading {
    fn default() -> Self {
        Grading {
            easy_within: Duration::from_secs(4),
            hard_after: Duration::from_secs(20),
        }
    }
}

impl Grading {
    /// The grade of an answer.
    pub fn grade(&self, right: bool, took: Duration) -> Grade {
        if !right {
            Grade::Again
        } else if took <= self.easy_within {
            Grade::Easy
        } else if took > self.hard_after {
            Grade::Hard
        } else {
            Grade::Good
        }
    }
}

/// Seconds in a day.
const DAY: i64 = 86_400;

/// The longest interval, in days (py-fsrs's default).
pub const MAX_INTERVAL_DAYS: u32 = 36_500;

/// The desired retention when none is asked: nine answers in ten right when a card comes
/// back (py-fsrs's default too).
pub const DEFAULT_RETENTION: f32 = 0.9;

/// FSRS at a desired retention.
#[derive(Clone, Debug)]
pub struct Scheduler {
    fsrs: FSRS,
    retention: f32,
}

impl Scheduler {
    /// FSRS-6 with its default parameters, aiming at `retention` (0-1, e.g. 0.9: nine
    /// answers in ten right when a card comes back).
    pub fn new(retention: f32) -> Result<Scheduler> {
        if !(retention > 0.0 && retention < 1.0) {
            return Err(DrillError::Schedule(format!(
                "the desired retention must be between 0 and 1, not {retention}"
            )));
        }
        let fsrs = FSRS::new(&[]).map_err(|e| DrillError::Schedule(e.to_string()))?;
        Ok(Scheduler { fsrs, retention })
    }

    /// `record` after an answer graded `grade` at `now` (seconds since the Unix epoch)
    /// that took `millis`: its new memory, due date, counts and history. The days since
    /// the last answer are whole days (as py-fsrs counts them); a second answer on the same
    /// day takes FSRS's short-term step.
    pub fn review(
        &self,
        record: &DrillRecord,
        grade: Grade,
        now: i64,
        millis: u32,
    ) -> Result<(DrillRecord, u32)> {
        let memory = record.memory.map(|(stability, difficulty)| MemoryState {
            stability,
            difficulty,
        });
        let days = record.last_answer().map_or(0, |last| {
            u32::try_from((now - last).max(0) / DAY).unwrap_or(u32::MAX)
        });
        let states = self
            .fsrs
            .next_states(memory, self.retention, days)
            .map_err(|e| DrillError::Schedule(e.to_string()))?;
        let next = match grade {
            Grade::Again => states.again,
            Grade::Hard => states.hard,
            Grade::Good => states.good,
            Grade::Easy => states.easy,
        };
        let interval = interval_days(next.interval);
        let mut out = record.clone();
        out.memory = Some((next.memory.stability, next.memory.difficulty));
        out.due = now.saturating_add(i64::from(interval) * DAY);
        out.reviews = out.reviews.saturating_add(1);
        if grade == Grade::Again && record.memory.is_some() {
            out.lapses = out.lapses.saturating_add(1);
        }
        out.history.push(DrillAnswer {
            at: now,
            grade: grade.number(),
            millis,
        });
        let excess = out
            .history
            .len()
            .saturating_sub(mirror_store::drill::DRILL_HISTORY);
        out.history.drain(..excess);
        Ok((out, interval))
    }
}

/// An interval in whole days: rounded, at least one, at most [`MAX_INTERVAL_DAYS`].
fn interval_days(days: f32) -> u32 {
    if !days.is_finite() {
        return MAX_INTERVAL_DAYS;
    }
    (days.round().max(1.0) as u32).min(MAX_INTERVAL_DAYS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirror_core::PositionKey;
    use shakmaty::Color;

    #[test]
    fn grades_follow_the_answer_and_its_time() {
        let g = Grading::default();
        assert_eq!(g.grade(false, Duration::from_secs(1)), Grade::Again);
        assert_eq!(g.grade(true, Duration::from_secs(2)), Grade::Easy);
        assert_eq!(g.grade(true, Duration::from_secs(10)), Grade::Good);
        assert_eq!(g.grade(true, Duration::from_secs(30)), Grade::Hard);
        for n in 1..=4 {
            assert_eq!(Grade::from_number(n).map(Grade::number), Some(n));
        }
        assert_eq!(Grade::from_number(5), None);
    }

    #[test]
    fn a_lapse_is_counted_and_a_good_answer_waits_longer_each_time() {
        let s = Scheduler::new(0.9).expect("scheduler");
        let mut r = DrillRecord::new(PositionKey(1), Color::White);
        let mut now = 1_800_000_000;
        let mut last = 0;
        for _ in 0..4 {
            let (next, days) = s.review(&r, Grade::Good, now, 3_000).expect("review");
            assert!(days >= last, "{days} after {last}");
            last = days;
            now = next.due;
            r = next;
        }
        assert!(last > 10, "{last} days");
        assert_eq!((r.reviews, r.lapses), (4, 0));
        let (r, days) = s.review(&r, Grade::Again, now, 9_000).expect("review");
        assert_eq!((r.reviews, r.lapses), (5, 1));
        assert!(days < last, "a lapse comes back sooner: {days} days");
        assert!(Scheduler::new(1.5).is_err());
    }
}
