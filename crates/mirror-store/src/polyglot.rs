//! A player's book as Polyglot entries ([`mirror_core::polyglot`]): every position where
//! the player was to move, their moves weighted by games played (scaled per position to
//! fit 16 bits).

use mirror_core::{MoveCode, PositionKey, notation, polyglot};
use rustc_hash::FxHashMap;
use shakmaty::{Chess, Color, Move, Position};

use crate::{GraphStore, StoreError};

/// A position where the player was to move, with their moves there and the games of each.
pub type OwnPosition = (Chess, Vec<(MoveCode, u64)>);

/// The positions where the player (as `color`, or either colour) was to move, each with
/// their moves and the games of each, moves in stored order.
pub fn own_positions<S: GraphStore + ?Sized>(
    store: &S,
    player: &str,
    color: Option<Color>,
) -> Result<Vec<OwnPosition>, StoreError> {
    // Games per (position, move, the player's colour), summed over the other dimensions.
    let mut games: FxHashMap<(PositionKey, Color), FxHashMap<MoveCode, u64>> = FxHashMap::default();
    for e in store.edges(player)? {
        if color.is_some_and(|c| c != e.dims.color) {
            continue;
        }
        *games
            .entry((e.pos, e.dims.color))
            .or_default()
            .entry(e.mv)
            .or_default() += u64::from(e.stats.games());
    }
    let mut out = Vec::new();
    for ((key, player_color), moves) in games {
        let epd = store
            .position_epd(key)?
            .ok_or_else(|| StoreError::Corrupt(format!("edge from unknown position {key:?}")))?;
        let pos = notation::parse_fen(&epd)
            .map_err(|e| StoreError::Corrupt(format!("stored position {epd:?}: {e}")))?;
        // Only the player's own moves: positions where their colour is to move.
        if pos.turn() != player_color {
            continue;
        }
        let mut moves: Vec<(MoveCode, u64)> = moves.into_iter().collect();
        moves.sort_unstable();
        out.push((pos, moves));
    }
    Ok(out)
}

/// An entry of `mv` in `pos` with `weight`.
pub fn entry(pos: &Chess, mv: Move, weight: u16) -> polyglot::Entry {
    polyglot::Entry {
        key: polyglot::key(pos),
        mv: polyglot::encode_move(mv),
        weight,
    }
}

/// The player's own moves (as `color`, or both colours) as Polyglot entries weighted by
/// games played, unsorted.
pub fn book<S: GraphStore + ?Sized>(
    store: &S,
    player: &str,
    color: Option<Color>,
) -> Result<Vec<polyglot::Entry>, StoreError> {
    let mut out = Vec::new();
    for (pos, moves) in own_positions(store, player, color)? {
        let weights = polyglot::weights(&moves.iter().map(|(_, g)| *g).collect::<Vec<_>>());
        for ((code, _), weight) in moves.into_iter().zip(weights) {
            let mv = code.to_move(&pos).map_err(|e| {
                StoreError::Corrupt(format!(
                    "stored move {code} in {}: {e}",
                    notation::fen(&pos)
                ))
            })?;
            out.push(entry(&pos, mv, weight));
        }
    }
    Ok(out)
}
