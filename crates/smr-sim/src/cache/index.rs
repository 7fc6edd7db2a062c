//! The cache's block index: which slot holds a block.
//!
//! A hash table of our own rather than hashbrown's, for two things a cache of hundreds of
//! thousands of blocks needs and hashbrown does not offer (issue 18):
//! - **One cache line per lookup.** Entries live in groups of twelve, one 64-byte line each: a
//!   one-byte tag per entry (bits of the block's hash; 0 = free), then the twelve slot numbers.
//!   hashbrown keeps its control bytes and its entries in two arrays, so a lookup that missed the
//!   CPU caches waited for one line and then for the other.
//! - **The line's address before the lookup.** `prefetch` starts loading a block's group while
//!   the engine still serves the request before (`System::prefetch`), so the lookup finds it in
//!   the CPU cache.
//!
//! The block number itself is not stored: it is read from the cache's per-slot table, which a
//! hit reads anyway. A group is the block's home group (its hash reduced to the group count), or
//! a later one when the home and those after it were full when the block came in: each group
//! counts the entries living past it that had passed it full (`overflow`, after F14's overflow
//! counts), so a lookup stops at the first group with no such entries, and a removal decrements
//! the counts it had incremented. No tombstones, so the table never needs rebuilding. Sized once,
//! for the cache's capacity at seven of twelve entries a group on average (about 9 bytes a cached
//! block); it never grows during a replay.
//! Not here: the dirty flag and the recency order (the cache and its policy keep those).

use smr_core::prefetch::prefetch;

/// Per slot, the block it holds, with this bit set while the block is dirty.
pub const DIRTY: u64 = smr_kernel::policy::FLAG;

/// Entries in a group (one cache line: twelve tags, an overflow count, twelve slots).
const WIDTH: usize = 12;

/// Cached blocks per group, on average, when the cache is full. At 7 (of 12) about 3 % of the
/// groups are sent more blocks than they hold (Poisson); at 9 it was 12 %, and the lookups that
/// went on to the next group mispredicted more branches than the smaller table saved (a small
/// cache ran slower than with hashbrown).
const MEAN_FILL: usize = 7;

/// A tag that marks a free entry.
const FREE: u8 = 0;

#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
struct Group {
    tags: [u8; WIDTH],
    /// Entries living in later groups whose probe passed this group while it was full.
    overflow: u32,
    slots: [u32; WIDTH],
}

const EMPTY_GROUP: Group = Group { tags: [FREE; WIDTH], overflow: 0, slots: [0; WIDTH] };

/// Block number of a per-slot entry.
#[inline]
pub fn block_of(entry: u64) -> u64 {
    entry & !DIRTY
}

/// Bitmask of the entries of `group` whose tag is `tag`: one 16-byte compare on x86-64 (the
/// tags and the overflow count, masked off), a fold over the twelve elsewhere.
#[inline]
fn tagged(group: &Group, tag: u8) -> u32 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of x86-64; the 16 bytes loaded are the group's first (its tags and
    // overflow count, `repr(C)`), at its 64-byte alignment.
    unsafe {
        use std::arch::x86_64::{__m128i, _mm_cmpeq_epi8, _mm_load_si128, _mm_movemask_epi8, _mm_set1_epi8};
        let head = _mm_load_si128(group as *const Group as *const __m128i);
        let equal = _mm_cmpeq_epi8(head, _mm_set1_epi8(tag as i8));
        _mm_movemask_epi8(equal) as u32 & ((1 << WIDTH) - 1)
    }
    #[cfg(not(target_arch = "x86_64"))]
    (0..WIDTH).fold(0, |bits, i| bits | ((group.tags[i] == tag) as u32) << i)
}

pub struct BlockIndex {
    groups: Vec<Group>,
    len: usize,
}

impl BlockIndex {
    /// An index able to hold `slots` blocks without growing (at most 2^32 - 1).
    pub fn with_capacity(slots: usize) -> Self {
        let groups = slots.div_ceil(MEAN_FILL).max(1);
        BlockIndex { groups: vec![EMPTY_GROUP; groups], len: 0 }
    }

    /// The block's hash: the upper half picks its home group, the byte below gives its tag.
    #[inline]
    fn hash(block: u64) -> u64 {
        block.wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    /// (home group, tag) of `block`.
    #[inline]
    fn home(&self, block: u64) -> (usize, u8) {
        let hash = Self::hash(block);
        // The upper 32 bits scaled to the group count (a multiply, not a division).
        let group = ((hash >> 32) * self.groups.len() as u64) >> 32;
        let tag = (hash >> 24) as u8;
        (group as usize, tag.max(1))
    }

    #[inline]
    fn next(&self, group: usize) -> usize {
        if group + 1 == self.groups.len() {
            0
        } else {
            group + 1
        }
    }

    /// Starts loading the group `block`'s lookup reads first (`smr_core::prefetch`).
    #[inline]
    pub fn prefetch(&self, block: u64) {
        prefetch(&self.groups[self.home(block).0]);
    }

    /// Calls `f` with the slots `block`'s home group names under its tag: where `get` will
    /// find it, if it is there, for a prefetch (they are not checked against the block).
    #[inline]
    pub fn candidates(&self, block: u64, mut f: impl FnMut(u32)) {
        let (g, tag) = self.home(block);
        let group = &self.groups[g];
        let mut matches = tagged(group, tag);
        while matches != 0 {
            f(group.slots[matches.trailing_zeros() as usize]);
            matches &= matches - 1;
        }
    }

    /// The slot holding `block`, given the per-slot table `blocks`.
    #[inline]
    pub fn get(&self, block: u64, blocks: &[u64]) -> Option<u32> {
        let (mut g, tag) = self.home(block);
        // At most once round the table: every group may have entries past it and room too.
        for _ in 0..self.groups.len() {
            let group = &self.groups[g];
            let mut matches = tagged(group, tag);
            while matches != 0 {
                let slot = group.slots[matches.trailing_zeros() as usize];
                if block_of(blocks[slot as usize]) == block {
                    return Some(slot);
                }
                matches &= matches - 1;
            }
            if group.overflow == 0 {
                break;
            }
            g = self.next(g);
        }
        None
    }

    /// Records that `slot` holds `block` (not in the index).
    #[inline]
    pub fn insert(&mut self, block: u64, slot: u32, blocks: &[u64]) {
        debug_assert!(self.get(block, blocks).is_none());
        debug_assert!(self.len < self.groups.len() * WIDTH, "the table has room for its capacity");
        let (mut g, tag) = self.home(block);
        loop {
            let group = &mut self.groups[g];
            let free = tagged(group, FREE);
            if free != 0 {
                let at = free.trailing_zeros() as usize;
                group.tags[at] = tag;
                group.slots[at] = slot;
                self.len += 1;
                return;
            }
            group.overflow += 1;
            g = self.next(g);
        }
    }

    /// Forgets the entry of `slot`, which holds `block`.
    #[inline]
    pub fn remove(&mut self, slot: u32, block: u64) {
        let (home, tag) = self.home(block);
        let mut g = home;
        let at = 'found: loop {
            let group = &self.groups[g];
            let mut matches = tagged(group, tag);
            while matches != 0 {
                let at = matches.trailing_zeros() as usize;
                if group.slots[at] == slot {
                    break 'found at;
                }
                matches &= matches - 1;
            }
            assert!(group.overflow > 0, "slot {slot} (block {block}) is in the index");
            g = self.next(g);
        };
        self.groups[g].tags[at] = FREE;
        self.len -= 1;
        // The groups the entry passed full no longer have it past them.
        let mut passed = home;
        while passed != g {
            self.groups[passed].overflow -= 1;
            passed = self.next(passed);
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The slots indexed, in no particular order.
    pub fn slots(&self) -> impl Iterator<Item = u32> + '_ {
        self.groups.iter().flat_map(|group| (0..WIDTH).filter(|&i| group.tags[i] != FREE).map(|i| group.slots[i]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    #[test]
    fn a_group_is_one_cache_line() {
        assert_eq!((std::mem::size_of::<Group>(), std::mem::align_of::<Group>()), (64, 64));
    }

    /// A full cache over one group's worth of homes: blocks chosen to share their home group
    /// overflow into the groups after it (wrapping past the last), and through churn every block
    /// is found, every removed one is not, and the overflow counts return to zero.
    #[test]
    fn overflowing_groups_are_probed_and_unwound() {
        const SLOTS: usize = 40;
        let mut index = BlockIndex::with_capacity(SLOTS);
        let last = index.groups.len() - 1;
        let crowded: Vec<u64> = (0..).filter(|&b| index.home(b).0 == last).take(4 * SLOTS).collect();
        let mut blocks: Vec<u64> = crowded[..SLOTS].to_vec();
        for (slot, &block) in blocks.clone().iter().enumerate() {
            index.insert(block, slot as u32, &blocks);
        }
        assert!(index.groups[0].tags.iter().all(|&t| t != FREE), "entries wrapped to the first group");
        for (step, &block) in crowded[SLOTS..].iter().enumerate() {
            let slot = (step * 7 % SLOTS) as u32;
            let old = block_of(blocks[slot as usize]);
            index.remove(slot, old);
            assert_eq!(index.get(old, &blocks), None, "step {step}: a removed block is gone");
            blocks[slot as usize] = block | if step % 2 == 0 { DIRTY } else { 0 };
            index.insert(block, slot, &blocks);
            for (s, &entry) in blocks.iter().enumerate() {
                assert_eq!(index.get(block_of(entry), &blocks), Some(s as u32), "step {step}: slot {s}");
            }
        }
        for (slot, &entry) in blocks.clone().iter().enumerate() {
            index.remove(slot as u32, block_of(entry));
        }
        assert_eq!(index.len(), 0);
        assert!(index.groups.iter().all(|g| g.overflow == 0 && g.tags.iter().all(|&t| t == FREE)));
    }

    proptest! {
        /// Inserts and removals over a small slot table agree with a HashMap; dirty bits in the
        /// per-slot table do not hide a block.
        #[test]
        fn agrees_with_a_hash_map(ops in proptest::collection::vec((any::<bool>(), 0u64..64, any::<bool>()), 0..400)) {
            const SLOTS: usize = 16;
            let mut index = BlockIndex::with_capacity(SLOTS);
            let mut blocks = vec![0u64; SLOTS];
            let mut free: Vec<u32> = (0..SLOTS as u32).rev().collect();
            let mut model: HashMap<u64, u32> = HashMap::new();
            for (insert, block, dirty) in ops {
                match (insert, model.get(&block).copied()) {
                    (true, None) => if let Some(slot) = free.pop() {
                        blocks[slot as usize] = block | if dirty { DIRTY } else { 0 };
                        index.insert(block, slot, &blocks);
                        model.insert(block, slot);
                    },
                    (false, Some(slot)) => {
                        index.remove(slot, block);
                        model.remove(&block);
                        free.push(slot);
                    }
                    _ => {}
                }
                prop_assert_eq!(index.len(), model.len());
                for b in 0..64 {
                    prop_assert_eq!(index.get(b, &blocks), model.get(&b).copied());
                }
            }
            let mut slots: Vec<u32> = index.slots().collect();
            slots.sort_unstable();
            let mut expected: Vec<u32> = model.values().copied().collect();
            expected.sort_unstable();
            prop_assert_eq!(slots, expected);
        }
    }
}
