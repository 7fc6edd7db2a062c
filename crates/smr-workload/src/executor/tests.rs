use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::*;
use crate::ycsb::{CoreWorkload, OpKind};

/// A target that takes `service` per call and records the keys it saw.
struct Slow {
    service: Duration,
    seen: Arc<Mutex<Vec<Vec<u8>>>>,
}

impl Target for Slow {
    fn read(&mut self, key: &[u8]) -> Result<bool> {
        std::thread::sleep(self.service);
        self.seen.lock().unwrap().push(key.to_vec());
        Ok(true)
    }
    fn write(&mut self, key: &[u8], _: &[u8]) -> Result<()> {
        self.read(key).map(drop)
    }
    fn scan(&mut self, key: &[u8], _: usize) -> Result<usize> {
        self.read(key).map(|_| 1)
    }
    fn load(&mut self, _: &[(Vec<u8>, Vec<u8>)]) -> Result<()> {
        Ok(())
    }
}

fn run_with(workers: usize, service_ms: u64, interval_ms: u64, n: u64) -> (RunLog, Vec<Vec<u8>>) {
    run_until(workers, service_ms, interval_ms, n, None)
}

fn run_until(
    workers: usize,
    service_ms: u64,
    interval_ms: u64,
    n: u64,
    stop_after_ns: Option<u64>,
) -> (RunLog, Vec<Vec<u8>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let targets: Vec<Box<dyn Target>> = (0..workers)
        .map(|_| Box::new(Slow { service: Duration::from_millis(service_ms), seen: seen.clone() }) as Box<dyn Target>)
        .collect();
    let schedule: Vec<u64> = (0..n).map(|i| i * interval_ms * 1_000_000).collect();
    let mut ops = OperationStream::new(&CoreWorkload::preset("a").unwrap(), 1).unwrap();
    let log = run(&schedule, &mut ops, targets, ExecutorConfig { stop_after_ns, ..ExecutorConfig::default() }).unwrap();
    let seen = seen.lock().unwrap().clone();
    (log, seen)
}

#[test]
fn latency_counts_from_the_scheduled_time_when_the_pool_falls_behind() {
    // One worker, 3 ms per request, one due every 1 ms: request i waits about 2 i ms.
    let (log, _) = run_with(1, 3, 1, 40);
    assert_eq!(log.records.len(), 40);
    assert!(log.waited_for_worker > 30, "{}", log.waited_for_worker);
    for (i, r) in log.records.iter().enumerate() {
        assert_eq!(r.index, i as u64);
        assert!(r.start_ns >= r.scheduled_ns && r.end_ns > r.start_ns);
        assert!(r.latency_ns() >= r.end_ns - r.start_ns);
    }
    let last = log.records.last().unwrap();
    assert!(last.latency_ns() >= 39 * 2_000_000 + 3_000_000, "the backlog shows in the latency: {}", last.latency_ns());
    let s = log.summary();
    assert!(s.latency.p50_ns > 10 * s.service.p50_ns, "{s:?}");
    assert!(s.scheduling_error.count < 5, "late starts caused by the busy pool are not the executor's error");
}

#[test]
fn every_request_reaches_a_worker_once_with_the_workloads_key() {
    let (log, seen) = run_with(4, 2, 1, 100);
    let s = log.summary();
    assert_eq!((s.requests, s.failed), (100, 0));
    assert!(log.records.iter().enumerate().all(|(i, r)| r.index == i as u64 && r.start_ns >= r.scheduled_ns));
    // A request takes at least its 2 ms of service, whatever else runs on the machine.
    assert!(s.latency.min_ns >= 2_000_000 && s.service.min_ns >= 2_000_000, "{s:?}");
    // The first request finds every worker free, so some scheduling error is always measured.
    assert!(s.scheduling_error.count >= 1);
    let mut ops = OperationStream::new(&CoreWorkload::preset("a").unwrap(), 1).unwrap();
    let w = CoreWorkload::preset("a").unwrap();
    let mut expected: Vec<Vec<u8>> = (0..100).map(|_| w.key(ops.next_op().record).into_bytes()).collect();
    let mut seen = seen;
    expected.sort();
    seen.sort();
    assert_eq!(seen, expected);
    let kinds: Vec<OpKind> =
        s.by_op.iter().map(|(k, _)| if k == "read" { OpKind::Read } else { OpKind::Update }).collect();
    assert_eq!(kinds, vec![OpKind::Read, OpKind::Update]);
}

#[test]
fn only_requests_a_free_worker_could_start_count_as_scheduling_error() {
    // Two workers. Requests 0 and 1 find both free; 2 is due while both are busy (it waits
    // 50 ns, the pool's fault, not the executor's); 3 is due after 0 and 1 ended, 2 still busy.
    let record = |index, scheduled_ns, start_ns, end_ns| RequestRecord {
        index,
        op: OpKind::Read,
        scheduled_ns,
        start_ns,
        end_ns,
        ok: true,
        found: true,
    };
    let log = RunLog {
        records: vec![record(0, 0, 10, 100), record(1, 5, 15, 200), record(2, 50, 100, 300), record(3, 250, 270, 280)],
        waited_for_worker: 1,
        workers: 2,
        unissued: 0,
    };
    let s = log.summary();
    assert_eq!(s.scheduling_error.count, 3);
    assert_eq!(s.scheduling_error.sum_ns, 10 + 10 + 20);
    assert_eq!(s.latency.max_ns, 250);
    assert_eq!(s.waited_for_worker, 1);
}

#[test]
fn a_run_stops_issuing_at_its_time_limit_and_counts_what_it_left() {
    // One worker at 20 ms per request, one due every 1 ms, stopped after 100 ms: the pool
    // falls behind, so only a handful are issued, whatever the machine's speed, and the rest
    // are counted, not run.
    let (log, seen) = run_until(1, 20, 1, 1000, Some(100_000_000));
    let s = log.summary();
    assert!(s.requests >= 1 && s.requests <= 7, "{}", s.requests);
    assert_eq!(s.requests + s.unissued, 1000);
    assert_eq!(seen.len() as u64, s.requests);
    // Without a limit nothing is left.
    let (log, _) = run_with(2, 1, 1, 20);
    assert_eq!(log.summary().unissued, 0);
}
