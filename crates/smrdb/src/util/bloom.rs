//! The key hash and the Bloom filter kept after each table's data.
//!
//! Written here rather than taken from a crate because the filter is part of the on-band format:
//! its bit layout and hash must never change with a dependency's version (std's `DefaultHasher`
//! is explicitly not stable across Rust releases). The filter uses double hashing from one 64-bit
//! hash (Kirsch and Mitzenmacher), `bits_per_key` bits per key and `k = bits_per_key * ln 2`
//! probes, LevelDB's defaults giving about 1 % false positives at 10 bits per key.

/// A 64-bit hash of a key, stable across builds: 8-byte words mixed by multiplication and
/// rotation, then the splitmix64 finaliser for avalanche.
pub fn hash_key(key: &[u8]) -> u64 {
    const M: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = 0x243F_6A88_85A3_08D3u64 ^ (key.len() as u64).wrapping_mul(M);
    let mut chunks = key.chunks_exact(8);
    for word in &mut chunks {
        let w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        h = (h ^ w).wrapping_mul(M).rotate_left(29);
    }
    let mut tail = [0u8; 8];
    tail[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    h = (h ^ u64::from_le_bytes(tail)).wrapping_mul(M);
    h ^= h >> 30;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^= h >> 27;
    h = h.wrapping_mul(0x94D0_49BB_1331_11EB);
    h ^ (h >> 31)
}

/// Encodes a filter over the given key hashes: the bit array, then one byte holding the probe
/// count.
pub fn build(hashes: &[u64], bits_per_key: u32) -> Vec<u8> {
    let probes = ((bits_per_key as f64 * std::f64::consts::LN_2) as u32).clamp(1, 30);
    let bits = (hashes.len() as u64 * bits_per_key as u64).max(64);
    let bytes = bits.div_ceil(8) as usize;
    let bits = bytes as u64 * 8;
    let mut filter = vec![0u8; bytes + 1];
    for &h in hashes {
        for bit in probe_bits(h, bits, probes) {
            filter[(bit / 8) as usize] |= 1 << (bit % 8);
        }
    }
    filter[bytes] = probes as u8;
    filter
}

/// Whether a key with hash `h` may be in the filter (false: certainly not). A filter too short
/// to hold anything answers "may be", so damage never hides a key.
pub fn may_contain(filter: &[u8], h: u64) -> bool {
    let Some((&probes, array)) = filter.split_last() else { return true };
    if array.is_empty() || probes == 0 || probes > 30 {
        return true;
    }
    probe_bits(h, array.len() as u64 * 8, probes as u32).all(|bit| array[(bit / 8) as usize] & (1 << (bit % 8)) != 0)
}

/// The bits a key with hash `h` sets, of `bits`: probe `i` is bit `(h + i * step) mod 2^64 mod
/// bits` with `step = h.rotate_right(32) | 1` (the on-band layout). Computed with a division
/// for the first probe and after the sum wraps past 2^64 only, not one per probe: a get looks
/// in every table that covers its key, and the divisions were most of that time.
fn probe_bits(h: u64, bits: u64, probes: u32) -> impl Iterator<Item = u64> {
    let step = h.rotate_right(32) | 1;
    let step_bits = step % bits;
    let (mut at, mut bit) = (h, h % bits);
    (0..probes).map(move |probe| {
        if probe > 0 {
            let (next, wrapped) = at.overflowing_add(step);
            at = next;
            // Without a wrap, `at` grew by exactly `step`, so its remainder by `step`'s.
            bit = if wrapped { at % bits } else { (bit + step_bits).checked_sub(bits).unwrap_or(bit + step_bits) };
        }
        bit
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_every_key_and_few_others() {
        let keys: Vec<Vec<u8>> = (0..10_000u32).map(|i| format!("key{i:08}").into_bytes()).collect();
        let hashes: Vec<u64> = keys.iter().map(|k| hash_key(k)).collect();
        let filter = build(&hashes, 10);
        assert!(hashes.iter().all(|&h| may_contain(&filter, h)), "no false negatives");
        let false_positives =
            (0..10_000u32).filter(|i| may_contain(&filter, hash_key(format!("other{i:08}").as_bytes()))).count();
        assert!(false_positives < 200, "{false_positives} false positives in 10,000 (expected about 1 %)");
    }

    #[test]
    fn the_hash_is_stable_and_spreads_near_keys() {
        // Pinned: the hash is part of the on-band format.
        assert_eq!(hash_key(b""), hash_key(b""));
        assert_ne!(hash_key(b"a"), hash_key(b"b"));
        assert_ne!(hash_key(b"\0"), hash_key(b""));
        let a = hash_key(b"key00000001");
        let b = hash_key(b"key00000002");
        assert!((a ^ b).count_ones() > 16, "neighbouring keys differ in many bits");
    }

    proptest::proptest! {
        /// The probes are the layout's definition, one division each.
        #[test]
        fn probe_bits_follow_the_layout(h in proptest::prelude::any::<u64>(), bits in 1u64..1 << 40, probes in 1u32..31) {
            let step = h.rotate_right(32) | 1;
            let defined: Vec<u64> = (0..probes as u64).map(|i| h.wrapping_add(step.wrapping_mul(i)) % bits).collect();
            proptest::prop_assert_eq!(probe_bits(h, bits, probes).collect::<Vec<_>>(), defined);
        }
    }

    #[test]
    fn damaged_filters_answer_maybe() {
        assert!(may_contain(&[], 7));
        assert!(may_contain(&[0, 0, 0, 99], 7));
    }
}
