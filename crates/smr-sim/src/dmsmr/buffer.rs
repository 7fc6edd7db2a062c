//! The bookkeeping of a FIFO persistent write buffer (media cache) at 4 KiB-block granularity:
//! which blocks it holds, in which order they arrived, and which band each belongs to.
//!
//! A write to a block already held updates it in place (no new FIFO position). Cleaning removes
//! every held block of one band at once, so the held blocks are kept in one small map per band
//! (block → arrival number): a cleaning empties its band's map in one step instead of removing
//! each block from a map of the whole buffer (a hash probe per block, the larger part of a
//! cleaning's bookkeeping), and every lookup names the block's band. FIFO entries are deleted
//! lazily: each entry carries the sequence number it was inserted with and is live only if its
//! band has not been cleaned since (an array lookup per band instead of a hash probe per entry).
//! A cleaning frees its band's map, and the band's next write sizes the new one for as many
//! blocks as the cleaning took: a band tends to gather about as many blocks each time, so its
//! map is mostly allocated once per fill instead of regrown (and rehashed) as it fills, and only
//! bands that hold blocks keep memory. (Room for half as many again saved a little more work
//! but, as tables grow in powers of two, took 7 % more peak heap in a dmsmr replay.)
//! A cleaning hands back the arrival numbers of the blocks it took, so that the disk can read
//! them where the log holds them. Used by the `Dmsmr` system and by the §III-A estimate. Not
//! here: I/O or timing.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;
use strength_reduce::StrengthReducedU64;

/// What `FifoBuffer::insert` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Insert {
    /// The block was new and took a place at the back, as this arrival.
    Added(u64),
    /// The block was held already, as this arrival, and is updated in place.
    Updated(u64),
    /// The block is new and the buffer is full: nothing was done.
    Full,
}

#[derive(Debug)]
pub struct FifoBuffer {
    capacity: u64,
    /// `capacity` as a divisor by multiplication: every write and every buffered block read
    /// finds its place in the log with it (`log_slot`), and a hardware division takes tens of
    /// cycles on many CPUs.
    capacity_divisor: StrengthReducedU64,
    /// (block, band, sequence number) in arrival order, including entries of cleaned bands.
    fifo: VecDeque<(u64, usize, u64)>,
    /// band → its held blocks, each with the sequence number of its live FIFO entry; indexed
    /// densely by band number.
    by_band: Vec<FxHashMap<u64, u64>>,
    /// Blocks held, over all bands.
    held: u64,
    /// band → the sequence number from which its entries are live (the next one at its last
    /// cleaning); entries older than that were taken with the band.
    live_from: Vec<u64>,
    /// band → the blocks its last cleaning took, from which its next map is sized.
    last_taken: Vec<u32>,
    next_seq: u64,
}

impl FifoBuffer {
    /// A buffer of `capacity` blocks (at least one) in front of `bands` bands.
    pub fn new(capacity: u64, bands: usize) -> Self {
        let mut by_band = Vec::new();
        by_band.resize_with(bands, FxHashMap::default);
        let capacity = capacity.max(1);
        FifoBuffer {
            capacity,
            capacity_divisor: StrengthReducedU64::new(capacity),
            fifo: VecDeque::new(),
            by_band,
            held: 0,
            live_from: vec![0; bands],
            last_taken: vec![0; bands],
            next_seq: 0,
        }
    }

    /// The slot of the buffer's circular log that the block arriving `arrival`-th was written
    /// to: arrivals fill the log in order and wrap around.
    #[inline]
    pub fn log_slot(&self, arrival: u64) -> u64 {
        arrival % self.capacity_divisor
    }

    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    pub fn len(&self) -> u64 {
        self.held
    }

    pub fn is_empty(&self) -> bool {
        self.held == 0
    }

    pub fn is_full(&self) -> bool {
        self.len() >= self.capacity
    }

    #[cfg(test)]
    pub fn contains(&self, block: u64, band: usize) -> bool {
        self.by_band[band].contains_key(&block)
    }

    /// The arrival number of `block`'s held copy (0 for the first block ever added, counting
    /// only additions, not in-place updates), or None if it is not held; `band` is its band.
    #[inline]
    pub fn arrival_of(&self, block: u64, band: usize) -> Option<u64> {
        self.by_band[band].get(&block).copied()
    }

    /// Adds `block` of `band` if it is held already (an in-place update) or there is room, with
    /// one hash probe, and says as which arrival it is held; `Full` asks the caller to clean a
    /// band first.
    #[inline]
    pub fn insert(&mut self, block: u64, band: usize) -> Insert {
        let full = self.is_full();
        let seq = self.next_seq;
        let blocks = &mut self.by_band[band];
        if blocks.capacity() == 0 {
            blocks.reserve(self.last_taken[band] as usize);
        }
        match blocks.entry(block) {
            std::collections::hash_map::Entry::Occupied(held) => return Insert::Updated(*held.get()),
            std::collections::hash_map::Entry::Vacant(_) if full => return Insert::Full,
            std::collections::hash_map::Entry::Vacant(slot) => slot.insert(seq),
        };
        self.next_seq += 1;
        self.held += 1;
        self.fifo.push_back((block, band, seq));
        Insert::Added(seq)
    }

    /// The oldest block still held, with its band.
    pub fn oldest(&mut self) -> Option<(u64, usize)> {
        while let Some(&(block, band, seq)) = self.fifo.front() {
            if seq >= self.live_from[band] {
                return Some((block, band));
            }
            self.fifo.pop_front();
        }
        None
    }

    /// Removes every block held for `band`, puts their arrival numbers in `arrivals` (cleared
    /// first; in no particular order) and returns how many there were; its map is freed (see
    /// the module documentation for how the next one is sized).
    pub fn take_band(&mut self, band: usize, arrivals: &mut Vec<u64>) -> u64 {
        arrivals.clear();
        arrivals.extend(std::mem::take(&mut self.by_band[band]).into_values());
        let taken = arrivals.len() as u64;
        self.last_taken[band] = taken.min(u32::MAX as u64) as u32;
        self.held -= taken;
        self.live_from[band] = self.next_seq;
        taken
    }

    /// The bands that have blocks held, in band order.
    pub fn bands(&self) -> impl Iterator<Item = usize> + '_ {
        self.by_band.iter().enumerate().filter(|(_, b)| !b.is_empty()).map(|(i, _)| i)
    }

    /// Empties the buffer.
    pub fn clear(&mut self) {
        self.fifo.clear();
        self.live_from.iter_mut().for_each(|s| *s = self.next_seq);
        self.by_band.iter_mut().for_each(FxHashMap::clear);
        self.held = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn fifo_with_in_place_updates_and_band_removal() {
        let mut b = FifoBuffer::new(4, 4);
        assert_eq!(b.insert(10, 1), Insert::Added(0));
        assert_eq!(b.insert(20, 2), Insert::Added(1));
        assert_eq!(b.insert(10, 1), Insert::Updated(0), "update in place");
        assert_eq!(b.insert(11, 1), Insert::Added(2));
        assert_eq!(b.insert(12, 1), Insert::Added(3));
        assert_eq!(b.insert(13, 1), Insert::Full);
        assert_eq!(b.insert(12, 1), Insert::Updated(3), "a full buffer still updates in place");
        let mut arrivals = Vec::new();
        assert_eq!(b.take_band(1, &mut arrivals), 3);
        arrivals.sort_unstable();
        assert_eq!(arrivals, [0, 2, 3], "the arrivals of blocks 10, 11 and 12");
        assert!(!b.contains(12, 1) && b.contains(20, 2));
        assert_eq!(b.oldest(), Some((20, 2)));
        assert_eq!(b.insert(10, 1), Insert::Added(4), "re-inserted after cleaning goes to the back");
        assert_eq!(b.take_band(2, &mut arrivals), 1);
        assert_eq!(arrivals, [1]);
        assert!(!b.contains(20, 2));
        assert_eq!(b.oldest(), Some((10, 1)));
    }

    /// A cleaning frees its band's map; the band's next write sizes one for as many blocks as
    /// that cleaning took, so refilling to the same count does not regrow it.
    #[test]
    fn a_cleaned_band_keeps_no_memory_and_refills_without_regrowing() {
        let mut b = FifoBuffer::new(1_000, 2);
        for block in 0..100 {
            b.insert(block, 1);
        }
        assert_eq!(b.take_band(1, &mut Vec::new()), 100);
        assert_eq!(b.by_band[1].capacity(), 0, "the cleaned band's map is freed");
        b.insert(500, 1);
        let sized = b.by_band[1].capacity();
        assert!(sized >= 100, "sized for 100 blocks, got {sized}");
        for block in 501..600 {
            b.insert(block, 1);
        }
        assert_eq!(b.by_band[1].capacity(), sized, "refilled to 100 blocks without regrowing");
    }

    proptest! {
        /// Arrivals fill the circular log in order and wrap around at its capacity.
        #[test]
        fn the_log_slot_counts_arrivals_around_the_log(capacity in 1u64..1 << 40, arrival in any::<u64>()) {
            let b = FifoBuffer::new(capacity, 1);
            prop_assert_eq!(b.log_slot(arrival), arrival % capacity);
        }

        #[test]
        fn never_over_capacity_and_oldest_is_first_live(ops in proptest::collection::vec(0u64..64, 1..400)) {
            let band_of = |blk: u64| (blk / 8) as usize;
            let mut b = FifoBuffer::new(10, 8);
            let mut order: Vec<u64> = Vec::new();
            for blk in ops {
                if !b.contains(blk, band_of(blk)) && b.is_full() {
                    let (victim, band) = b.oldest().unwrap();
                    prop_assert_eq!(Some(&victim), order.first());
                    prop_assert_eq!(band, band_of(victim));
                    let before = order.len();
                    order.retain(|x| band_of(*x) != band);
                    prop_assert_eq!(b.take_band(band, &mut Vec::new()), (before - order.len()) as u64);
                    prop_assert!(!b.contains(victim, band));
                }
                if matches!(b.insert(blk, band_of(blk)), Insert::Added(_)) { order.push(blk); }
                prop_assert!(b.len() <= b.capacity());
                prop_assert_eq!(b.len() as usize, order.len());
            }
        }
    }
}
