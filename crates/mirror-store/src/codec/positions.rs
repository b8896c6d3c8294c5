//! A game's positions: the keys of the positions a move was played from, sorted, 8 bytes
//! each (big-endian), so that "does this game go through P" is a binary search instead of a
//! replay.

use mirror_core::PositionKey;

use crate::StoreError;

/// The stored form of sorted, distinct keys.
pub fn encode(keys: &[PositionKey]) -> Vec<u8> {
    keys.iter().flat_map(|k| k.to_be_bytes()).collect()
}

/// Whether the stored keys hold `pos`.
pub fn contains(bytes: &[u8], pos: PositionKey) -> Result<bool, StoreError> {
    if !bytes.len().is_multiple_of(8) {
        return Err(StoreError::Corrupt(format!(
            "game positions of {} bytes, not a multiple of 8",
            bytes.len()
        )));
    }
    let key = |i: usize| -> PositionKey {
        let b: [u8; 8] = bytes[8 * i..8 * i + 8]
            .try_into()
            .expect("the length is a multiple of 8");
        PositionKey::from_be_bytes(b)
    };
    let (mut lo, mut hi) = (0, bytes.len() / 8);
    while lo < hi {
        let mid = (lo + hi) / 2;
        match key(mid).cmp(&pos) {
            std::cmp::Ordering::Equal => return Ok(true),
            std::cmp::Ordering::Less => lo = mid + 1,
            std::cmp::Ordering::Greater => hi = mid,
        }
    }
    Ok(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn membership_by_binary_search() {
        let keys: Vec<PositionKey> = [3u64, 9, 27, 81, u64::MAX].map(PositionKey).to_vec();
        let bytes = encode(&keys);
        for k in &keys {
            assert!(contains(&bytes, *k).expect("ok"));
        }
        for k in [0u64, 4, 80, u64::MAX - 1] {
            assert!(!contains(&bytes, PositionKey(k)).expect("ok"));
        }
        assert!(!contains(&[], PositionKey(3)).expect("empty"));
        assert!(contains(&bytes[..7], PositionKey(3)).is_err());
    }
}
