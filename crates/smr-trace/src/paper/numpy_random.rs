//! numpy's `default_rng(seed)` streams, for the paper workloads first generated with numpy: the
//! seeding (`SeedSequence`), the bounded integers of `Generator.integers` (int64) and the shuffle
//! of `Generator.permutation`. Written here rather than taken from a crate because the traces
//! numpy made must stay the same byte for byte, so the exact draws matter, not only their
//! distribution; no crate reproduces numpy's. The generator itself is `rand_pcg`'s `Pcg64`,
//! which is numpy's PCG64 (XSL-RR 128/64, stepped before each output, seeded the same way).
//!
//! The algorithms, as numpy documents and implements them (numpy 2.x: `SeedSequence` in
//! numpy/random/bit_generator.pyx, https://numpy.org/doc/stable/reference/random/bit_generators/generated/numpy.random.SeedSequence.html;
//! bounded integers in numpy/random/src/distributions/distributions.c: Lemire's method,
//! https://arxiv.org/abs/1805.10941, on 32-bit draws when the range fits in 32 bits; the shuffle
//! in numpy/random/_generator.pyx, a Fisher-Yates pass from the last element down, each index
//! drawn by masked rejection, `random_interval`). Not here: any other distribution of numpy's.

use rand_core::RngCore;
use rand_pcg::Pcg64;

/// Words of `SeedSequence`'s entropy pool (numpy's `DEFAULT_POOL_SIZE`).
const POOL_SIZE: usize = 4;
const INIT_A: u32 = 0x43b0_d7e5;
const MULT_A: u32 = 0x931e_8875;
const INIT_B: u32 = 0x8b51_f9dd;
const MULT_B: u32 = 0x58f3_8ded;
const MIX_MULT_L: u32 = 0xca01_f9dd;
const MIX_MULT_R: u32 = 0x4973_f715;
const XSHIFT: u32 = 16;

/// numpy's `Generator(PCG64(SeedSequence(seed)))`, with the half of a 64-bit draw that a 32-bit
/// draw leaves kept for the next 32-bit draw, as numpy's PCG64 keeps it.
pub struct NumpyRng {
    pcg: Pcg64,
    kept_half: Option<u32>,
}

fn hashmix(value: u32, hash_const: &mut u32) -> u32 {
    let mut value = value ^ *hash_const;
    *hash_const = hash_const.wrapping_mul(MULT_A);
    value = value.wrapping_mul(*hash_const);
    value ^ (value >> XSHIFT)
}

fn mix(x: u32, y: u32) -> u32 {
    let result = MIX_MULT_L.wrapping_mul(x).wrapping_sub(MIX_MULT_R.wrapping_mul(y));
    result ^ (result >> XSHIFT)
}

/// The 32-bit words of a seed, lowest first (zero is one word).
fn seed_words(seed: u64) -> Vec<u32> {
    let mut words = vec![seed as u32];
    if seed >> 32 != 0 {
        words.push((seed >> 32) as u32);
    }
    words
}

/// `SeedSequence(seed).generate_state(n_words)` as 32-bit words.
fn seed_sequence_state(seed: u64, n_words: usize) -> Vec<u32> {
    let entropy = seed_words(seed);
    let mut pool = [0u32; POOL_SIZE];
    let mut hash_const = INIT_A;
    for (i, word) in pool.iter_mut().enumerate() {
        *word = hashmix(entropy.get(i).copied().unwrap_or(0), &mut hash_const);
    }
    for src in 0..POOL_SIZE {
        for dst in 0..POOL_SIZE {
            if src != dst {
                pool[dst] = mix(pool[dst], hashmix(pool[src], &mut hash_const));
            }
        }
    }
    for &extra in entropy.iter().skip(POOL_SIZE) {
        for word in pool.iter_mut() {
            *word = mix(*word, hashmix(extra, &mut hash_const));
        }
    }
    let mut hash_const = INIT_B;
    (0..n_words)
        .map(|i| {
            let mut value = pool[i % POOL_SIZE] ^ hash_const;
            hash_const = hash_const.wrapping_mul(MULT_B);
            value = value.wrapping_mul(hash_const);
            value ^ (value >> XSHIFT)
        })
        .collect()
}

impl NumpyRng {
    /// `numpy.random.default_rng(seed)`.
    pub fn new(seed: u64) -> Self {
        let words = seed_sequence_state(seed, 8);
        let word64 = |i: usize| u128::from(words[2 * i]) | (u128::from(words[2 * i + 1]) << 32);
        let state = (word64(0) << 64) | word64(1);
        let stream = (word64(2) << 64) | word64(3);
        NumpyRng { pcg: Pcg64::new(state, stream), kept_half: None }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.pcg.next_u64()
    }

    /// A 32-bit draw: the low half of a fresh 64-bit draw, its high half kept for the next one.
    pub fn next_u32(&mut self) -> u32 {
        if let Some(half) = self.kept_half.take() {
            return half;
        }
        let draw = self.pcg.next_u64();
        self.kept_half = Some((draw >> 32) as u32);
        draw as u32
    }

    /// A uniform value in `0..=max` by Lemire's multiply-and-reject, on 64-bit draws when `wide`
    /// and 32-bit ones otherwise (`max` then below 2^32 - 1): the draw times `max + 1`, redrawn
    /// while its low word falls under the threshold that removes the bias; the high word.
    fn lemire(&mut self, max: u64, wide: bool) -> u64 {
        let (bits, word) = if wide { (64, u128::from(u64::MAX)) } else { (32, u128::from(u32::MAX)) };
        let bound = u128::from(max) + 1;
        let mut scaled = || u128::from(if wide { self.next_u64() } else { u64::from(self.next_u32()) }) * bound;
        let mut product = scaled();
        if product & word < bound {
            let threshold = (word - u128::from(max)) % bound;
            while product & word < threshold {
                product = scaled();
            }
        }
        (product >> bits) as u64
    }

    /// `integers(low, high, size=count)` (int64, `high` excluded): `count` uniform values in
    /// `low..high`; `None` when the range is empty, which numpy refuses.
    pub fn integers(&mut self, low: i64, high: i64, count: usize) -> Option<Vec<i64>> {
        if high <= low {
            return None;
        }
        let max = (high as u64).wrapping_sub(low as u64) - 1;
        let offset = |value: u64| (low as u64).wrapping_add(value) as i64;
        let values = (0..count).map(|_| {
            if max == 0 {
                0
            } else if max == u64::from(u32::MAX) {
                u64::from(self.next_u32())
            } else {
                self.lemire(max, max > u64::from(u32::MAX))
            }
        });
        Some(values.map(offset).collect())
    }

    /// `random_interval(max)`: a uniform value in `0..=max` by drawing under the smallest bit mask
    /// that covers `max` until the value is at most `max`.
    fn interval(&mut self, max: u64) -> u64 {
        if max == 0 {
            return 0;
        }
        let mask = u64::MAX >> max.leading_zeros();
        loop {
            let value =
                if max <= u64::from(u32::MAX) { u64::from(self.next_u32()) & mask } else { self.next_u64() & mask };
            if value <= max {
                return value;
            }
        }
    }

    /// `permutation(n)`: `0..n` shuffled from the last place down, each place swapped with one
    /// drawn at or below it.
    pub fn permutation(&mut self, n: u64) -> Vec<u64> {
        let mut order: Vec<u64> = (0..n).collect();
        for i in (1..order.len()).rev() {
            let j = self.interval(i as u64) as usize;
            order.swap(i, j);
        }
        order
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_words_are_lowest_first_and_zero_is_one_word() {
        assert_eq!(seed_words(0), vec![0]);
        assert_eq!(seed_words(12345), vec![12345]);
        assert_eq!(seed_words(0x10_dead_beef), vec![0xdead_beef, 0x10]);
    }

    #[test]
    fn bounded_draws_stay_in_their_range() {
        let mut rng = NumpyRng::new(7);
        for (low, high) in [(0, 1), (0, 5), (3, 1 << 32), (-5, 5), (0, 1 << 40), (0, i64::MAX)] {
            let values = rng.integers(low, high, 200).unwrap();
            assert!(values.iter().all(|v| (low..high).contains(v)), "{low}..{high}");
        }
        assert!(rng.integers(4, 4, 1).is_none(), "an empty range is refused");
    }

    #[test]
    fn a_permutation_holds_every_index_once() {
        let mut order = NumpyRng::new(3).permutation(1000);
        order.sort_unstable();
        assert_eq!(order, (0..1000).collect::<Vec<_>>());
    }
}
