//! "Where to study": what a player's graph says they should look at, from any
//! [`GraphStore`]. Four lists, each item with the moves (UCI, from the start) that reach it:
//!
//! - **costly** positions: where the player is to move, reached in at least `min_games`
//!   games, and scored below their own average with that colour beyond chance (the whole
//!   95% interval below it); ranked by games x the score deficit, with the interval, the
//!   move played most and the alternatives tried;
//! - **deviations**: positions where the player varies their own move (at least two moves
//!   with at least 10% of the games and 2 games each), each choice with its score;
//! - **surprises**: opponent replies met in at most `rare` games in positions reached at
//!   least `min_games` times, and how those games went;
//! - **drift**: for the player's most played positions, the share of each move by quarter;
//! - and where the player burns their clock ([`crate::burn`]);
//! - **where you lose by the engine**: in positions `mirror analyse` evaluated, the
//!   player's moves that lose at least 5 win% points against the engine's best move
//!   (lichess's inaccuracy), ranked by the points they are expected to cost: games x win%
//!   lost / 100; each with the better move and how the player scored when they did play
//!   it. A move the engine agrees with (a forced recapture) is never listed.
//!
//! Side to move is known from the path: every edge starts from the start position, so a
//! position's ply parity (breadth-first from the start) says who moves.

use std::collections::{BTreeMap, HashMap, VecDeque};

use mirror_core::{
    MoveCode, MoveStats, PositionKey,
    evaluation::{Evaluation, Judgement, move_loss},
    stats::ScoreInterval,
};
use shakmaty::{Chess, Color, Position};

use crate::{EdgeRow, Filter, GraphStore, Result};

/// What the report looks at.
#[derive(Clone, Debug)]
pub struct ReportOptions {
    /// Only the player's games with this colour (both when `None`).
    pub color: Option<Color>,
    /// Which games count (its colour is ignored: see `color`).
    pub filter: Filter,
    /// Positions reached in fewer games are left out.
    pub min_games: u32,
    /// An opponent reply met in at most this many games is a surprise.
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
            rare: 2,
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

/// An opponent reply met only a few times.
#[derive(Clone, Debug, PartialEq)]
pub struct Surprise {
    /// The position before the reply (the opponent to move).
    pub place: Place,
    /// The reply and how those games went for the player.
    pub reply: MoveScore,
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

/// The share of each move by quarter in one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Drift {
    /// Where.
    pub place: Place,
    /// Per quarter, oldest first (games of unknown month are left out).
    pub quarters: Vec<Quarter>,
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
    pub clock: crate::burn::ClockReport,
    /// The player's moves the engine says lose, most costly first (empty where nothing is
    /// analysed).
    pub engine: Vec<EngineLoss>,
    /// Positions of the report's size (reached in `min_games` games, the player to move)
    /// that `mirror analyse` has evaluated, and how many there are.
    pub analysed: (usize, usize),
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

/// A position's ply, and the previous position with the move from it (none for the
/// start).
type Step = (u32, Option<(PositionKey, MoveCode)>);

/// Breadth-first from `start` over `children`: each position's ply and one shortest line.
fn shortest_lines(
    children: &HashMap<PositionKey, BTreeMap<MoveCode, PositionKey>>,
    start: PositionKey,
) -> HashMap<PositionKey, Step> {
    let mut line: HashMap<PositionKey, Step> = HashMap::new();
    line.insert(start, (0, None));
    let mut queue = VecDeque::from([start]);
    while let Some(p) = queue.pop_front() {
        let ply = line[&p].0;
        if let Some(next) = children.get(&p) {
            for (mv, child) in next {
                if !line.contains_key(child) {
                    line.insert(*child, (ply + 1, Some((p, *mv))));
                    queue.push_back(*child);
                }
            }
        }
    }
    line
}

/// The moves of one shortest line from the start to `p`.
fn path(line: &HashMap<PositionKey, Step>, p: PositionKey) -> Vec<MoveCode> {
    let mut out = Vec::new();
    let mut at = p;
    while let Some(&(_, Some((parent, mv)))) = line.get(&at) {
        out.push(mv);
        at = parent;
    }
    out.reverse();
    out
}

/// The side to move at `p`, by its ply (none for a position off every line).
fn to_move(line: &HashMap<PositionKey, Step>, p: PositionKey) -> Option<Color> {
    line.get(&p).map(|(ply, _)| {
        if ply % 2 == 0 {
            Color::White
        } else {
            Color::Black
        }
    })
}

/// The place `p` with the player's colour and its moves (only called for positions with
/// games: rows exist only for games played).
fn place(line: &HashMap<PositionKey, Step>, p: PositionKey, color: Color, moves: &Moves) -> Place {
    let mut total = MoveStats::default();
    for s in moves.values() {
        total.merge(s);
    }
    place_of(line, p, color, &total)
}

/// The place `p` with the player's colour and their results there.
fn place_of(
    line: &HashMap<PositionKey, Step>,
    p: PositionKey,
    color: Color,
    total: &MoveStats,
) -> Place {
    Place {
        path: path(line, p),
        pos: p,
        color,
        games: total.games(),
        score: score(total),
    }
}

/// The report's four lists, unsorted: costly positions and deviations at the player's
/// moves, surprises at the replies, and the drift's candidates.
fn lists(
    by_pos: &HashMap<(PositionKey, bool), Moves>,
    line: &HashMap<PositionKey, Step>,
    average: [Option<f64>; 2],
    opts: &ReportOptions,
) -> (Vec<Costly>, Vec<Deviation>, Vec<Surprise>, Vec<Drift>) {
    let mut costly = Vec::new();
    let mut deviations = Vec::new();
    let mut surprises = Vec::new();
    let mut drift = Vec::new();
    for (&(p, black), moves) in by_pos {
        let color = if black { Color::Black } else { Color::White };
        let games: u32 = moves.values().map(MoveStats::games).sum();
        if games < opts.min_games.max(1) {
            continue;
        }
        let Some(side) = to_move(line, p) else {
            continue;
        };
        let here = place(line, p, color, moves);
        if side == color {
            let scored = move_scores(moves);
            // Scored below the average beyond chance: the whole 95% interval is below.
            if let Some(avg) = average[index(color)]
                && here.score.high < avg
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
            drift.push(Drift {
                place: here,
                quarters: Vec::new(),
            });
        } else {
            for reply in move_scores(moves) {
                if reply.stats.games() <= opts.rare {
                    surprises.push(Surprise {
                        place: here.clone(),
                        reply,
                    });
                }
            }
        }
    }
    (costly, deviations, surprises, drift)
}

/// Each list in its order (costliest first; the others by games), cut to `limit`.
fn rank(
    costly: &mut Vec<Costly>,
    deviations: &mut Vec<Deviation>,
    surprises: &mut Vec<Surprise>,
    drift: &mut Vec<Drift>,
    limit: usize,
) {
    let by_games = |a: &Place, b: &Place| b.games.cmp(&a.games).then(a.pos.cmp(&b.pos));
    costly.sort_by(|a, b| {
        b.cost
            .total_cmp(&a.cost)
            .then(a.place.pos.cmp(&b.place.pos))
    });
    deviations.sort_by(|a, b| by_games(&a.place, &b.place));
    surprises.sort_by(|a, b| by_games(&a.place, &b.place).then(a.reply.mv.cmp(&b.reply.mv)));
    drift.sort_by(|a, b| by_games(&a.place, &b.place));
    costly.truncate(limit);
    deviations.truncate(limit);
    surprises.truncate(limit);
    drift.truncate(limit);
}

/// The drift's quarters (each quarter's moves and shares), for the chosen positions only.
fn fill_quarters(edges: &[EdgeRow], drift: &mut [Drift]) {
    // The drift's quarters, for the chosen positions only.
    let mut by_quarter: HashMap<(PositionKey, bool), BTreeMap<String, Moves>> = drift
        .iter()
        .map(|d| {
            (
                (d.place.pos, d.place.color == Color::Black),
                BTreeMap::new(),
            )
        })
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
    for d in drift.iter_mut() {
        if let Some(qs) = by_quarter.remove(&(d.place.pos, d.place.color == Color::Black)) {
            d.quarters = qs
                .into_iter()
                .map(|(quarter, m)| Quarter {
                    quarter,
                    games: m.values().map(MoveStats::games).sum(),
                    shares: move_scores(&m)
                        .into_iter()
                        .map(|s| (s.mv, s.share))
                        .collect(),
                })
                .collect();
        }
    }
}

/// The report of `player`'s graph.
pub fn report<S: GraphStore + ?Sized>(
    store: &S,
    player: &str,
    opts: &ReportOptions,
) -> Result<Report> {
    let filter = Filter {
        color: opts.color,
        ..opts.filter.clone()
    };
    let edges: Vec<EdgeRow> = store
        .edges(player)?
        .into_iter()
        .filter(|e| filter.accepts(&e.dims))
        .collect();
    // Per (position, the player's colour): each move's results, and by quarter.
    let mut by_pos: HashMap<(PositionKey, bool), Moves> = HashMap::new();
    let mut children: HashMap<PositionKey, BTreeMap<MoveCode, PositionKey>> = HashMap::new();
    for e in &edges {
        let black = e.dims.color == Color::Black;
        by_pos
            .entry((e.pos, black))
            .or_default()
            .entry(e.mv)
            .or_default()
            .merge(&e.stats);
        children.entry(e.pos).or_default().insert(e.mv, e.child);
    }
    let start = PositionKey::from_position(&Chess::default());
    let line = shortest_lines(&children, start);
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
    let (mut costly, mut deviations, mut surprises, mut drift) =
        lists(&by_pos, &line, average, opts);
    rank(
        &mut costly,
        &mut deviations,
        &mut surprises,
        &mut drift,
        opts.limit,
    );
    fill_quarters(&edges, &mut drift);
    let slow = crate::burn::slow_places(
        &edges,
        |p| to_move(&line, p),
        |p, color, s| place_of(&line, p, color, s),
        opts.min_games,
        opts.limit,
    );
    // The player's games the filter accepts, for their clocks.
    let games: Vec<_> = store
        .games(player)?
        .into_iter()
        .filter(|(g, c)| filter.accepts(&mirror_core::stats::EdgeDims::of_game(g, *c)))
        .collect();
    let (overall, openings) = crate::burn::trouble_splits(&games, opts.min_games, opts.limit);
    let pace = mirror_core::clock::TimeModel::learn(&games);
    let (engine, analysed) = engine_losses(store, &by_pos, &children, &line, opts)?;
    Ok(Report {
        engine,
        analysed,
        average,
        costly,
        deviations,
        surprises,
        drift,
        clock: crate::burn::ClockReport {
            slow,
            overall,
            openings,
            pace,
        },
    })
}

/// The player's moves that lose at least an inaccuracy's worth by the engine, in the
/// positions of the report's size where they are to move; and (evaluated, such
/// positions).
fn engine_losses<S: GraphStore + ?Sized>(
    store: &S,
    by_pos: &HashMap<(PositionKey, bool), Moves>,
    children: &HashMap<PositionKey, BTreeMap<MoveCode, PositionKey>>,
    line: &HashMap<PositionKey, Step>,
    opts: &ReportOptions,
) -> Result<(Vec<EngineLoss>, (usize, usize))> {
    let mut places: Vec<(PositionKey, Color, &Moves)> = by_pos
        .iter()
        .filter_map(|(&(p, black), moves)| {
            let color = if black { Color::Black } else { Color::White };
            let games: u32 = moves.values().map(MoveStats::games).sum();
            (to_move(line, p) == Some(color) && games >= opts.min_games)
                .then_some((p, color, moves))
        })
        .collect();
    places.sort_by_key(|(p, c, _)| (p.0, index(*c)));
    let mut keys: Vec<PositionKey> = Vec::new();
    for (p, _, moves) in &places {
        keys.push(*p);
        keys.extend(
            moves
                .keys()
                .filter_map(|m| children.get(p)?.get(m).copied()),
        );
    }
    keys.sort_unstable_by_key(|k| k.0);
    keys.dedup();
    let mut evals: HashMap<PositionKey, Evaluation> = HashMap::new();
    for chunk in keys.chunks(1000) {
        for (k, e) in chunk.iter().zip(store.evaluations(chunk)?) {
            if let Some(e) = e {
                evals.insert(*k, e);
            }
        }
    }
    let analysed = places
        .iter()
        .filter(|(p, _, _)| evals.contains_key(p))
        .count();
    let mut out = Vec::new();
    for (p, color, moves) in &places {
        let Some(before) = evals.get(p) else {
            continue;
        };
        let scores = move_scores(moves);
        // The engine's best move among the player's, by its UCI in the position.
        let pos = positions_along(&path(line, *p)).and_then(|along| along.last().cloned());
        let uci_of = |m: MoveCode| {
            pos.as_ref()
                .and_then(|pos| m.to_move(pos).ok())
                .map(mirror_core::notation::uci)
        };
        let best_played = scores
            .iter()
            .find(|s| before.best.is_some() && uci_of(s.mv) == before.best)
            .cloned();
        for played in &scores {
            let Some(after) = children
                .get(p)
                .and_then(|c| c.get(&played.mv))
                .and_then(|child| evals.get(child))
            else {
                continue;
            };
            let Some(uci) = uci_of(played.mv) else {
                continue;
            };
            let loss = move_loss(before, after, *color, &uci);
            if Judgement::of(loss).is_none() {
                continue;
            }
            out.push(EngineLoss {
                place: place(line, *p, *color, moves),
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
    out.truncate(opts.limit);
    Ok((out, (analysed, places.len())))
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
