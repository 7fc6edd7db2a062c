//! The MEM write buffer's bookkeeping (§2.3, §4.3): which blocks it holds, which parts of each
//! the host has written, and which blocks to evict when it is full. Used by both HWSR and the
//! S-block baseline; what an eviction costs on the disk is theirs.
//!
//! Replacement policies, each evicting blocks of one segment only, so that one segment rewrite
//! (or one S-block destage) takes them all:
//! - `lru-block`: the least recently used block alone (one rewrite per evicted block);
//! - `lru-segment`: every buffered block of the segment used least recently (a segment's
//!   recency is its most recently used block's);
//! - `lwa` (Fig. 5, Fig. 10): in a lookup window of the `window` least recently used blocks,
//!   the segment with the most blocks; its blocks in the window go (ties: the segment whose
//!   block lies nearest the tail);
//! - `most-blocks`: S-block's group destage (§4.1), every buffered block of the segment with the
//!   most buffered blocks (ties: the segment that has had that count longest).
//!
//! A hit (a read or a write of a buffered block) makes a block most recently used. Blocks are
//! whole cache blocks; what the host wrote of each is kept in 64 units (`Units`), so a block
//! written only in part is merged with its older version when it leaves. Not here: the map
//! from blocks to slots (`Hybrid`), I/O or timing.

use rustc_hash::FxHashMap;

use smr_kernel::lists::ListSet;
use smr_kernel::slots::SlotPool;

/// The most blocks LWA looks at (16.7 million: 1 TiB of 64 KiB blocks).
const MAX_WINDOW: usize = 1 << 24;

/// Which blocks leave a full buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    LruBlock,
    LruSegment,
    Lwa { window: usize },
    MostBlocks,
}

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
        if self.count == 64 { u64::MAX } else { (1 << self.count) - 1 }
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

/// Buffered segments, for the policies that evict a segment's blocks together: each segment's
/// blocks, their count, and an order of segments (recency for `lru-segment`; one list per
/// count for `most-blocks`).
struct Groups {
    of_segment: FxHashMap<u64, u32>,
    segment: Vec<u64>,
    count: Vec<u32>,
    members: ListSet,
    order: ListSet,
    pool: SlotPool,
    by_count: bool,
    /// Lists in `order`.
    lists: usize,
}

impl Groups {
    fn new(slots: usize, max_count: usize, by_count: bool) -> Self {
        let lists = if by_count { max_count + 1 } else { 1 };
        Groups {
            of_segment: FxHashMap::default(),
            segment: vec![0; slots],
            count: vec![0; slots],
            members: ListSet::new(slots, slots),
            order: ListSet::new(slots, lists),
            pool: SlotPool::new(slots),
            by_count,
            lists,
        }
    }

    fn list_of(&self, group: u32) -> usize {
        if self.by_count { self.count[group as usize] as usize } else { 0 }
    }

    fn add(&mut self, slot: u32, segment: u64) {
        let group = match self.of_segment.get(&segment) {
            Some(&g) => g,
            None => {
                let g = self.pool.take().expect("a group per buffered block at most");
                self.of_segment.insert(segment, g);
                self.segment[g as usize] = segment;
                g
            }
        };
        self.members.push_front(group as usize, slot);
        let old_list = self.list_of(group);
        self.order.remove(old_list, group);
        self.count[group as usize] += 1;
        let new_list = self.list_of(group);
        self.order.push_front(new_list, group);
    }

    fn touch(&mut self, segment: u64) {
        if !self.by_count {
            let group = self.of_segment[&segment];
            self.order.move_to_front(0, group);
        }
    }

    fn remove(&mut self, slot: u32, segment: u64) {
        let group = self.of_segment[&segment];
        self.members.remove(group as usize, slot);
        let old_list = self.list_of(group);
        self.order.remove(old_list, group);
        self.count[group as usize] -= 1;
        if self.count[group as usize] == 0 {
            self.of_segment.remove(&segment);
            self.pool.release(group);
        } else {
            let new_list = self.list_of(group);
            self.order.push_front(new_list, group);
        }
    }

    /// The group to evict: the least recent one, or the oldest of those with the most blocks.
    fn victim(&self) -> Option<u32> {
        if self.by_count {
            (1..self.lists).rev().find_map(|list| self.order.back(list))
        } else {
            self.order.back(0)
        }
    }
}

/// The MEM write buffer: `capacity` block slots.
pub struct MemBuffer {
    blocks: Vec<u64>,
    written: Vec<u64>,
    recency: ListSet,
    slots: SlotPool,
    policy: Policy,
    groups: Option<Groups>,
    blocks_per_segment: u64,
    /// The lookup window's slots by place, and per segment its count and first place (see
    /// `lwa_victims`), kept between evictions so they do not allocate.
    window_slots: Vec<u32>,
    window_counts: FxHashMap<u64, (u32, u32)>,
}

impl MemBuffer {
    pub fn new(capacity: usize, policy: Policy, blocks_per_segment: u64) -> Self {
        let groups = match policy {
            Policy::LruSegment => Some(Groups::new(capacity, blocks_per_segment as usize, false)),
            Policy::MostBlocks => Some(Groups::new(capacity, blocks_per_segment as usize, true)),
            Policy::LruBlock | Policy::Lwa { .. } => None,
        };
        MemBuffer {
            blocks: vec![0; capacity],
            written: vec![0; capacity],
            recency: ListSet::new(capacity, 1),
            slots: SlotPool::new(capacity),
            policy,
            groups,
            blocks_per_segment,
            window_slots: Vec::new(),
            window_counts: FxHashMap::default(),
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
        self.recency.push_front(0, slot);
        let segment = self.segment_of(block);
        if let Some(g) = self.groups.as_mut() {
            g.add(slot, segment);
        }
        slot
    }

    /// A read or write of the slot's block: it becomes most recently used; a write adds units.
    pub fn hit(&mut self, slot: u32, written: u64) {
        self.written[slot as usize] |= written;
        self.recency.move_to_front(0, slot);
        let segment = self.segment_of(self.blocks[slot as usize]);
        if let Some(g) = self.groups.as_mut() {
            g.touch(segment);
        }
    }

    /// Empties `slot`.
    pub fn remove(&mut self, slot: u32) {
        self.recency.remove(0, slot);
        let segment = self.segment_of(self.blocks[slot as usize]);
        if let Some(g) = self.groups.as_mut() {
            g.remove(slot, segment);
        }
        self.slots.release(slot);
    }

    /// Pushes onto `out` the slots to evict now, all of one segment (none if the buffer is
    /// empty). They stay buffered until `remove`d.
    pub fn victims(&mut self, out: &mut Vec<u32>) {
        match self.policy {
            Policy::LruBlock => out.extend(self.recency.back(0)),
            Policy::Lwa { window } => self.lwa_victims(window, out),
            Policy::LruSegment | Policy::MostBlocks => {
                let Some(g) = self.groups.as_ref() else { return };
                let Some(group) = g.victim() else { return };
                let mut member = g.members.back(group as usize);
                while let Some(slot) = member {
                    out.push(slot);
                    member = g.members.more_recent(slot);
                }
            }
        }
    }

    /// LWA: the blocks, among the `window` least recently used, of the segment that has the
    /// most of them (ties: the segment whose first block lies nearest the tail), in window
    /// order. One pass counts each segment's blocks and notes its first place; a second picks
    /// out the winner's slots. Linear in the window (a sort of the window was a third of
    /// HWSR's replay time at the default window of a quarter of the buffer).
    fn lwa_victims(&mut self, window: usize, out: &mut Vec<u32>) {
        self.window_slots.clear();
        self.window_counts.clear();
        let mut entry = self.recency.back(0);
        while let Some(slot) = entry {
            if self.window_slots.len() >= window.min(MAX_WINDOW) {
                break;
            }
            let place = self.window_slots.len() as u32;
            self.window_counts.entry(self.segment_of(self.blocks[slot as usize])).or_insert((0, place)).0 += 1;
            self.window_slots.push(slot);
            entry = self.recency.more_recent(slot);
        }
        let best = self.window_counts.iter().max_by(|(_, (c1, p1)), (_, (c2, p2))| c1.cmp(c2).then(p2.cmp(p1))).map(|(&segment, _)| segment);
        if let Some(best) = best {
            let blocks = best * self.blocks_per_segment..(best + 1) * self.blocks_per_segment;
            out.extend(self.window_slots.iter().copied().filter(|&slot| blocks.contains(&self.blocks[slot as usize])));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

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

    fn filled(policy: Policy, blocks: &[u64]) -> MemBuffer {
        let mut m = MemBuffer::new(blocks.len(), policy, 4);
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
        assert_eq!(victim_blocks(&mut filled(Policy::LruBlock, &order)), [4]);
        // In a window of the five oldest (4, 0, 5, 1, 7): segment 1 has three, segment 0 two.
        assert_eq!(victim_blocks(&mut filled(Policy::Lwa { window: 5 }, &order)), [4, 5, 7]);
        // A window of four: two each; segment 1's block 4 is nearest the tail.
        assert_eq!(victim_blocks(&mut filled(Policy::Lwa { window: 4 }, &order)), [4, 5]);
        // Segment 0 was used last (block 2), segment 2 (block 9) before it, segment 1 before that.
        assert_eq!(victim_blocks(&mut filled(Policy::LruSegment, &order)), [4, 5, 7]);
        let mut m = filled(Policy::LruSegment, &order);
        let slot_of_7 = 4;
        m.hit(slot_of_7, 0);
        assert_eq!(victim_blocks(&mut m), [9], "a hit on block 7 makes segment 1 recent");
        // Segments 0 and 1 hold three blocks each; segment 1 has held three longer.
        assert_eq!(victim_blocks(&mut filled(Policy::MostBlocks, &order)), [4, 5, 7]);
    }

    /// LWA's choice by its definition: the window's (segment, place) keys sorted, the longest
    /// run of one segment, among equals the one starting nearest the tail.
    fn lwa_by_sorting(m: &MemBuffer, window: usize) -> Vec<u32> {
        let mut keys: Vec<(u64, usize, u32)> = Vec::new();
        let mut entry = m.recency.back(0);
        while let Some(slot) = entry.filter(|_| keys.len() < window) {
            keys.push((m.segment_of(m.blocks[slot as usize]), keys.len(), slot));
            entry = m.recency.more_recent(slot);
        }
        keys.sort_unstable();
        let runs = keys.chunk_by(|a, b| a.0 == b.0);
        let best = runs.max_by(|a, b| a.len().cmp(&b.len()).then(b[0].1.cmp(&a[0].1)));
        best.map_or_else(Vec::new, |run| run.iter().map(|&(_, _, slot)| slot).collect())
    }

    proptest! {
        /// LWA's one-pass count picks what sorting the window picks, in the same order.
        #[test]
        fn lwa_counting_agrees_with_sorting(blocks in proptest::collection::vec(0u64..60, 1..200), window in 1usize..40) {
            let mut m = MemBuffer::new(32, Policy::Lwa { window }, 4);
            let mut held: std::collections::HashMap<u64, u32> = Default::default();
            for block in blocks {
                if let Some(&slot) = held.get(&block) {
                    m.hit(slot, 1);
                    continue;
                }
                if m.is_full() {
                    let expected = lwa_by_sorting(&m, window);
                    let mut out = Vec::new();
                    m.victims(&mut out);
                    prop_assert_eq!(&out, &expected);
                    for slot in out {
                        held.remove(&m.block(slot));
                        m.remove(slot);
                    }
                }
                held.insert(block, m.insert(block, 1));
            }
        }

        /// Under any sequence of inserts, hits and evictions: occupancy stays within capacity,
        /// every eviction takes blocks of one segment only, and for LWA only blocks inside its
        /// window.
        #[test]
        fn victims_are_one_segment_and_occupancy_is_bounded(
            ops in proptest::collection::vec((0u64..40, any::<bool>()), 1..300),
            policy in 0usize..4,
            window in 1usize..8,
        ) {
            let policy = [Policy::LruBlock, Policy::LruSegment, Policy::Lwa { window }, Policy::MostBlocks][policy];
            let mut m = MemBuffer::new(8, policy, 4);
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
                    if let Policy::Lwa { window } = policy {
                        let oldest: Vec<u64> = recency.iter().take(window).copied().collect();
                        prop_assert!(out.iter().all(|&s| oldest.contains(&m.block(s))));
                    }
                    if policy == Policy::LruBlock {
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
