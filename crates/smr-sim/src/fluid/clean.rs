//! Writing non-sequential writes into the CMR cache and cleaning it (§6.1), and the zone
//! read-modify-write that an NSW costs without a cache (§2.1).
//!
//! The cached part of an NSW is updated in place; its uncached runs become new entries in the
//! slots the policy hands out, after cleaning has made room for all of them (space and
//! mapping-table entries). Cleaning follows the policy's steps: evict a zone (read the SMR zone
//! and every cached entry of it, rewrite the zone from its start with them merged), evict one
//! entry (plain block LRU), or re-queue an entry at the log's head (loop-back). When an evicted
//! zone is an occupancy swap candidate (§6.2), the eviction becomes a swap with a cold CMR zone.
//! A write the cache cannot take even when empty, or one left without room once cleaning has
//! nothing more to clean, rewrites its zone instead: cleaning never runs out of steps and never
//! loops. Not here: the policies' orders (`lru`, `fifo`, `loopback`), the table (`extents`).

use smr_core::Op;

use super::cache::{CachePolicy, Clean, CmrCache, Room};
use super::drive::{HybridDrive, Image};
use super::extents::EntryId;
use super::fifo::FifoLog;
use super::geometry::{Geometry, BLOCK};
use super::loopback::LoopBackLog;
use super::lru::{BlockLru, Placement};
use super::mapping::Role;
use super::relocate::{MOVED_BYTES, TO_CMR_CONVERSIONS, TO_SMR_CONVERSIONS};
use super::scheme::Policy;
use super::Fluid;
use smr_kernel::metrics::{Counters, Metric, Ratio, Unit};
use smr_kernel::{ChannelId, IoCtx, SimError};

pub static NSW_WRITES: Metric = Metric::new(
    "nsw_writes",
    Unit::Count,
    "FluidSMR: host writes (per zone piece) to SMR zones not at the write pointer",
);
pub static SEQUENTIAL_WRITES: Metric = Metric::new(
    "sequential_writes",
    Unit::Count,
    "FluidSMR: host writes (per zone piece) at an SMR zone's write pointer",
);
pub static CMR_WRITES: Metric =
    Metric::new("cmr_writes", Unit::Count, "FluidSMR: host writes (per zone piece) to CMR zones, in place");
pub static HOST_WRITE_PIECES: Metric =
    Metric::new("host_write_pieces", Unit::Count, "FluidSMR: host writes (per zone piece), to CMR and SMR zones");
pub static CMR_WRITE_SHARE: Ratio = Ratio::new(
    Metric::new(
        "cmr_write_share",
        Unit::Fraction,
        "FluidSMR: share of host writes (per zone piece) that found their zone in CMR",
    ),
    &CMR_WRITES,
    &HOST_WRITE_PIECES,
);
pub static CACHE_HIT_BLOCKS: Metric = Metric::new(
    "cache_hit_blocks",
    Unit::Blocks,
    "FluidSMR: NSW blocks that found their block cached (updated in place)",
);
pub static CACHE_NEW_BLOCKS: Metric =
    Metric::new("cache_new_blocks", Unit::Blocks, "FluidSMR: NSW blocks that took a new cache slot");
pub static ZONE_REWRITES: Metric = Metric::new(
    "zone_rewrites",
    Unit::Count,
    "FluidSMR: SMR zone read-modify-writes (cache evictions, and NSWs without a cache)",
);
pub static EVICTED_BLOCKS: Metric =
    Metric::new("evicted_blocks", Unit::Blocks, "FluidSMR: cached blocks merged into their SMR zones");
pub static EVICTED_ENTRIES: Metric =
    Metric::new("evicted_entries", Unit::Count, "FluidSMR: mapping-table entries merged into their SMR zones");
pub static LOOP_BACKS: Metric =
    Metric::new("loop_backs", Unit::Blocks, "FluidSMR: cached blocks re-queued from the log's tail to its head (§6.1)");
pub static TABLE_CLEANINGS: Metric = Metric::new(
    "table_cleanings",
    Unit::Count,
    "FluidSMR: cleanings started because the mapping table was full (§6.1)",
);
pub static MAP_PERSISTS: Metric = Metric::new(
    "map_persists",
    Unit::Count,
    "FluidSMR: zone-map persists after allocations, swaps and conversions (§4.2)",
);
pub static BLOCKS_PER_REWRITE: Ratio = Ratio::new(
    Metric::new("blocks_per_rewrite", Unit::Ratio, "FluidSMR: cached blocks merged per zone rewrite"),
    &EVICTED_BLOCKS,
    &ZONE_REWRITES,
);
pub static CACHE_WRITE_BLOCKS: Metric =
    Metric::new("cache_write_blocks", Unit::Blocks, "FluidSMR: NSW blocks written to the cache");
pub static CACHE_HIT_RATIO: Ratio = Ratio::new(
    Metric::new(
        "cache_hit_ratio",
        Unit::Fraction,
        "FluidSMR: NSW blocks that found their block cached / NSW blocks written to the cache",
    ),
    &CACHE_HIT_BLOCKS,
    &CACHE_WRITE_BLOCKS,
);

/// The system's counters (beside the code that counts them, across the mechanism files).
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    pub nsw_writes: u64,
    pub sequential_writes: u64,
    pub cmr_writes: u64,
    pub hit_blocks: u64,
    pub new_blocks: u64,
    pub zone_rewrites: u64,
    pub evicted_blocks: u64,
    pub evicted_entries: u64,
    pub loop_backs: u64,
    pub table_cleanings: u64,
    pub map_persists: u64,
    pub moved_bytes: u64,
    pub swaps: u64,
    pub frequency_swaps: u64,
    pub occupancy_swaps: u64,
    pub to_smr: u64,
    pub to_cmr: u64,
    pub windows: u64,
    pub swap_windows: u64,
    pub allocated_zones: u64,
}

impl Counts {
    pub fn counters(&self, out: &mut Counters) {
        for (metric, value) in [
            (&NSW_WRITES, self.nsw_writes),
            (&SEQUENTIAL_WRITES, self.sequential_writes),
            (&CMR_WRITES, self.cmr_writes),
            (&HOST_WRITE_PIECES, self.cmr_writes + self.sequential_writes + self.nsw_writes),
            (&CACHE_HIT_BLOCKS, self.hit_blocks),
            (&CACHE_NEW_BLOCKS, self.new_blocks),
            (&CACHE_WRITE_BLOCKS, self.hit_blocks + self.new_blocks),
            (&ZONE_REWRITES, self.zone_rewrites),
            (&EVICTED_BLOCKS, self.evicted_blocks),
            (&EVICTED_ENTRIES, self.evicted_entries),
            (&LOOP_BACKS, self.loop_backs),
            (&TABLE_CLEANINGS, self.table_cleanings),
            (&MAP_PERSISTS, self.map_persists),
            (&MOVED_BYTES, self.moved_bytes),
            (&super::swap::SWAPS, self.swaps),
            (&super::swap::FREQUENCY_SWAPS, self.frequency_swaps),
            (&super::occupancy::OCCUPANCY_SWAPS, self.occupancy_swaps),
            (&TO_SMR_CONVERSIONS, self.to_smr),
            (&TO_CMR_CONVERSIONS, self.to_cmr),
            (&super::adapt::WINDOWS, self.windows),
            (&super::adapt::SWAP_WINDOWS, self.swap_windows),
            (&super::allocation::ALLOCATED_ZONES, self.allocated_zones),
        ] {
            out.add(metric, value);
        }
        out.declare(&BLOCKS_PER_REWRITE);
        out.declare(&CACHE_HIT_RATIO);
        out.declare(&CMR_WRITE_SHARE);
    }
}

/// The cache for `policy` (none without one), its zones added by the layout, its mapping table
/// holding `quota_bytes` of entries of `entry_bytes`; block LRU places new data by `placement`.
pub fn new_cache(
    policy: Policy,
    placement: Placement,
    geo: &Geometry,
    limit: Option<u64>,
    quota_bytes: u64,
    entry_bytes: u64,
) -> Option<CmrCache> {
    let order: Box<dyn CachePolicy> = match policy {
        Policy::None => return None,
        Policy::BlockLru => Box::new(BlockLru::new(false, placement)),
        Policy::ImprovedLru => Box::new(BlockLru::new(true, placement)),
        Policy::Fifo => Box::new(FifoLog::new()),
        Policy::LoopBack => Box::new(LoopBackLog::new()),
    };
    Some(CmrCache::new(order, geo.blocks_per_zone(), limit, quota_bytes, entry_bytes))
}

/// A host write's piece: `len` bytes at `offset` of a user zone, holding `version`.
#[derive(Clone, Copy, Debug)]
pub struct Piece {
    pub offset: u64,
    pub len: u64,
    pub version: u64,
}

/// A run of blocks on the drive: (zone, first block, blocks).
pub type Run = (u32, u64, u64);

/// Issues one I/O per stretch of `runs` that continue one another in the same zone, calling
/// `done(zone, first block, blocks)` after each.
pub fn run_io(
    drive: &mut HybridDrive,
    ctx: &mut IoCtx,
    ch: ChannelId,
    op: Op,
    runs: impl IntoIterator<Item = Run>,
    mut done: impl FnMut(&mut HybridDrive, u32, u64, u64),
) -> Result<(), SimError> {
    let mut open: Option<Run> = None;
    for (zone, first, n) in runs {
        match open.as_mut() {
            Some((z, f, len)) if *z == zone && *f + *len == first => *len += n,
            _ => {
                if let Some((z, f, len)) = open.replace((zone, first, n)) {
                    drive.io(ctx, ch, op, z, f * BLOCK, len * BLOCK)?;
                    done(drive, z, f, len);
                }
            }
        }
    }
    if let Some((z, f, len)) = open {
        drive.io(ctx, ch, op, z, f * BLOCK, len * BLOCK)?;
        done(drive, z, f, len);
    }
    Ok(())
}

/// Loop-backs whose I/O is still to be done (their contents have moved already): the runs
/// read at the tail and the runs written at the head, in order, and the entries moved.
#[derive(Default)]
struct LoopBacks {
    reads: Vec<Run>,
    writes: Vec<Run>,
    moved: Vec<EntryId>,
}

impl Fluid {
    /// The blocks `first..end` (of the extendable space) of a piece of user zone `user`.
    fn piece_blocks(&self, user: u32, piece: Piece) -> (u64, u64) {
        let base = user as u64 * self.geo.blocks_per_zone();
        (base + piece.offset / BLOCK, base + (piece.offset + piece.len).div_ceil(BLOCK))
    }

    /// An NSW to SMR user zone `user`: into the cache, or a zone rewrite when it cannot hold it.
    pub fn cache_write(&mut self, ctx: &mut IoCtx, user: u32, piece: Piece) -> Result<(), SimError> {
        let (first, end) = self.piece_blocks(user, piece);
        let fits = self.make_room(ctx, user, first, end)?;
        if self.drive.is_cmr(self.map.zone_of(user)) {
            // Cleaning swapped the zone into CMR (§6.2): the write goes there in place.
            return self.write_cmr(ctx, user, piece);
        }
        if !fits {
            return self.rewrite_zone(ctx, self.ch.rmw, user, Some(piece));
        }
        let cache = self.cache.as_mut().expect("room was made in a cache");
        self.counts.hit_blocks += cache.hit_all(first, end);
        self.counts.new_blocks += cache.store_planned();
        let places: Vec<Run> = cache
            .map
            .overlapping(first, end)
            .map(|id| {
                let e = cache.map.get(id);
                let (zone, block) = cache.locate(e.pba);
                let skip = first.saturating_sub(e.lba);
                (zone, block + skip, e.lba_end().min(end) - e.lba.max(first))
            })
            .collect();
        let (ch, version) = (self.ch.cache, piece.version);
        run_io(&mut self.drive, ctx, ch, Op::Write, places, |drive, zone, block, n| {
            drive.store(zone, block, n, version)
        })?;
        self.map.extend_valid(user, piece.offset + piece.len);
        self.start_epoch_if_due();
        Ok(())
    }

    /// Cleans the cache, one policy step at a time, until the uncached runs of blocks
    /// `first..end` of user zone `user` fit (their placement planned in the cache). Returns
    /// false when they cannot: more than an empty cache holds, or nothing left to clean, or the
    /// zone moved to CMR meanwhile.
    fn make_room(&mut self, ctx: &mut IoCtx, user: u32, first: u64, end: u64) -> Result<bool, SimError> {
        let mut budget: Option<u64> = None;
        let mut batch = LoopBacks::default();
        let mut counted = false;
        let fits = loop {
            if self.drive.is_cmr(self.map.zone_of(user)) {
                break false;
            }
            let Some(cache) = self.cache.as_mut() else { break false };
            match cache.plan(first, end) {
                Room::Now => break true,
                Room::Never => break false,
                Room::Later => {}
            }
            if !counted {
                counted = true;
                let blocks = cache.uncached(first, end);
                if cache.table_full(blocks) {
                    self.counts.table_cleanings += 1;
                }
            }
            let budget = budget.get_or_insert(cache.map.cached());
            let step = cache.policy.next_clean(&cache.map, *budget > 0);
            // An entry met at the tail a second time in one cleaning (the log went round) is
            // evicted, as is one the head or the table cannot take now.
            if let Some(Clean::LoopBack(id)) = step {
                let len = cache.map.get(id).len as u64;
                if !batch.moved.contains(&id) && self.loop_back(id, &mut batch) {
                    *budget = budget.saturating_sub(len);
                    continue;
                }
            }
            self.flush_loop_backs(ctx, &mut batch)?;
            let cache = self.cache.as_ref().expect("checked above");
            match step {
                None => break false,
                Some(Clean::Advanced) => {}
                Some(Clean::EvictEntry(id)) => {
                    let owner = cache.map.user_of(id);
                    self.rewrite_zone_merging(ctx, self.ch.rmw, owner, Some(id), None)?;
                }
                Some(Clean::EvictZone(owner)) => self.evict_zone(ctx, owner)?,
                Some(Clean::LoopBack(id)) => {
                    let owner = cache.map.user_of(id);
                    self.evict_zone(ctx, owner)?;
                }
            }
        };
        self.flush_loop_backs(ctx, &mut batch)?;
        Ok(fits)
    }

    /// Evicts every cached entry of SMR user zone `user`: a swap with a cold CMR zone if it is
    /// an occupancy swap candidate (§6.2), else a zone rewrite.
    fn evict_zone(&mut self, ctx: &mut IoCtx, user: u32) -> Result<(), SimError> {
        if !self.occupancy_swap(ctx, user)? {
            self.rewrite_zone(ctx, self.ch.rmw, user, None)?;
        }
        Ok(())
    }

    /// Moves entry `id` from the log's tail to its head if the head and the table take it: the
    /// contents at once, the I/O into `batch`. Returns whether it did.
    fn loop_back(&mut self, id: EntryId, batch: &mut LoopBacks) -> bool {
        let cache = self.cache.as_mut().expect("loop-backs need a cache");
        let from = cache.map.get(id);
        let Some(to) = cache.loop_back(id) else { return false };
        let (zone, block) = cache.locate(from.pba);
        let image = self.drive.image(zone, block, from.len as u64);
        batch.reads.push((zone, block, from.len as u64));
        let mut at = 0;
        for (pba, len) in to {
            let (zone, block) = cache.locate(pba);
            self.drive.store_image(zone, block, &image.as_ref().map(|v| v[at..at + len as usize].to_vec()));
            batch.writes.push((zone, block, len as u64));
            at += len as usize;
        }
        batch.moved.push(id);
        self.counts.loop_backs += from.len as u64;
        true
    }

    /// The I/O of a batch of loop-backs: the tail runs read, then the head runs written.
    fn flush_loop_backs(&mut self, ctx: &mut IoCtx, batch: &mut LoopBacks) -> Result<(), SimError> {
        let ch = self.ch.cache;
        run_io(&mut self.drive, ctx, ch, Op::Read, batch.reads.drain(..), |_, _, _, _| {})?;
        run_io(&mut self.drive, ctx, ch, Op::Write, batch.writes.drain(..), |_, _, _, _| {})
    }

    /// Rewrites SMR user zone `user` with all its cached blocks merged (eviction), and `piece`
    /// if given (an NSW served by read-modify-write).
    pub fn rewrite_zone(
        &mut self,
        ctx: &mut IoCtx,
        ch: ChannelId,
        user: u32,
        piece: Option<Piece>,
    ) -> Result<(), SimError> {
        self.rewrite_zone_merging(ctx, ch, user, None, piece)
    }

    /// The read-modify-write of SMR user zone `user`: read what the zone holds and the cached
    /// entries merged (all of them, or only `only`), rewrite the zone from its start up to the
    /// end of its data.
    fn rewrite_zone_merging(
        &mut self,
        ctx: &mut IoCtx,
        ch: ChannelId,
        user: u32,
        only: Option<EntryId>,
        piece: Option<Piece>,
    ) -> Result<(), SimError> {
        let zone = self.map.zone_of(user);
        let written = self.drive.written(zone);
        if written > 0 {
            self.drive.io(ctx, ch, Op::Read, zone, 0, written)?;
        }
        let mut image = self.drive.image(zone, 0, self.geo.blocks_per_zone());
        let mut end = written;
        match only {
            None => end = end.max(self.merge_cached(ctx, ch, user, &mut image)?),
            Some(id) => end = end.max(self.merge_entries(ctx, ch, &[id], &mut image)?),
        }
        if let Some(p) = piece {
            end = end.max(p.offset + p.len);
            if let Some(image) = image.as_mut() {
                for b in p.offset / BLOCK..(p.offset + p.len).div_ceil(BLOCK) {
                    image[b as usize] = Some(p.version);
                }
            }
        }
        let end = end.min(self.geo.zone_size);
        self.drive.reset(zone)?;
        self.drive.io(ctx, ch, Op::Write, zone, 0, end)?;
        if let Some(image) = image.as_mut() {
            image.truncate(end.div_ceil(BLOCK) as usize);
        }
        self.drive.store_image(zone, 0, &image);
        self.drive.store_entry(zone, user);
        self.map.extend_valid(user, end);
        self.counts.zone_rewrites += 1;
        Ok(())
    }

    /// Reads every cached entry of `user` into `image` and takes them out of the cache;
    /// returns the end (bytes from the zone's start) of the last one.
    pub fn merge_cached(
        &mut self,
        ctx: &mut IoCtx,
        ch: ChannelId,
        user: u32,
        image: &mut Image,
    ) -> Result<u64, SimError> {
        let ids: Vec<EntryId> = match self.cache.as_ref() {
            Some(c) if c.map.occupancy(user) > 0 => c.map.of_user(user).collect(),
            _ => return Ok(0),
        };
        self.merge_entries(ctx, ch, &ids, image)
    }

    /// Reads entries `ids` (of one user zone) into `image`, in slot order, and takes them out
    /// of the cache; returns the end of the last one in its zone.
    fn merge_entries(
        &mut self,
        ctx: &mut IoCtx,
        ch: ChannelId,
        ids: &[EntryId],
        image: &mut Image,
    ) -> Result<u64, SimError> {
        let cache = self.cache.as_mut().expect("merging cached entries needs a cache");
        let bpz = self.geo.blocks_per_zone();
        let mut entries: Vec<_> = ids.iter().map(|&id| cache.map.get(id)).collect();
        entries.sort_unstable_by_key(|e| e.pba);
        let runs: Vec<Run> = entries
            .iter()
            .map(|e| {
                let (zone, block) = cache.locate(e.pba);
                (zone, block, e.len as u64)
            })
            .collect();
        run_io(&mut self.drive, ctx, ch, Op::Read, runs.iter().copied(), |_, _, _, _| {})?;
        let mut end = 0;
        for (e, &(zone, block, n)) in entries.iter().zip(&runs) {
            let within = e.lba % bpz;
            if let Some(image) = image.as_mut() {
                let cached = self.drive.image(zone, block, n).expect("contents are kept");
                image[within as usize..(within + n) as usize].copy_from_slice(&cached);
            }
            end = end.max((within + n) * BLOCK);
        }
        let cache = self.cache.as_mut().expect("checked above");
        for &id in ids {
            cache.remove(id);
        }
        self.counts.evicted_blocks += runs.iter().map(|r| r.2).sum::<u64>();
        self.counts.evicted_entries += ids.len() as u64;
        Ok(end)
    }

    /// A sequential write to `user` makes its cached copies of the blocks written stale: they
    /// leave the cache (no I/O: the zone now holds the newer data).
    pub fn drop_cached(&mut self, user: u32, offset: u64, len: u64) {
        let (first, end) = self.piece_blocks(user, Piece { offset, len, version: 0 });
        if let Some(cache) = self.cache.as_mut().filter(|c| c.map.occupancy(user) > 0) {
            cache.cut(first, end);
        }
    }

    /// Shrinks the cache by its last zone, evicting the zones whose entries it holds; returns
    /// the zone, now unused (`None` without a cache zone, or when it is a lone CMR zone).
    pub fn retire_last_cache_zone(&mut self, ctx: &mut IoCtx) -> Result<Option<u32>, SimError> {
        let Some((zone, slots)) = self.cache.as_ref().and_then(|c| c.last_zone()) else { return Ok(None) };
        if self.drive.lone_cmr() == Some(zone) {
            // A lone CMR zone holds less than a zone: it cannot take a user zone's data.
            return Ok(None);
        }
        loop {
            let owner = self
                .cache
                .as_ref()
                .and_then(|c| c.map.in_slots(slots.start, slots.end).next().map(|id| c.map.user_of(id)));
            let Some(user) = owner else { break };
            self.rewrite_zone(ctx, self.ch.rmw, user, None)?;
        }
        let zone = self.cache.as_mut().and_then(|c| c.drop_last_zone());
        if let Some(zone) = zone {
            self.map.set_role(zone, Role::Free);
        }
        Ok(zone)
    }
}
