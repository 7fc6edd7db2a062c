//! Cache replacement policies, shared by every system that keeps a cache (the SSD cache of
//! `cache/`, HWSR's MEM buffer and SSD read cache, FluidSMR's entry order): one small interface,
//! libCacheSim-style — the cache tells the policy what happened to its slots and asks it which
//! slots to evict — one file per policy, and `POLICIES`, the table of them by name with their
//! constructors (`table`). A policy that has parameters declares and parses them in its own file
//! (`pore`, `lwa`). A user's own policy, written in Python, stands behind the same interface,
//! checked (`own`). Not here: data movement and timing (each cache does them), nor which names a
//! system offers (its own `policy` parameter lists them).
//!
//! Same name, different things: `lru` here orders cache blocks (slots); FluidSMR's `lru`
//! scheme (fluid/lru.rs) orders the entries of its mapping table — extents of any length that
//! split and merge — through the same `recency::Recency` (whose `split` keeps a cut-off part
//! beside its entry), and adds its own free-space placement and cleaning on top. HWSR's
//! `lru-block` is `lru` under another name.

pub mod lru_band;
pub mod lwa;
pub mod own;
pub mod pore;
pub mod recency;
pub mod segments;
pub mod table;

pub use crate::user_policy::{Geometry, OwnPolicy, PolicySource};
pub use table::{build, entry, read, Boxed, Host, PolicyEntry, PolicySetup, Table, POLICIES};

use crate::metrics::{Counters, Gauges};
use crate::SimError;

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
    /// `blocks[slot]` is the block the cache holds in `slot` (with `FLAG` perhaps set), lent
    /// so that a policy that needs each slot's block at eviction (`lwa`) keeps no copy of it.
    fn victims(&mut self, blocks: &[u64], out: &mut Vec<u32>);
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
    /// Whether the policy looks at the shingled disk below the cache (`below_buffer`): a
    /// user's may; the native ones do not, and their caches then make no call for it.
    fn watches_below(&self) -> bool {
        false
    }
    /// Before `victims`, for a policy that `watches_below`: the bytes the shingled disk below
    /// holds in its persistent write buffer now.
    fn below_buffer(&mut self, _held_bytes: u64) {}
    /// What stopped a policy whose code may fail (a user's, `own`), once: the cache asks after
    /// each request and when `victims` named no slot, and ends the run with it. The native
    /// policies never fail.
    fn failure(&mut self) -> Option<SimError> {
        None
    }
    /// The policy's own monotonic counters.
    fn counters(&self, _out: &mut Counters) {}
    /// Point-in-time values.
    fn gauges(&self, _out: &mut Gauges) {}
}

/// A boxed policy is a policy: a cache generic over its policy hosts a user's (`own`) this way.
impl Policy for Box<dyn Policy> {
    #[inline]
    fn inserted(&mut self, slot: u32, block: u64, dirty: bool) {
        (**self).inserted(slot, block, dirty)
    }
    #[inline]
    fn hit(&mut self, slot: u32, block: u64, became_dirty: bool) {
        (**self).hit(slot, block, became_dirty)
    }
    #[inline]
    fn removed(&mut self, slot: u32, block: u64, was_dirty: bool) {
        (**self).removed(slot, block, was_dirty)
    }
    #[inline]
    fn victims(&mut self, blocks: &[u64], out: &mut Vec<u32>) {
        (**self).victims(blocks, out)
    }
    fn next_victim_hints(&self) -> VictimHints {
        (**self).next_victim_hints()
    }
    fn prefetch_hit(&self, slot: u32) {
        (**self).prefetch_hit(slot)
    }
    fn watches_below(&self) -> bool {
        (**self).watches_below()
    }
    fn below_buffer(&mut self, held_bytes: u64) {
        (**self).below_buffer(held_bytes)
    }
    fn failure(&mut self) -> Option<SimError> {
        (**self).failure()
    }
    fn counters(&self, out: &mut Counters) {
        (**self).counters(out)
    }
    fn gauges(&self, out: &mut Gauges) {
        (**self).gauges(out)
    }
}

/// The bit a cache may set in the entries of the block table it lends `Policy::victims` (the
/// SSD cache marks its dirty blocks with it); a policy reading a block there masks it off.
pub const FLAG: u64 = 1 << 63;
