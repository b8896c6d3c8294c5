//! A player's drill record ([`DrillRecord`]) without its key (position and colour are the
//! table's key): version byte 1, flags (1 byte: bit 0 a memory, bit 1 retired), stability
//! and difficulty (f32 each, zero without a memory), due (i64), reviews and lapses (u32
//! each), answers (u16 count, then each: at i64, grade u8 1-4, millis u32); little-endian.

use mirror_core::PositionKey;
use shakmaty::Color;

use crate::{
    StoreError,
    drill::{DRILL_HISTORY, DrillAnswer, DrillRecord},
};

const FIXED: usize = 1 + 1 + 4 + 4 + 8 + 4 + 4 + 2;
const ANSWER: usize = 8 + 1 + 4;

/// The stored form of `r` (its latest [`DRILL_HISTORY`] answers).
pub fn encode(r: &DrillRecord) -> Vec<u8> {
    let history = &r.history[r.history.len().saturating_sub(DRILL_HISTORY)..];
    let mut out = Vec::with_capacity(FIXED + ANSWER * history.len());
    out.push(1u8);
    out.push(u8::from(r.memory.is_some()) | (u8::from(r.retired) << 1));
    let (s, d) = r.memory.unwrap_or((0.0, 0.0));
    out.extend_from_slice(&s.to_le_bytes());
    out.extend_from_slice(&d.to_le_bytes());
    out.extend_from_slice(&r.due.to_le_bytes());
    out.extend_from_slice(&r.reviews.to_le_bytes());
    out.extend_from_slice(&r.lapses.to_le_bytes());
    let n = u16::try_from(history.len()).unwrap_or(u16::MAX);
    out.extend_from_slice(&n.to_le_bytes());
    for a in history {
        out.extend_from_slice(&a.at.to_le_bytes());
        out.push(a.grade);
        out.extend_from_slice(&a.millis.to_le_bytes());
    }
    out
}

/// The record of `key` and `color` from its stored form.
pub fn decode(b: &[u8], key: PositionKey, color: Color) -> Result<DrillRecord, StoreError> {
    decode_inner(b, key, color)
        .ok_or_else(|| StoreError::Corrupt(format!("drill record of position {:016x}", key.0)))
}

fn decode_inner(b: &[u8], key: PositionKey, color: Color) -> Option<DrillRecord> {
    if b.first() != Some(&1) || b.len() < FIXED {
        return None;
    }
    let flags = b[1];
    if flags > 3 {
        return None;
    }
    let stability = f32::from_le_bytes(b[2..6].try_into().ok()?);
    let difficulty = f32::from_le_bytes(b[6..10].try_into().ok()?);
    let memory = if flags & 1 == 1 {
        if !(stability.is_finite() && difficulty.is_finite()) {
            return None;
        }
        Some((stability, difficulty))
    } else {
        // Without a memory both are written as zero bits: anything else is damage.
        if stability.to_bits() != 0 || difficulty.to_bits() != 0 {
            return None;
        }
        None
    };
    let due = i64::from_le_bytes(b[10..18].try_into().ok()?);
    let reviews = u32::from_le_bytes(b[18..22].try_into().ok()?);
    let lapses = u32::from_le_bytes(b[22..26].try_into().ok()?);
    let n = usize::from(u16::from_le_bytes(b[26..28].try_into().ok()?));
    let rest = &b[FIXED..];
    if n > DRILL_HISTORY || rest.len() != n * ANSWER {
        return None;
    }
    let mut history = Vec::with_capacity(n);
    for a in rest.chunks_exact(ANSWER) {
        let grade = a[8];
        if !(1..=4).contains(&grade) {
            return None;
        }
        history.push(DrillAnswer {
            at: i64::from_le_bytes(a[..8].try_into().ok()?),
            grade,
            millis: u32::from_le_bytes(a[9..].try_into().ok()?),
        });
    }
    Some(DrillRecord {
        key,
        color,
        memory,
        due,
        reviews,
        lapses,
        retired: flags & 2 == 2,
        history,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drill_records_round_trip_and_damage_is_named() {
        let key = PositionKey(0x1234);
        let mut answered = DrillRecord::new(key, Color::Black);
        answered.memory = Some((3.17, 5.5));
        answered.due = 1_796_000_000;
        answered.reviews = 3;
        answered.lapses = 1;
        answered.retired = true;
        answered.history = (0..3)
            .map(|i| DrillAnswer {
                at: 1_795_000_000 + i,
                grade: 1 + (i as u8 % 4),
                millis: 4_200,
            })
            .collect();
        for r in [DrillRecord::new(key, Color::White), answered] {
            let b = encode(&r);
            assert_eq!(decode(&b, r.key, r.color).expect("decodes"), r);
            for cut in 0..b.len() {
                assert!(decode(&b[..cut], key, r.color).is_err(), "cut at {cut}");
            }
            let mut longer = b.clone();
            longer.push(0);
            assert!(decode(&longer, key, r.color).is_err());
        }
        // Only the latest answers are kept.
        let mut long = DrillRecord::new(key, Color::White);
        long.history = (0..DRILL_HISTORY as i64 + 10)
            .map(|at| DrillAnswer {
                at,
                grade: 3,
                millis: 1,
            })
            .collect();
        let back = decode(&encode(&long), key, Color::White).expect("decodes");
        assert_eq!(back.history.len(), DRILL_HISTORY);
        assert_eq!(back.history[0].at, 10);
        let err = decode(&[2, 0], key, Color::White).expect_err("a bad version");
        assert!(matches!(err, StoreError::Corrupt(ref what) if what.contains("0000000000001234")));
    }
}
