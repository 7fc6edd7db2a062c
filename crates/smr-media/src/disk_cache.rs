//! A disk's own cache (its DRAM buffer), after DiskSim's segmented cache: a number of segments,
//! each holding one run of consecutive sectors, replaced least recently used first.
//!
//! Reads: sectors found in a segment are served at interface speed; a read that misses fills a
//! segment, and the drive then keeps reading ahead after it, while the head is free, up to the
//! end of the track or a set amount (never past the segment): the read-ahead reaches as far as
//! the platter turned before the next command that needs the head. Writes pass through to the
//! media (write-through) and leave their data in a segment, so a read of what was just written
//! hits. As an option, writes are cached (write-back): acknowledged once in the cache while the
//! data not yet on the media fits in it, and written in idle time, oldest first (`WriteBack`).
//!
//! This module keeps the bookkeeping in sectors and nanoseconds; the `Hdd` times the media
//! accesses. Not modelled: command overhead, a segment shared by several streams, the
//! adaptive segmentation of some firmware.

use std::collections::VecDeque;

use super::{exact_f64, truncated_u64};

/// How far the drive reads ahead after a read that missed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadAhead {
    /// To the end of the track the read ended on.
    TrackEnd,
    /// This many sectors (at most a segment).
    Sectors(u64),
    /// Until the segment is full.
    Segment,
}

/// A drive cache's size and behaviour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheConfig {
    /// Bytes of cache; 0 turns the cache off.
    pub bytes: u64,
    pub segments: u32,
    pub read_ahead: ReadAhead,
    /// Whether writes are cached (acknowledged before they reach the media).
    pub write_back: bool,
}

impl CacheConfig {
    pub const OFF: CacheConfig =
        CacheConfig { bytes: 0, segments: 1, read_ahead: ReadAhead::Sectors(0), write_back: false };
}

/// One segment's run, as `store` filled it.
#[derive(Clone, Copy, Debug)]
struct Segment {
    start: u64,
    index: usize,
}

/// A read-ahead in progress: the platter turns `ns_per_sector` per sector into the run of
/// segment `segment` from sector `from`, starting at `since_ns`, up to `limit`. It ends when that
/// segment is filled again or trimmed, so while it lasts the segment holds the run it extends.
#[derive(Clone, Copy, Debug)]
struct Prefetch {
    segment: usize,
    /// Where it started, and the sector it has reached.
    started: u64,
    from: u64,
    since_ns: f64,
    ns_per_sector: f64,
    limit: u64,
}

#[derive(Clone, Debug)]
pub(super) struct SegmentCache {
    /// Each segment's first sector and one past its last valid one (its start when empty);
    /// indexed by segment, in no order. Kept as two arrays so the overlap check of every store
    /// runs over them as vector arithmetic.
    starts: Vec<u64>,
    ends: Vec<u64>,
    /// Segment indices, least recently used first (a use moves one to the back: a few bytes
    /// moved, where keeping use counts would cost a scan for the oldest).
    recency: Vec<u32>,
    segment_sectors: u64,
    read_ahead: ReadAhead,
    prefetch: Option<Prefetch>,
    /// Whether the CPU has AVX2, asked once (`overlaps_any`).
    #[cfg(target_arch = "x86_64")]
    avx2: bool,
}

impl SegmentCache {
    /// A cache of `config.segments` segments sharing `config.bytes`; `None` when it is off.
    pub fn new(config: &CacheConfig, sector: u64) -> Option<Self> {
        let segments = config.segments.max(1) as u64;
        let segment_sectors = config.bytes / segments / sector;
        (segment_sectors > 0).then(|| SegmentCache {
            starts: vec![0; segments as usize],
            ends: vec![0; segments as usize],
            recency: (0..segments as u32).collect(),
            segment_sectors,
            read_ahead: config.read_ahead,
            prefetch: None,
            #[cfg(target_arch = "x86_64")]
            avx2: std::arch::is_x86_feature_detected!("avx2"),
        })
    }

    /// Makes the segment at `rank` in the recency order the most recently used.
    fn touch(&mut self, rank: usize) {
        if rank + 1 != self.recency.len() {
            let segment = self.recency.remove(rank);
            self.recency.push(segment);
        }
    }

    /// Moves the read-ahead on to time `now_ns`; returns the sector it has reached, if one is
    /// in progress.
    #[inline]
    pub fn advance(&mut self, now_ns: f64) -> Option<u64> {
        let p = self.prefetch.as_mut()?;
        let turned = truncated_u64((now_ns - p.since_ns).max(0.0) / p.ns_per_sector);
        let reached = (p.from + turned).min(p.limit);
        (p.from, p.since_ns) = (reached, p.since_ns + exact_f64(reached - p.from) * p.ns_per_sector);
        self.ends[p.segment] = self.ends[p.segment].max(reached);
        Some(reached)
    }

    /// Ends the read-ahead at `now_ns` (the head is needed elsewhere); returns where it stopped
    /// if it read anything (else the head is where the read before it left it).
    #[inline]
    pub fn stop(&mut self, now_ns: f64) -> Option<u64> {
        let reached = self.advance(now_ns)?;
        let started = self.prefetch.take()?.started;
        (reached > started).then_some(reached)
    }

    /// The end of the cached run that holds sector `first`: `first` itself if none does. Where
    /// several runs hold it (a read-ahead can grow into another segment's run), the most
    /// recently used one.
    pub fn cached_from(&mut self, first: u64) -> u64 {
        // Most lookups find nothing: a segment holds `first` when it overlaps `[first, first + 1)`.
        if !self.overlaps_any(first, first + 1) {
            return first;
        }
        // Per 64 recency ranks, most recent first, one bit per rank whose segment holds
        // `first`, gathered without a branch per segment (a search that stops at the first
        // match mispredicts on most lookups); the highest set bit is the most recent holder.
        let (starts, ends) = (&self.starts, &self.ends);
        let holds = |i: u32| (starts[i as usize] <= first) & (first < ends[i as usize]);
        let found = self.recency.chunks(64).enumerate().rev().find_map(|(chunk_index, ranks)| {
            let bits = ranks.iter().enumerate().fold(0u64, |bits, (rank, &i)| bits | (holds(i) as u64) << rank);
            (bits != 0).then(|| chunk_index * 64 + 63 - bits.leading_zeros() as usize)
        });
        let Some(rank) = found else { return first };
        let end = ends[self.recency[rank] as usize];
        self.touch(rank);
        end
    }

    /// Whether one run holds every sector of `[first, end)`, as last brought up to date (a
    /// read-ahead since then not counted); changes nothing, not even the recency order.
    pub fn holds(&self, first: u64, end: u64) -> bool {
        self.overlaps_any(first, first + 1)
            && self.starts.iter().zip(&self.ends).any(|(&start, &stop)| start <= first && end <= stop)
    }

    /// After the media read `[first, end)` finished at `done_ns`: its sectors fill a segment,
    /// and read-ahead starts at `end`, a sector every `ns_per_sector`, at most to `track_end`
    /// (for `ReadAhead::TrackEnd`) or `disk_end`.
    pub fn filled_by_read(
        &mut self,
        first: u64,
        end: u64,
        done_ns: f64,
        ns_per_sector: f64,
        track_end: u64,
        disk_end: u64,
    ) {
        let segment = self.store(first, end);
        let wanted = match self.read_ahead {
            ReadAhead::TrackEnd => track_end,
            ReadAhead::Sectors(n) => end.saturating_add(n),
            ReadAhead::Segment => u64::MAX,
        };
        let limit = wanted.min(segment.start + self.segment_sectors).min(disk_end);
        if limit > end {
            self.prefetch = Some(Prefetch {
                segment: segment.index,
                started: end,
                from: end,
                since_ns: done_ns,
                ns_per_sector,
                limit,
            });
        }
    }

    /// After a write of `[first, end)`: what the cache held of those sectors is stale, and the
    /// written data now sits in a segment.
    pub fn filled_by_write(&mut self, first: u64, end: u64) {
        self.store(first, end);
    }

    /// Whether any segment's run overlaps `[first, end)`, in one pass without a branch per
    /// segment (a search that stops at the first overlap mispredicts, as most stores and lookups
    /// find none). A run overlaps when `start < end` and `first < its end`; for sector numbers
    /// (below 2^63) `a < b` is the top bit of `a - b`, so the pass is subtractions, ANDs and ORs
    /// over two arrays, which the compiler vectorizes: four segments a step with AVX2 where the
    /// CPU has it, two with the SSE2 every x86-64 has.
    fn overlaps_any(&self, first: u64, end: u64) -> bool {
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: `avx2` is set only when the CPU has AVX2 (`SegmentCache::new`).
            return unsafe { overlaps_any_avx2(&self.starts, &self.ends, first, end) };
        }
        overlap_pass(&self.starts, &self.ends, first, end)
    }

    /// Puts `[first, end)` (its last `segment_sectors` if longer) in a segment: the one used
    /// last if it continues that one's run (a sequential stream), else the least recently used.
    /// Other segments drop what overlaps it. Returns the segment as filled.
    fn store(&mut self, first: u64, end: u64) -> Segment {
        let first = first.max(end.saturating_sub(self.segment_sectors));
        // Most stores overlap no segment.
        if self.overlaps_any(first, end) {
            for segment in 0..self.starts.len() {
                let start = self.starts[segment];
                if start < end && first < self.ends[segment] {
                    // Keep only the part before `first` (a segment holds one run); a read-ahead
                    // into it would bring back what is stale.
                    self.ends[segment] = first.max(start);
                    if self.prefetch.is_some_and(|p| p.segment == segment) {
                        self.prefetch = None;
                    }
                }
            }
        }
        let last = self.recency.len() - 1;
        let latest = self.recency[last] as usize;
        let (latest_start, latest_end) = (self.starts[latest], self.ends[latest]);
        let extends = latest_end == first && latest_end > latest_start && end - latest_start <= self.segment_sectors;
        // The least recently used is first.
        let rank = if extends { last } else { 0 };
        let index = self.recency[rank] as usize;
        if self.prefetch.is_some_and(|p| p.segment == index) {
            self.prefetch = None;
        }
        if !extends {
            self.starts[index] = first;
        }
        self.ends[index] = end;
        self.touch(rank);
        Segment { start: self.starts[index], index }
    }
}

/// `SegmentCache::overlaps_any`'s pass over the runs `starts[i]..ends[i]`.
#[inline(always)]
fn overlap_pass(starts: &[u64], ends: &[u64], first: u64, end: u64) -> bool {
    let any = starts
        .iter()
        .zip(ends)
        .fold(0u64, |bits, (&start, &stop)| bits | (start.wrapping_sub(end) & first.wrapping_sub(stop)));
    any >> 63 != 0
}

/// `overlap_pass` compiled for AVX2 (the same integer arithmetic, so the same answer).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn overlaps_any_avx2(starts: &[u64], ends: &[u64], first: u64, end: u64) -> bool {
    overlap_pass(starts, ends, first, end)
}

/// Writes acknowledged in the cache and not yet on the media, oldest first.
#[derive(Clone, Debug, Default)]
pub(super) struct WriteBack {
    /// (first sector, sectors) of each cached write.
    pending: VecDeque<(u64, u64)>,
    pending_sectors: u64,
    capacity_sectors: u64,
    /// When the media is free of the last access (foreground or destage) that used it.
    pub busy_until_ns: f64,
}

impl WriteBack {
    pub fn new(capacity_sectors: u64) -> Self {
        WriteBack { capacity_sectors, ..Default::default() }
    }

    /// Whether `sectors` more fit in the cache.
    pub fn has_room(&self, sectors: u64) -> bool {
        self.pending_sectors + sectors <= self.capacity_sectors
    }

    pub fn push(&mut self, first: u64, sectors: u64) {
        self.pending.push_back((first, sectors));
        self.pending_sectors += sectors;
    }

    /// The `age`-th oldest pending write (0: the oldest), taken off the queue.
    pub fn take(&mut self, age: usize) -> Option<(u64, u64)> {
        let write = self.pending.remove(age)?;
        self.pending_sectors -= write.1;
        Some(write)
    }

    /// The `n` oldest pending writes, oldest first.
    pub fn oldest(&self, n: usize) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.pending.iter().take(n).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cache(segments: u32, sectors: u64, read_ahead: ReadAhead) -> SegmentCache {
        SegmentCache::new(
            &CacheConfig { bytes: segments as u64 * sectors * 512, segments, read_ahead, write_back: false },
            512,
        )
        .unwrap()
    }

    #[test]
    fn read_ahead_reaches_as_far_as_the_platter_turned() {
        let mut c = cache(2, 100, ReadAhead::Sectors(50));
        c.filled_by_read(10, 20, 1000.0, 10.0, 1_000, 1_000_000);
        assert_eq!(c.cached_from(15), 20, "nothing read ahead yet at the end of the read");
        assert_eq!(c.advance(1105.0), Some(30), "10.5 sectors' time: 10 whole sectors");
        assert_eq!(c.cached_from(25), 30);
        assert_eq!(c.stop(5000.0), Some(70), "at most 50 sectors ahead");
        assert_eq!(c.advance(9000.0), None, "stopped");
        assert_eq!(c.cached_from(69), 70);
        assert_eq!(c.cached_from(70), 70, "not cached");
    }

    #[test]
    fn track_end_and_segment_size_bound_read_ahead() {
        let mut c = cache(2, 100, ReadAhead::TrackEnd);
        c.filled_by_read(0, 10, 0.0, 1.0, 40, 1_000_000);
        assert_eq!(c.advance(1e9), Some(40));
        let mut c = cache(2, 100, ReadAhead::Sectors(1_000));
        c.filled_by_read(0, 10, 0.0, 1.0, 40, 1_000_000);
        assert_eq!(c.advance(1e9), Some(100), "a segment holds 100 sectors");
    }

    #[test]
    fn least_recently_used_segment_is_replaced_and_writes_replace_stale_data() {
        let mut c = cache(2, 100, ReadAhead::Sectors(0));
        c.filled_by_read(0, 10, 0.0, 1.0, 0, 1 << 20);
        c.filled_by_read(100, 110, 0.0, 1.0, 0, 1 << 20);
        c.cached_from(5);
        c.filled_by_read(200, 210, 0.0, 1.0, 0, 1 << 20);
        assert_eq!(
            (c.cached_from(5), c.cached_from(105), c.cached_from(205)),
            (10, 105, 210),
            "100..110 was the least recent"
        );
        c.filled_by_write(4, 6);
        assert_eq!(c.cached_from(7), 7, "the written sectors and what followed them left the older run");
        assert_eq!(c.cached_from(4), 6, "the written sectors sit in a segment of their own");
        c.filled_by_write(6, 8);
        assert_eq!(c.cached_from(4), 8, "a write that continues the run used last extends it");
        c.filled_by_write(300, 450);
        assert_eq!(c.cached_from(300), 300, "a run longer than a segment keeps its last sectors");
        assert_eq!(c.cached_from(350), 450);
    }

    /// The lookup gathers ranks 64 at a time: with more segments than that, a run at any rank
    /// is found, and of two runs holding a sector the more recently used one answers.
    #[test]
    fn lookup_finds_runs_past_64_segments_and_prefers_the_most_recent() {
        let mut c = cache(100, 10, ReadAhead::Sectors(0));
        for run in 0..100 {
            c.filled_by_read(run * 100, run * 100 + 5, 0.0, 1.0, 0, 1 << 20);
        }
        for run in [0, 35, 63, 64, 99] {
            assert_eq!(c.cached_from(run * 100 + 2), run * 100 + 5, "run {run}");
        }
        assert_eq!(c.cached_from(50), 50, "between runs nothing is cached");
        let mut c = cache(70, 10, ReadAhead::Sectors(5));
        c.filled_by_read(5, 6, 0.0, 1.0, 0, 1 << 20);
        c.filled_by_write(8, 9);
        assert_eq!(c.advance(1e9), Some(11), "the read-ahead grows its run over the written one");
        assert_eq!(c.cached_from(8), 9, "the written run is the more recently used");
        assert_eq!(c.cached_from(5), 11);
        assert_eq!(c.cached_from(8), 11, "now the read run is");
    }

    /// The overlap pass, portable and (where the CPU has it) AVX2, answers as a run-by-run
    /// check does: runs that touch, overlap, contain or miss the range, empty runs, and segment
    /// counts that leave the vector loops a remainder.
    #[test]
    fn the_overlap_passes_answer_as_a_run_by_run_check() {
        proptest::proptest!(|(runs in proptest::collection::vec((0u64..64, 0u64..8), 0..20), first in 0u64..64, len in 1u64..8)| {
            let starts: Vec<u64> = runs.iter().map(|r| r.0).collect();
            let ends: Vec<u64> = runs.iter().map(|r| r.0 + r.1).collect();
            let end = first + len;
            // The overlap as the documentation states it, one run at a time.
            let expected = runs.iter().any(|&(start, n)| start < end && first < start + n);
            proptest::prop_assert_eq!(overlap_pass(&starts, &ends, first, end), expected);
            #[cfg(target_arch = "x86_64")]
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU has AVX2.
                proptest::prop_assert_eq!(unsafe { overlaps_any_avx2(&starts, &ends, first, end) }, expected);
            }
        });
    }

    #[test]
    fn write_back_queue_holds_what_fits() {
        let mut w = WriteBack::new(10);
        w.push(0, 6);
        assert!(!w.has_room(5) && w.has_room(4));
        assert_eq!(w.take(0), Some((0, 6)));
        assert!(w.has_room(10));
    }
}
