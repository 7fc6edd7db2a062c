//! Trace reading throughput: smrlab's memory-mapped binary format, MSR Cambridge CSV and the
//! one-block-per-line text format, each read in full (every request decoded) from a synthetic
//! trace written to a temporary folder. Targets (issue 2): smrbin ≥ 50 M requests/s, MSR CSV ≥
//! 5 M lines/s on one core (issue 18: smrbin ≥ 200 M). The block format writes a line per 4 KiB
//! block, so its item count is its line count.

use smr_core::Params;
use smr_trace::synth::{Synth, SynthConfig};
use smr_trace::{open, write_all};
use smrlab_bench::{best_of, report};

const REQUESTS: u64 = 5_000_000;

fn main() {
    let dir = std::env::temp_dir().join(format!("smrlab-bench-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temporary folder");
    let mut params = Params::parse(&[format!("requests={REQUESTS}"), "preset=prn".to_string()]).expect("valid params");
    let cfg = SynthConfig::from_params(&mut params).expect("valid synth config");
    for (name, format) in [("trace.smrbin", "smrbin"), ("trace.csv", "msr"), ("trace.blocks", "blocks")] {
        let path = dir.join(name);
        write_all(&path, Some(format), Synth::new(cfg.clone()).map(Ok)).expect("write trace");
        let (seconds, (items, checksum)) = best_of(3, || {
            open(&path, Some(format), &mut Params::new())
                .expect("open trace")
                .map(|r| r.expect("valid record").offset)
                .fold((0u64, 0u64), |(n, sum), offset| (n + 1, sum.wrapping_add(offset)))
        });
        report(&format!("read {format}"), items, seconds, serde_json::json!({"checksum": checksum}));
    }
    std::fs::remove_dir_all(&dir).ok();
}
