//! Memory per cached block of the SSD cache policies: fills a cache of two million 4 KiB blocks
//! (distinct writes, a plain disk below) and divides the heap it holds then (counted by the
//! allocator: index, per-slot tables, recency lists, free slots) by the number of cached blocks.
//! Target (issue 18): at most 48 bytes per cached block for lru and pore.

use smr_core::{Op, Params, Request};
use smr_sim::registry::build;
use smr_sim::IoCtx;
use smr_trace::Footprint;
use smrlab_bench::heap::{self, Counting};
use smrlab_bench::report;

#[global_allocator]
static HEAP: Counting = Counting;

const BLOCKS: u64 = 2_000_000;

fn main() {
    let footprint = Footprint::dense(4 * BLOCKS * 4096, 4 * BLOCKS * 4096, 4 * BLOCKS * 4096);
    for policy in ["lru", "pore"] {
        let before = heap::current();
        let start = std::time::Instant::now();
        let mut ctx = IoCtx::new();
        let mut params = Params::parse(&[
            format!("policy={policy}"),
            format!("cache={BLOCKS}blocks"),
            "below=cmr".into(),
            "period=100000".into(),
        ])
        .expect("params");
        let mut cache = build("cache", &mut params, footprint.clone(), 0, &mut ctx).expect("build");
        for block in 0..BLOCKS {
            cache.submit(&Request::new(0, Op::Write, block * 4 * 4096, 4096), &mut ctx).expect("write");
        }
        let bytes = heap::current() - before;
        report(
            &format!("cache memory {policy}"),
            BLOCKS,
            start.elapsed().as_secs_f64(),
            serde_json::json!({"bytes_per_cached_block": bytes as f64 / BLOCKS as f64}),
        );
        drop(cache);
    }
}
