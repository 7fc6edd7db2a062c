//! The band layout of a drive-managed SMR disk: consecutive bands over the logical address
//! space, either of uniformly random sizes in [min, max] (the PORE emulator: 17–36 MB, §V-A) or
//! of one fixed size (to compare with tools that use fixed bands).
//!
//! Band sizes are whole 4 KiB blocks. `band_of` is a binary search over band starts (random
//! sizes) or a division (fixed size). Not here: what happens in a band (see `Dmsmr`).

use std::ops::Range;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use smr_core::units::{BLOCK_4K, MB};
use smr_core::{ParamError, Params};

#[derive(Clone, Debug, PartialEq)]
enum Sizes {
    Fixed(u64),
    /// `starts[i]` is band i's first byte; `starts[len-1]` is the end of the last band.
    Random(Vec<u64>),
}

/// Bands covering `[0, end)`.
#[derive(Clone, Debug, PartialEq)]
pub struct BandLayout {
    sizes: Sizes,
    end: u64,
}

fn round_to_block(bytes: u64) -> u64 {
    (bytes / BLOCK_4K).max(1) * BLOCK_4K
}

impl BandLayout {
    /// Bands of exactly `size` bytes (rounded down to whole 4 KiB blocks) covering `[0, cover)`.
    pub fn fixed(size: u64, cover: u64) -> Self {
        let size = round_to_block(size);
        BandLayout { sizes: Sizes::Fixed(size), end: cover.div_ceil(size).max(1) * size }
    }

    /// Bands of uniformly random sizes in `[min, max]` bytes (whole blocks), seeded, covering `[0, cover)`.
    pub fn random(min: u64, max: u64, cover: u64, seed: u64) -> Self {
        let (min, max) = (round_to_block(min) / BLOCK_4K, round_to_block(max) / BLOCK_4K);
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut starts = vec![0u64];
        let mut at = 0u64;
        while at < cover.max(1) {
            at += rng.gen_range(min..=max) * BLOCK_4K;
            starts.push(at);
        }
        BandLayout { sizes: Sizes::Random(starts), end: at }
    }

    /// Reads `band_size` (fixed bands) or `band_min`/`band_max` (random bands, default 17–36 MB).
    pub fn from_params(params: &mut Params, cover: u64, seed: u64) -> Result<Self, ParamError> {
        if params.contains("band_size") {
            return Ok(Self::fixed(params.size("band_size", 0)?, cover));
        }
        let min = params.size("band_min", 17 * MB)?;
        let max = params.size("band_max", 36 * MB)?;
        if min > max {
            return Err(ParamError::new("band_min", format!("{min} bytes is larger than band_max ({max} bytes)")));
        }
        if min < BLOCK_4K {
            return Err(ParamError::new("band_min", "must be at least one 4 KiB block"));
        }
        Ok(Self::random(min, max, cover, seed))
    }

    /// The band holding byte `offset` (which must be below `end()`).
    #[inline]
    pub fn band_of(&self, offset: u64) -> usize {
        match &self.sizes {
            Sizes::Fixed(size) => (offset / size) as usize,
            Sizes::Random(starts) => starts.partition_point(|&s| s <= offset) - 1,
        }
    }

    /// Byte range of band `index`.
    pub fn band(&self, index: usize) -> Range<u64> {
        match &self.sizes {
            Sizes::Fixed(size) => index as u64 * size..(index as u64 + 1) * size,
            Sizes::Random(starts) => starts[index]..starts[index + 1],
        }
    }

    pub fn count(&self) -> usize {
        match &self.sizes {
            Sizes::Fixed(size) => (self.end / size) as usize,
            Sizes::Random(starts) => starts.len() - 1,
        }
    }

    /// One past the last byte of the last band.
    pub fn end(&self) -> u64 {
        self.end
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn fixed_bands() {
        let l = BandLayout::fixed(1 << 20, 10 << 20);
        assert_eq!(l.count(), 10);
        assert_eq!(l.band_of((3 << 20) + 5), 3);
        assert_eq!(l.band(3), 3 << 20..4 << 20);
    }

    proptest! {
        #[test]
        fn random_bands_tile_the_space_within_bounds(seed in 0u64..1000, probe in 0u64..(1u64 << 32)) {
            let l = BandLayout::random(17 * MB, 36 * MB, 1 << 32, seed);
            prop_assert!(l.end() >= 1 << 32);
            let b = l.band_of(probe);
            let r = l.band(b);
            prop_assert!(r.contains(&probe));
            prop_assert!(r.end - r.start >= 17 * MB / 4096 * 4096 && r.end - r.start <= 36 * MB);
            prop_assert_eq!(r.start % 4096, 0);
            if b + 1 < l.count() { prop_assert_eq!(l.band(b + 1).start, r.end); }
        }
    }

    #[test]
    fn random_sizes_are_seeded_and_uniform() {
        let a = BandLayout::random(17 * MB, 36 * MB, 100 << 30, 1);
        assert_eq!(a, BandLayout::random(17 * MB, 36 * MB, 100 << 30, 1));
        assert_ne!(a, BandLayout::random(17 * MB, 36 * MB, 100 << 30, 2));
        let mean = a.end() as f64 / a.count() as f64;
        assert!((mean / MB as f64 - 26.5).abs() < 0.5, "mean band {mean}");
    }

    #[test]
    fn bad_params() {
        let mut p = Params::parse(&["band_min=40MB"]).unwrap();
        assert_eq!(BandLayout::from_params(&mut p, 1 << 30, 0).unwrap_err().param, "band_min");
    }
}
