//! Shared helpers of the benchmark binaries: timing a closure and printing one JSON line per
//! figure, so `bench/run.py` can collect them. Wall-clock time is measured here and only here.

pub mod heap;

use std::time::Instant;

/// Runs `f` `repeats` times and returns the best (shortest) wall time in seconds with its result.
pub fn best_of<T>(repeats: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best: Option<(f64, T)> = None;
    for _ in 0..repeats.max(1) {
        let start = Instant::now();
        let out = f();
        let secs = start.elapsed().as_secs_f64();
        if best.as_ref().is_none_or(|(b, _)| secs < *b) {
            best = Some((secs, out));
        }
    }
    best.expect("at least one repeat")
}

/// The run `smrlab sim` makes of `trace` through `system` with `params`, replayed back to back
/// (closed loop, no warm-up, no series, no progress): what the replay benchmarks time.
pub fn replay_spec(system: &str, trace: &std::path::Path, params: &[impl AsRef<str>]) -> smr_sim::runner::RunSpec {
    let params: Vec<&str> = params.iter().map(AsRef::as_ref).collect();
    serde_json::from_value(serde_json::json!({
        "system": system,
        "trace": trace,
        "params": params,
        "engine": {"mode": "closed", "progress_every": 0},
    }))
    .expect("a valid run spec")
}

/// The cache blocks a run looked up (reads and writes), its block accesses; 0 for a system
/// without a block cache.
pub fn block_accesses(report: &smr_kernel::RunReport) -> u64 {
    report.counters.get("read_lookups") + report.counters.get("write_lookups")
}

/// Prints one figure as a JSON line: `{"bench": name, "items": n, "seconds": s, "per_second": n/s, ...extra}`.
pub fn report(name: &str, items: u64, seconds: f64, extra: serde_json::Value) {
    let mut line = serde_json::json!({
        "bench": name,
        "items": items,
        "seconds": seconds,
        "per_second": items as f64 / seconds,
    });
    if let (Some(obj), Some(more)) = (line.as_object_mut(), extra.as_object()) {
        obj.extend(more.clone());
    }
    println!("{line}");
}

/// A `/proc/self/status` memory figure in KiB (`"VmRSS"`, `"VmHWM"`), or 0 where there is none.
pub fn proc_status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with(field)).and_then(|l| l.split_whitespace().nth(1)?.parse().ok()))
        .unwrap_or(0)
}
