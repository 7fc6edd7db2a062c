//! `lru-segment` and `most-blocks`: evict every cached block of one segment (a fixed run of
//! `blocks_per_segment` blocks), so that one segment rewrite takes them all (HWSR §2.3, §4.1).
//! `lru-segment` picks the segment used least recently (a segment's recency is its most
//! recently used block's); `most-blocks` the segment with the most cached blocks (ties: the one
//! that has had that count longest), S-block's group destage. Not here: `lwa`, which looks at
//! blocks in a window rather than whole segments.

use rustc_hash::FxHashMap;

use super::{Policy, PolicySetup};
use crate::lists::ListSet;
use crate::slots::SlotPool;
use crate::SimError;

/// Which segment goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentOrder {
    /// The least recently used (`lru-segment`).
    Recency,
    /// The one with the most cached blocks (`most-blocks`).
    MostBlocks,
}

/// Cached segments as groups: each segment's slots, their count, and an order of segments
/// (recency, or one list per count).
pub struct Segments {
    blocks_per_segment: u64,
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

impl Segments {
    /// Over `slots` cache slots, of segments of `blocks_per_segment` blocks.
    pub fn new(slots: usize, blocks_per_segment: u64, order: SegmentOrder) -> Self {
        let by_count = order == SegmentOrder::MostBlocks;
        let lists = if by_count { blocks_per_segment as usize + 1 } else { 1 };
        Segments {
            blocks_per_segment,
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

    /// Over the setup's cache, whose segments it must have.
    pub fn build(setup: &PolicySetup<'_, '_>, order: SegmentOrder) -> Result<Self, SimError> {
        let name = if order == SegmentOrder::Recency { "lru-segment" } else { "most-blocks" };
        Ok(Segments::new(setup.geometry.slots, setup.segment_blocks(name)?, order))
    }

    fn list_of(&self, group: u32) -> usize {
        if self.by_count {
            self.count[group as usize] as usize
        } else {
            0
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

impl Policy for Segments {
    fn inserted(&mut self, slot: u32, block: u64, _dirty: bool) {
        let segment = block / self.blocks_per_segment;
        let group = match self.of_segment.get(&segment) {
            Some(&g) => g,
            None => {
                let g = self.pool.take().expect("a group per cached block at most");
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

    fn hit(&mut self, _slot: u32, block: u64, _became_dirty: bool) {
        if !self.by_count {
            let group = self.of_segment[&(block / self.blocks_per_segment)];
            self.order.move_to_front(0, group);
        }
    }

    fn removed(&mut self, slot: u32, block: u64, _was_dirty: bool) {
        let segment = block / self.blocks_per_segment;
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

    /// The victim segment's slots, least recently inserted first.
    fn victims(&mut self, _blocks: &[u64], out: &mut Vec<u32>) {
        let Some(group) = self.victim() else { return };
        let mut member = self.members.back(group as usize);
        while let Some(slot) = member {
            out.push(slot);
            member = self.members.more_recent(slot);
        }
    }
}
