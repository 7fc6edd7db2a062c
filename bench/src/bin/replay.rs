//! Times one replay of a trace file through a named system, exactly as `smrlab sim` runs it
//! (footprint pass, build, replay) but without Python, for paired before/after timings:
//!
//!     replay SYSTEM TRACE [key=value ...] [--report FILE]
//!
//! Prints one JSON line with the requests replayed, the seconds taken, the total simulated I/O
//! time, the cache blocks looked up (for a cache; `bench/bounds.py` counts per block access) and
//! the peak heap of the run. `--report FILE` also writes the whole run output (counters,
//! latency histograms, channels, parameters) as JSON, so two builds can be checked byte for
//! byte to compute the same thing.

use smr_sim::runner::run;
use smrlab_bench::heap::{self, Counting};
use smrlab_bench::{block_accesses, replay_spec, report};

#[global_allocator]
static HEAP: Counting = Counting;

fn fail(message: &str) -> ! {
    eprintln!("replay: {message}");
    std::process::exit(2);
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let report_file = match args.iter().position(|a| a == "--report") {
        Some(i) if i + 1 < args.len() => Some(args.drain(i..i + 2).nth(1).expect("two drained")),
        Some(_) => fail("--report needs a file name"),
        None => None,
    };
    let [system, trace, params @ ..] = args.as_slice() else {
        fail("usage: replay SYSTEM TRACE [key=value ...] [--report FILE]");
    };
    let spec = replay_spec(system, std::path::Path::new(trace), params);
    let start = std::time::Instant::now();
    match run(&spec, None) {
        Ok(out) => {
            let seconds = start.elapsed().as_secs_f64();
            if let Some(file) = report_file {
                let json = serde_json::to_string_pretty(&out).expect("a run output serialises");
                std::fs::write(&file, json).unwrap_or_else(|e| fail(&format!("cannot write {file}: {e}")));
            }
            report(
                &format!("replay {system}"),
                out.report.requests,
                seconds,
                serde_json::json!({
                    "total_io_ns": out.report.total_io_ns,
                    "block_accesses": block_accesses(&out.report),
                    "peak_heap_bytes": heap::peak(),
                }),
            );
        }
        Err(e) => fail(&e.to_string()),
    }
}
