//! The CMR cache of §6.1: the zones left over in CMR format beyond the user data (or, where the
//! partition has no whole CMR zone to spare, one SMR zone formatted CMR on its own, `allocation`)
//! hold the non-sequential writes to SMR zones, in 4 KiB slots numbered across the cache zones
//! (slot `s` is block `s % blocks_per_zone` of cache zone `s / blocks_per_zone`), mapped by the
//! table of (lba, pba, length) entries (`extents`) whose quota is 25 MB per TB of partition
//! (§6.1): cleaning starts when the cache or the table is full.
//!
//! Here: the cache zones and the slot count, the placement of a write's uncached runs in the
//! slots the policy hands out (cut at cache-zone ends: an entry's slots are physically
//! consecutive), whether a write fits now, and the policy told of every change to the table. A
//! `CachePolicy` keeps the free slots and the order of the entries and says what cleaning does
//! next: block LRU and the improved block LRU (`lru`), the in-place FIFO log (`fifo`), the
//! loop-back log (`loopback`). The order of the entries by their last write, which `lru` evicts
//! by and `loopback` tells hot zones by, is the kernel's `lru` policy (`kernel::policy`) over
//! entry numbers; the free-slot placement and the steps of cleaning are FluidSMR's own, since
//! they work on the extent map (entries that split, merge and move). So FluidSMR's `lru` is the
//! kernel's `lru` over extents rather than blocks, plus placement and zone eviction. Moving
//! data, timing it and evicting zones is the system's (`clean`). Not here: whether a write goes
//! to the cache.

use super::extents::{Cut, EntryId, Extent, ExtentMap, Inserted};
use super::geometry::BLOCK;
use smr_kernel::metrics::{Gauges, Metric, Unit};
use smr_kernel::policy::recency::Recency;
use smr_kernel::policy::Policy;

pub static CACHE_ZONES: Metric = Metric::new("cache_zones", Unit::Count, "FluidSMR: zones of the CMR cache");
pub static CACHE_BYTES: Metric = Metric::new(
    "cache_bytes",
    Unit::Bytes,
    "FluidSMR: the cache's size, the bytes of its zones it may use (cache_limit, or all of them)",
);
pub static CACHED_BLOCKS: Metric = Metric::new("cached_blocks", Unit::Blocks, "FluidSMR: blocks held in the CMR cache");
pub static CACHE_ENTRIES: Metric = Metric::new(
    "cache_entries",
    Unit::Count,
    "FluidSMR: (lba, pba, length) entries of the cache's mapping table (§6.1)",
);
pub static CACHE_MAP_BYTES: Metric = Metric::new(
    "cache_map_bytes",
    Unit::Bytes,
    "FluidSMR: memory of the cache's mapping table (entries times map_entry)",
);
pub static CACHE_MAP_QUOTA_BYTES: Metric = Metric::new(
    "cache_map_quota_bytes",
    Unit::Bytes,
    "FluidSMR: the mapping table's quota, 25 MB per TB of partition (§6.1)",
);

/// What the next step of cleaning is, as a policy sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clean {
    /// The log's tail passed empty slots.
    Advanced,
    /// Merge every cached block of this user zone into its SMR zone.
    EvictZone(u32),
    /// Merge only this entry's blocks into their SMR zone (plain block LRU).
    EvictEntry(EntryId),
    /// Move this entry (at the log's tail) to the log's head (loop-back).
    LoopBack(EntryId),
}

/// How a cache orders its slots and entries: where new data goes and what cleaning does next.
pub trait CachePolicy {
    /// Free slots.
    fn free(&self) -> u64;
    /// The free slot runs `(first slot, slots)` in the order new data takes them, until `blocks`
    /// slots are listed (fewer if fewer are free).
    fn free_runs(&self, blocks: u64, out: &mut Vec<(u32, u32)>);
    /// New data now fills slots `pba..pba + len`, the start of the first free run.
    fn take(&mut self, pba: u32, len: u32);
    /// Slots `pba..pba + len` were emptied.
    fn release(&mut self, _pba: u32, _len: u32) {}
    /// Whether new data may join the entry that follows it in the slots (not in a log, where
    /// that entry is the oldest).
    fn joins_following(&self) -> bool {
        true
    }
    /// The order of the entries by their last write, for a policy that keeps one: the kernel's
    /// `lru` over entry numbers (an entry's blocks are not its slots here, so it is told none);
    /// the changes to the table below reach it.
    fn recency(&mut self) -> Option<&mut Recency> {
        None
    }
    /// A new entry.
    fn inserted(&mut self, entry: EntryId) {
        if let Some(r) = self.recency() {
            r.grow(entry as usize + 1);
            r.inserted(entry, 0, true);
        }
    }
    /// An entry was written again (in place, or grown by a write next to it).
    fn hit(&mut self, entry: EntryId) {
        if let Some(r) = self.recency() {
            r.hit(entry, 0, false);
        }
    }
    /// An entry left the table.
    fn removed(&mut self, entry: EntryId) {
        if let Some(r) = self.recency() {
            r.removed(entry, 0, true);
        }
    }
    /// Part of entry `of` became entry `part` (a split or a relocation): it keeps `of`'s place.
    fn split(&mut self, of: EntryId, part: EntryId) {
        if let Some(r) = self.recency() {
            r.grow(part as usize + 1);
            r.split(of, part);
        }
    }
    /// The next step of cleaning, or `None` when there is nothing left to clean; `loop_back`
    /// says whether loop-backs are still allowed in this cleaning.
    fn next_clean(&mut self, map: &ExtentMap, loop_back: bool) -> Option<Clean>;
    /// The log's tail passes the `len` slots of the entry just moved from it (logs only).
    fn passed(&mut self, _len: u32) {}
    /// The cache now has `capacity` slots; every slot from there up is empty.
    fn resize(&mut self, capacity: u32);
    /// True once after the log's head has come round to its start (a new epoch, §6.1).
    fn new_epoch(&mut self) -> bool {
        false
    }
    /// At the start of an epoch: what the policy needs from the table.
    fn start_epoch(&mut self, _map: &ExtentMap) {}
}

/// Whether a write's uncached runs fit in the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Room {
    /// Now, in the placement computed.
    Now,
    /// After cleaning.
    Later,
    /// Not even in an empty cache: the write must go to its zone.
    Never,
}

/// The cache: its zones, its mapping table and the policy ordering them.
pub struct CmrCache {
    pub map: ExtentMap,
    pub policy: Box<dyn CachePolicy>,
    blocks_per_zone: u64,
    /// Physical zones of the cache, in slot order.
    zones: Vec<u32>,
    /// At most this many slots are used (an experiment's cache smaller than its zones).
    limit: Option<u64>,
    entry_bytes: u64,
    quota_entries: u64,
    /// The placement of the write being served: (lba, slot, blocks), in lba order.
    pub placement: Vec<(u64, u32, u32)>,
    /// The uncached runs of the write being served: (lba, blocks).
    gaps: Vec<(u64, u64)>,
    runs: Vec<(u32, u32)>,
    cut_runs: Vec<(u32, u32)>,
    freed: Vec<(u32, u32)>,
    cuts: Vec<Cut>,
}

impl CmrCache {
    /// A cache whose mapping table holds `quota_bytes` of entries of `entry_bytes` (at least
    /// one entry).
    pub fn new(
        policy: Box<dyn CachePolicy>,
        blocks_per_zone: u64,
        limit: Option<u64>,
        quota_bytes: u64,
        entry_bytes: u64,
    ) -> Self {
        CmrCache {
            map: ExtentMap::new(blocks_per_zone),
            policy,
            blocks_per_zone,
            zones: Vec::new(),
            limit,
            entry_bytes,
            quota_entries: (quota_bytes / entry_bytes).max(1),
            placement: Vec::new(),
            gaps: Vec::new(),
            runs: Vec::new(),
            cut_runs: Vec::new(),
            freed: Vec::new(),
            cuts: Vec::new(),
        }
    }

    pub fn capacity(&self) -> u64 {
        let whole = self.zones.len() as u64 * self.blocks_per_zone;
        self.limit.map_or(whole, |l| l.min(whole))
    }

    pub fn zones(&self) -> &[u32] {
        &self.zones
    }

    /// Where slot `slot` is: (physical zone, block in it).
    #[inline]
    pub fn locate(&self, slot: u32) -> (u32, u64) {
        let bpz = self.blocks_per_zone;
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
        let bpz = self.blocks_per_zone;
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

    /// Free slot runs for `blocks` slots in the policy's order, each cut where a cache zone
    /// ends, into `self.runs`; whether there were enough.
    fn free_runs(&mut self, blocks: u64) -> bool {
        self.policy.free_runs(blocks, &mut self.cut_runs);
        let bpz = self.blocks_per_zone as u32;
        let mut left = blocks;
        self.runs.clear();
        for &(mut pba, mut len) in &self.cut_runs {
            while len > 0 && left > 0 {
                let piece = len.min(bpz - pba % bpz).min(left.min(u32::MAX as u64) as u32);
                self.runs.push((pba, piece));
                (pba, len, left) = (pba + piece, len - piece, left - piece as u64);
            }
        }
        left == 0
    }

    /// Blocks of `first..end` not cached now.
    pub fn uncached(&mut self, first: u64, end: u64) -> u64 {
        self.map.gaps(first, end, &mut self.gaps);
        self.gaps.iter().map(|g| g.1).sum()
    }

    /// Plans the uncached runs of blocks `first..end` (of the extendable space) into free
    /// slots, into `self.placement`: whether they fit now, after cleaning, or never.
    pub fn plan(&mut self, first: u64, end: u64) -> Room {
        let blocks = self.uncached(first, end);
        let gaps = std::mem::take(&mut self.gaps);
        let room = self.place(&gaps, blocks);
        self.gaps = gaps;
        room
    }

    fn place(&mut self, gaps: &[(u64, u64)], blocks: u64) -> Room {
        self.placement.clear();
        if blocks > self.capacity() || gaps.len() as u64 > self.quota_entries {
            return Room::Never;
        }
        if !self.free_runs(blocks) {
            return Room::Later;
        }
        let mut runs = self.runs.iter().copied();
        let mut run = runs.next();
        for &(mut lba, mut n) in gaps {
            while n > 0 {
                let (pba, len) = run.expect("the runs hold every gap's blocks");
                let piece = (len as u64).min(n) as u32;
                self.placement.push((lba, pba, piece));
                (lba, n) = (lba + piece as u64, n - piece as u64);
                run = if piece == len { runs.next() } else { Some((pba + piece, len - piece)) };
            }
        }
        // Entries merge with neighbours they continue, so this many new entries is the most.
        if self.map.len() + self.placement.len() as u64 > self.quota_entries {
            return Room::Later;
        }
        Room::Now
    }

    /// Whether the mapping table, rather than the space, is what stops a write of `blocks`
    /// uncached blocks: the space is free.
    pub fn table_full(&self, blocks: u64) -> bool {
        self.policy.free() >= blocks
    }

    /// Stores the planned write (`plan` said `Now`): its new entries, in `self.placement`'s
    /// slots. Returns the blocks placed.
    pub fn store_planned(&mut self) -> u64 {
        let mut blocks = 0;
        for i in 0..self.placement.len() {
            let (lba, pba, len) = self.placement[i];
            self.policy.take(pba, len);
            let done = self.map.insert(lba, pba, len, self.policy.joins_following());
            self.note_insert(done);
            blocks += len as u64;
        }
        blocks
    }

    fn note_insert(&mut self, done: Inserted) {
        if let Some(gone) = done.absorbed {
            self.policy.removed(gone);
        }
        if done.new {
            self.policy.inserted(done.id);
        } else {
            self.policy.hit(done.id);
        }
    }

    /// The cached blocks of `first..end` are written again in place: each entry holding some is
    /// a hit. Returns the blocks.
    pub fn hit_all(&mut self, first: u64, end: u64) -> u64 {
        let (map, policy) = (&self.map, &mut self.policy);
        let mut blocks = 0;
        for id in map.overlapping(first, end) {
            let e = map.get(id);
            blocks += e.lba_end().min(end) - e.lba.max(first);
            policy.hit(id);
        }
        blocks
    }

    /// Takes entry `id` out of the cache; returns what it mapped.
    pub fn remove(&mut self, id: EntryId) -> Extent {
        self.policy.removed(id);
        let e = self.map.remove(id);
        self.policy.release(e.pba, e.len);
        e
    }

    /// Takes blocks `first..end` out of the cache (stale copies: no I/O).
    pub fn cut(&mut self, first: u64, end: u64) {
        let (mut freed, mut cuts) = (std::mem::take(&mut self.freed), std::mem::take(&mut self.cuts));
        self.map.cut(first, end, &mut freed, &mut cuts);
        for cut in cuts.drain(..) {
            match cut {
                Cut::Removed(id) => self.policy.removed(id),
                Cut::Split { left, right } => self.policy.split(left, right),
            }
        }
        for (pba, len) in freed.drain(..) {
            self.policy.release(pba, len);
        }
        (self.freed, self.cuts) = (freed, cuts);
    }

    /// Moves entry `id` from the log's tail to free slots at its head (a loop-back), if they
    /// are free now and the table takes the pieces. Returns the slot runs it moved to, in lba
    /// order, or `None`.
    pub fn loop_back(&mut self, id: EntryId) -> Option<Vec<(u32, u32)>> {
        let e = self.map.get(id);
        if !self.free_runs(e.len as u64) || self.map.len() + self.runs.len() as u64 - 1 > self.quota_entries {
            return None;
        }
        let runs = self.runs.clone();
        self.policy.passed(e.len);
        for &(pba, len) in &runs {
            self.policy.take(pba, len);
        }
        let mut parts = Vec::with_capacity(runs.len());
        self.map.relocate(id, &runs, &mut parts);
        for &part in &parts[1..] {
            self.policy.split(id, part);
        }
        Some(runs)
    }

    /// Starts an epoch if the policy has begun one; returns whether it did.
    pub fn epoch(&mut self) -> bool {
        if self.policy.new_epoch() {
            self.policy.start_epoch(&self.map);
            return true;
        }
        false
    }

    /// The mapping table's quota, bytes.
    pub fn quota_bytes(&self) -> u64 {
        self.quota_entries * self.entry_bytes
    }

    pub fn quota_entries(&self) -> u64 {
        self.quota_entries
    }

    /// Cached blocks, entries and the table's size and quota (the zone count is the system's).
    pub fn gauges(&self, out: &mut Gauges) {
        out.set(&CACHE_BYTES, (self.capacity() * BLOCK) as f64);
        out.set(&CACHED_BLOCKS, self.map.cached() as f64);
        out.set(&CACHE_ENTRIES, self.map.len() as f64);
        out.set(&CACHE_MAP_BYTES, (self.map.len() * self.entry_bytes) as f64);
        out.set(&CACHE_MAP_QUOTA_BYTES, self.quota_bytes() as f64);
    }
}
