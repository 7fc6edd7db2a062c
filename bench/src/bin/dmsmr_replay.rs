//! Closed-loop replay throughput of `dmsmr` (and `cmr` beside it) on a synthetic trace held in
//! memory, plus the process's peak memory. Target (issue 2): dmsmr ≥ 5 M requests/s on one core,
//! memory independent of trace length apart from the system's own state: the same requests are
//! streamed once and ten times over (same footprint, ten times the length) and the resident
//! memory after each replay is reported.

use smr_core::{Params, Request};
use smr_kernel::ok_requests;
use smr_sim::registry::build;
use smr_sim::{Engine, EngineConfig, IoCtx};
use smr_trace::synth::{Synth, SynthConfig};
use smr_trace::TraceStats;
use smrlab_bench::{best_of, proc_status_kib, report};

fn main() {
    let mut params = Params::parse(&["requests=2000000", "preset=wdev"]).expect("valid params");
    let cfg = SynthConfig::from_params(&mut params).expect("valid synth config");
    let requests: Vec<Request> = Synth::new(cfg).collect();
    let footprint = TraceStats::compute(ok_requests(&requests)).expect("stats").into_footprint();
    for system in ["cmr", "dmsmr"] {
        let (seconds, cleanings) = best_of(3, || {
            let mut ctx = IoCtx::new();
            let mut p = Params::new();
            let mut sys = build(system, &mut p, footprint.clone(), 0, &mut ctx).expect("build");
            let r = Engine::new(EngineConfig::default())
                .run(sys.as_mut(), &mut ctx, ok_requests(&requests))
                .expect("replay");
            r.counters.get("band_cleanings")
        });
        report(
            &format!("replay {system}"),
            requests.len() as u64,
            seconds,
            serde_json::json!({"band_cleanings": cleanings, "peak_rss_mib": proc_status_kib("VmHWM") / 1024}),
        );
    }
    for repeats in [1usize, 10] {
        let streamed = requests.len() * repeats;
        let (seconds, rss_kib) = best_of(1, || {
            let mut ctx = IoCtx::new();
            let mut p = Params::new();
            let mut sys = build("dmsmr", &mut p, footprint.clone(), 0, &mut ctx).expect("build");
            let stream = requests.iter().cycle().take(streamed).map(|r| Ok(*r));
            Engine::new(EngineConfig::default()).run(sys.as_mut(), &mut ctx, stream).expect("replay");
            proc_status_kib("VmRSS")
        });
        report(
            &format!("replay dmsmr streamed x{repeats}"),
            streamed as u64,
            seconds,
            serde_json::json!({"rss_after_mib": rss_kib as f64 / 1024.0}),
        );
    }
}
