//! What FluidSMR and its baselines learn about each user zone over a time window: the NSW-Range
//! of §5.2 (the union of the ranges its non-sequential writes covered, kept as a bitmap at a
//! configurable granularity with a running count, §5.5), and the counts the §2.4 baselines rank
//! zones by (NSWs, accesses); each is forgotten at the end of its own window (format-adapt runs
//! both). A write is non-sequential when it does not start at the zone's write pointer; for a
//! zone in CMR, at the point its data was written up to (where an SMR zone's pointer would be),
//! so CMR and SMR zones are measured alike. Not here: what the counts decide (`adapt`, `swap`).

use smr_kernel::metrics::{Gauges, Metric, Unit};

pub static NSW_TRACKING_BYTES: Metric = Metric::new(
    "nsw_tracking_bytes",
    Unit::Bytes,
    "FluidSMR: memory of NSW-Range tracking, a 4-byte counter and a bitmap per zone (§5.5)",
);

pub struct NswTracker {
    /// Bitmap chunks per zone, and 64-bit words per zone.
    chunks: u64,
    words: usize,
    granularity: u64,
    bits: Vec<u64>,
    /// Per user zone: chunks set in its bitmap (its NSW-Range in chunks).
    range: Vec<u32>,
    nsw_writes: Vec<u32>,
    accesses: Vec<u32>,
}

impl NswTracker {
    /// Tracking for `users` zones of `zone_size` bytes at `granularity` bytes a bit.
    pub fn new(users: u32, zone_size: u64, granularity: u64) -> Self {
        let chunks = zone_size.div_ceil(granularity);
        let words = chunks.div_ceil(64) as usize;
        NswTracker {
            chunks,
            words,
            granularity,
            bits: vec![0; words * users as usize],
            range: vec![0; users as usize],
            nsw_writes: vec![0; users as usize],
            accesses: vec![0; users as usize],
        }
    }

    /// Makes room for user zones added since (an allocation during the run).
    pub fn grow(&mut self, users: u32) {
        let users = users as usize;
        if users > self.range.len() {
            self.bits.resize(users * self.words, 0);
            self.range.resize(users, 0);
            self.nsw_writes.resize(users, 0);
            self.accesses.resize(users, 0);
        }
    }

    /// Counts an access (read or write) of `user`.
    #[inline]
    pub fn access(&mut self, user: u32) {
        self.accesses[user as usize] += 1;
    }

    /// Records a non-sequential write of `len` bytes at `offset` inside `user`.
    #[inline]
    pub fn nsw(&mut self, user: u32, offset: u64, len: u64) {
        let u = user as usize;
        self.nsw_writes[u] += 1;
        let base = u * self.words;
        let last = ((offset + len - 1) / self.granularity).min(self.chunks - 1);
        for chunk in offset / self.granularity..=last {
            let (word, bit) = (base + (chunk / 64) as usize, 1u64 << (chunk % 64));
            if self.bits[word] & bit == 0 {
                self.bits[word] |= bit;
                self.range[u] += 1;
            }
        }
    }

    /// `user`'s NSW-Range in bytes (at the tracking granularity).
    pub fn range_bytes(&self, user: u32) -> u64 {
        self.range[user as usize] as u64 * self.granularity
    }

    /// `user`'s NSW-Range as a share of the zone: r of §5.2.
    pub fn ratio(&self, user: u32) -> f64 {
        self.range[user as usize] as f64 / self.chunks as f64
    }

    pub fn nsw_writes(&self, user: u32) -> u32 {
        self.nsw_writes[user as usize]
    }

    pub fn accesses(&self, user: u32) -> u32 {
        self.accesses[user as usize]
    }

    /// Starts a new window of format adaptation: forgets the NSW-Ranges.
    pub fn reset_ranges(&mut self) {
        self.bits.fill(0);
        self.range.fill(0);
    }

    /// Starts a new window of the §2.4 swapping: forgets the NSW and access counts.
    pub fn reset_counts(&mut self) {
        self.nsw_writes.fill(0);
        self.accesses.fill(0);
    }

    /// Memory of §5.5's tracking: a 4-byte counter and a bitmap per zone.
    pub fn memory_bytes(&self) -> u64 {
        self.range.len() as u64 * (4 + self.words as u64 * 8)
    }

    pub fn gauges(&self, out: &mut Gauges) {
        out.set(&NSW_TRACKING_BYTES, self.memory_bytes() as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fig. 8: overlapping NSWs count once; the range is their union.
    #[test]
    fn nsw_range_is_the_union_of_the_writes() {
        let mut t = NswTracker::new(2, 1 << 20, 4096);
        t.nsw(1, 0, 8192);
        t.nsw(1, 4096, 8192);
        t.nsw(1, 100 * 4096 + 10, 1);
        assert_eq!((t.range_bytes(1), t.nsw_writes(1), t.range_bytes(0)), (4 * 4096, 3, 0));
        assert!((t.ratio(1) - 4.0 / 256.0).abs() < 1e-12);
        t.reset_counts();
        assert_eq!((t.range_bytes(1), t.nsw_writes(1)), (4 * 4096, 0), "the counts go, the range stays");
        t.reset_ranges();
        assert_eq!(t.range_bytes(1), 0);
    }

    /// §5.5: 8 KB of bitmap and 4 bytes of counter per 256 MB zone at 4 KB; 32.5 MB per TB.
    #[test]
    fn memory_follows_section_5_5() {
        let t = NswTracker::new(4096, 256 << 20, 4096);
        assert_eq!(t.memory_bytes(), 4096 * (4 + 8192));
        let coarse = NswTracker::new(4096, 256 << 20, 32 << 10);
        assert_eq!(coarse.memory_bytes(), 4096 * (4 + 1024), "32 KB chunks need an eighth of it");
    }
}
