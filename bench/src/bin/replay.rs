//! Times one replay of a trace file through a named system, exactly as `smrlab sim` runs it
//! (footprint pass, build, replay) but without Python, for paired before/after timings:
//!
//!     replay SYSTEM TRACE [key=value ...]
//!
//! Prints one JSON line with the requests replayed, the seconds taken and the total simulated
//! I/O time (so two builds can be checked to compute the same thing).

use smr_sim::runner::run;
use smrlab_bench::{replay_spec, report};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [system, trace, params @ ..] = args.as_slice() else {
        eprintln!("usage: replay SYSTEM TRACE [key=value ...]");
        std::process::exit(2);
    };
    let spec = replay_spec(system, std::path::Path::new(trace), params);
    let start = std::time::Instant::now();
    match run(&spec, None) {
        Ok(out) => report(&format!("replay {system}"), out.report.requests, start.elapsed().as_secs_f64(),
                          serde_json::json!({"total_io_ns": out.report.total_io_ns})),
        Err(e) => {
            eprintln!("replay: {e}");
            std::process::exit(2);
        }
    }
}
