//! The graph of one player's games as the report walks it, in flat arrays: each position
//! a number (its node), its moves a slice of one array, its shortest line from the start
//! a back link. A big player has 1.6 million positions, most reached once; a hash map and
//! a vector per position cost the report most of its time and memory, and these arrays
//! take a few bytes per position. Positions are found by binary search: the positions
//! with moves are numbered in key order, then the others in key order.

use std::collections::VecDeque;

use mirror_core::{MoveCode, PositionKey};
use shakmaty::Color;

/// No position (off every line, or the start's back link).
const NONE: u32 = u32::MAX;

/// The rows of a player's graph, gathered one at a time in key order (a position's rows
/// together, positions in key order, a position's moves in order), so that the graph's
/// arrays are filled as the rows come ([`GraphBuilder::build`]).
pub(crate) struct GraphBuilder {
    /// The positions with moves, in key order.
    nodes: Vec<PositionKey>,
    /// Node `i`'s moves are `moves[first[i]..first[i + 1]]` (the last one open).
    first: Vec<u32>,
    /// Each move, and the position it leads to.
    moves: Vec<MoveCode>,
    children: Vec<PositionKey>,
    /// Games through each position with the player as White and as Black.
    games: Vec<[u32; 2]>,
}

impl GraphBuilder {
    /// A builder for about `rows` rows (the store's count: no vector grows by copying).
    pub(crate) fn with_capacity(rows: usize) -> GraphBuilder {
        GraphBuilder {
            nodes: Vec::with_capacity(rows),
            first: Vec::with_capacity(rows + 1),
            moves: Vec::with_capacity(rows),
            children: Vec::with_capacity(rows),
            games: Vec::with_capacity(rows),
        }
    }

    /// One row, after every row of a position before `pos` in key order: `games` games
    /// where the player had `color` played `mv` at `pos`, leading to `child`.
    pub(crate) fn row(
        &mut self,
        pos: PositionKey,
        mv: MoveCode,
        child: PositionKey,
        color: Color,
        games: u32,
    ) {
        if self.nodes.last() != Some(&pos) {
            self.nodes.push(pos);
            self.first.push(self.moves.len() as u32);
            self.games.push([0; 2]);
        } else if self.moves.last() == Some(&mv) {
            // Another row of the same move (other dimensions).
            if let Some(g) = self.games.last_mut() {
                g[usize::from(color == Color::Black)] += games;
            }
            return;
        }
        self.moves.push(mv);
        self.children.push(child);
        if let Some(g) = self.games.last_mut() {
            g[usize::from(color == Color::Black)] += games;
        }
    }

    /// The graph, walked breadth-first from `start`.
    pub(crate) fn build(self, start: PositionKey) -> Graph {
        let GraphBuilder {
            mut nodes,
            mut first,
            moves,
            children,
            mut games,
        } = self;
        let with_moves = nodes.len();
        first.push(moves.len() as u32);
        // The positions only reached (and the start, if it is one) go after the positions
        // with moves, in key order: each move's child found by walking the children in
        // key order beside the positions with moves.
        let mut reached: Vec<(PositionKey, u32)> = children
            .iter()
            .enumerate()
            .map(|(k, c)| (*c, k as u32))
            .chain([(start, NONE)])
            .collect();
        drop(children);
        reached.sort_unstable();
        let mut to = vec![NONE; moves.len()];
        let mut at = 0;
        let mut previous: Option<(PositionKey, u32)> = None;
        for (c, k) in reached {
            let node = match previous {
                Some((p, node)) if p == c => node,
                _ => {
                    while at < with_moves && nodes[at] < c {
                        at += 1;
                    }
                    let node = if at < with_moves && nodes[at] == c {
                        at as u32
                    } else {
                        nodes.push(c);
                        (nodes.len() - 1) as u32
                    };
                    previous = Some((c, node));
                    node
                }
            };
            if let Some(t) = to.get_mut(k as usize) {
                *t = node;
            }
        }
        let ends = moves.len() as u32;
        first.resize(nodes.len() + 1, ends);
        games.resize(nodes.len(), [0; 2]);
        let mut graph = Graph {
            ply: vec![NONE; nodes.len()],
            back: vec![(NONE, MoveCode(0)); nodes.len()],
            moves: moves.into_iter().zip(to).collect(),
            games,
            with_moves,
            nodes,
            first,
        };
        graph.walk(start);
        graph
    }
}

/// A player's positions, their moves, games and shortest lines from the start.
pub(crate) struct Graph {
    /// The positions with moves in key order, then the positions only reached in key
    /// order: position by node.
    nodes: Vec<PositionKey>,
    /// How many positions have moves.
    with_moves: usize,
    /// Node `i`'s moves are `moves[first[i]..first[i + 1]]`.
    first: Vec<u32>,
    /// (move, the node it leads to), sorted by move (then by the child's key) per node.
    moves: Vec<(MoveCode, u32)>,
    /// Games through each node with the player as White and as Black.
    games: Vec<[u32; 2]>,
    /// Each node's ply on a shortest line from the start ([`NONE`]: off every line).
    ply: Vec<u32>,
    /// The node before each one on its line, and the move from it.
    back: Vec<(u32, MoveCode)>,
}

impl Graph {
    /// The node of position `p`.
    fn index(&self, p: PositionKey) -> Option<u32> {
        let (moved, reached) = self.nodes.split_at(self.with_moves);
        let i = match moved.binary_search(&p) {
            Ok(i) => i,
            Err(_) => self.with_moves + reached.binary_search(&p).ok()?,
        };
        u32::try_from(i).ok()
    }

    /// Breadth-first from `start`: each node's ply and one shortest line, the moves of a
    /// position taken in the order of their codes.
    fn walk(&mut self, start: PositionKey) {
        let Some(s) = self.index(start) else {
            return;
        };
        self.ply[s as usize] = 0;
        let mut queue = VecDeque::from([s]);
        while let Some(i) = queue.pop_front() {
            let ply = self.ply[i as usize] + 1;
            let (from, to) = (self.first[i as usize], self.first[i as usize + 1]);
            for k in from..to {
                let (mv, child) = self.moves[k as usize];
                if self.ply[child as usize] == NONE {
                    self.ply[child as usize] = ply;
                    self.back[child as usize] = (i, mv);
                    queue.push_back(child);
                }
            }
        }
    }

    /// The position `mv` leads to from `p`.
    pub(crate) fn child(&self, p: PositionKey, mv: MoveCode) -> Option<PositionKey> {
        let i = self.index(p)? as usize;
        let next = &self.moves[self.first[i] as usize..self.first[i + 1] as usize];
        let k = next.binary_search_by(|(m, _)| m.cmp(&mv)).ok()?;
        Some(self.nodes[next[k].1 as usize])
    }

    /// The games through `p` with the player's colour `color`.
    pub(crate) fn games(&self, p: PositionKey, color: Color) -> u32 {
        self.index(p).map_or(0, |i| {
            self.games[i as usize][usize::from(color == Color::Black)]
        })
    }

    /// The side to move at `p`, by its ply (none for a position off every line).
    pub(crate) fn to_move(&self, p: PositionKey) -> Option<Color> {
        let ply = *self.ply.get(self.index(p)? as usize)?;
        (ply != NONE).then_some(if ply % 2 == 0 {
            Color::White
        } else {
            Color::Black
        })
    }

    /// The moves of one shortest line from the start to `p` (none off every line).
    pub(crate) fn path(&self, p: PositionKey) -> Vec<MoveCode> {
        let mut out = Vec::new();
        let Some(mut at) = self.index(p) else {
            return out;
        };
        while let Some(&(before, mv)) = self.back.get(at as usize)
            && before != NONE
        {
            out.push(mv);
            at = before;
        }
        out.reverse();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position, uci::UciMove};

    fn key(moves: &[&str]) -> (PositionKey, Vec<MoveCode>, Vec<PositionKey>) {
        let mut pos = Chess::default();
        let mut codes = Vec::new();
        let mut keys = vec![PositionKey::from_position(&pos)];
        for m in moves {
            let mv = m
                .parse::<UciMove>()
                .expect("uci")
                .to_move(&pos)
                .expect("legal");
            codes.push(MoveCode::from_move(&mv).expect("code"));
            pos.play_unchecked(mv);
            keys.push(PositionKey::from_position(&pos));
        }
        (PositionKey::from_position(&pos), codes, keys)
    }

    /// The positions with moves of `lines`, sorted.
    fn moved_keys(lines: &[Vec<&str>]) -> Vec<PositionKey> {
        let mut keys: Vec<PositionKey> = lines
            .iter()
            .flat_map(|l| {
                let (_, _, keys) = key(l);
                keys[..keys.len() - 1].to_vec()
            })
            .collect();
        keys.push(PositionKey(42));
        keys.sort_unstable();
        keys.dedup();
        keys
    }

    #[test]
    fn a_transposition_keeps_its_shortest_line_and_side_to_move() {
        // 1.Nf3 Nf6 2.c4 and 1.c4 Nf6 2.Nf3 meet, and so does a longer line (1.Nf3 Nc6
        // 2.c4 Nb8 3.Ng1 Nf6 4.Nf3); a position reached only from a set-up start is off
        // every line.
        let lines = [
            vec!["g1f3", "g8f6", "c2c4"],
            vec!["c2c4", "g8f6", "g1f3"],
            vec!["g1f3", "b8c6", "c2c4", "c6b8", "f3g1", "g8f6", "g1f3"],
        ];
        // The rows in key order, as a store gives them.
        let mut rows = Vec::new();
        for (n, line) in lines.iter().enumerate() {
            let (_, codes, keys) = key(line);
            let color = if n == 1 { Color::Black } else { Color::White };
            for (i, mv) in codes.iter().enumerate() {
                rows.push((keys[i], *mv, keys[i + 1], color));
            }
        }
        let stray = PositionKey(42);
        rows.push((stray, MoveCode(1), PositionKey(43), Color::White));
        rows.sort_by_key(|r| (r.0, r.1));
        let mut b = GraphBuilder::with_capacity(8);
        for (pos, mv, child, color) in rows {
            b.row(pos, mv, child, color, 1);
        }
        let start = PositionKey::from_position(&Chess::default());
        let g = b.build(start);
        let (end, codes, _) = key(&lines[0]);
        assert_eq!(key(&lines[2]).0, end, "the long line transposes");
        let line = g.path(end);
        assert!(
            line == codes || line == key(&lines[1]).1,
            "one of the two shortest lines: {line:?}"
        );
        assert_eq!(g.to_move(end), Some(Color::Black));
        assert_eq!(g.to_move(start), Some(Color::White));
        assert_eq!(g.path(start), Vec::<MoveCode>::new());
        assert_eq!(g.to_move(stray), None);
        assert_eq!(g.to_move(PositionKey(7)), None, "not in the graph");
        // Games per colour: the start counted once per row of each line.
        assert_eq!(g.games(start, Color::White), 2);
        assert_eq!(g.games(start, Color::Black), 1);
        let (after_nf3, c, _) = key(&["g1f3"]);
        assert_eq!(g.child(start, c[0]), Some(after_nf3));
        assert_eq!(g.child(start, MoveCode(0)), None);
        // Positions with moves are numbered first, in key order.
        let keys = moved_keys(&lines);
        assert_eq!(keys.len(), g.with_moves);
        for (n, k) in keys.iter().enumerate() {
            assert_eq!(g.index(*k).map(|i| i as usize), Some(n));
        }
        assert_eq!(
            g.index(PositionKey(43)).map(|i| i as usize >= g.with_moves),
            Some(true)
        );
    }
}
