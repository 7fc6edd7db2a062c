//! Whether an open-loop replay was saturated: the trace offered more work than the system
//! could serve, so its queue never emptied and every request waited longer than the one before.
//! A saturated run's response times measure how long the trace is, not the system: they grow
//! with the trace's length and mean nothing beside a paper's. The test is declared here, once,
//! for every system and every caller (tables, the report, the reproduction scorecard).
//!
//! The rule: over the measured requests, the last one that found the system idle (nothing
//! queued or in service when it arrived) came within the first quarter, so the queue stayed
//! non-empty for at least the last three quarters of the replay; and either the mean wait rose
//! from each quarter of the measured requests to the next, from the second on, or the work
//! left queued at the last arrival took more than a quarter of the arrivals' span to finish
//! (the backlog at the end). The second arm catches a drive that reorders its queue: serving
//! the nearest command first starts some requests at once however long the queue, so the mean
//! wait of a quarter need not rise while the backlog does (HWSR with only the SSD cache on
//! Financial1 finished 7.8 times after its trace's end with quarters that did not rise). A run
//! with a burst that drains, or with a load near but below what the system serves, empties its
//! queue again, stops rising and ends soon after its last arrival, and is not saturated.
//! Closed-loop replays have no queue and no verdict.
//! Not here: measuring the waits (the engine hands them over) or showing the verdict.

use serde::{Deserialize, Serialize};

/// The backlog at the end that makes a busy run saturated: the time from the last arrival to
/// the last completion, as a share of the time from the first measured arrival to the last.
/// Our choice (no paper defines saturation): long past the tail of a busy but stable run.
const BACKLOG_SHARE: f64 = 0.25;

/// When the measured requests arrived and when the last one finished (ns of simulated time).
#[derive(Clone, Copy, Debug, Default)]
pub struct ReplaySpan {
    pub first_arrival_ns: u64,
    pub last_arrival_ns: u64,
    pub end_ns: u64,
}

/// How many blocks of requests the wait profile keeps at most: enough to cut the measured
/// requests into quarters to within 1/32 of their number, in constant memory.
const MAX_BLOCKS: usize = 64;

/// The verdict on one open-loop replay, with the figures it rests on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Saturation {
    pub saturated: bool,
    /// The share of the measured requests that came after the last one to find the system idle
    /// (1 when none did).
    pub busy_tail: f64,
    /// The mean wait (arrival to start of service, ns) of each quarter of the measured requests.
    pub wait_quarters_ns: [f64; 4],
    /// The time from the last arrival to the last completion over the arrivals' span.
    #[serde(default)]
    pub backlog_share: f64,
}

/// Gathers what the verdict needs while the engine replays: which request last found the
/// system idle, and the waits of the measured requests summed over blocks of consecutive
/// requests (block size doubling as the replay goes on, so memory stays constant).
#[derive(Default)]
pub(crate) struct SaturationWatch {
    /// The index (from 0, warm-up included) of the last request that found the system idle.
    last_idle: Option<u64>,
    block_len: u64,
    /// (requests, summed wait in ns) per block, oldest first; the last one may be partial.
    blocks: Vec<(u64, u128)>,
}

impl SaturationWatch {
    pub fn new() -> Self {
        SaturationWatch { last_idle: None, block_len: 1, blocks: Vec::with_capacity(MAX_BLOCKS) }
    }

    /// Request `index` (from 0, warm-up included) arrived to find nothing queued or in service.
    #[inline]
    pub fn found_idle(&mut self, index: u64) {
        self.last_idle = Some(index);
    }

    /// A measured request waited `wait_ns` before its service began.
    #[inline]
    pub fn waited(&mut self, wait_ns: u64) {
        match self.blocks.last_mut() {
            Some((n, sum)) if *n < self.block_len => {
                *n += 1;
                *sum += u128::from(wait_ns);
            }
            _ => {
                if self.blocks.len() == MAX_BLOCKS {
                    self.halve();
                }
                self.blocks.push((1, u128::from(wait_ns)));
            }
        }
    }

    /// Merges neighbouring blocks pairwise and doubles the block length.
    fn halve(&mut self) {
        let merged =
            self.blocks.chunks(2).map(|pair| pair.iter().fold((0, 0), |(n, s), (bn, bs)| (n + bn, s + bs))).collect();
        self.blocks = merged;
        self.block_len *= 2;
    }

    /// The verdict over the `measured` requests that followed `warmup` unmeasured ones, which
    /// arrived and finished over `span`.
    pub fn verdict(&self, warmup: u64, measured: u64, span: ReplaySpan) -> Saturation {
        if measured == 0 {
            return Saturation::default();
        }
        let after_last_idle = match self.last_idle {
            Some(index) => (warmup + measured).saturating_sub(index + 1),
            None => measured,
        };
        let busy_tail = after_last_idle.min(measured) as f64 / measured as f64;
        let wait_quarters_ns = self.quarter_means(measured);
        let rising = wait_quarters_ns[1] < wait_quarters_ns[2] && wait_quarters_ns[2] < wait_quarters_ns[3];
        let arrivals_ns = span.last_arrival_ns.saturating_sub(span.first_arrival_ns);
        let backlog_share = if arrivals_ns == 0 {
            0.0
        } else {
            span.end_ns.saturating_sub(span.last_arrival_ns) as f64 / arrivals_ns as f64
        };
        let saturated = busy_tail >= 0.75 && (rising || backlog_share > BACKLOG_SHARE);
        Saturation { saturated, busy_tail, wait_quarters_ns, backlog_share }
    }

    /// The mean wait of each quarter of the requests, each block counted in the quarter its
    /// first request falls in.
    fn quarter_means(&self, measured: u64) -> [f64; 4] {
        let mut sums = [(0u64, 0u128); 4];
        let mut start = 0u64;
        for &(n, sum) in &self.blocks {
            let quarter = ((start * 4) / measured).min(3) as usize;
            sums[quarter].0 += n;
            sums[quarter].1 += sum;
            start += n;
        }
        sums.map(|(n, sum)| if n == 0 { 0.0 } else { sum as f64 / n as f64 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn watch(waits: impl IntoIterator<Item = u64>, idle_at: &[u64]) -> SaturationWatch {
        let mut w = SaturationWatch::new();
        for (index, wait) in waits.into_iter().enumerate() {
            if idle_at.contains(&(index as u64)) {
                w.found_idle(index as u64);
            }
            w.waited(wait);
        }
        w
    }

    /// Arrivals over one second and the last completion right after the last arrival.
    const PROMPT: ReplaySpan =
        ReplaySpan { first_arrival_ns: 0, last_arrival_ns: 1_000_000_000, end_ns: 1_000_000_000 };

    #[test]
    fn a_queue_that_grows_for_the_whole_replay_is_saturated() {
        // Offered load 1.5 times what is served: request i waits 0.5 i service times.
        let w = watch((0..10_000).map(|i| i * 500), &[0]);
        let s = w.verdict(0, 10_000, PROMPT);
        assert!(s.saturated, "{s:?}");
        assert!(s.busy_tail > 0.99);
        // Quarter means of a linear ramp: about 1/8, 3/8, 5/8, 7/8 of the last wait.
        let last = 9_999.0 * 500.0;
        for (q, mean) in s.wait_quarters_ns.iter().enumerate() {
            let expected = last * (2 * q + 1) as f64 / 8.0;
            assert!((mean - expected).abs() < last * 0.02, "quarter {q}: {mean} against {expected}");
        }
    }

    #[test]
    fn a_queue_that_empties_late_in_the_replay_is_not_saturated() {
        let w = watch((0..10_000).map(|i| i * 500), &[0, 5_000]);
        let s = w.verdict(0, 10_000, PROMPT);
        assert!(!s.saturated);
        assert!((s.busy_tail - 0.4999).abs() < 1e-3, "{s:?}");
    }

    #[test]
    fn a_busy_queue_whose_waits_stop_rising_is_not_saturated() {
        // Never idle, but the waits level off: a load at what the system serves.
        let w = watch((0..10_000).map(|i| (i.min(4_000)) * 500), &[0]);
        assert!(!w.verdict(0, 10_000, PROMPT).saturated);
    }

    #[test]
    fn a_busy_queue_whose_waits_do_not_rise_but_that_ends_with_a_backlog_is_saturated() {
        // A drive serving the nearest command first: quarters' waits level, the queue growing.
        let w = watch((0..10_000).map(|i| (i.min(4_000)) * 500), &[0]);
        let late = |end_s: f64| ReplaySpan { end_ns: (end_s * 1e9) as u64, ..PROMPT };
        let s = w.verdict(0, 10_000, late(7.8));
        assert!(s.saturated && (s.backlog_share - 6.8).abs() < 1e-9, "{s:?}");
        assert!(!w.verdict(0, 10_000, late(1.2)).saturated, "a fifth of the span to drain is not a backlog");
        // Idle late in the replay: the backlog at the end alone does not make it saturated.
        let drained = watch((0..10_000).map(|i| (i.min(4_000)) * 500), &[0, 5_000]);
        assert!(!drained.verdict(0, 10_000, late(7.8)).saturated);
    }

    #[test]
    fn warm_up_requests_are_outside_the_quarters() {
        // 1,000 warm-up requests found the system idle; the 9,000 measured ones never did.
        let mut w = SaturationWatch::new();
        w.found_idle(999);
        for i in 0..9_000u64 {
            w.waited(i * 100);
        }
        let s = w.verdict(1_000, 9_000, PROMPT);
        assert!(s.saturated && s.busy_tail == 1.0, "{s:?}");
    }

    #[test]
    fn memory_stays_constant_and_sums_are_kept() {
        let mut w = SaturationWatch::new();
        for _ in 0..1_000_003u64 {
            w.waited(7);
        }
        assert!(w.blocks.len() <= MAX_BLOCKS);
        assert_eq!(w.blocks.iter().map(|b| b.0).sum::<u64>(), 1_000_003);
        assert_eq!(w.blocks.iter().map(|b| b.1).sum::<u128>(), 7 * 1_000_003);
        assert_eq!(w.verdict(0, 1_000_003, PROMPT).wait_quarters_ns, [7.0; 4]);
    }
}
