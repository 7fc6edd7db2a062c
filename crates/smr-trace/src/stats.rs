//! `smrlab trace stats`: the numbers a storage researcher first asks of a trace (the columns of
//! Table I of the PORE paper and more), computed in one streaming pass.
//!
//! Block-level figures use 4 KiB blocks: a request touches every 4 KiB block it overlaps.
//! "Range" is given two ways: the span (lowest to highest touched byte, 4 KiB-aligned) and the
//! union (number of distinct touched blocks × 4 KiB). Trims count as requests but touch no data.

use serde::{Deserialize, Serialize};

use super::{Footprint, TraceError, TraceReader, EXTENT_GRAIN};
use smr_core::blockset::BlockSet;
use smr_core::request::{Op, Request};
use smr_core::units::BLOCK_4K;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TraceStats {
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    /// Writes as a percentage of reads + writes.
    pub write_percent: f64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub avg_read_len: f64,
    pub avg_write_len: f64,
    pub unique_blocks_read: u64,
    pub unique_blocks_written: u64,
    pub unique_blocks_touched: u64,
    /// Span of written bytes: (highest written block + 1 − lowest written block) × 4 KiB.
    pub written_span_bytes: u64,
    /// Union of written 4 KiB blocks, in bytes.
    pub written_union_bytes: u64,
    pub accessed_span_bytes: u64,
    pub accessed_union_bytes: u64,
    /// Writes of a 4 KiB block that had already been written (counted per block).
    pub updates: u64,
    /// Time from the first to the last request.
    pub duration_ns: u64,
    /// Requests whose timestamp is earlier than the request's before them (a trace out of
    /// time order; replay takes each at the time before it).
    #[serde(default)]
    pub time_regressions: u64,
    /// One past the highest byte any request touches.
    pub max_end: u64,
    /// Where the trace writes, at `EXTENT_GRAIN` (see `Footprint`; not part of the printed stats).
    #[serde(skip)]
    pub written_extents: Vec<(u64, u64)>,
    /// Where the trace reads or writes, likewise.
    #[serde(skip)]
    pub accessed_extents: Vec<(u64, u64)>,
}

/// The `EXTENT_GRAIN`s that hold a block of any of `sets`, as ascending, disjoint byte extents.
fn extents(sets: &[&BlockSet]) -> Vec<(u64, u64)> {
    BlockSet::grain_runs(sets, EXTENT_GRAIN / BLOCK_4K)
        .into_iter()
        .map(|(first, count)| (first * EXTENT_GRAIN, count * EXTENT_GRAIN))
        .collect()
}

fn span(set: &BlockSet) -> u64 {
    set.bounds().map_or(0, |(lo, hi)| (hi + 1 - lo) * BLOCK_4K)
}

/// `TraceStats` built one request at a time: what `TraceStats::compute` folds over a stream, and
/// what the smrbin writer keeps beside the records it writes so that the file can carry its
/// statistics.
#[derive(Debug)]
pub struct StatsPass {
    stats: TraceStats,
    read: BlockSet,
    written: BlockSet,
    first_t: u64,
    last_t: u64,
}

impl Default for StatsPass {
    fn default() -> Self {
        StatsPass {
            stats: TraceStats::default(),
            read: BlockSet::new(),
            written: BlockSet::new(),
            first_t: u64::MAX,
            last_t: 0,
        }
    }
}

impl StatsPass {
    /// Counts one request.
    #[inline]
    pub fn add(&mut self, req: &Request) {
        let s = &mut self.stats;
        s.requests += 1;
        if s.requests > 1 && req.time_ns < self.last_t {
            s.time_regressions += 1;
        }
        self.first_t = self.first_t.min(req.time_ns);
        self.last_t = self.last_t.max(req.time_ns);
        if req.len > 0 {
            s.max_end = s.max_end.max(req.end());
        }
        match req.op {
            Op::Read => {
                s.reads += 1;
                s.bytes_read += req.len;
                self.read.insert_range(req.blocks(BLOCK_4K));
            }
            Op::Write => {
                s.writes += 1;
                s.bytes_written += req.len;
                s.updates += self.written.insert_range(req.blocks(BLOCK_4K));
            }
            Op::Trim => s.trims += 1,
        }
    }

    /// The statistics of every request counted.
    pub fn finish(self) -> TraceStats {
        let StatsPass { mut stats, read, written, first_t, last_t } = self;
        stats.derive_ratios();
        let s = &mut stats;
        s.unique_blocks_read = read.len();
        s.unique_blocks_written = written.len();
        s.unique_blocks_touched = written.union_len(&read);
        s.written_span_bytes = span(&written);
        s.written_union_bytes = written.len() * BLOCK_4K;
        s.accessed_union_bytes = s.unique_blocks_touched * BLOCK_4K;
        s.accessed_span_bytes = match (read.bounds(), written.bounds()) {
            (None, None) => 0,
            (Some((lo, hi)), None) | (None, Some((lo, hi))) => (hi + 1 - lo) * BLOCK_4K,
            (Some((a, b)), Some((c, d))) => (b.max(d) + 1 - a.min(c)) * BLOCK_4K,
        };
        s.duration_ns = if s.requests == 0 { 0 } else { last_t - first_t };
        s.written_extents = extents(&[&written]);
        s.accessed_extents = extents(&[&written, &read]);
        stats
    }
}

impl TraceStats {
    /// Sets the figures that are ratios of the counts (stored statistics recompute them: JSON
    /// does not give a float back to the last bit).
    pub fn derive_ratios(&mut self) {
        let rw = self.reads + self.writes;
        self.write_percent = if rw == 0 { 0.0 } else { 100.0 * self.writes as f64 / rw as f64 };
        self.avg_read_len = if self.reads == 0 { 0.0 } else { self.bytes_read as f64 / self.reads as f64 };
        self.avg_write_len = if self.writes == 0 { 0.0 } else { self.bytes_written as f64 / self.writes as f64 };
    }

    /// Reads every request of `requests` once.
    pub fn compute(requests: impl IntoIterator<Item = Result<Request, TraceError>>) -> Result<Self, TraceError> {
        let mut pass = StatsPass::default();
        for req in requests {
            pass.add(&req?);
        }
        Ok(pass.finish())
    }

    /// The statistics `trace` carries (`TraceReader::stored_stats`: an smrbin file smrlab wrote),
    /// else those of one pass over it through `read` (which may wrap it, e.g. to be interrupted).
    pub fn of<I: IntoIterator<Item = Result<Request, TraceError>>>(
        trace: TraceReader,
        read: impl FnOnce(TraceReader) -> I,
    ) -> Result<Self, TraceError> {
        match trace.stored_stats() {
            Some(stats) => Ok(stats.clone()),
            None => TraceStats::compute(read(trace)),
        }
    }

    /// What systems need to size themselves (the extents move over, they can be long).
    pub fn into_footprint(self) -> Footprint {
        Footprint {
            written_bytes: self.written_union_bytes,
            accessed_bytes: self.accessed_union_bytes,
            max_end: self.max_end,
            written_extents: self.written_extents,
            accessed_extents: self.accessed_extents,
            requests: self.requests,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use proptest::prelude::*;

    use super::*;

    #[test]
    fn hand_worked_example() {
        // Blocks: W 0-1, W 1 (update), R 10, W 100 (len 1: block 100), T ignored.
        let reqs = [
            Request::new(5, Op::Write, 0, 8192),
            Request::new(6, Op::Write, 4096, 4096),
            Request::new(7, Op::Read, 40960, 4096),
            Request::new(9, Op::Write, 409600, 1),
            Request::new(15, Op::Trim, 0, 1 << 20),
        ];
        let s = TraceStats::compute(reqs.iter().map(|r| Ok(*r))).unwrap();
        assert_eq!((s.requests, s.reads, s.writes, s.trims), (5, 1, 3, 1));
        assert!((s.write_percent - 75.0).abs() < 1e-9);
        assert_eq!(s.bytes_written, 8192 + 4096 + 1);
        assert_eq!(s.unique_blocks_written, 3);
        assert_eq!(s.unique_blocks_read, 1);
        assert_eq!(s.unique_blocks_touched, 4);
        assert_eq!(s.updates, 1);
        assert_eq!(s.written_span_bytes, 101 * 4096);
        assert_eq!(s.written_union_bytes, 3 * 4096);
        assert_eq!(s.accessed_span_bytes, 101 * 4096);
        assert_eq!(s.duration_ns, 10);
        assert_eq!(s.time_regressions, 0);
        let backwards = [
            Request::new(5, Op::Read, 0, 4096),
            Request::new(9, Op::Read, 0, 4096),
            Request::new(7, Op::Read, 0, 4096),
        ];
        assert_eq!(TraceStats::compute(backwards.iter().map(|r| Ok(*r))).unwrap().time_regressions, 1);
        assert_eq!(s.max_end, 1 << 20);
        let fp = s.clone().into_footprint();
        assert_eq!(fp.accessed_bytes, 4 * 4096);
        // 64 KiB grains: the writes touch grains 0 and 6 (409600 = 6.25 grains); the read at
        // 40960 lies in grain 0; the trim touches none.
        let g = EXTENT_GRAIN;
        assert_eq!(fp.written_extents, vec![(0, g), (6 * g, g)]);
        assert_eq!(fp.accessed_extents, vec![(0, g), (6 * g, g)]);
        let straddling = TraceStats::compute([Ok(Request::new(0, Op::Read, g - 4096, 3 * g))]).unwrap();
        assert_eq!((straddling.written_extents.len(), straddling.accessed_extents.clone()), (0, vec![(0, 4 * g)]));
    }

    proptest! {
        /// The chunked block sets agree with ordered sets of every touched block, including
        /// for addresses far apart (a ~1 TiB span) and requests straddling chunk borders.
        #[test]
        fn block_figures_match_a_plain_set_model(
            raw in prop::collection::vec((0..3u8, 0..(1u64 << 40), 0..(64 * BLOCK_4K)), 0..60)
        ) {
            let reqs: Vec<Request> = raw.iter().enumerate().map(|(i, &(op, offset, len))| {
                Request::new(i as u64, Op::from_code(op).unwrap_or(Op::Read), offset, len)
            }).collect();
            let s = TraceStats::compute(reqs.iter().map(|r| Ok(*r))).unwrap();
            let (mut read, mut written, mut updates) = (BTreeSet::new(), BTreeSet::new(), 0);
            for r in &reqs {
                // A zero-length request touches no block (`Request::blocks`).
                let blocks = if r.len == 0 { 0..0 } else { r.offset / BLOCK_4K..r.offset.saturating_add(r.len).div_ceil(BLOCK_4K) };
                for b in blocks {
                    match r.op {
                        Op::Read => { read.insert(b); }
                        Op::Write => updates += u64::from(!written.insert(b)),
                        Op::Trim => {}
                    }
                }
            }
            let touched: BTreeSet<u64> = read.union(&written).copied().collect();
            let span = |set: &BTreeSet<u64>| set.first().map_or(0, |lo| (set.last().unwrap_or(lo) + 1 - lo) * BLOCK_4K);
            prop_assert_eq!(s.unique_blocks_read, read.len() as u64);
            prop_assert_eq!(s.unique_blocks_written, written.len() as u64);
            prop_assert_eq!(s.unique_blocks_touched, touched.len() as u64);
            prop_assert_eq!(s.updates, updates);
            prop_assert_eq!(s.written_span_bytes, span(&written));
            prop_assert_eq!(s.accessed_span_bytes, span(&touched));
            prop_assert_eq!(s.written_union_bytes, written.len() as u64 * BLOCK_4K);
            prop_assert_eq!(s.requests, reqs.len() as u64);
            // Extents: exactly the 64 KiB grains holding a touched block, each once.
            let grains = |set: &BTreeSet<u64>| set.iter().map(|b| b * BLOCK_4K / EXTENT_GRAIN).collect::<BTreeSet<u64>>();
            let covered = |extents: &[(u64, u64)]| {
                extents.iter().flat_map(|&(offset, len)| offset / EXTENT_GRAIN..(offset + len) / EXTENT_GRAIN).collect::<Vec<u64>>()
            };
            prop_assert_eq!(covered(&s.written_extents), grains(&written).into_iter().collect::<Vec<_>>());
            prop_assert_eq!(covered(&s.accessed_extents), grains(&touched).into_iter().collect::<Vec<_>>());
            prop_assert!(s.accessed_extents.windows(2).all(|w| w[0].0 + w[0].1 < w[1].0), "extents are maximal");
        }
    }
}
