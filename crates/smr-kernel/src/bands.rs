//! The band layout of a shingled disk: consecutive bands over the logical address space, either
//! of uniformly random sizes in [min, max] (the PORE emulator: 17–36 MB, §V-A) or of one fixed
//! size (to compare with tools that use fixed bands). A kernel part because a disk builds it and
//! a cache stacked over the disk may read it (`System::bands`).
//!
//! Band sizes are whole 4 KiB blocks. `band_of` looks a byte up in a stretch index over band
//! starts (random sizes) or divides (fixed size); `BandCursor` finds the bands of a request's
//! ascending blocks with one lookup per band they touch. Not here: what happens in a band (a
//! system's business), or the parameters that choose a layout (the system that has bands
//! declares them).

use std::ops::Range;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use smr_core::stretch_index::StretchIndex;
use smr_core::units::BLOCK_4K;

#[derive(Clone, Debug, PartialEq)]
enum Sizes {
    Fixed(u64),
    /// `starts[i]` is band i's first byte; `starts[len-1]` is the end of the last band.
    /// `index` finds a byte's band without a binary search over thousands of starts.
    Random {
        starts: Vec<u64>,
        index: StretchIndex,
    },
}

/// Finds the band of each of a run of nearby offsets, looking the layout up again only for an
/// offset outside the band found last (a request's blocks mostly share one band).
#[derive(Clone, Debug, Default)]
pub struct BandCursor {
    band: usize,
    range: Range<u64>,
}

impl BandCursor {
    /// The band holding byte `offset` of `layout` (which must be below `layout.end()`).
    #[inline(always)]
    pub fn band_of(&mut self, layout: &BandLayout, offset: u64) -> usize {
        if !self.range.contains(&offset) {
            self.band = layout.band_of(offset);
            self.range = layout.band(self.band);
        }
        self.band
    }
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
        let index = StretchIndex::new(&starts, min * BLOCK_4K);
        BandLayout { sizes: Sizes::Random { starts, index }, end: at }
    }

    /// The band holding byte `offset` (which must be below `end()`).
    #[inline]
    pub fn band_of(&self, offset: u64) -> usize {
        match &self.sizes {
            Sizes::Fixed(size) => (offset / size) as usize,
            Sizes::Random { starts, index } => index.find(starts, offset),
        }
    }

    /// Byte range of band `index`.
    pub fn band(&self, index: usize) -> Range<u64> {
        match &self.sizes {
            Sizes::Fixed(size) => index as u64 * size..(index as u64 + 1) * size,
            Sizes::Random { starts, .. } => starts[index]..starts[index + 1],
        }
    }

    pub fn count(&self) -> usize {
        match &self.sizes {
            Sizes::Fixed(size) => (self.end / size) as usize,
            Sizes::Random { starts, .. } => starts.len() - 1,
        }
    }

    /// Capacity of the bands that `extents` (ascending, disjoint byte extents, as in
    /// `Footprint`) touch: how the PORE paper measures a trace's LBA range (Table I). An extent
    /// that straddles a band border counts both bands. `None` when there are no extents.
    pub fn touched_capacity(&self, extents: &[(u64, u64)]) -> Option<u64> {
        let last_byte = self.end.checked_sub(1)?;
        let mut next_uncounted = 0usize;
        let mut total = None;
        for &(offset, len) in extents.iter().filter(|(_, len)| *len > 0) {
            let first = self.band_of(offset.min(last_byte)).max(next_uncounted);
            let last = self.band_of((offset + len - 1).min(last_byte));
            for band in first..=last {
                let r = self.band(band);
                *total.get_or_insert(0) += r.end - r.start;
            }
            next_uncounted = next_uncounted.max(last + 1);
        }
        total
    }

    /// A trace's range as the PORE paper measures it: the capacity of the bands its `extents`
    /// touch, or `union_bytes` (the union of its blocks) for a footprint without extents.
    pub fn range_bytes(&self, extents: &[(u64, u64)], union_bytes: u64) -> u64 {
        self.touched_capacity(extents).unwrap_or(union_bytes)
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
    use smr_core::units::MB;

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

    proptest! {
        /// A cursor answers as the layout does, for offsets in any order (a request's own
        /// ascend; a cursor reused across requests jumps back and forth).
        #[test]
        fn the_cursor_finds_the_layouts_band(seed in 0u64..100, offsets in proptest::collection::vec(0u64..(1u64 << 30), 1..50)) {
            for layout in [BandLayout::random(17 * MB, 36 * MB, 1 << 30, seed), BandLayout::fixed(20 * MB, 1 << 30)] {
                let mut cursor = BandCursor::default();
                for &offset in &offsets {
                    prop_assert_eq!(cursor.band_of(&layout, offset), layout.band_of(offset));
                    prop_assert_eq!(cursor.band_of(&layout, offset + 4096), layout.band_of(offset + 4096));
                }
            }
        }
    }

    #[test]
    fn touched_capacity_counts_each_touched_band_once() {
        let (l, k) = (BandLayout::fixed(1 << 20, 10 << 20), 64 << 10);
        assert_eq!(l.touched_capacity(&[]), None);
        // Bands 0 (three extents, the last straddling into band 1), 1 and 5.
        let extents = [(0, k), (8 * k, k), (15 * k, 2 * k), (80 * k, k)];
        assert_eq!(l.touched_capacity(&extents), Some(3 << 20));
        // Past the last band: counted as the last band.
        assert_eq!(l.touched_capacity(&[(20 << 20, k)]), Some(1 << 20));
    }

    proptest! {
        #[test]
        fn touched_capacity_is_the_size_of_the_bands_holding_a_touched_byte(
            seed in 0u64..100,
            grains in proptest::collection::btree_set(0u64..4096, 1..40),
        ) {
            let grain = 64u64 << 10;
            let l = BandLayout::random(MB / 2, 2 * MB, 4096 * grain, seed);
            let extents: Vec<(u64, u64)> = grains.iter().map(|g| (g * grain, grain)).collect();
            let mut touched = std::collections::BTreeSet::new();
            for &(offset, len) in &extents {
                touched.insert(l.band_of(offset));
                touched.insert(l.band_of(offset + len - 1));
            }
            let expected: u64 = touched.iter().map(|&b| l.band(b).end - l.band(b).start).sum();
            prop_assert_eq!(l.touched_capacity(&extents), Some(expected));
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
}
