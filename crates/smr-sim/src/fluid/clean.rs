//! Writing non-sequential writes into the CMR cache and cleaning it (§6.1), and the zone
//! read-modify-write that an NSW costs without a cache (§2.1).
//!
//! A cached block is updated in place; new blocks take slots from the policy, after cleaning
//! has made room for all of them (space and mapping-table entries). Cleaning follows the
//! policy's steps: evict a zone (read the SMR zone and its cached blocks, rewrite the zone from
//! its start with them merged), evict one block (plain block LRU), or re-queue a block at the
//! log's head (loop-back). When an evicted zone is an occupancy swap candidate (§6.2), the
//! eviction becomes a swap with a cold CMR zone. A write with more new blocks than the whole
//! cache holds rewrites its zone instead. Not here: the policies' orders (`lru`, `fifo`,
//! `loopback`).

use smr_core::Op;

use super::cache::{CachePolicy, CmrCache, Clean};
use super::drive::Image;
use super::fifo::FifoLog;
use super::geometry::{Geometry, BLOCK};
use super::loopback::LoopBackLog;
use super::lru::BlockLru;
use super::mapping::Role;
use super::relocate::{MOVED_BYTES, TO_CMR_CONVERSIONS, TO_SMR_CONVERSIONS};
use super::scheme::Policy;
use super::Fluid;
use crate::kernel::metrics::{Counters, Metric, Ratio, Unit};
use crate::kernel::runs::coalesce;
use crate::kernel::{ChannelId, IoCtx, SimError};

pub static NSW_WRITES: Metric = Metric::new("nsw_writes", Unit::Count, "FluidSMR: host writes (per zone piece) to SMR zones not at the write pointer");
pub static SEQUENTIAL_WRITES: Metric = Metric::new("sequential_writes", Unit::Count, "FluidSMR: host writes (per zone piece) at an SMR zone's write pointer");
pub static CMR_WRITES: Metric = Metric::new("cmr_writes", Unit::Count, "FluidSMR: host writes (per zone piece) to CMR zones, in place");
pub static CACHE_HIT_BLOCKS: Metric = Metric::new("cache_hit_blocks", Unit::Blocks, "FluidSMR: NSW blocks that found their block cached (updated in place)");
pub static CACHE_NEW_BLOCKS: Metric = Metric::new("cache_new_blocks", Unit::Blocks, "FluidSMR: NSW blocks that took a new cache slot");
pub static ZONE_REWRITES: Metric =
    Metric::new("zone_rewrites", Unit::Count, "FluidSMR: SMR zone read-modify-writes (cache evictions, and NSWs without a cache)");
pub static EVICTED_BLOCKS: Metric = Metric::new("evicted_blocks", Unit::Blocks, "FluidSMR: cached blocks merged into their SMR zones");
pub static LOOP_BACKS: Metric = Metric::new("loop_backs", Unit::Blocks, "FluidSMR: blocks re-queued from the log's tail to its head (§6.1)");
pub static TABLE_CLEANINGS: Metric = Metric::new("table_cleanings", Unit::Count, "FluidSMR: cleanings started because the mapping table was full (§6.1)");
pub static MAP_PERSISTS: Metric = Metric::new("map_persists", Unit::Count, "FluidSMR: zone-map persists after allocations, swaps and conversions (§4.2)");
pub static BLOCKS_PER_REWRITE: Ratio =
    Ratio::new(Metric::new("blocks_per_rewrite", Unit::Ratio, "FluidSMR: cached blocks merged per zone rewrite"), &EVICTED_BLOCKS, &ZONE_REWRITES);
pub static CACHE_WRITE_BLOCKS: Metric = Metric::new("cache_write_blocks", Unit::Blocks, "FluidSMR: NSW blocks written to the cache");
pub static CACHE_HIT_RATIO: Ratio =
    Ratio::new(Metric::new("cache_hit_ratio", Unit::Fraction, "FluidSMR: NSW blocks that found their block cached / NSW blocks written to the cache"), &CACHE_HIT_BLOCKS, &CACHE_WRITE_BLOCKS);

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
    pub loop_backs: u64,
    pub table_cleanings: u64,
    pub map_persists: u64,
    pub moved_bytes: u64,
    pub swaps: u64,
    pub occupancy_swaps: u64,
    pub to_smr: u64,
    pub to_cmr: u64,
    pub windows: u64,
    pub allocated_zones: u64,
}

impl Counts {
    pub fn counters(&self, out: &mut Counters) {
        for (metric, value) in [
            (&NSW_WRITES, self.nsw_writes),
            (&SEQUENTIAL_WRITES, self.sequential_writes),
            (&CMR_WRITES, self.cmr_writes),
            (&CACHE_HIT_BLOCKS, self.hit_blocks),
            (&CACHE_NEW_BLOCKS, self.new_blocks),
            (&CACHE_WRITE_BLOCKS, self.hit_blocks + self.new_blocks),
            (&ZONE_REWRITES, self.zone_rewrites),
            (&EVICTED_BLOCKS, self.evicted_blocks),
            (&LOOP_BACKS, self.loop_backs),
            (&TABLE_CLEANINGS, self.table_cleanings),
            (&MAP_PERSISTS, self.map_persists),
            (&MOVED_BYTES, self.moved_bytes),
            (&super::swap::SWAPS, self.swaps),
            (&super::occupancy::OCCUPANCY_SWAPS, self.occupancy_swaps),
            (&TO_SMR_CONVERSIONS, self.to_smr),
            (&TO_CMR_CONVERSIONS, self.to_cmr),
            (&super::adapt::WINDOWS, self.windows),
            (&super::allocation::ALLOCATED_ZONES, self.allocated_zones),
        ] {
            out.add(metric, value);
        }
        out.declare(&BLOCKS_PER_REWRITE);
        out.declare(&CACHE_HIT_RATIO);
    }
}

/// The cache for `policy` (none without one), its zones added by the layout; `map_quota`
/// overrides the mapping table's quota of 25 MB per TB.
pub fn new_cache(policy: Policy, geo: &Geometry, limit: Option<u64>, map_quota: Option<u64>) -> Option<CmrCache> {
    let order: Box<dyn CachePolicy> = match policy {
        Policy::None => return None,
        Policy::BlockLru => Box::new(BlockLru::new(false)),
        Policy::ImprovedLru => Box::new(BlockLru::new(true)),
        Policy::Fifo => Box::new(FifoLog::new()),
        Policy::LoopBack => Box::new(LoopBackLog::new()),
    };
    Some(CmrCache::new(order, geo.blocks_per_zone(), geo.smr_zones() * geo.zone_size, limit, map_quota))
}

/// A host write's piece: `len` bytes at `offset` of a user zone, holding `version`.
#[derive(Clone, Copy, Debug)]
pub struct Piece {
    pub offset: u64,
    pub len: u64,
    pub version: u64,
}

impl Fluid {
    /// An NSW to SMR user zone `user`: into the cache, or a zone rewrite when it cannot hold it.
    pub fn cache_write(&mut self, ctx: &mut IoCtx, user: u32, piece: Piece) -> Result<(), SimError> {
        let bpz = self.geo.blocks_per_zone();
        let (first, last) = (piece.offset / BLOCK, (piece.offset + piece.len - 1) / BLOCK);
        let base = user as u64 * bpz;
        let new_blocks = |f: &Fluid| f.cache.as_ref().map_or(0, |c| (first..=last).filter(|b| c.slots.slot_of(base + b).is_none()).count() as u64);
        if !self.cache.as_ref().is_some_and(|c| c.fits(new_blocks(self))) {
            return self.rewrite_zone(ctx, self.ch.rmw, user, Some(piece));
        }
        let mut cleaned = false;
        while !self.cache.as_ref().is_some_and(|c| c.has_room(new_blocks(self))) {
            if !cleaned && self.cache.as_ref().is_some_and(|c| c.table_full(new_blocks(self)) && c.policy.has_room(new_blocks(self))) {
                self.counts.table_cleanings += 1;
            }
            cleaned = true;
            self.clean(ctx, new_blocks(self))?;
        }
        if self.drive.is_cmr(self.map.zone_of(user)) {
            // Cleaning swapped the zone into CMR (§6.2): the write goes there in place.
            return self.write_cmr(ctx, user, piece);
        }
        let cache = self.cache.as_mut().expect("room was made in the cache");
        let mut places = Vec::with_capacity((last - first + 1) as usize);
        for b in first..=last {
            let slot = match cache.slots.slot_of(base + b) {
                Some(slot) => {
                    cache.policy.hit(slot);
                    self.counts.hit_blocks += 1;
                    slot
                }
                None => {
                    self.counts.new_blocks += 1;
                    cache.insert(base + b)
                }
            };
            places.push(cache.locate(slot));
        }
        let drive = &mut self.drive;
        let ch = self.ch.cache;
        coalesce(places.iter().map(|&(zone, block)| (zone, block * BLOCK)), BLOCK, |zone, offset, len| {
            drive.io(ctx, ch, Op::Write, zone, offset, len)?;
            drive.store(zone, offset / BLOCK, len / BLOCK, piece.version);
            Ok::<(), SimError>(())
        })?;
        self.map.extend_valid(user, piece.offset + piece.len);
        self.start_epoch_if_due();
        Ok(())
    }

    /// Cleans the cache until `blocks` new blocks fit, one policy step at a time.
    fn clean(&mut self, ctx: &mut IoCtx, blocks: u64) -> Result<(), SimError> {
        let mut loop_budget = self.cache.as_ref().map_or(0, |c| c.slots.cached());
        let mut batch: Vec<(u32, u32, Image)> = Vec::new();
        loop {
            let Some(cache) = self.cache.as_mut() else { return Ok(()) };
            if cache.has_room(blocks) {
                break;
            }
            let step = cache.policy.next_clean(&cache.slots, loop_budget > 0);
            if !matches!(step, Clean::LoopBack(_)) {
                self.flush_loop_backs(ctx, &mut batch)?;
            }
            match step {
                Clean::Advanced => {}
                Clean::LoopBack(old) => {
                    let cache = self.cache.as_mut().expect("a cache");
                    let (from_zone, from_block) = cache.locate(old);
                    let image = self.drive.image(from_zone, from_block, 1);
                    let new = self.cache.as_mut().expect("a cache").relocate(old);
                    batch.push((old, new, image));
                    loop_budget -= 1;
                    self.counts.loop_backs += 1;
                }
                Clean::EvictSlot(slot) => {
                    let user = self.cache.as_ref().and_then(|c| c.slots.user_of_slot(slot)).expect("the victim slot holds a block");
                    self.rewrite_zone_merging(ctx, self.ch.rmw, user, Some(slot), None)?;
                }
                Clean::EvictZone(user) => {
                    if !self.occupancy_swap(ctx, user)? {
                        self.rewrite_zone(ctx, self.ch.rmw, user, None)?;
                    }
                }
            }
        }
        self.flush_loop_backs(ctx, &mut batch)
    }

    /// The I/O of a batch of loop-backs: the tail blocks read, then written at the head.
    fn flush_loop_backs(&mut self, ctx: &mut IoCtx, batch: &mut Vec<(u32, u32, Image)>) -> Result<(), SimError> {
        if batch.is_empty() {
            return Ok(());
        }
        let cache = self.cache.as_ref().expect("loop-backs need a cache");
        let reads: Vec<(u32, u64)> = batch.iter().map(|(old, _, _)| cache.locate(*old)).collect();
        let writes: Vec<(u32, u64)> = batch.iter().map(|(_, new, _)| cache.locate(*new)).collect();
        let (drive, ch) = (&mut self.drive, self.ch.cache);
        for (places, op) in [(reads, Op::Read), (writes.clone(), Op::Write)] {
            coalesce(places.iter().map(|&(z, b)| (z, b * BLOCK)), BLOCK, |zone, offset, len| drive.io(ctx, ch, op, zone, offset, len).map(|_| ()))?;
        }
        for ((zone, block), (_, _, image)) in writes.iter().zip(batch.iter()) {
            self.drive.store_image(*zone, *block, image);
        }
        batch.clear();
        Ok(())
    }

    /// Rewrites SMR user zone `user` with all its cached blocks merged (eviction), and `piece`
    /// if given (an NSW served by read-modify-write).
    pub fn rewrite_zone(&mut self, ctx: &mut IoCtx, ch: ChannelId, user: u32, piece: Option<Piece>) -> Result<(), SimError> {
        self.rewrite_zone_merging(ctx, ch, user, None, piece)
    }

    /// The read-modify-write of SMR user zone `user`: read what the zone holds and the cached
    /// blocks merged (all of them, or only the one in `only_slot`), rewrite the zone from its
    /// start up to the end of its data.
    fn rewrite_zone_merging(&mut self, ctx: &mut IoCtx, ch: ChannelId, user: u32, only_slot: Option<u32>, piece: Option<Piece>) -> Result<(), SimError> {
        let zone = self.map.zone_of(user);
        let written = self.drive.written(zone);
        if written > 0 {
            self.drive.io(ctx, ch, Op::Read, zone, 0, written)?;
        }
        let mut image = self.drive.image(zone, 0, self.geo.blocks_per_zone());
        let mut end = written;
        match only_slot {
            None => end = end.max(self.merge_cached(ctx, ch, user, &mut image)?),
            Some(slot) => end = end.max(self.merge_slots(ctx, ch, &[slot], &mut image)?),
        }
        if let Some(p) = piece {
            end = end.max(p.offset + p.len);
            if let Some(image) = image.as_mut() {
                for b in p.offset / BLOCK..=(p.offset + p.len - 1) / BLOCK {
                    image[b as usize] = Some(p.version);
                }
            }
        }
        // Blocks written whole: a partial last block is rewritten whole.
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

    /// Reads every cached block of `user` into `image` and takes them out of the cache;
    /// returns the end (bytes from the zone's start) of the last one.
    pub fn merge_cached(&mut self, ctx: &mut IoCtx, ch: ChannelId, user: u32, image: &mut Image) -> Result<u64, SimError> {
        let slots: Vec<u32> = match self.cache.as_ref() {
            Some(c) if c.slots.occupancy(user) > 0 => c.slots.slots_of_user(user).to_vec(),
            _ => return Ok(0),
        };
        self.merge_slots(ctx, ch, &slots, image)
    }

    /// Reads the blocks in `slots` (of one user zone) into `image` and takes them out of the
    /// cache; returns the end of the last one in its zone.
    fn merge_slots(&mut self, ctx: &mut IoCtx, ch: ChannelId, slots: &[u32], image: &mut Image) -> Result<u64, SimError> {
        let mut slots = slots.to_vec();
        slots.sort_unstable();
        let cache = self.cache.as_mut().expect("merging cached blocks needs a cache");
        let bpz = self.geo.blocks_per_zone();
        let places: Vec<(u32, u64)> = slots.iter().map(|&s| cache.locate(s)).collect();
        let drive = &mut self.drive;
        coalesce(places.iter().map(|&(z, b)| (z, b * BLOCK)), BLOCK, |zone, offset, len| drive.io(ctx, ch, Op::Read, zone, offset, len).map(|_| ()))?;
        let mut end = 0;
        for (&slot, &(zone, block)) in slots.iter().zip(&places) {
            let lba = cache.remove(slot);
            let within = lba % bpz;
            if let Some(image) = image.as_mut() {
                image[within as usize] = self.drive.image(zone, block, 1).and_then(|v| v[0]);
            }
            end = end.max((within + 1) * BLOCK);
        }
        self.counts.evicted_blocks += slots.len() as u64;
        Ok(end)
    }

    /// A sequential write to `user` makes its cached copies of the blocks written stale: they
    /// leave the cache (no I/O: the zone now holds the newer data).
    pub fn drop_cached(&mut self, user: u32, offset: u64, len: u64) {
        let Some(cache) = self.cache.as_mut() else { return };
        if cache.slots.occupancy(user) == 0 {
            return;
        }
        let base = user as u64 * self.geo.blocks_per_zone();
        for b in offset / BLOCK..=(offset + len - 1) / BLOCK {
            if let Some(slot) = cache.slots.slot_of(base + b) {
                cache.remove(slot);
            }
        }
    }

    /// Shrinks the cache by its last zone, evicting the zones whose blocks it holds; returns
    /// the zone, now unused (`None` without a cache zone).
    pub fn retire_last_cache_zone(&mut self, ctx: &mut IoCtx) -> Result<Option<u32>, SimError> {
        let Some((_, slots)) = self.cache.as_ref().and_then(|c| c.last_zone()) else { return Ok(None) };
        loop {
            let owner = self.cache.as_ref().and_then(|c| slots.clone().find_map(|s| c.slots.user_of_slot(s)));
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
