//! "Where you burn your clock", the report's part about time (from the moves' times of
//! `mirror_core::clock`, kept on every edge and in every game record):
//!
//! - **slow positions**: where the player is to move, timed in at least `min_games` games,
//!   and thinks longer than on their average move of the same time class (so a daily game's
//!   hours do not drown a blitz game's seconds), ranked by how much longer, with their
//!   score;
//! - **time trouble**: the player's score in games where they made at least one move in
//!   time trouble against games where they made none, overall and by opening family (the
//!   last named position of the game's first 24 plies), among games whose clocks say.

use std::collections::{BTreeMap, HashMap};

use mirror_core::{
    GameRecord, MoveStats, PositionKey, TimeClass, openings::Openings, stats::ScoreInterval,
};
use shakmaty::Color;

use crate::EdgeRow;

/// Plies of a game looked at for its opening's name.
const OPENING_PLIES: usize = 24;

/// A position where the player thinks longer than on their average move.
#[derive(Clone, Debug, PartialEq)]
pub struct SlowPlace {
    /// The position (its path, colour, timed games there and the player's score).
    pub place: super::Place,
    /// The time class of the games counted.
    pub time_class: TimeClass,
    /// The player's average time there, in seconds.
    pub seconds: f64,
    /// Their average time per move in games of that class, in seconds.
    pub usual_seconds: f64,
    /// Moves made there in time trouble.
    pub trouble: u32,
}

impl SlowPlace {
    /// How many times their usual time they take here.
    pub fn ratio(&self) -> f64 {
        self.seconds / self.usual_seconds
    }
}

/// The player's results in games with and without a move in time trouble.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct TroubleSplit {
    /// The opening family (`None` for the overall line).
    pub opening: Option<String>,
    /// Games with at least one of the player's moves in time trouble.
    pub trouble: MoveStats,
    /// Games whose clocks say and where no move of the player's was in time trouble.
    pub calm: MoveStats,
}

impl TroubleSplit {
    /// Timed games in all.
    pub fn games(&self) -> u32 {
        self.trouble.games() + self.calm.games()
    }

    /// The score in time trouble and out of it, each with its interval.
    pub fn scores(&self) -> [Option<ScoreInterval>; 2] {
        [self.trouble.score_interval(), self.calm.score_interval()]
    }
}

/// The report's part about time.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct ClockReport {
    /// Slow positions, slowest (relative to the usual) first.
    pub slow: Vec<SlowPlace>,
    /// All the timed games.
    pub overall: TroubleSplit,
    /// By opening family, most games first.
    pub openings: Vec<TroubleSplit>,
    /// The share of the clock the player spends on a move, by stage of the game and clock
    /// left (what paces the mirror where the book has no time).
    pub pace: mirror_core::clock::TimeModel,
}

/// The player's time per move in each time class, over all their timed moves in the
/// report's games (what a slow position is slow against).
#[derive(Default)]
pub(crate) struct UsualTimes(HashMap<TimeClass, MoveStats>);

impl UsualTimes {
    /// Adds the player's timed moves of game `g`, where they had `color`.
    fn add(&mut self, g: &GameRecord, color: Color) {
        let first = usize::from(color == Color::Black);
        for ply in (first..g.moves.len()).step_by(2) {
            if let Some(t) = g.time_of(ply) {
                let s = self.0.entry(g.time_class).or_default();
                s.timed += 1;
                s.time_ms += u64::from(t.spent_ms);
                s.trouble += u32::from(t.trouble);
            }
        }
    }
}

/// The slow positions among the player's `edges` (at least the rows of every position
/// reached in `min_games` games), against their `usual` times (`to_move` gives the side to
/// move of a position; `place` makes a report place of a position's timed results).
pub(crate) fn slow_places(
    edges: &[EdgeRow],
    usual: &UsualTimes,
    to_move: impl Fn(PositionKey) -> Option<Color>,
    place: impl Fn(PositionKey, Color, &MoveStats) -> super::Place,
    min_games: u32,
    limit: usize,
) -> Vec<SlowPlace> {
    let mut here: rustc_hash::FxHashMap<(PositionKey, bool, TimeClass), MoveStats> =
        rustc_hash::FxHashMap::default();
    for e in edges
        .iter()
        .filter(|e| e.stats.timed > 0 && to_move(e.pos) == Some(e.dims.color))
    {
        let black = e.dims.color == Color::Black;
        here.entry((e.pos, black, e.dims.time_class))
            .or_default()
            .merge(&e.stats);
    }
    let mut slow: Vec<SlowPlace> = here
        .into_iter()
        .filter(|(_, s)| s.timed >= min_games.max(1))
        .filter_map(|((pos, black, tc), s)| {
            let usual_seconds = usual.0.get(&tc)?.average_seconds()?;
            let color = if black { Color::Black } else { Color::White };
            Some(SlowPlace {
                place: place(pos, color, &s),
                time_class: tc,
                seconds: s.average_seconds()?,
                usual_seconds,
                trouble: s.trouble,
            })
            // Only where they think longer than usual.
            .filter(|p| p.usual_seconds > 0.0 && p.seconds > p.usual_seconds)
        })
        .collect();
    slow.sort_by(|a, b| {
        b.ratio()
            .total_cmp(&a.ratio())
            .then(a.place.pos.cmp(&b.place.pos))
            .then((a.time_class as u8).cmp(&(b.time_class as u8)))
    });
    slow.truncate(limit);
    slow
}

/// What the report learns of the player's clocks, one game at a time ([`Clocks::add`]).
#[derive(Default)]
pub(crate) struct Clocks {
    /// All the timed games, in and out of time trouble.
    overall: TroubleSplit,
    /// The same by opening family.
    by_opening: BTreeMap<String, TroubleSplit>,
    /// The share of the clock spent, by stage and clock left.
    pace: mirror_core::clock::TimeModel,
    /// The time per move by time class.
    usual: UsualTimes,
}

impl Clocks {
    /// Adds game `g`, where the player had `color`.
    pub(crate) fn add(&mut self, g: &GameRecord, color: Color) {
        self.pace.add(g, color);
        self.usual.add(g, color);
        if g.times.is_empty() {
            return;
        }
        // The player's timed moves (theirs are every other ply, from their first).
        let mut mine = g
            .times
            .iter()
            .skip(usize::from(color == Color::Black))
            .step_by(2)
            .flatten()
            .peekable();
        if mine.peek().is_none() {
            return;
        }
        let trouble = mine.any(|t| t.trouble);
        let stats = MoveStats::from_game(g.result.outcome_for(color), None, None);
        let family = opening_family(g).unwrap_or_else(|| "(unnamed)".to_string());
        let of_opening = self
            .by_opening
            .entry(family.clone())
            .or_insert_with(|| TroubleSplit {
                opening: Some(family),
                ..TroubleSplit::default()
            });
        for split in [&mut self.overall, of_opening] {
            let side = if trouble {
                &mut split.trouble
            } else {
                &mut split.calm
            };
            side.merge(&stats);
        }
    }

    /// The overall split, the openings with at least `min_games` timed games (most games
    /// first, `limit` at most), the pace, and the time per move by time class.
    pub(crate) fn finish(
        self,
        min_games: u32,
        limit: usize,
    ) -> (
        TroubleSplit,
        Vec<TroubleSplit>,
        mirror_core::clock::TimeModel,
        UsualTimes,
    ) {
        let mut openings: Vec<TroubleSplit> = self
            .by_opening
            .into_values()
            .filter(|s| s.games() >= min_games.max(1))
            .collect();
        openings.sort_by(|a, b| b.games().cmp(&a.games()).then(a.opening.cmp(&b.opening)));
        openings.truncate(limit);
        (self.overall, openings, self.pace, self.usual)
    }
}

/// The player's score with and without time trouble, overall and by opening, from the
/// `games` whose clocks say ([`Clocks`]; `min_games`: openings with fewer timed games are
/// left out; `limit`: openings at most).
pub fn trouble_splits(
    games: &[(GameRecord, Color)],
    min_games: u32,
    limit: usize,
) -> (TroubleSplit, Vec<TroubleSplit>) {
    let mut clocks = Clocks::default();
    for (g, color) in games {
        clocks.add(g, *color);
    }
    let (overall, openings, _, _) = clocks.finish(min_games, limit);
    (overall, openings)
}

/// The family ("Sicilian Defense" of "Sicilian Defense: Najdorf Variation") of the last
/// named position of the game's first plies.
fn opening_family(g: &GameRecord) -> Option<String> {
    let opening = &g.moves[..g.moves.len().min(OPENING_PLIES)];
    let positions = super::positions_along(opening)?;
    let name = &Openings::builtin().along(&positions)?.name;
    Some(name.split(':').next().unwrap_or(name).trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirror_core::pgn::{Decoded, read_games};

    #[test]
    fn trouble_splits_count_each_timed_game_once() {
        let pgn = std::fs::read(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../tests/fixtures/clock/lichess-jishanshaikh4.pgn"),
        )
        .expect("fixture");
        let games: Vec<(GameRecord, Color)> = read_games(&pgn[..])
            .filter_map(|r| match r.expect("io").1 {
                Decoded::Game(g) => {
                    let c = g.color_of(&["jishanshaikh4"])?;
                    Some((g, c))
                }
                _ => None,
            })
            .collect();
        let (overall, openings) = trouble_splits(&games, 1, 1000);
        let timed = games.iter().filter(|(g, _)| !g.times.is_empty()).count();
        assert_eq!(overall.games() as usize, timed, "every clocked game once");
        assert_eq!(
            openings.iter().map(TroubleSplit::games).sum::<u32>(),
            overall.games()
        );
        assert!(
            overall.trouble.games() > 10 && overall.calm.games() > 10,
            "{overall:?}"
        );
    }
}
