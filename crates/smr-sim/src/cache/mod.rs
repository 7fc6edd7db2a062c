//! The SSD cache framework of the PORE paper: an SSD block cache in front of a drive-managed SMR
//! disk (or a plain disk), with the replacement policy behind one small interface
//! (`policy::Policy`): `lru`, `fifo`, `lru-band` and `pore` (with its CF, PF and BL schemes, over
//! an LRU or FIFO base order).
//!
//! Blocks are `block` bytes (4 KiB by default). A write puts its blocks in the cache, dirty
//! (write-back). In read-write mode a read miss fetches the missing run from below and inserts
//! it clean; in write-only mode reads bypass the cache except for blocks it holds (which are the
//! latest version). Evicting a dirty block reads it from the SSD and writes it to the system
//! below, as a write request of that system — so the SMR disk below sees exactly the write-back
//! stream and counts its own band cleanings and write amplification; clean blocks are dropped.
//! Runs of consecutive blocks are moved as one I/O (one SSD access, one request below).
//!
//! Defaults (§V-C): read-write cache of 2 % of the accessed range, write-only cache of 2 % of
//! the written range, each measured as the paper's Table I does, as the capacity of the bands of
//! the SMR disk below that the trace touches or writes (the block union over a plain disk);
//! PORE zones of 20 MB and a period of the SMR write buffer's size in blocks.

pub(crate) mod list;
mod lru_band;
mod policy;
mod pore;
mod recency;

pub use policy::Policy;
pub use pore::Scheme;

use rustc_hash::FxHashMap;
use smr_core::media::FixedLatencyMedium;
use smr_core::metrics::Counters;
use smr_core::units::{BLOCK_4K, MB};
use smr_core::{Op, ParamError, Request};

use crate::cmr::Cmr;
use crate::dmsmr::Dmsmr;
use crate::error::SimError;
use crate::ioctx::{ChannelId, IoCtx};
use crate::registry::{BuildContext, ParamDoc, SystemDoc};
use crate::system::System;

pub const PARAMS: &[ParamDoc] = &[
    ParamDoc { key: "policy", default: "pore", help: "replacement policy: lru, fifo, lru-band (evicts the LRU block's whole band), pore" },
    ParamDoc { key: "base", default: "lru", help: "PORE's base order among evictable blocks: lru or fifo" },
    ParamDoc { key: "scheme", default: "bl", help: "PORE open-zone selection: cf (coverage first), pf (popularity first), bl (balanced)" },
    ParamDoc { key: "mode", default: "rw", help: "rw: reads and writes cached; wo: write-only cache, reads bypass it" },
    ParamDoc { key: "cache", default: "2%", help: "SSD cache size: bytes, blocks, percent or fraction of the accessed range (rw) or written range (wo), each the capacity of the SMR bands the trace touches or writes" },
    ParamDoc { key: "block", default: "4KiB", help: "cache block size, bytes" },
    ParamDoc { key: "zone", default: "20MB", help: "PORE zone size, bytes" },
    ParamDoc { key: "period", default: "auto", help: "PORE period: new dirty blocks per region division; auto = the SMR write buffer in blocks" },
    ParamDoc { key: "below", default: "dmsmr", help: "the disk under the cache: dmsmr (drive-managed SMR; its parameters apply) or cmr" },
];

pub const DOC: SystemDoc = SystemDoc {
    name: "cache",
    summary: "SSD cache (lru, lru-band, pore) over drive-managed SMR or a plain disk (PORE §IV); alias: pore",
    params: PARAMS,
};

const DIRTY: u64 = 1 << 63;

#[derive(Default, Clone, Copy)]
struct Totals {
    read_lookups: u64,
    read_hits: u64,
    write_lookups: u64,
    write_hits: u64,
    evicted_dirty: u64,
    evicted_clean: u64,
}

pub struct SsdCache {
    below: Box<dyn System>,
    ssd: ChannelId,
    block: u64,
    write_only: bool,
    index: FxHashMap<u64, u32>,
    /// Per slot: its block number, with `DIRTY` set while the block is dirty.
    blocks: Vec<u64>,
    /// Slots never used yet are `unused..`; `free` holds slots emptied by eviction.
    unused: u32,
    free: Vec<u32>,
    policy: Box<dyn Policy>,
    /// Scratch lists kept between requests so the per-block paths do not allocate.
    victims: Vec<u32>,
    dirty_victims: Vec<u64>,
    read_misses: Vec<u64>,
    totals: Totals,
}

fn invalid(key: &str, message: impl Into<String>) -> SimError {
    ParamError::new(key, message).into()
}

impl SsdCache {
    pub fn build(b: &mut BuildContext<'_>) -> Result<Self, SimError> {
        let policy_name = b.params.choice("policy", "pore", &["lru", "fifo", "lru-band", "pore"])?;
        let base = recency::Order::from_name(&b.params.choice("base", "lru", &["lru", "fifo"])?).expect("listed order");
        let scheme = Scheme::from_name(&b.params.choice("scheme", "bl", &["cf", "pf", "bl"])?).expect("listed scheme");
        let write_only = b.params.choice("mode", "rw", &["rw", "wo"])? == "wo";
        let block = b.params.size("block", BLOCK_4K)?;
        if block % 512 != 0 {
            return Err(invalid("block", "must be a multiple of 512 bytes"));
        }
        let zone = b.params.size("zone", 20 * MB)?;
        let period = b.params.string("period", "auto");
        let below_name = b.params.choice("below", "dmsmr", &["dmsmr", "cmr"])?;
        let (below, layout, buffer_blocks): (Box<dyn System>, _, _) = if below_name == "dmsmr" {
            let d = Dmsmr::build(b)?;
            let (layout, buffer) = (d.layout().clone(), d.buffer_blocks() * BLOCK_4K / block);
            (Box::new(d), Some(layout), Some(buffer))
        } else {
            (Box::new(Cmr::build(b)?), None, None)
        };
        let (extents, union) = if write_only {
            (&b.footprint.written_extents, b.footprint.written_bytes)
        } else {
            (&b.footprint.accessed_extents, b.footprint.accessed_bytes)
        };
        let whole = layout.as_ref().map_or(union, |l| l.range_bytes(extents, union));
        let cache_bytes = b.params.size_or_fraction("cache", 0.02, whole.max(block), block)?;
        if cache_bytes > whole {
            return Err(invalid("cache", format!("{cache_bytes} bytes is larger than the trace's {} range ({whole} bytes): nothing would ever be evicted", if write_only { "written" } else { "accessed" })));
        }
        let slots = (cache_bytes / block) as usize;
        let policy: Box<dyn Policy> = match policy_name.as_str() {
            "lru" => Box::new(recency::Recency::new(slots, recency::Order::Lru)),
            "fifo" => Box::new(recency::Recency::new(slots, recency::Order::Fifo)),
            "lru-band" => {
                let layout = layout.ok_or_else(|| invalid("policy", "lru-band needs the band layout of a drive-managed SMR disk below (below=dmsmr)"))?;
                Box::new(lru_band::LruBand::new(slots, layout, block))
            }
            _ => {
                let period = match (period.as_str(), buffer_blocks) {
                    ("auto", Some(buffer)) => buffer,
                    ("auto", None) => return Err(invalid("period", "auto needs a drive-managed SMR disk below; give a number of blocks")),
                    (text, _) => text.parse::<u64>().ok().filter(|&p| p > 0).ok_or_else(|| invalid("period", format!("'{text}' is not a positive number of blocks (or auto)")))?,
                };
                let zone_blocks = (zone / block).max(1);
                let zones = (b.footprint.max_end / block / zone_blocks + 1) as usize;
                Box::new(pore::Pore::new(slots, scheme, base, zone_blocks, zones, period))
            }
        };
        let ssd = b.ctx.add_device("ssd", Box::new(FixedLatencyMedium::ssd(cache_bytes)));
        let ssd = b.ctx.channel(ssd, "ssd");
        Ok(SsdCache {
            below,
            ssd,
            block,
            write_only,
            index: FxHashMap::default(),
            blocks: vec![0; slots],
            unused: 0,
            free: Vec::new(),
            policy,
            victims: Vec::new(),
            dirty_victims: Vec::new(),
            read_misses: Vec::new(),
            totals: Totals::default(),
        })
    }

    fn is_dirty(&self, slot: u32) -> bool {
        self.blocks[slot as usize] & DIRTY != 0
    }

    /// How many cached blocks are dirty.
    fn dirty_blocks(&self) -> usize {
        self.index.values().filter(|&&slot| self.is_dirty(slot)).count()
    }

    /// A free slot, evicting first if there is none: dirty victims go below in runs of
    /// consecutive blocks.
    fn take_slot(&mut self, ctx: &mut IoCtx) -> Result<u32, SimError> {
        if (self.unused as usize) < self.blocks.len() {
            self.unused += 1;
            return Ok(self.unused - 1);
        }
        while self.free.is_empty() {
            self.victims.clear();
            self.policy.victims(&mut self.victims);
            if self.victims.is_empty() {
                return Err(SimError::Device("cache policy returned no victim from a full cache".into()));
            }
            let mut dirty_blocks = std::mem::take(&mut self.dirty_victims);
            dirty_blocks.clear();
            for &slot in &self.victims {
                let (block, was_dirty) = (self.blocks[slot as usize] & !DIRTY, self.blocks[slot as usize] & DIRTY != 0);
                self.policy.removed(slot, block, was_dirty);
                self.index.remove(&block);
                self.free.push(slot);
                if was_dirty {
                    dirty_blocks.push(block);
                    self.totals.evicted_dirty += 1;
                } else {
                    self.totals.evicted_clean += 1;
                }
            }
            dirty_blocks.sort_unstable();
            let written = runs(&dirty_blocks).try_for_each(|(first, count)| {
                ctx.io(self.ssd, Op::Read, first * self.block, count * self.block);
                self.below.submit(&Request::new(ctx.now(), Op::Write, first * self.block, count * self.block), ctx)
            });
            self.dirty_victims = dirty_blocks;
            written?;
        }
        Ok(self.free.pop().expect("eviction freed a slot"))
    }

    fn insert(&mut self, block: u64, dirty: bool, ctx: &mut IoCtx) -> Result<(), SimError> {
        let slot = self.take_slot(ctx)?;
        self.blocks[slot as usize] = block | if dirty { DIRTY } else { 0 };
        self.index.insert(block, slot);
        self.policy.inserted(slot, block, dirty);
        Ok(())
    }

    fn write(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError> {
        let blocks = req.blocks(self.block);
        let (first, count) = (blocks.start, blocks.end - blocks.start);
        for block in blocks {
            self.totals.write_lookups += 1;
            match self.index.get(&block) {
                Some(&slot) => {
                    self.totals.write_hits += 1;
                    let became_dirty = !self.is_dirty(slot);
                    self.blocks[slot as usize] |= DIRTY;
                    self.policy.hit(slot, block, became_dirty);
                }
                None => self.insert(block, true, ctx)?,
            }
        }
        ctx.io(self.ssd, Op::Write, first * self.block, count * self.block);
        Ok(())
    }

    fn read(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError> {
        let mut misses = std::mem::take(&mut self.read_misses);
        misses.clear();
        let mut hits = 0u64;
        for block in req.blocks(self.block) {
            self.totals.read_lookups += 1;
            match self.index.get(&block) {
                Some(&slot) => {
                    self.totals.read_hits += 1;
                    hits += 1;
                    // A write-only cache is ordered by writes alone; it serves reads of the
                    // blocks it holds because it has their latest version.
                    if !self.write_only {
                        self.policy.hit(slot, block, false);
                    }
                }
                None => misses.push(block),
            }
        }
        if hits > 0 {
            ctx.io(self.ssd, Op::Read, req.offset, hits * self.block);
        }
        let fetched = runs(&misses).try_for_each(|(first, count)| self.fetch(first, count, ctx));
        self.read_misses = misses;
        fetched
    }

    /// Reads a run of missed blocks from below and, in a read-write cache, inserts them clean.
    fn fetch(&mut self, first: u64, count: u64, ctx: &mut IoCtx) -> Result<(), SimError> {
        self.below.submit(&Request::new(ctx.now(), Op::Read, first * self.block, count * self.block), ctx)?;
        if !self.write_only {
            for block in first..first + count {
                self.insert(block, false, ctx)?;
            }
            ctx.io(self.ssd, Op::Write, first * self.block, count * self.block);
        }
        Ok(())
    }
}

/// Runs of consecutive numbers in a sorted slice, as (first, count).
fn runs(sorted: &[u64]) -> impl Iterator<Item = (u64, u64)> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        let first = *sorted.get(i)?;
        let mut count = 1;
        while sorted.get(i + count as usize) == Some(&(first + count)) {
            count += 1;
        }
        i += count as usize;
        Some((first, count))
    })
}

impl System for SsdCache {
    fn submit(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError> {
        match req.op {
            _ if req.len == 0 => Ok(()),
            Op::Write => self.write(req, ctx),
            Op::Read => self.read(req, ctx),
            Op::Trim => self.below.submit(req, ctx),
        }
    }

    fn idle(&mut self, ctx: &mut IoCtx, until_ns: u64) -> Result<bool, SimError> {
        self.below.idle(ctx, until_ns)
    }

    fn counters(&self, out: &mut Counters) {
        let t = &self.totals;
        out.add("read_lookups", t.read_lookups);
        out.add("read_hits", t.read_hits);
        out.add("write_lookups", t.write_lookups);
        out.add("write_hits", t.write_hits);
        out.add("evicted_dirty_blocks", t.evicted_dirty);
        out.add("evicted_clean_blocks", t.evicted_clean);
        self.policy.counters(out);
        self.below.counters(out);
    }

    fn gauges(&self, out: &mut Vec<(String, f64)>) {
        out.push(("cache_blocks".into(), self.blocks.len() as f64));
        out.push(("cache_occupancy_blocks".into(), self.index.len() as f64));
        out.push(("cache_dirty_blocks".into(), self.dirty_blocks() as f64));
        self.policy.gauges(out);
        self.below.gauges(out);
    }
}

#[cfg(test)]
mod tests;
