//! Known answers worked by hand and invariants of `Dmsmr`.

use proptest::prelude::*;
use smr_core::{Op, Params, Request};
use smr_trace::Footprint;

use super::{Dmsmr, PARAMS};
use smr_kernel::{ok_requests, BuildContext, Counters, Engine, EngineConfig, IoCtx, RunReport, System};

const MIB: u64 = 1 << 20;

fn build(params: &[&str]) -> (Dmsmr, IoCtx) {
    let mut ctx = IoCtx::new();
    let mut p = Params::parse(params).unwrap();
    let fp = Footprint::dense(64 * MIB, 64 * MIB, 64 * MIB);
    let d = BuildContext::new(&mut p, fp, 1, &mut ctx, &[]).construct(PARAMS, Dmsmr::build).unwrap();
    p.finish().unwrap();
    (d, ctx)
}

fn w(block: u64) -> Request {
    Request::new(0, Op::Write, block * 4096, 4096)
}

fn counters(d: &Dmsmr) -> Counters {
    let mut c = Counters::default();
    d.counters(&mut c);
    c
}

/// The default buffer is 1/256 of the capacity of the bands the trace writes (PORE Table I),
/// not of the written blocks: two 4 KiB writes in two 1 MiB bands make a range of 2 MiB.
#[test]
fn the_default_buffer_is_a_share_of_the_written_bands() {
    let mut ctx = IoCtx::new();
    let mut p = Params::parse(&["band_size=1MiB"]).unwrap();
    let grain = smr_trace::EXTENT_GRAIN;
    let fp = Footprint {
        written_bytes: 8192,
        accessed_bytes: 8192,
        max_end: 64 * MIB,
        written_extents: vec![(0, grain), (40 * MIB, grain)],
        accessed_extents: vec![],
        requests: 0,
    };
    let d = BuildContext::new(&mut p, fp, 1, &mut ctx, &[]).construct(PARAMS, Dmsmr::build).unwrap();
    assert_eq!(d.bands().unwrap().write_buffer_bytes, 2 * MIB / 256);
}

#[test]
fn fifo_cleaning_by_hand() {
    // 1 MiB bands (256 blocks), a 4-block buffer.
    let (mut d, mut ctx) = build(&["band_size=1MiB", "buffer=4blocks"]);
    for r in [w(0), w(1), w(256), w(512), w(0)] {
        d.submit(&r, &mut ctx).unwrap();
    }
    let c = counters(&d);
    assert_eq!(c.get("band_cleanings"), 0);
    assert_eq!(c.get("buffer_updates"), 1);
    // Full: block 768 cleans band 0 (oldest block 0), which takes blocks 0 and 1 with it.
    d.submit(&w(768), &mut ctx).unwrap();
    let c = counters(&d);
    assert_eq!(c.get("band_cleanings"), 1);
    assert_eq!(c.get("band_bytes_read"), MIB);
    assert_eq!(c.get("band_bytes_written"), MIB);
    assert_eq!(c.get("buffer_bytes_evicted"), 2 * 4096);
    // Buffer now 256, 512, 768; blocks 1 and 2 fill it and the next cleaning takes band 1 (block 256).
    d.submit(&w(1), &mut ctx).unwrap();
    d.submit(&w(2), &mut ctx).unwrap();
    let c = counters(&d);
    assert_eq!(c.get("band_cleanings"), 2);
    assert_eq!(c.get("band_bytes_written"), 2 * MIB);
    assert_eq!(c.get("buffer_bytes_evicted"), 3 * 4096);
    assert_eq!(c.get("buffer_bytes_written"), 8 * 4096, "eight writes of one block each");
}

#[test]
fn reads_go_where_the_latest_version_is() {
    let (mut d, mut ctx) = build(&["band_size=1MiB", "buffer=8blocks"]);
    d.submit(&w(5), &mut ctx).unwrap();
    // Blocks 4..8: block 5 is buffered, 4, 6, 7 are in their band: three runs.
    d.submit(&Request::new(0, Op::Read, 4 * 4096, 4 * 4096), &mut ctx).unwrap();
    let reports = ctx.channel_reports();
    let buffer = reports.iter().find(|c| c.channel == "write-buffer").unwrap();
    let band = reports.iter().find(|c| c.channel == "band").unwrap();
    assert_eq!((buffer.stats.reads, buffer.stats.bytes_read), (1, 4096));
    assert_eq!((band.stats.reads, band.stats.bytes_read), (2, 3 * 4096));
}

fn replay(params: &[&str], reqs: &[Request]) -> (RunReport, Counters) {
    let (mut d, mut ctx) = build(params);
    let report = Engine::new(EngineConfig::default()).run(&mut d, &mut ctx, ok_requests(reqs)).unwrap();
    let c = counters(&d);
    (report, c)
}

#[test]
fn buffer_on_ssd_overlaps_band_io_and_on_disk_adds() {
    let reqs: Vec<Request> = (0..200u64).map(|i| w((i * 7919) % 16384)).collect();
    let busy = |r: &RunReport| r.channels.iter().map(|c| c.stats.busy_ns()).sum::<u64>();
    let (disk, _) = replay(&["band_size=1MiB", "buffer=16blocks", "buffer_on=disk"], &reqs);
    assert_eq!(disk.total_io_ns, busy(&disk), "same head: buffer and band times add");
    let (ssd, c) = replay(&["band_size=1MiB", "buffer=16blocks", "buffer_on=ssd"], &reqs);
    assert!(c.get("band_cleanings") > 0);
    assert!(ssd.total_io_ns < busy(&ssd), "built-in SSD: cleaning's buffer reads overlap band I/O");
}

#[test]
fn beyond_capacity_is_an_error() {
    let (mut d, mut ctx) = build(&["band_size=1MiB"]);
    assert_eq!(d.capacity(), 64 * MIB);
    let err = Engine::new(EngineConfig::default())
        .run(&mut d, &mut ctx, ok_requests(&[Request::new(0, Op::Write, 1 << 40, 4096)]))
        .unwrap_err();
    assert!(err.to_string().contains("beyond the device capacity"));
}

#[test]
fn band_parameters_are_checked() {
    let mut p = Params::parse(&["band_min=40MB"]).unwrap();
    let mut ctx = IoCtx::new();
    let err = BuildContext::new(&mut p, Footprint::dense(MIB, MIB, MIB), 0, &mut ctx, &[])
        .construct(PARAMS, Dmsmr::build)
        .err()
        .unwrap();
    assert!(err.to_string().contains("band_min"), "{err}");
}

/// What a FIFO buffer with in-place updates and whole-band cleaning must do, kept as plainly as
/// possible: (band cleanings, blocks evicted, blocks held at the end) for 1 MiB bands.
fn fifo_model(blocks: &[u64], capacity: usize) -> (u64, u64, usize) {
    let band = |block: u64| block * 4096 / MIB;
    // Arrivals in order, as (block, arrival number); `held` maps a block to its live arrival.
    let (mut arrivals, mut held) = (Vec::new(), std::collections::HashMap::new());
    let (mut cleanings, mut evicted) = (0, 0);
    for (arrival, &block) in blocks.iter().enumerate() {
        if held.contains_key(&block) {
            continue;
        }
        if held.len() == capacity {
            let &(oldest, _) =
                arrivals.iter().find(|(b, a)| held.get(b) == Some(a)).expect("a full buffer holds something");
            let before = held.len();
            held.retain(|b, _| band(*b) != band(oldest));
            evicted += (before - held.len()) as u64;
            cleanings += 1;
        }
        held.insert(block, arrival);
        arrivals.push((block, arrival));
    }
    (cleanings, evicted, held.len())
}

proptest! {
    #[test]
    fn buffer_follows_the_fifo_model_and_bands_are_rewritten_whole(blocks in proptest::collection::vec(0u64..4096, 1..300), cap in 1u64..40) {
        let reqs: Vec<Request> = blocks.iter().map(|&b| w(b)).collect();
        let buffer = format!("buffer={cap}blocks");
        let (mut d, mut ctx) = build(&["band_size=1MiB", &buffer]);
        let report = Engine::new(EngineConfig::default()).run(&mut d, &mut ctx, ok_requests(&reqs)).unwrap();
        let c = counters(&d);
        let (cleanings, evicted, held) = fifo_model(&blocks, cap as usize);
        prop_assert_eq!(c.get("band_cleanings"), cleanings);
        prop_assert_eq!(c.get("buffer_bytes_evicted"), evicted * 4096);
        prop_assert_eq!(d.buffer.len(), held as u64);
        // Each cleaning reads and writes its whole band on the disk, once each.
        let band = report.channels.iter().find(|ch| ch.channel == "band").expect("band channel");
        prop_assert_eq!((band.stats.reads, band.stats.writes), (cleanings, cleanings));
        prop_assert_eq!((band.stats.bytes_read, band.stats.bytes_written), (cleanings * MIB, cleanings * MIB));
    }
}

#[test]
fn scattered_writes_land_side_by_side_in_the_buffer_log() {
    // Writes to blocks far apart arrive one after another, so they sit side by side in the
    // buffer log and the disk streams them: after the first, each costs a 4 KiB transfer
    // (tens of µs), not a seek and a rotation (ms).
    let (mut d, mut ctx) = build(&["band_size=1MiB", "buffer=64blocks"]);
    let mut costs = Vec::new();
    for block in [5, 9000, 300, 12000, 77] {
        let before = ctx.now();
        d.submit(&w(block), &mut ctx).unwrap();
        costs.push(ctx.now() - before);
    }
    assert!(costs[1..].iter().all(|&ns| ns < 200_000), "{costs:?}");
    // A read of a block just written finds it in the drive's cache; without the cache it goes
    // back to its place in the log: a seek, not a stream.
    for (cache, slow) in [("disk_cache=preset", false), ("disk_cache=off", true)] {
        let (mut d, mut ctx) = build(&["band_size=1MiB", "buffer=64blocks", cache]);
        for block in [5, 9000, 300, 12000, 77] {
            d.submit(&w(block), &mut ctx).unwrap();
        }
        let before = ctx.now();
        d.submit(&Request::new(0, Op::Read, 9000 * 4096, 4096), &mut ctx).unwrap();
        assert_eq!(ctx.now() - before > 1_000_000, slow, "{cache}: {} ns", ctx.now() - before);
    }
}

#[test]
fn a_read_is_one_io_per_run_of_blocks_side_by_side_where_they_lie() {
    let (mut d, mut ctx) = build(&["band_size=1MiB", "buffer=64blocks"]);
    // Blocks 10 and 11 arrive apart (log places 0 and 2); 20 and 21 together (places 3 and 4).
    for r in [w(10), w(500), w(11), Request::new(0, Op::Write, 20 * 4096, 2 * 4096)] {
        d.submit(&r, &mut ctx).unwrap();
    }
    let reads = |ctx: &IoCtx, channel: &str| {
        ctx.channel_reports().into_iter().find(|c| c.channel == channel).unwrap().stats.reads
    };
    d.submit(&Request::new(0, Op::Read, 10 * 4096, 2 * 4096), &mut ctx).unwrap();
    assert_eq!(reads(&ctx, "write-buffer"), 2, "apart in the log: two reads");
    d.submit(&Request::new(0, Op::Read, 20 * 4096, 2 * 4096), &mut ctx).unwrap();
    assert_eq!(reads(&ctx, "write-buffer"), 3, "side by side in the log: one read");
    // Blocks 21 (buffered) and 22, 23 (home): one buffer read, then one band read.
    d.submit(&Request::new(0, Op::Read, 21 * 4096, 3 * 4096), &mut ctx).unwrap();
    assert_eq!((reads(&ctx, "write-buffer"), reads(&ctx, "band")), (4, 1));
}

#[test]
fn a_run_that_never_cleans_a_band_says_it_is_not_informative() {
    let reqs: Vec<Request> = (0..200u64).map(|i| w((i * 7919) % 16384)).collect();
    let (quiet, _) = replay(&["band_size=1MiB", "buffer=16384blocks"], &reqs);
    assert!(!quiet.informative);
    assert_eq!(quiet.not_informative.len(), 1);
    assert!(quiet.not_informative[0].contains("no band was cleaned"), "{:?}", quiet.not_informative);
    let (busy, c) = replay(&["band_size=1MiB", "buffer=16blocks"], &reqs);
    assert!(c.get("band_cleanings") > 0 && busy.informative && busy.not_informative.is_empty());
    // Band bytes per user byte divides by what the host wrote, R_wa by what left the buffer.
    let derived = |name: &str| busy.derived[name];
    assert_eq!(derived("band_bytes_per_user_byte"), c.get("band_bytes_written") as f64 / (200.0 * 4096.0));
    assert_eq!(derived("r_wa"), c.get("band_bytes_written") as f64 / c.get("buffer_bytes_evicted") as f64);
}

/// §II-C step (3) reads the band's blocks "from the write buffer", where the log holds them:
/// one read per run of blocks side by side in the log, not one read at the oldest one's place.
#[test]
fn a_cleaning_reads_the_bands_buffered_blocks_one_run_at_a_time() {
    let (mut d, mut ctx) = build(&["band_size=1MiB", "buffer=8blocks", "disk_cache=off"]);
    // Band 0's blocks arrive as log places 0-1, 3 and 5-6 (three runs); bands 1-3 fill the rest.
    for block in [0, 1, 256, 2, 512, 3, 4, 768] {
        d.submit(&w(block), &mut ctx).unwrap();
    }
    let stats = |ctx: &IoCtx, channel: &str| {
        ctx.channel_reports().into_iter().find(|c| c.channel == channel).expect("channel").stats
    };
    assert_eq!(stats(&ctx, "write-buffer").reads, 0);
    // The buffer is full: the next new block cleans band 0, the band of the oldest block.
    d.submit(&w(1024), &mut ctx).unwrap();
    assert_eq!(counters(&d).get("band_cleanings"), 1);
    let buffer = stats(&ctx, "write-buffer");
    assert_eq!((buffer.reads, buffer.bytes_read), (3, 5 * 4096), "three runs, five blocks");
    let band = stats(&ctx, "band");
    assert_eq!((band.reads, band.writes), (1, 1), "the band read and written whole, once each");
}
