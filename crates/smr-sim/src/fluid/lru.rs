//! Block LRU over the CMR cache (§6.1, and +cache-fix / format-adapt of §7.1): a new block takes
//! any free slot (so the cache's free space fragments), a write to a cached block makes it most
//! recent, and cleaning takes the least recently written block. Plain block LRU merges just that
//! block into its SMR zone; the improved block LRU (`imprv-lru`, §6.1) evicts the whole zone of
//! the victim block, reclaiming every block one zone rewrite can. Not here: the logs (`fifo`,
//! `loopback`).

use super::cache::{CachePolicy, CacheSlots, Clean};
use crate::kernel::lists::RecencyList;
use crate::kernel::slots::SlotPool;

pub struct BlockLru {
    free: SlotPool,
    recency: RecencyList,
    whole_zone: bool,
}

impl BlockLru {
    /// `whole_zone`: the improved policy (evict the victim block's zone).
    pub fn new(whole_zone: bool) -> Self {
        BlockLru { free: SlotPool::new(0), recency: RecencyList::new(0), whole_zone }
    }
}

impl CachePolicy for BlockLru {
    fn place(&mut self) -> Option<u32> {
        self.free.take()
    }

    fn has_room(&self, blocks: u64) -> bool {
        self.free.available() as u64 >= blocks
    }

    fn inserted(&mut self, slot: u32) {
        self.recency.push_front(slot);
    }

    fn hit(&mut self, slot: u32) {
        self.recency.move_to_front(slot);
    }

    fn removed(&mut self, slot: u32) {
        self.recency.remove(slot);
        self.free.release(slot);
    }

    fn moved(&mut self, old: u32, new: u32) {
        self.recency.replace(old, new);
        self.free.release(old);
    }

    fn next_clean(&mut self, slots: &CacheSlots, _loop_back: bool) -> Clean {
        let victim = self.recency.back().expect("cleaning a cache that holds blocks");
        match (self.whole_zone, slots.user_of_slot(victim)) {
            (true, Some(user)) => Clean::EvictZone(user),
            _ => Clean::EvictSlot(victim),
        }
    }

    fn resize(&mut self, capacity: u32) {
        self.recency.grow(capacity as usize);
        self.free.resize(capacity as usize);
    }
}
