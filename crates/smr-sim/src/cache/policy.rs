//! The small interface every cache replacement policy implements, libCacheSim-style: the cache
//! tells the policy what happened to its slots, and asks it which slots to evict. Adding a
//! policy is adding a file. Not here: data movement and timing (the cache framework does them).

use smr_kernel::metrics::{Counters, Gauges};

/// Up to two slots, for `Policy::next_victim_hints`. Eight bytes, so that the call returns it in
/// a register: returned through memory as `[Option<u32>; 2]` (16 bytes, two stores), the
/// cache's one 16-byte load of it could not be forwarded from those stores and waited for every
/// store before it to reach the CPU cache, a fifth of an insert at hundreds of thousands of
/// cached blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VictimHints([u32; 2]);

impl VictimHints {
    pub const NONE: VictimHints = VictimHints([NO_SLOT; 2]);

    pub fn new(first: Option<u32>, second: Option<u32>) -> Self {
        VictimHints([first.unwrap_or(NO_SLOT), second.unwrap_or(NO_SLOT)])
    }

    /// The slots named, in order.
    pub fn slots(self) -> impl Iterator<Item = u32> {
        self.0.into_iter().filter(|&slot| slot != NO_SLOT)
    }
}

/// No slot (`VictimHints`); no cache has 2^32 - 1 slots (slot numbers are u32 below its size).
const NO_SLOT: u32 = u32::MAX;

pub trait Policy {
    /// A block was placed in `slot` (dirty if it came from a write).
    fn inserted(&mut self, slot: u32, block: u64, dirty: bool);
    /// A cached block was accessed; `became_dirty` if a write hit a clean block.
    fn hit(&mut self, slot: u32, block: u64, became_dirty: bool);
    /// A slot was emptied by eviction.
    fn removed(&mut self, slot: u32, block: u64, was_dirty: bool);
    /// Pushes onto `out` the slots to evict now: at least one, when the cache holds any block.
    fn victims(&mut self, out: &mut Vec<u32>);
    /// The slots likely to be the next victims (at most two, the likeliest first), when the
    /// policy can tell without work, for the cache to prefetch their entries
    /// (`smr_core::prefetch`); a policy may start loading its own state for them here too. A
    /// hint that changes no result: LRU and FIFO name their next two victims; PORE names the
    /// two it will choose between (the least recent clean block and the oldest block of the
    /// zone on top of its heap).
    fn next_victim_hints(&self) -> VictimHints {
        VictimHints::NONE
    }
    /// A hint that `slot` may be hit soon: the policy may start loading its state for it
    /// (`smr_core::prefetch`). Changes no result.
    fn prefetch_hit(&self, _slot: u32) {}
    /// The policy's own monotonic counters.
    fn counters(&self, _out: &mut Counters) {}
    /// Point-in-time values.
    fn gauges(&self, _out: &mut Gauges) {}
}
