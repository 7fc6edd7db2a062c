//! The replay engine: drives a request stream through a `System` and measures it.
//!
//! Closed loop: queue depth 1, each request starts when the previous one completes; trace
//! timestamps are ignored and the result is the total I/O time (as the PORE and FluidSMR papers
//! measure). Open loop: requests arrive at their trace time (divided by `speedup`), wait in one
//! FIFO queue, and their response time is waiting + service; gaps are offered to the system for
//! background work in quanta (`System::idle`), and a started quantum finishes before the next
//! request is served. Not here: building systems from names (`registry`) or reading files.

use serde::{Deserialize, Serialize};
use smr_core::metrics::{Counters, LatencyHistogram, LatencySummary};
use smr_core::trace::TraceError;
use smr_core::Request;

use crate::error::SimError;
use crate::gauge_series::{GaugeSampler, GaugeSeries};
use crate::ioctx::{ChannelReport, ChannelStats, IoCtx};
use crate::system::System;

/// How requests are issued.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ReplayMode {
    /// Back to back at queue depth 1.
    Closed,
    /// At trace time divided by `speedup` (1.0 = real time).
    Open { speedup: f64 },
}

/// Everything that shapes a replay apart from the system and the trace.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EngineConfig {
    pub mode: ReplayMode,
    /// Requests at the start whose effects are simulated but not measured.
    pub warmup_requests: u64,
    /// Trace time (ns from the first request) before which requests are not measured.
    pub warmup_ns: u64,
    /// Open loop: whether idle gaps are offered to the system for background work.
    pub idle_work: bool,
    /// If non-zero, a time series point is kept for every this many ns of simulated time.
    pub series_interval_ns: u64,
    /// The progress callback is called every this many requests (0: never).
    pub progress_every: u64,
    /// If non-zero, the system's gauges are sampled about this many times, evenly over the
    /// requests (warm-up included), into `RunReport::gauge_series`.
    #[serde(default)]
    pub gauge_samples: u32,
}

impl Default for EngineConfig {
    fn default() -> Self {
        EngineConfig {
            mode: ReplayMode::Closed,
            warmup_requests: 0,
            warmup_ns: 0,
            idle_work: true,
            series_interval_ns: 0,
            progress_every: 1 << 20,
            gauge_samples: 0,
        }
    }
}

/// One point of the optional time series: what completed in `[t_ns, t_ns + interval)`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SeriesPoint {
    pub t_ns: u64,
    pub requests: u64,
    pub io_ns: u64,
    pub response_ns_sum: u64,
}

/// Totals for one kind of host request.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OpTotals {
    pub requests: u64,
    pub bytes: u64,
    /// Sum of service times (closed loop: this is the paper's "I/O time").
    pub io_ns: u64,
    pub service: LatencySummary,
    /// Waiting + service (equal to service in closed loop).
    pub response: LatencySummary,
}

/// What a replay measured, excluding warm-up. Serialisable into the result file.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RunReport {
    pub requests: u64,
    pub warmup_requests: u64,
    pub read: OpTotals,
    pub write: OpTotals,
    pub trim: OpTotals,
    /// Total I/O time: the sum of service times of all measured requests.
    pub total_io_ns: u64,
    /// Simulated time from the first measured request's start to the last completion.
    pub makespan_ns: u64,
    /// Time spent on background work offered in idle gaps (open loop).
    pub idle_work_ns: u64,
    pub channels: Vec<ChannelReport>,
    pub counters: Counters,
    pub gauges: Vec<(String, f64)>,
    pub series: Vec<SeriesPoint>,
    /// The system's gauges over the run (empty unless `EngineConfig::gauge_samples` is set).
    pub gauge_series: GaugeSeries,
    /// True if the progress callback asked to stop before the trace ended.
    pub cancelled: bool,
}

/// Progress as reported to the callback.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub requests: u64,
    pub sim_time_ns: u64,
}

#[derive(Default)]
struct OpAccumulator {
    requests: u64,
    bytes: u64,
    io_ns: u64,
    service: LatencyHistogram,
    response: LatencyHistogram,
}

impl OpAccumulator {
    /// `queued` is false in closed loop, where response time equals service time and only one
    /// histogram is kept.
    fn add(&mut self, bytes: u64, service: u64, response: u64, queued: bool) {
        self.requests += 1;
        self.bytes += bytes;
        self.io_ns += service;
        self.service.record(service);
        if queued {
            self.response.record(response);
        }
    }

    fn totals(&self, queued: bool) -> OpTotals {
        let service = self.service.summary();
        OpTotals {
            requests: self.requests,
            bytes: self.bytes,
            io_ns: self.io_ns,
            response: if queued { self.response.summary() } else { service.clone() },
            service,
        }
    }
}

/// What is subtracted at the end of warm-up.
struct Baseline {
    counters: Counters,
    channels: Vec<ChannelStats>,
    idle_work_ns: u64,
    start_ns: u64,
}

/// Replays requests through a system. See the module documentation for the two modes.
pub struct Engine<'p> {
    config: EngineConfig,
    progress: Option<Box<dyn FnMut(Progress) -> bool + 'p>>,
}

impl<'p> Engine<'p> {
    pub fn new(config: EngineConfig) -> Self {
        Engine { config, progress: None }
    }

    /// Called every `progress_every` requests; returning false cancels the run.
    pub fn on_progress(mut self, f: impl FnMut(Progress) -> bool + 'p) -> Self {
        self.progress = Some(Box::new(f));
        self
    }

    /// Replays `requests` through `system` on the media in `ctx`.
    pub fn run<I>(&mut self, system: &mut dyn System, ctx: &mut IoCtx, requests: I) -> Result<RunReport, SimError>
    where
        I: IntoIterator<Item = Result<Request, TraceError>>,
    {
        let speedup = match self.config.mode {
            ReplayMode::Closed => None,
            ReplayMode::Open { speedup } => {
                if !(speedup > 0.0 && speedup.is_finite()) {
                    return Err(smr_core::ParamError::new("speedup", "must be a positive number").into());
                }
                Some(speedup)
            }
        };
        let mut ops: [OpAccumulator; 3] = Default::default();
        let mut series: Vec<SeriesPoint> = Vec::new();
        let mut baseline: Option<Baseline> = None;
        let mut first_time: Option<u64> = None;
        let mut seen = 0u64;
        let mut idle_work_ns = 0u64;
        let mut cancelled = false;
        // Counts down to the next progress call (no division per request).
        let mut until_progress = self.config.progress_every;
        let mut sampler = GaugeSampler::new(self.config.gauge_samples);
        let mut last_trace_offset = 0u64;

        for item in requests {
            let req = item?;
            let t0 = *first_time.get_or_insert(req.time_ns);
            let trace_offset = req.time_ns.saturating_sub(t0);
            let arrival = match speedup {
                None => ctx.now(),
                Some(s) => (trace_offset as f64 / s) as u64,
            };
            if baseline.is_none() && seen >= self.config.warmup_requests && trace_offset >= self.config.warmup_ns {
                let mut counters = Counters::default();
                system.counters(&mut counters);
                baseline = Some(Baseline {
                    counters,
                    channels: ctx.channel_reports().iter().map(|c| c.stats).collect(),
                    idle_work_ns,
                    start_ns: ctx.now().max(arrival),
                });
            }
            if speedup.is_some() && ctx.now() < arrival {
                if self.config.idle_work {
                    while ctx.now() < arrival {
                        let before = ctx.now();
                        if !system.idle(ctx, arrival)? {
                            break;
                        }
                        idle_work_ns += ctx.now() - before;
                    }
                }
                ctx.advance_to(arrival);
            }
            let start = ctx.now();
            system.submit(&req, ctx).map_err(|e| match e {
                // Systems do not know the request's place in the trace; the engine does.
                SimError::OutOfRange { offset, len, capacity, .. } => SimError::OutOfRange { index: seen + 1, offset, len, capacity },
                other => other,
            })?;
            let end = ctx.now();
            seen += 1;
            last_trace_offset = trace_offset;
            if let Some(s) = sampler.as_mut() {
                s.after_request(&*system, seen, end, trace_offset);
            }
            if baseline.is_some() {
                let service = end - start;
                let response = end - arrival;
                ops[req.op as usize].add(req.len, service, response, speedup.is_some());
                if let Some(slot) = end.checked_div(self.config.series_interval_ns) {
                    let slot = slot as usize;
                    if series.len() <= slot {
                        series.resize_with(slot + 1, SeriesPoint::default);
                    }
                    let p = &mut series[slot];
                    p.t_ns = slot as u64 * self.config.series_interval_ns;
                    p.requests += 1;
                    p.io_ns += service;
                    p.response_ns_sum += response;
                }
            }
            until_progress = until_progress.wrapping_sub(1);
            if until_progress == 0 {
                until_progress = self.config.progress_every;
                if let Some(cb) = self.progress.as_mut() {
                    if !cb(Progress { requests: seen, sim_time_ns: ctx.now() }) {
                        cancelled = true;
                        break;
                    }
                }
            }
        }

        let mut counters = Counters::default();
        system.counters(&mut counters);
        let mut gauges = Vec::new();
        system.gauges(&mut gauges);
        let gauge_series = sampler.map(|s| s.finish(&*system, seen, ctx.now(), last_trace_offset)).unwrap_or_default();
        let mut channels = ctx.channel_reports();
        let base = baseline.unwrap_or(Baseline {
            counters: counters.clone(),
            channels: channels.iter().map(|c| c.stats).collect(),
            idle_work_ns,
            start_ns: ctx.now(),
        });
        for (c, b) in channels.iter_mut().zip(&base.channels) {
            c.stats = c.stats.since(b);
        }
        let [read, write, trim] = &ops;
        Ok(RunReport {
            requests: read.requests + write.requests + trim.requests,
            warmup_requests: seen - (read.requests + write.requests + trim.requests),
            total_io_ns: read.io_ns + write.io_ns + trim.io_ns,
            read: read.totals(speedup.is_some()),
            write: write.totals(speedup.is_some()),
            trim: trim.totals(speedup.is_some()),
            makespan_ns: ctx.now() - base.start_ns,
            idle_work_ns: idle_work_ns - base.idle_work_ns,
            channels,
            counters: counters.since(&base.counters),
            gauges,
            series,
            gauge_series,
            cancelled,
        })
    }
}

/// Convenience for tests and the known-answer checks: requests without errors.
pub fn ok_requests(reqs: &[Request]) -> impl Iterator<Item = Result<Request, TraceError>> + '_ {
    reqs.iter().map(|r| Ok(*r))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ioctx::ChannelId;
    use smr_core::Op;
    use smr_core::media::FixedLatencyMedium;

    /// A system that serves each request with one SSD access and has `backlog` idle quanta of
    /// 1 ms each to do.
    struct Toy {
        ch: ChannelId,
        backlog: u32,
        served: u64,
    }

    impl System for Toy {
        fn submit(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError> {
            ctx.io(self.ch, req.op, req.offset, req.len);
            self.served += 1;
            Ok(())
        }
        fn idle(&mut self, ctx: &mut IoCtx, _until: u64) -> Result<bool, SimError> {
            if self.backlog == 0 {
                return Ok(false);
            }
            self.backlog -= 1;
            ctx.advance_to(ctx.now() + 1_000_000);
            Ok(true)
        }
        fn counters(&self, out: &mut Counters) {
            out.add("served", self.served);
        }
    }

    fn toy(backlog: u32) -> (Toy, IoCtx) {
        let mut ctx = IoCtx::new();
        let d = ctx.add_device("ssd", Box::new(FixedLatencyMedium::ssd(1 << 30)));
        let ch = ctx.channel(d, "ssd");
        (Toy { ch, backlog, served: 0 }, ctx)
    }

    fn reqs() -> Vec<Request> {
        (0..10).map(|i| Request::new(i * 10_000_000, if i % 2 == 0 { Op::Write } else { Op::Read }, i * 4096, 4096)).collect()
    }

    #[test]
    fn closed_loop_total_is_sum_of_services() {
        let (mut sys, mut ctx) = toy(0);
        let r = Engine::new(EngineConfig::default()).run(&mut sys, &mut ctx, ok_requests(&reqs())).unwrap();
        let w = 65_000 + 8_905; // 4096 B at 460 MB/s, rounded up
        let rd = 50_000 + 8_192;
        assert_eq!(r.write.io_ns, 5 * w);
        assert_eq!(r.read.io_ns, 5 * rd);
        assert_eq!(r.total_io_ns, r.makespan_ns);
        assert_eq!(r.counters.get("served"), 10);
        // The per-op latency summaries hold every request's exact service time.
        assert_eq!((r.read.service.count, r.read.service.sum_ns), (5, 5 * rd));
        assert_eq!((r.write.service.count, r.write.service.sum_ns), (5, 5 * w));
    }

    #[test]
    fn warmup_is_excluded_from_everything() {
        let (mut sys, mut ctx) = toy(0);
        let cfg = EngineConfig { warmup_requests: 4, ..Default::default() };
        let r = Engine::new(cfg).run(&mut sys, &mut ctx, ok_requests(&reqs())).unwrap();
        assert_eq!(r.requests, 6);
        assert_eq!(r.warmup_requests, 4);
        assert_eq!(r.counters.get("served"), 6);
        assert_eq!(r.channels[0].stats.reads + r.channels[0].stats.writes, 6);
    }

    #[test]
    fn open_loop_queues_and_uses_idle_time_in_whole_quanta() {
        // Requests every 10 ms; the backlog of 25 quanta of 1 ms each overruns one gap: a quantum
        // that starts before an arrival finishes, so that request waits.
        let (mut sys, mut ctx) = toy(25);
        let cfg = EngineConfig { mode: ReplayMode::Open { speedup: 1.0 }, ..Default::default() };
        let r = Engine::new(cfg).run(&mut sys, &mut ctx, ok_requests(&reqs())).unwrap();
        assert_eq!(r.idle_work_ns, 25_000_000);
        assert!(r.write.response.max_ns > r.write.service.max_ns, "a request waited behind a quantum");
        // Speeding up 1000x makes requests arrive faster than they are served: waiting grows.
        let (mut sys, mut ctx) = toy(0);
        let cfg = EngineConfig { mode: ReplayMode::Open { speedup: 1e6 }, ..Default::default() };
        let r = Engine::new(cfg).run(&mut sys, &mut ctx, ok_requests(&reqs())).unwrap();
        assert!(r.read.response.mean_ns > r.read.service.mean_ns);
    }

    #[test]
    fn progress_can_cancel() {
        let (mut sys, mut ctx) = toy(0);
        let cfg = EngineConfig { progress_every: 3, ..Default::default() };
        let mut calls = 0;
        let r = Engine::new(cfg)
            .on_progress(|p| {
                calls += 1;
                p.requests < 6
            })
            .run(&mut sys, &mut ctx, ok_requests(&reqs()))
            .unwrap();
        assert!(r.cancelled);
        assert_eq!(r.requests, 6);
        assert_eq!(calls, 2);
    }

    #[test]
    fn out_of_range_errors_name_the_request() {
        let mut ctx = IoCtx::new();
        let footprint = smr_core::trace::Footprint { max_end: 1 << 20, ..Default::default() };
        let mut params = smr_core::Params::parse(&["disk=desktop7200"]).unwrap();
        let mut sys = crate::cmr::Cmr::build(&mut crate::registry::BuildContext { params: &mut params, footprint, seed: 0, ctx: &mut ctx }).unwrap();
        let reqs = [Request::new(0, Op::Read, 0, 4096), Request::new(1, Op::Read, 1 << 41, 4096)];
        let err = Engine::new(EngineConfig::default()).run(&mut sys, &mut ctx, ok_requests(&reqs)).unwrap_err();
        assert!(err.to_string().starts_with("request #2 "), "{err}");
    }

    #[test]
    fn trace_errors_stop_the_run() {
        let (mut sys, mut ctx) = toy(0);
        let items = vec![Ok(Request::new(0, Op::Read, 0, 4096)), Err(TraceError::malformed("t.csv", 2, "bad"))];
        let err = Engine::new(EngineConfig::default()).run(&mut sys, &mut ctx, items).unwrap_err();
        assert!(err.to_string().contains("t.csv:2"));
    }
}
