//! The SSD read cache's bookkeeping (§2.3): an LRU cache of clean blocks (the kernel's `lru`
//! policy), filled by read misses. An evicted block is dropped (the disk holds it); a block
//! written in the MEM buffer or on the disk is removed by the caller. Not here: the block map
//! (`Hybrid`), I/O or timing.

use smr_kernel::policy::recency::{Order, Recency};
use smr_kernel::policy::Policy;
use smr_kernel::slots::SlotPool;

pub struct SsdCache {
    blocks: Vec<u64>,
    lru: Recency,
    slots: SlotPool,
}

impl SsdCache {
    pub fn new(capacity: usize) -> Self {
        SsdCache { blocks: vec![0; capacity], lru: Recency::new(capacity, Order::Lru), slots: SlotPool::new(capacity) }
    }

    pub fn capacity(&self) -> usize {
        self.slots.capacity()
    }

    pub fn held(&self) -> usize {
        self.capacity() - self.slots.available()
    }

    pub fn block(&self, slot: u32) -> u64 {
        self.blocks[slot as usize]
    }

    /// A read found the slot's block: it becomes most recently used.
    pub fn hit(&mut self, slot: u32) {
        self.lru.hit(slot, self.blocks[slot as usize], false);
    }

    /// Caches `block`, evicting the least recently used block if the cache is full; returns the
    /// slot and the evicted block.
    pub fn insert(&mut self, block: u64) -> (u32, Option<u64>) {
        let mut evicted = None;
        if self.slots.available() == 0 {
            let victim = self.lru.least().expect("a full cache holds a block");
            evicted = Some(self.blocks[victim as usize]);
            self.remove(victim);
        }
        let slot = self.slots.take().expect("a slot is free after an eviction");
        self.blocks[slot as usize] = block;
        self.lru.inserted(slot, block, false);
        (slot, evicted)
    }

    /// Drops the slot's block (it was rewritten elsewhere).
    pub fn remove(&mut self, slot: u32) {
        self.lru.removed(slot, self.blocks[slot as usize], false);
        self.slots.release(slot);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_recently_used_block_leaves_first() {
        let mut c = SsdCache::new(2);
        let (a, _) = c.insert(10);
        c.insert(11);
        c.hit(a);
        assert_eq!(c.insert(12), (1, Some(11)), "11 was used least recently");
        assert_eq!(c.held(), 2);
        c.remove(a);
        assert_eq!(c.insert(13).1, None, "a removed block frees its slot");
    }
}
