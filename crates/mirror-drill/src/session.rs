//! A drill session without input or output: the front ends (the terminal, the server) ask
//! [`Session::ask`], check an answer with [`Session::answer`] (its record is stored at
//! once: a session cut short loses nothing answered) and play the other side with
//! [`Session::reply`], drawn by how often the player's opponents (or the named opponent)
//! played each move there; when the reply leads to another card of the session, that card
//! is asked next, so that a session walks whole lines.

use std::{collections::VecDeque, time::Duration};

use mirror_core::{PositionKey, notation};
use mirror_store::{DrillRecord, Drills, Filter, GraphRead};
use rand::{SeedableRng, distr::Distribution, rngs::StdRng};
use serde::Serialize;
use shakmaty::{Chess, Color, Move, Position};

use crate::{Card, Deck, DrillError, Grade, Grading, Result, Scheduler};

/// How a session runs.
#[derive(Clone, Debug)]
pub struct SessionOptions {
    /// New cards at most (besides the due ones).
    pub new: usize,
    /// The desired retention FSRS schedules for (0-1).
    pub retention: f32,
    /// How answers are graded.
    pub grading: Grading,
    /// Which of the player's games the opponent's replies are drawn from (its colour is
    /// each card's).
    pub filter: Filter,
    /// Replies drawn from this opponent's own games instead of the player's opponents'.
    pub opponent: Option<String>,
    /// The seed of the replies' draw.
    pub seed: u64,
}

impl Default for SessionOptions {
    fn default() -> Self {
        SessionOptions {
            new: 10,
            retention: crate::DEFAULT_RETENTION,
            grading: Grading::default(),
            filter: Filter::default(),
            opponent: None,
            seed: 0,
        }
    }
}

/// A question: the card to answer.
#[derive(Clone, Debug, PartialEq)]
pub struct Ask {
    /// The card's entry in the deck.
    pub entry: usize,
    /// The card.
    pub card: Card,
    /// It was never answered.
    pub new: bool,
}

/// A move and how the player's games went with it at a card's position.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MoveResult {
    /// The move (UCI).
    pub uci: String,
    /// The move (SAN).
    pub san: String,
    /// The player's games with it there.
    pub games: u32,
    /// Their score in them (0-1), when there are any.
    pub score: Option<f64>,
}

/// An answer checked.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    /// Whether the move counts as right.
    pub right: bool,
    /// The grade given.
    pub grade: Grade,
    /// The move answered, and how the player's games went with it there (`None`: no move,
    /// the player gave up).
    pub answered: Option<MoveResult>,
    /// The right moves, and how the player's games went with each.
    pub right_moves: Vec<MoveResult>,
    /// Days until the card comes back.
    pub days: u32,
    /// When it comes back (seconds since the Unix epoch).
    pub due: i64,
}

/// The other side's reply after a card, and what comes of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Reply {
    /// The card's right move, played (UCI).
    pub played: String,
    /// The reply drawn (UCI).
    pub reply: String,
    /// The reply (SAN).
    pub san: String,
    /// Games with the reply there, of the games at the position.
    pub games: (u32, u32),
    /// The card asked next in a session, on the same line (its entry in the deck), if any.
    #[serde(skip)]
    pub next: Option<usize>,
}

/// What a session did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Answers given.
    pub answers: usize,
    /// Right ones.
    pub right: usize,
    /// Wrong ones.
    pub wrong: usize,
    /// Cards answered (each once, however many times).
    pub cards: usize,
}

/// Checks `m`, an answer to `card` (`None`: the player gives up) that took `took`, at
/// `now`, against the card's record (`record`: as stored, or a fresh one), and stores the
/// record with the answer; returns it and the verdict (how the player's games with
/// `filter` went with each move). What a session does for each answer, and what a server
/// does for one.
#[allow(clippy::too_many_arguments)]
pub fn answer_card<S: GraphRead + Drills + ?Sized>(
    store: &S,
    player: &str,
    card: &Card,
    record: &DrillRecord,
    m: Option<Move>,
    took: Duration,
    now: i64,
    (scheduler, grading, filter): (&Scheduler, &Grading, &Filter),
) -> Result<(DrillRecord, Verdict)> {
    let pos = card.position()?;
    if let Some(m) = m
        && !pos.is_legal(m)
    {
        return Err(DrillError::Answer(format!(
            "{} is not legal in the card's position",
            notation::uci(m)
        )));
    }
    let right = m.is_some_and(|m| card.is_right(m));
    let grade = grading.grade(right, took);
    let millis = u32::try_from(took.as_millis()).unwrap_or(u32::MAX);
    let (record, days) = scheduler.review(record, grade, now, millis)?;
    store.put_drill_records(player, std::slice::from_ref(&record))?;
    let results = move_results(store, player, card, &pos, filter)?;
    let of = |uci: &str| {
        results
            .iter()
            .find(|r| r.uci == uci)
            .cloned()
            .unwrap_or_else(|| MoveResult {
                uci: uci.to_string(),
                san: notation::parse_move(&pos, uci)
                    .map(|m| notation::san(&pos, m))
                    .unwrap_or_else(|_| uci.to_string()),
                games: 0,
                score: None,
            })
    };
    let verdict = Verdict {
        right,
        grade,
        answered: m.map(|m| of(&notation::uci(m))),
        right_moves: card.right.iter().map(|u| of(u)).collect(),
        days,
        due: record.due,
    };
    Ok((record, verdict))
}

/// The player's moves at the card's position `pos`, and how their games with `filter`
/// went with each.
fn move_results<S: GraphRead + ?Sized>(
    store: &S,
    player: &str,
    card: &Card,
    pos: &Chess,
    filter: &Filter,
) -> Result<Vec<MoveResult>> {
    let filter = Filter {
        color: Some(card.color),
        ..filter.clone()
    };
    let rows = store.moves(player, card.key, &filter)?;
    let mut out = Vec::with_capacity(rows.len());
    for row in &rows {
        let (m, interval) = row.checked(pos, card.key)?;
        out.push(MoveResult {
            uci: notation::uci(m),
            san: notation::san(pos, m),
            games: row.stats.games(),
            score: Some(interval.score),
        });
    }
    Ok(out)
}

/// After `card`: its first right move played, the other side's reply drawn with `rng` by
/// how often it was played there (in `player`'s games with `filter` and the card's colour,
/// or in `opponent`'s own games); `None` where nobody replied. Returns the reply (its
/// `next` unset) and the position after it.
pub fn draw_reply<S: GraphRead + ?Sized, R: rand::Rng + ?Sized>(
    store: &S,
    player: &str,
    card: &Card,
    (opponent, filter): (Option<&str>, &Filter),
    rng: &mut R,
) -> Result<Option<(Reply, Chess)>> {
    let mut pos = card.position()?;
    let Some(first) = card.right.first() else {
        return Ok(None);
    };
    let m = notation::parse_move(&pos, first)
        .map_err(|e| DrillError::Answer(format!("the card's right move {first}: {e}")))?;
    pos.play_unchecked(m);
    let key = PositionKey::from_position(&pos);
    let rows = match opponent {
        Some(them) => store.moves(
            them,
            key,
            &Filter {
                color: Some(!card.color),
                ..Filter::default()
            },
        )?,
        None => store.moves(
            player,
            key,
            &Filter {
                color: Some(card.color),
                ..filter.clone()
            },
        )?,
    };
    let games: Vec<u32> = rows.iter().map(|r| r.stats.games()).collect();
    let total: u32 = games.iter().sum();
    if total == 0 {
        return Ok(None);
    }
    let weights = rand::distr::weighted::WeightedIndex::new(&games)
        .map_err(|e| DrillError::Answer(format!("the replies' weights: {e}")))?;
    let i = weights.sample(rng);
    let (reply, _) = rows[i].checked(&pos, key)?;
    let san = notation::san(&pos, reply);
    pos.play_unchecked(reply);
    Ok(Some((
        Reply {
            played: first.clone(),
            reply: notation::uci(reply),
            san,
            games: (games[i], total),
            next: None,
        },
        pos,
    )))
}

/// A drill session over a deck.
pub struct Session<'s, S: ?Sized> {
    store: &'s S,
    deck: Deck,
    opts: SessionOptions,
    scheduler: Scheduler,
    queue: VecDeque<usize>,
    asking: Option<usize>,
    answered: std::collections::HashSet<usize>,
    rng: StdRng,
    summary: Summary,
}

/// A wrong card comes back after this many other questions.
const AGAIN_AFTER: usize = 3;

impl<'s, S: GraphRead + Drills + ?Sized> Session<'s, S> {
    /// A session over `deck` at `now`: the due cards (the longest overdue first), then up to
    /// `opts.new` new cards in the deck's order.
    pub fn new(store: &'s S, deck: Deck, opts: SessionOptions, now: i64) -> Result<Self> {
        let scheduler = Scheduler::new(opts.retention)?;
        let queue = deck.queue(now, opts.new).into();
        let rng = StdRng::seed_from_u64(opts.seed);
        Ok(Session {
            store,
            deck,
            opts,
            scheduler,
            queue,
            asking: None,
            answered: std::collections::HashSet::new(),
            rng,
            summary: Summary::default(),
        })
    }

    /// The deck (with the records as answered so far).
    pub fn deck(&self) -> &Deck {
        &self.deck
    }

    /// Questions left in the session.
    pub fn left(&self) -> usize {
        self.queue.len()
    }

    /// What the session did so far.
    pub fn summary(&self) -> Summary {
        self.summary
    }

    /// The next question, if any is left.
    pub fn ask(&mut self) -> Option<Ask> {
        let entry = self.queue.pop_front()?;
        self.asking = Some(entry);
        let e = &self.deck.entries[entry];
        Some(Ask {
            entry,
            card: e.card.clone(),
            new: e.is_new(),
        })
    }

    /// Checks `m`, the answer to the question asked (`None`: the player gives up, a wrong
    /// answer), that took `took`, at `now`; stores the card's record with the answer. A
    /// wrong card is asked again later in the session.
    pub fn answer(&mut self, m: Option<Move>, took: Duration, now: i64) -> Result<Verdict> {
        let entry = self
            .asking
            .take()
            .ok_or_else(|| DrillError::Answer("no card is being asked".into()))?;
        let card = self.deck.entries[entry].card.clone();
        let answered = answer_card(
            self.store,
            &self.deck.player,
            &card,
            &self.deck.entries[entry].record,
            m,
            took,
            now,
            (&self.scheduler, &self.opts.grading, &self.opts.filter),
        );
        let (record, verdict) = match answered {
            Ok(done) => done,
            Err(e) => {
                // Not answered: the card is still the one asked.
                self.asking = Some(entry);
                return Err(e);
            }
        };
        self.deck.entries[entry].record = record;
        self.summary.answers += 1;
        if self.answered.insert(entry) {
            self.summary.cards += 1;
        }
        if verdict.right {
            self.summary.right += 1;
        } else {
            self.summary.wrong += 1;
            let at = AGAIN_AFTER.min(self.queue.len());
            self.queue.insert(at, entry);
        }
        Ok(verdict)
    }

    /// After the card at `entry`: its first right move played, the other side's reply
    /// drawn by how often it was played there (in the player's games with the card's
    /// colour, or in the named opponent's own games); `None` where nobody replied. When the
    /// reply reaches another card of the session not yet answered, it is asked next.
    pub fn reply(&mut self, entry: usize) -> Result<Option<Reply>> {
        let card = self.deck.entries[entry].card.clone();
        let drawn = draw_reply(
            self.store,
            &self.deck.player,
            &card,
            (self.opts.opponent.as_deref(), &self.opts.filter),
            &mut self.rng,
        )?;
        let Some((mut reply, pos)) = drawn else {
            return Ok(None);
        };
        let next = self
            .deck
            .find(PositionKey::from_position(&pos), card.color)
            .filter(|n| !self.answered.contains(n) && self.queue.contains(n));
        if let Some(n) = next {
            self.queue.retain(|&q| q != n);
            self.queue.push_front(n);
        }
        reply.next = next;
        Ok(Some(reply))
    }

    /// The counts of `color` at `now`.
    pub fn counts(&self, color: Color, now: i64) -> crate::DueCounts {
        self.deck.counts(color, now)
    }
}
