//! Cache replacement policies, shared by every system that keeps a cache (the SSD cache of
//! `cache/`, HWSR's MEM buffer and SSD read cache, FluidSMR's entry order): one small interface,
//! libCacheSim-style — the cache tells the policy what happened to its slots and asks it which
//! slots to evict — one file per policy, and `POLICIES`, the table of them by name. A policy
//! that has parameters declares and parses them in its own file (`pore`). Not here: data
//! movement and timing (each cache does them), nor which names a system offers (its own
//! `policy` parameter lists them).
//!
//! Same name, different things: `lru` here orders cache blocks (slots); FluidSMR's `lru`
//! scheme (fluid/lru.rs) orders the entries of its mapping table — extents of any length that
//! split and merge — through the same `recency::Recency` (whose `split` keeps a cut-off part
//! beside its entry), and adds its own free-space placement and cleaning on top. HWSR's
//! `lru-block` is `lru` under another name.

pub mod lru_band;
pub mod lwa;
pub mod pore;
pub mod recency;
pub mod segments;

use crate::metrics::{Counters, Gauges};

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
    /// The policy's own monotonic counters.
    fn counters(&self, _out: &mut Counters) {}
    /// Point-in-time values.
    fn gauges(&self, _out: &mut Gauges) {}
}

/// The bit a cache may set in the entries of the block table it lends `Policy::victims` (the
/// SSD cache marks its dirty blocks with it); a policy reading a block there masks it off.
pub const FLAG: u64 = 1 << 63;

/// A policy as the table lists it.
pub struct PolicyEntry {
    pub name: &'static str,
    /// What it evicts, in a line.
    pub about: &'static str,
}

/// Every policy by name; a system's `policy` parameter offers some of them.
pub const POLICIES: &[PolicyEntry] = &[
    PolicyEntry { name: "lru", about: "the least recently used block" },
    PolicyEntry { name: "lru-block", about: "lru under HWSR's name for it (§2.3)" },
    PolicyEntry { name: "fifo", about: "the block cached longest, hits leaving it in place" },
    PolicyEntry { name: "lru-band", about: "every cached block of the least recently used block's SMR band" },
    PolicyEntry {
        name: "pore",
        about: "the least recent block among the clean ones and the dirty ones of open zones (PORE §IV)",
    },
    PolicyEntry { name: "lru-segment", about: "every buffered block of the segment used least recently (HWSR §2.3)" },
    PolicyEntry {
        name: "most-blocks",
        about: "every buffered block of the segment with the most of them (S-block's group destage, HWSR §4.1)",
    },
    PolicyEntry {
        name: "lwa",
        about: "in a window at the LRU tail, the blocks of the segment with the most there (HWSR §4.3, Fig. 10)",
    },
];

/// The table's entry named `name`.
pub fn entry(name: &str) -> Option<&'static PolicyEntry> {
    POLICIES.iter().find(|p| p.name == name)
}
