//! Replay speed and memory at scale (issue 18): synthesizes traces of 1 M and 16 M requests (and,
//! with `--long`, 45 M) over a fixed footprint, writes each as smrbin to a temporary directory,
//! and replays it through lru over a plain disk, pore-bl over dmsmr, dmsmr alone and uCache
//! exactly as `smrlab sim` does (footprint from the statistics the smrbin file carries, build,
//! replay). The footprint pass itself, which a trace in any other format needs, is timed apart. Then a 16 M-request trace over
//! a footprint fifty times larger, whose 2 % cache is about 340 k blocks, through lru and
//! pore-bl. Prints, per run, requests/s, 4 KiB block accesses/s (cache lookups for the caches)
//! and the peak heap, so per-request cost and memory can be compared across trace lengths. And
//! the heap the footprint pass needs per touched 4 KiB block, on those traces and on one whose
//! writes are half single blocks scattered over 256 GiB (sparse).
//!
//!     scale [--long]
//!
//! The traces are generated here and deleted afterwards (16 M requests are 384 MB of smrbin).

use std::path::Path;

use smr_core::Params;
use smr_sim::runner::run;
use smr_trace::pipeline::Pipeline;
use smr_trace::{open, write_all, TraceStats};
use smrlab_bench::heap::{self, Counting};
use smrlab_bench::{block_accesses, replay_spec, report};

#[global_allocator]
static HEAP: Counting = Counting;

/// 2 GiB written, 2.5 GiB accessed, whatever the length: a truly fixed footprint.
const FIXED: &[&str] = &["written_range=2GiB", "accessed_range=2560MiB"];
/// 48 GiB written, 64 GiB accessed: a 2 % cache of about 340 k blocks of 4 KiB.
const LARGE: &[&str] = &["written_range=48GiB", "accessed_range=64GiB"];

/// Half the writes single 4 KiB blocks scattered over 256 GiB.
const SPARSE: &[&str] = &["written_range=2GiB", "accessed_range=2560MiB", "sparse_fraction=0.5", "sparse_range=256GiB"];

const SYSTEMS: &[(&str, &str, &[&str])] = &[
    ("lru over cmr", "cache", &["policy=lru", "mode=rw", "below=cmr"]),
    ("pore-bl over dmsmr", "cache", &["policy=pore", "scheme=bl", "mode=rw"]),
    ("dmsmr", "dmsmr", &[]),
    ("ucache", "ucache", &[]),
];

fn synthesize(dir: &Path, name: &str, requests: u64, footprint: &[&str]) -> std::path::PathBuf {
    let path = dir.join(format!("{name}.smrbin"));
    let mut synth: Vec<String> = footprint.iter().map(|p| p.to_string()).collect();
    synth.push(format!("requests={requests}"));
    let pipeline = Pipeline { synth: Some(synth), ..Pipeline::default() };
    write_all(&path, None, pipeline.requests().expect("synthesizer parameters")).expect("trace written");
    path
}

fn replay(label: &str, trace: &Path, system: &str, params: &[&str]) {
    let spec = replay_spec(system, trace, params);
    let before = heap::current();
    heap::reset_peak();
    let start = std::time::Instant::now();
    let out = run(&spec, None).unwrap_or_else(|e| panic!("{label}: {e}"));
    let seconds = start.elapsed().as_secs_f64();
    let lookups = block_accesses(&out.report);
    let cache_blocks = out.report.gauges.iter().find(|(name, _)| name == "cache_blocks").map(|&(_, v)| v);
    report(
        label,
        out.report.requests,
        seconds,
        serde_json::json!({
            "block_accesses_per_second": (lookups > 0).then(|| lookups as f64 / seconds),
            "cache_blocks": cache_blocks,
            "peak_heap_bytes": heap::peak() - before,
            "total_io_ns": out.report.total_io_ns,
        }),
    );
}

/// Peak heap of the footprint pass (`TraceStats`) over `trace`, per touched 4 KiB block.
fn footprint_memory(label: &str, trace: &Path) {
    let before = heap::current();
    heap::reset_peak();
    let start = std::time::Instant::now();
    let stats = TraceStats::compute(open(trace, None, &mut Params::new()).expect("trace opens")).expect("trace reads");
    let seconds = start.elapsed().as_secs_f64();
    let bytes = heap::peak() - before;
    report(
        label,
        stats.requests,
        seconds,
        serde_json::json!({
            "touched_blocks": stats.unique_blocks_touched,
            "peak_heap_bytes": bytes,
            "heap_bytes_per_touched_block": bytes as f64 / stats.unique_blocks_touched.max(1) as f64,
        }),
    );
}

fn main() {
    let long = std::env::args().any(|a| a == "--long");
    let dir = std::env::temp_dir().join(format!("smrlab-scale-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary directory");
    let mut lengths = vec![1_000_000u64, 16_000_000];
    if long {
        lengths.push(45_000_000);
    }
    for &n in &lengths {
        let trace = synthesize(&dir, &format!("fixed-{n}"), n, FIXED);
        footprint_memory(&format!("scale footprint pass, {}M requests, fixed footprint", n / 1_000_000), &trace);
        for (name, system, params) in SYSTEMS {
            replay(&format!("scale {name}, {}M requests, fixed footprint", n / 1_000_000), &trace, system, params);
        }
        std::fs::remove_file(&trace).ok();
    }
    let sparse = synthesize(&dir, "sparse", 1_000_000, SPARSE);
    footprint_memory("scale footprint pass, 1M requests, sparse", &sparse);
    std::fs::remove_file(&sparse).ok();
    let trace = synthesize(&dir, "large", 16_000_000, LARGE);
    footprint_memory("scale footprint pass, 16M requests, 340k-block cache", &trace);
    for (name, system, params) in &SYSTEMS[..2] {
        replay(&format!("scale {name}, 16M requests, 340k-block cache"), &trace, system, params);
    }
    std::fs::remove_dir_all(&dir).ok();
}
