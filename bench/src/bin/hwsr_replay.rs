//! Open-loop replay throughput of `hwsr` with both caches (and `sblock` and `dmsmr` beside it,
//! in the same run) on the Table 3 Financial1 trace held in memory, and the heap bytes per
//! cached block of HWSR's MEM buffer and SSD cache (each filled with a million distinct blocks
//! and made to evict; the block map and LWA's scratch included). Targets (issue 13): hwsr >= 2 M
//! requests/s on one core, <= 64 bytes per cached block.
//!
//! Arguments `key=value` are parameters for the `hwsr` and `sblock` replays: e.g.
//! `fill=full disk_write_cache=false disk_queue_depth=1`, the defaults before the drive queued,
//! to time the replay without queueing against a build from before.

use smr_core::{Op, Params, Request};
use smr_kernel::{ok_requests, ReplayMode};
use smr_sim::registry::build;
use smr_sim::{Engine, EngineConfig, IoCtx};
use smr_trace::synth::{Synth, SynthConfig};
use smr_trace::{Footprint, TraceStats};
use smrlab_bench::heap::{self, Counting};
use smrlab_bench::{best_of, proc_status_kib, report};

#[global_allocator]
static HEAP: Counting = Counting;

const CACHED: u64 = 1 << 20;
const BLOCK: u64 = 64 << 10;

/// Blocks written or read past the first `CACHED`, so that the caches evict and LWA's scratch
/// (the lookup window and its counts, a quarter of the buffer) is allocated and counted too.
const EVICTING: u64 = 64;

/// Heap bytes per cached block (counted by the allocator: resident-set figures here moved by
/// tens of bytes with what the allocator kept from the run before) after `op` touches a million
/// distinct 64 KiB blocks of a fresh hwsr and `EVICTING` more. Blocks are taken 7,919 apart (a prime) over twice the cache, so the
/// blocks in LWA's window lie in as many segments as can be, the most its counts can hold.
fn bytes_per_cached_block(name: &str, params: &[&str], op: Op) {
    let span = 2 * CACHED;
    let footprint = Footprint::dense(span * BLOCK, span * BLOCK, span * BLOCK);
    let before = heap::current();
    let start = std::time::Instant::now();
    let mut ctx = IoCtx::new();
    let mut p = Params::parse(params).expect("params");
    let mut sys = build("hwsr", &mut p, footprint, 0, &mut ctx).expect("build");
    for i in 0..CACHED + EVICTING {
        sys.submit(&Request::new(0, op, i * 7919 % span * BLOCK, 4096), &mut ctx).expect("request");
    }
    let bytes = heap::current() - before;
    report(
        name,
        CACHED + EVICTING,
        start.elapsed().as_secs_f64(),
        serde_json::json!({"bytes_per_cached_block": bytes as f64 / CACHED as f64}),
    );
}

fn main() {
    bytes_per_cached_block("hwsr memory: MEM buffer", &["mem=64GiB", "ssd=none"], Op::Write);
    bytes_per_cached_block("hwsr memory: SSD cache", &["mem=none", "ssd=64GiB"], Op::Read);

    // Financial1 as `smrlab.hwsr_traces.recipe("financial1")` makes it (Table 3: a million
    // requests, 78.7 % writes of ~4.5 KB, reads of ~3.2 KB, 122 requests/s), replayed twice
    // over (the second time shifted past the first in time) for two million requests.
    let mut params = Params::parse(&[
        "requests=1000000",
        "seed=0",
        "write_ratio=0.787300",
        "size_unit=512",
        "sizes=2048:0.654436,9216:0.345564",
        "read_sizes=1536:0.681445,6656:0.318555",
        "written_range=334514812",
        "accessed_range=387860000",
        "hot_fraction=0.812204",
        "seq=0.2",
        "rate=122.048568",
    ])
    .expect("params");
    let once: Vec<Request> = Synth::new(SynthConfig::from_params(&mut params).expect("synth")).collect();
    let span = once.last().map_or(0, |r| r.time_ns + 1);
    let requests: Vec<Request> =
        once.iter().copied().chain(once.iter().map(|r| Request { time_ns: r.time_ns + span, ..*r })).collect();
    let footprint = TraceStats::compute(ok_requests(&requests)).expect("stats").into_footprint();
    let open = EngineConfig { mode: ReplayMode::Open { speedup: 1.0 }, progress_every: 0, ..EngineConfig::default() };
    let given: Vec<String> = std::env::args().skip(1).collect();
    for system in ["hwsr", "sblock", "dmsmr"] {
        let (seconds, rewritten) = best_of(3, || {
            let mut ctx = IoCtx::new();
            let mut p =
                if system == "dmsmr" { Params::new() } else { Params::parse(&given).expect("key=value parameters") };
            let mut sys = build(system, &mut p, footprint.clone(), 0, &mut ctx).expect("build");
            let r = Engine::new(open.clone()).run(sys.as_mut(), &mut ctx, ok_requests(&requests)).expect("replay");
            r.counters.get("segments_rewritten") + r.counters.get("band_cleanings")
        });
        report(
            &format!("open-loop replay {system}"),
            requests.len() as u64,
            seconds,
            serde_json::json!({"segments_rewritten_or_band_cleanings": rewritten, "peak_rss_mib": proc_status_kib("VmHWM") / 1024}),
        );
    }
}
