//! Known answers and invariants of the SSD cache framework and its policies.
//!
//! An integration test: the cache stacks over other systems, which it builds from the
//! registry by name (`below`), as users run it.

use proptest::prelude::*;
use smr_core::{Op, Params, Request};
use smr_kernel::metrics::{CounterValues, Counters, Gauges};
use smr_kernel::{ok_requests, BuildContext, Engine, EngineConfig, IoCtx, System};
use smr_sim::cache::{Cache, PARAMS};
use smr_sim::{registry, SimError};
use smr_trace::Footprint;

const GIB: u64 = 1 << 30;

fn build(params: &[&str], footprint: Footprint) -> Result<(Box<dyn Cache>, IoCtx), SimError> {
    let mut ctx = IoCtx::new();
    let mut p = Params::parse(params).unwrap();
    let c = BuildContext::new(&mut p, footprint, 3, &mut ctx, registry::SYSTEMS)
        .construct(PARAMS, smr_sim::cache::build)?;
    p.finish()?;
    Ok((c, ctx))
}

fn counters(system: &dyn System) -> Counters {
    let mut counters = Counters::default();
    system.counters(&mut counters);
    counters
}

fn gauge(system: &dyn System, name: &str) -> f64 {
    let mut gauges = Gauges::default();
    system.gauges(&mut gauges);
    gauges.get(name).unwrap()
}

fn fp() -> Footprint {
    Footprint::dense(GIB, GIB, GIB)
}

fn run(params: &[&str], reqs: &[Request]) -> CounterValues {
    let (mut c, mut ctx) = build(params, fp()).unwrap();
    let r = Engine::new(EngineConfig::default()).run(&mut *c, &mut ctx, ok_requests(reqs)).unwrap();
    r.counters
}

fn w(block: u64) -> Request {
    Request::new(0, Op::Write, block * 4096, 4096)
}

fn r(block: u64) -> Request {
    Request::new(0, Op::Read, block * 4096, 4096)
}

/// The default cache is 2 % of the capacity of the bands the trace writes (wo) or touches (rw),
/// PORE Table I's range: two written 1 MiB bands make 2 MiB, 41,943 bytes, ten whole blocks;
/// a third band only read makes fifteen in a read-write cache. The written blocks alone (two)
/// would not make one.
#[test]
fn the_default_cache_is_a_share_of_the_touched_bands() {
    let grain = smr_trace::EXTENT_GRAIN;
    let footprint = Footprint {
        written_bytes: 8192,
        accessed_bytes: 12288,
        max_end: 64 << 20,
        written_extents: vec![(0, grain), (40 << 20, grain)],
        accessed_extents: vec![(0, grain), (40 << 20, grain), (50 << 20, grain)],
        requests: 0,
    };
    let blocks = |mode: &str| {
        let (c, _) = build(&[&format!("mode={mode}"), "band_size=1MiB"], footprint.clone()).unwrap();
        gauge(&*c, "cache_blocks")
    };
    assert_eq!(blocks("wo"), 10.0);
    assert_eq!(blocks("rw"), 15.0);
}

#[test]
fn lru_by_hand() {
    // Two blocks: 1 2 1 3 2 1 → hits only on the second access of 1.
    let c = run(&["policy=lru", "cache=2blocks", "below=cmr"], &[r(1), r(2), r(1), r(3), r(2), r(1)]);
    assert_eq!((c.get("read_lookups"), c.get("read_hits")), (6, 1));
    assert_eq!(c.get("evicted_clean_blocks"), 3);
    let c = run(&["policy=lru", "cache=2blocks", "below=cmr"], &[w(1), w(2), w(1), w(3), r(1)]);
    assert_eq!((c.get("write_hits"), c.get("read_hits"), c.get("evicted_dirty_blocks")), (1, 1, 1));
}

#[test]
fn fifo_by_hand() {
    // Two blocks: 1 2 1 3 1 → FIFO evicts 1 (the first in) when 3 arrives despite its hit.
    let c = run(&["policy=fifo", "cache=2blocks", "below=cmr"], &[r(1), r(2), r(1), r(3), r(1)]);
    assert_eq!(c.get("read_hits"), 1);
    let c = run(&["policy=lru", "cache=2blocks", "below=cmr"], &[r(1), r(2), r(1), r(3), r(1)]);
    assert_eq!(c.get("read_hits"), 2);
}

#[test]
fn lru_band_evicts_the_whole_band() {
    // 1 MiB bands (256 blocks), 4 cached blocks: evicting block 0 takes block 1 (same band) too.
    let c = run(
        &["policy=lru-band", "cache=4blocks", "band_size=1MiB", "buffer=1MiB"],
        &[w(0), w(1), w(256), w(512), w(768)],
    );
    assert_eq!(c.get("evicted_dirty_blocks"), 2);
    let c =
        run(&["policy=lru", "cache=4blocks", "band_size=1MiB", "buffer=1MiB"], &[w(0), w(1), w(256), w(512), w(768)]);
    assert_eq!(c.get("evicted_dirty_blocks"), 1);
}

#[test]
fn write_only_mode_bypasses_reads() {
    let c = run(&["policy=lru", "mode=wo", "cache=4blocks", "below=cmr"], &[r(1), r(1), w(2), r(2)]);
    assert_eq!((c.get("read_lookups"), c.get("read_hits")), (3, 1), "only the written block is served from the cache");
    assert_eq!(c.get("evicted_clean_blocks"), 0);
}

/// Eq. 2 of the paper on a constructed stream: random single-block writes over 64 zones, zones
/// aligned with bands, so each open zone costs one band rewrite per period.
fn eq2(period_blocks: u64) -> (f64, f64) {
    let zone_blocks = 256u64; // 1 MiB zones and bands
    let zones = 64u64;
    let mut state = 7u64;
    let reqs: Vec<Request> = (0..60_000)
        .map(|_| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            w((state >> 11) % (zones * zone_blocks))
        })
        .collect();
    let period = format!("period={period_blocks}");
    let params = [
        "policy=pore",
        "scheme=cf",
        "cache=2048blocks",
        "zone=1MiB",
        "band_size=1MiB",
        "buffer=512blocks",
        period.as_str(),
    ];
    let c = run(&params, &reqs);
    let s_or = c.get("pore_open_zones_total") as f64 / c.get("pore_periods") as f64 * zone_blocks as f64;
    let r_wa = c.get("band_bytes_written") as f64 / c.get("buffer_bytes_evicted") as f64;
    (s_or, r_wa)
}

#[test]
fn eq2_period_at_least_the_write_buffer() {
    let (s_or, r_wa) = eq2(512);
    let expected = s_or / 512.0;
    assert!((r_wa / expected - 1.0).abs() < 0.15, "R_wa {r_wa} vs S_or/S_wb {expected}");
}

#[test]
fn eq2_period_below_the_write_buffer() {
    let (s_or, r_wa) = eq2(128);
    let expected = s_or / 128.0;
    assert!((r_wa / expected - 1.0).abs() < 0.15, "R_wa {r_wa} vs S_or/L_p {expected}");
}

#[test]
fn bad_parameters_are_named() {
    for (params, key) in [
        (vec!["cache=0"], "cache"),
        (vec!["cache=2GiB"], "cache"),
        (vec!["zone=0"], "zone"),
        (vec!["period=0"], "period"),
        (vec!["policy=arc"], "policy"),
        (vec!["scheme=xx"], "scheme"),
        (vec!["policy=lru-band", "below=cmr"], "policy"),
    ] {
        match build(&params, fp()) {
            Err(SimError::Param(e)) => assert_eq!(e.param, key, "{params:?}"),
            Err(other) => panic!("{params:?}: {other}"),
            Ok(_) => panic!("{params:?} accepted"),
        }
    }
}

/// A random stream of single-block reads and writes over `blocks` blocks (xorshift, seeded).
fn random_stream(requests: usize, blocks: u64, mut state: u64) -> Vec<Request> {
    (0..requests)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let block = (state >> 16) % blocks;
            if state & 3 == 0 {
                w(block)
            } else {
                r(block)
            }
        })
        .collect()
}

/// A cache large enough to prefetch (for the requests the engine names ahead, and for its next
/// victims) is still exact LRU: on a stream through the engine, its hits and evictions are a
/// model's, kept in a map and a tick-ordered tree.
#[test]
fn a_prefetching_cache_is_exact_lru() {
    const SLOTS: usize = 40_000;
    let reqs = random_stream(300_000, 60_000, 0x9e37_79b9);
    let cache = format!("cache={SLOTS}blocks");
    let c = run(&["policy=lru", cache.as_str(), "below=cmr"], &reqs);
    // Model: block -> (tick of last use, dirty); tick -> block.
    let mut by_block = std::collections::HashMap::new();
    let mut by_tick = std::collections::BTreeMap::new();
    let (mut read_hits, mut write_hits, mut evicted_dirty, mut evicted_clean) = (0, 0, 0, 0);
    for (tick, req) in reqs.iter().enumerate() {
        let (block, write) = (req.offset / 4096, req.op == Op::Write);
        let dirty = match by_block.remove(&block) {
            Some((last, dirty)) => {
                by_tick.remove(&last);
                if write {
                    write_hits += 1
                } else {
                    read_hits += 1
                }
                dirty || write
            }
            None => {
                if by_block.len() == SLOTS {
                    let (_, victim) = by_tick.pop_first().unwrap();
                    let (_, was_dirty) = by_block.remove(&victim).unwrap();
                    if was_dirty {
                        evicted_dirty += 1
                    } else {
                        evicted_clean += 1
                    }
                }
                write
            }
        };
        by_block.insert(block, (tick, dirty));
        by_tick.insert(tick, block);
    }
    assert!(evicted_dirty > 10_000 && evicted_clean > 10_000, "the stream evicts both kinds");
    let counts =
        (c.get("read_hits"), c.get("write_hits"), c.get("evicted_dirty_blocks"), c.get("evicted_clean_blocks"));
    assert_eq!(counts, (read_hits, write_hits, evicted_dirty, evicted_clean));
}

/// PORE at a size that prefetches its victim candidates: every block made dirty is written back
/// exactly once or still dirty in the cache, as in the small-cache property below.
#[test]
fn a_prefetching_pore_cache_writes_back_every_dirty_block() {
    let params =
        ["policy=pore", "cache=40000blocks", "band_size=1MiB", "zone=1MiB", "period=4000", "buffer=4096blocks"];
    let (mut c, mut ctx) = build(&params, fp()).unwrap();
    let mut became_dirty = 0u64;
    for req in random_stream(200_000, 60_000, 0x5eed) {
        let block = req.offset / 4096;
        if req.op == Op::Write && !c.holds_dirty(block) {
            became_dirty += 1;
        }
        c.submit(&req, &mut ctx).unwrap();
    }
    let counters = counters(&*c);
    assert!(counters.get("evicted_dirty_blocks") > 10_000, "the stream evicts dirty blocks");
    assert_eq!(became_dirty, counters.get("evicted_dirty_blocks") + gauge(&*c, "cache_dirty_blocks") as u64);
    assert_eq!(counters.get("buffer_bytes_written") / 4096, counters.get("evicted_dirty_blocks"));
}

proptest! {
    // Failing cases are kept beside this file (proptest looks for them next to a lib.rs only).
    #![proptest_config(ProptestConfig {
        failure_persistence: Some(Box::new(proptest::test_runner::FileFailurePersistence::WithSource("regressions"))),
        ..ProptestConfig::default()
    })]
    #[test]
    fn occupancy_and_write_back_conservation(
        ops in proptest::collection::vec((any::<bool>(), 0u64..3000), 1..400),
        policy in prop_oneof![Just("lru"), Just("fifo"), Just("lru-band"), Just("pore"), Just("pore base=fifo")],
        cap in 1u64..64,
    ) {
        let cache = format!("cache={cap}blocks");
        let mut params: Vec<String> = format!("policy={policy}").split(' ').map(str::to_string).collect();
        params.extend([cache, "band_size=1MiB".into(), "zone=1MiB".into(), "period=8".into(), "buffer=64blocks".into()]);
        let params: Vec<&str> = params.iter().map(String::as_str).collect();
        let (mut c, mut ctx) = build(&params, fp()).unwrap();
        // Writes that made a block dirty in the cache (a write to a block cached dirty already
        // overwrites it and makes nothing new to write back).
        let mut became_dirty = 0u64;
        for (is_write, block) in ops {
            let req = if is_write { w(block) } else { r(block) };
            if is_write && !c.holds_dirty(block) {
                became_dirty += 1;
            }
            c.submit(&req, &mut ctx).unwrap();
            prop_assert!(gauge(&*c, "cache_occupancy_blocks") as u64 <= cap);
            if is_write {
                // A read after a write is served by the cache while the block is cached.
                let before = counters(&*c).get("read_hits");
                c.submit(&r(block), &mut ctx).unwrap();
                prop_assert_eq!(counters(&*c).get("read_hits"), before + 1);
            }
        }
        let dirty_now = gauge(&*c, "cache_dirty_blocks") as u64;
        let counters = counters(&*c);
        // Every block made dirty is still dirty in the cache or was evicted dirty, and every
        // dirty eviction wrote its block to the SMR disk exactly once.
        prop_assert_eq!(became_dirty, counters.get("evicted_dirty_blocks") + dirty_now);
        let written_back = counters.get("buffer_bytes_written") / 4096;
        prop_assert_eq!(written_back, counters.get("evicted_dirty_blocks"));
    }
}
