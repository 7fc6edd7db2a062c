//! The machine's load-to-use latency at each level of its memory, measured by chasing pointers
//! through working sets of growing size: each load's address is the value the previous load
//! returned, so no two loads overlap and the time per load is the latency of wherever the
//! working set lives (L1, L2, L3, DRAM). `bench/bounds.py` multiplies these by the cache misses a
//! replay makes per block access to say how much of its time the memory can explain.
//!
//!     memory_latency
//!
//! The chain visits the working set's cache lines in a random order (one cycle through all of
//! them, so the hardware prefetcher cannot guess the next line); the seed is fixed. Not
//! measured: bandwidth, or latency under several outstanding misses.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use smrlab_bench::{best_of, report};

/// Words per 64-byte cache line: one pointer per line is chased, the rest of the line unused.
const LINE_WORDS: usize = 8;
const LOADS: usize = 20_000_000;

/// The working sets measured, bytes: inside L1, L2 and L3 of common machines, and well past them.
const WORKING_SETS: [usize; 6] = [16 << 10, 256 << 10, 4 << 20, 16 << 20, 64 << 20, 512 << 20];

/// A chain over `bytes` of memory: entry `line * LINE_WORDS` holds the index of the next line's
/// entry, the lines in one random cycle (Sattolo's order: a shuffled list linked head to tail).
fn chain(bytes: usize, rng: &mut ChaCha8Rng) -> Vec<usize> {
    let lines = bytes / 64;
    let mut order: Vec<usize> = (0..lines).collect();
    order.shuffle(rng);
    let mut next = vec![0usize; lines * LINE_WORDS];
    for (i, &line) in order.iter().enumerate() {
        next[line * LINE_WORDS] = order[(i + 1) % lines] * LINE_WORDS;
    }
    next
}

fn main() {
    let mut rng = ChaCha8Rng::seed_from_u64(0);
    for bytes in WORKING_SETS {
        let next = chain(bytes, &mut rng);
        let (seconds, _) = best_of(3, || {
            let mut at = 0usize;
            for _ in 0..LOADS {
                at = next[at];
            }
            std::hint::black_box(at)
        });
        report(
            &format!("memory latency, {} KiB working set", bytes >> 10),
            LOADS as u64,
            seconds,
            serde_json::json!({"working_set_bytes": bytes, "ns_per_load": seconds * 1e9 / LOADS as f64}),
        );
    }
}
