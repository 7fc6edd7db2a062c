//! Known answers worked by hand and the device-rule invariant of uCache.

use proptest::prelude::*;
use smr_core::{Op, Params, Request};
use smr_trace::Footprint;

use super::{UCache, PARAMS};
use smr_kernel::metrics::CounterValues as Counters;
use smr_kernel::{BuildContext, IoCtx, SimError, System};

const KIB: u64 = 1024;
const MIB: u64 = 1 << 20;

fn run(extra: &[&str], reqs: &[Request]) -> Result<Counters, SimError> {
    super::super::replay_small("ucache", extra, reqs)
}

fn w(offset: u64, len: u64) -> Request {
    Request::new(0, Op::Write, offset, len)
}

#[test]
fn promotions_hits_and_one_gc_cycle_by_hand() {
    // Eight 4 KiB writes into eight buckets of zone 0 and 1 fill the cache; a rewrite hits.
    let mut reqs: Vec<Request> = (0..8).map(|i| w(i * 256 * KIB, 4 * KIB)).collect();
    reqs.push(w(0, 4 * KIB));
    let c = run(&[], &reqs).unwrap();
    assert_eq!((c.get("promotions"), c.get("bucket_write_hits"), c.get("gc_cycles")), (8, 1, 0));
    assert_eq!(c.get("promotion_bytes_read"), 8 * 256 * KIB, "copy promotion reads each bucket from home");
    // A ninth bucket: GC cleans the zone of the LRU bucket (bucket 1, in data zone 0), which
    // holds buckets 0-3 (bucket 0 was just rewritten but lives in the same zone): 4 freed.
    reqs.push(w(8 * 256 * KIB, 4 * KIB));
    let c = run(&[], &reqs).unwrap();
    assert_eq!((c.get("gc_cycles"), c.get("gc_buckets")), (1, 4));
    assert_eq!(c.get("gc_bytes_read"), MIB + 4 * 256 * KIB);
    assert_eq!(c.get("gc_bytes_written"), 2 * MIB, "backup copy plus the rewritten zone");
}

#[test]
fn promotion_by_map_reads_nothing_and_whole_bucket_writes_need_no_read() {
    let reqs: Vec<Request> = (0..4).map(|i| w(i * 256 * KIB, 4 * KIB)).collect();
    let c = run(&["promote=map"], &reqs).unwrap();
    assert_eq!((c.get("promotions"), c.get("promotion_bytes_read")), (4, 0));
    let c = run(&[], &[w(0, 256 * KIB)]).unwrap();
    assert_eq!(c.get("promotion_bytes_read"), 0);
}

#[test]
fn a_cache_larger_than_the_write_footprint_never_collects() {
    let reqs: Vec<Request> = (0..500u64).map(|i| w(((i * 7) % 8) * 256 * KIB + (i % 16) * 4 * KIB, 4 * KIB)).collect();
    let c = run(&[], &reqs).unwrap();
    assert_eq!(c.get("gc_cycles"), 0);
    assert_eq!(c.get("promotions"), 8);
}

/// Known answer of the paper's replay (fio at iodepth 31, §IV): reads of uncached data at 16
/// scattered places on one track of the data zones, each one command at home. Kept in flight
/// together (iodepth 17 with a positioning read first, the drive queueing 31), the drive serves
/// them as the platter brings them round once the head is on the track: at most the seek
/// there, one turn and the last read's 8 sectors. One at a time (iodepth 1) each waits for its
/// own sector, over a quarter turn apiece.
#[test]
fn a_queued_replay_serves_reads_on_a_track_as_the_platter_brings_them() {
    use smr_core::units::SECTOR;
    use smr_media::{CacheConfig, Hdd, Medium, DESKTOP7200};
    let mut hdd = Hdd::with_cache(DESKTOP7200, CacheConfig::OFF);
    let (spt, rev) = (hdd.sectors_per_track_at(0), hdd.revolution_ns());
    // The first whole track past the 3 MiB of conventional zones, in host addresses.
    let track = (3 * MIB / SECTOR).div_ceil(spt) * spt;
    let host = |sector: u64| sector * SECTOR - 3 * MIB;
    let mut rng = <rand_chacha::ChaCha8Rng as rand::SeedableRng>::seed_from_u64(3);
    let slots = rand::seq::index::sample(&mut rng, (spt / 8) as usize, 16);
    let mut reqs = vec![Request::new(0, Op::Read, host(track), SECTOR)];
    reqs.extend(slots.iter().map(|slot| Request::new(0, Op::Read, host(track + slot as u64 * 8), 8 * SECTOR)));
    let replay = |iodepth: u32| {
        let engine = smr_kernel::EngineConfig { iodepth, ..Default::default() };
        let r = super::super::replay_small_report("ucache", &["disk_cache=off"], &reqs, engine).unwrap();
        assert_eq!((r.iodepth, r.channels.iter().map(|c| c.stats.reads).sum::<u64>()), (iodepth, 17));
        r.makespan_ns as f64
    };
    let positioning = hdd.access(0, Op::Read, track * SECTOR, SECTOR) as f64;
    let (queued, one_by_one) = (replay(17), replay(1));
    assert!(queued <= positioning + rev + 9.0 * rev / spt as f64, "iodepth 17: {queued} ns, a turn is {rev}");
    assert!(one_by_one > positioning + 4.0 * rev, "iodepth 1: {one_by_one} ns");
}

/// uCache's decisions never read the clock, so its replay at any iodepth moves the very bytes
/// of the serial replay (commands over 512 KiB split in pieces), with the same hits,
/// promotions and collections; only the time differs.
#[test]
fn the_queued_replay_moves_the_bytes_of_the_serial_one() {
    let reqs: Vec<Request> = (0..600u64)
        .map(|i| {
            let op = if i % 3 == 0 { Op::Read } else { Op::Write };
            Request::new(0, op, (i * 7919 % (40 * 256)) * 4 * KIB, (1 + i % 5) * 4 * KIB)
        })
        .collect();
    let replay = |iodepth: u32| {
        let engine = smr_kernel::EngineConfig { iodepth, ..Default::default() };
        super::super::replay_small_report("ucache", &["cache=1MiB"], &reqs, engine).unwrap()
    };
    let (serial, queued) = (replay(1), replay(31));
    assert!(serial.counters.get("gc_cycles") > 0, "the run collects");
    let without_time = |c: &Counters| {
        let mut c = c.0.clone();
        c.remove("promotion_ns");
        c
    };
    assert_eq!(without_time(&serial.counters), without_time(&queued.counters));
    for (a, b) in serial.channels.iter().zip(&queued.channels) {
        assert_eq!((a.stats.bytes_read, a.stats.bytes_written), (b.stats.bytes_read, b.stats.bytes_written));
    }
    assert!(queued.makespan_ns < serial.makespan_ns, "{} against {}", queued.makespan_ns, serial.makespan_ns);
}

#[test]
fn bad_parameters_are_named() {
    for (bad, key) in [
        ("bucket=96KiB", "bucket"),
        ("bucket=2MiB", "bucket"),
        ("cache=3MiB", "cache"),
        ("promote=move", "promote"),
        ("conventional=2500KiB", "conventional"),
    ] {
        match run(&[bad], &[]) {
            Err(SimError::Param(e)) => assert_eq!(e.param, key, "{bad}"),
            other => panic!("{bad}: {:?}", other.map(|_| ())),
        }
    }
}

proptest! {
    /// Random reads and writes with a tiny cache force many GC cycles; the device never sees a
    /// write off a sequential zone's write pointer (it would fail the run).
    #[test]
    fn never_breaks_the_zone_rules(ops in proptest::collection::vec((any::<bool>(), 0u64..60 * 256, 1u64..24), 1..200), map in any::<bool>()) {
        let reqs: Vec<Request> = ops.iter().map(|&(write, at, blocks)| {
            Request::new(0, if write { Op::Write } else { Op::Read }, at * 4 * KIB, blocks * 4 * KIB)
        }).collect();
        let promote = if map { "promote=map" } else { "promote=copy" };
        let c = run(&[promote, "cache=1MiB"], &reqs);
        prop_assert!(c.is_ok(), "{:?}", c.err());
        let c = c.unwrap();
        prop_assert!(c.get("gc_buckets") <= c.get("promotions"));
    }

    /// The zone index a collection uses holds exactly the cached buckets of each data zone, as
    /// a scan of the map would find them, after any run of writes and collections.
    #[test]
    fn the_zone_index_matches_a_scan_of_the_map(ops in proptest::collection::vec((0u64..60 * 256, 1u64..24), 1..200)) {
        let mut p = Params::parse(&["zone_size=1MiB", "conventional=3MiB", "disk=desktop7200", "cache=1MiB"]).unwrap();
        let mut ctx = IoCtx::new();
        let mut u = BuildContext::new(&mut p, Footprint::dense(64 * MIB, 64 * MIB, 64 * MIB), 0, &mut ctx, &[]).construct(PARAMS, UCache::build).unwrap();
        for (block, blocks) in ops {
            System::submit(&mut u, &w(block * 4 * KIB, blocks * 4 * KIB), &mut ctx).unwrap();
            let mut scanned: Vec<(u64, u32)> = u.map.keys().map(|&lbn| (u.zone_of(lbn), lbn)).collect();
            let mut indexed: Vec<(u64, u32)> = u.by_zone.iter().flat_map(|(&zone, lbns)| lbns.iter().map(move |&lbn| (zone, lbn))).collect();
            scanned.sort_unstable();
            indexed.sort_unstable();
            prop_assert_eq!(indexed, scanned);
        }
    }
}

fn build_for_crash(checkpoint_every: u64) -> (UCache, IoCtx) {
    let every = format!("checkpoint_every={checkpoint_every}");
    let mut p = Params::parse(&[
        "zone_size=1MiB",
        "conventional=3MiB",
        "disk=desktop7200",
        "cache=1MiB",
        "record_journal=true",
        every.as_str(),
    ])
    .unwrap();
    let mut ctx = IoCtx::new();
    let fp = Footprint::dense(64 * MIB, 64 * MIB, 64 * MIB);
    let u = BuildContext::new(&mut p, fp, 0, &mut ctx, &[]).construct(PARAMS, UCache::build).unwrap();
    (u, ctx)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]
    /// Crash after any request (hundreds of random points, with GC cycles and checkpoints in
    /// between): the recovered map is the map of every promotion whose header write completed —
    /// so no completed write is lost — and a header torn by the crash loses only its own bucket.
    #[test]
    fn recovery_rebuilds_the_map_at_any_crash_point(
        ops in proptest::collection::vec((0u64..40 * 64, 1u64..8), 1..160),
        crash_after in 0usize..160,
        every in 1u64..12,
        torn in any::<bool>(),
    ) {
        let (mut u, mut ctx) = build_for_crash(every);
        for &(block, blocks) in ops.iter().take(crash_after) {
            System::submit(&mut u, &w(block * 4 * KIB, blocks * 4 * KIB), &mut ctx).unwrap();
        }
        let mut expected = u.live_map();
        if torn {
            if let Some(lost) = u.tear_last_header() {
                expected.retain(|&(lbn, _)| lbn != lost);
            }
        }
        prop_assert_eq!(u.recovered_map(), Some(expected));
    }
}
