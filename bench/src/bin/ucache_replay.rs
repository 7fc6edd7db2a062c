//! uCache closed-loop replay throughput on a write-heavy, spatially local synthetic trace held in
//! memory, beside the E-region baseline; and the memory of uCache's map per cached bucket (a
//! cache of 409,600 buckets of 128 KiB filled by distinct writes, measured first, while the
//! process is fresh). Targets (issue 4): ≥ 3 M requests/s, ≤ 32 bytes of map per cached bucket.

use smr_core::{Op, Params, Request};
use smr_kernel::ok_requests;
use smr_sim::registry::build;
use smr_sim::{Engine, EngineConfig, IoCtx};
use smr_trace::synth::{Synth, SynthConfig};
use smr_trace::{Footprint, TraceStats};
use smrlab_bench::{best_of, proc_status_kib, report};

fn main() {
    let buckets = 409_600u64;
    let footprint = Footprint::dense((2 * buckets) << 17, (2 * buckets) << 17, (2 * buckets) << 17);
    let mut ctx = IoCtx::new();
    let mut p = Params::parse(&["bucket=128KiB", "promote=copy", "conventional=51GiB"]).expect("params");
    let mut sys = build("ucache", &mut p, footprint.clone(), 0, &mut ctx).expect("build");
    let before = proc_status_kib("VmRSS");
    let start = std::time::Instant::now();
    for bucket in 0..buckets {
        sys.submit(&Request::new(0, Op::Write, bucket << 17, 4096), &mut ctx).expect("write");
    }
    let bytes = proc_status_kib("VmRSS").saturating_sub(before) * 1024;
    report(
        "ucache map memory",
        buckets,
        start.elapsed().as_secs_f64(),
        serde_json::json!({"bytes_per_cached_bucket": bytes as f64 / buckets as f64}),
    );

    let mut params =
        Params::parse(&["requests=2000000", "write_ratio=0.9", "seq=0.6", "hot_fraction=0.6", "hot_regions=64"])
            .expect("params");
    let requests: Vec<Request> = Synth::new(SynthConfig::from_params(&mut params).expect("synth")).collect();
    let footprint = TraceStats::compute(ok_requests(&requests)).expect("stats").into_footprint();
    for system in ["ucache", "eregion"] {
        let (seconds, gc) = best_of(3, || {
            let mut ctx = IoCtx::new();
            let mut p = Params::new();
            let mut sys = build(system, &mut p, footprint.clone(), 0, &mut ctx).expect("build");
            Engine::new(EngineConfig::default())
                .run(sys.as_mut(), &mut ctx, ok_requests(&requests))
                .expect("replay")
                .counters
                .get("gc_cycles")
        });
        report(&format!("replay {system}"), requests.len() as u64, seconds, serde_json::json!({"gc_cycles": gc}));
    }
}
