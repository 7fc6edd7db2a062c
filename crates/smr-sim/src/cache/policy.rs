//! The small interface every cache replacement policy implements, libCacheSim-style: the cache
//! tells the policy what happened to its slots, and asks it which slots to evict. Adding a
//! policy is adding a file. Not here: data movement and timing (the cache framework does them).

use crate::kernel::metrics::{Counters, Gauges};

pub trait Policy {
    /// A block was placed in `slot` (dirty if it came from a write).
    fn inserted(&mut self, slot: u32, block: u64, dirty: bool);
    /// A cached block was accessed; `became_dirty` if a write hit a clean block.
    fn hit(&mut self, slot: u32, block: u64, became_dirty: bool);
    /// A slot was emptied by eviction.
    fn removed(&mut self, slot: u32, block: u64, was_dirty: bool);
    /// Pushes onto `out` the slots to evict now: at least one, when the cache holds any block.
    fn victims(&mut self, out: &mut Vec<u32>);
    /// The slots likely to be the next victim (at most two), when the policy can tell without
    /// work, for the cache to prefetch their entries (`kernel::prefetch`); a policy may start
    /// loading its own state for them here too. A hint that changes no result: LRU and FIFO
    /// name their victim; PORE names the two it will choose between (the least recent clean
    /// block and the oldest block of the zone on top of its heap).
    fn next_victim_hints(&self) -> [Option<u32>; 2] {
        [None, None]
    }
    /// The policy's own monotonic counters.
    fn counters(&self, _out: &mut Counters) {}
    /// Point-in-time values.
    fn gauges(&self, _out: &mut Gauges) {}
}
