//! Latency histograms: HDR histograms of nanoseconds (three significant digits) with an exact
//! sum, and the summary a result file keeps of one. Shared by the simulator's engine and by
//! anything else that measures response times. Not here: counters and derived ratios (the
//! simulator declares those, `smr_kernel::metrics`).

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// A latency histogram in nanoseconds, three significant digits, from 1 ns up to whatever the run
/// records: it starts sized for one hour and grows when a longer value comes, so no value is
/// clipped (a response of 3 h is reported as 3 h, not as the top of a fixed range).
#[derive(Clone, Debug)]
pub struct LatencyHistogram {
    hist: Histogram<u64>,
    sum_ns: u128,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        let mut hist = Histogram::new_with_bounds(1, 3_600_000_000_000, 3).expect("valid static bounds");
        hist.auto(true);
        LatencyHistogram { hist, sum_ns: 0 }
    }
}

impl LatencyHistogram {
    pub fn record(&mut self, ns: u64) {
        // Growing fails only where usize cannot index the counts (never on 64-bit machines).
        if self.hist.record(ns.max(1)).is_err() {
            self.hist.saturating_record(ns);
        }
        self.sum_ns += ns as u128;
    }

    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    pub fn clear(&mut self) {
        self.hist.reset();
        self.sum_ns = 0;
    }

    /// Count, exact mean and sum, and quantiles (to the histogram's precision).
    pub fn summary(&self) -> LatencySummary {
        let count = self.hist.len();
        let q = |p: f64| if count == 0 { 0 } else { self.hist.value_at_quantile(p) };
        LatencySummary {
            count,
            sum_ns: u64::try_from(self.sum_ns).unwrap_or(u64::MAX),
            mean_ns: if count == 0 { 0.0 } else { self.sum_ns as f64 / count as f64 },
            min_ns: if count == 0 { 0 } else { self.hist.min() },
            p50_ns: q(0.50),
            p90_ns: q(0.90),
            p99_ns: q(0.99),
            p999_ns: q(0.999),
            max_ns: if count == 0 { 0 } else { self.hist.max() },
        }
    }
}

/// What a result file keeps of a latency histogram.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    pub count: u64,
    pub sum_ns: u64,
    pub mean_ns: f64,
    pub min_ns: u64,
    pub p50_ns: u64,
    pub p90_ns: u64,
    pub p99_ns: u64,
    pub p999_ns: u64,
    pub max_ns: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_summary() {
        let mut h = LatencyHistogram::default();
        for v in 1..=1000u64 {
            h.record(v * 1000);
        }
        let s = h.summary();
        assert_eq!(s.count, 1000);
        assert_eq!(s.sum_ns, 500_500_000);
        assert!((s.p50_ns as f64 - 500_000.0).abs() / 500_000.0 < 0.01);
        assert!(s.max_ns >= 999_000);
        h.clear();
        assert_eq!(h.summary().count, 0);
    }

    #[test]
    fn values_past_an_hour_are_kept_not_clipped() {
        let hour = 3_600_000_000_000u64;
        let mut h = LatencyHistogram::default();
        for v in [3 * hour, 3 * hour, 5 * hour, u64::MAX / 2] {
            h.record(v);
        }
        let s = h.summary();
        let near = |got: u64, want: u64| (got as f64 - want as f64).abs() / (want as f64) < 0.001;
        assert!(near(s.p50_ns, 3 * hour), "p50 {}", s.p50_ns);
        assert!(near(s.max_ns, u64::MAX / 2), "max {}", s.max_ns);
        assert!(s.p50_ns as f64 <= s.mean_ns, "the median is not above the mean here");
    }
}
