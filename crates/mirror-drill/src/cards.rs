//! The cards of a player: positions where it is their move and the answer matters, with
//! the moves that count as right, made from the store each time.
//!
//! - **Repertoire**: from the start, the positions the player's opponents bring them to in
//!   at least `min_games` games (with one colour), their main move there right (and any
//!   other they play in at least `share` of those games). The walk follows the player's
//!   right moves and every opponent reply of `min_games` games, so the cards make whole
//!   lines.
//! - **Where they lose**: where `mirror analyse` has evaluated the positions, the player's
//!   moves that the engine says lose win% (the report's "where you lose by the engine"):
//!   there the engine's best move is the right one, whatever the player usually plays.
//! - **Prep** (with an opponent): on the lines where the player's tree meets the opponent's
//!   (`mirror prep`), the player's moves; where prep suggests a better move, that one.
//!
//! A position has one card per colour: an engine finding replaces the repertoire card of
//! its position, and a prep card replaces both.

use std::collections::HashMap;

use mirror_core::{MoveCode, PositionKey, notation};
use mirror_store::{
    Filter, GraphRead,
    prep::{Mover, PrepOptions},
    report::{ReportOptions, positions_along},
};
use serde::Serialize;
use shakmaty::{Chess, Color, Move, Position};

use crate::Result;

/// What the cards are made from.
#[derive(Clone, Debug)]
pub struct CardOptions {
    /// Only the player's games with this colour (both when `None`).
    pub color: Option<Color>,
    /// Which of the player's games count (its colour is set from `color`).
    pub filter: Filter,
    /// A position is a card when the player reached it in at least this many games (and an
    /// opponent reply is followed when played that often).
    pub min_games: u32,
    /// Plies from the start at most.
    pub depth: usize,
    /// A move the player plays in at least this share of a position's games (and in two
    /// games at least) counts as right beside their main move (0-1).
    pub share: f64,
    /// Findings of the engine taken at most per colour (the costliest first).
    pub engine: usize,
    /// Drill the lines against this opponent (a stored player) instead of the repertoire.
    pub opponent: Option<String>,
    /// Cards at most (the walk stops at the ply where it reaches them).
    pub max_cards: usize,
}

impl Default for CardOptions {
    fn default() -> Self {
        CardOptions {
            color: None,
            filter: Filter::default(),
            min_games: 10,
            depth: 20,
            share: 0.25,
            engine: 50,
            opponent: None,
            max_cards: 2_000,
        }
    }
}

/// Why a card exists: data the front ends put in words.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Why {
    /// The player's own move here, in their games.
    #[serde(rename_all = "camelCase")]
    Repertoire {
        /// Games with the main move.
        games: u32,
        /// Games through the position (the player to move).
        of: u32,
        /// The player's score with the main move (0-1).
        score: f64,
    },
    /// The engine says the player's usual move here loses.
    #[serde(rename_all = "camelCase")]
    Loses {
        /// The player's usual move (UCI).
        played: String,
        /// Games with it.
        games: u32,
        /// Win% points it loses against the engine's best move.
        win_loss: f64,
        /// Games where the player played the best move, and their score with it, if ever.
        best_played: Option<(u32, f64)>,
    },
    /// A move on the lines against the named opponent.
    #[serde(rename_all = "camelCase")]
    Prep {
        /// The opponent.
        opponent: String,
        /// How likely the position is against them (the product of the shares before it).
        reach: f64,
        /// The right move is prep's suggestion over the player's usual one (UCI).
        instead_of: Option<String>,
    },
}

/// A card: a position where the player is to move, and the moves that count as right.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Card {
    /// The position.
    #[serde(serialize_with = "key_hex")]
    pub key: PositionKey,
    /// The player's colour (the side to move).
    #[serde(serialize_with = "color_name")]
    pub color: Color,
    /// The position as FEN.
    pub fen: String,
    /// The moves from the start that reach it (UCI; one of the shortest ways).
    pub line: Vec<String>,
    /// The moves that count as right (UCI), the best first.
    pub right: Vec<String>,
    /// Why the card exists.
    pub why: Why,
}

fn key_hex<S: serde::Serializer>(k: &PositionKey, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{:016x}", k.0))
}

fn color_name<S: serde::Serializer>(c: &Color, s: S) -> std::result::Result<S::Ok, S::Error> {
    s.serialize_str(mirror_core::codec::color_name(*c))
}

impl Card {
    /// The position.
    pub fn position(&self) -> Result<Chess> {
        let mut pos = Chess::default();
        for uci in &self.line {
            let m = notation::parse_move(&pos, uci).map_err(|e| {
                crate::DrillError::Answer(format!("the card's line does not replay at {uci}: {e}"))
            })?;
            pos.play_unchecked(m);
        }
        Ok(pos)
    }

    /// Whether `m` counts as right.
    pub fn is_right(&self, m: Move) -> bool {
        let uci = notation::uci(m);
        self.right.contains(&uci)
    }
}

/// A position of the walk and the line that reached it.
struct Node {
    pos: Chess,
    line: Vec<String>,
}

/// The cards of `player` (a stored player's name) with `opts`: per colour, the engine's
/// findings first (the costliest first), then the repertoire in walk order (the most
/// played first at each ply); with an opponent, the prep lines' cards instead.
pub fn cards<S: GraphRead + Sync + ?Sized>(
    store: &S,
    player: &str,
    opts: &CardOptions,
) -> Result<Vec<Card>> {
    let colors: Vec<Color> = match opts.color {
        Some(c) => vec![c],
        None => vec![Color::White, Color::Black],
    };
    let mut out = Vec::new();
    for color in colors {
        let mut cards = match &opts.opponent {
            Some(them) => prep_cards(store, player, them, color, opts)?,
            None => {
                let mut cards = engine_cards(store, player, color, opts)?;
                cards.extend(repertoire_cards(store, player, color, opts)?);
                cards
            }
        };
        // One card per position: the first made wins (engine over repertoire).
        let mut seen = std::collections::HashSet::new();
        cards.retain(|c| seen.insert(c.key));
        cards.truncate(opts.max_cards);
        out.extend(cards);
    }
    Ok(out)
}

/// The repertoire's cards with `color` (see the module's documentation).
fn repertoire_cards<S: GraphRead + ?Sized>(
    store: &S,
    player: &str,
    color: Color,
    opts: &CardOptions,
) -> Result<Vec<Card>> {
    let filter = Filter {
        color: Some(color),
        ..opts.filter.clone()
    };
    let min_games = opts.min_games.max(1);
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut frontier = vec![Node {
        pos: Chess::default(),
        line: Vec::new(),
    }];
    for _ in 0..opts.depth {
        if frontier.is_empty() || out.len() >= opts.max_cards {
            break;
        }
        let keys: Vec<PositionKey> = frontier
            .iter()
            .map(|n| PositionKey::from_position(&n.pos))
            .collect();
        let rows = store.moves_many(player, &keys, &filter)?;
        let mut next = Vec::new();
        for ((node, key), rows) in frontier.into_iter().zip(keys).zip(rows) {
            let total: u32 = rows.iter().map(|r| r.stats.games()).sum();
            if total < min_games || !seen.insert(key) {
                continue;
            }
            let mut moves = Vec::with_capacity(rows.len());
            for row in &rows {
                let (m, interval) = row.checked(&node.pos, key)?;
                moves.push((m, row.stats.games(), interval.score));
            }
            let follow: Vec<Move> = if node.pos.turn() == color {
                // Rows come most played first.
                let Some(&(main, games, score)) = moves.first() else {
                    continue;
                };
                let right: Vec<Move> = std::iter::once(main)
                    .chain(moves.iter().skip(1).filter_map(|&(m, g, _)| {
                        (f64::from(g) >= opts.share * f64::from(total) && g >= 2).then_some(m)
                    }))
                    .collect();
                out.push(Card {
                    key,
                    color,
                    fen: notation::fen(&node.pos),
                    line: node.line.clone(),
                    right: right.iter().map(|&m| notation::uci(m)).collect(),
                    why: Why::Repertoire {
                        games,
                        of: total,
                        score,
                    },
                });
                right
            } else {
                moves
                    .iter()
                    .filter(|&&(_, g, _)| g >= min_games)
                    .map(|&(m, _, _)| m)
                    .collect()
            };
            for m in follow {
                let mut pos = node.pos.clone();
                pos.play_unchecked(m);
                let mut line = node.line.clone();
                line.push(notation::uci(m));
                next.push(Node { pos, line });
            }
        }
        frontier = next;
    }
    Ok(out)
}

/// The positions along `path`, and its moves as UCI; `None` if it does not replay.
fn replay(path: &[MoveCode]) -> Option<(Chess, Vec<String>)> {
    let positions = positions_along(path)?;
    let line = path.iter().map(|c| c.to_string()).collect();
    Some((positions.last()?.clone(), line))
}

/// The engine's findings with `color`: the report's "where you lose by the engine".
fn engine_cards<S: GraphRead + Sync + ?Sized>(
    store: &S,
    player: &str,
    color: Color,
    opts: &CardOptions,
) -> Result<Vec<Card>> {
    if opts.engine == 0 {
        return Ok(Vec::new());
    }
    let report = mirror_store::report::report(
        store,
        player,
        &ReportOptions {
            color: Some(color),
            filter: opts.filter.clone(),
            min_games: opts.min_games.max(1),
            limit: opts.engine,
            ..ReportOptions::default()
        },
    )?;
    let mut out = Vec::new();
    for loss in report.engine {
        let Some(best) = loss.before.best.clone() else {
            continue;
        };
        if loss.place.path.len() >= opts.depth {
            continue;
        }
        let Some((pos, line)) = replay(&loss.place.path) else {
            continue;
        };
        if notation::parse_move(&pos, &best).is_err() {
            continue;
        }
        out.push(Card {
            key: loss.place.pos,
            color,
            fen: notation::fen(&pos),
            line,
            right: vec![best],
            why: Why::Loses {
                played: loss.played.mv.to_string(),
                games: loss.played.stats.games(),
                win_loss: loss.win_loss,
                best_played: loss
                    .best_played
                    .as_ref()
                    .map(|b| (b.stats.games(), b.score.score)),
            },
        });
    }
    Ok(out)
}

/// The cards of the prep lines of `player` with `color` against `them`.
fn prep_cards<S: GraphRead + ?Sized>(
    store: &S,
    player: &str,
    them: &str,
    color: Color,
    opts: &CardOptions,
) -> Result<Vec<Card>> {
    let lines = mirror_store::prep::prep(
        store,
        player,
        them,
        &PrepOptions {
            color,
            me_filter: opts.filter.clone(),
            depth: opts.depth,
            ..PrepOptions::default()
        },
    )?;
    let mut out = Vec::new();
    let mut at: HashMap<PositionKey, usize> = HashMap::new();
    for line in &lines {
        let mut reach = 1.0;
        for (i, step) in line.steps.iter().enumerate() {
            if step.mover == Mover::Me && !at.contains_key(&step.from) {
                let path: Vec<MoveCode> = line.steps[..i].iter().map(|s| s.mv).collect();
                let Some((pos, moves)) = replay(&path) else {
                    break;
                };
                // Prep's suggestion at this ply (each is backed by the engine or by an
                // interval: prep makes no other).
                let better = line.suggestions.iter().find(|s| s.ply == i);
                let usual = step.mv.to_string();
                let (right, instead_of) = match better {
                    Some(s) => (s.alternative.0.to_string(), Some(usual)),
                    None => (usual, None),
                };
                at.insert(step.from, out.len());
                out.push(Card {
                    key: step.from,
                    color,
                    fen: notation::fen(&pos),
                    line: moves,
                    right: vec![right],
                    why: Why::Prep {
                        opponent: them.to_string(),
                        reach,
                        instead_of,
                    },
                });
            }
            reach *= step.share;
        }
    }
    Ok(out)
}
