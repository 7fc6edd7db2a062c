//! Zipf-distributed numbers as YCSB draws them: item `i` of `0..n` (counted from `base`) has
//! probability `(i + 1)^-theta / zeta(n)`, `theta` = 0.99 by default; the item count may grow
//! between draws (inserts), and the normaliser `zeta(n)` then grows incrementally from the old
//! count instead of being summed again. Scrambled: a Zipf draw over 10^10 items, hashed (FNV)
//! onto the key space, so the popular items are scattered. Latest: the newest record minus a
//! Zipf draw, so recent records are the popular ones.
//!
//! Where we differ from YCSB, on purpose: YCSB samples with Gray et al.'s closed-form
//! approximation ("Quickly generating billion-record synthetic databases"), exact for items 0
//! and 1 but 17 % too likely at item 2, 7 % at item 4 and 3.5 % too unlikely in the tail
//! (n = 1000). We draw by inverting the exact cumulative distribution: a table of the exact
//! partial sums of the first 65,536 terms (extended as the item count grows) and, beyond it,
//! the Euler-Maclaurin midpoint estimate of the remaining sum, whose relative error per item
//! is below 1e-10 there. The normaliser for a grown item count is the kept sums plus that
//! estimate, O(1) per change (YCSB adds the new terms one by one). So generated rank frequencies match the Zipf probabilities, which the
//! tests check with a chi-square test; the zeta of 10^10 items comes out as YCSB's hard-coded
//! constant 26.46902820178302.

use rand::Rng;

use super::keys::fnv_hash64;

/// YCSB's Zipf constant.
pub const ZIPFIAN_CONSTANT: f64 = 0.99;
/// Items the scrambled generator draws from before hashing (YCSB's).
pub const SCRAMBLED_ITEMS: u64 = 10_000_000_000;
/// Leading terms whose partial sums are kept exactly.
const HEAD_TERMS: u64 = 1 << 16;

/// Zipf-distributed numbers in `base..base + items`, the item count may grow.
#[derive(Clone, Debug)]
pub struct Zipfian {
    base: u64,
    items: u64,
    theta: f64,
    /// `head[i]` = sum of `(j + 1)^-theta` for `j` in `0..=i`, for `i < HEAD_TERMS`.
    head: Vec<f64>,
    /// The item count `zetan` was computed for, and `zetan` itself.
    count_for_zeta: u64,
    zetan: f64,
}

impl Zipfian {
    /// Numbers in `min..=max`, with constant `theta` (> 0).
    pub fn new(min: u64, max: u64, theta: f64) -> Zipfian {
        assert!(
            max >= min && theta > 0.0 && theta.is_finite(),
            "checked by the callers: a range and a positive constant"
        );
        let mut head = Vec::with_capacity(HEAD_TERMS as usize);
        let mut total = 0.0;
        for j in 1..=HEAD_TERMS {
            total += (j as f64).powf(-theta);
            head.push(total);
        }
        let mut z = Zipfian { base: min, items: max - min + 1, theta, head, count_for_zeta: 0, zetan: 0.0 };
        z.grow_to(z.items);
        z
    }

    /// Items of the range given at construction.
    pub fn items(&self) -> u64 {
        self.items
    }

    /// `zeta(n)`: the sum of `(j + 1)^-theta` over `j` in `0..n`.
    pub fn zeta(&self, n: u64) -> f64 {
        let kept = self.head.len() as u64;
        if n <= kept {
            return if n == 0 { 0.0 } else { self.head[n as usize - 1] };
        }
        self.head_total() + self.tail_sum(kept, n)
    }

    fn head_total(&self) -> f64 {
        self.head.last().copied().unwrap_or(0.0)
    }

    /// The midpoint estimate of the sum of `j^-theta` for `j` in `from + 1..=to`.
    fn tail_sum(&self, from: u64, to: u64) -> f64 {
        let (a, b) = (from as f64 + 0.5, to as f64 + 0.5);
        if (self.theta - 1.0).abs() < 1e-12 {
            (b / a).ln()
        } else {
            let e = 1.0 - self.theta;
            (b.powf(e) - a.powf(e)) / e
        }
    }

    /// The continuous `m` at which the tail sum from `from` reaches `mass`.
    fn tail_inverse(&self, from: u64, mass: f64) -> f64 {
        let a = from as f64 + 0.5;
        if (self.theta - 1.0).abs() < 1e-12 {
            a * mass.exp() - 0.5
        } else {
            let e = 1.0 - self.theta;
            (mass * e + a.powf(e)).powf(1.0 / e) - 0.5
        }
    }

    /// Moves the normaliser to `count` items: the kept partial sums, and beyond them the tail
    /// estimate from where they end, so growing costs the same whatever the old count.
    fn grow_to(&mut self, count: u64) {
        self.zetan = self.zeta(count);
        self.count_for_zeta = count;
    }

    /// A number in `base..base + items`.
    pub fn next(&mut self, rng: &mut impl Rng) -> u64 {
        self.next_of(self.items, rng)
    }

    /// A number in `base..base + count`: the item count grew (or shrank) since construction.
    pub fn next_of(&mut self, count: u64, rng: &mut impl Rng) -> u64 {
        if count == 0 {
            return self.base;
        }
        if count != self.count_for_zeta {
            self.grow_to(count);
        }
        let mass = rng.gen::<f64>() * self.zetan;
        let kept = self.head.len() as u64;
        let rank = if count <= kept || mass < self.head_total() {
            self.head.partition_point(|&c| c <= mass) as u64
        } else {
            let m = self.tail_inverse(kept, mass - self.head_total());
            (m.ceil() as u64).saturating_sub(1).max(kept)
        };
        self.base + rank.min(count - 1)
    }
}

/// YCSB's scrambled Zipfian: a Zipf draw over 10^10 items hashed onto `min..=max`.
#[derive(Clone, Debug)]
pub struct ScrambledZipfian {
    min: u64,
    count: u64,
    inner: Zipfian,
}

impl ScrambledZipfian {
    pub fn new(min: u64, max: u64, theta: f64) -> ScrambledZipfian {
        ScrambledZipfian { min, count: max - min + 1, inner: Zipfian::new(0, SCRAMBLED_ITEMS - 1, theta) }
    }

    pub fn next(&mut self, rng: &mut impl Rng) -> u64 {
        self.min + fnv_hash64(self.inner.next(rng)) % self.count
    }

    /// The number the `rank`-th most popular item of the underlying draw lands on.
    pub fn item_of_rank(&self, rank: u64) -> u64 {
        self.min + fnv_hash64(rank) % self.count
    }

    /// The probability of the underlying draw's `rank`-th item.
    pub fn rank_probability(&self, rank: u64) -> f64 {
        ((rank + 1) as f64).powf(-self.inner.theta) / self.inner.zeta(SCRAMBLED_ITEMS)
    }
}

/// YCSB's skewed-latest: the newest record number minus a Zipf draw over the records so far.
#[derive(Clone, Debug)]
pub struct Latest {
    inner: Zipfian,
}

impl Latest {
    pub fn new(records: u64, theta: f64) -> Latest {
        Latest { inner: Zipfian::new(0, records.max(1) - 1, theta) }
    }

    /// A record number at most `newest` (YCSB's `max - zipf(max)`, so in `1..=newest`).
    pub fn next(&mut self, newest: u64, rng: &mut impl Rng) -> u64 {
        newest - self.inner.next_of(newest, rng)
    }
}

#[cfg(test)]
#[path = "zipfian_tests.rs"]
mod tests;
