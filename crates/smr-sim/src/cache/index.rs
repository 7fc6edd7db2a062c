//! The cache's block index: which slot holds a block. It stores only the slot number (4 bytes
//! and hashbrown's one control byte per bucket); the block number itself is read from the
//! cache's per-slot table, which every hit reads anyway. A full `HashMap<u64, u32>` would keep a
//! second, padded copy of every key (16 bytes a bucket): at hundreds of thousands of cached
//! blocks the smaller table is what keeps an access to a few cache misses (issue 18).
//!
//! The table is sized once, for the cache's capacity, so it never grows during a replay. Each slot
//! also remembers the bucket its entry went into (4 bytes a slot), so evicting a slot removes its
//! entry without hashing and probing: at hundreds of thousands of cached blocks that probe was
//! two dependent loads from memory (the control bytes, then the bucket) after the victim's own
//! entry. A bucket can change when hashbrown rehashes in place (after many removals), so the
//! remembered bucket is checked and, if it no longer holds the slot, the entry is found by hash.
//! Not here: the dirty flag and the recency order (the cache and its policy keep those).

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use crate::kernel::prefetch::prefetch;

/// Per slot, the block it holds, with this bit set while the block is dirty.
pub const DIRTY: u64 = 1 << 63;

fn hash(block: u64) -> u64 {
    FxBuildHasher.hash_one(block)
}

/// Block number of a per-slot entry.
#[inline]
fn block_of(entry: u64) -> u64 {
    entry & !DIRTY
}

/// `bucket_of` for a slot whose bucket number does not fit in 32 bits.
const UNKNOWN_BUCKET: u32 = u32::MAX;

pub struct BlockIndex {
    table: HashTable<u32>,
    /// Per slot, the bucket its entry was put in (`UNKNOWN_BUCKET` if past 2^32 - 1).
    bucket_of: Vec<u32>,
}

impl BlockIndex {
    /// An index able to hold `slots` blocks without growing.
    pub fn with_capacity(slots: usize) -> Self {
        BlockIndex { table: HashTable::with_capacity(slots), bucket_of: vec![UNKNOWN_BUCKET; slots] }
    }

    /// Starts loading what removing `slot`'s entry will read, for a cache that knows its next
    /// victim one insert ahead (`kernel::prefetch`).
    #[inline]
    pub fn prefetch_removal(&self, slot: u32) {
        if let Some(bucket) = self.bucket_of.get(slot as usize) {
            prefetch(bucket);
        }
    }

    /// The slot holding `block`, given the per-slot table `blocks`.
    #[inline]
    pub fn get(&self, block: u64, blocks: &[u64]) -> Option<u32> {
        self.table.find(hash(block), |&slot| block_of(blocks[slot as usize]) == block).copied()
    }

    /// Records that `slot` holds `block` (not in the index).
    #[inline]
    pub fn insert(&mut self, block: u64, slot: u32, blocks: &[u64]) {
        debug_assert!(self.get(block, blocks).is_none());
        let bucket = self.table.insert_unique(hash(block), slot, |&s| hash(block_of(blocks[s as usize]))).bucket_index();
        self.bucket_of[slot as usize] = u32::try_from(bucket).unwrap_or(UNKNOWN_BUCKET);
    }

    /// Forgets the entry of `slot`, which holds `block` in `blocks` until this returns.
    #[inline]
    pub fn remove(&mut self, slot: u32, block: u64, blocks: &[u64]) {
        let bucket = self.bucket_of[slot as usize] as usize;
        if self.table.get_bucket(bucket) == Some(&slot) {
            if let Ok(entry) = self.table.get_bucket_entry(bucket) {
                entry.remove();
            }
        } else if let Ok(entry) = self.table.find_entry(hash(block), |&s| block_of(blocks[s as usize]) == block) {
            entry.remove();
        }
    }

    pub fn len(&self) -> usize {
        self.table.len()
    }

    /// The slots indexed, in no particular order.
    pub fn slots(&self) -> impl Iterator<Item = u32> + '_ {
        self.table.iter().copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

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
                        index.remove(slot, block, &blocks);
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
