//! The cache's block index: which slot holds a block. It stores only the slot number (4 bytes
//! and hashbrown's one control byte per bucket); the block number itself is read from the
//! cache's per-slot table, which every hit reads anyway. A full `HashMap<u64, u32>` would keep a
//! second, padded copy of every key (16 bytes a bucket): at hundreds of thousands of cached
//! blocks the smaller table is what keeps an access to a few cache misses (issue 18).
//!
//! The table is sized once, for the cache's capacity, so it never grows during a replay. Each slot
//! also remembers the bucket its entry is in (4 bytes a slot), so evicting a slot removes its
//! entry without hashing, probing or reading the bucket: at hundreds of thousands of cached blocks
//! those were dependent loads from memory after the victim's own entry. hashbrown moves entries
//! only when an insert finds no free room (`capacity() == len()`: tombstones have used it up) and
//! rehashes; after such an insert the remembered buckets are read anew from the table. A table of
//! more than 2^32 buckets (a cache of billions of blocks) finds entries by hash instead.
//! Not here: the dirty flag and the recency order (the cache and its policy keep those).

use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use smr_core::prefetch::prefetch;

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

pub struct BlockIndex {
    table: HashTable<u32>,
    /// Per slot, the bucket its entry is in; empty when the table has more than 2^32 buckets.
    bucket_of: Vec<u32>,
}

impl BlockIndex {
    /// An index able to hold `slots` blocks without growing.
    pub fn with_capacity(slots: usize) -> Self {
        let table = HashTable::with_capacity(slots);
        let bucket_of = if table.num_buckets() <= 1 << 32 { vec![0; slots] } else { Vec::new() };
        BlockIndex { table, bucket_of }
    }

    /// Starts loading what removing `slot`'s entry will read, for a cache that knows its next
    /// victim one insert ahead (`smr_core::prefetch`).
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
        // No free room: hashbrown rehashes (moving entries) before it inserts.
        let rehashes = self.table.capacity() == self.table.len();
        let bucket = self.table.insert_unique(hash(block), slot, |&s| hash(block_of(blocks[s as usize]))).bucket_index();
        if self.bucket_of.is_empty() {
            return;
        }
        if rehashes {
            self.remember_buckets();
        } else {
            self.bucket_of[slot as usize] = bucket as u32;
        }
    }

    /// Reads every slot's bucket from the table anew (after a rehash).
    #[cold]
    fn remember_buckets(&mut self) {
        if self.table.num_buckets() > 1 << 32 {
            self.bucket_of = Vec::new();
            return;
        }
        for bucket in self.table.iter_buckets() {
            let slot = *self.table.get_bucket(bucket).expect("iter_buckets yields full buckets");
            self.bucket_of[slot as usize] = bucket as u32;
        }
    }

    /// Forgets the entry of `slot`, which holds `block` in `blocks` until this returns.
    #[inline]
    pub fn remove(&mut self, slot: u32, block: u64, blocks: &[u64]) {
        let entry = match self.bucket_of.get(slot as usize) {
            Some(&bucket) => self.table.get_bucket_entry(bucket as usize).ok(),
            None => self.table.find_entry(hash(block), |&s| block_of(blocks[s as usize]) == block).ok(),
        };
        if let Some(entry) = entry {
            debug_assert_eq!(*entry.get(), slot, "a slot's remembered bucket holds it");
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

    /// A full cache whose table has no spare room (28 slots: 32 buckets, room for 28) turns
    /// removals into tombstones until an insert must rehash; through that churn every slot's
    /// remembered bucket still holds it and every block is found.
    #[test]
    fn remembered_buckets_survive_rehashing() {
        const SLOTS: usize = 28;
        let mut index = BlockIndex::with_capacity(SLOTS);
        let buckets_at_start = index.table.num_buckets();
        let mut blocks: Vec<u64> = (0..SLOTS as u64).collect();
        for (slot, &block) in blocks.clone().iter().enumerate() {
            index.insert(block, slot as u32, &blocks);
        }
        // Evict slots round-robin and give each a new block, as a FIFO cache does.
        for step in 0..20_000u64 {
            let slot = (step % SLOTS as u64) as u32;
            index.remove(slot, blocks[slot as usize], &blocks);
            blocks[slot as usize] = SLOTS as u64 + step;
            index.insert(blocks[slot as usize], slot, &blocks);
            for (s, &bucket) in index.bucket_of.iter().enumerate() {
                assert_eq!(index.table.get_bucket(bucket as usize), Some(&(s as u32)), "step {step}: slot {s}");
            }
        }
        assert!(index.table.num_buckets() > buckets_at_start, "the churn made hashbrown rehash (here by growing)");
        for (slot, &block) in blocks.iter().enumerate() {
            assert_eq!(index.get(block, &blocks), Some(slot as u32));
        }
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
