//! The S-block baseline's disk (Cassuto et al., as HWSR §3.1, §3.2 and §4.1 describe it): each
//! region is a circular log of S-blocks, an S-block the size of an HWSR segment (`S_reg`
//! blocks of `S_blk` sectors, laid along the tracks as a conventional shingled layout lays
//! data). A region maps `(1 - beta)·n` logical S-blocks onto `n` slots plus an internal guard
//! band of `ceil(kappa·S_T / S-block)` slots between head and tail, and is followed by a guard
//! band of `kappa` tracks.
//!
//! Writing new data to an S-block (a group destage from the MEM buffer, or a host write without
//! one) reads the old S-block whole from the disk when any of its data is kept — one sequential
//! read; the SSD is not consulted, as splitting an S-block's read around cached blocks would
//! add repositioning —, merges, and appends the S-block at the head; its old slot becomes
//! invalid. Before the append, garbage collection frees slots until the head stays the internal
//! guard band away from the tail: an invalid slot at the tail is reclaimed, a valid one is read
//! and appended at the head (moved). A log starts full (`fill=full`: the logical S-blocks in
//! order from the first slot) or empty (`fill=empty`). A destage's reads and writes go to the
//! disk as one batch (`IoCtx::batch`), in that order, each write after the read of what it
//! writes: a drive that queues reorders them by position, one that does not serves them so.
//!
//! Not modelled: Cassuto's per-log cache buffer of incoming writes (HWSR §5.4 mentions it);
//! here without a MEM buffer each host write is its own destage.

use smr_core::units::SECTOR;
use smr_core::Op;

use super::hybrid::{
    Base, Fresh, ShingledDisk, Source, Sources, BLOCKS_MOVED, FRESH_BLOCKS_WRITTEN, REGIONS, REWRITE_DISK_READS,
    SEGMENTS_REWRITTEN,
};
use super::layout::Geometry;
use smr_kernel::gc::GcCost;
use smr_kernel::metrics::{Counters, Gauges, Metric, Ratio, Unit};
use smr_kernel::totals;
use smr_kernel::{ChannelId, Command, IoCtx};

pub static DESTAGES: Metric = Metric::new(
    "sblock_destages",
    Unit::Count,
    "S-blocks written with new data (group destages, or host writes without a MEM buffer)",
);
pub static GC_MOVES: Metric =
    Metric::new("gc_sblocks_moved", Unit::Count, "valid S-blocks garbage collection moved from tail to head");
pub static OMEGA: Ratio = Ratio::new(
    Metric::new(
        "omega",
        Unit::Ratio,
        "S-block: S-blocks moved by garbage collection per destage (HWSR Table 1, Fig. 6)",
    ),
    &GC_MOVES,
    &DESTAGES,
);

/// A slot holding no valid S-block.
const EMPTY: u32 = u32::MAX;

/// The sizes of S-block's regions, from the shared geometry and the spare rate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogGeometry {
    pub geometry: Geometry,
    /// Logical S-blocks per region: `floor((1 - beta)·n)`.
    pub logical: u64,
    /// Slots of the log: `n` plus the internal guard band.
    pub slots: u64,
    /// Slots the head keeps away from the tail.
    pub guard_slots: u64,
}

impl LogGeometry {
    /// `None` if `spare` leaves no spare slot or no logical S-block.
    pub fn new(geometry: Geometry, spare: f64) -> Option<Self> {
        let n = geometry.segments_per_region();
        let logical = ((1.0 - spare) * n as f64).floor() as u64;
        if logical == 0 || logical >= n {
            return None;
        }
        let guard_slots = (geometry.kappa * geometry.track_sectors).div_ceil(geometry.segment_sectors()).max(1);
        Some(LogGeometry { geometry, logical, slots: n + guard_slots, guard_slots })
    }

    /// Sectors a region takes on the disk: its slots and the guard band after them.
    pub fn region_sectors(&self) -> u64 {
        self.slots * self.geometry.segment_sectors() + self.geometry.kappa * self.geometry.track_sectors
    }

    pub fn regions_on(&self, disk_bytes: u64) -> u64 {
        disk_bytes / SECTOR / self.region_sectors()
    }
}

/// One region's circular log.
struct Log {
    /// Logical S-block (within the region) -> slot, or `EMPTY` if never written.
    slot_of: Vec<u32>,
    /// Slot -> logical S-block, or `EMPTY` (free or invalid).
    owner: Vec<u32>,
    head: u32,
    tail: u32,
    /// Slots from tail to head (valid or invalid).
    used: u32,
}

impl Log {
    fn new(g: &LogGeometry, full: bool) -> Self {
        let (logical, slots) = (g.logical as usize, g.slots as usize);
        let mut log = Log { slot_of: vec![EMPTY; logical], owner: vec![EMPTY; slots], head: 0, tail: 0, used: 0 };
        if full {
            for s in 0..logical {
                log.slot_of[s] = s as u32;
                log.owner[s] = s as u32;
            }
            log.head = logical as u32;
            log.used = logical as u32;
        }
        log
    }

    fn append(&mut self, logical: u32, slots: u32) -> u32 {
        let slot = self.head;
        self.owner[slot as usize] = logical;
        self.slot_of[logical as usize] = slot;
        self.head = (self.head + 1) % slots;
        self.used += 1;
        slot
    }
}

totals! {
    /// Segments rewritten are the destages and moves together (`counters`).
    struct Totals {
        destages => DESTAGES,
        moves => GC_MOVES,
        fresh_blocks => FRESH_BLOCKS_WRITTEN,
        blocks_moved => BLOCKS_MOVED,
        disk_reads => REWRITE_DISK_READS,
    }
}

pub struct SblockDisk {
    g: LogGeometry,
    regions: u64,
    channel: ChannelId,
    starts_full: bool,
    logs: Vec<Option<Box<Log>>>,
    gc: GcCost,
    /// The destage's disk I/O, kept between destages.
    batch: Vec<Command>,
    totals: Totals,
}

impl SblockDisk {
    pub fn new(g: LogGeometry, disk_bytes: u64, channel: ChannelId, starts_full: bool) -> Self {
        let regions = g.regions_on(disk_bytes);
        let logs = (0..regions).map(|_| None).collect();
        SblockDisk {
            g,
            regions,
            channel,
            starts_full,
            logs,
            gc: GcCost::default(),
            batch: Vec::new(),
            totals: Totals::default(),
        }
    }

    fn sblock_bytes(&self) -> u64 {
        self.g.geometry.segment_bytes()
    }

    /// The byte where `slot` of region `region` begins.
    fn slot_offset(&self, region: u64, slot: u64) -> u64 {
        (region * self.g.region_sectors() + slot * self.g.geometry.segment_sectors()) * SECTOR
    }

    /// The slot logical S-block `within` of `region` is in (its first place when never written).
    fn slot_now(&self, region: u64, within: u64) -> u64 {
        match &self.logs[region as usize] {
            Some(log) if log.slot_of[within as usize] != EMPTY => log.slot_of[within as usize] as u64,
            _ => within,
        }
    }

    /// Frees slots at the tail of `region`'s log until one can be appended with the internal
    /// guard band kept; each move's read and write go onto `batch`, the write after the read.
    fn make_room<S: Sources>(&mut self, batch: &mut Vec<Command>, region: u64, sources: &mut S) {
        let (slots, guard) = (self.g.slots as u32, self.g.guard_slots as u32);
        let bytes = self.sblock_bytes();
        let per_sblock = self.g.geometry.region_tracks;
        let (mut read, mut written) = (0, 0);
        loop {
            let log = self.logs[region as usize].as_mut().expect("the region's log exists");
            if slots - log.used > guard {
                break;
            }
            let tail = log.tail;
            let owner = log.owner[tail as usize];
            log.owner[tail as usize] = EMPTY;
            log.tail = (tail + 1) % slots;
            log.used -= 1;
            if owner == EMPTY {
                continue;
            }
            let to = log.append(owner, slots);
            let (from_offset, to_offset) = (self.slot_offset(region, tail as u64), self.slot_offset(region, to as u64));
            batch.push(Command::new(self.channel, Op::Read, from_offset, bytes));
            batch.push(Command::new(self.channel, Op::Write, to_offset, bytes).after(batch.len() - 1));
            let first_block = (region * self.g.logical + owner as u64) * per_sblock;
            for i in 0..per_sblock {
                let step = i * self.g.geometry.block_bytes();
                sources.landed(first_block + i, Source::Disk(from_offset + step), to_offset + step);
            }
            self.totals.moves += 1;
            self.totals.blocks_moved += per_sblock;
            self.totals.disk_reads += 1;
            read += bytes;
            written += bytes;
        }
        if read > 0 {
            self.gc.record(read, written);
        }
    }
}

impl ShingledDisk for SblockDisk {
    fn capacity(&self) -> u64 {
        self.regions * self.g.logical * self.sblock_bytes()
    }

    fn blocks_per_segment(&self) -> u64 {
        self.g.geometry.region_tracks
    }

    #[inline]
    fn block_offset(&self, block: u64) -> u64 {
        let per_sblock = self.g.geometry.region_tracks;
        let sblock = block / per_sblock;
        let (region, within) = (sblock / self.g.logical, sblock % self.g.logical);
        self.slot_offset(region, self.slot_now(region, within)) + (block % per_sblock) * self.g.geometry.block_bytes()
    }

    fn block_bytes(&self) -> u64 {
        self.g.geometry.block_bytes()
    }

    fn channel(&self) -> ChannelId {
        self.channel
    }

    fn write_segment<S: Sources>(&mut self, ctx: &mut IoCtx, segment: u64, fresh: &[Fresh], sources: &mut S) {
        let (region, within) = (segment / self.g.logical, segment % self.g.logical);
        let per_sblock = self.g.geometry.region_tracks;
        let bytes = self.sblock_bytes();
        let (g, full) = (self.g, self.starts_full);
        let log = self.logs[region as usize].get_or_insert_with(|| Box::new(Log::new(&g, full)));
        let old = log.slot_of[within as usize];
        if old != EMPTY {
            log.owner[old as usize] = EMPTY;
        }
        let old_offset = (old != EMPTY).then(|| self.slot_offset(region, old as u64));
        let keeps_old_data = fresh.len() < per_sblock as usize || fresh.iter().any(|f| !f.complete);
        let mut batch = std::mem::take(&mut self.batch);
        batch.clear();
        if let (Some(offset), true) = (old_offset, keeps_old_data) {
            batch.push(Command::new(self.channel, Op::Read, offset, bytes));
            self.totals.disk_reads += 1;
        }
        let merged = !batch.is_empty();
        self.make_room(&mut batch, region, sources);
        let log = self.logs[region as usize].as_mut().expect("the region's log exists");
        let slot = log.append(within as u32, self.g.slots as u32);
        let new_offset = self.slot_offset(region, slot as u64);
        let write = Command::new(self.channel, Op::Write, new_offset, bytes);
        batch.push(if merged { write.after(0) } else { write });
        ctx.batch(&batch);
        self.batch = batch;
        let mut next_fresh = fresh.iter().peekable();
        let block_bytes = self.g.geometry.block_bytes();
        for index in 0..per_sblock {
            let old_copy = old_offset.map(|o| o + index * block_bytes);
            let source = match next_fresh.next_if(|f| f.index == index) {
                Some(f) => Source::Fresh { base: if f.complete { None } else { old_copy.map(Base::Disk) } },
                None => match old_copy {
                    Some(at) => Source::Disk(at),
                    None => continue,
                },
            };
            sources.landed(segment * per_sblock + index, source, new_offset + index * block_bytes);
        }
        self.totals.destages += 1;
        self.totals.fresh_blocks += fresh.len() as u64;
        if old_offset.is_some() {
            self.totals.blocks_moved += per_sblock - fresh.len() as u64;
        }
    }

    /// Each region's map from logical S-block to slot and from slot to logical S-block, 4
    /// bytes an entry (`Log`).
    fn translation_table_bytes(&self) -> u64 {
        self.regions * (self.g.logical + self.g.slots) * 4
    }

    fn counters(&self, out: &mut Counters) {
        let t = &self.totals;
        out.add(&SEGMENTS_REWRITTEN, t.destages + t.moves);
        t.report(out);
        out.declare(&OMEGA);
        self.gc.counters(out);
    }

    fn gauges(&self, out: &mut Gauges) {
        out.set(&REGIONS, self.regions as f64);
    }
}
