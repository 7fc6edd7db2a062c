//! What a run leaves: one record per request (scheduled, started, ended, what, whether it
//! succeeded) and its summary: latency percentiles from the scheduled time, per operation and
//! overall; service time (end minus start); the executor's own scheduling error; counts of
//! failures, misses and requests that waited for a free worker; achieved throughput.

use std::io::Write;

use serde::Serialize;
use smr_core::latency::{LatencyHistogram, LatencySummary};

use crate::error::{Result, WorkloadError};
use crate::ycsb::OpKind;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RequestRecord {
    pub index: u64,
    pub op: OpKind,
    /// When the request was due, ns from the run's start.
    pub scheduled_ns: u64,
    /// When a worker began it.
    pub start_ns: u64,
    pub end_ns: u64,
    /// It completed without error.
    pub ok: bool,
    /// A read found its record (always true for writes that succeeded).
    pub found: bool,
}

impl RequestRecord {
    /// Latency as the user sees it: from when the request was due.
    pub fn latency_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.scheduled_ns)
    }
}

pub struct RunLog {
    pub records: Vec<RequestRecord>,
    /// Requests the master could issue only after waiting for a free worker.
    pub waited_for_worker: u64,
    /// Workers in the pool.
    pub workers: usize,
    /// Scheduled requests never issued: the run stopped at its time limit first.
    pub unissued: u64,
}

#[derive(Clone, Debug, Default, Serialize)]
pub struct RunSummary {
    pub requests: u64,
    /// Scheduled requests never issued (the run stopped at its time limit).
    pub unissued: u64,
    pub failed: u64,
    /// Reads (and read-modify-writes) that did not find their record.
    pub missed: u64,
    pub waited_for_worker: u64,
    /// From the first scheduled time to the last completion, s.
    pub elapsed_s: f64,
    /// Completed requests per second over `elapsed_s`.
    pub throughput: f64,
    /// Latency from the scheduled time, every request.
    pub latency: LatencySummary,
    /// The same per operation, by YCSB's name.
    pub by_op: Vec<(String, LatencySummary)>,
    /// End minus start.
    pub service: LatencySummary,
    /// Start minus scheduled time of requests that found a worker free: the executor's error.
    pub scheduling_error: LatencySummary,
}

impl RunLog {
    pub fn summary(&self) -> RunSummary {
        let mut all = LatencyHistogram::default();
        let mut service = LatencyHistogram::default();
        let mut sched = LatencyHistogram::default();
        let mut per_op: Vec<(OpKind, LatencyHistogram)> = Vec::new();
        let (mut failed, mut missed, mut last_end) = (0, 0, 0);
        for r in &self.records {
            all.record(r.latency_ns());
            service.record(r.end_ns.saturating_sub(r.start_ns));
            match per_op.iter_mut().find(|(k, _)| *k == r.op) {
                Some((_, h)) => h.record(r.latency_ns()),
                None => {
                    let mut h = LatencyHistogram::default();
                    h.record(r.latency_ns());
                    per_op.push((r.op, h));
                }
            }
            failed += !r.ok as u64;
            missed += (r.ok && !r.found) as u64;
            last_end = last_end.max(r.end_ns);
        }
        for r in self.on_time() {
            sched.record(r.start_ns.saturating_sub(r.scheduled_ns));
        }
        let first = self.records.first().map_or(0, |r| r.scheduled_ns);
        let elapsed_s = last_end.saturating_sub(first) as f64 / 1e9;
        let completed = self.records.len() as u64 - failed;
        RunSummary {
            requests: self.records.len() as u64,
            unissued: self.unissued,
            failed,
            missed,
            waited_for_worker: self.waited_for_worker,
            elapsed_s,
            throughput: if elapsed_s > 0.0 { completed as f64 / elapsed_s } else { 0.0 },
            latency: all.summary(),
            by_op: OpKind::ALL
                .iter()
                .filter_map(|k| per_op.iter().find(|(o, _)| o == k).map(|(o, h)| (o.name().to_string(), h.summary())))
                .collect(),
            service: service.summary(),
            scheduling_error: sched.summary(),
        }
    }

    /// Requests that a free worker could have started at their scheduled time: fewer were in
    /// flight then than there are workers. Only their start lag is the executor's own error.
    fn on_time(&self) -> impl Iterator<Item = &RequestRecord> {
        let workers = self.workers;
        let mut ends: std::collections::BinaryHeap<std::cmp::Reverse<u64>> = std::collections::BinaryHeap::new();
        self.records.iter().filter(move |r| {
            while ends.peek().is_some_and(|e| e.0 <= r.scheduled_ns) {
                ends.pop();
            }
            let free = ends.len() < workers;
            ends.push(std::cmp::Reverse(r.end_ns));
            free
        })
    }

    /// Writes the log as CSV: index, op, scheduled_ns, start_ns, end_ns, ok, found.
    pub fn write_csv(&self, path: &std::path::Path) -> Result<()> {
        let what = || format!("write the request log {}", path.display());
        let file = std::fs::File::create(path).map_err(|e| WorkloadError::io(what(), e))?;
        let mut out = std::io::BufWriter::new(file);
        let mut write = || -> std::io::Result<()> {
            writeln!(out, "index,op,scheduled_ns,start_ns,end_ns,ok,found")?;
            for r in &self.records {
                writeln!(
                    out,
                    "{},{},{},{},{},{},{}",
                    r.index,
                    r.op.name(),
                    r.scheduled_ns,
                    r.start_ns,
                    r.end_ns,
                    r.ok as u8,
                    r.found as u8
                )?;
            }
            out.flush()
        };
        write().map_err(|e| WorkloadError::io(what(), e))
    }
}
