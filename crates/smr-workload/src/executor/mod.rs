//! The open-loop executor of §4.2 (the thesis's Fig. 4.4): a master thread issues each request
//! at its scheduled time to the first free worker of a pool, taken from a queue of free workers
//! that each worker rejoins when it finishes. Requests never wait for earlier ones to complete,
//! and latency is measured from the scheduled time, so time spent waiting for a free worker
//! counts (no coordinated omission).
//!
//! Each request is logged: its schedule, when a worker started it, when it ended, what it was,
//! whether it succeeded (`log`). The executor's own scheduling error, start minus scheduled
//! time for requests that found a worker free, is measured and summarised beside the latencies.
//!
//! How the master waits (the thesis busy-waits): it sleeps until shortly before a request is
//! due, with the thread's timer slack set to 1 ns on Linux so the kernel wakes it on time,
//! and spins for the last `spin_ns`. Wall-clock time is this module's business: it measures
//! real latency. Not here: which requests (`crate::ycsb`), when (`crate::arrival`), or the
//! store or server they go to (`crate::target`).

pub mod log;

use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use crate::error::{Result, WorkloadError};
use crate::target::{Target, ValuePool};
use crate::ycsb::{CoreWorkload, Operation, OperationStream};
pub use log::{RequestRecord, RunLog, RunSummary};

#[derive(Clone, Copy, Debug)]
pub struct ExecutorConfig {
    /// How long before a request is due the master stops sleeping and spins, ns.
    pub spin_ns: u64,
    /// Seed of the values written.
    pub value_seed: u64,
    /// Issue nothing after this long from the start (ns): the requests left are counted as not
    /// issued, so a run against a store that cannot keep up ends at a known time.
    pub stop_after_ns: Option<u64>,
}

impl Default for ExecutorConfig {
    fn default() -> Self {
        ExecutorConfig { spin_ns: 50_000, value_seed: 1, stop_after_ns: None }
    }
}

struct Job {
    index: u64,
    op: Operation,
    scheduled_ns: u64,
}

/// Lets the calling thread sleep to the nanosecond (Linux timer slack), for the master.
fn tighten_timer_slack() {
    #[cfg(target_os = "linux")]
    // SAFETY: PR_SET_TIMERSLACK takes an integer and changes only this thread's timer slack.
    unsafe {
        libc::prctl(libc::PR_SET_TIMERSLACK, 1 as libc::c_ulong);
    }
}

fn wait_until(deadline: Instant, spin: Duration) {
    loop {
        let now = Instant::now();
        if now >= deadline {
            return;
        }
        let left = deadline - now;
        if left > spin {
            thread::sleep(left - spin);
        } else {
            std::hint::spin_loop();
        }
    }
}

/// Issues `ops` at the times of `schedule` (ns from the start) to a pool of one worker per
/// target, and returns the log of every request, in schedule order.
pub fn run(
    schedule: &[u64],
    ops: &mut OperationStream,
    targets: Vec<Box<dyn Target>>,
    config: ExecutorConfig,
) -> Result<RunLog> {
    if targets.is_empty() {
        return Err(WorkloadError::parameter("threads", "the executor needs at least one worker"));
    }
    let workload = ops.workload().clone();
    let (free_tx, free_rx) = mpsc::channel::<usize>();
    let workers_count = targets.len();
    let mut inboxes = Vec::new();
    let mut workers = Vec::new();
    // Requests start after a short lead, so the first is not late because the pool was starting.
    let t0 = Instant::now() + Duration::from_millis(20);
    for (id, target) in targets.into_iter().enumerate() {
        let (tx, rx) = mpsc::channel::<Job>();
        inboxes.push(tx);
        let free = free_tx.clone();
        let w = workload.clone();
        let seed = config.value_seed.wrapping_add(id as u64);
        let handle = thread::Builder::new()
            .name(format!("executor-worker-{id}"))
            .spawn(move || work(id, target, rx, free, &w, seed, t0))
            .map_err(|e| WorkloadError::io("start an executor worker", e))?;
        workers.push(handle);
        free_tx.send(id).expect("the receiver lives in this function");
    }
    drop(free_tx);
    tighten_timer_slack();
    let spin = Duration::from_nanos(config.spin_ns);
    let mut waited_for_worker = 0u64;
    let deadline = config.stop_after_ns.map(|ns| t0 + Duration::from_nanos(ns));
    let mut issued = 0usize;
    for (index, &scheduled_ns) in schedule.iter().enumerate() {
        let op = ops.next_op();
        let due = t0 + Duration::from_nanos(scheduled_ns);
        if deadline.is_some_and(|d| due >= d) {
            break;
        }
        wait_until(due, spin);
        let id = match free_rx.try_recv() {
            Ok(id) => id,
            Err(_) => {
                waited_for_worker += 1;
                let free = match deadline {
                    Some(d) => free_rx.recv_timeout(d.saturating_duration_since(Instant::now())).ok(),
                    None => free_rx.recv().ok(),
                };
                match free {
                    Some(id) => id,
                    // The deadline passed, or every worker has stopped (they report why below).
                    None => break,
                }
            }
        };
        issued = index + 1;
        if inboxes[id].send(Job { index: index as u64, op, scheduled_ns }).is_err() {
            break;
        }
    }
    drop(inboxes);
    let mut records = Vec::with_capacity(schedule.len());
    for handle in workers {
        let worker_records = handle.join().map_err(|_| WorkloadError::Server {
            server: "executor".into(),
            problem: "a worker thread panicked (a bug)".into(),
        })?;
        records.extend(worker_records);
    }
    records.sort_unstable_by_key(|r| r.index);
    Ok(RunLog { records, waited_for_worker, workers: workers_count, unissued: (schedule.len() - issued) as u64 })
}

fn work(
    id: usize,
    mut target: Box<dyn Target>,
    inbox: mpsc::Receiver<Job>,
    free: mpsc::Sender<usize>,
    workload: &CoreWorkload,
    seed: u64,
    t0: Instant,
) -> Vec<RequestRecord> {
    let mut values = ValuePool::new(workload.value_len(), seed);
    let mut out = Vec::new();
    while let Ok(job) = inbox.recv() {
        let start = t0.elapsed().as_nanos() as u64;
        let key = workload.key(job.op.record);
        let outcome = crate::target::execute(target.as_mut(), &job.op, key.as_bytes(), &mut values);
        let end = t0.elapsed().as_nanos() as u64;
        let (ok, found) = match outcome {
            Ok(found) => (true, found),
            Err(_) => (false, false),
        };
        out.push(RequestRecord {
            index: job.index,
            op: job.op.kind,
            scheduled_ns: job.scheduled_ns,
            start_ns: start,
            end_ns: end,
            ok,
            found,
        });
        if free.send(id).is_err() {
            break;
        }
    }
    out
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
