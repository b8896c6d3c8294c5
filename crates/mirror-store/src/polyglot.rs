//! A player's book as Polyglot entries ([`mirror_core::polyglot`]): every position where
//! the player was to move, their moves weighted by games played (scaled per position to
//! fit 16 bits).

use mirror_core::{MoveCode, PositionKey, notation, polyglot};
use rustc_hash::FxHashMap;
use shakmaty::{Color, Position};

use crate::{GraphStore, StoreError};

/// The player's own moves (as `color`, or both colours) as Polyglot entries, unsorted.
pub fn book<S: GraphStore + ?Sized>(
    store: &S,
    player: &str,
    color: Option<Color>,
) -> Result<Vec<polyglot::Entry>, StoreError> {
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
        let weights = polyglot::weights(&moves.iter().map(|(_, g)| *g).collect::<Vec<_>>());
        let pkey = polyglot::key(&pos);
        for ((code, _), weight) in moves.into_iter().zip(weights) {
            let mv = code
                .to_move(&pos)
                .map_err(|e| StoreError::Corrupt(format!("stored move {code} in {epd:?}: {e}")))?;
            out.push(polyglot::Entry {
                key: pkey,
                mv: polyglot::encode_move(mv),
                weight,
            });
        }
    }
    Ok(out)
}
