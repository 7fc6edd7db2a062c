//! The bookkeeping of a FIFO persistent write buffer (media cache) at 4 KiB-block granularity:
//! which blocks it holds, in which order they arrived, and which band each belongs to.
//!
//! A write to a block already held updates it in place (no new FIFO position). Cleaning removes
//! every held block of one band at once, so FIFO entries are deleted lazily: each entry carries
//! the sequence number it was inserted with and is live only if its band has not been cleaned
//! since (an array lookup per band instead of a hash probe per entry). Used by the `Dmsmr`
//! system and by the §III-A estimate. Not here: I/O or timing.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

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

#[derive(Debug, Default)]
pub struct FifoBuffer {
    capacity: u64,
    /// (block, band, sequence number) in arrival order, including entries of cleaned bands.
    fifo: VecDeque<(u64, usize, u64)>,
    /// block → sequence number of its live FIFO entry.
    held: FxHashMap<u64, u64>,
    /// band → blocks held for it (in arrival order); indexed densely by band number.
    by_band: Vec<Vec<u64>>,
    /// band → the sequence number from which its entries are live (the next one at its last
    /// cleaning); entries older than that were taken with the band.
    live_from: Vec<u64>,
    next_seq: u64,
}

impl FifoBuffer {
    /// A buffer of `capacity` blocks (at least one) in front of `bands` bands.
    pub fn new(capacity: u64, bands: usize) -> Self {
        FifoBuffer { capacity: capacity.max(1), by_band: vec![Vec::new(); bands], live_from: vec![0; bands], ..Default::default() }
    }

    pub fn capacity(&self) -> u64 {
        self.capacity
    }

    pub fn len(&self) -> u64 {
        self.held.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.held.is_empty()
    }

    pub fn is_full(&self) -> bool {
        self.len() >= self.capacity
    }

    #[cfg(test)]
    pub fn contains(&self, block: u64) -> bool {
        self.held.contains_key(&block)
    }

    /// The arrival number of `block`'s held copy (0 for the first block ever added, counting
    /// only additions, not in-place updates), or None if it is not held.
    #[inline]
    pub fn arrival_of(&self, block: u64) -> Option<u64> {
        self.held.get(&block).copied()
    }

    /// Adds `block` of `band` if it is held already (an in-place update) or there is room, with
    /// one hash probe, and says as which arrival it is held; `Full` asks the caller to clean a
    /// band first.
    #[inline]
    pub fn insert(&mut self, block: u64, band: usize) -> Insert {
        let full = self.is_full();
        let seq = self.next_seq;
        match self.held.entry(block) {
            std::collections::hash_map::Entry::Occupied(held) => return Insert::Updated(*held.get()),
            std::collections::hash_map::Entry::Vacant(_) if full => return Insert::Full,
            std::collections::hash_map::Entry::Vacant(slot) => slot.insert(seq),
        };
        self.next_seq += 1;
        self.fifo.push_back((block, band, seq));
        self.by_band[band].push(block);
        Insert::Added(seq)
    }

    /// The oldest block still held.
    pub fn oldest(&mut self) -> Option<u64> {
        while let Some(&(block, band, seq)) = self.fifo.front() {
            if seq >= self.live_from[band] {
                return Some(block);
            }
            self.fifo.pop_front();
        }
        None
    }

    /// Removes every block held for `band` and returns how many there were. The band's list
    /// keeps up to `KEPT_ALLOCATION` blocks of room for its next blocks, so a cleaning does not
    /// free what the band's next writes allocate again.
    pub fn take_band(&mut self, band: usize) -> u64 {
        const KEPT_ALLOCATION: usize = 64;
        let blocks = &mut self.by_band[band];
        for b in blocks.iter() {
            self.held.remove(b);
        }
        let taken = blocks.len() as u64;
        blocks.clear();
        blocks.shrink_to(KEPT_ALLOCATION);
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
        self.held.clear();
        self.by_band.iter_mut().for_each(Vec::clear);
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
        b.take_band(1);
        assert!(!b.contains(12) && b.contains(20));
        assert_eq!(b.oldest(), Some(20));
        assert_eq!(b.insert(10, 1), Insert::Added(4), "re-inserted after cleaning goes to the back");
        assert_eq!(b.take_band(2), 1);
        assert!(!b.contains(20));
        assert_eq!(b.oldest(), Some(10));
    }

    proptest! {
        #[test]
        fn never_over_capacity_and_oldest_is_first_live(ops in proptest::collection::vec(0u64..64, 1..400)) {
            let band_of = |blk: u64| (blk / 8) as usize;
            let mut b = FifoBuffer::new(10, 8);
            let mut order: Vec<u64> = Vec::new();
            for blk in ops {
                if !b.contains(blk) && b.is_full() {
                    let victim = b.oldest().unwrap();
                    prop_assert_eq!(Some(&victim), order.first());
                    let band = band_of(victim);
                    let before = order.len();
                    order.retain(|x| band_of(*x) != band);
                    prop_assert_eq!(b.take_band(band), (before - order.len()) as u64);
                    prop_assert!(!b.contains(victim));
                }
                if matches!(b.insert(blk, band_of(blk)), Insert::Added(_)) { order.push(blk); }
                prop_assert!(b.len() <= b.capacity());
                prop_assert_eq!(b.len() as usize, order.len());
            }
        }
    }
}
