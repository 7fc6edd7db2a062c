//! `lwa`, least write amplification (HWSR §4.3, Fig. 5, Fig. 10): in a lookup window of the
//! `window` least recently used blocks, the segment (a fixed run of `blocks_per_segment`
//! blocks) with the most blocks; its blocks in the window go, so that one segment rewrite takes
//! them (ties: the segment whose block lies nearest the LRU tail). A hit makes a block most
//! recently used. Each slot's block is read from the cache's table at eviction (`victims`), not
//! kept here (8 bytes a block). Its window is its parameter (`WINDOW`), a share of the cache it
//! orders (HWSR's MEM buffer, which declares it).

use rustc_hash::FxHashMap;

use super::{Policy, PolicySetup, FLAG};
use crate::lists::RecencyList;
use crate::{Kind, ParamSpec, SimError};

pub const WINDOW: ParamSpec = ParamSpec::new("window", Kind::Share { of: "the MEM buffer" }, "25%", "LWA's lookup window at the LRU tail (Fig. 10)")
    .open("the paper gives the window no size (§4.3: \"a predefined lookup window\"); Fig. 5 keeps a working region of hot blocks ahead of it, so it is less than the whole buffer: a quarter");

/// LWA's parameters, for a cache that offers it to declare.
pub const PARAMS: &[ParamSpec] = &[WINDOW];

/// The most blocks LWA looks at (16.7 million: 1 TiB of 64 KiB blocks).
const MAX_WINDOW: usize = 1 << 24;

pub struct Lwa {
    recency: RecencyList,
    blocks_per_segment: u64,
    window: usize,
    /// The lookup window's slots by place, and per segment its count and first place, kept
    /// between evictions so they do not allocate.
    window_slots: Vec<u32>,
    window_counts: FxHashMap<u64, (u32, u32)>,
}

impl Lwa {
    /// Over `slots` cache slots, of segments of `blocks_per_segment` blocks, looking at the
    /// `window` least recently used.
    pub fn new(slots: usize, blocks_per_segment: u64, window: usize) -> Self {
        Lwa {
            recency: RecencyList::new(slots),
            blocks_per_segment,
            window,
            window_slots: Vec::new(),
            window_counts: FxHashMap::default(),
        }
    }

    /// Over the setup's cache, whose segments it must have, with its window read from
    /// `WINDOW`: the default is at least one block; a given share that resolves to less is
    /// refused.
    pub fn build(setup: &mut PolicySetup<'_, '_>) -> Result<Self, SimError> {
        let (slots, block_bytes) = (setup.geometry.slots, setup.geometry.block_bytes);
        let segment_blocks = setup.segment_blocks("lwa")?;
        let params = &mut setup.b.params;
        let window = match params.share(&WINDOW, slots as u64 * block_bytes, block_bytes) {
            Ok(bytes) => (bytes / block_bytes) as usize,
            Err(_) if !params.given(&WINDOW) => 1,
            Err(e) => return Err(e.into()),
        };
        Ok(Lwa::new(slots, segment_blocks, window))
    }

    fn segment_of(&self, blocks: &[u64], slot: u32) -> u64 {
        (blocks[slot as usize] & !FLAG) / self.blocks_per_segment
    }
}

impl Policy for Lwa {
    fn inserted(&mut self, slot: u32, _block: u64, _dirty: bool) {
        self.recency.push_front(slot);
    }

    fn hit(&mut self, slot: u32, _block: u64, _became_dirty: bool) {
        self.recency.move_to_front(slot);
    }

    fn removed(&mut self, slot: u32, _block: u64, _was_dirty: bool) {
        self.recency.remove(slot);
    }

    /// The blocks, among the `window` least recently used, of the segment that has the most of
    /// them (ties: the segment whose first block lies nearest the tail), in window order. One
    /// pass counts each segment's blocks and notes its first place; a second picks out the
    /// winner's slots. Linear in the window (a sort of the window was a third of HWSR's replay
    /// time at the default window of a quarter of the buffer).
    fn victims(&mut self, blocks: &[u64], out: &mut Vec<u32>) {
        self.window_slots.clear();
        self.window_counts.clear();
        let mut entry = self.recency.back();
        while let Some(slot) = entry {
            if self.window_slots.len() >= self.window.min(MAX_WINDOW) {
                break;
            }
            let place = self.window_slots.len() as u32;
            self.window_counts.entry(self.segment_of(blocks, slot)).or_insert((0, place)).0 += 1;
            self.window_slots.push(slot);
            entry = self.recency.more_recent(slot);
        }
        let best = self
            .window_counts
            .iter()
            .max_by(|(_, (c1, p1)), (_, (c2, p2))| c1.cmp(c2).then(p2.cmp(p1)))
            .map(|(&segment, _)| segment);
        if let Some(best) = best {
            out.extend(self.window_slots.iter().copied().filter(|&slot| self.segment_of(blocks, slot) == best));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::slots::SlotPool;
    use proptest::prelude::*;

    /// LWA's choice by its definition: the window's (segment, place) keys sorted, the longest
    /// run of one segment, among equals the one starting nearest the tail.
    fn lwa_by_sorting(lwa: &Lwa, blocks: &[u64]) -> Vec<u32> {
        let mut keys: Vec<(u64, usize, u32)> = Vec::new();
        let mut entry = lwa.recency.back();
        while let Some(slot) = entry.filter(|_| keys.len() < lwa.window) {
            keys.push(((blocks[slot as usize] & !FLAG) / 4, keys.len(), slot));
            entry = lwa.recency.more_recent(slot);
        }
        keys.sort_unstable();
        let runs = keys.chunk_by(|a, b| a.0 == b.0);
        let best = runs.max_by(|a, b| a.len().cmp(&b.len()).then(b[0].1.cmp(&a[0].1)));
        best.map_or_else(Vec::new, |run| run.iter().map(|&(_, _, slot)| slot).collect())
    }

    proptest! {
        /// LWA's one-pass count picks what sorting the window picks, in the same order, from a
        /// block table where a cache's flag marks every third block.
        #[test]
        fn lwa_counting_agrees_with_sorting(blocks in proptest::collection::vec(0u64..60, 1..200), window in 1usize..40) {
            const SLOTS: usize = 32;
            let mut lwa = Lwa::new(SLOTS, 4, window);
            let mut slots = SlotPool::new(SLOTS);
            let mut held: std::collections::HashMap<u64, u32> = Default::default();
            let mut in_slot = [0u64; SLOTS];
            for block in blocks {
                if let Some(&slot) = held.get(&block) {
                    lwa.hit(slot, block, false);
                    continue;
                }
                if slots.available() == 0 {
                    let expected = lwa_by_sorting(&lwa, &in_slot);
                    let mut out = Vec::new();
                    lwa.victims(&in_slot, &mut out);
                    prop_assert_eq!(&out, &expected);
                    for slot in out {
                        let gone = in_slot[slot as usize] & !FLAG;
                        held.remove(&gone);
                        lwa.removed(slot, gone, false);
                        slots.release(slot);
                    }
                }
                let slot = slots.take().expect("a slot is free");
                in_slot[slot as usize] = block | if block % 3 == 0 { FLAG } else { 0 };
                lwa.inserted(slot, block, false);
                held.insert(block, slot);
            }
        }
    }
}
