//! The SSD cache framework of the PORE paper: an SSD block cache in front of a drive-managed SMR
//! disk (or a plain disk), with the replacement policy behind one small interface
//! (`kernel::policy::Policy`, the policies every cache shares): `lru`, `fifo`, `lru-band` and
//! `pore` (with its CF, PF and BL schemes, over an LRU or FIFO base order; its parameters are
//! its own, `kernel::policy::pore::PARAMS`), or a user's own written in Python
//! (docs/policies.md), built by the kernel's policy table from the `policy` parameter.
//!
//! Blocks are `block` bytes (4 KiB by default). A write puts its blocks in the cache, dirty
//! (write-back). In read-write mode a read miss fetches the missing run from below and inserts
//! it clean; in write-only mode reads bypass the cache except for blocks it holds (which are the
//! latest version). Evicting a dirty block reads it from the SSD and writes it to the system
//! below, as a write request of that system — so the SMR disk below sees exactly the write-back
//! stream and counts its own band cleanings and write amplification; clean blocks are dropped.
//! Runs of consecutive blocks are moved as one I/O (one SSD access, one request below).
//!
//! The cache stacks over any registered system (`below`, drive-managed SMR by default), whose
//! own parameters apply. What it needs of a shingled disk below — the band layout for LRU-band
//! and the range measure, the write buffer's size for PORE's period — comes through
//! `System::bands`.
//!
//! Defaults (§V-C): read-write cache of 2 % of the accessed range, write-only cache of 2 % of
//! the written range, each measured as the paper's Table I does, as the capacity of the bands of
//! the SMR disk below that the trace touches or writes (the block union over a system without
//! bands); PORE zones of 20 MB and a period of the SMR write buffer's size in blocks.

mod index;
#[cfg(test)]
mod write_back_tests;

pub use smr_kernel::policy::pore::Scheme;
pub use smr_kernel::policy::Policy;

use smr_core::{Op, Request};
use smr_media::FixedLatencyMedium;

use index::{block_of, BlockIndex, DIRTY};
use smr_core::prefetch::prefetch;
use smr_kernel::geometry::GEOMETRY_PARAMS;
use smr_kernel::metrics::{Counters, Exercise, Gauges, Metric, Ratio, Unit};
use smr_kernel::policy::{self, pore, Geometry, Host, PolicySetup, VictimHints};
use smr_kernel::runs::coalesce;
use smr_kernel::slots::SlotPool;
use smr_kernel::totals;
use smr_kernel::{BuildContext, ChannelId, IoCtx, Kind, ParamList, ParamSpec, SimError, System, SystemEntry};

pub const POLICY: ParamSpec = ParamSpec::new(
    "policy",
    Kind::Policy(&["lru", "fifo", "lru-band", "pore"]),
    "pore",
    "replacement policy: lru, fifo, lru-band (evicts the LRU block's whole band), pore",
);
pub const MODE: ParamSpec = ParamSpec::new("mode", Kind::Choice(&["rw", "wo"]), "rw", "rw: reads and writes cached; wo: write-only cache: reads do not fill it or reorder it, but a read of a block it holds is served from it");
pub const CACHE: ParamSpec = ParamSpec::new(
    "cache",
    Kind::Share { of: "the accessed range (rw) or written range (wo), each the capacity of the SMR bands the trace touches or writes" },
    "2%",
    "SSD cache size",
);
pub const BLOCK: ParamSpec = ParamSpec::new("block", Kind::Size, "4KiB", "cache block size, a multiple of 512 bytes").open(
    "PORE does not state its cache block size; 4 KiB is the smallest request of the MSR traces it replays and a flash page",
);
pub const BELOW: ParamSpec =
    ParamSpec::new("below", Kind::System, "dmsmr", "the system under the cache (its own parameters apply)");

pub const PARAMS: ParamList = &[&[POLICY, MODE, CACHE, BLOCK, BELOW], pore::PARAMS, &GEOMETRY_PARAMS];

pub const ENTRY: SystemEntry = SystemEntry::new(
    "cache",
    "SSD cache (lru, fifo, lru-band, pore) over another system, by default drive-managed SMR (PORE §IV); alias: pore",
    PARAMS,
    |b| Ok(build(b)?),
)
.with_aliases(&["pore"]);

pub static READ_LOOKUPS: Metric = Metric::new("read_lookups", Unit::Count, "cache blocks looked up by host reads");
pub static READ_HITS: Metric = Metric::new("read_hits", Unit::Count, "cache blocks host reads found cached");
pub static WRITE_LOOKUPS: Metric = Metric::new("write_lookups", Unit::Count, "cache blocks looked up by host writes");
pub static WRITE_HITS: Metric = Metric::new("write_hits", Unit::Count, "cache blocks host writes found cached");
pub static EVICTED_DIRTY: Metric =
    Metric::new("evicted_dirty_blocks", Unit::Blocks, "dirty cache blocks evicted (written to the system below)");
pub static EVICTED_CLEAN: Metric =
    Metric::new("evicted_clean_blocks", Unit::Blocks, "clean cache blocks evicted (dropped)");
pub static READ_HIT_RATE: Ratio = Ratio::new(
    Metric::new(
        "read_hit_rate",
        Unit::Fraction,
        "cache read hits / cache read lookups, per cache-block lookup (4 KiB by default), not per request",
    ),
    &READ_HITS,
    &READ_LOOKUPS,
);
pub static WRITE_HIT_RATE: Ratio = Ratio::new(
    Metric::new(
        "write_hit_rate",
        Unit::Fraction,
        "cache write hits / cache write lookups, per cache-block lookup (4 KiB by default), not per request",
    ),
    &WRITE_HITS,
    &WRITE_LOOKUPS,
);
pub static EVICTED: Exercise = Exercise {
    counters: &[&EVICTED_DIRTY, &EVICTED_CLEAN],
    when_never: "the SSD cache held every block it was given: nothing was evicted, so every replacement policy gives these figures",
};
pub static CACHE_BLOCKS: Metric = Metric::new("cache_blocks", Unit::Blocks, "cache size, in cache blocks");
pub static CACHE_OCCUPANCY: Metric = Metric::new("cache_occupancy_blocks", Unit::Blocks, "cache blocks holding data");
pub static CACHE_DIRTY: Metric =
    Metric::new("cache_dirty_blocks", Unit::Blocks, "cache blocks holding data not yet written below");

/// Blocks of the next request whose index entries are prefetched (`System::prefetch`).
const PREFETCHED_BLOCKS: usize = 16;

/// The smallest cache, in slots, that prefetches for its next lookups and evictions. Below it
/// the index, per-slot table and recency links (about 24 bytes a slot) fit in a 1 MiB L2
/// cache, and the prefetches would cost instructions and save no waits.
const PREFETCH_FROM_SLOTS: usize = 1 << 15;

totals! {
    struct Totals {
        read_lookups => READ_LOOKUPS,
        read_hits => READ_HITS,
        write_lookups => WRITE_LOOKUPS,
        write_hits => WRITE_HITS,
        evicted_dirty => EVICTED_DIRTY,
        evicted_clean => EVICTED_CLEAN,
    }
}

/// The cache over replacement policy `P`. A type parameter, not a `Box<dyn Policy>`: the cache
/// calls its policy several times per block, and direct calls let the policy's code be inlined
/// into the cache's per-block paths (about 5 % fewer instructions in an lru replay). `build`
/// picks `P` from the parameters and hands the cache out as a `dyn Cache`.
pub struct SsdCache<P> {
    below: Box<dyn System>,
    ssd: ChannelId,
    block: u64,
    write_only: bool,
    index: BlockIndex,
    /// Per slot: its block number, with `DIRTY` set while the block is dirty.
    blocks: Vec<u64>,
    slots: SlotPool,
    policy: P,
    /// Whether the cache is large enough to prefetch (`PREFETCH_FROM_SLOTS`).
    prefetching: bool,
    /// The slots the policy last named as likely victims (`Policy::next_victim_hints`).
    victim_hints: VictimHints,
    /// Scratch lists kept between requests so the per-block paths do not allocate.
    victims: Vec<u32>,
    dirty_victims: Vec<u64>,
    read_misses: Vec<u64>,
    totals: Totals,
}

/// The SSD cache as `build` hands it out, whichever its policy.
pub trait Cache: System {
    /// Whether `block` is cached and dirty (not yet written below).
    fn holds_dirty(&self, block: u64) -> bool;
}

/// What a cache is apart from its policy, read from the parameters (its SSD registered) before
/// the policy is built; the policy's constructor hands it the policy (`Host`), and the cache is
/// compiled for the policy's type.
struct Frame {
    below: Box<dyn System>,
    ssd: ChannelId,
    block: u64,
    write_only: bool,
    slots: usize,
}

impl Host for Frame {
    type Hosted = Box<dyn Cache>;

    fn take<P: Policy + 'static>(self, policy: P) -> Box<dyn Cache> {
        Box::new(SsdCache::new(self, policy))
    }
}

/// Builds the cache `b.params` describe (see `PARAMS`), over the policy they name.
pub fn build(b: &mut BuildContext<'_>) -> Result<Box<dyn Cache>, SimError> {
    let policy_name = policy::read(b, &POLICY)?;
    let write_only = b.params.choice(&MODE)? == "wo";
    let block = b.params.size(&BLOCK)?;
    if block % 512 != 0 {
        return Err(b.params.error(&BLOCK, "must be a multiple of 512 bytes").into());
    }
    let below_name = b.params.text(&BELOW)?;
    let below = b.build(&below_name)?;
    let bands = below.bands();
    let layout = bands.map(|s| s.layout.clone());
    let write_buffer_bytes = bands.map(|s| s.write_buffer_bytes);
    let (extents, union) = if write_only {
        (&b.footprint.written_extents, b.footprint.written_bytes)
    } else {
        (&b.footprint.accessed_extents, b.footprint.accessed_bytes)
    };
    let whole = layout.as_ref().map_or(union, |l| l.range_bytes(extents, union));
    let cache_bytes = b.params.share(&CACHE, whole.max(block), block)?;
    if cache_bytes > whole {
        return Err(b.params.error(&CACHE, format!("{cache_bytes} bytes is larger than the trace's {} range ({whole} bytes): nothing would ever be evicted", if write_only { "written" } else { "accessed" })).into());
    }
    let slots = (cache_bytes / block) as usize;
    if slots > u32::MAX as usize {
        return Err(b.params.error(&CACHE, format!("{slots} cache blocks are more than 2^32")).into());
    }
    let ssd = b.ctx.add_device("ssd", Box::new(FixedLatencyMedium::ssd(cache_bytes)));
    let ssd = b.ctx.channel(ssd, "ssd");
    let frame = Frame { below, ssd, block, write_only, slots };
    let geometry = Geometry {
        host: "the SSD cache",
        slots,
        block_bytes: block,
        bands: layout,
        write_buffer_bytes,
        segment_blocks: None,
    };
    policy::build(&mut PolicySetup { b, spec: &POLICY, geometry }, &policy_name, frame)
}

impl<P: Policy + 'static> SsdCache<P> {
    /// The cache of `frame` over `policy`.
    fn new(frame: Frame, policy: P) -> Self {
        let Frame { below, ssd, block, write_only, slots } = frame;
        SsdCache {
            below,
            ssd,
            block,
            write_only,
            index: BlockIndex::with_capacity(slots),
            blocks: vec![0; slots],
            slots: SlotPool::new(slots),
            policy,
            prefetching: slots >= PREFETCH_FROM_SLOTS,
            victim_hints: VictimHints::NONE,
            victims: Vec::new(),
            dirty_victims: Vec::new(),
            read_misses: Vec::new(),
            totals: Totals::default(),
        }
    }

    fn is_dirty(&self, slot: u32) -> bool {
        self.blocks[slot as usize] & DIRTY != 0
    }

    /// How many cached blocks are dirty.
    fn dirty_blocks(&self) -> usize {
        self.index.slots().filter(|&slot| self.is_dirty(slot)).count()
    }

    /// A free slot, evicting first if there is none: dirty victims go below in runs of
    /// consecutive blocks. The victims leave the cache only once their write-back succeeded: if
    /// the system below fails it, every victim stays cached as it was (dirty), so no block's
    /// only copy is dropped and a caller that goes on after the error finds the cache whole.
    fn take_slot(&mut self, ctx: &mut IoCtx) -> Result<u32, SimError> {
        loop {
            if let Some(slot) = self.slots.take() {
                return Ok(slot);
            }
            self.victims.clear();
            if self.policy.watches_below() {
                if let Some(bands) = self.below.bands() {
                    self.policy.below_buffer(bands.write_buffer_held_bytes);
                }
            }
            self.policy.victims(&self.blocks, &mut self.victims);
            if self.victims.is_empty() {
                return Err(self
                    .policy
                    .failure()
                    .unwrap_or_else(|| SimError::Device("cache policy returned no victim from a full cache".into())));
            }
            let block_bytes = self.block;
            if let &[slot] = self.victims.as_slice() {
                // One victim at a time (LRU, FIFO, PORE): its slot is the one to fill (what
                // freeing it and taking a free slot would give), with no list of dirty blocks.
                if self.is_dirty(slot) {
                    let block = block_of(self.blocks[slot as usize]);
                    self.write_back(block * block_bytes, block_bytes, ctx)?;
                }
                self.evict(slot);
                return Ok(slot);
            }
            // Several victims (LRU-band's whole band): written below in runs of consecutive blocks.
            let mut dirty_blocks = std::mem::take(&mut self.dirty_victims);
            dirty_blocks.clear();
            let dirty = self.victims.iter().filter(|&&slot| self.is_dirty(slot));
            dirty_blocks.extend(dirty.map(|&slot| block_of(self.blocks[slot as usize])));
            dirty_blocks.sort_unstable();
            let pieces = dirty_blocks.iter().map(|&b| ((), b * block_bytes));
            let written = coalesce(pieces, block_bytes, |(), offset, len| self.write_back(offset, len, ctx));
            self.dirty_victims = dirty_blocks;
            written?;
            for i in 0..self.victims.len() {
                let slot = self.victims[i];
                self.evict(slot);
                self.slots.release(slot);
            }
        }
    }

    /// Takes the block in `slot` out of the cache (the slot is left for the caller to fill or
    /// free), once it is written below if it was dirty.
    #[inline]
    fn evict(&mut self, slot: u32) {
        let entry = self.blocks[slot as usize];
        let (block, was_dirty) = (block_of(entry), entry & DIRTY != 0);
        self.policy.removed(slot, block, was_dirty);
        self.index.remove(slot, block);
        if was_dirty {
            self.totals.evicted_dirty += 1;
        } else {
            self.totals.evicted_clean += 1;
        }
    }

    /// Writes `len` bytes of dirty victims at `offset` below, read from the SSD first.
    fn write_back(&mut self, offset: u64, len: u64, ctx: &mut IoCtx) -> Result<(), SimError> {
        ctx.io(self.ssd, Op::Read, offset, len);
        self.below.submit(&Request::new(ctx.now(), Op::Write, offset, len), ctx)
    }

    fn insert(&mut self, block: u64, dirty: bool, ctx: &mut IoCtx) -> Result<(), SimError> {
        let slot = self.take_slot(ctx)?;
        if self.prefetching {
            self.prefetch_victims();
        }
        self.blocks[slot as usize] = block | if dirty { DIRTY } else { 0 };
        self.index.insert(block, slot, &self.blocks);
        self.policy.inserted(slot, block, dirty);
        Ok(())
    }

    /// The next victims, or the slots the next one will be chosen from, are known after an
    /// insert: starts loading their entries, which a large cache does not hold in the CPU
    /// caches. The entries named by the previous insert are loaded by now: their index groups
    /// too (the policy names a slot again while it stays a likely victim).
    fn prefetch_victims(&mut self) {
        for named in self.victim_hints.slots() {
            if let Some(&entry) = self.blocks.get(named as usize) {
                self.index.prefetch(block_of(entry));
            }
        }
        self.victim_hints = self.policy.next_victim_hints();
        for next in self.victim_hints.slots() {
            if let Some(entry) = self.blocks.get(next as usize) {
                prefetch(entry);
            }
        }
    }

    fn write(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError> {
        let blocks = req.blocks(self.block);
        let (first, count) = (blocks.start, blocks.end - blocks.start);
        for block in blocks {
            self.totals.write_lookups += 1;
            match self.index.get(block, &self.blocks) {
                Some(slot) => {
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
            match self.index.get(block, &self.blocks) {
                Some(slot) => {
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
        let block = self.block;
        let pieces = misses.iter().map(|&b| ((), b * block));
        let fetched =
            coalesce(pieces, self.block, |(), offset, len| self.fetch(offset, len, req.offset..req.end(), ctx));
        self.read_misses = misses;
        fetched
    }

    /// Reads a run of missed blocks (`len` bytes at `offset`) from below and, in a read-write
    /// cache, inserts them clean. A write-only cache keeps nothing it reads, so it reads below
    /// only the request's own bytes (`wanted`) of the run.
    fn fetch(&mut self, offset: u64, len: u64, wanted: std::ops::Range<u64>, ctx: &mut IoCtx) -> Result<(), SimError> {
        if self.write_only {
            let (from, to) = (offset.max(wanted.start), (offset + len).min(wanted.end));
            return self.below.submit(&Request::new(ctx.now(), Op::Read, from, to - from), ctx);
        }
        self.below.submit(&Request::new(ctx.now(), Op::Read, offset, len), ctx)?;
        for block in offset / self.block..(offset + len) / self.block {
            self.insert(block, false, ctx)?;
        }
        ctx.io(self.ssd, Op::Write, offset, len);
        Ok(())
    }
}

impl<P: Policy + 'static> Cache for SsdCache<P> {
    fn holds_dirty(&self, block: u64) -> bool {
        self.index.get(block, &self.blocks).is_some_and(|slot| self.is_dirty(slot))
    }
}

impl<P: Policy + 'static> System for SsdCache<P> {
    fn submit(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError> {
        match req.op {
            Op::Write => self.write(req, ctx)?,
            Op::Read => self.read(req, ctx)?,
            Op::Trim => self.below.submit(req, ctx)?,
        }
        // A user's policy that failed during the request stops the run here (the natives never
        // fail: this compiles to nothing for them).
        match self.policy.failure() {
            Some(failure) => Err(failure),
            None => Ok(()),
        }
    }

    /// For the request's first blocks (a long request's later blocks are read long after the
    /// prefetch would have been useful): two requests ahead, their index groups; one request
    /// ahead, the per-slot entries and policy state of the slots those groups name.
    fn prefetch(&self, req: &Request, ahead: u32) {
        if !self.prefetching {
            return;
        }
        for block in req.blocks(self.block).take(PREFETCHED_BLOCKS) {
            if ahead > 1 {
                self.index.prefetch(block);
            } else {
                self.index.candidates(block, |slot| {
                    if let Some(entry) = self.blocks.get(slot as usize) {
                        prefetch(entry);
                    }
                    self.policy.prefetch_hit(slot);
                });
            }
        }
    }

    fn idle(&mut self, ctx: &mut IoCtx, until_ns: u64) -> Result<bool, SimError> {
        self.below.idle(ctx, until_ns)
    }

    fn capacity(&self) -> u64 {
        self.below.capacity()
    }

    fn counters(&self, out: &mut Counters) {
        self.totals.report(out);
        out.declare(&READ_HIT_RATE);
        out.declare(&WRITE_HIT_RATE);
        out.expect(&EVICTED);
        self.policy.counters(out);
        self.below.counters(out);
    }

    fn gauges(&self, out: &mut Gauges) {
        out.set(&CACHE_BLOCKS, self.blocks.len() as f64);
        out.set(&CACHE_OCCUPANCY, self.index.len() as f64);
        out.set(&CACHE_DIRTY, self.dirty_blocks() as f64);
        self.policy.gauges(out);
        self.below.gauges(out);
    }
}
