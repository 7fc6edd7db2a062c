//! The write-amplification estimate of §III-A of the PORE paper, computed from a trace alone,
//! without timing: as a system (`smr-estimate`, so that an experiment runs it like any other)
//! and as a function over a trace (`estimate`, for `smrlab trace smr-estimate`).
//!
//! §III-A: "Only the write requests of the traces are processed and the read ones are dismissed.
//! For a trace, we set a virtual FIFO queue whose size is 1/256 of the total working set size.
//! Each time the virtual FIFO queue is filled, we accumulate the total size of all the covered
//! bands and then clean up the queue." The working set of an analysis that processes only writes
//! is what the trace writes: the union of the 4 KiB blocks it writes (`Footprint::written_bytes`;
//! `buffer` changes the share). That is not what the emulator's buffer is a share of (§V-A's
//! "written LBA range", which Table I defines as the capacity of the bands the trace writes, and
//! which `dmsmr` uses): the paper uses two words for the two, and a band that a trace writes only
//! here and there counts whole in the range but by its written blocks in the working set.
//!
//! A block already in the queue is updated in place. The estimate is R_wa = the covered band
//! bytes summed over the fills / the bytes that passed through the queue: R_wa as §V-B defines it
//! (band bytes written / bytes evicted from the buffer), `dmsmr`'s own declaration. (§III-A ends
//! "the total band size divided by the capacity of WS"; WS is not defined there, and read as the
//! working set it would divide by each block once however often it passed through the queue.)
//! A final, partly filled queue is flushed the same way at the end of the trace (the paper does
//! not say; without it short traces would under-count): the system's counters include it as if
//! flushed when they are read. Bands are laid out as for `dmsmr` (uniform 17–36 MB by default,
//! seeded). The system moves no data and takes no time.

use serde::{Deserialize, Serialize};
use smr_core::units::BLOCK_4K;
use smr_core::{Op, ParamError, Params, Request};
use smr_trace::{Footprint, TraceError};

use super::{
    band_layout, written_range, FifoBuffer, LaidBands, BANDS, BAND_BYTES_WRITTEN, BAND_CLEANINGS, BAND_MAX, BAND_MIN,
    BAND_SIZE, BUFFER_BLOCKS, BUFFER_BYTES_EVICTED, CLEANED, R_WA,
};
use smr_kernel::geometry::{band_notes, GEOMETRY_PARAMS};
use smr_kernel::metrics::{Counters, Gauges, Metric, Unit};
use smr_kernel::params::{ParamList, ParamReader};
use smr_kernel::{BandCursor, BandLayout, BuildContext, IoCtx, Kind, ParamSpec, SimError, System, SystemEntry};

pub const QUEUE: ParamSpec = ParamSpec::new(
    "buffer",
    Kind::Share { of: "the trace's working set: the union of the 4 KiB blocks it writes" },
    "1/256",
    "the virtual FIFO queue's size (§III-A: 1/256 of the total working set size)",
);

/// The parameters the estimate reads: its queue and the band layout as `dmsmr` declares it.
pub const PARAMS: ParamList = &[&[QUEUE, BAND_MIN, BAND_MAX, BAND_SIZE], &GEOMETRY_PARAMS];

pub const ENTRY: SystemEntry = SystemEntry::new(
    "smr-estimate",
    "PORE §III-A's estimate of drive-managed SMR write amplification: a virtual FIFO queue of 1/256 of the working set, emptied when full (no timing)",
    PARAMS,
    |b| Ok(Box::new(Estimate::build(b)?)),
);

pub static FILLS: Metric = Metric::new(
    "estimate_fills",
    Unit::Count,
    "times the virtual FIFO queue was emptied (a partly filled last one included)",
);

/// The virtual queue's size: `QUEUE` of the trace's working set (at least 256 blocks, as for the
/// emulator's buffer), in whole 4 KiB blocks.
fn queue_bytes(params: &mut ParamReader<'_>, footprint: &Footprint) -> Result<u64, ParamError> {
    params.share(&QUEUE, footprint.written_bytes.max(256 * BLOCK_4K), BLOCK_4K)
}

/// What the estimate found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SmrEstimate {
    /// The capacity of the bands the trace writes: what the emulator's buffer is a share of.
    pub written_range_bytes: u64,
    /// The union of the 4 KiB blocks the trace writes: the working set the queue is a share of.
    pub written_bytes: u64,
    pub buffer_bytes: u64,
    /// Times the virtual queue was emptied (including the final flush).
    pub fills: u64,
    pub bands_covered: u64,
    pub band_bytes: u64,
    pub buffered_bytes: u64,
    /// `None` when no block passed through the queue (a trace without writes).
    pub r_wa: Option<f64>,
    /// Which bands the estimate laid and why, and a warning when the written range spans few.
    pub geometry: Vec<String>,
}

/// The §III-A estimate as a system: writes fill the virtual queue, nothing else happens.
pub struct Estimate {
    layout: BandLayout,
    queue: FifoBuffer,
    bands: BandCursor,
    written_range_bytes: u64,
    written_bytes: u64,
    /// Totals over the fills so far (the queue's present content not included).
    done: SmrEstimate,
}

impl Estimate {
    /// Builds the estimate from `b.params` (see `PARAMS`), sized for the trace's footprint.
    pub fn build(b: &mut BuildContext<'_>) -> Result<Self, SimError> {
        let estimate = Self::new(&mut b.params, &b.footprint, b.seed)?;
        // The geometry's note first, then its warning if any.
        let mut said = estimate.done.geometry.iter().cloned();
        b.notes.extend(said.next());
        b.warnings.extend(said);
        Ok(estimate)
    }

    fn new(params: &mut ParamReader<'_>, footprint: &Footprint, seed: u64) -> Result<Self, ParamError> {
        let LaidBands { layout, said, mean_bytes } = band_layout(params, footprint.max_end, seed, footprint.requests)?;
        let queue_bytes = queue_bytes(params, footprint)?;
        let written_range_bytes = written_range(&layout, footprint);
        let (said, warning) = band_notes(
            &said,
            written_range_bytes as f64 / mean_bytes,
            "in the written range (from its size and the mean band size)",
        );
        Ok(Estimate {
            queue: FifoBuffer::new(queue_bytes / BLOCK_4K, layout.count()),
            written_range_bytes,
            written_bytes: footprint.written_bytes,
            layout,
            bands: BandCursor::default(),
            done: SmrEstimate {
                buffer_bytes: queue_bytes,
                geometry: [said].into_iter().chain(warning).collect(),
                ..Default::default()
            },
        })
    }

    /// Puts a write's blocks in the queue, emptying it each time it is full.
    fn write(&mut self, req: &Request) {
        for block in req.blocks(BLOCK_4K) {
            self.queue.insert(block, self.bands.band_of(&self.layout, block * BLOCK_4K));
            if self.queue.is_full() {
                let fill = self.queued();
                add(&mut self.done, &fill);
                self.queue.clear();
            }
        }
    }

    /// What emptying the queue now would add: one fill, the bands its blocks cover, the blocks.
    fn queued(&self) -> SmrEstimate {
        let mut fill = SmrEstimate { buffered_bytes: self.queue.len() * BLOCK_4K, ..Default::default() };
        if self.queue.is_empty() {
            return fill;
        }
        fill.fills = 1;
        for band in self.queue.bands() {
            let r = self.layout.band(band);
            fill.band_bytes += r.end - r.start;
            fill.bands_covered += 1;
        }
        fill
    }

    /// The estimate over everything written so far, the queue's present content flushed.
    pub fn result(&self) -> SmrEstimate {
        let mut out = SmrEstimate {
            written_range_bytes: self.written_range_bytes,
            written_bytes: self.written_bytes,
            ..self.done.clone()
        };
        add(&mut out, &self.queued());
        out.r_wa = R_WA.of(out.band_bytes, out.buffered_bytes);
        out
    }
}

/// Adds one fill's (or several fills') counts to `to`.
fn add(to: &mut SmrEstimate, fill: &SmrEstimate) {
    to.fills += fill.fills;
    to.bands_covered += fill.bands_covered;
    to.band_bytes += fill.band_bytes;
    to.buffered_bytes += fill.buffered_bytes;
}

impl System for Estimate {
    fn submit(&mut self, req: &Request, _ctx: &mut IoCtx) -> Result<(), SimError> {
        if req.op == Op::Write {
            self.write(req);
        }
        Ok(())
    }

    fn capacity(&self) -> u64 {
        self.layout.end()
    }

    fn counters(&self, out: &mut Counters) {
        let e = self.result();
        out.add(&FILLS, e.fills);
        out.add(&BAND_CLEANINGS, e.bands_covered);
        out.add(&BAND_BYTES_WRITTEN, e.band_bytes);
        out.add(&BUFFER_BYTES_EVICTED, e.buffered_bytes);
        out.declare(&R_WA);
        out.expect(&CLEANED);
    }

    fn gauges(&self, out: &mut Gauges) {
        out.set(&BUFFER_BLOCKS, self.queue.capacity() as f64);
        out.set(&BANDS, self.layout.count() as f64);
    }
}

/// Runs the estimate over `requests`; reads `buffer`, `band_min`/`band_max`/`band_size`.
pub fn estimate(
    requests: impl IntoIterator<Item = Result<Request, TraceError>>,
    params: &mut Params,
    footprint: Footprint,
    seed: u64,
) -> Result<SmrEstimate, SimError> {
    let mut reader = ParamReader::new(params, PARAMS);
    let mut estimate = Estimate::new(&mut reader, &footprint, seed)?;
    params.finish()?;
    let end = estimate.capacity();
    for (index, req) in (1..).zip(requests) {
        let req = req?;
        if req.op != Op::Write {
            continue;
        }
        if req.offset.checked_add(req.len).is_none_or(|last| last > end) {
            return Err(SimError::OutOfRange { index, offset: req.offset, len: req.len, capacity: end });
        }
        estimate.write(&req);
    }
    Ok(estimate.result())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(block: u64) -> Result<Request, TraceError> {
        Ok(Request::new(0, Op::Write, block * 4096, 4096))
    }

    #[test]
    fn hand_worked_estimate() {
        // 1 MiB bands; 4-block queue. Fill 1: blocks 0, 1 (band 0), 256 (band 1), 0 again (in
        // place), 512 (band 2) → 3 bands = 3 MiB for 4 blocks. Then 1, 2 (band 0) flushed at the end:
        // 1 band for 2 blocks. R_wa = 4 MiB / 6 blocks.
        let fp = Footprint::dense(1 << 30, 1 << 30, 1 << 30);
        let mut p = Params::parse(&["band_size=1MiB", "buffer=4blocks"]).unwrap();
        let e = estimate([w(0), w(1), w(256), w(0), w(512), w(1), w(2)], &mut p, fp, 0).unwrap();
        assert_eq!(e.fills, 2);
        assert_eq!(e.bands_covered, 4);
        assert_eq!(e.band_bytes, 4 << 20);
        assert_eq!(e.buffered_bytes, 6 * 4096);
        assert_eq!(e.r_wa, Some((4u64 << 20) as f64 / (6.0 * 4096.0)));
    }

    /// §III-A sizes the queue at 1/256 of the working set, the blocks the trace writes, not of
    /// the written range the emulator's buffer is a share of: 1024 blocks written, one in each
    /// of 1024 bands of 1 MiB, make a working set of 4 MiB (a 4-block queue) in a 1 GiB range.
    #[test]
    fn the_queue_is_a_share_of_the_working_set_not_of_the_written_range() {
        let grain = smr_trace::EXTENT_GRAIN;
        let fp = Footprint {
            written_bytes: 1024 * 4096,
            accessed_bytes: 1024 * 4096,
            max_end: 1 << 30,
            written_extents: (0..1024).map(|band| (band << 20, grain)).collect(),
            accessed_extents: vec![],
            requests: 0,
        };
        let mut p = Params::parse(&["band_size=1MiB"]).unwrap();
        let writes: Vec<_> = (0..1024u64).map(|band| w(band * 256)).collect();
        let e = estimate(writes, &mut p, fp, 0).unwrap();
        assert_eq!((e.written_range_bytes, e.written_bytes), (1 << 30, 1024 * 4096));
        assert_eq!(e.buffer_bytes, 1024 * 4096 / 256, "1/256 of the working set: 4 blocks");
        // Each fill of four blocks covers four bands: R_wa = 4 MiB / 16 KiB = 256.
        assert_eq!((e.fills, e.r_wa), (256, Some(256.0)));
    }

    #[test]
    fn as_a_system_its_counters_include_the_queue_flushed() {
        let fp = Footprint::dense(1 << 30, 1 << 30, 1 << 30);
        let mut p = Params::parse(&["band_size=1MiB", "buffer=4blocks"]).unwrap();
        let mut reader = ParamReader::new(&mut p, PARAMS);
        let mut e = Estimate::new(&mut reader, &fp, 0).unwrap();
        let mut ctx = IoCtx::new();
        for block in [0, 1, 256, 0, 512, 1, 2] {
            e.submit(&w(block).unwrap(), &mut ctx).unwrap();
        }
        e.submit(&Request::new(0, Op::Read, 0, 1 << 20), &mut ctx).unwrap();
        let mut c = Counters::default();
        e.counters(&mut c);
        assert_eq!((c.get("estimate_fills"), c.get("band_cleanings"), c.get("band_bytes_written")), (2, 4, 4 << 20));
        assert_eq!(c.get("buffer_bytes_evicted"), 6 * 4096);
        assert_eq!(ctx.now(), 0, "the estimate takes no time");
    }

    #[test]
    fn reads_are_ignored_and_unknown_params_rejected() {
        let fp = Footprint::dense(1 << 20, 1 << 20, 1 << 20);
        let mut p = Params::parse(&["band_size=1MiB"]).unwrap();
        let e = estimate([Ok(Request::new(0, Op::Read, 0, 4096))], &mut p, fp.clone(), 0).unwrap();
        assert_eq!((e.fills, e.r_wa), (0, None));
        let mut p = Params::parse(&["bnd_size=1MiB"]).unwrap();
        assert!(estimate(std::iter::empty(), &mut p, fp, 0).unwrap_err().to_string().contains("bnd_size"));
    }
}
