//! Questions people ask of their graph, answered from any [`GraphRead`]. The Neo4j
//! backend has the same questions as Cypher in `cypher/examples/`; these are the embedded
//! store's equivalents (and the reference the Cypher answers are checked against).

use std::collections::{BTreeMap, BTreeSet};

use mirror_core::{MoveCode, MoveStats, PositionKey};
use shakmaty::Color;

use crate::{EdgeRow, GraphRead, Result};

/// Every move of the player's games that `filter` accepts, summed over the other
/// dimensions: (the position's EPD, the move, its W/D/L), in key order (what `mirror
/// edges` prints, and what the reference test compares with python-chess).
pub fn edge_sums<S: GraphRead + ?Sized>(
    store: &S,
    user: &str,
    filter: &crate::Filter,
) -> Result<Vec<(String, MoveCode, MoveStats)>> {
    let mut sums: BTreeMap<(PositionKey, MoveCode), MoveStats> = BTreeMap::new();
    for e in store.edges(user)? {
        if filter.accepts(&e.dims) {
            sums.entry((e.pos, e.mv)).or_default().merge(&e.stats);
        }
    }
    let mut epds: BTreeMap<PositionKey, String> = BTreeMap::new();
    let mut out = Vec::with_capacity(sums.len());
    for ((pos, mv), stats) in sums {
        let epd = match epds.get(&pos) {
            Some(epd) => epd.clone(),
            None => {
                let epd = store.position_epd(pos)?.ok_or_else(|| {
                    crate::StoreError::Corrupt(format!("position {pos} has no EPD"))
                })?;
                epds.insert(pos, epd.clone());
                epd
            }
        };
        out.push((epd, mv, stats));
    }
    Ok(out)
}

/// Side to move of a stored position (from its EPD).
fn side_to_move<S: GraphRead + ?Sized>(store: &S, pos: PositionKey) -> Result<Option<Color>> {
    Ok(store
        .position_epd(pos)?
        .and_then(|epd| match epd.split_whitespace().nth(1) {
            Some("w") => Some(Color::White),
            Some("b") => Some(Color::Black),
            _ => None,
        }))
}

/// Colours as map keys (shakmaty's `Color` has no order): white is `true`.
fn white(c: Color) -> bool {
    c == Color::White
}

fn sums(edges: &[EdgeRow]) -> BTreeMap<(PositionKey, MoveCode, bool), MoveStats> {
    let mut m: BTreeMap<(PositionKey, MoveCode, bool), MoveStats> = BTreeMap::new();
    for e in edges {
        m.entry((e.pos, e.mv, white(e.dims.color)))
            .or_default()
            .merge(&e.stats);
    }
    m
}

/// The player's most played own moves: (position, move, games), most first
/// (`cypher/examples/most_played.cypher`).
pub fn most_played<S: GraphRead + ?Sized>(
    store: &S,
    player: &str,
    limit: usize,
) -> Result<Vec<(PositionKey, MoveCode, u32)>> {
    let mut all: Vec<((PositionKey, MoveCode, bool), u32)> = sums(&store.edges(player)?)
        .into_iter()
        .map(|(k, s)| (k, s.games()))
        .collect();
    all.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut out = Vec::new();
    for ((pos, mv, color), games) in all {
        if side_to_move(store, pos)?.map(white) == Some(color) {
            out.push((pos, mv, games));
            if out.len() >= limit {
                break;
            }
        }
    }
    Ok(out)
}

/// Positions where the player scores worst with their own moves, with at least
/// `min_games` games: (position, games, score), lowest score first
/// (`cypher/examples/worst_positions.cypher`).
pub fn worst_positions<S: GraphRead + ?Sized>(
    store: &S,
    player: &str,
    min_games: u32,
    limit: usize,
) -> Result<Vec<(PositionKey, u32, f64)>> {
    let mut by_pos: BTreeMap<(PositionKey, bool), MoveStats> = BTreeMap::new();
    for ((pos, _, color), s) in sums(&store.edges(player)?) {
        by_pos.entry((pos, color)).or_default().merge(&s);
    }
    let mut out = Vec::new();
    for ((pos, color), s) in by_pos {
        if s.games() >= min_games && side_to_move(store, pos)?.map(white) == Some(color) {
            let score = (f64::from(s.wins) + 0.5 * f64::from(s.draws)) / f64::from(s.games());
            out.push((pos, s.games(), score));
        }
    }
    out.sort_by(|a, b| a.2.total_cmp(&b.2).then(b.1.cmp(&a.1)).then(a.0.cmp(&b.0)));
    out.truncate(limit);
    Ok(out)
}

/// Positions the player reached by two or more move orders: (position, distinct incoming
/// (parent, move) pairs), most first (`cypher/examples/transpositions.cypher`).
pub fn transpositions<S: GraphRead + ?Sized>(
    store: &S,
    player: &str,
) -> Result<Vec<(PositionKey, usize)>> {
    let mut incoming: BTreeMap<PositionKey, BTreeSet<(PositionKey, MoveCode)>> = BTreeMap::new();
    for e in store.edges(player)? {
        incoming.entry(e.child).or_default().insert((e.pos, e.mv));
    }
    let mut out: Vec<(PositionKey, usize)> = incoming
        .into_iter()
        .filter(|(_, v)| v.len() >= 2)
        .map(|(k, v)| (k, v.len()))
        .collect();
    out.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    Ok(out)
}

/// A position where the player's most common move differs from the opponents' most
/// common move in the same position (when they had that side to move against the player).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deviation {
    /// The position.
    pub pos: PositionKey,
    /// The player's most common move and its games.
    pub mine: (MoveCode, u32),
    /// The opponents' most common move and its games.
    pub theirs: (MoveCode, u32),
}

/// Deviations with at least `min_games` games on each side
/// (`cypher/examples/deviations.cypher`).
pub fn deviations<S: GraphRead + ?Sized>(
    store: &S,
    player: &str,
    min_games: u32,
) -> Result<Vec<Deviation>> {
    // (pos, colour of the player in those games) -> per move games.
    let mut groups: BTreeMap<PositionKey, BTreeMap<bool, BTreeMap<MoveCode, u32>>> =
        BTreeMap::new();
    for ((pos, mv, color), s) in sums(&store.edges(player)?) {
        *groups
            .entry(pos)
            .or_default()
            .entry(color)
            .or_default()
            .entry(mv)
            .or_default() += s.games();
    }
    let top = |m: &BTreeMap<MoveCode, u32>| {
        m.iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|(mv, g)| (*mv, *g))
    };
    let mut out = Vec::new();
    for (pos, sides) in groups {
        let (Some(w), Some(b)) = (sides.get(&true), sides.get(&false)) else {
            continue;
        };
        let (wt, bt): (u32, u32) = (w.values().sum(), b.values().sum());
        if wt < min_games || bt < min_games {
            continue;
        }
        let Some(stm) = side_to_move(store, pos)? else {
            continue;
        };
        let (mine, theirs) = if stm == Color::White { (w, b) } else { (b, w) };
        if let (Some(m), Some(t)) = (top(mine), top(theirs))
            && m.0 != t.0
        {
            out.push(Deviation {
                pos,
                mine: (m.0, mine.values().sum()),
                theirs: (t.0, theirs.values().sum()),
            });
        }
    }
    out.sort_by(|a, b| {
        (b.mine.1 + b.theirs.1)
            .cmp(&(a.mine.1 + a.theirs.1))
            .then(a.pos.cmp(&b.pos))
    });
    Ok(out)
}
/// The player's moves from `pos` in their games against one opponent (matched
/// case-insensitively on the name in the game record), summed per move like
/// [`GraphRead::moves`] and passing `filter`: answered by replaying the stored games, so
/// any opponent can be asked without an index.
pub fn moves_against<S: GraphRead + ?Sized>(
    store: &S,
    player: &str,
    pos: PositionKey,
    opponent: &str,
    filter: &crate::Filter,
) -> Result<Vec<crate::MoveRow>> {
    let wanted = opponent.trim().to_lowercase();
    let games: Vec<(mirror_core::GameRecord, Color)> = store
        .games(player)?
        .into_iter()
        .filter(|(g, c)| g.side(!*c).name.trim().to_lowercase() == wanted)
        .collect();
    let batch = mirror_core::batch::Batch::from_games(&games)
        .map_err(|e| crate::StoreError::Corrupt(format!("a stored game does not replay: {e}")))?;
    let rows = batch
        .edges()
        .iter()
        .filter(|(k, _)| k.pos == pos)
        .map(|(k, d)| {
            Ok(EdgeRow {
                pos: k.pos,
                mv: k.mv,
                dims: k.dims,
                stats: d.stats,
                child: d.child,
            })
        })
        .collect::<Vec<_>>();
    crate::sum_by_move(rows, filter)
}
