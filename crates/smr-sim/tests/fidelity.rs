//! Timing fidelity across systems on the same disk: what a system adds to a plain disk should
//! be what its design costs, not an artefact of how the simulator rounds or lays out requests.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use smr_core::{Op, Params, Request};
use smr_kernel::{ok_requests, Engine, EngineConfig, IoCtx};
use smr_sim::registry;
use smr_trace::TraceStats;

/// Reads as real traces have them: 512-byte aligned, of any length, often continuing the
/// previous one (so neighbouring reads share a 4 KiB block), otherwise anywhere in 8 GiB.
fn unaligned_reads(count: usize, seed: u64) -> Vec<Request> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut at = 0u64;
    (0..count as u64)
        .map(|i| {
            if rng.gen_bool(0.3) {
                at = rng.gen_range(0..(8u64 << 30) / 512) * 512;
            }
            let len = rng.gen_range(1..=128u64) * 512;
            let req = Request::new(i * 1_000_000, Op::Read, at, len);
            at += len;
            req
        })
        .collect()
}

fn total_io_ns(system: &str, params: &[&str], reqs: &[Request]) -> u64 {
    let footprint = TraceStats::compute(ok_requests(reqs)).unwrap().into_footprint();
    let mut p = Params::parse(params).unwrap();
    let mut ctx = IoCtx::new();
    let mut s = registry::build(system, &mut p, footprint, 0, &mut ctx).unwrap();
    Engine::new(EngineConfig::default()).run(s.as_mut(), &mut ctx, ok_requests(reqs)).unwrap().total_io_ns
}

#[test]
fn on_reads_alone_drive_managed_smr_costs_what_a_plain_disk_costs() {
    // With the drive's cache, and without it (then sector-exact timing alone must do it).
    let reqs = unaligned_reads(20_000, 1);
    for disk in ["disk=st5000as0011", "disk=desktop7200"] {
        for cache in ["disk_cache=preset", "disk_cache=off"] {
            let cmr = total_io_ns("cmr", &[disk, cache], &reqs) as f64;
            let smr = total_io_ns("dmsmr", &[disk, cache], &reqs) as f64;
            assert!((smr / cmr - 1.0).abs() < 0.02, "{disk} {cache}: dmsmr {smr} vs cmr {cmr} ns");
        }
    }
}
