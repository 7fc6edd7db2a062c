//! The SSD read cache's bookkeeping (§2.3): a cache of clean blocks filled by read misses,
//! ordered by the kernel's `lru` policy (the paper's) or a user's own (`ssd_policy`). An evicted
//! block is dropped (the disk holds it); a block written in the MEM buffer or on the disk is
//! removed by the caller. Not here: the block map (`Hybrid`), I/O or timing.

use smr_kernel::metrics::Counters;
use smr_kernel::policy::Policy;
use smr_kernel::slots::SlotPool;
use smr_kernel::SimError;

pub struct SsdCache {
    blocks: Vec<u64>,
    /// Behind a pointer: a few calls per block against a disk read per miss.
    policy: Box<dyn Policy>,
    slots: SlotPool,
    /// Scratch list of victims, kept between inserts.
    victims: Vec<u32>,
}

impl SsdCache {
    /// A cache of `capacity` blocks ordered by `policy`, built for that many slots.
    pub fn new(capacity: usize, policy: Box<dyn Policy>) -> Self {
        SsdCache { blocks: vec![0; capacity], policy, slots: SlotPool::new(capacity), victims: Vec::new() }
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
        self.policy.hit(slot, self.blocks[slot as usize], false);
    }

    /// Caches `block`, first evicting the policy's victims if the cache is full (their blocks
    /// pushed onto `evicted`); returns the slot.
    pub fn insert(&mut self, block: u64, evicted: &mut Vec<u64>) -> Result<u32, SimError> {
        if self.slots.available() == 0 {
            self.victims.clear();
            self.policy.victims(&self.blocks, &mut self.victims);
            if self.victims.is_empty() {
                return Err(self.policy.failure().unwrap_or_else(|| {
                    SimError::Device("the SSD cache's policy chose no victim from a full cache".into())
                }));
            }
            for i in 0..self.victims.len() {
                let victim = self.victims[i];
                evicted.push(self.blocks[victim as usize]);
                self.remove(victim);
            }
        }
        let slot = self.slots.take().expect("a slot is free after an eviction");
        self.blocks[slot as usize] = block;
        self.policy.inserted(slot, block, false);
        Ok(slot)
    }

    /// Drops the slot's block (it was rewritten elsewhere).
    pub fn remove(&mut self, slot: u32) {
        self.policy.removed(slot, self.blocks[slot as usize], false);
        self.slots.release(slot);
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
    use smr_kernel::policy::recency::{Order, Recency};

    #[test]
    fn least_recently_used_block_leaves_first() {
        let mut c = SsdCache::new(2, Box::new(Recency::new(2, Order::Lru)));
        let mut evicted = Vec::new();
        let a = c.insert(10, &mut evicted).unwrap();
        c.insert(11, &mut evicted).unwrap();
        c.hit(a);
        assert_eq!(c.insert(12, &mut evicted).unwrap(), 1);
        assert_eq!(evicted, [11], "11 was used least recently");
        assert_eq!(c.held(), 2);
        c.remove(a);
        evicted.clear();
        c.insert(13, &mut evicted).unwrap();
        assert!(evicted.is_empty(), "a removed block frees its slot");
    }
}
