//! Aggregation of games into edge rows before they are written: one row per edge key per
//! batch, so every backend writes each edge once per batch.

use rustc_hash::{FxHashMap, FxHashSet};
use shakmaty::{Chess, Color, EnPassantMode, Position, packed::PackedSetup};

use crate::{
    GameId, GameRecord, MoveCode, MoveStats, PositionKey, moves::IllegalMoveCode, stats::EdgeDims,
};

/// The key of one edge row: player's position, move, and the split dimensions.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct EdgeKey {
    /// Position the move was played from.
    pub pos: PositionKey,
    /// The move.
    pub mv: MoveCode,
    /// Colour of the player, time class, rated, month.
    pub dims: EdgeDims,
}

/// What a batch adds to one edge.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct EdgeDelta {
    /// Statistics of the batch's games through this edge.
    pub stats: MoveStats,
    /// The position the move leads to.
    pub child: PositionKey,
    /// Pieces on the board of the position the move was played from (2-32).
    pub pieces: u8,
}

/// A position a game went through, the move first played there and the pieces on the
/// board.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct FirstMove {
    /// The position a move was played from.
    pub pos: PositionKey,
    /// The first move the game played from it.
    pub mv: MoveCode,
    /// Pieces on the board (2-32).
    pub pieces: u8,
}

/// Games of one player, aggregated into edge rows, ready for one write transaction.
#[derive(Debug)]
pub struct Batch {
    games: Vec<(GameRecord, Color)>,
    /// Per game (parallel to `games`): the positions a move was played from, sorted, once.
    move_positions: Vec<Vec<FirstMove>>,
    ids: FxHashSet<GameId>,
    edges: FxHashMap<EdgeKey, EdgeDelta>,
    /// Position key -> (offset, length) of its packed form in `packed`.
    positions: FxHashMap<PositionKey, (u32, u8)>,
    packed: Vec<u8>,
    /// The evaluations the games' comments gave of the positions after their moves
    /// (`[%eval]`), the first of each depth kept (a deeper one replaces it).
    evals: FxHashMap<PositionKey, crate::evaluation::Evaluation>,
}

impl Default for Batch {
    fn default() -> Self {
        Batch::new()
    }
}

impl Batch {
    /// An empty batch.
    pub fn new() -> Batch {
        Batch {
            games: Vec::new(),
            move_positions: Vec::new(),
            ids: FxHashSet::default(),
            edges: FxHashMap::default(),
            positions: FxHashMap::default(),
            packed: Vec::new(),
            evals: FxHashMap::default(),
        }
    }

    /// A batch of `games`, each with the player's colour (see [`Batch::add_game`]).
    pub fn from_games<'a>(
        games: impl IntoIterator<Item = &'a (GameRecord, Color)>,
    ) -> Result<Batch, IllegalMoveCode> {
        let mut b = Batch::new();
        for (g, c) in games {
            b.add_game(g.clone(), *c)?;
        }
        Ok(b)
    }

    /// Adds a game the player played with `color`. A game whose id is already in the
    /// batch is ignored (returns `Ok(false)`). Both sides' moves become edges; a game that
    /// plays the same move from the same position twice counts once for that edge, with
    /// the time of its first (see [`crate::clock`]).
    pub fn add_game(&mut self, game: GameRecord, color: Color) -> Result<bool, IllegalMoveCode> {
        if self.ids.contains(&game.id) {
            return Ok(false);
        }
        let dims = EdgeDims::of_game(&game, color);
        let stats = MoveStats::from_game(
            game.result.outcome_for(color),
            game.side(!color).rating,
            game.date,
        );
        // Replay first so that an illegal record leaves the batch untouched; pack only
        // positions the batch has not seen.
        let mut pos = Chess::default();
        let mut key = PositionKey::from_position(&pos);
        let mut plies: Vec<(PositionKey, MoveCode, PositionKey, u8, usize)> =
            Vec::with_capacity(game.moves.len());
        let mut fresh: Vec<(PositionKey, PackedSetup)> = Vec::new();
        if !self.positions.contains_key(&key) {
            fresh.push((key, pack(&pos)));
        }
        for (ply, &code) in game.moves.iter().enumerate() {
            let m = code.to_move(&pos)?;
            let pieces = u8::try_from(pos.board().occupied().count())
                .expect("a board has at most 64 pieces");
            pos.play_unchecked(m);
            let child = PositionKey::from_position(&pos);
            plies.push((key, code, child, pieces, ply));
            if !self.positions.contains_key(&child) {
                fresh.push((child, pack(&pos)));
            }
            key = child;
        }
        // What the game's comments said of the positions after its moves.
        for (&(_, _, child, _, _), eval) in plies.iter().zip(&game.evals) {
            if let Some((score, depth)) = *eval {
                let e = crate::evaluation::Evaluation {
                    score,
                    best: None,
                    depth,
                    engine: "comment".into(),
                    source: crate::evaluation::EvalSource::Comment,
                };
                match self.evals.entry(child) {
                    std::collections::hash_map::Entry::Vacant(v) => {
                        v.insert(e);
                    }
                    std::collections::hash_map::Entry::Occupied(mut o) => {
                        if o.get().yields_to(&e) {
                            o.insert(e);
                        }
                    }
                }
            }
        }
        // The first move from each position (a stable sort keeps the game's order).
        let mut from: Vec<FirstMove> = plies
            .iter()
            .map(|&(pos, mv, _, pieces, _)| FirstMove { pos, mv, pieces })
            .collect();
        from.sort_by_key(|f| f.pos);
        from.dedup_by_key(|f| f.pos);
        // Each (position, move) once, at its first ply: that move's time is the edge's.
        plies.sort_unstable_by_key(|&(k, m, _, _, ply)| (k, m, ply));
        plies.dedup_by_key(|&mut (k, m, _, _, _)| (k, m));
        for (pos, mv, child, pieces, ply) in plies {
            let stats = stats.with_time(game.time_of(ply));
            self.edges
                .entry(EdgeKey { pos, mv, dims })
                .and_modify(|d| d.stats.merge(&stats))
                .or_insert(EdgeDelta {
                    stats,
                    child,
                    pieces,
                });
        }
        for (k, p) in fresh {
            if let std::collections::hash_map::Entry::Vacant(e) = self.positions.entry(k) {
                let bytes = p.as_bytes();
                let offset = u32::try_from(self.packed.len()).unwrap_or(u32::MAX);
                e.insert((offset, u8::try_from(bytes.len()).unwrap_or(u8::MAX)));
                self.packed.extend_from_slice(bytes);
            }
        }
        self.ids.insert(game.id.clone());
        self.games.push((game, color));
        self.move_positions.push(from);
        Ok(true)
    }

    /// Number of games.
    pub fn len(&self) -> usize {
        self.games.len()
    }

    /// No games.
    pub fn is_empty(&self) -> bool {
        self.games.is_empty()
    }

    /// Whether a game with this id is in the batch.
    pub fn contains(&self, id: &GameId) -> bool {
        self.ids.contains(id)
    }

    /// The evaluations the games' comments gave (`[%eval]`), by position, in key order.
    pub fn evaluations(&self) -> Vec<(PositionKey, crate::evaluation::Evaluation)> {
        let mut out: Vec<_> = self.evals.iter().map(|(k, e)| (*k, e.clone())).collect();
        out.sort_unstable_by_key(|(k, _)| k.0);
        out
    }

    /// The games with the player's colour.
    pub fn games(&self) -> &[(GameRecord, Color)] {
        &self.games
    }

    /// Per game, in the order of [`Batch::games`]: the positions a move was played from,
    /// sorted and each once, with the first move played there (stores keep them to find a
    /// position's games quickly).
    pub fn move_positions(&self) -> &[Vec<FirstMove>] {
        &self.move_positions
    }

    /// The aggregated edge rows.
    pub fn edges(&self) -> &FxHashMap<EdgeKey, EdgeDelta> {
        &self.edges
    }

    /// Every position the batch's games reached with its packed form (shakmaty's
    /// `PackedSetup` bytes, without move counters), which stores keep so that a key can be
    /// shown as EPD ([`unpack_epd`]).
    pub fn positions(&self) -> impl ExactSizeIterator<Item = (PositionKey, &[u8])> + '_ {
        self.positions.iter().map(|(k, &(off, len))| {
            let start = off as usize;
            (*k, &self.packed[start..start + usize::from(len)])
        })
    }

    /// Number of distinct positions.
    pub fn position_count(&self) -> usize {
        self.positions.len()
    }

    /// A batch of the same games without those in `drop` (re-aggregated).
    pub fn without(self, drop: &[GameId]) -> Batch {
        let mut out = Batch::new();
        for (g, c) in self.games {
            if !drop.contains(&g.id) {
                // Already replayed once, so it is legal.
                let _ = out.add_game(g, c);
            }
        }
        out
    }
}

/// A position packed without move counters, en passant only when legal.
pub fn pack(pos: &Chess) -> PackedSetup {
    // A legal standard position always packs: its en-passant square has a pawn and its
    // castling rights have unmoved rooks.
    PackedSetup::pack_standard_normalized(&pos.to_setup(EnPassantMode::Legal))
        .unwrap_or_else(|_| PackedSetup::empty())
}

/// EPD text of a packed position; `None` when the bytes are not a packed position.
pub fn unpack_epd(bytes: &[u8]) -> Option<String> {
    let setup = PackedSetup::try_from_bytes(bytes)
        .ok()?
        .unpack_standard()
        .ok()?;
    Some(shakmaty::fen::Epd::try_from(setup).ok()?.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::{Decoded, read_games};

    fn games(pgn: &[u8]) -> Vec<GameRecord> {
        read_games(pgn)
            .filter_map(|r| match r.expect("io").1 {
                Decoded::Game(g) => Some(g),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn repeated_position_and_move_counts_once_per_game() {
        // Knights out and back twice: (start, Nf3) is played twice in one game.
        let pgn = b"[White \"me\"]\n[Black \"you\"]\n[Result \"1/2-1/2\"]\n\n\
            1. Nf3 Nf6 2. Ng1 Ng8 3. Nf3 Nf6 4. Ng1 Ng8 1/2-1/2\n";
        let g = games(pgn).remove(0);
        let mut b = Batch::new();
        assert!(b.add_game(g.clone(), Color::White).expect("legal"));
        assert!(
            !b.add_game(g, Color::White).expect("legal"),
            "same id ignored"
        );
        assert_eq!(b.len(), 1);
        // 4 distinct (position, move) pairs, each counted once.
        assert_eq!(b.edges().len(), 4);
        assert!(
            b.edges()
                .values()
                .all(|d| d.stats.draws == 1 && d.stats.games() == 1)
        );
        assert_eq!(b.position_count(), 4);
        assert_eq!(
            b.move_positions()[0].len(),
            4,
            "four positions a move was played from"
        );
        assert!(
            b.move_positions()[0]
                .windows(2)
                .all(|w| w[0].pos < w[1].pos)
        );
        let first = b.move_positions()[0]
            .iter()
            .find(|f| f.pos == PositionKey::from_position(&Chess::default()))
            .expect("the start");
        assert_eq!((first.mv.to_string(), first.pieces), ("g1f3".into(), 32));
        let start = PositionKey::from_position(&Chess::default());
        let packed = b.positions().find(|(k, _)| *k == start).expect("start").1;
        assert_eq!(
            unpack_epd(packed).as_deref(),
            Some("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -")
        );
    }

    #[test]
    fn both_sides_are_edges_with_players_outcome() {
        let pgn = b"[White \"me\"]\n[Black \"you\"]\n[BlackElo \"1500\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n\
            [White \"them\"]\n[Black \"me\"]\n[WhiteElo \"1700\"]\n[Result \"1-0\"]\n\n1. e4 c5 1-0\n";
        let gs = games(pgn);
        let mut b = Batch::new();
        b.add_game(gs[0].clone(), Color::White).expect("legal");
        b.add_game(gs[1].clone(), Color::Black).expect("legal");
        let start = PositionKey::from_position(&Chess::default());
        let e4: Vec<&EdgeDelta> = b
            .edges()
            .iter()
            .filter(|(k, _)| k.pos == start && k.mv.to_string() == "e2e4")
            .map(|(_, d)| d)
            .collect();
        // Same position and move, different player colour: two rows.
        assert_eq!(e4.len(), 2);
        let total = e4.iter().fold(MoveStats::default(), |mut acc, d| {
            acc.merge(&d.stats);
            acc
        });
        assert_eq!((total.wins, total.losses, total.rating_sum), (1, 1, 3200));
        let dropped = b.without(&[gs[0].id.clone()]);
        assert_eq!(dropped.len(), 1);
        assert_eq!(dropped.edges().len(), 2);
    }
}
