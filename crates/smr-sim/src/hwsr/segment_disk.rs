//! HWSR's shingled disk (§2.2, §3.1, §5.5): the segment-based layout of `layout`, where a write
//! to a block of a segment shingles over the blocks after it in that segment. Writing new data
//! to blocks of a segment therefore rewrites the segment from its first new block to its last
//! block holding data: the blocks in between that are not new are read (from the MEM buffer or
//! the SSD where they are, else from the disk, one I/O per track), then every block is written
//! back, one I/O per track. A block written only in part is merged with its older version, read
//! likewise (not from the MEM buffer, which holds the new part). The reads are issued as one
//! batch and the writes, after them, as another (`IoCtx::batch`): a drive that queues serves
//! each batch in the order it reaches the blocks, one that does not in block order.
//!
//! The cascade stops at the last block holding data (§5.5). The disk starts either full — every
//! block holds data, as an aged disk under a trace recorded on a live system (`fill=full`, the
//! default) — or empty (`fill=empty`), when only blocks written since hold data and blocks
//! holding none are neither read nor written back. Not here: the caches (`hybrid`).

use rustc_hash::FxHashMap;
use smr_core::Op;

use super::hybrid::{
    Base, Fresh, ShingledDisk, Source, Sources, BLOCKS_MOVED, FRESH_BLOCKS_WRITTEN, REGIONS, REWRITE_DISK_READS,
    SEGMENTS_REWRITTEN,
};
use super::layout::Geometry;
use smr_kernel::metrics::{Counters, Gauges};
use smr_kernel::totals;
use smr_kernel::{ChannelId, Command, IoCtx};

totals! {
    struct Totals {
        segments_rewritten => SEGMENTS_REWRITTEN,
        fresh_blocks => FRESH_BLOCKS_WRITTEN,
        blocks_moved => BLOCKS_MOVED,
        disk_reads => REWRITE_DISK_READS,
    }
}

pub struct SegmentDisk {
    geometry: Geometry,
    regions: u64,
    channel: ChannelId,
    /// With `fill=empty`: which blocks hold data, 64 to a word, keyed by
    /// `segment * words_per_segment + word` (absent: none).
    filled: Option<FxHashMap<u64, u64>>,
    words_per_segment: u64,
    /// The blocks of the segment being rewritten and where their data comes from.
    plan: Vec<(u64, Source)>,
    /// The rewrite's reads and writes.
    reads: Vec<Command>,
    writes: Vec<Command>,
    totals: Totals,
}

impl SegmentDisk {
    /// The layout on a disk of `disk_bytes` reached through `channel`; `starts_full` as `fill`.
    pub fn new(geometry: Geometry, disk_bytes: u64, channel: ChannelId, starts_full: bool) -> Self {
        SegmentDisk {
            regions: geometry.regions_on(disk_bytes),
            geometry,
            channel,
            filled: (!starts_full).then(FxHashMap::default),
            words_per_segment: geometry.region_tracks.div_ceil(64),
            plan: Vec::new(),
            reads: Vec::new(),
            writes: Vec::new(),
            totals: Totals::default(),
        }
    }

    /// Whether block `index` of `segment` holds data.
    fn holds(&self, segment: u64, index: u64) -> bool {
        match &self.filled {
            None => true,
            Some(map) => {
                map.get(&(segment * self.words_per_segment + index / 64)).is_some_and(|w| w >> (index % 64) & 1 == 1)
            }
        }
    }

    /// One past the segment's last block holding data.
    fn filled_end(&self, segment: u64) -> u64 {
        (0..self.geometry.region_tracks).rev().find(|&i| self.holds(segment, i)).map_or(0, |i| i + 1)
    }
}

impl ShingledDisk for SegmentDisk {
    fn capacity(&self) -> u64 {
        self.regions * self.geometry.region_sectors() * smr_core::units::SECTOR
    }

    fn blocks_per_segment(&self) -> u64 {
        self.geometry.region_tracks
    }

    #[inline]
    fn block_offset(&self, block: u64) -> u64 {
        self.geometry.block_offset(block)
    }

    fn block_bytes(&self) -> u64 {
        self.geometry.block_bytes()
    }

    fn channel(&self) -> ChannelId {
        self.channel
    }

    fn write_segment<S: Sources>(&mut self, ctx: &mut IoCtx, segment: u64, fresh: &[Fresh], sources: &mut S) {
        let (Some(first), Some(last)) = (fresh.first(), fresh.last()) else { return };
        let per_segment = self.blocks_per_segment();
        let had_data = self.filled_end(segment);
        let end = had_data.max(last.index + 1);
        let block_bytes = self.geometry.block_bytes();
        let mut plan = std::mem::take(&mut self.plan);
        let (mut reads, mut writes) = (std::mem::take(&mut self.reads), std::mem::take(&mut self.writes));
        plan.clear();
        reads.clear();
        writes.clear();
        let disk_read =
            |reads: &mut Vec<Command>, offset| reads.push(Command::new(self.channel, Op::Read, offset, block_bytes));
        let mut next_fresh = fresh.iter().peekable();
        for index in first.index..end {
            let block = segment * per_segment + index;
            let offset = self.block_offset(block);
            let is_fresh = next_fresh.next_if(|f| f.index == index);
            let source = match is_fresh {
                Some(f) if f.complete || !self.holds(segment, index) => Source::Fresh { base: None },
                Some(_) => {
                    let base = match sources.read_cached(block, false, &mut reads) {
                        Some(_) => Base::Ssd,
                        None => {
                            disk_read(&mut reads, offset);
                            self.totals.disk_reads += 1;
                            Base::Disk(offset)
                        }
                    };
                    Source::Fresh { base: Some(base) }
                }
                None if !self.holds(segment, index) => continue,
                None => {
                    self.totals.blocks_moved += 1;
                    sources.read_cached(block, true, &mut reads).unwrap_or_else(|| {
                        disk_read(&mut reads, offset);
                        self.totals.disk_reads += 1;
                        Source::Disk(offset)
                    })
                }
            };
            plan.push((block, source));
        }
        ctx.batch(&reads);
        for &(block, source) in &plan {
            let offset = self.block_offset(block);
            writes.push(Command::new(self.channel, Op::Write, offset, block_bytes));
            sources.landed(block, source, offset);
        }
        ctx.batch(&writes);
        (self.reads, self.writes) = (reads, writes);
        if let Some(map) = self.filled.as_mut() {
            for f in fresh {
                *map.entry(segment * self.words_per_segment + f.index / 64).or_insert(0) |= 1 << (f.index % 64);
            }
        }
        self.totals.segments_rewritten += 1;
        self.totals.fresh_blocks += fresh.len() as u64;
        self.plan = plan;
    }

    /// None: a block's place is computed (Eq. 5).
    fn translation_table_bytes(&self) -> u64 {
        0
    }

    fn counters(&self, out: &mut Counters) {
        self.totals.report(out);
    }

    fn gauges(&self, out: &mut Gauges) {
        out.set(&REGIONS, self.regions as f64);
    }
}
