//! Preparing against an opponent: the lines where two players' trees meet. With ME as one
//! colour, from the start position: ME's moves as ME played them (with that colour), the
//! opponent's replies as they played them (with the other colour), each line ranked by how
//! likely it is to happen (the product, along the path, of each player's share of the move
//! they chose). A line ends where either tree ends, where the opponent's tree thins out
//! (fewer than `thin` games: "out of their book"), or at `depth` plies. Every number is the
//! store's `moves` answer for that player at that position (what `explore` shows).
//!
//! Where `mirror analyse` has evaluated the positions, the walk says what the engine
//! thinks: each move's win% loss against the best (lichess's formula), the opponent's
//! moves that lose ("aim here", [`aims`]), and a suggestion to play another move than the
//! usual one only where the engine backs it (the usual move loses an inaccuracy's worth
//! more than the alternative) or the Wilson intervals of the two scores do not overlap
//! (and the engine does not say the opposite). A suggestion is given once, on the
//! likeliest line where it arises, not on every line through the position.

use mirror_core::{
    MoveCode, MoveStats, PositionKey,
    evaluation::{Evaluation, Judgement, move_loss},
    stats::ScoreInterval,
};
use shakmaty::{Chess, Color, Position};

use crate::{Filter, GraphRead, MoveRow, StoreError};

/// Why there is nothing to prepare, or the store failed.
#[derive(Debug, thiserror::Error)]
pub enum PrepError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A player has no games with the colour they would have.
    #[error("{player} has no games as {color} (with these filters)")]
    NoGames {
        /// The player.
        player: String,
        /// The colour, in words.
        color: &'static str,
    },
    /// The opponent never reached a position the player's moves lead to (or the other
    /// way round).
    #[error("{me} as {color} and {them} have no position in common (with these filters)")]
    NoCommonPosition {
        /// The player preparing.
        me: String,
        /// Their colour, in words.
        color: &'static str,
        /// The opponent.
        them: String,
    },
}

type Result<T> = std::result::Result<T, PrepError>;

/// What to walk.
#[derive(Clone, Debug)]
pub struct PrepOptions {
    /// ME's colour.
    pub color: Color,
    /// Which of ME's games count (its colour is set from `color`).
    pub me_filter: Filter,
    /// Which of the opponent's games count (its colour is the other one).
    pub them_filter: Filter,
    /// Plies at most.
    pub depth: usize,
    /// Lines less likely than this are left out (0-1).
    pub min_probability: f64,
    /// The opponent's tree thins out below this many games at a position.
    pub thin: u32,
    /// Lines at most, likeliest first.
    pub limit: usize,
}

impl Default for PrepOptions {
    fn default() -> Self {
        PrepOptions {
            color: Color::White,
            me_filter: Filter::default(),
            them_filter: Filter::default(),
            depth: 8,
            min_probability: 0.01,
            thin: 5,
            limit: 20,
        }
    }
}

/// Who moves at a step.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Mover {
    /// The player preparing.
    Me,
    /// The opponent.
    Them,
}

/// One move of a line.
#[derive(Clone, Debug, PartialEq)]
pub struct PrepStep {
    /// Who played it.
    pub mover: Mover,
    /// The position it is played from.
    pub from: PositionKey,
    /// The move.
    pub mv: MoveCode,
    /// The mover's results after it (from the mover's side).
    pub stats: MoveStats,
    /// Its share of the mover's games at the position.
    pub share: f64,
    /// The mover's games at the position.
    pub games: u32,
    /// Win% points the move loses against the engine's best, where `mirror analyse`
    /// evaluated the position and the one after the move.
    pub win_loss: Option<f64>,
    /// The engine's best move at the position (UCI), where evaluated.
    pub best: Option<String>,
}

/// Why a line stops where it does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LineEnd {
    /// The depth asked for.
    Depth,
    /// ME never reached the last position with ME to move.
    MyTreeEnds,
    /// The opponent never reached it with them to move.
    TheirTreeEnds,
    /// The opponent reached it in fewer games than `thin`: out of their book.
    TheirTreeThins {
        /// Their games there.
        games: u32,
    },
}

/// A better move of ME's than the one ME plays most, against the opponent's likeliest
/// reply: ME's score in the positions after (move, reply), from ME's own games.
#[derive(Clone, Debug, PartialEq)]
pub struct Suggestion {
    /// The ply of the line where ME chooses (0: the first move).
    pub ply: usize,
    /// ME's most played move there, the opponent's likeliest reply to it, and ME's score
    /// after both (0-1) over ME's games.
    pub played: Reply,
    /// The alternative ME has played, the reply, ME's score and games after both.
    pub alternative: Reply,
    /// What says the alternative is better.
    pub backing: Backing,
}

/// What backs a suggestion.
#[derive(Clone, Debug, PartialEq)]
pub enum Backing {
    /// The engine: ME's usual move loses at least an inaccuracy's worth (5 win% points)
    /// more than the alternative.
    Engine {
        /// Win% points the usual move loses.
        played: f64,
        /// Win% points the alternative loses.
        alternative: f64,
    },
    /// ME's scores after the two: the alternative's 95% Wilson interval lies wholly above
    /// the usual move's (and the engine, where it looked, does not say the opposite).
    Interval,
}

/// An opponent's move the engine says loses, met on the lines: where to aim.
#[derive(Clone, Debug, PartialEq)]
pub struct Aim {
    /// The moves from the start to the position before it.
    pub path: Vec<MoveCode>,
    /// The opponent's move.
    pub mv: MoveCode,
    /// Its share of the opponent's games at the position, and those games.
    pub share: f64,
    /// The opponent's games at the position.
    pub games: u32,
    /// How likely the position is on the lines (the product of the shares before it).
    pub reach: f64,
    /// Win% points the move loses (for the opponent).
    pub win_loss: f64,
    /// The engine's best move for the opponent there (UCI).
    pub best: Option<String>,
}

/// The opponent's moves on `lines` that lose at least an inaccuracy's worth by the engine,
/// each once, the likeliest to happen (reach x share) first.
pub fn aims(lines: &[PrepLine]) -> Vec<Aim> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for line in lines {
        let mut reach = 1.0;
        for (i, step) in line.steps.iter().enumerate() {
            if step.mover == Mover::Them
                && let Some(loss) = step.win_loss
                && Judgement::of(loss).is_some()
                && seen.insert((step.from, step.mv))
            {
                out.push(Aim {
                    path: line.steps[..i].iter().map(|s| s.mv).collect(),
                    mv: step.mv,
                    share: step.share,
                    games: step.games,
                    reach,
                    win_loss: loss,
                    best: step.best.clone(),
                });
            }
            reach *= step.share;
        }
    }
    let likely = |a: &Aim| a.reach * a.share;
    out.sort_by(|a, b| likely(b).total_cmp(&likely(a)).then(a.path.cmp(&b.path)));
    out
}

/// A line where the two trees meet.
#[derive(Clone, Debug, PartialEq)]
pub struct PrepLine {
    /// Its moves from the start position.
    pub steps: Vec<PrepStep>,
    /// How likely it is: the product of the shares.
    pub probability: f64,
    /// Why it stops.
    pub end: LineEnd,
    /// Where ME's most played move does worse than an alternative, on this line.
    pub suggestions: Vec<Suggestion>,
}

/// The lines of `me` against `them` (see the module's documentation), likeliest first.
pub fn prep<S: GraphRead + ?Sized>(
    store: &S,
    me: &str,
    them: &str,
    opts: &PrepOptions,
) -> Result<Vec<PrepLine>> {
    let walk = Walk {
        store,
        me,
        them,
        opts,
        seen: std::cell::RefCell::default(),
    };
    let start = Chess::default();
    let words = |c: Color| mirror_core::codec::color_name(c);
    // Each player's games with their colour (both sides' moves from the start are edges).
    let sides = [
        (me, opts.color, &opts.me_filter),
        (them, !opts.color, &opts.them_filter),
    ];
    for (player, color, filter) in sides {
        let filter = Filter {
            color: Some(color),
            ..filter.clone()
        };
        if store
            .moves(player, PositionKey::from_position(&start), &filter)?
            .is_empty()
        {
            return Err(PrepError::NoGames {
                player: player.to_string(),
                color: words(color),
            });
        }
    }
    let mut lines = walk.lines(start)?;
    // The one to move second never reached a position after any first move of the other
    // (a position reached only a few times is common, and its line says so).
    let ends = |l: &PrepLine| matches!(l.end, LineEnd::TheirTreeEnds | LineEnd::MyTreeEnds);
    if lines.iter().all(|l| l.steps.len() <= 1 && ends(l)) {
        return Err(PrepError::NoCommonPosition {
            me: me.to_string(),
            color: words(opts.color),
            them: them.to_string(),
        });
    }
    // Likeliest first; lines as likely in the order of their moves (most played first).
    lines.sort_by(|a, b| b.probability.total_cmp(&a.probability));
    lines.truncate(opts.limit);
    walk.judge(&mut lines)?;
    walk.suggest(&mut lines)?;
    Ok(lines)
}

/// The stored evaluations of `keys`, by position.
fn evaluations<S: GraphRead + ?Sized>(
    store: &S,
    mut keys: Vec<PositionKey>,
) -> Result<std::collections::HashMap<PositionKey, Evaluation>> {
    keys.sort_unstable_by_key(|k| k.0);
    keys.dedup();
    let mut out = std::collections::HashMap::new();
    for chunk in keys.chunks(1000) {
        for (k, e) in chunk.iter().zip(store.evaluations(chunk)?) {
            if let Some(e) = e {
                out.insert(*k, e);
            }
        }
    }
    Ok(out)
}

/// The win% `mv` (legal at `pos`, from `key`) loses for the side to move, where both
/// positions are evaluated.
fn loss_of(
    evals: &std::collections::HashMap<PositionKey, Evaluation>,
    pos: &Chess,
    key: PositionKey,
    mv: &shakmaty::Move,
) -> Option<f64> {
    let mut after = pos.clone();
    after.play_unchecked(*mv);
    let before = evals.get(&key)?;
    let after = evals.get(&PositionKey::from_position(&after))?;
    Some(move_loss(
        before,
        after,
        pos.turn(),
        &mirror_core::notation::uci(*mv),
    ))
}

/// The mover's moves at a position, most played first, and their games there.
type Moves = (Mover, Vec<(shakmaty::Move, MoveCode, MoveStats, f64)>, u32);

/// ME's move, the opponent's likeliest reply, ME's score (0-1) and games after both.
pub type Reply = (MoveCode, MoveCode, f64, u32);

struct Walk<'a, S: ?Sized> {
    store: &'a S,
    me: &'a str,
    them: &'a str,
    opts: &'a PrepOptions,
    /// Each position's moves once read (lines share their beginnings).
    seen: std::cell::RefCell<std::collections::HashMap<PositionKey, Moves>>,
}

impl<S: GraphRead + ?Sized> Walk<'_, S> {
    /// Who moves in `pos`, their name and their filter.
    fn mover(&self, pos: &Chess) -> (Mover, &str, Filter) {
        if pos.turn() == self.opts.color {
            let filter = Filter {
                color: Some(self.opts.color),
                ..self.opts.me_filter.clone()
            };
            (Mover::Me, self.me, filter)
        } else {
            let filter = Filter {
                color: Some(!self.opts.color),
                ..self.opts.them_filter.clone()
            };
            (Mover::Them, self.them, filter)
        }
    }

    /// Reads the moves at each of `positions` not read yet: one [`GraphRead::moves_many`]
    /// per mover, so that a walk costs a round trip per ply, not one per position.
    fn read<'p>(&self, positions: impl IntoIterator<Item = &'p Chess>) -> Result<()> {
        let mut wanted: [Vec<(PositionKey, &Chess)>; 2] = [Vec::new(), Vec::new()];
        for pos in positions {
            let key = PositionKey::from_position(pos);
            let side = usize::from(self.mover(pos).0 == Mover::Them);
            if !self.seen.borrow().contains_key(&key) && !wanted[side].iter().any(|w| w.0 == key) {
                wanted[side].push((key, pos));
            }
        }
        for group in wanted.iter().filter(|g| !g.is_empty()) {
            let (mover, player, filter) = self.mover(group[0].1);
            let keys: Vec<PositionKey> = group.iter().map(|w| w.0).collect();
            let answers = self.store.moves_many(player, &keys, &filter)?;
            for (&(key, pos), rows) in group.iter().zip(answers) {
                let found = Self::ranked(pos, key, mover, rows)?;
                self.seen.borrow_mut().insert(key, found);
            }
        }
        Ok(())
    }

    /// A position's rows as the walk keeps them: (move, code, stats, share), most played
    /// first, and the mover's games there.
    fn ranked(pos: &Chess, key: PositionKey, mover: Mover, rows: Vec<MoveRow>) -> Result<Moves> {
        let games: u32 = rows.iter().map(|r| r.stats.games()).sum();
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let (mv, _) = r.checked(pos, key).map_err(PrepError::from)?;
            let share = f64::from(r.stats.games()) / f64::from(games.max(1));
            out.push((mv, r.mv, r.stats, share));
        }
        out.sort_by(|a, b| b.2.games().cmp(&a.2.games()).then(a.1.cmp(&b.1)));
        Ok((mover, out, games))
    }

    /// The mover's moves in `pos`, most played first: (move, stats, share), and their games.
    fn moves(&self, pos: &Chess) -> Result<Moves> {
        let key = PositionKey::from_position(pos);
        if let Some(known) = self.seen.borrow().get(&key) {
            return Ok(known.clone());
        }
        self.read([pos])?;
        Ok(self
            .seen
            .borrow()
            .get(&key)
            .expect("read keeps every position it is given")
            .clone())
    }

    /// Every line from `start`, a ply at a time (one read per ply): each ends at the depth,
    /// where a tree ends, or where the opponent's thins out; lines less likely than
    /// `min_probability` are dropped.
    fn lines(&self, start: Chess) -> Result<Vec<PrepLine>> {
        let mut lines = Vec::new();
        let mut frontier: Vec<(Chess, Vec<PrepStep>, f64)> = vec![(start, Vec::new(), 1.0)];
        for ply in 0.. {
            if frontier.is_empty() {
                break;
            }
            if ply < self.opts.depth {
                self.read(frontier.iter().map(|f| &f.0))?;
            }
            let mut next = Vec::new();
            for (pos, steps, probability) in frontier {
                let end = |end| PrepLine {
                    steps: steps.clone(),
                    probability,
                    end,
                    suggestions: Vec::new(),
                };
                if ply >= self.opts.depth {
                    lines.push(end(LineEnd::Depth));
                    continue;
                }
                let (mover, moves, games) = self.moves(&pos)?;
                if moves.is_empty() {
                    lines.push(end(match mover {
                        Mover::Me => LineEnd::MyTreeEnds,
                        Mover::Them => LineEnd::TheirTreeEnds,
                    }));
                    continue;
                }
                if mover == Mover::Them && games < self.opts.thin {
                    lines.push(end(LineEnd::TheirTreeThins { games }));
                    continue;
                }
                let from = PositionKey::from_position(&pos);
                for (mv, code, stats, share) in moves {
                    let p = probability * share;
                    if p < self.opts.min_probability {
                        continue;
                    }
                    let mut after = pos.clone();
                    after.play_unchecked(mv);
                    let mut path = steps.clone();
                    path.push(PrepStep {
                        mover,
                        from,
                        mv: code,
                        stats,
                        share,
                        games,
                        win_loss: None,
                        best: None,
                    });
                    next.push((after, path, p));
                }
            }
            frontier = next;
        }
        Ok(lines)
    }

    /// ME's score (0-1) and games in `pos` (ME to move), over ME's moves there.
    fn my_score(&self, pos: &Chess) -> Result<(f64, u32)> {
        let (_, moves, games) = self.moves(pos)?;
        let mut total = MoveStats::default();
        for (_, _, s, _) in &moves {
            total.merge(s);
        }
        let score =
            (f64::from(total.wins) + 0.5 * f64::from(total.draws)) / f64::from(games.max(1));
        Ok((score, games))
    }

    /// For each of ME's moves at each of `positions` (ME to move) with enough games: the
    /// opponent's likeliest reply and ME's score after both. Two reads in all: the
    /// positions after ME's moves, then those after the replies.
    fn against_replies(&self, positions: &[Chess]) -> Result<Vec<Vec<Reply>>> {
        self.read(positions)?;
        // (which position, ME's move, the position after it)
        let mut after_mine = Vec::new();
        for (i, pos) in positions.iter().enumerate() {
            for (mv, code, stats, _) in self.moves(pos)?.1 {
                if stats.games() >= mirror_core::stats::FEW_GAMES {
                    let mut after = pos.clone();
                    after.play_unchecked(mv);
                    after_mine.push((i, code, after));
                }
            }
        }
        self.read(after_mine.iter().map(|a| &a.2))?;
        let mut after_reply = Vec::new();
        for (i, code, after) in after_mine {
            let (_, replies, _) = self.moves(&after)?;
            if let Some(&(reply, reply_code, _, _)) = replies.first() {
                let mut next = after;
                next.play_unchecked(reply);
                after_reply.push((i, code, reply_code, next));
            }
        }
        self.read(after_reply.iter().map(|a| &a.3))?;
        let mut out = vec![Vec::new(); positions.len()];
        for (i, code, reply_code, next) in after_reply {
            let (score, games) = self.my_score(&next)?;
            if games >= mirror_core::stats::FEW_GAMES {
                out[i].push((code, reply_code, score, games));
            }
        }
        Ok(out)
    }

    /// Each step's win% loss by the engine, where its positions are evaluated.
    fn judge(&self, lines: &mut [PrepLine]) -> Result<()> {
        let mut keys = Vec::new();
        let mut replayed = Vec::new();
        for line in lines.iter() {
            let mut pos = Chess::default();
            let mut moves = Vec::new();
            for step in &line.steps {
                let mv = step.mv.to_move(&pos).map_err(|_| {
                    StoreError::Corrupt(format!("prep: move {} does not replay", step.mv))
                })?;
                keys.push(step.from);
                moves.push((pos.clone(), mv));
                pos.play_unchecked(mv);
                keys.push(PositionKey::from_position(&pos));
            }
            replayed.push(moves);
        }
        let evals = evaluations(self.store, keys)?;
        for (line, moves) in lines.iter_mut().zip(replayed) {
            for (step, (pos, mv)) in line.steps.iter_mut().zip(moves) {
                step.win_loss = loss_of(&evals, &pos, step.from, &mv);
                step.best = evals.get(&step.from).and_then(|e| e.best.clone());
            }
        }
        Ok(())
    }

    /// Each line's suggestions: at each of ME's choices, an alternative that scores better
    /// against the opponent's likeliest reply than ME's most played move, where the engine
    /// or the intervals back it; each suggestion on the likeliest line only.
    fn suggest(&self, lines: &mut [PrepLine]) -> Result<()> {
        // ME's positions on the lines: (line, ply, position).
        let mut mine = Vec::new();
        for (l, line) in lines.iter().enumerate() {
            let mut pos = Chess::default();
            for (ply, step) in line.steps.iter().enumerate() {
                if step.mover == Mover::Me {
                    mine.push((l, ply, pos.clone()));
                }
                let mv = step.mv.to_move(&pos).map_err(|_| {
                    StoreError::Corrupt(format!("prep: move {} does not replay", step.mv))
                })?;
                pos.play_unchecked(mv);
            }
        }
        let positions: Vec<Chess> = mine.iter().map(|m| m.2.clone()).collect();
        let options = self.against_replies(&positions)?;
        // The engine's word on ME's moves there.
        let mut keys = Vec::new();
        for (pos, opts) in positions.iter().zip(&options) {
            keys.push(PositionKey::from_position(pos));
            for (code, ..) in opts {
                if let Ok(m) = code.to_move(pos) {
                    let mut after = pos.clone();
                    after.play_unchecked(m);
                    keys.push(PositionKey::from_position(&after));
                }
            }
        }
        let evals = evaluations(self.store, keys)?;
        let mut given = std::collections::HashSet::new();
        for ((l, ply, pos), options) in mine.into_iter().zip(options) {
            let key = PositionKey::from_position(&pos);
            let loss = |code: MoveCode| {
                code.to_move(&pos)
                    .ok()
                    .and_then(|m| loss_of(&evals, &pos, key, &m))
            };
            let interval = |r: &Reply| ScoreInterval::wilson(r.2, f64::from(r.3));
            // `moves` lists the most played first: the first with enough games is it.
            let Some((first, rest)) = options.split_first() else {
                continue;
            };
            let backed = rest.iter().filter_map(|alt| {
                if alt.2 <= first.2 {
                    return None;
                }
                let engine = loss(first.0).zip(loss(alt.0));
                match engine {
                    Some((played, alternative)) if played - alternative >= 5.0 => Some((
                        alt,
                        Backing::Engine {
                            played,
                            alternative,
                        },
                    )),
                    Some((played, alternative)) if alternative - played >= 5.0 => None,
                    _ => (interval(alt).low > interval(first).high)
                        .then_some((alt, Backing::Interval)),
                }
            });
            if let Some((best, backing)) = backed.max_by(|a, b| a.0.2.total_cmp(&b.0.2))
                && given.insert((key, first.0, best.0))
            {
                lines[l].suggestions.push(Suggestion {
                    ply,
                    played: *first,
                    alternative: *best,
                    backing,
                });
            }
        }
        Ok(())
    }
}
