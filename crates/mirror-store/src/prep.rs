//! Preparing against an opponent: the lines where two players' trees meet. With ME as one
//! colour, from the start position: ME's moves as ME played them (with that colour), the
//! opponent's replies as they played them (with the other colour), each line ranked by how
//! likely it is to happen (the product, along the path, of each player's share of the move
//! they chose). A line ends where either tree ends, where the opponent's tree thins out
//! (fewer than `thin` games: "out of their book"), or at `depth` plies. Every number is the
//! store's `moves` answer for that player at that position (what `explore` shows).

use mirror_core::{MoveCode, MoveStats, PositionKey};
use shakmaty::{Chess, Color, Position};

use crate::{Filter, GraphStore, StoreError};

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
    pub played: (MoveCode, MoveCode, f64, u32),
    /// The alternative ME has played, the reply, ME's score and games after both.
    pub alternative: (MoveCode, MoveCode, f64, u32),
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
    let mut lines = Vec::new();
    walk.extend(&start, Vec::new(), 1.0, &mut lines)?;
    if lines.iter().all(|l| l.steps.len() <= 1) {
        return Err(PrepError::NoCommonPosition {
            me: me.to_string(),
            color: words(opts.color),
            them: them.to_string(),
        });
    }
    lines.sort_by(|a, b| b.probability.total_cmp(&a.probability));
    lines.truncate(opts.limit);
    for line in &mut lines {
        line.suggestions = walk.suggestions(&line.steps)?;
    }
    Ok(lines)
}

/// The mover's moves at a position, most played first, and their games there.
type Moves = (Mover, Vec<(shakmaty::Move, MoveCode, MoveStats, f64)>, u32);

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

    /// The mover's moves in `pos`, most played first: (move, stats, share), and their games.
    fn moves(&self, pos: &Chess) -> Result<Moves> {
        let key = PositionKey::from_position(pos);
        if let Some(known) = self.seen.borrow().get(&key) {
            return Ok(known.clone());
        }
        let (mover, player, filter) = self.mover(pos);
        let rows = self.store.moves(player, key, &filter)?;
        let games: u32 = rows.iter().map(|r| r.stats.games()).sum();
        let mut out = Vec::with_capacity(rows.len());
        for r in rows {
            let (mv, _) = r.checked(pos, key).map_err(PrepError::from)?;
            let share = f64::from(r.stats.games()) / f64::from(games.max(1));
            out.push((mv, r.mv, r.stats, share));
        }
        out.sort_by(|a, b| b.2.games().cmp(&a.2.games()).then(a.1.cmp(&b.1)));
        let found = (mover, out, games);
        self.seen.borrow_mut().insert(key, found.clone());
        Ok(found)
    }

    /// Every line through `pos` (reached by `steps` with `probability`) into `lines`.
    fn extend(
        &self,
        pos: &Chess,
        steps: Vec<PrepStep>,
        probability: f64,
        lines: &mut Vec<PrepLine>,
    ) -> Result<()> {
        let end = |end| PrepLine {
            steps: steps.clone(),
            probability,
            end,
            suggestions: Vec::new(),
        };
        if steps.len() >= self.opts.depth {
            lines.push(end(LineEnd::Depth));
            return Ok(());
        }
        let (mover, moves, games) = self.moves(pos)?;
        if moves.is_empty() {
            lines.push(end(match mover {
                Mover::Me => LineEnd::MyTreeEnds,
                Mover::Them => LineEnd::TheirTreeEnds,
            }));
            return Ok(());
        }
        if mover == Mover::Them && games < self.opts.thin {
            lines.push(end(LineEnd::TheirTreeThins { games }));
            return Ok(());
        }
        let from = PositionKey::from_position(pos);
        for (mv, code, stats, share) in moves {
            let p = probability * share;
            if p < self.opts.min_probability {
                continue;
            }
            let mut next = pos.clone();
            next.play_unchecked(mv);
            let mut path = steps.clone();
            path.push(PrepStep {
                mover,
                from,
                mv: code,
                stats,
                share,
                games,
            });
            self.extend(&next, path, p, lines)?;
        }
        Ok(())
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

    /// For each of ME's moves at `pos` with enough games: the opponent's likeliest reply
    /// and ME's score after both.
    fn against_replies(&self, pos: &Chess) -> Result<Vec<(MoveCode, MoveCode, f64, u32)>> {
        let (_, moves, _) = self.moves(pos)?;
        let mut out = Vec::new();
        for (mv, code, stats, _) in moves {
            if stats.games() < mirror_core::stats::FEW_GAMES {
                continue;
            }
            let mut after = pos.clone();
            after.play_unchecked(mv);
            let (_, replies, _) = self.moves(&after)?;
            let Some((reply, reply_code, _, _)) = replies.first() else {
                continue;
            };
            after.play_unchecked(*reply);
            let (score, games) = self.my_score(&after)?;
            if games >= mirror_core::stats::FEW_GAMES {
                out.push((code, *reply_code, score, games));
            }
        }
        Ok(out)
    }

    /// The line's suggestions: at each of ME's choices where ME played their most played
    /// move, an alternative that scores better against the opponent's likeliest reply.
    fn suggestions(&self, steps: &[PrepStep]) -> Result<Vec<Suggestion>> {
        let mut pos = Chess::default();
        let mut out = Vec::new();
        for (ply, step) in steps.iter().enumerate() {
            if step.mover == Mover::Me {
                let options = self.against_replies(&pos)?;
                // `moves` lists the most played first: the first with enough games is it.
                if let Some((first, rest)) = options.split_first()
                    && let Some(best) = rest.iter().max_by(|a, b| a.2.total_cmp(&b.2))
                    && best.2 > first.2
                {
                    out.push(Suggestion {
                        ply,
                        played: *first,
                        alternative: *best,
                    });
                }
            }
            let mv = step.mv.to_move(&pos).map_err(|_| {
                StoreError::Corrupt(format!("prep: move {} does not replay", step.mv))
            })?;
            pos.play_unchecked(mv);
        }
        Ok(out)
    }
}
