//! An edge row: the key `player id (4) | position (8) | move (2) | flags (1: colour, rated,
//! time class, source) | month (2) |
//! opponent rating (2, 0 = unknown)`,
//! big-endian so that one player's moves from one position are one range scan, and the
//! value: [`MoveStats`] without its times (32 bytes), the child position key (8) and, only
//! when a game of the row has a time, the times (16: timed moves, milliseconds, in
//! trouble). A row without times is the same 40 bytes as in schema 4, which is why a
//! schema-4 store opens as it is.

use mirror_core::{
    MoveCode, MoveStats, PositionKey,
    stats::{EdgeDims, STATS_LEN, STATS_UNTIMED_LEN},
};

use crate::{EdgeRow, StoreError};

/// Bytes of an edge key.
pub const KEY_LEN: usize = 19;
/// Bytes of an edge value without times.
pub const VALUE_LEN: usize = STATS_UNTIMED_LEN + 8;
/// Bytes of an edge value with times.
pub const TIMED_VALUE_LEN: usize = STATS_LEN + 8;

/// An encoded edge value (its bytes: [`EdgeValue::as_slice`]).
#[derive(Copy, Clone, Debug)]
pub struct EdgeValue {
    bytes: [u8; TIMED_VALUE_LEN],
    len: usize,
}

impl EdgeValue {
    /// The value's bytes.
    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// The key of a player's edge.
pub fn key(pid: u32, pos: PositionKey, mv: MoveCode, dims: &EdgeDims) -> [u8; KEY_LEN] {
    let mut k = [0u8; KEY_LEN];
    k[0..4].copy_from_slice(&pid.to_be_bytes());
    k[4..12].copy_from_slice(&pos.to_be_bytes());
    k[12..14].copy_from_slice(&mv.0.to_be_bytes());
    k[14] = dims.flags();
    k[15..17].copy_from_slice(&dims.month.map_or(0, |m| m.to_u16()).to_be_bytes());
    k[17..19].copy_from_slice(&dims.opponent_rating.unwrap_or(0).to_be_bytes());
    k
}

/// The first key of a player's edges from `pos` (the start of their range scan).
pub fn first_key(pid: u32, pos: PositionKey) -> [u8; KEY_LEN] {
    let mut k = [0u8; KEY_LEN];
    k[0..4].copy_from_slice(&pid.to_be_bytes());
    k[4..12].copy_from_slice(&pos.to_be_bytes());
    k
}

/// The last key of a player's edges from `pos` (the end of their range scan, inclusive).
pub fn last_key(pid: u32, pos: PositionKey) -> [u8; KEY_LEN] {
    let mut k = first_key(pid, pos);
    k[12..].fill(0xff);
    k
}

/// The value of an edge: its statistics and where the move leads.
pub fn value(stats: &MoveStats, child: PositionKey) -> EdgeValue {
    let mut bytes = [0u8; TIMED_VALUE_LEN];
    let s = stats.encode();
    bytes[..STATS_UNTIMED_LEN].copy_from_slice(&s[..STATS_UNTIMED_LEN]);
    bytes[STATS_UNTIMED_LEN..VALUE_LEN].copy_from_slice(&child.to_be_bytes());
    let len = if stats.has_times() {
        bytes[VALUE_LEN..].copy_from_slice(&s[STATS_UNTIMED_LEN..]);
        TIMED_VALUE_LEN
    } else {
        VALUE_LEN
    };
    EdgeValue { bytes, len }
}

/// The edge row of a stored key and value.
pub fn decode(key: &[u8], value: &[u8]) -> Result<EdgeRow, StoreError> {
    if key.len() != KEY_LEN || !matches!(value.len(), VALUE_LEN | TIMED_VALUE_LEN) {
        return Err(StoreError::Corrupt(format!(
            "edge row of {} + {} bytes, not {KEY_LEN} + {VALUE_LEN} or {TIMED_VALUE_LEN}",
            key.len(),
            value.len()
        )));
    }
    let eight = |b: &[u8]| -> [u8; 8] { b.try_into().expect("length checked above") };
    let pos = PositionKey::from_be_bytes(eight(&key[4..12]));
    let mv = MoveCode(u16::from_be_bytes([key[12], key[13]]));
    let (stats, child) = decode_value(value, pos, mv)?;
    Ok(EdgeRow {
        pos,
        mv,
        dims: EdgeDims::from_parts(
            key[14],
            u16::from_be_bytes([key[15], key[16]]),
            u16::from_be_bytes([key[17], key[18]]),
        )
        .ok_or_else(|| StoreError::Corrupt(format!("edge flags {:#04x}", key[14])))?,
        stats,
        child,
    })
}

/// The statistics and child of the stored value of the row of `mv` from `pos` (an edge
/// row's, or a move total's), or [`StoreError::Corrupt`] naming that row.
pub fn decode_value(
    value: &[u8],
    pos: PositionKey,
    mv: MoveCode,
) -> Result<(MoveStats, PositionKey), StoreError> {
    if !matches!(value.len(), VALUE_LEN | TIMED_VALUE_LEN) {
        return Err(StoreError::Corrupt(format!(
            "position {pos}: the row of the move {mv} holds {} bytes, not {VALUE_LEN} or \
             {TIMED_VALUE_LEN}",
            value.len()
        )));
    }
    let mut s = [0u8; STATS_LEN];
    s[..STATS_UNTIMED_LEN].copy_from_slice(&value[..STATS_UNTIMED_LEN]);
    if value.len() == TIMED_VALUE_LEN {
        s[STATS_UNTIMED_LEN..].copy_from_slice(&value[VALUE_LEN..]);
    }
    let stats = MoveStats::decode(&s).ok_or_else(|| {
        StoreError::Corrupt(format!(
            "position {pos}: the row of the move {mv} holds counts that cannot be"
        ))
    })?;
    let child: [u8; 8] = value[STATS_UNTIMED_LEN..VALUE_LEN]
        .try_into()
        .expect("length checked above");
    Ok((stats, PositionKey::from_be_bytes(child)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mirror_core::{TimeClass, time::Month};
    use shakmaty::Color;

    #[test]
    fn edges_round_trip_and_sort_by_player_then_position() {
        let stats = MoveStats {
            wins: 3,
            draws: 1,
            losses: 2,
            ..MoveStats::default()
        };
        for (color, rated, time_class, month, opponent_rating) in [
            (
                Color::White,
                true,
                TimeClass::Blitz,
                Month::new(2024, 3),
                Some(1500),
            ),
            (Color::Black, false, TimeClass::Daily, None, None),
            (
                Color::Black,
                true,
                TimeClass::Classical,
                Month::new(2017, 12),
                Some(3200),
            ),
        ] {
            let dims = EdgeDims {
                color,
                rated,
                time_class,
                month,
                opponent_rating,
                source: mirror_core::GameSource::Lichess,
            };
            let (pos, child, mv) = (
                PositionKey(0xdead_beef_0123),
                PositionKey(u64::MAX),
                MoveCode(777),
            );
            let row =
                decode(&key(9, pos, mv, &dims), value(&stats, child).as_slice()).expect("decodes");
            assert_eq!(
                (row.pos, row.mv, row.dims, row.stats, row.child),
                (pos, mv, dims, stats, child)
            );
        }
        let dims = EdgeDims {
            color: Color::White,
            rated: false,
            time_class: TimeClass::Bullet,
            month: None,
            opponent_rating: None,
            source: mirror_core::GameSource::Otb,
        };
        let k = key(1, PositionKey(5), MoveCode(1), &dims);
        assert!(first_key(1, PositionKey(5)) <= k && k <= last_key(1, PositionKey(5)));
        assert!(last_key(1, PositionKey(5)) < first_key(1, PositionKey(6)));
        assert!(
            key(0, PositionKey(u64::MAX), MoveCode(u16::MAX), &dims) < first_key(1, PositionKey(0))
        );
        let e = decode(&k[..18], value(&stats, PositionKey(1)).as_slice()).expect_err("short key");
        assert!(e.to_string().contains("18 + 40 bytes"), "{e}");
        // With times the value holds them after the child; without, it is schema 4's.
        let timed = MoveStats {
            timed: 2,
            time_ms: 7_300,
            trouble: 1,
            ..stats
        };
        let v = value(&timed, PositionKey(9));
        assert_eq!(v.as_slice().len(), TIMED_VALUE_LEN);
        assert_eq!(
            decode_value(v.as_slice(), PositionKey(5), MoveCode(1)).expect("timed"),
            (timed, PositionKey(9))
        );
        assert_eq!(value(&stats, PositionKey(9)).as_slice().len(), VALUE_LEN);
        assert!(decode_value(&v.as_slice()[..50], PositionKey(5), MoveCode(1)).is_err());
    }
}
