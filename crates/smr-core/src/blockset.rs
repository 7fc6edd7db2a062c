//! A set of block numbers for large, clustered address spaces: blocks are grouped in chunks of
//! 4096 consecutive blocks, in a hash map keyed by chunk number. A chunk holding few blocks keeps
//! them as a sorted list of 2-byte offsets; one that would need more than a bitmap's 512 bytes
//! that way becomes a bitmap. So memory is at most about 2 bytes per block plus a small cost per
//! touched chunk (16 MiB of address space at 4 KiB blocks), never proportional to the span, and
//! scattered single blocks do not each cost a whole bitmap.
//!
//! Written here (rather than taking a roaring-bitmap crate) because smrlab needs only insert,
//! contains, count and the touched groups of blocks in order (chunk by chunk), and this keeps
//! the hot path of trace statistics to one hash lookup and one bit operation per block in dense
//! areas.

use rustc_hash::FxHashMap;

const CHUNK_BITS: u32 = 12;
const CHUNK_BLOCKS: u64 = 1 << CHUNK_BITS;
const WORDS: usize = (1 << CHUNK_BITS) / 64;
/// The most offsets a sparse chunk lists: as many bytes as a bitmap.
const SPARSE_MAX: usize = WORDS * 8 / 2;

type Bitmap = [u64; WORDS];

#[derive(Clone, Debug)]
enum Chunk {
    /// Sorted offsets within the chunk.
    Sparse(Vec<u16>),
    Dense(Box<Bitmap>),
}

impl Chunk {
    /// Adds the offsets `from..to` of this chunk; returns how many were present already.
    fn insert_range(&mut self, from: u64, to: u64) -> u64 {
        if let Chunk::Sparse(offsets) = self {
            let start = offsets.partition_point(|&o| (o as u64) < from);
            let present = offsets[start..].iter().take_while(|&&o| (o as u64) < to).count();
            let fresh = (to - from) as usize - present;
            if offsets.len() + fresh <= SPARSE_MAX {
                // Offsets ascend and so do their places: each is found at its place or
                // inserted there.
                for (at, offset) in (start..).zip(from as u16..to as u16) {
                    if offsets.get(at) != Some(&offset) {
                        offsets.insert(at, offset);
                    }
                }
                return present as u64;
            }
            *self = Chunk::Dense(Box::new(self.bitmap()));
        }
        let Chunk::Dense(words) = self else { unreachable!("made dense above") };
        // A word at a time: the range's bits in each word it covers, as one mask.
        let mut present = 0;
        let mut bit = from;
        while bit < to {
            let word = (bit / 64) as usize;
            let word_end = (to - word as u64 * 64).min(64);
            let mask = (u64::MAX >> (64 - (word_end - bit % 64))) << (bit % 64);
            present += (words[word] & mask).count_ones() as u64;
            words[word] |= mask;
            bit = word as u64 * 64 + word_end;
        }
        present
    }

    fn contains(&self, bit: u64) -> bool {
        match self {
            Chunk::Sparse(offsets) => offsets.binary_search(&(bit as u16)).is_ok(),
            Chunk::Dense(words) => words[(bit / 64) as usize] & (1u64 << (bit % 64)) != 0,
        }
    }

    /// The chunk as a bitmap.
    fn bitmap(&self) -> Bitmap {
        match self {
            Chunk::Sparse(offsets) => {
                let mut words = [0u64; WORDS];
                for &o in offsets {
                    words[o as usize / 64] |= 1 << (o % 64);
                }
                words
            }
            Chunk::Dense(words) => **words,
        }
    }

    /// The lowest and highest offset held (a chunk is never empty).
    fn bounds(&self) -> (u64, u64) {
        match self {
            Chunk::Sparse(offsets) => (offsets[0] as u64, offsets[offsets.len() - 1] as u64),
            Chunk::Dense(words) => {
                let first = words.iter().position(|&w| w != 0).expect("a chunk is never empty");
                let last = words.iter().rposition(|&w| w != 0).expect("a chunk is never empty");
                (
                    first as u64 * 64 + words[first].trailing_zeros() as u64,
                    last as u64 * 64 + 63 - words[last].leading_zeros() as u64,
                )
            }
        }
    }
}

#[derive(Clone, Debug, Default)]
pub struct BlockSet {
    chunks: FxHashMap<u64, Chunk>,
    len: u64,
}

impl BlockSet {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `block`; returns true if it was not present.
    #[inline]
    pub fn insert(&mut self, block: u64) -> bool {
        self.insert_range(block..block + 1) == 0
    }

    /// Adds every block of `blocks` with one hash lookup per chunk they touch; returns how many
    /// of them were present already.
    #[inline]
    pub fn insert_range(&mut self, blocks: std::ops::Range<u64>) -> u64 {
        let mut present = 0;
        let mut at = blocks.start;
        while at < blocks.end {
            let chunk_end = ((at >> CHUNK_BITS) + 1) << CHUNK_BITS;
            let end = chunk_end.min(blocks.end);
            let chunk = self.chunks.entry(at >> CHUNK_BITS).or_insert_with(|| Chunk::Sparse(Vec::new()));
            present += chunk.insert_range(at % CHUNK_BLOCKS, end - (chunk_end - CHUNK_BLOCKS));
            at = end;
        }
        self.len += blocks.end.saturating_sub(blocks.start) - present;
        present
    }

    #[inline]
    pub fn contains(&self, block: u64) -> bool {
        self.chunks.get(&(block >> CHUNK_BITS)).is_some_and(|c| c.contains(block % CHUNK_BLOCKS))
    }

    /// Number of blocks in the set.
    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Number of blocks in `self ∪ other`.
    pub fn union_len(&self, other: &BlockSet) -> u64 {
        let mut total = self.len;
        for (key, theirs) in &other.chunks {
            let theirs = theirs.bitmap();
            total += match self.chunks.get(key) {
                None => theirs.iter().map(|w| w.count_ones() as u64).sum::<u64>(),
                Some(ours) => ours.bitmap().iter().zip(theirs.iter()).map(|(a, b)| (b & !a).count_ones() as u64).sum(),
            };
        }
        total
    }

    /// The groups of `grain` consecutive blocks (a power of two from 1 to 4096; group `g` holds
    /// blocks `g * grain..(g + 1) * grain`) that hold a block of any of `sets`, as ascending,
    /// maximal runs `(first group, groups)`. Works chunk by chunk in key order, so it costs the
    /// number of touched chunks, not of blocks or runs, and allocates only the output.
    pub fn grain_runs(sets: &[&BlockSet], grain: u64) -> Vec<(u64, u64)> {
        assert!(grain.is_power_of_two() && grain <= 1 << CHUNK_BITS, "grain of {grain} blocks");
        let mut keys: Vec<u64> = sets.iter().flat_map(|set| set.chunks.keys().copied()).collect();
        keys.sort_unstable();
        keys.dedup();
        let grains_per_chunk = (1u64 << CHUNK_BITS) / grain;
        let mut runs: Vec<(u64, u64)> = Vec::new();
        let mut add = |group: u64| match runs.last_mut() {
            Some((first, count)) if *first + *count == group => *count += 1,
            _ => runs.push((group, 1)),
        };
        for key in keys {
            let mut words = [0u64; WORDS];
            for chunk in sets.iter().filter_map(|set| set.chunks.get(&key)) {
                words.iter_mut().zip(chunk.bitmap().iter()).for_each(|(w, c)| *w |= c);
            }
            let first_group = key * grains_per_chunk;
            if grain >= 64 {
                let words_per_grain = (grain / 64) as usize;
                for (i, group) in words.chunks(words_per_grain).enumerate() {
                    if group.iter().any(|&w| w != 0) {
                        add(first_group + i as u64);
                    }
                }
            } else {
                let mask = (1u64 << grain) - 1;
                let per_word = 64 / grain;
                for (i, &word) in words.iter().enumerate().filter(|(_, &w)| w != 0) {
                    for k in 0..per_word {
                        if (word >> (k * grain)) & mask != 0 {
                            add(first_group + i as u64 * per_word + k);
                        }
                    }
                }
            }
        }
        runs
    }

    /// The lowest and highest block in the set.
    pub fn bounds(&self) -> Option<(u64, u64)> {
        let lo_key = *self.chunks.keys().min()?;
        let hi_key = *self.chunks.keys().max()?;
        let (first, _) = self.chunks[&lo_key].bounds();
        let (_, last) = self.chunks[&hi_key].bounds();
        Some(((lo_key << CHUNK_BITS) + first, (hi_key << CHUNK_BITS) + last))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        #[test]
        fn behaves_like_a_set(a in proptest::collection::vec(0u64..1_000_000, 0..300), b in proptest::collection::vec(0u64..1_000_000, 0..300)) {
            let (mut sa, mut sb) = (BlockSet::new(), BlockSet::new());
            let (mut ra, mut rb) = (BTreeSet::new(), BTreeSet::new());
            for x in &a { prop_assert_eq!(sa.insert(*x), ra.insert(*x)); }
            for x in &b { sb.insert(*x); rb.insert(*x); }
            prop_assert_eq!(sa.len(), ra.len() as u64);
            prop_assert_eq!(sa.union_len(&sb), ra.union(&rb).count() as u64);
            prop_assert_eq!(sa.bounds(), ra.first().map(|lo| (*lo, *ra.last().unwrap())));
            for grain in [1u64, 16, 64, 256, 4096] {
                let runs = BlockSet::grain_runs(&[&sa, &sb], grain);
                let expanded: Vec<u64> = runs.iter().flat_map(|&(first, count)| first..first + count).collect();
                let groups: BTreeSet<u64> = ra.union(&rb).map(|b| b / grain).collect();
                prop_assert_eq!(expanded, groups.into_iter().collect::<Vec<_>>());
                prop_assert!(runs.windows(2).all(|w| w[0].0 + w[0].1 < w[1].0), "runs are maximal");
            }
            for x in 0..50u64 { prop_assert_eq!(sa.contains(x * 20_000), ra.contains(&(x * 20_000))); }
        }

        /// Many single blocks in two chunks, so that chunks turn from lists into bitmaps midway.
        #[test]
        fn lists_turn_into_bitmaps_without_losing_a_block(blocks in proptest::collection::vec(0u64..8192, 0..1500)) {
            let (mut set, mut model) = (BlockSet::new(), BTreeSet::new());
            for b in blocks {
                prop_assert_eq!(set.insert(b), model.insert(b));
            }
            prop_assert_eq!(set.len(), model.len() as u64);
            prop_assert_eq!(set.bounds(), model.first().map(|lo| (*lo, *model.last().unwrap())));
            for b in 0..8192 {
                prop_assert_eq!(set.contains(b), model.contains(&b));
            }
            let expanded: Vec<u64> = BlockSet::grain_runs(&[&set], 1).iter().flat_map(|&(first, count)| first..first + count).collect();
            prop_assert_eq!(expanded, model.into_iter().collect::<Vec<_>>());
        }

        /// Ranges, some crossing chunk borders (4096 blocks), against one insert per block.
        #[test]
        fn ranges_insert_what_single_inserts_do(ranges in proptest::collection::vec((0u64..12_000, 0u64..5_000), 0..12)) {
            let (mut by_range, mut model) = (BlockSet::new(), BTreeSet::new());
            for (start, len) in ranges {
                let present = (start..start + len).filter(|b| model.contains(b)).count() as u64;
                prop_assert_eq!(by_range.insert_range(start..start + len), present);
                model.extend(start..start + len);
                prop_assert_eq!(by_range.len(), model.len() as u64);
            }
            let expanded: Vec<u64> = BlockSet::grain_runs(&[&by_range], 1).iter().flat_map(|&(first, count)| first..first + count).collect();
            prop_assert_eq!(expanded, model.into_iter().collect::<Vec<_>>());
        }
    }
}
