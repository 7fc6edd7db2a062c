//! FluidSMR closed-loop replay throughput on a 460 GB partition (§7.1's prn_1 at usage 0.9:
//! a 413.6 GiB address range, 1840 SMR zones), with a prn_1-shaped synthetic trace of 2 M
//! requests held in memory (Table 1: 24.66 % writes of 11 KiB on average; the written core and a
//! sparse area of single-block writes reaching the maximum offset), for fluid-smr and, beside it,
//! swap-only and +cache-fix; and the memory FluidSMR declares for that partition (zone map,
//! NSW-Range tracking at 4 KiB, mapping-table quota). Target (issue 14): >= 1 M requests/s for
//! fluid-smr on one core.

use smr_core::{Params, Request};
use smr_kernel::ok_requests;
use smr_sim::registry::build;
use smr_sim::{Engine, EngineConfig, IoCtx};
use smr_trace::synth::{Synth, SynthConfig};
use smr_trace::TraceStats;
use smrlab_bench::{best_of, report};

const GIB: f64 = (1u64 << 30) as f64;

fn main() {
    let max_offset = 413.6 * GIB;
    let core = 3.0 * GIB;
    let synth = [
        "requests=2000000".to_string(),
        "write_ratio=0.2466".to_string(),
        "sizes=4k:86,64k:14".to_string(),
        "hot_fraction=0.2".to_string(),
        format!("written_range={}", core as u64),
        format!("accessed_range={}", core as u64),
        "sparse_fraction=0.05".to_string(),
        format!("sparse_range={}", (max_offset - core) as u64),
        "seed=1".to_string(),
    ];
    let mut params = Params::parse(&synth).expect("synth parameters");
    let requests: Vec<Request> = Synth::new(SynthConfig::from_params(&mut params).expect("synth")).collect();
    let footprint = TraceStats::compute(ok_requests(&requests)).expect("stats").into_footprint();
    for scheme in ["fluid-smr", "swap-only", "+cache-fix"] {
        let (seconds, (latency, gauges)) = best_of(3, || {
            let mut ctx = IoCtx::new();
            let mut p = Params::parse(&[format!("scheme={scheme}")]).expect("params");
            let mut sys = build("fluid", &mut p, footprint.clone(), 0, &mut ctx).expect("build");
            let r = Engine::new(EngineConfig::default())
                .run(sys.as_mut(), &mut ctx, ok_requests(&requests))
                .expect("replay");
            (r.derived.get("mean_latency_ns").copied().unwrap_or(0.0), r.gauges)
        });
        let gauge = |name: &str| gauges.iter().find(|(n, _)| n == name).map_or(0.0, |(_, v)| *v);
        report(
            &format!("replay fluid {scheme} (460 GB partition)"),
            requests.len() as u64,
            seconds,
            serde_json::json!({
                "mean_latency_ms": latency / 1e6,
                "cmr_zones": gauge("cmr_zones"),
                "smr_zones": gauge("smr_zones"),
                "cache_zones": gauge("cache_zones"),
                "nsw_tracking_bytes": gauge("nsw_tracking_bytes"),
                "zone_map_bytes": gauge("zone_map_bytes"),
                "cache_map_quota_bytes": gauge("cache_map_quota_bytes"),
                "memory_bytes": gauge("memory_bytes"),
            }),
        );
    }
}
