//! YCSB's record keys: "user" followed by the record number, or (with hashed insert order,
//! YCSB's default) by the 64-bit FNV-1a hash of the number, so records inserted in order land
//! all over the key space. The hash is YCSB's: FNV-1a over the eight bytes of the number, least
//! significant first, with the sign bit cleared at the end (YCSB takes the absolute value of a
//! signed 64-bit result; we take the unsigned magnitude, which differs only for the one value
//! whose absolute value does not fit).

/// FNV-1a over the eight little-endian bytes of `value`, as YCSB hashes record numbers.
pub fn fnv_hash64(value: u64) -> u64 {
    const OFFSET_BASIS: u64 = 0xCBF2_9CE4_8422_2325;
    const PRIME: u64 = 1_099_511_628_211;
    let mut hash = OFFSET_BASIS;
    for byte in value.to_le_bytes() {
        hash ^= byte as u64;
        hash = hash.wrapping_mul(PRIME);
    }
    (hash as i64).unsigned_abs()
}

/// The key of record `number`: "user" + the (hashed, unless `ordered`) number in decimal,
/// left-padded with zeros to `zero_padding` digits.
pub fn key_name(number: u64, zero_padding: usize, ordered: bool) -> String {
    let shown = if ordered { number } else { fnv_hash64(number) };
    format!("user{shown:0>zero_padding$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_as_fnv1a_over_little_endian_bytes() {
        // FNV-1a of eight zero bytes, worked by hand: each round xors 0 and multiplies.
        let mut h: u64 = 0xCBF2_9CE4_8422_2325;
        for _ in 0..8 {
            h = h.wrapping_mul(1_099_511_628_211);
        }
        assert_eq!(fnv_hash64(0), (h as i64).unsigned_abs());
        assert_ne!(fnv_hash64(1), fnv_hash64(256), "every byte counts");
        assert!(fnv_hash64(12345) < 1 << 63, "the sign bit is cleared");
    }

    #[test]
    fn names_keys_as_ycsb_does() {
        assert_eq!(key_name(5, 1, true), "user5");
        assert_eq!(key_name(5, 8, true), "user00000005");
        assert_eq!(key_name(5, 1, false), format!("user{}", fnv_hash64(5)));
    }
}
