//! The MEM write buffer's bookkeeping (§2.3, §4.3): which blocks it holds, which parts of each
//! the host has written, and which blocks to evict when it is full. Used by both HWSR and the
//! S-block baseline; what an eviction costs on the disk is theirs.
//!
//! Replacement policies (the kernel's, `kernel::policy`), each evicting blocks of one segment
//! only, so that one segment rewrite (or one S-block destage) takes them all:
//! - `lru-block`: the least recently used block alone (one rewrite per evicted block; the
//!   kernel's `lru`);
//! - `lru-segment`: every buffered block of the segment used least recently (a segment's
//!   recency is its most recently used block's);
//! - `lwa` (Fig. 5, Fig. 10): in a lookup window of the `window` least recently used blocks,
//!   the segment with the most blocks; its blocks in the window go (ties: the segment whose
//!   block lies nearest the tail);
//! - `most-blocks`: S-block's group destage (§4.1), every buffered block of the segment with the
//!   most buffered blocks (ties: the segment that has had that count longest).
//!
//! A user's own policy (written in Python, docs/policies.md) may order the buffer too: the
//! kernel checks that each eviction it chooses takes blocks of one segment only.
//!
//! A hit (a read or a write of a buffered block) makes a block most recently used. Blocks are
//! whole cache blocks; what the host wrote of each is kept in 64 units (`Units`), so a block
//! written only in part is merged with its older version when it leaves. Not here: the map
//! from blocks to slots (`Hybrid`), I/O or timing.

use smr_kernel::metrics::Counters;
use smr_kernel::policy::Policy;
use smr_kernel::slots::SlotPool;
use smr_kernel::SimError;

/// A block cut into at most 64 equal units of whole sectors: what the host wrote of a buffered
/// block, as a bit per unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Units {
    unit_bytes: u64,
    count: u32,
}

impl Units {
    /// Units of a block of `block_bytes` (a whole number of 512-byte sectors).
    pub fn of_block(block_bytes: u64) -> Self {
        let sectors = block_bytes / 512;
        let unit_bytes = sectors.div_ceil(64) * 512;
        Units { unit_bytes, count: block_bytes.div_ceil(unit_bytes) as u32 }
    }

    /// Every unit.
    pub fn all(&self) -> u64 {
        if self.count == 64 {
            u64::MAX
        } else {
            (1 << self.count) - 1
        }
    }

    /// Units wholly inside bytes `[from, to)` of the block.
    pub fn covered(&self, from: u64, to: u64) -> u64 {
        let first = from.div_ceil(self.unit_bytes);
        let last = if to >= self.unit_bytes * self.count as u64 { self.count as u64 } else { to / self.unit_bytes };
        self.range(first, last)
    }

    /// Units that bytes `[from, to)` of the block overlap.
    pub fn touched(&self, from: u64, to: u64) -> u64 {
        self.range(from / self.unit_bytes, to.div_ceil(self.unit_bytes).min(self.count as u64))
    }

    fn range(&self, first: u64, last: u64) -> u64 {
        if last <= first {
            return 0;
        }
        let upto = if last >= 64 { u64::MAX } else { (1 << last) - 1 };
        upto & !((1u64 << first) - 1)
    }
}

/// The MEM write buffer: `capacity` block slots.
pub struct MemBuffer {
    blocks: Vec<u64>,
    written: Vec<u64>,
    slots: SlotPool,
    /// Behind a pointer rather than a type parameter: a few calls per block against a
    /// segment rewrite per eviction.
    policy: Box<dyn Policy>,
    blocks_per_segment: u64,
}

impl MemBuffer {
    /// A buffer of `capacity` blocks ordered by `policy`, built for that many slots.
    pub fn new(capacity: usize, policy: Box<dyn Policy>, blocks_per_segment: u64) -> Self {
        MemBuffer {
            blocks: vec![0; capacity],
            written: vec![0; capacity],
            slots: SlotPool::new(capacity),
            policy,
            blocks_per_segment,
        }
    }

    pub fn capacity(&self) -> usize {
        self.slots.capacity()
    }

    pub fn held(&self) -> usize {
        self.capacity() - self.slots.available()
    }

    pub fn is_full(&self) -> bool {
        self.slots.available() == 0
    }

    pub fn segment_of(&self, block: u64) -> u64 {
        block / self.blocks_per_segment
    }

    pub fn block(&self, slot: u32) -> u64 {
        self.blocks[slot as usize]
    }

    /// The units of the slot's block the host has written.
    pub fn written(&self, slot: u32) -> u64 {
        self.written[slot as usize]
    }

    /// Puts `block` with `written` units in a free slot (the caller evicts first when full).
    pub fn insert(&mut self, block: u64, written: u64) -> u32 {
        let slot = self.slots.take().expect("the caller evicts before inserting into a full buffer");
        self.blocks[slot as usize] = block;
        self.written[slot as usize] = written;
        self.policy.inserted(slot, block, true);
        slot
    }

    /// A read or write of the slot's block: it becomes most recently used; a write adds units.
    pub fn hit(&mut self, slot: u32, written: u64) {
        self.written[slot as usize] |= written;
        self.policy.hit(slot, self.blocks[slot as usize], false);
    }

    /// Empties `slot`.
    pub fn remove(&mut self, slot: u32) {
        self.policy.removed(slot, self.blocks[slot as usize], true);
        self.slots.release(slot);
    }

    /// Pushes onto `out` the slots to evict now, all of one segment (none if the buffer is
    /// empty). They stay buffered until `remove`d.
    pub fn victims(&mut self, out: &mut Vec<u32>) {
        self.policy.victims(&self.blocks, out);
    }

    /// What stopped the policy, if it is a user's and failed (`Policy::failure`).
    pub fn failure(&mut self) -> Option<SimError> {
        self.policy.failure()
    }

    /// The policy's own counters.
    pub fn counters(&self, out: &mut Counters) {
        self.policy.counters(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use smr_kernel::policy::lwa::Lwa;
    use smr_kernel::policy::recency::{Order, Recency};
    use smr_kernel::policy::segments::{SegmentOrder, Segments};

    /// The native policies HWSR and S-block order the buffer by.
    #[derive(Clone, Copy, Debug, PartialEq, Eq)]
    enum Choice {
        LruBlock,
        LruSegment,
        Lwa { window: usize },
        MostBlocks,
    }

    impl Choice {
        fn build(self, slots: usize, blocks_per_segment: u64) -> Box<dyn Policy> {
            match self {
                Choice::LruBlock => Box::new(Recency::new(slots, Order::Lru)),
                Choice::LruSegment => Box::new(Segments::new(slots, blocks_per_segment, SegmentOrder::Recency)),
                Choice::MostBlocks => Box::new(Segments::new(slots, blocks_per_segment, SegmentOrder::MostBlocks)),
                Choice::Lwa { window } => Box::new(Lwa::new(slots, blocks_per_segment, window)),
            }
        }
    }

    #[test]
    fn units_cover_whole_units_and_touch_partial_ones() {
        let u = Units::of_block(64 << 10); // 128 sectors: 64 units of 1 KiB
        assert_eq!(u.all(), u64::MAX);
        assert_eq!(u.covered(0, 64 << 10), u64::MAX);
        assert_eq!(u.covered(512, 4096), 0b1110);
        assert_eq!(u.touched(512, 4096), 0b1111);
        assert_eq!(u.covered(0, 512), 0);
        let small = Units::of_block(8 << 10); // 16 sectors: 16 units of one sector
        assert_eq!(small.all(), 0xffff);
        assert_eq!(small.covered(0, 8 << 10), 0xffff);
        assert_eq!(small.touched(7 << 10, 8 << 10), 0b11 << 14);
    }

    fn filled(policy: Choice, blocks: &[u64]) -> MemBuffer {
        let mut m = MemBuffer::new(blocks.len(), policy.build(blocks.len(), 4), 4);
        for &b in blocks {
            m.insert(b, 1);
        }
        m
    }

    fn victim_blocks(m: &mut MemBuffer) -> Vec<u64> {
        let mut out = Vec::new();
        m.victims(&mut out);
        let mut blocks: Vec<u64> = out.iter().map(|&s| m.block(s)).collect();
        blocks.sort_unstable();
        blocks
    }

    /// Fig. 10: blocks inserted oldest first; four-block segments (0-3 segment 0, 4-7 segment 1).
    #[test]
    fn policies_by_hand() {
        let order = [4, 0, 5, 1, 7, 9, 2];
        assert_eq!(victim_blocks(&mut filled(Choice::LruBlock, &order)), [4]);
        // In a window of the five oldest (4, 0, 5, 1, 7): segment 1 has three, segment 0 two.
        assert_eq!(victim_blocks(&mut filled(Choice::Lwa { window: 5 }, &order)), [4, 5, 7]);
        // A window of four: two each; segment 1's block 4 is nearest the tail.
        assert_eq!(victim_blocks(&mut filled(Choice::Lwa { window: 4 }, &order)), [4, 5]);
        // Segment 0 was used last (block 2), segment 2 (block 9) before it, segment 1 before that.
        assert_eq!(victim_blocks(&mut filled(Choice::LruSegment, &order)), [4, 5, 7]);
        let mut m = filled(Choice::LruSegment, &order);
        let slot_of_7 = 4;
        m.hit(slot_of_7, 0);
        assert_eq!(victim_blocks(&mut m), [9], "a hit on block 7 makes segment 1 recent");
        // Segments 0 and 1 hold three blocks each; segment 1 has held three longer.
        assert_eq!(victim_blocks(&mut filled(Choice::MostBlocks, &order)), [4, 5, 7]);
    }

    proptest! {
        /// Under any sequence of inserts, hits and evictions: occupancy stays within capacity,
        /// every eviction takes blocks of one segment only, and for LWA only blocks inside its
        /// window.
        #[test]
        fn victims_are_one_segment_and_occupancy_is_bounded(
            ops in proptest::collection::vec((0u64..40, any::<bool>()), 1..300),
            policy in 0usize..4,
            window in 1usize..8,
        ) {
            let policy = [Choice::LruBlock, Choice::LruSegment, Choice::Lwa { window }, Choice::MostBlocks][policy];
            let mut m = MemBuffer::new(8, policy.build(8, 4), 4);
            let mut held: std::collections::HashMap<u64, u32> = Default::default();
            let mut recency: Vec<u64> = Vec::new();
            for (block, _read) in ops {
                if let Some(&slot) = held.get(&block) {
                    m.hit(slot, 1);
                    recency.retain(|&b| b != block);
                    recency.push(block);
                    continue;
                }
                if m.is_full() {
                    let mut out = Vec::new();
                    m.victims(&mut out);
                    prop_assert!(!out.is_empty());
                    let segments: std::collections::BTreeSet<u64> = out.iter().map(|&s| m.block(s) / 4).collect();
                    prop_assert_eq!(segments.len(), 1);
                    if let Choice::Lwa { window } = policy {
                        let oldest: Vec<u64> = recency.iter().take(window).copied().collect();
                        prop_assert!(out.iter().all(|&s| oldest.contains(&m.block(s))));
                    }
                    if policy == Choice::LruBlock {
                        prop_assert_eq!(m.block(out[0]), recency[0]);
                    }
                    for slot in out {
                        let b = m.block(slot);
                        m.remove(slot);
                        held.remove(&b);
                        recency.retain(|&x| x != b);
                    }
                }
                let slot = m.insert(block, 1);
                held.insert(block, slot);
                recency.push(block);
                prop_assert!(m.held() <= m.capacity());
                prop_assert_eq!(m.held(), held.len());
            }
        }
    }
}
