//! Preparing against an opponent: the lines where two players' trees meet. With ME as one
//! colour, from the start position: ME's moves as ME played them (with that colour), the
//! opponent's replies as they played them (with the other colour), each line ranked by how
//! likely it is to happen (the product, along the path, of each player's share of the move
//! they chose). A line ends where either tree ends, where the opponent's tree thins out
//! (fewer than `thin` games: "out of their book"), or at `depth` plies. Every number is the
//! store's `moves` answer for that player at that position (what `explore` shows).

use mirror_core::{MoveCode, MoveStats, PositionKey};
use shakmaty::{Chess, Color, Position};

use crate::{Filter, GraphStore, MoveRow, StoreError};

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
pub fn prep<S: GraphStore + ?Sized>(
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
    walk.suggest(&mut lines)?;
    Ok(lines)
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

impl<S: GraphStore + ?Sized> Walk<'_, S> {
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

    /// Reads the moves at each of `positions` not read yet: one [`GraphStore::moves_many`]
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

    /// Each line's suggestions: at each of ME's choices, an alternative that scores better
    /// against the opponent's likeliest reply than ME's most played move.
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
        for ((l, ply, _), options) in mine.into_iter().zip(options) {
            // `moves` lists the most played first: the first with enough games is it.
            if let Some((first, rest)) = options.split_first()
                && let Some(best) = rest.iter().max_by(|a, b| a.2.total_cmp(&b.2))
                && best.2 > first.2
            {
                lines[l].suggestions.push(Suggestion {
                    ply,
                    played: *first,
                    alternative: *best,
                });
            }
        }
        Ok(())
    }
}
