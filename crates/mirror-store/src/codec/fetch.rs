//! What an incremental source remembers per unit ([`FetchState`]): version byte 1, then
//! complete (1 byte), games (u64), cursor (i64, `i64::MIN` = none), ETag and Last-Modified
//! (each u16 length + UTF-8, empty = none); little-endian.

use crate::{FetchState, StoreError};

/// The stored form of a fetch state (a text over 65,535 bytes is cut there).
pub fn encode(s: &FetchState) -> Vec<u8> {
    let mut out = vec![1u8, u8::from(s.complete)];
    out.extend_from_slice(&s.games.to_le_bytes());
    out.extend_from_slice(&s.cursor.unwrap_or(i64::MIN).to_le_bytes());
    for text in [&s.etag, &s.last_modified] {
        let t = text.as_deref().unwrap_or("");
        let mut len = t.len().min(usize::from(u16::MAX));
        while !t.is_char_boundary(len) {
            len -= 1;
        }
        out.extend_from_slice(&u16::try_from(len).expect("at most u16::MAX").to_le_bytes());
        out.extend_from_slice(&t.as_bytes()[..len]);
    }
    out
}

/// The fetch state of unit `unit` from its stored form.
pub fn decode(b: &[u8], unit: &str) -> Result<FetchState, StoreError> {
    decode_inner(b).ok_or_else(|| StoreError::Corrupt(format!("fetch state of {unit}")))
}

fn decode_inner(b: &[u8]) -> Option<FetchState> {
    if b.first() != Some(&1) || b.len() < 18 {
        return None;
    }
    let complete = match b[1] {
        0 => false,
        1 => true,
        _ => return None,
    };
    let games = u64::from_le_bytes(b[2..10].try_into().ok()?);
    let cursor = i64::from_le_bytes(b[10..18].try_into().ok()?);
    let mut rest = &b[18..];
    let mut texts = [None, None];
    for t in &mut texts {
        let len = usize::from(u16::from_le_bytes(rest.get(..2)?.try_into().ok()?));
        let text = std::str::from_utf8(rest.get(2..2 + len)?).ok()?;
        *t = (!text.is_empty()).then(|| text.to_string());
        rest = &rest[2 + len..];
    }
    if !rest.is_empty() {
        return None;
    }
    let [etag, last_modified] = texts;
    Some(FetchState {
        etag,
        last_modified,
        complete,
        games,
        cursor: (cursor != i64::MIN).then_some(cursor),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fetch_states_round_trip_and_damage_is_named() {
        for s in [
            FetchState::default(),
            FetchState {
                etag: Some("W/\"abc\"".into()),
                last_modified: Some("Tue, 01 Dec 2026 07:00:00 GMT".into()),
                complete: true,
                games: 1234,
                cursor: Some(-5),
            },
            FetchState {
                etag: None,
                last_modified: Some("é".into()),
                complete: false,
                games: u64::MAX,
                cursor: Some(i64::MAX),
            },
        ] {
            assert_eq!(decode(&encode(&s), "u").expect("decodes"), s);
        }
        let good = encode(&FetchState::default());
        for bad in [
            &good[..17],
            &[2u8; 22][..],
            &[good.as_slice(), &[0]].concat()[..],
        ] {
            let e = decode(bad, "chess.com/2024-03").expect_err("damaged");
            assert!(e.to_string().contains("chess.com/2024-03"), "{e}");
        }
    }
}
