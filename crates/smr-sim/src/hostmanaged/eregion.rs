//! `eregion`: the E-region translation layer, the uCache paper's baseline (after Skylight's
//! description of drive-managed SMR): every host write is appended, as one extent, to a log at
//! the write frontier of the on-media cache, which is used as a circular log over its zones.
//! When the frontier would run into the oldest cache zone while it still holds live extents,
//! that zone is reclaimed by cleaning the data zone of each of its live extents in turn — read
//! the data zone and all of its cached extents (wherever they are in the log), merge, write a
//! backup copy to the temporary zone, rewrite the data zone — after which the cache zone is free.
//!
//! Reads find the latest version of every 4 KiB block through a block map (the log or home).
//! Choices where the paper is silent: an extent that does not fit before the end of the log
//! region wraps to its start (the tail is reclaimed first); an extent is live while any of its
//! blocks is the latest version (an extent whose blocks have all been overwritten is dead space,
//! skipped at reclaim without cleaning), and a data zone's cleaning retires all of its extents.
//! The live fraction of the log (Fig. 1) is the live bytes it holds over its size, a live byte
//! being one of a block's bytes that the extent holding the block's latest version wrote (so
//! writes not aligned to 4 KiB count what they wrote, never more than the log holds).

use rustc_hash::FxHashMap;
use smr_core::units::BLOCK_4K;
use smr_core::{Op, ParamError, Request};

use super::drive::{HmSmrDisk, CONVENTIONAL, DISK_PARAMS, REPLAY, ZONE_SIZE};
use super::ucache::CACHE;
use smr_kernel::gc::GcCost;
use smr_kernel::metrics::{Counters, Exercise, Gauges, Metric, Unit};
use smr_kernel::runs::coalesce_range;
use smr_kernel::totals;
use smr_kernel::{BuildContext, ChannelId, Concurrency, IoCtx, ParamList, SimError, System, SystemEntry};

pub const PARAMS: ParamList = &[&DISK_PARAMS, &[CACHE, ZONE_SIZE, CONVENTIONAL]];

pub const ENTRY: SystemEntry = SystemEntry::new(
    "eregion",
    "E-region STL: host writes logged in the on-media cache, reclaimed by cleaning data zones (uCache baseline)",
    PARAMS,
    |b| Ok(Box::new(ERegion::build(b)?)),
);

pub static LOG_EXTENTS: Metric = Metric::new("log_extents", Unit::Count, "host writes appended to the log as extents");
pub static GC_EXTENTS: Metric =
    Metric::new("gc_extents", Unit::Count, "live extents merged home by garbage collection");
pub static COLLECTED: Exercise = Exercise {
    counters: &[&smr_kernel::gc::GC_CYCLES],
    when_never: "the E-region log never wrapped onto live data: no garbage collection ran, so these figures say nothing about it",
};
pub static LOG_LIVE_FRACTION: Metric = Metric::new(
    "log_live_fraction",
    Unit::Fraction,
    "live data in the E-region log (latest versions of host blocks) / the log's size (uCache Fig. 1)",
);

struct Extent {
    /// Host byte address and length.
    address: u64,
    len: u64,
    /// Where it is in the log.
    at: u64,
    /// How many of its 4 KiB blocks are still the latest version (0: dead space).
    live_blocks: u32,
}

totals! {
    struct Totals {
        extents => LOG_EXTENTS,
        gc_extents => GC_EXTENTS,
    }
}

pub struct ERegion {
    disk: HmSmrDisk,
    log: std::ops::Range<u64>,
    frontier: u64,
    extents: Vec<Extent>,
    /// Index of the oldest extent that may still be live (the log's tail).
    tail: usize,
    /// Host 4 KiB block → the extent holding its latest version.
    blocks: FxHashMap<u64, u32>,
    /// Bytes of `blocks` their extents wrote: the log's live bytes.
    live_bytes: u64,
    /// Data zone → its extents (live or retired since).
    by_zone: FxHashMap<u64, Vec<u32>>,
    host: ChannelId,
    gc_channel: ChannelId,
    totals: Totals,
    gc: GcCost,
}

impl ERegion {
    pub fn build(b: &mut BuildContext<'_>) -> Result<Self, SimError> {
        let min_data_capacity = b.footprint.max_end;
        let disk = HmSmrDisk::build(b, min_data_capacity)?;
        // The log is the on-media cache, sized as uCache's is, so the two compare on one cache.
        let room = disk.cache_range();
        let log_bytes = b.params.share(&CACHE, room.end - room.start, BLOCK_4K)?;
        let log = room.start..room.start + log_bytes;
        let (host, gc_channel) = (disk.channel(b.ctx, "host"), disk.channel(b.ctx, "gc"));
        Ok(ERegion {
            frontier: log.start,
            log,
            disk,
            extents: Vec::new(),
            tail: 0,
            blocks: FxHashMap::default(),
            live_bytes: 0,
            by_zone: FxHashMap::default(),
            host,
            gc_channel,
            totals: Totals::default(),
            gc: GcCost::default(),
        })
    }

    /// Bytes of host block `block` that extent `id` wrote.
    fn written_of(&self, id: u32, block: u64) -> u64 {
        let e = &self.extents[id as usize];
        (e.address + e.len).min((block + 1) * BLOCK_4K) - e.address.max(block * BLOCK_4K)
    }

    fn data_zone(&self, address: u64) -> u64 {
        (self.disk.data_start() + address) / self.disk.zone_size()
    }

    /// Cleans data zone `zone`: merges its live extents into it and retires them.
    fn clean(&mut self, ctx: &mut IoCtx, zone: u64) -> Result<(), SimError> {
        let ids = self.by_zone.remove(&zone).unwrap_or_default();
        let live: Vec<u32> = ids.into_iter().filter(|&i| self.extents[i as usize].live_blocks > 0).collect();
        let cached: Vec<(u64, u64)> =
            live.iter().map(|&i| (self.extents[i as usize].at, self.extents[i as usize].len)).collect();
        self.disk.clean_data_zone(ctx, self.gc_channel, zone, &cached, &mut self.gc)?;
        for &i in &live {
            let e = &mut self.extents[i as usize];
            e.live_blocks = 0;
            let (first, end) = (e.address / BLOCK_4K, (e.address + e.len).div_ceil(BLOCK_4K));
            for block in first..end {
                if self.blocks.get(&block) == Some(&i) {
                    self.blocks.remove(&block);
                    self.live_bytes -= self.written_of(i, block);
                }
            }
        }
        self.totals.gc_extents += live.len() as u64;
        Ok(())
    }

    /// Retires the tail extent, cleaning its data zone first if it is still live.
    fn reclaim_tail(&mut self, ctx: &mut IoCtx) -> Result<(), SimError> {
        let e = &self.extents[self.tail];
        if e.live_blocks > 0 {
            let zone = self.data_zone(e.address);
            self.clean(ctx, zone)?;
        }
        self.tail += 1;
        Ok(())
    }

    /// Frees `[at, at + len)` of the log. Extents are in log order from the tail, so only tail
    /// extents can be in the way; on a wrap (`at` before the frontier) the extents left between
    /// the frontier and the end of the log are the oldest and go first.
    fn make_room(&mut self, ctx: &mut IoCtx, at: u64, len: u64) -> Result<(), SimError> {
        if at < self.frontier {
            while self.extents.get(self.tail).is_some_and(|e| e.at >= self.frontier) {
                self.reclaim_tail(ctx)?;
            }
        }
        while self.extents.get(self.tail).is_some_and(|e| e.at < at + len && at < e.at + e.len) {
            self.reclaim_tail(ctx)?;
        }
        Ok(())
    }

    fn write(&mut self, ctx: &mut IoCtx, req: &Request) -> Result<(), SimError> {
        if req.len > self.log.end - self.log.start {
            return Err(ParamError::new(
                CONVENTIONAL.key,
                format!(
                    "a {}-byte write does not fit in the E-region log of {} bytes",
                    req.len,
                    self.log.end - self.log.start
                ),
            )
            .into());
        }
        let mut at = self.frontier;
        if at + req.len > self.log.end {
            at = self.log.start;
        }
        self.make_room(ctx, at, req.len)?;
        self.disk.io(ctx, self.host, Op::Write, at, req.len)?;
        self.frontier = at + req.len;
        let id = self.extents.len() as u32;
        self.extents.push(Extent { address: req.offset, len: req.len, at, live_blocks: 0 });
        for block in req.blocks(BLOCK_4K) {
            self.extents[id as usize].live_blocks += 1;
            self.live_bytes += self.written_of(id, block);
            if let Some(old) = self.blocks.insert(block, id) {
                self.extents[old as usize].live_blocks -= 1;
                self.live_bytes -= self.written_of(old, block);
            }
        }
        self.by_zone.entry(self.data_zone(req.offset)).or_default().push(id);
        self.totals.extents += 1;
        Ok(())
    }

    /// Reads the request's bytes from where each block's latest version is (in the log, or
    /// home), in runs of blocks that lie side by side there.
    fn read(&mut self, ctx: &mut IoCtx, req: &Request) -> Result<(), SimError> {
        let (blocks, extents, data_start) = (&self.blocks, &self.extents, self.disk.data_start());
        let place = |block: u64| match blocks.get(&block) {
            Some(&i) => {
                let e = &extents[i as usize];
                (true, (e.at + block * BLOCK_4K).saturating_sub(e.address))
            }
            None => (false, data_start + block * BLOCK_4K),
        };
        let (disk, host) = (&mut self.disk, self.host);
        coalesce_range(req.offset..req.end(), BLOCK_4K, place, |_, offset, len| {
            disk.io(ctx, host, Op::Read, offset, len).map(|_| ())
        })
    }
}

impl System for ERegion {
    fn submit(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError> {
        match req.op {
            Op::Write => self.write(ctx, req),
            Op::Read => self.read(ctx, req),
            Op::Trim => Ok(()),
        }
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
        out.expect(&COLLECTED);
    }

    fn gauges(&self, out: &mut Gauges) {
        out.set(&LOG_LIVE_FRACTION, self.live_bytes as f64 / (self.log.end - self.log.start) as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const KIB: u64 = 1024;
    const MIB: u64 = 1 << 20;

    fn run(reqs: &[Request]) -> Result<smr_kernel::metrics::CounterValues, SimError> {
        super::super::replay_small("eregion", &[], reqs)
    }

    fn w(offset: u64, len: u64) -> Request {
        Request::new(0, Op::Write, offset, len)
    }

    #[test]
    fn log_fills_then_cleans_the_tail_extents_zone_by_hand() {
        // Eight 256 KiB writes fill the 2 MiB log: no cleaning.
        let mut reqs: Vec<Request> = (0..8).map(|i| w(i * 256 * KIB, 256 * KIB)).collect();
        let c = run(&reqs).unwrap();
        assert_eq!((c.get("log_extents"), c.get("gc_cycles")), (8, 0));
        // The ninth wraps onto the first extent (data zone of host 0..1 MiB): that zone is
        // cleaned with its four live extents, which frees log room for four more writes.
        reqs.push(w(5 * MIB, 256 * KIB));
        let c = run(&reqs).unwrap();
        assert_eq!((c.get("gc_cycles"), c.get("gc_extents")), (1, 4));
        assert_eq!(c.get("gc_bytes_read"), MIB + MIB);
        reqs.extend((0..3).map(|i| w(6 * MIB + i * 256 * KIB, 256 * KIB)));
        assert_eq!(run(&reqs).unwrap().get("gc_cycles"), 1, "the reclaimed room takes three more writes");
    }

    #[test]
    fn overwritten_extents_are_dead_space_reclaimed_without_cleaning() {
        // The same 256 KiB written eight times fills the 2 MiB log with one live extent.
        let mut reqs: Vec<Request> = (0..8).map(|_| w(0, 256 * KIB)).collect();
        let engine = smr_kernel::EngineConfig { gauge_samples: 4, ..Default::default() };
        let report = super::super::replay_small_report("eregion", &[], &reqs, engine.clone()).unwrap();
        let series = &report.gauge_series;
        assert_eq!(series.names, ["log_live_fraction"]);
        let live: Vec<f64> = series.samples.iter().map(|s| s.values[0]).collect();
        assert!(live.iter().all(|&f| f == 0.125), "one 256 KiB extent of 2 MiB is live throughout: {live:?}");
        // New 64 KiB writes wrap over the seven dead extents (1792 KiB, 28 writes) without
        // cleaning; the 29th reaches the live one, whose data zone is cleaned.
        reqs.extend((0..28).map(|i| w(MIB + i * 64 * KIB, 64 * KIB)));
        let report = super::super::replay_small_report("eregion", &[], &reqs, engine).unwrap();
        assert_eq!(report.counters.get("gc_cycles"), 0);
        let last = report.gauge_series.samples.last().unwrap();
        assert_eq!((last.request, last.values[0]), (36, (256.0 + 28.0 * 64.0) / 2048.0));
        reqs.push(w(MIB + 28 * 64 * KIB, 64 * KIB));
        assert_eq!(run(&reqs).unwrap().get("gc_cycles"), 1);
    }

    /// Writes of 512 bytes into distinct 4 KiB blocks: each is live for what it wrote, so the
    /// 2 MiB log filled with them is live in full, not eight times over.
    #[test]
    fn unaligned_writes_are_live_for_the_bytes_they_wrote() {
        let reqs: Vec<Request> = (0..4096).map(|i| w(i * 4 * KIB + 1000, 512)).collect();
        let engine = smr_kernel::EngineConfig { gauge_samples: 8, ..Default::default() };
        let report = super::super::replay_small_report("eregion", &[], &reqs, engine).unwrap();
        let live: Vec<f64> = report.gauge_series.samples.iter().map(|s| s.values[0]).collect();
        assert_eq!(live.last(), Some(&1.0), "{live:?}");
        assert!(live.iter().all(|&f| f <= 1.0), "{live:?}");
        // Overwriting half of one of them leaves its other bytes to the first extent's count
        // no more: the block's latest version is the new extent, which wrote 256 bytes.
        let mut reqs = reqs[..8].to_vec();
        reqs.push(w(1000, 256));
        let report =
            super::super::replay_small_report("eregion", &[], &reqs, smr_kernel::EngineConfig::default()).unwrap();
        assert_eq!(report.gauges, [("log_live_fraction".to_string(), (7.0 * 512.0 + 256.0) / (2.0 * MIB as f64))]);
    }

    proptest! {
        #[test]
        fn never_breaks_the_zone_rules(ops in proptest::collection::vec((any::<bool>(), 0u64..60 * 256, 1u64..40), 1..300)) {
            let reqs: Vec<Request> = ops.iter().map(|&(write, at, blocks)| {
                Request::new(0, if write { Op::Write } else { Op::Read }, at * 4 * KIB, blocks * 4 * KIB)
            }).collect();
            let c = run(&reqs);
            prop_assert!(c.is_ok(), "{:?}", c.err());
        }
    }
}
