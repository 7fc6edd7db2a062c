//! Gauges over time: samples a system's point-in-time values (the live fraction of a log, the
//! occupancy of a cache, ...) evenly over a run whose length is not known in advance.
//!
//! The sampler starts by sampling after every request; whenever it holds twice the target
//! number of samples it keeps every other one and doubles its interval, so a run of any length
//! ends with between `target` and `2 * target` samples, all at multiples of one interval (in
//! requests), plus the state at the end. Sampling costs one `System::gauges` call per sample,
//! never per request. A series is summarised by each gauge's mean over trace time and its
//! maximum (uCache Fig. 1: the mean live fraction of the E-region log). Not here: the
//! per-interval request totals (`report::SeriesPoint`).

use serde::{Deserialize, Serialize};

use super::metrics::Gauges;
use super::system::System;

/// One sample: the gauges after request number `request` (counted from 1, warm-up included).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GaugeSample {
    pub request: u64,
    /// Simulated time when the request completed.
    pub sim_ns: u64,
    /// The request's trace time, from the first request of the trace.
    pub trace_ns: u64,
    /// One value per name in `GaugeSeries::names`.
    pub values: Vec<f64>,
}

/// The sampled gauges of a run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GaugeSeries {
    pub names: Vec<String>,
    /// Requests between consecutive samples at the end of the run (the last sample is the end).
    pub every_requests: u64,
    pub samples: Vec<GaugeSample>,
}

impl GaugeSeries {
    /// Each gauge's mean over trace time and its maximum, as (name, mean, max). A sample's value
    /// stands for the trace time since the sample before it; if the trace has no time (all
    /// timestamps equal), samples weigh equally.
    pub fn summaries(&self) -> Vec<(&str, f64, f64)> {
        if self.samples.is_empty() {
            return Vec::new();
        }
        let previous = std::iter::once(0).chain(self.samples.iter().map(|s| s.trace_ns));
        let mut weights: Vec<u64> = self.samples.iter().zip(previous).map(|(s, before)| s.trace_ns - before).collect();
        if weights.iter().sum::<u64>() == 0 {
            weights.iter_mut().for_each(|w| *w = 1);
        }
        let total = weights.iter().sum::<u64>() as f64;
        let column = |i: usize| self.samples.iter().map(move |s| s.values[i]);
        self.names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let weighted = column(i).zip(&weights).fold(0.0, |sum, (v, &w)| sum + v * w as f64);
                (name.as_str(), weighted / total, column(i).fold(f64::NEG_INFINITY, f64::max))
            })
            .collect()
    }
}

pub(crate) struct GaugeSampler {
    target: usize,
    series: GaugeSeries,
    scratch: Gauges,
}

impl GaugeSampler {
    /// A sampler keeping about `target` samples; `None` when `target` is 0 (no sampling).
    pub fn new(target: u32) -> Option<Self> {
        (target > 0).then(|| GaugeSampler {
            target: target as usize,
            series: GaugeSeries { every_requests: 1, ..Default::default() },
            scratch: Gauges::default(),
        })
    }

    /// Called after each request; samples when `request` is a multiple of the interval.
    pub fn after_request(&mut self, system: &dyn System, request: u64, sim_ns: u64, trace_ns: u64) {
        if request.is_multiple_of(self.series.every_requests) {
            self.sample(system, request, sim_ns, trace_ns);
            if self.series.samples.len() >= 2 * self.target {
                let every = self.series.every_requests * 2;
                self.series.samples.retain(|s| s.request % every == 0);
                self.series.every_requests = every;
            }
        }
    }

    /// The series, with the state after the last request as its last sample.
    pub fn finish(mut self, system: &dyn System, request: u64, sim_ns: u64, trace_ns: u64) -> GaugeSeries {
        if request > 0 && self.series.samples.last().map(|s| s.request) != Some(request) {
            self.sample(system, request, sim_ns, trace_ns);
        }
        self.series
    }

    fn sample(&mut self, system: &dyn System, request: u64, sim_ns: u64, trace_ns: u64) {
        self.scratch.clear();
        system.gauges(&mut self.scratch);
        if self.series.names.is_empty() {
            self.series.names = self.scratch.iter().map(|(metric, _)| metric.name.to_string()).collect();
        }
        let values = self.scratch.iter().map(|(_, v)| v).collect();
        self.series.samples.push(GaugeSample { request, sim_ns, trace_ns, values });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::SimError;
    use crate::ioctx::IoCtx;
    use crate::metrics::{Counters, Metric, Unit};
    use smr_core::Request;

    static SERVED: Metric = Metric::new("served", Unit::Count, "requests served");

    /// Its gauge is the number of requests it has served.
    struct Counting(u64);

    impl System for Counting {
        fn submit(&mut self, _req: &Request, _ctx: &mut IoCtx) -> Result<(), SimError> {
            self.0 += 1;
            Ok(())
        }
        fn capacity(&self) -> u64 {
            u64::MAX
        }
        fn counters(&self, _out: &mut Counters) {}
        fn gauges(&self, out: &mut Gauges) {
            out.set(&SERVED, self.0 as f64);
        }
    }

    fn sample_run(target: u32, requests: u64) -> GaugeSeries {
        let mut system = Counting(0);
        let mut sampler = GaugeSampler::new(target).unwrap();
        for r in 1..=requests {
            system.0 = r;
            sampler.after_request(&system, r, r * 10, r * 100);
        }
        sampler.finish(&system, requests, requests * 10, requests * 100)
    }

    #[test]
    fn samples_stay_between_target_and_twice_target_at_even_spacing() {
        for requests in [1u64, 7, 16, 100, 1000, 1024, 12_345] {
            let s = sample_run(8, requests);
            assert_eq!(s.names, ["served"]);
            let regular: Vec<&GaugeSample> = s.samples.iter().filter(|x| x.request % s.every_requests == 0).collect();
            if requests >= 16 {
                assert!((8..16).contains(&regular.len()), "{requests}: {} samples", regular.len());
            }
            for (i, sample) in regular.iter().enumerate() {
                assert_eq!(sample.request, (i as u64 + 1) * s.every_requests, "{requests}");
                assert_eq!(sample.values, [sample.request as f64]);
                assert_eq!((sample.sim_ns, sample.trace_ns), (sample.request * 10, sample.request * 100));
            }
            assert!(s.samples.len() - regular.len() <= 1, "only the end may fall between");
            assert_eq!(s.samples.last().unwrap().request, requests, "the end is sampled");
        }
    }

    #[test]
    fn zero_target_means_no_sampler() {
        assert!(GaugeSampler::new(0).is_none());
    }

    #[test]
    fn summaries_weigh_samples_by_trace_time() {
        let sample = |request, trace_ns, value| GaugeSample { request, sim_ns: 0, trace_ns, values: vec![value] };
        let mut series = GaugeSeries {
            names: vec!["g".into()],
            every_requests: 1,
            samples: vec![sample(1, 1, 1.0), sample(2, 4, 0.0)],
        };
        assert_eq!(series.summaries(), [("g", 0.25, 1.0)]);
        series.samples.iter_mut().for_each(|s| s.trace_ns = 0);
        assert_eq!(series.summaries(), [("g", 0.5, 1.0)], "without trace time, samples weigh equally");
        assert!(GaugeSeries::default().summaries().is_empty());
    }
}
