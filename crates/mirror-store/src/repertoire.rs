//! A player's repertoire with one colour, as the tree of moves the explorer shows: from
//! the start, at every position of the player's games with that colour, the moves played
//! there (theirs and their opponents') in at least `min_games` games, most played first,
//! down to `depth` plies. A position reached by two orders of moves is written under
//! each (a tree, as PGN and lichess's studies hold it). Written as one PGN game with
//! variations: the main line the most played moves, a comment on each move with its
//! games and the player's score.

use mirror_core::{
    PositionKey, notation,
    pgn_write::{self, MoveNode},
};
use shakmaty::{Chess, Color, Position};

use crate::{Filter, GraphRead, Result};

/// What the repertoire holds.
#[derive(Clone, Debug)]
pub struct RepertoireOptions {
    /// The player's colour.
    pub color: Color,
    /// Which of the player's games count (its colour is set from `color`).
    pub filter: Filter,
    /// Moves played in fewer games are left out (at least 1).
    pub min_games: u32,
    /// Plies at most.
    pub depth: usize,
    /// Moves at most in the whole tree: a walk that reaches it stops at the depth where
    /// it did, and says so.
    pub max_moves: usize,
}

impl Default for RepertoireOptions {
    fn default() -> Self {
        RepertoireOptions {
            color: Color::White,
            filter: Filter::default(),
            min_games: 10,
            depth: 16,
            max_moves: 5_000,
        }
    }
}

/// A move of the repertoire and what follows it.
#[derive(Clone, Debug, PartialEq)]
pub struct RepertoireMove {
    /// The move, UCI.
    pub uci: String,
    /// The move, SAN.
    pub san: String,
    /// The player's games with it here.
    pub games: u32,
    /// The player's score in them (0-1).
    pub score: f64,
    /// The moves after it, most played first.
    pub children: Vec<RepertoireMove>,
}

/// The repertoire: the moves from the start position, most played first.
#[derive(Clone, Debug, PartialEq)]
pub struct Repertoire {
    /// The player.
    pub player: String,
    /// Their colour.
    pub color: Color,
    /// The fewest games of a move kept.
    pub min_games: u32,
    /// The first moves.
    pub moves: Vec<RepertoireMove>,
    /// The moves in the tree.
    pub size: usize,
    /// The plies it reaches.
    pub plies: usize,
    /// Whether the walk stopped at `max_moves` before `depth` (the deepest level is
    /// then left out).
    pub cut: bool,
}

/// A position of the walk: its place in the tree (the path of child indices) and board.
struct Frontier {
    path: Vec<usize>,
    pos: Chess,
}

/// The repertoire of `player` (an existing player's name) with `opts`: one read of the
/// store per ply ([`GraphRead::moves_many`]).
pub fn repertoire<S: GraphRead + ?Sized>(
    store: &S,
    player: &str,
    opts: &RepertoireOptions,
) -> Result<Repertoire> {
    let filter = Filter {
        color: Some(opts.color),
        ..opts.filter.clone()
    };
    let mut out = Repertoire {
        player: player.to_string(),
        color: opts.color,
        min_games: opts.min_games,
        moves: Vec::new(),
        size: 0,
        plies: 0,
        cut: false,
    };
    let mut frontier = vec![Frontier {
        path: Vec::new(),
        pos: Chess::default(),
    }];
    for _ in 0..opts.depth {
        if frontier.is_empty() {
            break;
        }
        let keys: Vec<PositionKey> = frontier
            .iter()
            .map(|f| PositionKey::from_position(&f.pos))
            .collect();
        let rows = store.moves_many(player, &keys, &filter)?;
        // The level whole or not at all: a tree cut inside a level would keep some
        // positions' moves and not their siblings'.
        let mut level = Vec::new();
        for ((f, at), rows) in frontier.iter().zip(&keys).zip(rows) {
            let mut kept = Vec::new();
            for row in rows.iter().filter(|r| r.stats.games() >= opts.min_games) {
                let (mv, interval) = row.checked(&f.pos, *at)?;
                kept.push((mv, row.stats.games(), interval.score));
            }
            // Most played first; the same count in the move's order, so that two runs
            // write the same file.
            kept.sort_by(|a, b| {
                b.1.cmp(&a.1)
                    .then_with(|| notation::uci(a.0).cmp(&notation::uci(b.0)))
            });
            level.push(kept);
        }
        let added: usize = level.iter().map(Vec::len).sum();
        if out.size + added > opts.max_moves {
            out.cut = added > 0;
            break;
        }
        out.size += added;
        if added > 0 {
            out.plies += 1;
        }
        let mut next = Vec::new();
        for (f, kept) in frontier.iter().zip(level) {
            let siblings = children_at(&mut out.moves, &f.path);
            for (mv, games, score) in kept {
                let mut pos = f.pos.clone();
                pos.play_unchecked(mv);
                let mut path = f.path.clone();
                path.push(siblings.len());
                siblings.push(RepertoireMove {
                    uci: notation::uci(mv),
                    san: notation::san(&f.pos, mv),
                    games,
                    score,
                    children: Vec::new(),
                });
                next.push(Frontier { path, pos });
            }
        }
        frontier = next;
    }
    Ok(out)
}

/// The children of the move at `path` (the first moves for an empty path).
fn children_at<'a>(
    moves: &'a mut Vec<RepertoireMove>,
    path: &[usize],
) -> &'a mut Vec<RepertoireMove> {
    match path.split_first() {
        None => moves,
        Some((&i, rest)) => children_at(&mut moves[i].children, rest),
    }
}

impl Repertoire {
    /// The repertoire as one PGN game with variations (the tags say whose and how it was
    /// cut; each move's comment its games and the player's score).
    pub fn to_pgn(&self) -> String {
        fn node(m: &RepertoireMove) -> MoveNode {
            MoveNode {
                san: m.san.clone(),
                comment: Some(format!(
                    "{} {}, {:.0}%",
                    notation::thousands(u64::from(m.games)),
                    if m.games == 1 { "game" } else { "games" },
                    100.0 * m.score
                )),
                children: m.children.iter().map(node).collect(),
            }
        }
        let color = match self.color {
            Color::White => "White",
            Color::Black => "Black",
        };
        let (white, black) = match self.color {
            Color::White => (self.player.clone(), "?".to_string()),
            Color::Black => ("?".to_string(), self.player.clone()),
        };
        let moves: Vec<MoveNode> = self.moves.iter().map(node).collect();
        pgn_write::game(
            &[
                ("Event", format!("{}'s repertoire as {color}", self.player)),
                ("Site", "mirror".to_string()),
                ("White", white),
                ("Black", black),
                ("Result", "*".to_string()),
                (
                    "Annotator",
                    format!(
                        "mirror: moves played in at least {} games, {} moves{}",
                        self.min_games,
                        self.size,
                        if self.cut {
                            ", cut at the move limit"
                        } else {
                            ""
                        }
                    ),
                ),
            ],
            &moves,
            "*",
        )
    }
}
