//! "Where to study": what a player's graph says they should look at, from any
//! [`GraphRead`]. Four lists, each item with the moves (UCI, from the start) that reach it:
//!
//! - **costly** positions: where the player is to move, reached in at least `min_games`
//!   games, and scored below their own average with that colour beyond chance (the whole
//!   95% interval below it); ranked by games x the score deficit, with the interval, the
//!   move played most and the alternatives tried;
//! - **deviations**: positions where the player varies their own move (at least two moves
//!   with at least 10% of the games and 2 games each), each choice with its score;
//! - **surprises**: rare opponent replies (at most `rare`% of a position's games, the
//!   position reached at least `min_games` times) after which the player loses more often
//!   than after the position's other replies, by Fisher's exact test (two-sided, lost
//!   against not lost);
//! - **drift**: the player's most played positions where their main move's share changed
//!   between the earlier and the later half of their games there (by quarter; Fisher's
//!   exact test on the main move against the others) by 10 points of share or more, with
//!   each quarter's shares.
//!
//! Both lists run one test per candidate, thousands for a big player: a difference is kept
//! where its Benjamini-Hochberg q-value over all the list's tests is below
//! [`SIGNIFICANCE`] (at most 5% false findings among those kept), not its p-value alone.
//! A candidate whose margins cannot give a p-value below [`SIGNIFICANCE`] whatever its
//! outcome (a reply met twice) is not counted as a test (Tarone's filter).
//!
//! - and where the player burns their clock ([`burn`]);
//! - **where you lose by the engine**: in positions `mirror analyse` evaluated, the
//!   player's moves that lose at least 5 win% points against the engine's best move
//!   (lichess's inaccuracy), ranked by the points they are expected to cost: games x win%
//!   lost / 100; each with the better move and how the player scored when they did play
//!   it. A move the engine agrees with (a forced recapture) is never listed;
//! - **the opponents' mistakes the player does not punish**: an opponent's move that loses
//!   at least a mistake's worth (10 win% points), after which the player's usual reply gives
//!   back at least half of it;
//! - **the evaluation when the player leaves their book**, per opening line: the positions
//!   where their tree ends (reached in `min_games` games, no move on from there reached as
//!   often), and the engine's evaluation there from the player's side.
//!
//! A costly position is blamed only where the player had a real choice: never where they
//! had one legal move, where their usual move (90% of the games or more) is the engine's
//! choice (it loses less than an inaccuracy: the score comes from earlier), or, where the
//! engine has not looked, where their usual move takes back on the square the opponent
//! just captured on.
//!
//! Side to move is known from the path: every edge starts from the start position, so a
//! position's ply parity (breadth-first from the start) says who moves.

use std::collections::BTreeMap;

// Position keys are hashes already: Fx hashing, not SipHash (a fifth of the report's time
// on a big player's 1.6 million positions).
use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use mirror_core::{
    MoveCode, MoveStats, PositionKey,
    evaluation::{Evaluation, Judgement, move_loss, win_percent},
    openings::{Opening, Openings},
    stats::{ScoreInterval, benjamini_hochberg, fisher_exact, fisher_least_p},
};
use shakmaty::{Chess, Color, Position};

use crate::{EdgeRow, Filter, GraphRead, Result, StoreError};

pub mod burn;
mod graph;

use graph::{Graph, GraphBuilder};

/// The fewest games a position of the report may have (`min_games`): a position reached
/// once says nothing of a choice (no list can test it), and the report of a big player at
/// one game would take each of their 1.6 million positions (28 s and 2.7 GB for the
/// 27k-game player, against about a second at two).
pub const MIN_GAMES_FLOOR: u32 = 2;

/// What the report looks at.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ReportOptions {
    /// Only the player's games with this colour (both when `None`).
    pub color: Option<Color>,
    /// Which games count (its colour is ignored: see `color`).
    pub filter: Filter,
    /// Positions reached in fewer games are left out.
    pub min_games: u32,
    /// An opponent reply met in at most this percent of a position's games is rare.
    pub rare: u32,
    /// Items per list at most.
    pub limit: usize,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions {
            color: None,
            filter: Filter::default(),
            min_games: 10,
            rare: 10,
            limit: 10,
        }
    }
}

/// A move with the player's results after it.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveScore {
    /// The move.
    pub mv: MoveCode,
    /// The player's results (wins from their side).
    pub stats: MoveStats,
    /// Share of the position's games.
    pub share: f64,
    /// Score and its 95% interval.
    pub score: ScoreInterval,
}

/// A position of the report.
#[derive(Clone, Debug, PartialEq)]
pub struct Place {
    /// The moves from the start that reach it (one shortest line through the graph).
    pub path: Vec<MoveCode>,
    /// The position.
    pub pos: PositionKey,
    /// The player's colour there.
    pub color: Color,
    /// Games through it.
    pub games: u32,
    /// The player's score there and its interval.
    pub score: ScoreInterval,
}

/// A position where the player scores below their average.
#[derive(Clone, Debug, PartialEq)]
pub struct Costly {
    /// Where.
    pub place: Place,
    /// The player's average score with that colour.
    pub average: f64,
    /// `average - score`.
    pub deficit: f64,
    /// `games x deficit`: score points lost against the average.
    pub cost: f64,
    /// The player's moves, most played first.
    pub moves: Vec<MoveScore>,
}

/// A position where the player varies their move.
#[derive(Clone, Debug, PartialEq)]
pub struct Deviation {
    /// Where.
    pub place: Place,
    /// Each choice (at least 10% and 2 games), most played first.
    pub choices: Vec<MoveScore>,
}

/// The false discovery rate of the report's tests (Benjamini-Hochberg over Fisher's exact
/// test, two-sided).
pub const SIGNIFICANCE: f64 = 0.05;

/// The least change of the main move's share (earlier half against later) the drift
/// lists, however sure the test: 1.e4 in 97.8% of the games, then in 99.4%, is real and
/// tells the player nothing.
const DRIFT_CHANGE: f64 = 0.10;

/// Share of a position's games at or above which a move is the player's usual one.
const USUAL: f64 = 0.9;

/// A rare opponent reply after which the player loses more often than after the others.
#[derive(Clone, Debug, PartialEq)]
pub struct Surprise {
    /// The position before the reply (the opponent to move).
    pub place: Place,
    /// The reply and how those games went for the player.
    pub reply: MoveScore,
    /// The player's score after the position's other replies, and its interval.
    pub others: ScoreInterval,
    /// Games after the other replies.
    pub others_games: u32,
    /// Fisher's exact test (two-sided) of lost against not lost, this reply against the
    /// others.
    pub p_value: f64,
    /// Its Benjamini-Hochberg q-value over every rare reply the report tested.
    pub q_value: f64,
}

/// One quarter of a position's drift.
#[derive(Clone, Debug, PartialEq)]
pub struct Quarter {
    /// `YYYY-Qn`.
    pub quarter: String,
    /// Games through the position in that quarter.
    pub games: u32,
    /// Each move's share of them, most played first.
    pub shares: Vec<(MoveCode, f64)>,
}

/// A position where the player's main move's share changed, and the share of each move
/// by quarter.
#[derive(Clone, Debug, PartialEq)]
pub struct Drift {
    /// Where.
    pub place: Place,
    /// Per quarter, oldest first (games of unknown month are left out).
    pub quarters: Vec<Quarter>,
    /// The player's most played move there.
    pub mv: MoveCode,
    /// The earlier half of the dated games (whole quarters): games with the move, games.
    pub earlier: (u32, u32),
    /// The later half.
    pub later: (u32, u32),
    /// Fisher's exact test (two-sided) of the move against the others, earlier against
    /// later.
    pub p_value: f64,
    /// Its Benjamini-Hochberg q-value over every position the report tested.
    pub q_value: f64,
}

/// An opponent's move that loses at least a mistake's worth, and the player's usual reply
/// that gives at least half of it back.
#[derive(Clone, Debug, PartialEq)]
pub struct Unpunished {
    /// The position before the opponent's move (the opponent to move).
    pub place: Place,
    /// The opponent's move, and how those games went for the player.
    pub mistake: MoveScore,
    /// Win% points the opponent's move lost (for the opponent).
    pub gift: f64,
    /// The player's usual reply (most played), and how those games went.
    pub reply: MoveScore,
    /// Win% points the reply loses against the engine's best reply.
    pub given_back: f64,
    /// The evaluations before the mistake, after it (its best move is the punishing
    /// reply) and after the player's reply.
    pub evals: [Evaluation; 3],
}

/// One position where the player's tree ends, and the engine's word on it.
#[derive(Clone, Debug, PartialEq)]
pub struct BookExit {
    /// Where.
    pub place: Place,
    /// The engine's evaluation there.
    pub eval: Evaluation,
    /// The player's win% by it (lichess's formula, from the player's side).
    pub win: f64,
}

/// Where the player leaves their book in one opening, with one colour.
#[derive(Clone, Debug, PartialEq)]
pub struct BookLine {
    /// The opening (the last named position on the way), if any.
    pub opening: Option<Opening>,
    /// The player's colour.
    pub color: Color,
    /// Positions where their tree ends in this opening.
    pub exits: usize,
    /// Of those, the ones the engine has evaluated.
    pub analysed: usize,
    /// Games through the evaluated exits.
    pub games: u32,
    /// The player's win% at the evaluated exits, weighted by their games.
    pub win: f64,
    /// The evaluated exits, the worst for the player first (three at most).
    pub worst: Vec<BookExit>,
}

/// A move of the player's that the engine says loses win% against its best move.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineLoss {
    /// Where (the player to move).
    pub place: Place,
    /// The player's move there, and how those games went.
    pub played: MoveScore,
    /// Win% points the move loses for the player (lichess's formula on the evaluations
    /// before and after it).
    pub win_loss: f64,
    /// Points the move is expected to cost: games x win% lost / 100.
    pub expected_loss: f64,
    /// The position's evaluation (its best move's).
    pub before: Evaluation,
    /// The evaluation after the player's move.
    pub after: Evaluation,
    /// The engine's best move, when the player played it too: how those games went.
    pub best_played: Option<MoveScore>,
}

/// The whole report.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// The player's average score as White and as Black (`None` without games).
    pub average: [Option<f64>; 2],
    /// Costly positions, most costly first.
    pub costly: Vec<Costly>,
    /// Deviations, most played positions first.
    pub deviations: Vec<Deviation>,
    /// Surprises, most played positions first.
    pub surprises: Vec<Surprise>,
    /// Repertoire drift of the most played positions.
    pub drift: Vec<Drift>,
    /// Where the player burns their clock (empty without timed games).
    pub clock: burn::ClockReport,
    /// The player's moves the engine says lose, most costly first (empty where nothing is
    /// analysed).
    pub engine: Vec<EngineLoss>,
    /// Positions of the report's size (reached in `min_games` games, the player to move)
    /// that `mirror analyse` has evaluated, and how many there are.
    pub analysed: (usize, usize),
    /// The opponents' mistakes the player does not punish, the costliest first (games x
    /// win% given back).
    pub unpunished: Vec<Unpunished>,
    /// Where the player leaves their book, per opening line, most played first.
    pub book: Vec<BookLine>,
}

fn index(c: Color) -> usize {
    usize::from(c == Color::Black)
}

fn score(s: &MoveStats) -> ScoreInterval {
    s.score_interval()
        .expect("every position and move of the report has games")
}

fn move_scores(moves: &BTreeMap<MoveCode, MoveStats>) -> Vec<MoveScore> {
    let total: u32 = moves.values().map(MoveStats::games).sum();
    let mut out: Vec<MoveScore> = moves
        .iter()
        .filter(|(_, s)| s.games() > 0)
        .map(|(mv, s)| MoveScore {
            mv: *mv,
            stats: *s,
            share: f64::from(s.games()) / f64::from(total.max(1)),
            score: score(s),
        })
        .collect();
    out.sort_by(|a, b| b.stats.games().cmp(&a.stats.games()).then(a.mv.cmp(&b.mv)));
    out
}

/// A position's moves with their results.
type Moves = BTreeMap<MoveCode, MoveStats>;

/// The place `p` with the player's colour and its moves (only called for positions with
/// games: rows exist only for games played).
fn place(graph: &Graph, p: PositionKey, color: Color, moves: &Moves) -> Place {
    let mut total = MoveStats::default();
    for s in moves.values() {
        total.merge(s);
    }
    place_of(graph, p, color, &total)
}

/// The place `p` with the player's colour and their results there.
fn place_of(graph: &Graph, p: PositionKey, color: Color, total: &MoveStats) -> Place {
    Place {
        path: graph.path(p),
        pos: p,
        color,
        games: total.games(),
        score: score(total),
    }
}

/// The evaluations the report reads, by position.
type Evals = HashMap<PositionKey, Evaluation>;

/// The graph of one player's games, as the report walks it.
/// A position of the report's size: (position, the player's colour, who moves, its
/// moves).
type Spot<'a> = (PositionKey, Color, Color, &'a Moves);

/// The positions of the report's size (reached in `min_games` games, on a line from the
/// start), in a fixed order: read once, walked by every list.
fn spots<'a>(
    by_pos: &'a HashMap<(PositionKey, bool), Moves>,
    graph: &Graph,
    min_games: u32,
) -> Vec<Spot<'a>> {
    let mut out: Vec<_> = by_pos
        .iter()
        .filter_map(|(&(p, black), moves)| {
            let color = if black { Color::Black } else { Color::White };
            let games: u32 = moves.values().map(MoveStats::games).sum();
            let side = graph.to_move(p)?;
            (games >= min_games.max(1)).then_some((p, color, side, moves))
        })
        .collect();
    out.sort_by_key(|(p, c, _, _)| (p.0, index(*c)));
    out
}

struct Tree<'a> {
    by_pos: &'a HashMap<(PositionKey, bool), Moves>,
    /// The positions of the report's size ([`spots`]).
    places: Vec<Spot<'a>>,
    /// Games through each position with each colour of the player.
    graph: &'a Graph,
    evals: &'a Evals,
    opts: &'a ReportOptions,
}

impl Tree<'_> {
    /// The position `mv` leads to from `p`.
    fn child(&self, p: PositionKey, mv: MoveCode) -> Option<PositionKey> {
        self.graph.child(p, mv)
    }

    /// The position `p` itself (replayed along its line).
    fn position(&self, p: PositionKey) -> Option<Chess> {
        positions_along(&self.graph.path(p))?.pop()
    }

    /// The win% `mv` loses for `mover` at `p` (at `pos`), where both evaluations exist.
    fn loss(&self, p: PositionKey, pos: &Chess, mv: MoveCode, mover: Color) -> Option<f64> {
        let before = self.evals.get(&p)?;
        let after = self.evals.get(&self.child(p, mv)?)?;
        let uci = mirror_core::notation::uci(mv.to_move(pos).ok()?);
        Some(move_loss(before, after, mover, &uci))
    }

    /// Whether the player had no real choice at `p` (see the module's documentation).
    fn no_real_choice(&self, p: PositionKey, color: Color, scored: &[MoveScore]) -> bool {
        let Some(along) = positions_along(&self.graph.path(p)) else {
            return false;
        };
        let Some(pos) = along.last() else {
            return false;
        };
        if pos.legal_moves().len() <= 1 {
            return true;
        }
        let Some(usual) = scored.first().filter(|m| m.share >= USUAL) else {
            return false;
        };
        if let Some(loss) = self.loss(p, pos, usual.mv, color) {
            return Judgement::of(loss).is_none();
        }
        // Not analysed: a recapture on the square the opponent just captured on.
        let (Some(prev), Some(last)) = (along.len().checked_sub(2), self.graph.path(p).pop())
        else {
            return false;
        };
        let (Ok(theirs), Ok(mine)) = (last.to_move(&along[prev]), usual.mv.to_move(pos)) else {
            return false;
        };
        theirs.is_capture() && mine.is_capture() && theirs.to() == mine.to()
    }
}

/// The lists [`lists`] gives: costly positions, deviations, the drift's candidates (with
/// their most played move) and surprises.
type Lists = (
    Vec<Costly>,
    Vec<Deviation>,
    Vec<(Place, MoveCode)>,
    Vec<Surprise>,
);

fn lists(tree: &Tree<'_>, average: [Option<f64>; 2]) -> Lists {
    let mut costly = Vec::new();
    let mut deviations = Vec::new();
    let mut drift = Vec::new();
    let mut surprises = Vec::new();
    for &(p, color, side, moves) in &tree.places {
        let here = place(tree.graph, p, color, moves);
        let scored = move_scores(moves);
        if side == color {
            // Scored below the average beyond chance (the whole 95% interval is below),
            // where the player had a real choice.
            if let Some(avg) = average[index(color)]
                && here.score.high < avg
                && !tree.no_real_choice(p, color, &scored)
            {
                let deficit = avg - here.score.score;
                costly.push(Costly {
                    cost: f64::from(here.games) * deficit,
                    place: here.clone(),
                    average: avg,
                    deficit,
                    moves: scored.clone(),
                });
            }
            let floor = (0.1 * f64::from(here.games)).max(2.0);
            let choices: Vec<MoveScore> = scored
                .iter()
                .filter(|m| f64::from(m.stats.games()) >= floor)
                .cloned()
                .collect();
            if choices.len() >= 2 {
                deviations.push(Deviation {
                    place: here.clone(),
                    choices,
                });
            }
            if let Some(main) = scored.first() {
                drift.push((here, main.mv));
            }
        } else {
            surprises.extend(surprises_at(&here, &scored, tree.opts.rare));
        }
    }
    // Kept: the worse ones whose q-value over every rare reply tested is small.
    let (tested, worse): (Vec<Surprise>, Vec<bool>) = surprises.into_iter().unzip();
    let q = benjamini_hochberg(&tested.iter().map(|s| s.p_value).collect::<Vec<_>>());
    let surprises = tested
        .into_iter()
        .zip(q)
        .zip(worse)
        .filter(|((_, q), worse)| *worse && *q < SIGNIFICANCE)
        .map(|((s, q_value), _)| Surprise { q_value, ..s })
        .collect();
    (costly, deviations, drift, surprises)
}

/// The rare replies at `here` (the opponent to move), each tested: its p-value, and
/// whether the player loses more often after it than after the others.
fn surprises_at(here: &Place, replies: &[MoveScore], rare: u32) -> Vec<(Surprise, bool)> {
    let mut total = MoveStats::default();
    for r in replies {
        total.merge(&r.stats);
    }
    let mut out = Vec::new();
    for reply in replies {
        if reply.share * 100.0 > f64::from(rare) {
            continue;
        }
        let s = &reply.stats;
        let (games, lost) = (s.games(), s.losses);
        let others_games = total.games() - games;
        let others_lost = total.losses - lost;
        if others_games == 0 {
            continue;
        }
        let table = [lost, games - lost, others_lost, others_games - others_lost];
        // A reply of a game or two can never be significant: it is not one of the tests.
        let (Some(least), Some(p_value)) = (fisher_least_p(table), fisher_exact(table)) else {
            continue;
        };
        if least >= SIGNIFICANCE {
            continue;
        }
        let worse =
            u64::from(lost) * u64::from(others_games) > u64::from(others_lost) * u64::from(games);
        let points = f64::from(total.wins - s.wins) + 0.5 * f64::from(total.draws - s.draws);
        let surprise = Surprise {
            place: here.clone(),
            reply: reply.clone(),
            others: ScoreInterval::wilson(
                points / f64::from(others_games),
                f64::from(others_games),
            ),
            others_games,
            p_value,
            q_value: 1.0,
        };
        out.push((surprise, worse));
    }
    out
}

/// Each list in its order, cut to `limit`: costly positions the costliest first;
/// surprises by the points they cost against the other replies; the others by games.
fn rank(
    costly: &mut Vec<Costly>,
    deviations: &mut Vec<Deviation>,
    surprises: &mut Vec<Surprise>,
    limit: usize,
) {
    let by_games = |a: &Place, b: &Place| b.games.cmp(&a.games).then(a.pos.cmp(&b.pos));
    costly.sort_by(|a, b| {
        b.cost
            .total_cmp(&a.cost)
            .then(a.place.pos.cmp(&b.place.pos))
    });
    deviations.sort_by(|a, b| by_games(&a.place, &b.place));
    let cost =
        |s: &Surprise| f64::from(s.reply.stats.games()) * (s.others.score - s.reply.score.score);
    surprises.sort_by(|a, b| {
        cost(b)
            .total_cmp(&cost(a))
            .then(by_games(&a.place, &b.place))
            .then(a.reply.mv.cmp(&b.reply.mv))
    });
    costly.truncate(limit);
    deviations.truncate(limit);
    surprises.truncate(limit);
}

/// Each candidate's quarters (each quarter's moves and shares).
fn quarters_of(edges: &[EdgeRow], places: &[(Place, MoveCode)]) -> Vec<Vec<Quarter>> {
    let mut by_quarter: HashMap<(PositionKey, bool), BTreeMap<String, Moves>> = places
        .iter()
        .map(|(p, _)| ((p.pos, p.color == Color::Black), BTreeMap::new()))
        .collect();
    for e in edges {
        if let Some(m) = e.dims.month
            && let Some(qs) = by_quarter.get_mut(&(e.pos, e.dims.color == Color::Black))
        {
            qs.entry(format!("{}-Q{}", m.year(), (m.month() - 1) / 3 + 1))
                .or_default()
                .entry(e.mv)
                .or_default()
                .merge(&e.stats);
        }
    }
    places
        .iter()
        .map(|(p, _)| {
            by_quarter
                .remove(&(p.pos, p.color == Color::Black))
                .unwrap_or_default()
                .into_iter()
                .map(|(quarter, m)| Quarter {
                    quarter,
                    games: m.values().map(MoveStats::games).sum(),
                    shares: move_scores(&m)
                        .into_iter()
                        .map(|s| (s.mv, s.share))
                        .collect(),
                })
                .collect()
        })
        .collect()
}

/// The drift: the candidates whose main move's share differs between the earlier and the
/// later half of their dated games beyond chance (a small q-value over every candidate
/// tested), most played first, cut to `limit`.
fn drift(edges: &[EdgeRow], mut candidates: Vec<(Place, MoveCode)>, limit: usize) -> Vec<Drift> {
    candidates.sort_by(|a, b| b.0.games.cmp(&a.0.games).then(a.0.pos.cmp(&b.0.pos)));
    let quarters = quarters_of(edges, &candidates);
    let mut tested = Vec::new();
    for ((place, mv), quarters) in candidates.into_iter().zip(quarters) {
        if quarters.len() < 2 {
            continue;
        }
        // (games with the move, games) of a run of quarters.
        let count = |qs: &[Quarter]| {
            qs.iter().fold((0u32, 0u32), |(with, all), q| {
                let share = q.shares.iter().find(|(m, _)| *m == mv).map_or(0.0, |s| s.1);
                // A share is a count over the quarter's games: rounding gives it back.
                (
                    with + (share * f64::from(q.games)).round() as u32,
                    all + q.games,
                )
            })
        };
        let total: u32 = quarters.iter().map(|q| q.games).sum();
        // The earlier half: whole quarters, at least one, while they hold at most half.
        let mut cut = 1;
        let mut held = quarters[0].games;
        while cut + 1 < quarters.len() && 2 * (held + quarters[cut].games) <= total {
            held += quarters[cut].games;
            cut += 1;
        }
        let (earlier, later) = (count(&quarters[..cut]), count(&quarters[cut..]));
        let Some(p_value) =
            fisher_exact([earlier.0, earlier.1 - earlier.0, later.0, later.1 - later.0])
        else {
            continue;
        };
        tested.push(Drift {
            place,
            quarters,
            mv,
            earlier,
            later,
            p_value,
            q_value: 1.0,
        });
    }
    let q = benjamini_hochberg(&tested.iter().map(|d| d.p_value).collect::<Vec<_>>());
    let share = |(with, all): (u32, u32)| f64::from(with) / f64::from(all.max(1));
    tested
        .into_iter()
        .zip(q)
        .filter(|(d, q)| {
            *q < SIGNIFICANCE && (share(d.earlier) - share(d.later)).abs() >= DRIFT_CHANGE
        })
        .map(|(d, q_value)| Drift { q_value, ..d })
        .take(limit)
        .collect()
}

/// The report of `player`'s graph.
///
/// It reads the player's games once (for their clocks) and, beside that, their rows once,
/// in key order ([`GraphRead::for_each_edge`]): the graph (positions, moves, games, lines
/// from the start) from every row, and the move results and the rows themselves only
/// where the report looks.
pub fn report<S: GraphRead + Sync + ?Sized>(
    store: &S,
    player: &str,
    opts: &ReportOptions,
) -> Result<Report> {
    let filter = Filter {
        color: opts.color,
        ..opts.filter.clone()
    };
    // The games for their clocks, and the rows: each read once, side by side.
    let (clocks, looked) = std::thread::scope(|scope| {
        let clocks = scope.spawn(|| -> Result<burn::Clocks> {
            let mut clocks = burn::Clocks::default();
            store.for_each_game(player, &mut |g, c| {
                if filter.accepts(&mirror_core::stats::EdgeDims::of_game(&g, c)) {
                    clocks.add(&g, c);
                }
                Ok(())
            })?;
            Ok(clocks)
        });
        let looked = look(store, player, &filter, opts.min_games);
        // A panic there is a panic here.
        let clocks = clocks
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (clocks, looked)
    });
    let (overall, openings, pace, usual) = clocks?.finish(opts.min_games, opts.limit);
    let Looked {
        graph,
        by_pos,
        rows,
    } = looked?;
    let start = PositionKey::from_position(&Chess::default());
    // The player's average with each colour: their games are the start position's rows.
    let mut average = [None, None];
    for color in [Color::White, Color::Black] {
        if let Some(moves) = by_pos.get(&(start, color == Color::Black)) {
            let mut t = MoveStats::default();
            for s in moves.values() {
                t.merge(s);
            }
            average[index(color)] = t.score_interval().map(|i| i.score);
        }
    }
    let places = spots(&by_pos, &graph, opts.min_games);
    let evals = read_evals(store, &by_pos, &places, &graph)?;
    let tree = Tree {
        by_pos: &by_pos,
        places,
        graph: &graph,
        evals: &evals,
        opts,
    };
    let (mut costly, mut deviations, candidates, mut surprises) = lists(&tree, average);
    rank(&mut costly, &mut deviations, &mut surprises, opts.limit);
    let drift = drift(&rows, candidates, opts.limit);
    let slow = burn::slow_places(
        &rows,
        &usual,
        |p| graph.to_move(p),
        |p, color, s| place_of(&graph, p, color, s),
        opts.min_games,
        opts.limit,
    );
    let (engine, analysed) = engine_losses(&tree);
    Ok(Report {
        engine,
        analysed,
        unpunished: unpunished(&tree),
        book: book(&tree),
        average,
        costly,
        deviations,
        surprises,
        drift,
        clock: burn::ClockReport {
            slow,
            overall,
            openings,
            pace,
        },
    })
}

/// What the report reads of a player's rows ([`look`]).
struct Looked {
    /// Every position and move.
    graph: Graph,
    /// Each move's results, by position and the player's colour, where the report looks.
    by_pos: HashMap<(PositionKey, bool), Moves>,
    /// The rows of the positions of the report's size (the drift's quarters and the
    /// clock's slow positions count them).
    rows: Vec<EdgeRow>,
}

/// The rows of `player` that `filter` accepts, read once in key order: the graph from
/// every row; each move's results at the start, at the positions of the report's size
/// (`min_games`) and at those reached in as many games as an opponent's mistake and the
/// player's usual reply to it need (one move on from a position of the report's size;
/// where fewer games went on, no list takes them); the rows themselves at the positions
/// of the report's size. A position's rows come together in key order, so its games are
/// known when its last row is read.
fn look<S: GraphRead + ?Sized>(
    store: &S,
    player: &str,
    filter: &Filter,
    min_games: u32,
) -> Result<Looked> {
    let start = PositionKey::from_position(&Chess::default());
    let min = min_games.max(1);
    let looked_at = min.min(PATTERN_GAMES);
    let about = usize::try_from(store.counts(player)?.edge_rows).unwrap_or(0);
    let mut builder = GraphBuilder::with_capacity(about);
    let mut by_pos: HashMap<(PositionKey, bool), Moves> = HashMap::default();
    let mut rows: Vec<EdgeRow> = Vec::new();
    // The rows of the position being read.
    let mut run: Vec<EdgeRow> = Vec::new();
    let mut end_of_run = |run: &mut Vec<EdgeRow>| {
        let Some(pos) = run.first().map(|e| e.pos) else {
            return;
        };
        let mut games = [0; 2];
        for e in run.iter() {
            games[index(e.dims.color)] += e.stats.games();
        }
        for e in run.drain(..) {
            let here = games[index(e.dims.color)];
            if here >= looked_at || pos == start {
                by_pos
                    .entry((pos, e.dims.color == Color::Black))
                    .or_default()
                    .entry(e.mv)
                    .or_default()
                    .merge(&e.stats);
            }
            if here >= min {
                rows.push(e);
            }
        }
    };
    let mut each = |e: EdgeRow| {
        if !filter.accepts(&e.dims) {
            return Ok(());
        }
        if let Some(last) = run.last().map(|r| (r.pos, r.mv)) {
            if (e.pos, e.mv) < last {
                return Err(StoreError::Corrupt(format!(
                    "{player}'s rows out of key order: position {:016x} move {} after \
                     position {:016x} move {}",
                    e.pos.0, e.mv.0, last.0.0, last.1.0
                )));
            }
            if e.pos != last.0 {
                end_of_run(&mut run);
            }
        }
        builder.row(e.pos, e.mv, e.child, e.dims.color, e.stats.games());
        run.push(e);
        Ok(())
    };
    store.for_each_edge(player, &mut each)?;
    end_of_run(&mut run);
    let graph = builder.build(start);
    Ok(Looked {
        graph,
        by_pos,
        rows,
    })
}

/// The stored evaluations the report needs: every position of its size and the
/// positions its moves lead to, and, where the opponent moves, the positions after the
/// player's replies too.
fn read_evals<S: GraphRead + ?Sized>(
    store: &S,
    by_pos: &HashMap<(PositionKey, bool), Moves>,
    places: &[Spot<'_>],
    graph: &Graph,
) -> Result<Evals> {
    let mut keys: Vec<PositionKey> = Vec::new();
    for &(p, color, _, moves) in places {
        let black = color == Color::Black;
        keys.push(p);
        for mv in moves.keys() {
            let Some(child) = graph.child(p, *mv) else {
                continue;
            };
            keys.push(child);
            for reply in by_pos
                .get(&(child, black))
                .into_iter()
                .flat_map(BTreeMap::keys)
            {
                keys.extend(graph.child(child, *reply));
            }
        }
    }
    keys.sort_unstable_by_key(|k| k.0);
    keys.dedup();
    let mut evals = Evals::default();
    for chunk in keys.chunks(1000) {
        for (k, e) in chunk.iter().zip(store.evaluations(chunk)?) {
            if let Some(e) = e {
                evals.insert(*k, e);
            }
        }
    }
    Ok(evals)
}

/// The player's moves that lose at least an inaccuracy's worth by the engine, in the
/// positions of the report's size where they are to move; and (evaluated, such
/// positions).
fn engine_losses(tree: &Tree<'_>) -> (Vec<EngineLoss>, (usize, usize)) {
    let places: Vec<_> = tree
        .places
        .iter()
        .copied()
        .filter(|(_, color, side, _)| side == color)
        .collect();
    let analysed = places
        .iter()
        .filter(|(p, _, _, _)| tree.evals.contains_key(p))
        .count();
    let mut out = Vec::new();
    for &(p, color, _, moves) in &places {
        let Some(before) = tree.evals.get(&p) else {
            continue;
        };
        let Some(pos) = tree.position(p) else {
            continue;
        };
        let scores = move_scores(moves);
        let uci_of = |m: MoveCode| m.to_move(&pos).ok().map(mirror_core::notation::uci);
        // The engine's best move among the player's, by its UCI in the position.
        let best_played = scores
            .iter()
            .find(|s| before.best.is_some() && uci_of(s.mv) == before.best)
            .cloned();
        for played in &scores {
            let (Some(after), Some(loss)) = (
                tree.child(p, played.mv).and_then(|c| tree.evals.get(&c)),
                tree.loss(p, &pos, played.mv, color),
            ) else {
                continue;
            };
            if Judgement::of(loss).is_none() {
                continue;
            }
            out.push(EngineLoss {
                place: place(tree.graph, p, color, moves),
                played: played.clone(),
                win_loss: loss,
                expected_loss: f64::from(played.stats.games()) * loss / 100.0,
                before: before.clone(),
                after: after.clone(),
                best_played: best_played.clone(),
            });
        }
    }
    out.sort_by(|a, b| {
        b.expected_loss
            .total_cmp(&a.expected_loss)
            .then(a.place.pos.0.cmp(&b.place.pos.0))
            .then(a.played.mv.cmp(&b.played.mv))
    });
    out.truncate(tree.opts.limit);
    (out, (analysed, places.len()))
}

/// Games an opponent's move and the player's reply each need before the report calls the
/// reply the player's usual one.
const PATTERN_GAMES: u32 = 2;

/// The opponents' mistakes (10 win% points or more) after which the player's usual reply
/// gives back at least half, the costliest first (the reply's games x win% given back).
fn unpunished(tree: &Tree<'_>) -> Vec<Unpunished> {
    let mut out = Vec::new();
    for &(p, color, side, moves) in &tree.places {
        if side == color || !tree.evals.contains_key(&p) {
            continue;
        }
        let Some(pos) = tree.position(p) else {
            continue;
        };
        for mistake in move_scores(moves) {
            if mistake.stats.games() < PATTERN_GAMES {
                continue;
            }
            let (Some(gift), Some(p1), Ok(m)) = (
                tree.loss(p, &pos, mistake.mv, side),
                tree.child(p, mistake.mv),
                mistake.mv.to_move(&pos),
            ) else {
                continue;
            };
            if gift < 10.0 {
                continue;
            }
            let Some(replies) = tree.by_pos.get(&(p1, color == Color::Black)) else {
                continue;
            };
            let Some(reply) = move_scores(replies).into_iter().next() else {
                continue;
            };
            let mut after = pos.clone();
            after.play_unchecked(m);
            let Some(given_back) = tree.loss(p1, &after, reply.mv, color) else {
                continue;
            };
            if reply.stats.games() < PATTERN_GAMES || given_back < gift / 2.0 {
                continue;
            }
            let eval = |k: Option<PositionKey>| k.and_then(|k| tree.evals.get(&k)).cloned();
            let (Some(a), Some(b), Some(c)) = (
                eval(Some(p)),
                eval(Some(p1)),
                eval(tree.child(p1, reply.mv)),
            ) else {
                continue;
            };
            out.push(Unpunished {
                place: place(tree.graph, p, color, moves),
                mistake: mistake.clone(),
                gift,
                reply,
                given_back,
                evals: [a, b, c],
            });
        }
    }
    let cost = |u: &Unpunished| f64::from(u.reply.stats.games()) * u.given_back;
    out.sort_by(|a, b| {
        cost(b)
            .total_cmp(&cost(a))
            .then(a.place.pos.0.cmp(&b.place.pos.0))
            .then(a.mistake.mv.cmp(&b.mistake.mv))
    });
    // Mistakes that transpose to one position meet the same reply: it is listed once.
    let mut seen = HashSet::default();
    out.retain(|u| seen.insert(tree.child(u.place.pos, u.mistake.mv)));
    out.truncate(tree.opts.limit);
    out
}

/// Where the player leaves their book, per opening line and colour, most played first.
fn book(tree: &Tree<'_>) -> Vec<BookLine> {
    let mut lines: BTreeMap<(usize, String), BookLine> = BTreeMap::new();
    let min = tree.opts.min_games.max(1);
    for &(p, color, _, moves) in &tree.places {
        let black = color == Color::Black;
        let goes_on = moves
            .keys()
            .filter_map(|mv| tree.child(p, *mv))
            .any(|c| tree.graph.games(c, color) >= min);
        if goes_on {
            continue;
        }
        let Some(along) = positions_along(&tree.graph.path(p)) else {
            continue;
        };
        let opening = Openings::builtin().along(&along).cloned();
        let key = (
            index(color),
            opening
                .as_ref()
                .map_or_else(String::new, |o| format!("{} {}", o.eco, o.name)),
        );
        let entry = lines.entry(key).or_insert_with(|| BookLine {
            opening,
            color,
            exits: 0,
            analysed: 0,
            games: 0,
            win: 0.0,
            worst: Vec::new(),
        });
        entry.exits += 1;
        let Some(eval) = tree.evals.get(&p) else {
            continue;
        };
        let white = win_percent(eval.capped_cp());
        let win = if black { 100.0 - white } else { white };
        let here = place(tree.graph, p, color, moves);
        entry.analysed += 1;
        // A running mean weighted by games.
        let games = entry.games + here.games;
        entry.win += (win - entry.win) * f64::from(here.games) / f64::from(games.max(1));
        entry.games = games;
        entry.worst.push(BookExit {
            place: here,
            eval: eval.clone(),
            win,
        });
    }
    let mut out: Vec<BookLine> = lines.into_values().filter(|l| l.analysed > 0).collect();
    for l in &mut out {
        l.worst.sort_by(|a, b| {
            a.win
                .total_cmp(&b.win)
                .then(b.place.games.cmp(&a.place.games))
                .then(a.place.pos.0.cmp(&b.place.pos.0))
        });
        l.worst.truncate(3);
    }
    out.sort_by(|a, b| {
        b.games
            .cmp(&a.games)
            .then(index(a.color).cmp(&index(b.color)))
    });
    out.truncate(tree.opts.limit);
    out
}

/// The positions along `path` from the start, the start included and the item's
/// position last (for showing a report item: its FEN and its opening); `None` if a move
/// does not replay.
pub fn positions_along(path: &[MoveCode]) -> Option<Vec<Chess>> {
    let mut pos = Chess::default();
    let mut out = vec![pos.clone()];
    for code in path {
        let m = code.to_move(&pos).ok()?;
        pos.play_unchecked(m);
        out.push(pos.clone());
    }
    Some(out)
}
