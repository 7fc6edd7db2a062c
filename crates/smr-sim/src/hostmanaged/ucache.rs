//! `ucache`: the uCache translation layer (§III-A of the uCache paper) on a host-managed SMR disk.
//!
//! The host address space is cut into buckets (128 KiB – 4 MiB, default 256 KiB) whose home is
//! the same place in the data zones. A write to a bucket not in the cache promotes it to a free
//! physical cache bucket in the conventional zones — by copy (read the bucket from home, write it
//! whole to the cache; the write itself merges in) or by map (write only the new data; a bitmap of
//! 4 KiB pieces records what the cache holds) — and later writes to it are done in place. Reads go
//! to the cache for cached data and home for the rest. When no cache bucket is free, garbage
//! collection cleans the data zone of the least recently used cached bucket: read the zone and
//! every cached bucket of it, merge, write a backup copy to the temporary zone, rewrite the zone,
//! and free those buckets.
//!
//! Choices where the paper is silent: a promotion by copy whose write covers the whole bucket
//! reads nothing; a garbage collection reads each cached bucket of the zone whole (by map: only
//! its cached pieces would be needed; we read them whole too, as one I/O each); resets cost no
//! media time. Every promotion writes a bucket header and the map is checkpointed (`journal`).

use rustc_hash::FxHashMap;
use smr_core::units::BLOCK_4K;
use smr_core::{Op, Request};

use super::drive::{HmSmrDisk, CONVENTIONAL, DISK_PARAMS, REPLAY, ZONE_SIZE};
use super::journal::{Checkpoint, Header, Journal, HEADER_BYTES, NONE};
use smr_kernel::disk::check_table;
use smr_kernel::gc::GcCost;
use smr_kernel::lists::RecencyList;
use smr_kernel::metrics::{Counters, Exercise, Gauges, Metric, Ratio, Unit};
use smr_kernel::runs::coalesce_range;
use smr_kernel::slots::SlotPool;
use smr_kernel::totals;
use smr_kernel::{
    BuildContext, ChannelId, Concurrency, IoCtx, Kind, ParamList, ParamSpec, SimError, System, SystemEntry, TimerId,
};

/// Parameters uCache shares with `zonemap`, which is uCache with zone-sized buckets.
pub const CHECKPOINT_EVERY: ParamSpec =
    ParamSpec::new("checkpoint_every", Kind::Count, "1024", "promotions between checkpoints of the map (a checkpoint also follows every GC cycle)")
        .open("uCache checkpoints its map but does not say how often; every 1024 promotions keeps the headers to replay after a crash to one zone's worth at 256 KiB buckets");
pub const RECORD_JOURNAL: ParamSpec = ParamSpec::new(
    "record_journal",
    Kind::Bool,
    "false",
    "also keep in memory what the headers and checkpoints put on the media, so recovery can be checked (costs memory and time)",
);
pub const CACHE: ParamSpec = ParamSpec::new(
    "cache",
    Kind::Share { of: "the conventional zones after the checkpoint zone" },
    "100%",
    "on-media cache size",
);
pub const BUCKET: ParamSpec = ParamSpec::new(
    "bucket",
    Kind::Size,
    "256KiB",
    "bucket size: a power of two from 4 KiB that divides zone_size (the paper uses 128 KiB - 4 MiB)",
);
pub const PROMOTE: ParamSpec = ParamSpec::new(
    "promote",
    Kind::Choice(&["copy", "map"]),
    "copy",
    "promotion of a bucket on its first write: copy (read it from home, write it whole) or map (write only the new data)",
);

pub const PARAMS: ParamList =
    &[&DISK_PARAMS, &[BUCKET, PROMOTE, CACHE, CHECKPOINT_EVERY, RECORD_JOURNAL, ZONE_SIZE, CONVENTIONAL]];

pub const ENTRY: SystemEntry = SystemEntry::new(
    "ucache",
    "uCache: buckets promoted to rewritable zones of a host-managed SMR drive, GC by data zone (uCache paper)",
    PARAMS,
    |b| Ok(Box::new(UCache::build(b)?)),
);

pub static BUCKET_WRITES: Metric = Metric::new("bucket_writes", Unit::Count, "host writes split at bucket boundaries");
pub static BUCKET_WRITE_HITS: Metric =
    Metric::new("bucket_write_hits", Unit::Count, "bucket writes that found their bucket cached");
pub static PROMOTIONS: Metric = Metric::new("promotions", Unit::Count, "buckets promoted to the cache");
pub static PROMOTION_BYTES_READ: Metric =
    Metric::new("promotion_bytes_read", Unit::Bytes, "bytes read from home by promotions by copy");
pub static PROMOTION_NS: Metric = Metric::new(
    "promotion_ns",
    Unit::Ns,
    "time of promotions by copy, each from its issue to the end of its read from home and its write of the bucket (their media time when commands run one at a time; waiting at the drive included when they queue)",
);
pub static GC_BUCKETS: Metric =
    Metric::new("gc_buckets", Unit::Count, "cached buckets merged home by garbage collection");
pub static CHECKPOINTS: Metric = Metric::new("checkpoints", Unit::Count, "checkpoints of the map written");
pub static BUCKET_WRITE_HIT_RATIO: Ratio = Ratio::new(
    Metric::new(
        "bucket_write_hit_ratio",
        Unit::Fraction,
        "uCache: bucket writes that found the bucket cached / bucket writes (Table III)",
    ),
    &BUCKET_WRITE_HITS,
    &BUCKET_WRITES,
);
pub static GC_BUCKETS_PER_CYCLE: Ratio = Ratio::new(
    Metric::new("gc_buckets_per_cycle", Unit::Ratio, "uCache: cached buckets gathered per GC cycle (Fig. 8)"),
    &GC_BUCKETS,
    &smr_kernel::gc::GC_CYCLES,
);
/// uCache Fig. 10: a promotion's mean time, from its issue to the end of its read and write
/// (in the paper's replay at iodepth 31, "mean latency measured by replaying the μCache
/// translated trace", waiting included). Declared for promotion by copy only: by map the
/// promotion is the host write itself and has no time of its own.
pub static MEAN_PROMOTION_NS: Ratio = Ratio::new(
    Metric::new(
        "mean_promotion_ns",
        Unit::Ns,
        "uCache: time per promotion by copy, issue to end, waiting included (Fig. 10)",
    ),
    &PROMOTION_NS,
    &PROMOTIONS,
);
pub static COLLECTED: Exercise = Exercise {
    counters: &[&smr_kernel::gc::GC_CYCLES],
    when_never:
        "the on-media cache held every bucket written: no garbage collection ran, so these figures say nothing about it",
};
pub static CACHE_BUCKETS: Metric = Metric::new("cache_buckets", Unit::Count, "cache size, in buckets");
pub static CACHED_BUCKETS: Metric = Metric::new("cached_buckets", Unit::Count, "buckets held in the cache");

totals! {
    struct Totals {
        bucket_writes => BUCKET_WRITES,
        write_hits => BUCKET_WRITE_HITS,
        promotions => PROMOTIONS,
        promotion_bytes_read => PROMOTION_BYTES_READ,
        gc_buckets => GC_BUCKETS,
        checkpoints => CHECKPOINTS,
    }
}

pub struct UCache {
    disk: HmSmrDisk,
    bucket: u64,
    by_map: bool,
    cache_start: u64,
    /// Logical bucket → physical cache bucket. Bucket numbers are `u32` (checked at build) to
    /// keep the map near 20 bytes per cached bucket.
    map: FxHashMap<u32, u32>,
    /// Physical cache bucket → its logical bucket.
    lbn_of: Vec<u32>,
    /// By map: per physical bucket, a bitmap of the 4 KiB pieces it holds (`words` words each).
    pieces: Vec<u64>,
    words: usize,
    recency: RecencyList,
    buckets: SlotPool,
    /// Data zone → its cached buckets (logical bucket numbers), so a collection finds them
    /// without scanning the map.
    by_zone: FxHashMap<u64, Vec<u32>>,
    host: ChannelId,
    promote: ChannelId,
    gc_channel: ChannelId,
    metadata: ChannelId,
    /// The media's headers and checkpoint, kept only when asked (`record_journal`): timing does
    /// not need them, recovery checks do.
    journal: Option<Journal>,
    seq: u64,
    checkpoint_every: u64,
    since_checkpoint: u64,
    /// The last header written since the last checkpoint: (cache bucket, logical bucket).
    last_header: Option<(u32, u32)>,
    /// Collect after a promotion while fewer cache buckets than this are free.
    reclaim_below: usize,
    /// Times promotions by copy (`PROMOTION_NS`).
    promotion_timer: TimerId,
    totals: Totals,
    gc: GcCost,
}

impl UCache {
    pub fn build(b: &mut BuildContext<'_>) -> Result<Self, SimError> {
        let bucket = b.params.size(&BUCKET)?;
        let by_map = b.params.choice(&PROMOTE)? == "map";
        Self::build_with(b, Some(bucket), by_map, 0.0)
    }

    /// The shared constructor: `bucket` None means one zone per bucket; `reclaim_below` is the
    /// fraction of free cache buckets under which garbage collection runs after a promotion
    /// (0: only when no bucket is free).
    pub fn build_with(
        b: &mut BuildContext<'_>,
        bucket: Option<u64>,
        by_map: bool,
        reclaim_below: f64,
    ) -> Result<Self, SimError> {
        let checkpoint_every = b.params.count(&CHECKPOINT_EVERY)?;
        let record_journal = b.params.bool(&RECORD_JOURNAL)?;
        let min_data_capacity = b.footprint.max_end;
        let disk = HmSmrDisk::build(b, min_data_capacity)?;
        let bucket = bucket.unwrap_or(disk.zone_size());
        if !bucket.is_power_of_two() || bucket < BLOCK_4K || disk.zone_size() % bucket != 0 {
            return Err(b
                .params
                .error(
                    &BUCKET,
                    format!(
                        "{bucket} bytes is not a power of two from 4 KiB that divides the zone size ({} bytes)",
                        disk.zone_size()
                    ),
                )
                .into());
        }
        let room = disk.cache_range().end - disk.cache_range().start;
        let cache = b.params.share(&CACHE, room, 1)?;
        if cache < bucket || cache > room {
            return Err(b.params.error(&CACHE, format!("{cache} bytes must hold at least one bucket and at most the {room} bytes of conventional cache zones")).into());
        }
        if disk.data_capacity() / bucket > u32::MAX as u64 {
            return Err(b
                .params
                .error(
                    &BUCKET,
                    format!(
                        "{bucket}-byte buckets are too many for this drive's {} bytes (at most 2^32 buckets)",
                        disk.data_capacity()
                    ),
                )
                .into());
        }
        check_table(b, &BUCKET, cache / bucket, "cache buckets", cache)?;
        let buckets = (cache / bucket) as usize;
        let metadata_bytes = buckets as u64 * HEADER_BYTES + Checkpoint::bytes_for(buckets);
        if metadata_bytes > disk.zone_size() {
            return Err(b.params.error(&BUCKET, format!("{buckets} cache buckets need {metadata_bytes} bytes of headers and checkpoint, more than the checkpoint zone's {} bytes: use larger buckets or zones", disk.zone_size())).into());
        }
        let words = if by_map { (bucket / BLOCK_4K).div_ceil(64) as usize } else { 0 };
        let (host, promote, gc_channel) =
            (disk.channel(b.ctx, "host"), disk.channel(b.ctx, "promote"), disk.channel(b.ctx, "gc"));
        let metadata = disk.channel(b.ctx, "metadata");
        let promotion_timer = b.ctx.timer(&PROMOTION_NS);
        Ok(UCache {
            cache_start: disk.cache_range().start,
            disk,
            bucket,
            by_map,
            map: FxHashMap::default(),
            lbn_of: vec![0; buckets],
            pieces: vec![0; buckets * words],
            words,
            recency: RecencyList::new(buckets),
            buckets: SlotPool::new(buckets),
            by_zone: FxHashMap::default(),
            host,
            promote,
            gc_channel,
            metadata,
            journal: record_journal.then(|| Journal::new(buckets, 0)),
            seq: 0,
            checkpoint_every,
            since_checkpoint: 0,
            last_header: None,
            reclaim_below: (reclaim_below * buckets as f64).ceil() as usize,
            promotion_timer,
            totals: Totals::default(),
            gc: GcCost::default(),
        })
    }

    /// The cache bucket the next promotion will take, if it needs no garbage collection.
    fn peek_next(&self) -> u32 {
        self.buckets.peek().unwrap_or(NONE)
    }

    /// Writes the header of a promoted bucket to its slot in the checkpoint zone.
    fn write_header(&mut self, ctx: &mut IoCtx, pcb: u32, lbn: u32) -> Result<(), SimError> {
        let header = Header::new(lbn, self.seq, self.peek_next());
        if let Some(journal) = self.journal.as_mut() {
            journal.write_header(pcb, header);
        }
        self.disk.io(ctx, self.metadata, Op::Write, pcb as u64 * HEADER_BYTES, HEADER_BYTES)?;
        self.seq += 1;
        self.last_header = Some((pcb, lbn));
        self.since_checkpoint += 1;
        if self.since_checkpoint >= self.checkpoint_every {
            self.checkpoint(ctx)?;
        }
        Ok(())
    }

    /// Writes the whole map after the header slots of the checkpoint zone.
    fn checkpoint(&mut self, ctx: &mut IoCtx) -> Result<(), SimError> {
        let at = self.lbn_of.len() as u64 * HEADER_BYTES;
        self.disk.io(ctx, self.metadata, Op::Write, at, Checkpoint::bytes_for(self.map.len()))?;
        // The map is copied only when a journal records it (crash tests).
        let checkpoint = self.journal.is_some().then(|| Checkpoint {
            map: self.live_map(),
            next_bucket: self.peek_next(),
            next_seq: self.seq,
        });
        if let (Some(journal), Some(checkpoint)) = (self.journal.as_mut(), checkpoint) {
            journal.write_checkpoint(checkpoint);
        }
        self.since_checkpoint = 0;
        self.last_header = None;
        self.totals.checkpoints += 1;
        Ok(())
    }

    /// The map in memory, sorted by logical bucket.
    pub fn live_map(&self) -> Vec<(u32, u32)> {
        let mut map: Vec<(u32, u32)> = self.map.iter().map(|(l, p)| (*l, *p)).collect();
        map.sort_unstable();
        map
    }

    /// The map recovery would rebuild from the media after a crash now (with `record_journal`).
    pub fn recovered_map(&self) -> Option<Vec<(u32, u32)>> {
        self.journal.as_ref().map(Journal::recover)
    }

    /// Simulates a crash in the middle of the last header write since the last checkpoint
    /// (its sector is torn); returns the logical bucket whose promotion is thereby lost.
    pub fn tear_last_header(&mut self) -> Option<u32> {
        let (pcb, lbn) = self.last_header?;
        self.journal.as_mut()?.tear_header(pcb);
        Some(lbn)
    }

    fn home(&self, address: u64) -> u64 {
        self.disk.data_start() + address
    }

    fn cached_at(&self, pcb: u32) -> u64 {
        self.cache_start + pcb as u64 * self.bucket
    }

    fn mark_pieces(&mut self, pcb: u32, within: std::ops::Range<u64>) {
        for piece in within.start / BLOCK_4K..within.end.div_ceil(BLOCK_4K) {
            self.pieces[pcb as usize * self.words + (piece / 64) as usize] |= 1 << (piece % 64);
        }
    }

    /// The data zone holding logical bucket `lbn` at home.
    fn zone_of(&self, lbn: u32) -> u64 {
        self.home(lbn as u64 * self.bucket) / self.disk.zone_size()
    }

    /// Cleans the data zone of the least recently used cached bucket.
    fn collect(&mut self, ctx: &mut IoCtx) -> Result<(), SimError> {
        let victim = self.recency.back().expect("collect runs only when every cache bucket is in use");
        let zone = self.zone_of(self.lbn_of[victim as usize]);
        let members = self.by_zone.remove(&zone).unwrap_or_default();
        let mut cached_buckets: Vec<u32> = members.iter().map(|lbn| self.map[lbn]).collect();
        cached_buckets.sort_unstable();
        let cached: Vec<(u64, u64)> = cached_buckets.iter().map(|&pcb| (self.cached_at(pcb), self.bucket)).collect();
        self.disk.clean_data_zone(ctx, self.gc_channel, zone, &cached, &mut self.gc)?;
        for lbn in &members {
            self.map.remove(lbn);
        }
        for &pcb in &cached_buckets {
            self.recency.remove(pcb);
            self.pieces[pcb as usize * self.words..(pcb as usize + 1) * self.words].fill(0);
            self.buckets.release(pcb);
        }
        self.totals.gc_buckets += members.len() as u64;
        self.checkpoint(ctx)
    }

    fn take_bucket(&mut self, ctx: &mut IoCtx) -> Result<u32, SimError> {
        if let Some(pcb) = self.buckets.take() {
            return Ok(pcb);
        }
        self.collect(ctx)?;
        Ok(self.buckets.take().expect("garbage collection frees the victim's bucket"))
    }

    /// Writes `part` (host bytes) of logical bucket `lbn`, promoting it first if needed.
    fn write_part(&mut self, ctx: &mut IoCtx, lbn: u32, part: std::ops::Range<u64>) -> Result<(), SimError> {
        self.totals.bucket_writes += 1;
        let start = lbn as u64 * self.bucket;
        let within = part.start - start..part.end - start;
        if let Some(&pcb) = self.map.get(&lbn) {
            self.totals.write_hits += 1;
            self.recency.move_to_front(pcb);
            if self.by_map {
                self.mark_pieces(pcb, within.clone());
            }
            self.disk.io(ctx, self.host, Op::Write, self.cached_at(pcb) + within.start, within.end - within.start)?;
            return Ok(());
        }
        let pcb = self.take_bucket(ctx)?;
        self.totals.promotions += 1;
        self.map.insert(lbn, pcb);
        let zone = self.zone_of(lbn);
        self.by_zone.entry(zone).or_default().push(lbn);
        self.lbn_of[pcb as usize] = lbn;
        self.recency.push_front(pcb);
        if self.by_map {
            self.mark_pieces(pcb, within.clone());
            self.disk.io(ctx, self.host, Op::Write, self.cached_at(pcb) + within.start, within.end - within.start)?;
        } else {
            let timer = ctx.start_timer(self.promotion_timer);
            if within.end - within.start < self.bucket {
                self.disk.io(ctx, self.promote, Op::Read, self.home(start), self.bucket)?;
                self.totals.promotion_bytes_read += self.bucket;
            }
            self.disk.io(ctx, self.promote, Op::Write, self.cached_at(pcb), self.bucket)?;
            ctx.stop_timer(timer);
        }
        self.write_header(ctx, pcb, lbn)?;
        while self.free_buckets() < self.reclaim_below && self.recency.back().is_some() {
            self.collect(ctx)?;
        }
        Ok(())
    }

    fn free_buckets(&self) -> usize {
        self.buckets.available()
    }

    /// Reads `part` of logical bucket `lbn` from the cache and/or home, in runs.
    fn read_part(&mut self, ctx: &mut IoCtx, lbn: u32, part: std::ops::Range<u64>) -> Result<(), SimError> {
        let start = lbn as u64 * self.bucket;
        let Some(&pcb) = self.map.get(&lbn) else {
            self.disk.io(ctx, self.host, Op::Read, self.home(part.start), part.end - part.start)?;
            return Ok(());
        };
        // The bucket's 4 KiB pieces where they are (cached or home), in runs.
        let (cached_base, data_start, by_map) = (self.cached_at(pcb), self.disk.data_start(), self.by_map);
        let bits = &self.pieces[pcb as usize * self.words..(pcb as usize + 1) * self.words];
        let place = |piece: u64| {
            let within = piece * BLOCK_4K - start;
            let index = within / BLOCK_4K;
            let cached = !by_map || bits[(index / 64) as usize] & (1 << (index % 64)) != 0;
            (cached, if cached { cached_base + within } else { data_start + start + within })
        };
        let (disk, host) = (&mut self.disk, self.host);
        coalesce_range(part, BLOCK_4K, place, |_, offset, len| disk.io(ctx, host, Op::Read, offset, len).map(|_| ()))
    }
}

impl System for UCache {
    fn submit(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError> {
        if req.op == Op::Trim {
            return Ok(());
        }
        for lbn in req.blocks(self.bucket) {
            let part = req.offset.max(lbn * self.bucket)..req.end().min((lbn + 1) * self.bucket);
            // Below the data capacity (checked by the engine), so below 2^32 buckets (checked at build).
            let lbn = lbn as u32;
            match req.op {
                Op::Write => self.write_part(ctx, lbn, part)?,
                _ => self.read_part(ctx, lbn, part)?,
            }
        }
        Ok(())
    }

    /// Replayed as its translated trace (`drive::REPLAY`); its decisions never read the clock.
    fn concurrency(&self) -> Concurrency {
        REPLAY
    }

    fn capacity(&self) -> u64 {
        self.disk.data_capacity()
    }

    fn counters(&self, out: &mut Counters) {
        self.totals.report(out);
        self.gc.counters(out);
        out.declare(&BUCKET_WRITE_HIT_RATIO);
        out.declare(&GC_BUCKETS_PER_CYCLE);
        out.expect(&COLLECTED);
        if !self.by_map {
            out.declare(&MEAN_PROMOTION_NS);
        }
    }

    fn gauges(&self, out: &mut Gauges) {
        out.set(&CACHE_BUCKETS, self.lbn_of.len() as f64);
        out.set(&CACHED_BUCKETS, self.map.len() as f64);
    }
}

#[cfg(test)]
#[path = "ucache_tests.rs"]
mod tests;
