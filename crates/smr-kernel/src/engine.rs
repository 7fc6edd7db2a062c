//! The replay engine: drives a request stream through a `System` and measures it.
//!
//! Closed loop: queue depth 1, each request starts when the previous one completes; trace
//! timestamps are ignored and the result is the total I/O time (as the PORE and FluidSMR papers
//! measure). A closed loop may instead keep `iodepth` requests in flight, issuing the next as
//! soon as fewer are (as fio replays a trace at an iodepth, the uCache paper's replay): the
//! requests overlap at the drive's command queue (`overlapped`), so the replay's time is its
//! makespan, not the sum of the requests' service times. Open loop: requests arrive at their trace time (divided by `speedup`), wait in one
//! FIFO queue, and their response time is waiting + service; gaps are offered to the system for
//! background work in quanta (`System::idle`), and a started quantum finishes before the next
//! request is served.
//!
//! Each request passes through named steps: `arrive` (its arrival time, and the end of
//! warm-up), `idle` (background work until it arrives), `serve` (range check, then the
//! system), `measure` (totals, histograms, series, gauge samples) and, after the last one,
//! `finish` (the report, warm-up subtracted). The engine reads two requests ahead of the one it
//! serves and names them to the system (`System::prefetch`), a hint that changes no result. An
//! open-loop replay also tells `saturation` which requests found the system idle and how long
//! each measured one waited, for the report's verdict on whether the run was saturated.
//! Systems whose requests may overlap are replayed overlapped in an open loop on devices that
//! queue, and whenever they have background work (`overlapped`). A `Session` runs the same
//! steps on requests its caller hands over one at a time, each after seeing how long the one
//! before took (a host probing a device). Not here: building systems (`build`) or reading files.

use serde::{Deserialize, Serialize};
use smr_core::Request;
use smr_trace::TraceError;

use super::error::SimError;
use super::gauge_series::GaugeSampler;
use super::ioctx::{ChannelStats, IoCtx};
use super::metrics::{Counters, Gauges};
mod options;
mod overlapped;

pub use options::{EngineOptions, MAX_SECONDS, PROGRESS_EVERY};

use super::report::{OpAccumulator, RunReport, SeriesPoint};
use super::saturation::{ReplaySpan, SaturationWatch};
use super::system::System;
use overlapped::Overlapped;

/// How requests are issued.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum ReplayMode {
    /// Back to back at queue depth 1.
    Closed,
    /// At trace time divided by `speedup` (1.0 = real time).
    Open { speedup: f64 },
}

/// The most gauge samples a run keeps (`EngineConfig::gauge_samples`): far more points than a
/// figure shows, few enough that a run's result stays a file one can open.
pub const MAX_GAUGE_SAMPLES: u32 = 1_000_000;

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
    /// Closed loop: requests kept in flight, the next issued as soon as fewer are (fio's
    /// iodepth; 1 to `MAX_IODEPTH`, 1: each request after the one before it completes). Above
    /// 1 the system's requests must be able to overlap (`System::concurrency`).
    #[serde(default = "one")]
    pub iodepth: u32,
}

fn one() -> u32 {
    1
}

/// The most requests a closed-loop replay keeps in flight (`EngineConfig::iodepth`): far more
/// than any drive's command queue holds (`smr_media::MAX_QUEUE_DEPTH`).
pub const MAX_IODEPTH: u32 = 65_536;

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
            iodepth: 1,
        }
    }
}

/// Progress as reported to the callback.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    pub requests: u64,
    pub sim_time_ns: u64,
    /// True while the runner's first pass measures the trace's footprint (no simulated time yet).
    pub first_pass: bool,
}

/// The latest simulated time a replay may reach: 2^63 ns (292 years). An open-loop arrival past
/// it (a tiny speed-up) is an error rather than a clock that saturates or wraps.
pub const MAX_SIM_NS: u64 = 1 << 63;

/// The most points a time series may have: a smaller `series_interval_ns` is refused when the
/// run reaches this many instead of growing the series without bound.
pub const MAX_SERIES_POINTS: u64 = 1 << 20;

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
        let mut replay = Replay::new(&self.config, system.capacity())?;
        let mut overlapped = Overlapped::wanted(&*system, ctx, &self.config)?;
        // Counts down to the next progress call (no division per request).
        let mut until_progress = self.config.progress_every;
        // Two requests read ahead, so the system can prefetch for them while it serves this one.
        let mut requests = requests.into_iter();
        let (mut next, mut after_next) = (requests.next(), requests.next());
        // The request being served, from 1: a policy's failure is reported at it.
        let mut index = 0;
        while let Some(item) = next {
            let req = item?;
            index += 1;
            (next, after_next) = (after_next, requests.next());
            if let Some(Ok(later)) = &after_next {
                system.prefetch(later, 2);
            }
            if let Some(Ok(later)) = &next {
                system.prefetch(later, 1);
            }
            replay.step(overlapped.as_mut(), system, ctx, &req, index)?;
            until_progress = until_progress.wrapping_sub(1);
            if until_progress == 0 {
                until_progress = self.config.progress_every;
                if let Some(cb) = self.progress.as_mut() {
                    if !cb(Progress { requests: replay.seen, sim_time_ns: ctx.now(), first_pass: false }) {
                        replay.cancelled = true;
                        break;
                    }
                }
            }
        }
        if let Some(o) = overlapped {
            o.finish(&mut replay, system, ctx).map_err(|e| e.at_request(index))?;
        }
        let report = replay.finish(&*system, ctx);
        if report.requests == 0 && report.warmup_requests > 0 && !report.cancelled {
            return Err(SimError::NothingMeasured(format!(
                "all {} requests fell in the warm-up (warm-up: {} requests, {} s of trace time): nothing was measured",
                report.warmup_requests,
                self.config.warmup_requests,
                self.config.warmup_ns as f64 / 1e9
            )));
        }
        Ok(report)
    }
}

/// The state of one replay between its steps.
pub(super) struct Replay<'c> {
    config: &'c EngineConfig,
    speedup: Option<f64>,
    capacity: u64,
    ops: [OpAccumulator; 3],
    series: Vec<SeriesPoint>,
    baseline: Option<Baseline>,
    first_time: Option<u64>,
    /// Requests served so far, warm-up included.
    seen: u64,
    idle_work_ns: u64,
    cancelled: bool,
    sampler: Option<GaugeSampler>,
    /// The latest request's trace time, from the first request.
    trace_offset: u64,
    /// Requests whose timestamp was before the previous request's.
    time_regressions: u64,
    /// Open loop: what the saturation verdict needs.
    saturation: Option<SaturationWatch>,
    /// The latest request measured: its arrival and its end.
    last: Served,
}

impl<'c> Replay<'c> {
    fn new(config: &'c EngineConfig, capacity: u64) -> Result<Self, SimError> {
        if !(1..=MAX_IODEPTH).contains(&config.iodepth) {
            return Err(smr_core::ParamError::new(
                "iodepth",
                format!("{} requests: must be 1 to {MAX_IODEPTH} requests kept in flight", config.iodepth),
            )
            .into());
        }
        let speedup = match config.mode {
            ReplayMode::Closed => None,
            ReplayMode::Open { speedup } => {
                if !(speedup > 0.0 && speedup.is_finite()) {
                    return Err(smr_core::ParamError::new("speedup", "must be a positive number").into());
                }
                if config.iodepth != 1 {
                    let message = "applies to a closed-loop replay (an open loop issues each request at its arrival)";
                    return Err(smr_core::ParamError::new("iodepth", message).into());
                }
                Some(speedup)
            }
        };
        Ok(Replay {
            config,
            speedup,
            capacity,
            ops: Default::default(),
            series: Vec::new(),
            baseline: None,
            first_time: None,
            seen: 0,
            idle_work_ns: 0,
            cancelled: false,
            sampler: GaugeSampler::new(config.gauge_samples),
            trace_offset: 0,
            time_regressions: 0,
            saturation: speedup.map(|_| SaturationWatch::new()),
            last: Served::default(),
        })
    }

    /// One request (the `index`-th, from 1, which names it in an error) through every step: it
    /// arrives, idle time before it goes to background work, and it is served and measured (or,
    /// overlapped, issued and measured when done).
    #[inline]
    fn step(
        &mut self,
        overlapped: Option<&mut Overlapped>,
        system: &mut dyn System,
        ctx: &mut IoCtx,
        req: &Request,
        index: u64,
    ) -> Result<(), SimError> {
        let arrival = self.arrive(req, &*system, ctx)?;
        if let Some(o) = overlapped {
            return o.serve(self, system, ctx, req, arrival).map_err(|e| e.at_request(index));
        }
        self.idle(system, ctx, arrival).map_err(|e| e.at_request(index))?;
        let start = ctx.now();
        self.serve(system, ctx, req).map_err(|e| e.at_request(index))?;
        self.measure(&*system, req, arrival, start, ctx.now())
    }

    /// When `req` arrives (closed loop: now); takes the warm-up baseline when warm-up ends.
    #[inline]
    fn arrive(&mut self, req: &Request, system: &dyn System, ctx: &IoCtx) -> Result<u64, SimError> {
        let t0 = *self.first_time.get_or_insert(req.time_ns);
        let offset = req.time_ns.saturating_sub(t0);
        // A timestamp before the previous one arrives at the previous one's time, counted.
        if offset < self.trace_offset {
            self.time_regressions += 1;
        }
        self.trace_offset = self.trace_offset.max(offset);
        let arrival = match self.speedup {
            None => ctx.now(),
            Some(s) => {
                let at = self.trace_offset as f64 / s;
                if at >= MAX_SIM_NS as f64 {
                    return Err(smr_core::ParamError::new(
                        "speedup",
                        format!(
                            "{s} makes request #{} (at {} s of trace time) arrive after 2^63 ns (292 years) of simulated time: use a larger speed-up",
                            self.seen + 1,
                            self.trace_offset as f64 / 1e9
                        ),
                    )
                    .into());
                }
                at as u64
            }
        };
        if self.baseline.is_none()
            && self.seen >= self.config.warmup_requests
            && self.trace_offset >= self.config.warmup_ns
        {
            let mut counters = Counters::default();
            system.counters(&mut counters);
            ctx.timer_counters(&mut counters);
            self.baseline = Some(Baseline {
                counters,
                channels: ctx.channel_reports().iter().map(|c| c.stats).collect(),
                idle_work_ns: self.idle_work_ns,
                start_ns: ctx.now().max(arrival),
            });
        }
        Ok(arrival)
    }

    /// Open loop: offers the gap before `arrival` to the system's background work, then moves
    /// the clock to the arrival.
    #[inline]
    fn idle(&mut self, system: &mut dyn System, ctx: &mut IoCtx, arrival: u64) -> Result<(), SimError> {
        if self.speedup.is_none() || ctx.now() > arrival {
            return Ok(());
        }
        if let Some(watch) = self.saturation.as_mut() {
            watch.found_idle(self.seen);
        }
        if ctx.now() == arrival {
            return Ok(());
        }
        if self.config.idle_work {
            while ctx.now() < arrival {
                let before = ctx.now();
                if !system.idle(ctx, arrival)? {
                    break;
                }
                self.idle_work_ns += ctx.now() - before;
            }
        }
        ctx.advance_to(arrival);
        Ok(())
    }

    /// Request `index` (from 0, warm-up included) arrived to find no request queued or in
    /// service: what an overlapped replay, which checks this itself, tells the saturation watch.
    pub(super) fn found_idle(&mut self, index: u64) {
        if let Some(watch) = self.saturation.as_mut() {
            watch.found_idle(index);
        }
    }

    /// Checks that `req` lies inside the system and, unless it is empty, hands it over.
    #[inline]
    pub(super) fn serve(&mut self, system: &mut dyn System, ctx: &mut IoCtx, req: &Request) -> Result<(), SimError> {
        if req.offset.checked_add(req.len).is_none_or(|end| end > self.capacity) {
            return Err(SimError::OutOfRange {
                index: self.seen + 1,
                offset: req.offset,
                len: req.len,
                capacity: self.capacity,
            });
        }
        if req.len > 0 {
            system.submit(req, ctx)?;
        }
        Ok(())
    }

    /// Counts the request served from `start` to `end`; measures it once warm-up is over.
    #[inline]
    pub(super) fn measure(
        &mut self,
        system: &dyn System,
        req: &Request,
        arrival: u64,
        start: u64,
        end: u64,
    ) -> Result<(), SimError> {
        self.seen += 1;
        self.last = Served { arrival_ns: arrival, end_ns: end };
        if let Some(s) = self.sampler.as_mut() {
            s.after_request(system, self.seen, end, self.trace_offset);
        }
        if self.baseline.is_none() {
            return Ok(());
        }
        let service = end - start;
        let response = end - arrival;
        if let Some(watch) = self.saturation.as_mut() {
            watch.waited(start - arrival);
        }
        self.ops[req.op as usize].add(req.len, service, response, self.speedup.is_some());
        if let Some(slot) = end.checked_div(self.config.series_interval_ns) {
            if slot >= MAX_SERIES_POINTS {
                return Err(smr_core::ParamError::new(
                    "series_interval",
                    format!(
                        "{} s gives more than {MAX_SERIES_POINTS} time series points by {} s of simulated time: use a longer interval",
                        self.config.series_interval_ns as f64 / 1e9,
                        end as f64 / 1e9
                    ),
                )
                .into());
            }
            let slot = slot as usize;
            if self.series.len() <= slot {
                self.series.resize_with(slot + 1, SeriesPoint::default);
            }
            let p = &mut self.series[slot];
            p.t_ns = slot as u64 * self.config.series_interval_ns;
            p.requests += 1;
            p.io_ns += service;
            p.response_ns_sum += response;
        }
        Ok(())
    }

    /// The report: everything measured since the warm-up baseline.
    fn finish(self, system: &dyn System, ctx: &IoCtx) -> RunReport {
        let mut counters = Counters::default();
        system.counters(&mut counters);
        ctx.timer_counters(&mut counters);
        let mut gauges = Gauges::default();
        system.gauges(&mut gauges);
        let gauge_series =
            self.sampler.map(|s| s.finish(system, self.seen, ctx.now(), self.trace_offset)).unwrap_or_default();
        let mut channels = ctx.channel_reports();
        let base = self.baseline.unwrap_or_else(|| Baseline {
            counters: counters.clone(),
            channels: channels.iter().map(|c| c.stats).collect(),
            idle_work_ns: self.idle_work_ns,
            start_ns: ctx.now(),
        });
        for (c, b) in channels.iter_mut().zip(&base.channels) {
            c.stats = c.stats.since(b);
        }
        let queued = self.speedup.is_some();
        let [read, write, trim] = &self.ops;
        let measured = read.requests() + write.requests() + trim.requests();
        let mut report = RunReport {
            requests: measured,
            warmup_requests: self.seen - measured,
            total_io_ns: read.io_ns() + write.io_ns() + trim.io_ns(),
            read: read.totals(queued),
            write: write.totals(queued),
            trim: trim.totals(queued),
            makespan_ns: ctx.now() - base.start_ns,
            idle_work_ns: self.idle_work_ns - base.idle_work_ns,
            channels,
            series: self.series,
            cancelled: self.cancelled,
            iodepth: self.config.iodepth,
            time_regressions: self.time_regressions,
            saturation: self.saturation.map(|watch| {
                let last_arrival_ns = self.speedup.map_or(0, |s| (self.trace_offset as f64 / s) as u64);
                watch.verdict(
                    self.seen - measured,
                    measured,
                    ReplaySpan { first_arrival_ns: base.start_ns, last_arrival_ns, end_ns: ctx.now() },
                )
            }),
            ..Default::default()
        };
        report.add_measures(&counters.since(&base.counters), &gauges, gauge_series);
        report
    }
}

/// When a request arrived and when it was done, in simulated ns.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Served {
    pub arrival_ns: u64,
    pub end_ns: u64,
}

impl Served {
    /// Its response time: waiting plus service.
    pub fn response_ns(&self) -> u64 {
        self.end_ns - self.arrival_ns
    }
}

/// The replay a session runs: open loop in real time, with idle time offered to background
/// work, every request measured.
static SESSION: EngineConfig = EngineConfig {
    mode: ReplayMode::Open { speedup: 1.0 },
    warmup_requests: 0,
    warmup_ns: 0,
    idle_work: true,
    series_interval_ns: 0,
    progress_every: 0,
    gauge_samples: 0,
    iodepth: 1,
};

/// A replay fed one request at a time by a caller who sees each request's times before
/// choosing the next, as a host probing a device does (`smrlab probe`). Each request arrives
/// at its `time_ns` (counted from the first request's), the idle time before it is offered to
/// the system's background work as in an open-loop `Engine::run`, and it is served to its end
/// before `submit` returns (a system whose requests may overlap is awaited request by
/// request). Not here: building the system, or choosing the requests.
pub struct Session {
    replay: Replay<'static>,
    overlapped: Option<Overlapped>,
}

impl Session {
    pub fn new(system: &dyn System, ctx: &mut IoCtx) -> Result<Self, SimError> {
        let replay = Replay::new(&SESSION, system.capacity())?;
        let overlapped = Overlapped::wanted(system, ctx, &SESSION)?.map(Overlapped::awaiting_each);
        Ok(Session { replay, overlapped })
    }

    /// Serves `req` and says when it arrived and when it was done.
    pub fn submit(&mut self, system: &mut dyn System, ctx: &mut IoCtx, req: &Request) -> Result<Served, SimError> {
        let index = self.replay.seen + 1;
        self.replay.step(self.overlapped.as_mut(), system, ctx, req, index)?;
        Ok(self.replay.last)
    }

    /// The report of everything served so far.
    pub fn finish(mut self, system: &mut dyn System, ctx: &mut IoCtx) -> Result<RunReport, SimError> {
        if let Some(o) = self.overlapped.take() {
            o.finish(&mut self.replay, system, ctx)?;
        }
        Ok(self.replay.finish(&*system, ctx))
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
    use crate::metrics::{Metric, Unit};
    use smr_core::Op;
    use smr_media::FixedLatencyMedium;

    static SERVED: Metric = Metric::new("served", Unit::Count, "requests served");

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
        fn capacity(&self) -> u64 {
            1 << 30
        }
        fn counters(&self, out: &mut Counters) {
            out.add(&SERVED, self.served);
        }
    }

    fn toy(backlog: u32) -> (Toy, IoCtx) {
        let mut ctx = IoCtx::new();
        let d = ctx.add_device("ssd", Box::new(FixedLatencyMedium::ssd(1 << 30)));
        let ch = ctx.channel(d, "ssd");
        (Toy { ch, backlog, served: 0 }, ctx)
    }

    fn reqs() -> Vec<Request> {
        (0..10)
            .map(|i| Request::new(i * 10_000_000, if i % 2 == 0 { Op::Write } else { Op::Read }, i * 4096, 4096))
            .collect()
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
    fn timestamps_that_go_backwards_arrive_with_the_one_before_and_are_counted() {
        let reqs: Vec<Request> =
            [0, 30, 10, 40, 20].iter().map(|&ms| Request::new(ms * 1_000_000, Op::Read, 0, 4096)).collect();
        let (mut sys, mut ctx) = toy(0);
        let cfg = EngineConfig { mode: ReplayMode::Open { speedup: 1.0 }, ..Default::default() };
        let r = Engine::new(cfg).run(&mut sys, &mut ctx, ok_requests(&reqs)).unwrap();
        assert_eq!(r.time_regressions, 2);
        // Each arrived at or after 40 ms: the last arrival was 40 ms, not 20.
        assert!(r.makespan_ns >= 40_000_000 && r.makespan_ns < 41_000_000, "{}", r.makespan_ns);
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
    fn requests_beyond_the_system_are_refused_by_number_and_empty_ones_not_served() {
        let (mut sys, mut ctx) = toy(0);
        let reqs = [
            Request::new(0, Op::Read, 0, 0),
            Request::new(1, Op::Read, (1 << 30) - 4096, 4096),
            Request::new(2, Op::Read, 1 << 30, 1),
        ];
        let err = Engine::new(EngineConfig::default()).run(&mut sys, &mut ctx, ok_requests(&reqs)).unwrap_err();
        assert!(err.to_string().starts_with("request #3 "), "{err}");
        assert_eq!(sys.served, 1, "the empty request was measured but not served");
        let (mut sys, mut ctx) = toy(0);
        let wraps = [Request::new(0, Op::Read, u64::MAX, 2)];
        assert!(matches!(
            Engine::new(EngineConfig::default()).run(&mut sys, &mut ctx, ok_requests(&wraps)),
            Err(SimError::OutOfRange { index: 1, .. })
        ));
    }

    #[test]
    fn a_tiny_speedup_is_an_error_not_a_saturated_clock() {
        let (mut sys, mut ctx) = toy(0);
        let cfg = EngineConfig { mode: ReplayMode::Open { speedup: 1e-12 }, ..Default::default() };
        let err = Engine::new(cfg).run(&mut sys, &mut ctx, ok_requests(&reqs())).unwrap_err().to_string();
        assert!(err.contains("'speedup'") && err.contains("request #2"), "{err}");
        for bad in [0.0, -1.0, f64::INFINITY, f64::NAN] {
            let (mut sys, mut ctx) = toy(0);
            let cfg = EngineConfig { mode: ReplayMode::Open { speedup: bad }, ..Default::default() };
            assert!(Engine::new(cfg).run(&mut sys, &mut ctx, ok_requests(&reqs())).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_series_interval_that_would_make_too_many_points_is_an_error() {
        let (mut sys, mut ctx) = toy(0);
        let cfg = EngineConfig { series_interval_ns: 1, mode: ReplayMode::Open { speedup: 1.0 }, ..Default::default() };
        let err = Engine::new(cfg).run(&mut sys, &mut ctx, ok_requests(&reqs())).unwrap_err().to_string();
        assert!(err.contains("'series_interval'"), "{err}");
        let (mut sys, mut ctx) = toy(0);
        let cfg = EngineConfig { series_interval_ns: 100_000, ..Default::default() };
        assert!(!Engine::new(cfg).run(&mut sys, &mut ctx, ok_requests(&reqs())).unwrap().series.is_empty());
    }

    #[test]
    fn a_warmup_longer_than_the_trace_is_an_error_saying_nothing_was_measured() {
        for cfg in [
            EngineConfig { warmup_requests: 10, ..Default::default() },
            EngineConfig { warmup_ns: 1 << 40, ..Default::default() },
        ] {
            let (mut sys, mut ctx) = toy(0);
            let err = Engine::new(cfg).run(&mut sys, &mut ctx, ok_requests(&reqs())).unwrap_err();
            assert!(matches!(err, SimError::NothingMeasured(_)), "{err}");
        }
        let (mut sys, mut ctx) = toy(0);
        let cfg = EngineConfig { warmup_requests: 9, ..Default::default() };
        assert_eq!(Engine::new(cfg).run(&mut sys, &mut ctx, ok_requests(&reqs())).unwrap().requests, 1);
    }

    #[test]
    fn trace_errors_stop_the_run() {
        let (mut sys, mut ctx) = toy(0);
        let items = vec![Ok(Request::new(0, Op::Read, 0, 4096)), Err(TraceError::malformed("t.csv", 2, "bad"))];
        let err = Engine::new(EngineConfig::default()).run(&mut sys, &mut ctx, items).unwrap_err();
        assert!(err.to_string().contains("t.csv:2"));
    }
}
