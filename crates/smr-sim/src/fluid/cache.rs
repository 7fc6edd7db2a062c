//! The CMR cache of §6.1: the zones left over in CMR format beyond the user data hold the blocks
//! of non-sequential writes to SMR zones, in 4 KiB slots numbered across the cache zones (slot
//! `s` is block `s % blocks_per_zone` of cache zone `s / blocks_per_zone`). Here: which block is
//! in which slot, each user zone's cached slots (its cache occupancy, §6.2), and the in-memory
//! mapping table of (lba, pba, length) extents with its quota (25 MB per TB of partition, §6.1):
//! cleaning starts when the cache or the table is full.
//!
//! A `CachePolicy` only chooses slots and victims: block LRU and the improved block LRU
//! (`lru`), the in-place FIFO log (`fifo`), the loop-back log (`loopback`). Moving data, timing
//! it and evicting zones is the system's (`clean`). Not here: whether a write goes to the cache.

use rustc_hash::FxHashMap;

use crate::kernel::metrics::{Gauges, Metric, Unit};

/// Bytes of one mapping-table entry: (lba u64, pba u64, length u32).
pub const MAP_ENTRY_BYTES: u64 = 20;
/// The mapping table's quota (§6.1): 25 MB per TB of partition (binary units).
pub const MAP_QUOTA_PER_TB: u64 = 25 << 20;
const TB: u128 = 1 << 40;

pub static CACHE_ZONES: Metric = Metric::new("cache_zones", Unit::Count, "FluidSMR: zones of the CMR cache");
pub static CACHED_BLOCKS: Metric = Metric::new("cached_blocks", Unit::Blocks, "FluidSMR: blocks held in the CMR cache");
pub static CACHE_MAP_BYTES: Metric = Metric::new("cache_map_bytes", Unit::Bytes, "FluidSMR: memory of the cache's mapping table, 20 bytes per extent");
pub static CACHE_MAP_QUOTA_BYTES: Metric =
    Metric::new("cache_map_quota_bytes", Unit::Bytes, "FluidSMR: the mapping table's quota, 25 MB per TB of partition (§6.1)");

/// What the next step of cleaning is, as a policy sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clean {
    /// The log's tail slot was empty and the tail moved past it.
    Advanced,
    /// Merge every cached block of this user zone into its SMR zone.
    EvictZone(u32),
    /// Merge only the block in this slot into its SMR zone (plain block LRU).
    EvictSlot(u32),
    /// Move the block in this slot to the head of the log (loop-back).
    LoopBack(u32),
}

/// How a cache orders its slots: which slot a new block takes and what cleaning does next.
pub trait CachePolicy {
    /// A free slot for a new block, or `None` when cleaning must come first.
    fn place(&mut self) -> Option<u32>;
    /// Whether `blocks` new blocks would find slots now.
    fn has_room(&self, blocks: u64) -> bool;
    /// A block was stored in `slot` (after `place`).
    fn inserted(&mut self, _slot: u32) {}
    /// The block in `slot` was written again.
    fn hit(&mut self, _slot: u32) {}
    /// The block in `slot` left the cache.
    fn removed(&mut self, _slot: u32) {}
    /// The block in `old` moved to `new` (taken with `place`).
    fn moved(&mut self, _old: u32, _new: u32) {}
    /// The next step of cleaning; `loop_back` says whether a loop-back is allowed now.
    fn next_clean(&mut self, slots: &CacheSlots, loop_back: bool) -> Clean;
    /// The cache now has `capacity` slots; every slot from there up is empty.
    fn resize(&mut self, capacity: u32);
    /// True once after the log's head has come round to its start (a new epoch, §6.1).
    fn new_epoch(&mut self) -> bool {
        false
    }
    /// At the start of an epoch: what the policy needs from the cache's state.
    fn start_epoch(&mut self, _slots: &CacheSlots) {}
}

const EMPTY: u64 = u64::MAX;

/// Which block each slot holds, each user zone's slots, and the extent count.
pub struct CacheSlots {
    blocks_per_zone: u64,
    block_of: Vec<u64>,
    /// Each slot's place in its user zone's list.
    place_in_user: Vec<u32>,
    slot_of: FxHashMap<u64, u32>,
    by_user: Vec<Vec<u32>>,
    extents: u64,
}

impl CacheSlots {
    fn new(blocks_per_zone: u64) -> Self {
        CacheSlots { blocks_per_zone, block_of: Vec::new(), place_in_user: Vec::new(), slot_of: FxHashMap::default(), by_user: Vec::new(), extents: 0 }
    }

    /// The block (global 4 KiB block number of the extendable space) in `slot`.
    pub fn block(&self, slot: u32) -> Option<u64> {
        self.block_of.get(slot as usize).copied().filter(|&b| b != EMPTY)
    }

    pub fn user_of_slot(&self, slot: u32) -> Option<u32> {
        self.block(slot).map(|b| (b / self.blocks_per_zone) as u32)
    }

    #[inline]
    pub fn slot_of(&self, block: u64) -> Option<u32> {
        self.slot_of.get(&block).copied()
    }

    /// Cached blocks of user zone `user` (its cache occupancy, §6.2).
    pub fn occupancy(&self, user: u32) -> u64 {
        self.by_user.get(user as usize).map_or(0, |v| v.len() as u64)
    }

    pub fn slots_of_user(&self, user: u32) -> &[u32] {
        self.by_user.get(user as usize).map_or(&[], |v| v.as_slice())
    }

    /// User zones with cached blocks.
    pub fn users(&self) -> impl Iterator<Item = u32> + '_ {
        self.by_user.iter().enumerate().filter(|(_, v)| !v.is_empty()).map(|(u, _)| u as u32)
    }

    pub fn cached(&self) -> u64 {
        self.slot_of.len() as u64
    }

    /// Whether `a` and `b` are neighbouring slots of one cache zone.
    fn adjacent(&self, a: u32, b: u32) -> bool {
        b == a + 1 && !(b as u64).is_multiple_of(self.blocks_per_zone)
    }

    /// Extents that `block` in `slot` joins on either side.
    fn neighbours(&self, block: u64, slot: u32) -> u64 {
        let left = block > 0 && self.slot_of(block - 1).is_some_and(|s| self.adjacent(s, slot));
        let right = self.slot_of(block + 1).is_some_and(|s| self.adjacent(slot, s));
        left as u64 + right as u64
    }

    fn insert(&mut self, block: u64, slot: u32) {
        let s = slot as usize;
        if self.block_of.len() <= s {
            self.block_of.resize(s + 1, EMPTY);
            self.place_in_user.resize(s + 1, 0);
        }
        // A new extent, one fewer for each neighbour it continues.
        self.extents = self.extents + 1 - self.neighbours(block, slot);
        self.block_of[s] = block;
        self.slot_of.insert(block, slot);
        let user = (block / self.blocks_per_zone) as usize;
        if self.by_user.len() <= user {
            self.by_user.resize_with(user + 1, Vec::new);
        }
        self.place_in_user[s] = self.by_user[user].len() as u32;
        self.by_user[user].push(slot);
    }

    fn remove(&mut self, slot: u32) -> u64 {
        let s = slot as usize;
        let block = self.block_of[s];
        self.slot_of.remove(&block);
        self.extents = self.extents + self.neighbours(block, slot) - 1;
        self.block_of[s] = EMPTY;
        let list = &mut self.by_user[(block / self.blocks_per_zone) as usize];
        let at = self.place_in_user[s] as usize;
        list.swap_remove(at);
        if let Some(&moved) = list.get(at) {
            self.place_in_user[moved as usize] = at as u32;
        }
        block
    }

    /// Mapping-table extents: runs of consecutive blocks in consecutive slots of a cache zone.
    pub fn extents(&self) -> u64 {
        self.extents
    }
}

/// The cache: its zones, its slots and the policy ordering them.
pub struct CmrCache {
    pub slots: CacheSlots,
    pub policy: Box<dyn CachePolicy>,
    /// Physical zones of the cache, in slot order.
    zones: Vec<u32>,
    /// At most this many slots are used (an experiment's cache smaller than its zones).
    limit: Option<u64>,
    quota_extents: u64,
}

impl CmrCache {
    /// A cache for a partition of `partition_bytes`, its table's quota `quota_bytes` or 25 MB
    /// per TB of it.
    pub fn new(policy: Box<dyn CachePolicy>, blocks_per_zone: u64, partition_bytes: u64, limit: Option<u64>, quota_bytes: Option<u64>) -> Self {
        let quota_bytes = quota_bytes.unwrap_or((partition_bytes as u128 * MAP_QUOTA_PER_TB as u128 / TB) as u64);
        CmrCache { slots: CacheSlots::new(blocks_per_zone), policy, zones: Vec::new(), limit, quota_extents: (quota_bytes / MAP_ENTRY_BYTES).max(1) }
    }

    pub fn capacity(&self) -> u64 {
        let whole = self.zones.len() as u64 * self.slots.blocks_per_zone;
        self.limit.map_or(whole, |l| l.min(whole))
    }

    pub fn zones(&self) -> &[u32] {
        &self.zones
    }

    /// Where slot `slot` is: (physical zone, block in it).
    #[inline]
    pub fn locate(&self, slot: u32) -> (u32, u64) {
        let bpz = self.slots.blocks_per_zone;
        (self.zones[(slot as u64 / bpz) as usize], slot as u64 % bpz)
    }

    /// Adds physical zone `zone` to the cache.
    pub fn add_zone(&mut self, zone: u32) {
        self.zones.push(zone);
        self.policy.resize(self.capacity() as u32);
    }

    /// The cache zone that would go next when the cache shrinks (its last), and its slots.
    pub fn last_zone(&self) -> Option<(u32, std::ops::Range<u32>)> {
        let zone = *self.zones.last()?;
        let bpz = self.slots.blocks_per_zone;
        let first = (self.zones.len() as u64 - 1) * bpz;
        Some((zone, first as u32..(first + bpz) as u32))
    }

    /// Drops the last cache zone; its slots must be empty.
    pub fn drop_last_zone(&mut self) -> Option<u32> {
        let zone = self.zones.pop()?;
        self.policy.resize(self.capacity() as u32);
        Some(zone)
    }

    /// Replaces cache zone `old` by `new` (its contents copied by the caller).
    pub fn move_zone(&mut self, old: u32, new: u32) {
        if let Some(z) = self.zones.iter_mut().find(|z| **z == old) {
            *z = new;
        }
    }

    /// Whether `blocks` more blocks, making at most as many new extents, fit now.
    pub fn has_room(&self, blocks: u64) -> bool {
        self.policy.has_room(blocks) && self.slots.extents + blocks <= self.quota_extents
    }

    /// Whether `blocks` new blocks fit in an empty cache (space and mapping table).
    pub fn fits(&self, blocks: u64) -> bool {
        blocks <= self.capacity() && blocks <= self.quota_extents
    }

    /// Whether the mapping table, rather than the space, is what is full.
    pub fn table_full(&self, blocks: u64) -> bool {
        self.slots.extents + blocks > self.quota_extents
    }

    /// Stores `block` in a new slot (the policy has room). Returns the slot.
    pub fn insert(&mut self, block: u64) -> u32 {
        let slot = self.policy.place().expect("room checked before inserting");
        self.slots.insert(block, slot);
        self.policy.inserted(slot);
        slot
    }

    /// Takes the block in `slot` out of the cache; returns it.
    pub fn remove(&mut self, slot: u32) -> u64 {
        self.policy.removed(slot);
        self.slots.remove(slot)
    }

    /// Moves the block in `old` to a new slot from the policy; returns the new slot.
    pub fn relocate(&mut self, old: u32) -> u32 {
        let new = self.policy.place().expect("a loop-back needs a free slot");
        let block = self.slots.remove(old);
        self.slots.insert(block, new);
        self.policy.moved(old, new);
        new
    }

    /// Starts an epoch if the policy has begun one; returns whether it did.
    pub fn epoch(&mut self) -> bool {
        if self.policy.new_epoch() {
            self.policy.start_epoch(&self.slots);
            return true;
        }
        false
    }

    /// The mapping table's quota, bytes.
    pub fn quota_bytes(&self) -> u64 {
        self.quota_extents * MAP_ENTRY_BYTES
    }

    /// Cached blocks, extents and the table's size and quota (the zone count is the system's).
    pub fn gauges(&self, out: &mut Gauges) {
        out.set(&CACHED_BLOCKS, self.slots.cached() as f64);
        out.set(&CACHE_MAP_BYTES, (self.slots.extents * MAP_ENTRY_BYTES) as f64);
        out.set(&CACHE_MAP_QUOTA_BYTES, (self.quota_extents * MAP_ENTRY_BYTES) as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extents_count_runs_of_neighbouring_blocks_in_neighbouring_slots() {
        let mut s = CacheSlots::new(8);
        s.insert(10, 0);
        s.insert(12, 2);
        assert_eq!(s.extents(), 2);
        s.insert(11, 1);
        assert_eq!(s.extents(), 1, "10, 11, 12 in slots 0, 1, 2: one extent");
        s.insert(13, 8);
        assert_eq!(s.extents(), 2, "slot 8 starts another cache zone");
        assert_eq!(s.remove(1), 11);
        assert_eq!(s.extents(), 3);
        assert_eq!((s.occupancy(1), s.slots_of_user(1).len(), s.cached()), (3, 3, 3));
        assert_eq!((s.user_of_slot(8), s.block(1), s.slot_of(12)), (Some(1), None, Some(2)));
    }

    #[test]
    fn the_quota_is_25_mb_per_tb() {
        let c = CmrCache::new(Box::new(super::super::lru::BlockLru::new(false)), 8, 460 << 30, None, None);
        let quota = c.quota_extents * MAP_ENTRY_BYTES;
        let expected = 460 * (25 << 20) / 1024;
        assert!(expected - quota < MAP_ENTRY_BYTES, "{quota} of {expected}: §7.1's 11.5 MB for prn_1");
    }
}
