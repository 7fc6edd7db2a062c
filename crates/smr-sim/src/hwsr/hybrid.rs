//! The hybrid system of §2.1 and §4.2, shared by HWSR and the S-block baseline: a MEM write
//! buffer and an SSD read cache in front of a shingled disk, with one block-level hash map
//! saying where a block's cached copy is. The shingled disk (`ShingledDisk`) decides what
//! writing a segment costs; everything else is here.
//!
//! Writes go to the MEM buffer and are acknowledged from it (one DRAM write). A write to a
//! block held by the SSD removes it there. When the buffer is full, the policy's victims — all
//! of one segment — are written to the disk together (one segment rewrite, or one S-block
//! destage) and leave the buffer, and the write waits for that (`Destage::Sync`, the paper's).
//! With `Destage::Background` a flusher does this as background work (`System::background`),
//! one destage at a time, from when the buffer holds the high watermark (or more than the low
//! one while the disk is idle) until it holds the low one; the victims leave the buffer when
//! their destage is issued, their slots when it ends, and a write waits only when it finds
//! the buffer full, for the destage in flight (or, if none is, for one of its own). A block
//! whose destage is in flight is read from the disk. Without a MEM buffer every host write
//! is that disk write.
//! Reads look in the MEM buffer (a hit only if the host wrote every unit the read touches),
//! then the SSD, then the disk, which is read in whole blocks (the smallest unit sent to it,
//! §4.1), one I/O per run of blocks that lie side by side there; blocks read from the disk
//! that the MEM buffer does not hold are put in the SSD, written behind the read (the read is
//! answered when the disk read ends). MEM, SSD and disk accesses of one request are served one
//! after another. Trims cost nothing.

use rustc_hash::FxHashMap;
use smr_core::{Op, Request};

use super::membuffer::{MemBuffer, Units};
use super::ssdcache::SsdCache;
use smr_kernel::metrics::{Counters, Exercise, Gauges, Metric, Ratio, Unit};
use smr_kernel::policy::Policy;
use smr_kernel::runs::coalesce;
use smr_kernel::totals;
use smr_kernel::{Background, ChannelId, Command, Concurrency, IoCtx, SimError, System};

pub static HOST_REQUESTS: Metric = Metric::new("host_requests", Unit::Count, "host reads and writes served");
pub static BLOCK_ACCESSES: Metric = Metric::new(
    "block_accesses",
    Unit::Count,
    "cache blocks that host reads and writes touched (looked up in MEM and SSD)",
);
pub static MEM_HITS: Metric = Metric::new(
    "mem_hits",
    Unit::Count,
    "block accesses served by the MEM buffer: writes to a buffered block, reads of written units",
);
pub static SSD_HITS: Metric = Metric::new("ssd_hits", Unit::Count, "block reads served by the SSD cache");
pub static DISK_BLOCK_READS: Metric =
    Metric::new("disk_block_reads", Unit::Count, "blocks host reads fetched from the disk");
pub static MEM_EVICTIONS: Metric = Metric::new(
    "mem_evictions",
    Unit::Count,
    "times the full MEM buffer evicted (each one segment rewrite or S-block destage)",
);
pub static MEM_EVICTED: Exercise = Exercise {
    counters: &[&MEM_EVICTIONS],
    when_never:
        "the MEM buffer held every block written: nothing was evicted, so every MEM buffer policy gives these figures",
};
pub static MEM_BLOCKS_EVICTED: Metric =
    Metric::new("mem_blocks_evicted", Unit::Blocks, "blocks written from the MEM buffer to the disk");
pub static FLUSHER_EVICTIONS: Metric = Metric::new(
    "flusher_evictions",
    Unit::Count,
    "MEM buffer evictions the background flusher started (destage=background; counted in mem_evictions too)",
);
pub static FULL_BUFFER_WAITS: Metric =
    Metric::new("full_buffer_waits", Unit::Count, "host block writes that found the MEM buffer full and waited for a destage (with destage=sync, each one it started)");
pub static SSD_FILLS: Metric = Metric::new("ssd_fills", Unit::Blocks, "blocks put in the SSD cache by read misses");
pub static SSD_INVALIDATIONS: Metric =
    Metric::new("ssd_invalidations", Unit::Blocks, "SSD blocks dropped because the host wrote them");
pub static REWRITE_READS_MEM: Metric =
    Metric::new("rewrite_reads_mem", Unit::Blocks, "blocks a disk rewrite read from the MEM buffer");
pub static REWRITE_READS_SSD: Metric =
    Metric::new("rewrite_reads_ssd", Unit::Blocks, "blocks a disk rewrite read from the SSD cache");
pub static MEM_HIT_RATIO: Ratio = Ratio::new(
    Metric::new(
        "mem_hit_ratio",
        Unit::Fraction,
        "HWSR: block accesses served by the MEM buffer / block accesses (Fig. 12c)",
    ),
    &MEM_HITS,
    &BLOCK_ACCESSES,
);
pub static SSD_HIT_RATIO: Ratio = Ratio::new(
    Metric::new(
        "ssd_hit_ratio",
        Unit::Fraction,
        "HWSR: block reads served by the SSD cache / block accesses (Fig. 12c)",
    ),
    &SSD_HITS,
    &BLOCK_ACCESSES,
);
pub static SEGMENTS_REWRITTEN: Metric = Metric::new(
    "segments_rewritten",
    Unit::Count,
    "segment rewrites (HWSR) or S-blocks written, by destages and by garbage collection (S-block) (Fig. 14)",
);
pub static FRESH_BLOCKS_WRITTEN: Metric = Metric::new(
    "fresh_blocks_written",
    Unit::Blocks,
    "blocks written to the disk with new data (from the MEM buffer or the host)",
);
pub static BLOCKS_MOVED: Metric = Metric::new(
    "blocks_moved",
    Unit::Blocks,
    "blocks read and written back unchanged because a write shingled over them or garbage collection moved them",
);
pub static REWRITE_DISK_READS: Metric = Metric::new(
    "rewrite_disk_reads",
    Unit::Count,
    "disk reads done by segment rewrites and S-block destages and moves",
);
pub static SEGMENTS_PER_REQUEST: Ratio = Ratio::new(
    Metric::new(
        "segments_rewritten_per_request",
        Unit::Ratio,
        "segments rewritten / host requests (x 10,000: Fig. 14)",
    ),
    &SEGMENTS_REWRITTEN,
    &HOST_REQUESTS,
);
pub static REGIONS: Metric = Metric::new("regions", Unit::Count, "regions on the shingled disk");
pub static CAPACITY: Metric = Metric::new(
    "capacity_bytes",
    Unit::Bytes,
    "host bytes the shingled disk holds: whole regions with their guard bands (wave-like for HWSR, one per region and an internal one for S-block) less S-block's spare share (§3.2)",
);
pub static TRANSLATION_TABLE: Metric = Metric::new(
    "translation_table_bytes_per_tb",
    Unit::Bytes,
    "logical-to-physical table the shingled layout keeps for the whole disk, per TB (10^12 bytes) it holds: none for HWSR, whose places Eq. 5 computes; 4 bytes per logical S-block and per slot for S-block (§3.3)",
);
pub static MEM_BLOCKS: Metric = Metric::new("mem_blocks", Unit::Blocks, "MEM buffer size, in cache blocks");
pub static MEM_OCCUPANCY: Metric =
    Metric::new("mem_occupancy_blocks", Unit::Blocks, "cache blocks held in the MEM buffer");
pub static SSD_BLOCKS: Metric = Metric::new("ssd_blocks", Unit::Blocks, "SSD cache size, in cache blocks");
pub static SSD_OCCUPANCY: Metric =
    Metric::new("ssd_occupancy_blocks", Unit::Blocks, "cache blocks held in the SSD cache");

/// A block of a segment that the disk receives new data for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fresh {
    /// Its place in the segment (or S-block), from 0.
    pub index: u64,
    /// Whether the new data covers it whole; if not, its older version is merged in.
    pub complete: bool,
}

/// Where a disk rewrite found a block's data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// New data (from the MEM buffer or the host), merged with `base` when not whole; `None`
    /// when it is whole or nothing older was stored.
    Fresh {
        base: Option<Base>,
    },
    Mem,
    Ssd,
    /// The disk, at this byte.
    Disk(u64),
}

/// Where the older version of a partly written block came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    Ssd,
    Disk(u64),
}

/// What a shingled disk may ask of the caches while it writes a segment.
pub trait Sources {
    /// Where `block` can be read from other than the disk: the MEM buffer (if `mem` and it
    /// holds every unit) or the SSD, with that read pushed onto `reads`; `None` if neither
    /// holds it and the disk must be read.
    fn read_cached(&mut self, block: u64, mem: bool, reads: &mut Vec<Command>) -> Option<Source>;

    /// Bookkeeping for the data-loss checks: `block`'s copy at disk byte `to` now holds what
    /// came from `from`. Costs nothing outside tests.
    fn landed(&mut self, _block: u64, _from: Source, _to: u64) {}
}

/// A shingled disk under the caches: the segment-based layout (HWSR) or S-block's logs.
pub trait ShingledDisk {
    /// Host bytes it holds.
    fn capacity(&self) -> u64;
    /// Cache blocks per segment (S-block).
    fn blocks_per_segment(&self) -> u64;
    /// Where block `block`'s current copy lies on the disk, in bytes.
    fn block_offset(&self, block: u64) -> u64;
    fn block_bytes(&self) -> u64;
    /// The disk's channel.
    fn channel(&self) -> ChannelId;
    /// Reads whole `blocks` (ascending) for host reads, one I/O per run that lies side by side.
    fn read_blocks(&mut self, ctx: &mut IoCtx, blocks: &[u64]) {
        let channel = self.channel();
        let pieces = blocks.iter().map(|&b| ((), self.block_offset(b)));
        let read: Result<(), std::convert::Infallible> = coalesce(pieces, self.block_bytes(), |(), offset, len| {
            ctx.io(channel, Op::Read, offset, len);
            Ok(())
        });
        let Ok(()) = read;
    }
    /// Writes new data for the `fresh` blocks (ascending by index) of `segment`, with all the
    /// reading and writing the layout makes that cost.
    fn write_segment<S: Sources>(&mut self, ctx: &mut IoCtx, segment: u64, fresh: &[Fresh], sources: &mut S);
    /// Bytes of the logical-to-physical table the layout keeps for the whole disk.
    fn translation_table_bytes(&self) -> u64;
    fn counters(&self, out: &mut Counters);
    fn gauges(&self, _out: &mut Gauges) {}
}

/// Where a block's cached copy is: a MEM slot (`MEM` set) or an SSD slot.
const MEM: u32 = 1 << 31;

totals! {
    struct Totals {
        host_requests => HOST_REQUESTS,
        block_accesses => BLOCK_ACCESSES,
        mem_hits => MEM_HITS,
        ssd_hits => SSD_HITS,
        disk_block_reads => DISK_BLOCK_READS,
        mem_evictions => MEM_EVICTIONS,
        mem_blocks_evicted => MEM_BLOCKS_EVICTED,
        ssd_fills => SSD_FILLS,
        ssd_invalidations => SSD_INVALIDATIONS,
        rewrite_reads_mem => REWRITE_READS_MEM,
        rewrite_reads_ssd => REWRITE_READS_SSD,
        flusher_evictions => FLUSHER_EVICTIONS,
        full_buffer_waits => FULL_BUFFER_WAITS,
    }
}

/// The MEM buffer, the SSD cache and the map: what a disk rewrite may read from.
pub struct Front {
    map: FxHashMap<u64, u32>,
    mem: Option<MemBuffer>,
    ssd: Option<SsdCache>,
    units: Units,
    block_bytes: u64,
    mem_ch: ChannelId,
    ssd_ch: ChannelId,
    totals: Totals,
    #[cfg(test)]
    pub ledger: super::ledger::Ledger,
}

impl Front {
    /// What stopped a user's policy of the MEM buffer or the SSD cache, if one failed.
    fn policy_failure(&mut self) -> Option<SimError> {
        let mem = self.mem.as_mut().and_then(MemBuffer::failure);
        mem.or_else(|| self.ssd.as_mut().and_then(SsdCache::failure))
    }
}

impl Sources for Front {
    fn read_cached(&mut self, block: u64, mem: bool, reads: &mut Vec<Command>) -> Option<Source> {
        let &place = self.map.get(&block)?;
        if place & MEM != 0 {
            let buffer = self.mem.as_ref().expect("MEM slots exist only with a MEM buffer");
            if !mem || buffer.written(place & !MEM) != self.units.all() {
                return None;
            }
            reads.push(Command::new(self.mem_ch, Op::Read, 0, self.block_bytes));
            self.totals.rewrite_reads_mem += 1;
            return Some(Source::Mem);
        }
        reads.push(Command::new(self.ssd_ch, Op::Read, place as u64 * self.block_bytes, self.block_bytes));
        self.totals.rewrite_reads_ssd += 1;
        Some(Source::Ssd)
    }

    #[cfg(test)]
    fn landed(&mut self, block: u64, from: Source, to: u64) {
        self.ledger.landed(block, from, to);
    }
}

/// Sizes of the front, in blocks.
pub struct FrontSizes {
    pub mem_blocks: Option<usize>,
    pub ssd_blocks: Option<usize>,
    pub block_bytes: u64,
}

/// The replacement policies of the front's caches, each built for its cache's size (none for
/// a cache the front does not have).
pub struct FrontPolicies {
    pub mem: Option<Box<dyn Policy>>,
    pub ssd: Option<Box<dyn Policy>>,
}

/// When the MEM buffer writes its victims to the disk (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Destage {
    /// In the write that finds the buffer full, which waits for it (§2.1, §4.3).
    Sync,
    /// From a flusher, between watermarks in blocks held: it starts at `high`, or above `low`
    /// while the disk is idle, and stops at `low`.
    Background { high: usize, low: usize },
}

impl Destage {
    pub fn background(high: usize, low: usize) -> Self {
        debug_assert!(low < high, "the flusher stops below where it starts");
        Destage::Background { high, low }
    }
}

/// The background flusher's state.
#[derive(Default)]
struct Flusher {
    /// The destage in flight and the buffer slots it keeps until it ends.
    in_flight: Option<(Background, usize)>,
    /// Between a start and the low watermark.
    flushing: bool,
}

/// HWSR or S-block: the front over a shingled disk.
pub struct Hybrid<D> {
    front: Front,
    disk: D,
    destage: Destage,
    flusher: Flusher,
    /// Scratch lists kept between requests.
    victims: Vec<u32>,
    fresh: Vec<Fresh>,
    misses: Vec<u64>,
    evicted: Vec<u64>,
}

impl<D: ShingledDisk> Hybrid<D> {
    /// The front with its media registered in `ctx`: the MEM buffer in DRAM, the SSD cache on
    /// an SSD, each ordered by its policy in `policies`; `destage` says when the MEM buffer
    /// writes to the disk.
    pub fn new(disk: D, sizes: FrontSizes, policies: FrontPolicies, destage: Destage, ctx: &mut IoCtx) -> Self {
        use smr_media::FixedLatencyMedium;
        let bytes = |blocks: Option<usize>| blocks.unwrap_or(1) as u64 * sizes.block_bytes;
        let dram = ctx.add_device("mem", Box::new(FixedLatencyMedium::dram(bytes(sizes.mem_blocks))));
        let ssd = ctx.add_device("ssd", Box::new(FixedLatencyMedium::ssd(bytes(sizes.ssd_blocks))));
        let front = Front {
            map: FxHashMap::default(),
            mem: sizes.mem_blocks.zip(policies.mem).map(|(n, p)| MemBuffer::new(n, p, disk.blocks_per_segment())),
            ssd: sizes.ssd_blocks.zip(policies.ssd).map(|(n, p)| SsdCache::new(n, p)),
            units: Units::of_block(sizes.block_bytes),
            block_bytes: sizes.block_bytes,
            mem_ch: ctx.channel(dram, "mem"),
            ssd_ch: ctx.channel(ssd, "ssd"),
            totals: Totals::default(),
            #[cfg(test)]
            ledger: Default::default(),
        };
        Hybrid {
            front,
            disk,
            destage,
            flusher: Flusher::default(),
            victims: Vec::new(),
            fresh: Vec::new(),
            misses: Vec::new(),
            evicted: Vec::new(),
        }
    }

    /// The byte range `[from, to)` inside block `block` that `req` covers.
    fn span_in(&self, req: &Request, block: u64) -> (u64, u64) {
        let start = block * self.front.block_bytes;
        (req.offset.max(start) - start, req.end().min(start + self.front.block_bytes) - start)
    }

    /// Drops `block`'s SSD copy, if any (its data is being rewritten).
    fn invalidate_ssd(&mut self, block: u64) {
        let f = &mut self.front;
        if let Some(&place) = f.map.get(&block) {
            if place & MEM == 0 {
                f.ssd.as_mut().expect("SSD slots exist only with an SSD").remove(place);
                f.map.remove(&block);
                f.totals.ssd_invalidations += 1;
                #[cfg(test)]
                f.ledger.dropped_ssd(block);
            }
        }
    }

    /// Writes one segment's victims from the MEM buffer to the disk and frees their slots;
    /// returns how many there were.
    fn evict(&mut self, ctx: &mut IoCtx) -> Result<usize, SimError> {
        let mut victims = std::mem::take(&mut self.victims);
        victims.clear();
        let mem = self.front.mem.as_mut().expect("evicting needs a MEM buffer");
        mem.victims(&mut victims);
        let Some(&first) = victims.first() else {
            return Err(mem.failure().unwrap_or_else(|| {
                SimError::Device("the MEM buffer's policy chose no victim from a full buffer".into())
            }));
        };
        let per_segment = self.disk.blocks_per_segment();
        let segment = mem.block(first) / per_segment;
        self.fresh.clear();
        let all = self.front.units.all();
        self.fresh.extend(
            victims
                .iter()
                .map(|&slot| Fresh { index: mem.block(slot) % per_segment, complete: mem.written(slot) == all }),
        );
        self.fresh.sort_unstable_by_key(|f| f.index);
        self.disk.write_segment(ctx, segment, &self.fresh, &mut self.front);
        let f = &mut self.front;
        let mem = f.mem.as_mut().expect("evicting needs a MEM buffer");
        for &slot in &victims {
            let block = mem.block(slot);
            mem.remove(slot);
            f.map.remove(&block);
            #[cfg(test)]
            f.ledger.dropped_mem(block);
        }
        f.totals.mem_evictions += 1;
        f.totals.mem_blocks_evicted += victims.len() as u64;
        let evicted = victims.len();
        self.victims = victims;
        Ok(evicted)
    }

    /// Whether the MEM buffer has no slot for another block: all hold blocks or wait for the
    /// destage in flight to end.
    fn mem_full(&self) -> bool {
        let reserved = self.flusher.in_flight.map_or(0, |(_, slots)| slots);
        self.front.mem.as_ref().is_some_and(|m| m.held() + reserved >= m.capacity())
    }

    /// Makes room in the full MEM buffer for a write: it waits for the destage in flight, or
    /// evicts (and waits for that).
    fn make_room(&mut self, ctx: &mut IoCtx) -> Result<(), SimError> {
        self.front.totals.full_buffer_waits += 1;
        while self.mem_full() {
            match self.flusher.in_flight.take() {
                Some((work, _)) => ctx.wait_for(work),
                None => {
                    self.evict(ctx)?;
                }
            }
        }
        Ok(())
    }

    /// The background flusher (`Destage::Background`): ends the destage in flight if it has
    /// finished; if none is in flight and the buffer is to be destaged, issues one.
    fn flush(&mut self, ctx: &mut IoCtx, high: usize, low: usize) -> Result<bool, SimError> {
        if let Some((work, _)) = self.flusher.in_flight {
            if !ctx.finished(work) {
                return Ok(false);
            }
            self.flusher.in_flight = None;
        }
        let held = self.mem_len();
        let idle = ctx.device_idle(self.disk.channel());
        self.flusher.flushing = held > low && (self.flusher.flushing || held >= high || idle);
        if !self.flusher.flushing {
            return Ok(false);
        }
        let (work, evicted) = ctx.background(|ctx| self.evict(ctx));
        self.flusher.in_flight = Some((work, evicted?));
        self.front.totals.flusher_evictions += 1;
        Ok(true)
    }

    fn write(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError> {
        if self.front.mem.is_none() {
            return self.write_through(req, ctx);
        }
        for block in req.blocks(self.front.block_bytes) {
            let (from, to) = self.span_in(req, block);
            let written = self.front.units.covered(from, to);
            self.front.totals.block_accesses += 1;
            #[cfg(test)]
            self.front.ledger.host_write(block, written, self.front.units.all());
            match self.front.map.get(&block) {
                Some(&place) if place & MEM != 0 => {
                    self.front.totals.mem_hits += 1;
                    self.front.mem.as_mut().expect("a MEM buffer").hit(place & !MEM, written);
                    continue;
                }
                Some(_) => self.invalidate_ssd(block),
                None => {}
            }
            if self.mem_full() {
                self.make_room(ctx)?;
            }
            let slot = self.front.mem.as_mut().expect("a MEM buffer").insert(block, written);
            self.front.map.insert(block, slot | MEM);
        }
        ctx.io(self.front.mem_ch, Op::Write, 0, req.len);
        Ok(())
    }

    /// Without a MEM buffer: each segment the write touches is written on the disk at once.
    fn write_through(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError> {
        let per_segment = self.disk.blocks_per_segment();
        let blocks = req.blocks(self.front.block_bytes);
        let mut block = blocks.start;
        while block < blocks.end {
            let segment = block / per_segment;
            let end = blocks.end.min((segment + 1) * per_segment);
            self.fresh.clear();
            for b in block..end {
                let (from, to) = self.span_in(req, b);
                let written = self.front.units.covered(from, to);
                self.fresh.push(Fresh { index: b % per_segment, complete: written == self.front.units.all() });
                self.front.totals.block_accesses += 1;
                #[cfg(test)]
                self.front.ledger.host_write(b, written, self.front.units.all());
            }
            self.disk.write_segment(ctx, segment, &self.fresh, &mut self.front);
            for b in block..end {
                self.invalidate_ssd(b);
                #[cfg(test)]
                self.front.ledger.dropped_mem(b);
            }
            block = end;
        }
        Ok(())
    }

    fn read(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError> {
        let mut misses = std::mem::take(&mut self.misses);
        misses.clear();
        let (mut mem_bytes, mut ssd_bytes) = (0, 0);
        for block in req.blocks(self.front.block_bytes) {
            let (from, to) = self.span_in(req, block);
            let f = &mut self.front;
            f.totals.block_accesses += 1;
            match f.map.get(&block) {
                Some(&place) if place & MEM != 0 => {
                    let mem = f.mem.as_mut().expect("a MEM buffer");
                    let touched = f.units.touched(from, to);
                    if mem.written(place & !MEM) & touched == touched {
                        mem.hit(place & !MEM, 0);
                        f.totals.mem_hits += 1;
                        mem_bytes += to - from;
                        #[cfg(test)]
                        f.ledger.read(block, Source::Mem);
                    } else {
                        misses.push(block);
                    }
                }
                Some(&place) => {
                    f.ssd.as_mut().expect("an SSD").hit(place);
                    f.totals.ssd_hits += 1;
                    ssd_bytes += to - from;
                    #[cfg(test)]
                    f.ledger.read(block, Source::Ssd);
                }
                None => misses.push(block),
            }
        }
        if mem_bytes > 0 {
            ctx.io(self.front.mem_ch, Op::Read, 0, mem_bytes);
        }
        if ssd_bytes > 0 {
            ctx.io(self.front.ssd_ch, Op::Read, 0, ssd_bytes);
        }
        let mut filled = Ok(());
        if !misses.is_empty() {
            self.disk.read_blocks(ctx, &misses);
            self.front.totals.disk_block_reads += misses.len() as u64;
            for &block in &misses {
                #[cfg(test)]
                self.front.ledger.read(block, Source::Disk(self.disk.block_offset(block)));
                filled = self.fill_ssd(block, ctx);
                if filled.is_err() {
                    break;
                }
            }
        }
        self.misses = misses;
        filled
    }

    /// Puts a block read from the disk in the SSD, unless the MEM buffer holds it.
    fn fill_ssd(&mut self, block: u64, ctx: &mut IoCtx) -> Result<(), SimError> {
        let f = &mut self.front;
        let Some(ssd) = f.ssd.as_mut() else { return Ok(()) };
        if f.map.contains_key(&block) {
            return Ok(());
        }
        let mut evicted = std::mem::take(&mut self.evicted);
        evicted.clear();
        let slot = ssd.insert(block, &mut evicted);
        for &old in &evicted {
            f.map.remove(&old);
            #[cfg(test)]
            f.ledger.dropped_ssd(old);
        }
        self.evicted = evicted;
        let slot = slot?;
        f.map.insert(block, slot);
        f.totals.ssd_fills += 1;
        ctx.io_behind(f.ssd_ch, Op::Write, slot as u64 * f.block_bytes, f.block_bytes);
        #[cfg(test)]
        f.ledger.filled_ssd(block, self.disk.block_offset(block));
        Ok(())
    }

    pub fn disk(&self) -> &D {
        &self.disk
    }

    #[cfg(test)]
    pub fn front(&self) -> &Front {
        &self.front
    }

    #[cfg(test)]
    pub fn front_mut(&mut self) -> &mut Front {
        &mut self.front
    }

    /// Where the latest data of `block` is: the MEM buffer (and whether whole), the SSD, or
    /// the disk at a byte offset.
    #[cfg(test)]
    pub fn locate(&self, block: u64) -> (Source, bool) {
        match self.front.map.get(&block) {
            Some(&p) if p & MEM != 0 => {
                (Source::Mem, self.front.mem.as_ref().is_some_and(|m| m.written(p & !MEM) == self.front.units.all()))
            }
            Some(_) => (Source::Ssd, true),
            None => (Source::Disk(self.disk.block_offset(block)), true),
        }
    }

    pub fn mem_len(&self) -> usize {
        self.front.mem.as_ref().map_or(0, MemBuffer::held)
    }

    pub fn ssd_len(&self) -> usize {
        self.front.ssd.as_ref().map_or(0, SsdCache::held)
    }
}

impl<D: ShingledDisk> System for Hybrid<D> {
    fn submit(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError> {
        let served = match req.op {
            Op::Write => {
                self.front.totals.host_requests += 1;
                self.write(req, ctx)
            }
            Op::Read => {
                self.front.totals.host_requests += 1;
                self.read(req, ctx)
            }
            Op::Trim => Ok(()),
        };
        match self.front.policy_failure() {
            Some(failure) => Err(failure),
            None => served,
        }
    }

    fn concurrency(&self) -> Concurrency {
        Concurrency::Overlapped { background: matches!(self.destage, Destage::Background { .. }) }
    }

    fn background(&mut self, ctx: &mut IoCtx) -> Result<bool, SimError> {
        match self.destage {
            Destage::Background { high, low } => self.flush(ctx, high, low),
            Destage::Sync => Ok(false),
        }
    }

    fn capacity(&self) -> u64 {
        self.disk.capacity()
    }

    fn counters(&self, out: &mut Counters) {
        self.front.totals.report(out);
        out.declare(&MEM_HIT_RATIO);
        out.declare(&SSD_HIT_RATIO);
        out.declare(&SEGMENTS_PER_REQUEST);
        if let Some(mem) = &self.front.mem {
            mem.counters(out);
            out.expect(&MEM_EVICTED);
        }
        if let Some(ssd) = &self.front.ssd {
            ssd.counters(out);
        }
        self.disk.counters(out);
    }

    fn gauges(&self, out: &mut Gauges) {
        let f = &self.front;
        out.set(&MEM_BLOCKS, f.mem.as_ref().map_or(0, MemBuffer::capacity) as f64);
        out.set(&MEM_OCCUPANCY, self.mem_len() as f64);
        out.set(&SSD_BLOCKS, f.ssd.as_ref().map_or(0, SsdCache::capacity) as f64);
        out.set(&SSD_OCCUPANCY, self.ssd_len() as f64);
        let capacity = self.disk.capacity();
        out.set(&CAPACITY, capacity as f64);
        out.set(&TRANSLATION_TABLE, self.disk.translation_table_bytes() as f64 * 1e12 / capacity.max(1) as f64);
        self.disk.gauges(out);
    }
}
