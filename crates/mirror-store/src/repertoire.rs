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

/// The chapters a repertoire splits into at most (lichess's studies take 64).
pub const MAX_CHAPTERS: usize = 64;

/// One chapter of a repertoire: an opening family (the name before its colon, "Sicilian
/// Defense"), as one PGN game: the line from the start to the first position of the
/// family, then the repertoire's moves below it (a move that opens another chapter ends
/// its line here, with a comment naming that chapter).
#[derive(Clone, Debug, PartialEq)]
pub struct Chapter {
    /// The family's name ("the first moves" for the moves before any named position).
    pub name: String,
    /// The player's games through its first position.
    pub games: u32,
    /// Its moves from the start, as written in its game.
    pub moves: Vec<MoveNode>,
}

/// The family of an opening's name: "Sicilian Defense" of "Sicilian Defense: Closed".
fn family(name: &str) -> &str {
    name.split(':').next().unwrap_or(name).trim()
}

/// Adds the line `chain` to the tree `into`: a move already there takes the line's moves
/// below it.
fn merge(into: &mut Vec<MoveNode>, chain: MoveNode) {
    match into.iter_mut().find(|n| n.san == chain.san) {
        Some(n) => {
            for c in chain.children {
                merge(&mut n.children, c);
            }
        }
        None => into.push(chain),
    }
}

/// A move of the tree: the family of the position it reaches (if named), its parent (its
/// index in the preorder) and its games.
struct Placed {
    family: Option<String>,
    parent: Option<usize>,
    games: u32,
}

impl Repertoire {
    /// The repertoire in chapters, one per opening family (see [`Chapter`]), at most
    /// `max`: when there are more families, the least played join the chapter they branch
    /// from. The first chapter holds the moves before any named opening (if any), the
    /// others follow in the tree's order (the most played first at each branch).
    pub fn chapters(&self, max: usize) -> Vec<Chapter> {
        let openings = mirror_core::openings::Openings::builtin();
        // Every move in preorder, with its family and its parent.
        let mut placed: Vec<Placed> = Vec::new();
        let mut order: Vec<&RepertoireMove> = Vec::new();
        fn walk<'a>(
            moves: &'a [RepertoireMove],
            pos: &Chess,
            parent: Option<usize>,
            openings: &mirror_core::openings::Openings,
            placed: &mut Vec<Placed>,
            order: &mut Vec<&'a RepertoireMove>,
        ) {
            for m in moves {
                let Ok(mv) = notation::parse_move(pos, &m.uci) else {
                    continue;
                };
                let mut after = pos.clone();
                after.play_unchecked(mv);
                let i = placed.len();
                placed.push(Placed {
                    family: openings.at(&after).map(|o| family(&o.name).to_string()),
                    parent,
                    games: m.games,
                });
                order.push(m);
                walk(&m.children, &after, Some(i), openings, placed, order);
            }
        }
        walk(
            &self.moves,
            &Chess::default(),
            None,
            openings,
            &mut placed,
            &mut order,
        );
        // The family each move belongs to (its own, else its parent's), and the moves
        // where a family other than the parent's begins: the candidate chapters.
        let mut belongs: Vec<Option<String>> = Vec::with_capacity(placed.len());
        let mut starts: Vec<usize> = Vec::new();
        for (i, p) in placed.iter().enumerate() {
            let inherited = p.parent.and_then(|q| belongs[q].clone());
            let mine = p.family.clone().or_else(|| inherited.clone());
            if mine.is_some() && mine != inherited {
                starts.push(i);
            }
            belongs.push(mine);
        }
        // The most played families are kept (one chapter goes to the first moves if any
        // move has no family); the others join the chapter above them.
        let families: std::collections::HashSet<&String> =
            starts.iter().filter_map(|&i| belongs[i].as_ref()).collect();
        // A chapter for the first moves: moves of no family, or of a family left out with
        // no kept one above it.
        let first_moves = belongs.iter().any(Option::is_none) || families.len() > max;
        let room = max.saturating_sub(usize::from(first_moves)).max(1);
        let mut weight: Vec<(String, u32, usize)> = Vec::new();
        for &i in &starts {
            let f = belongs[i].clone().unwrap_or_default();
            match weight.iter_mut().find(|(g, _, _)| *g == f) {
                Some(w) => w.1 += placed[i].games,
                None => weight.push((f, placed[i].games, i)),
            }
        }
        weight.sort_by(|a, b| b.1.cmp(&a.1).then(a.2.cmp(&b.2)));
        weight.truncate(room);
        // Kept families in the tree's order.
        weight.sort_by_key(|w| w.2);
        let kept: Vec<String> = weight.into_iter().map(|w| w.0).collect();
        // Each move's chapter: the kept family it starts, else its parent's (None: the
        // first moves).
        let mut chapter_of: Vec<Option<String>> = Vec::with_capacity(placed.len());
        for (i, p) in placed.iter().enumerate() {
            let own = belongs[i]
                .clone()
                .filter(|f| kept.contains(f) && starts.contains(&i));
            let c = own.or_else(|| p.parent.and_then(|q| chapter_of[q].clone()));
            chapter_of.push(c);
        }
        let name_of =
            |c: &Option<String>| c.clone().unwrap_or_else(|| "the first moves".to_string());
        let comment = |m: &RepertoireMove| {
            format!(
                "{} {}, {:.0}%",
                notation::thousands(u64::from(m.games)),
                if m.games == 1 { "game" } else { "games" },
                100.0 * m.score
            )
        };
        let mut kids: Vec<Vec<usize>> = vec![Vec::new(); placed.len()];
        let mut roots = Vec::new();
        for (i, p) in placed.iter().enumerate() {
            match p.parent {
                Some(q) => kids[q].push(i),
                None => roots.push(i),
            }
        }
        let node = |j: usize| MoveNode {
            san: order[j].san.clone(),
            comment: Some(comment(order[j])),
            children: Vec::new(),
        };
        let link = |j: usize| MoveNode {
            san: order[j].san.clone(),
            comment: Some(format!(
                "{}; on in the chapter {}",
                comment(order[j]),
                name_of(&chapter_of[j])
            )),
            children: Vec::new(),
        };
        // The moves of chapter `c` among `children` and below them.
        fn below(
            children: &[usize],
            c: &Option<String>,
            kids: &[Vec<usize>],
            chapter_of: &[Option<String>],
            node: &dyn Fn(usize) -> MoveNode,
            link: &dyn Fn(usize) -> MoveNode,
        ) -> Vec<MoveNode> {
            children
                .iter()
                .map(|&j| {
                    if chapter_of[j] == *c {
                        let mut n = node(j);
                        n.children = below(&kids[j], c, kids, chapter_of, node, link);
                        n
                    } else {
                        link(j)
                    }
                })
                .collect()
        }
        let mut out = Vec::new();
        if chapter_of.iter().any(Option::is_none) {
            out.push(Chapter {
                name: name_of(&None),
                games: roots.iter().map(|&r| placed[r].games).sum(),
                moves: below(&roots, &None, &kids, &chapter_of, &node, &link),
            });
        }
        for family in kept {
            let c = Some(family.clone());
            // Each place the family begins (below another chapter): the line from the
            // start to it, then its moves; the places merged into one tree.
            let mut moves: Vec<MoveNode> = Vec::new();
            let mut games = 0;
            for (i, p) in placed.iter().enumerate() {
                if chapter_of[i] != c || p.parent.is_some_and(|q| chapter_of[q] == c) {
                    continue;
                }
                games += p.games;
                let mut chain = node(i);
                chain.children = below(&kids[i], &c, &kids, &chapter_of, &node, &link);
                let mut up = p.parent;
                while let Some(q) = up {
                    let mut n = node(q);
                    n.children = vec![chain];
                    chain = n;
                    up = placed[q].parent;
                }
                merge(&mut moves, chain);
            }
            out.push(Chapter {
                name: family,
                games,
                moves,
            });
        }
        out
    }

    /// The repertoire in chapters ([`Repertoire::chapters`]) as PGN games, one after the
    /// other, each named by its `Event` tag as lichess's study import names chapters.
    pub fn to_pgn_chapters(&self, max: usize) -> String {
        let chapters = self.chapters(max);
        let n = chapters.len();
        chapters
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let mut tags = self.tags();
                tags[0].1 = format!("{}: {} ({}/{n})", tags[0].1, c.name, k + 1);
                pgn_write::game(&tags, &c.moves, "*")
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The tags of the repertoire's PGN.
    fn tags(&self) -> Vec<(&'static str, String)> {
        let color = match self.color {
            Color::White => "White",
            Color::Black => "Black",
        };
        let (white, black) = match self.color {
            Color::White => (self.player.clone(), "?".to_string()),
            Color::Black => ("?".to_string(), self.player.clone()),
        };
        vec![
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
        ]
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
        let moves: Vec<MoveNode> = self.moves.iter().map(node).collect();
        pgn_write::game(&self.tags(), &moves, "*")
    }
}
