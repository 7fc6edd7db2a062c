//! What a replay reports: per-op totals and latency summaries, channel totals, the system's
//! counters and gauges, and every derived value — the ratios systems declare, and the figures
//! every run has (I/O times in seconds, I/O amplification, seeks, gauge means) — each with its
//! declaration, so the result file says what every number is. Not here: how the numbers are
//! gathered (`engine`) or shown (the Python front only formats them).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use smr_core::latency::{LatencyHistogram, LatencySummary};

use super::gauge_series::GaugeSeries;
use super::ioctx::ChannelReport;
use super::metrics::{CounterValues, Counters, Gauges, Metric, MetricDoc, MetricKind, Unit};
use super::saturation::Saturation;

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
    pub counters: CounterValues,
    pub gauges: Vec<(String, f64)>,
    /// Every derived value: declared ratios, I/O times in seconds, I/O amplification, seeks,
    /// gauge means and maxima.
    pub derived: BTreeMap<String, f64>,
    /// The declaration (kind, unit, meaning) of every counter, gauge and derived value above.
    pub metrics: BTreeMap<String, MetricDoc>,
    pub series: Vec<SeriesPoint>,
    /// The system's gauges over the run (empty unless `EngineConfig::gauge_samples` is set).
    pub gauge_series: GaugeSeries,
    /// True if the progress callback asked to stop before the trace ended.
    pub cancelled: bool,
    /// Requests the replay kept in flight: the closed loop's `iodepth` (1 in an open loop,
    /// which issues each request at its arrival).
    #[serde(default = "one")]
    pub iodepth: u32,
    /// Requests whose trace timestamp was earlier than the request before them; each arrived
    /// at the time before it (the clock of a replay never goes back).
    pub time_regressions: u64,
    /// False when the run never exercised a mechanism its system declared (see
    /// `metrics::Exercise`); `not_informative` then says which, in words.
    pub informative: bool,
    pub not_informative: Vec<String>,
    /// Open loop: whether the queue grew for the whole replay (`saturation`), with the figures
    /// the verdict rests on; None in closed loop.
    #[serde(default)]
    pub saturation: Option<Saturation>,
}

pub static TOTAL_IO_S: Metric =
    Metric::new("total_io_s", Unit::Seconds, "total I/O time: the sum of measured requests' service times");
pub static READ_IO_S: Metric = Metric::new("read_io_s", Unit::Seconds, "I/O time of the measured reads");
pub static WRITE_IO_S: Metric = Metric::new("write_io_s", Unit::Seconds, "I/O time of the measured writes");
pub static MAKESPAN_S: Metric = Metric::new(
    "makespan_s",
    Unit::Seconds,
    "simulated time from the first measured request's start to the last completion",
);
pub static IO_AMPLIFICATION_OPS: Metric = Metric::new(
    "io_amplification_ops",
    Unit::Ratio,
    "media operations per host read or write, over every channel (uCache Fig. 9)",
);
pub static IO_AMPLIFICATION_BYTES: Metric = Metric::new(
    "io_amplification_bytes",
    Unit::Ratio,
    "media bytes per host byte read or written, over every channel (uCache Fig. 9)",
);
pub static HOST_READS: Metric = Metric::new("host_reads", Unit::Count, "host read requests measured");
pub static HOST_WRITES: Metric = Metric::new("host_writes", Unit::Count, "host write requests measured");
pub static HOST_BYTES_READ: Metric =
    Metric::new("host_bytes_read", Unit::Bytes, "bytes the host read (measured requests)");
pub static HOST_BYTES_WRITTEN: Metric = Metric::new(
    "host_bytes_written",
    Unit::Bytes,
    "bytes the host wrote (measured requests): the user bytes ratios divide by",
);
pub static SEEKS: Metric =
    Metric::new("seeks", Unit::Count, "media I/Os on rotating devices that did not start where the device's previous I/O ended (the channels give them per device)");

const NS_PER_S: f64 = 1e9;

fn one() -> u32 {
    1
}

/// Accumulates one kind of host request.
#[derive(Default)]
pub(crate) struct OpAccumulator {
    requests: u64,
    bytes: u64,
    io_ns: u64,
    service: LatencyHistogram,
    response: LatencyHistogram,
}

impl OpAccumulator {
    /// `queued` is false in closed loop, where response time equals service time and only one
    /// histogram is kept.
    #[inline]
    pub fn add(&mut self, bytes: u64, service: u64, response: u64, queued: bool) {
        self.requests += 1;
        self.bytes += bytes;
        self.io_ns += service;
        self.service.record(service);
        if queued {
            self.response.record(response);
        }
    }

    pub fn requests(&self) -> u64 {
        self.requests
    }

    pub fn io_ns(&self) -> u64 {
        self.io_ns
    }

    pub fn totals(&self, queued: bool) -> OpTotals {
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

impl RunReport {
    /// Records the system's measured counters, its gauges and the gauge series, with their
    /// declarations, and derives every value from them and from the totals already set.
    pub(crate) fn add_measures(&mut self, system_counters: &Counters, gauges: &Gauges, gauge_series: GaugeSeries) {
        let mut counters = system_counters.clone();
        counters.add(&HOST_READS, self.read.requests);
        counters.add(&HOST_WRITES, self.write.requests);
        counters.add(&HOST_BYTES_READ, self.read.bytes);
        counters.add(&HOST_BYTES_WRITTEN, self.write.bytes);
        self.not_informative = counters.unexercised().map(str::to_string).collect();
        self.informative = self.not_informative.is_empty();
        let counters = &counters;
        self.counters = CounterValues::from(counters);
        for (metric, _) in counters.iter() {
            self.declare(MetricKind::Counter, metric);
        }
        self.gauges = gauges.iter().map(|(metric, value)| (metric.name.to_string(), value)).collect();
        for (metric, _) in gauges.iter() {
            self.declare(MetricKind::Gauge, metric);
        }
        self.gauge_series = gauge_series;
        self.derive(&TOTAL_IO_S, self.total_io_ns as f64 / NS_PER_S);
        self.derive(&READ_IO_S, self.read.io_ns as f64 / NS_PER_S);
        self.derive(&WRITE_IO_S, self.write.io_ns as f64 / NS_PER_S);
        self.derive(&MAKESPAN_S, self.makespan_ns as f64 / NS_PER_S);
        // Every declared ratio is described, also one this run gives no value (its denominator
        // is zero), so a run of a system tells all that the system can report.
        for ratio in counters.declared_ratios() {
            self.declare(MetricKind::Derived, &ratio.metric);
        }
        for (ratio, value) in counters.ratios() {
            self.derive(&ratio.metric, value);
        }
        self.derive_amplification();
        self.derive_gauge_summaries(gauges);
    }

    fn declare(&mut self, kind: MetricKind, metric: &Metric) {
        self.metrics.insert(metric.name.to_string(), MetricDoc::of(kind, metric));
    }

    fn derive(&mut self, metric: &Metric, value: f64) {
        self.derived.insert(metric.name.to_string(), value);
        self.declare(MetricKind::Derived, metric);
    }

    /// Media operations and bytes per host operation and byte, and seeks, over all channels;
    /// nothing when no host byte was read or written.
    fn derive_amplification(&mut self) {
        let host_ops = self.read.requests + self.write.requests;
        let host_bytes = self.read.bytes + self.write.bytes;
        if host_ops == 0 || host_bytes == 0 {
            return;
        }
        let sum = |f: fn(&ChannelReport) -> u64| self.channels.iter().map(f).sum::<u64>();
        let media_ops = sum(|c| c.stats.reads + c.stats.writes);
        let media_bytes = sum(|c| c.stats.bytes_read + c.stats.bytes_written);
        let seeks = sum(|c| c.stats.seeks);
        self.derive(&IO_AMPLIFICATION_OPS, media_ops as f64 / host_ops as f64);
        self.derive(&IO_AMPLIFICATION_BYTES, media_bytes as f64 / host_bytes as f64);
        self.derive(&SEEKS, seeks as f64);
    }

    /// `NAME_mean` (over trace time) and `NAME_max` of every sampled gauge.
    fn derive_gauge_summaries(&mut self, gauges: &Gauges) {
        for (name, mean, max) in self.gauge_series.summaries() {
            let metric = gauges.iter().map(|(m, _)| m).find(|m| m.name == name);
            let (unit, meaning) = metric.map_or((Unit::Ratio, ""), |m| (m.unit, m.meaning));
            for (suffix, value, what) in [("mean", mean, "mean over trace time"), ("max", max, "maximum")] {
                let key = format!("{name}_{suffix}");
                self.derived.insert(key.clone(), value);
                self.metrics.insert(
                    key,
                    MetricDoc { kind: MetricKind::Derived, unit, meaning: format!("{what} of: {meaning}") },
                );
            }
        }
    }
}
