//! Known answers worked by hand and invariants of HWSR and S-block.

use proptest::prelude::*;
use smr_core::{Op, Params, Request};
use smr_trace::Footprint;

use super::hybrid::{ShingledDisk, Source};
use super::{build_hwsr, build_sblock, Hwsr, Sblock, HWSR_PARAMS, SBLOCK_PARAMS};
use smr_kernel::{ok_requests, BuildContext, Counters, Engine, EngineConfig, IoCtx, ReplayMode, SimError, System};

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const BLOCK: u64 = 64 * KIB;

fn context<T>(
    params: &[&str],
    declared: smr_kernel::ParamList,
    f: fn(&mut BuildContext<'_>) -> Result<T, SimError>,
) -> Result<(T, IoCtx), SimError> {
    let mut ctx = IoCtx::new();
    let mut p = Params::parse(params).expect("test parameters parse");
    let built = BuildContext::new(&mut p, Footprint::dense(GIB, GIB, GIB), 0, &mut ctx, &[]).construct(declared, f)?;
    p.finish()?;
    Ok((built, ctx))
}

const GIB: u64 = 1 << 30;

fn hwsr(params: &[&str]) -> (Hwsr, IoCtx) {
    context(params, HWSR_PARAMS, build_hwsr).expect("valid parameters")
}

fn sblock(params: &[&str]) -> (Sblock, IoCtx) {
    context(params, SBLOCK_PARAMS, build_sblock).expect("valid parameters")
}

fn counters(s: &dyn System) -> Counters {
    let mut c = Counters::default();
    s.counters(&mut c);
    c
}

fn write(offset: u64, len: u64) -> Request {
    Request::new(0, Op::Write, offset, len)
}

fn read(offset: u64, len: u64) -> Request {
    Request::new(0, Op::Read, offset, len)
}

/// The byte of block `index` of segment `segment` (default geometry: 32 blocks per segment).
fn at(segment: u64, index: u64) -> u64 {
    (segment * 32 + index) * BLOCK
}

#[test]
fn a_write_rewrites_the_rest_of_its_segment() {
    let (mut h, mut ctx) = hwsr(&["mem=none", "ssd=none", "fill=full"]);
    // 4 KiB into block 29 of segment 3: block 29 is merged with its old version, blocks 30
    // and 31 are shingled over: three reads, one track each, then three writes in order.
    h.submit(&write(at(3, 29) + 8 * KIB, 4 * KIB), &mut ctx).unwrap();
    let c = counters(&h);
    assert_eq!(
        (
            c.get("segments_rewritten"),
            c.get("fresh_blocks_written"),
            c.get("blocks_moved"),
            c.get("rewrite_disk_reads")
        ),
        (1, 1, 2, 3)
    );
    let disk = ctx.channel_reports().into_iter().find(|c| c.channel == "disk").expect("a disk channel");
    assert_eq!((disk.stats.reads, disk.stats.writes, disk.stats.bytes_written), (3, 3, 3 * BLOCK));
    // A whole last block needs no read and shingles over nothing.
    h.submit(&write(at(3, 31), BLOCK), &mut ctx).unwrap();
    let c = counters(&h);
    assert_eq!((c.get("segments_rewritten"), c.get("blocks_moved"), c.get("rewrite_disk_reads")), (2, 2, 3));
}

#[test]
fn on_an_empty_disk_the_cascade_stops_at_the_last_block_holding_data() {
    let (mut h, mut ctx) = hwsr(&["mem=none", "ssd=none", "fill=empty"]);
    h.submit(&write(at(0, 5), BLOCK), &mut ctx).unwrap();
    h.submit(&write(at(0, 2), BLOCK), &mut ctx).unwrap();
    let c = counters(&h);
    // The second write shingles over block 5 only (3 and 4 hold nothing).
    assert_eq!((c.get("segments_rewritten"), c.get("blocks_moved"), c.get("rewrite_disk_reads")), (2, 1, 1));
}

#[test]
fn the_ssd_feeds_segment_rewrites() {
    let (mut h, mut ctx) = hwsr(&["mem=none", "fill=full"]);
    h.submit(&read(at(7, 31), 4 * KIB), &mut ctx).unwrap();
    h.submit(&write(at(7, 30), BLOCK), &mut ctx).unwrap();
    let c = counters(&h);
    assert_eq!((c.get("ssd_fills"), c.get("rewrite_reads_ssd"), c.get("rewrite_disk_reads")), (1, 1, 0));
    // The rewritten block was written, not the cached one: the SSD still holds block 31.
    assert_eq!(h.locate(7 * 32 + 31).0, Source::Ssd);
    h.submit(&write(at(7, 31), 4 * KIB), &mut ctx).unwrap();
    assert!(matches!(h.locate(7 * 32 + 31).0, Source::Disk(_)), "a write drops the SSD copy");
}

#[test]
fn writes_are_acknowledged_from_mem_and_evicted_by_segment() {
    // Two blocks of MEM; LWA over the whole buffer.
    let (mut h, mut ctx) = hwsr(&["mem=128KiB", "ssd=none", "window=100%", "fill=full"]);
    let before = ctx.now();
    h.submit(&write(at(1, 0), 4 * KIB), &mut ctx).unwrap();
    assert!(ctx.now() - before < 10_000, "a buffered write costs a DRAM access");
    h.submit(&write(at(1, 4), 4 * KIB), &mut ctx).unwrap();
    h.submit(&write(at(2, 0), 4 * KIB), &mut ctx).unwrap();
    let c = counters(&h);
    // Full: segment 1's two blocks leave together, in one rewrite from block 0 to 31.
    assert_eq!((c.get("mem_evictions"), c.get("mem_blocks_evicted"), c.get("segments_rewritten")), (1, 2, 1));
    assert_eq!(c.get("blocks_moved"), 30);
    assert_eq!(h.mem_len(), 1);
}

#[test]
fn sblock_appends_destages_and_collects_from_the_tail() {
    // 64 S-blocks per region, 57 of them logical (beta 0.1), an internal guard band of six
    // 2 MiB slots: 13 free slots at the start, so the eighth destage needs room. The tail's
    // ten valid S-blocks (0-9) move; slot 10, S-block 10's old place, is reclaimed.
    let (mut s, mut ctx) = sblock(&["mem=none", "ssd=none", "fill=full"]);
    for sblock in 10..18 {
        s.submit(&write(at(sblock, 0), 4 * KIB), &mut ctx).unwrap();
    }
    let c = counters(&s);
    assert_eq!((c.get("sblock_destages"), c.get("gc_sblocks_moved"), c.get("segments_rewritten")), (8, 10, 18));
    assert_eq!(c.get("gc_cycles"), 1);
    assert_eq!(c.get("gc_bytes_written"), 10 * 2 * MIB);
    // Each destage read its old S-block whole; each move read one.
    assert_eq!(c.get("rewrite_disk_reads"), 18);
    // S-block 0 now lies behind the last destage at the head: slot 8 + 7 + 10 = slot 17... its
    // blocks are found where the map says.
    let moved = s.disk().block_offset(0);
    assert_eq!(moved % (2 * MIB), 0);
    assert_ne!(moved, 0, "S-block 0 left slot 0");
}

#[test]
fn capacities_follow_the_capacity_model() {
    let (h, _) = hwsr(&[]);
    let (s, _) = sblock(&[]);
    let disk = 1e12;
    let hwsr_share = h.capacity() as f64 / disk;
    let sblock_share = s.capacity() as f64 / disk;
    assert!((hwsr_share - super::capacity::wsr_track_utilisation(32.0, 3.0)).abs() < 0.01, "{hwsr_share}");
    // Slots: 64 + 6 guard = 70 of 2 MiB = 35 tracks, and 3 tracks of guard band: 57 of 64 logical.
    let expected = 32.0 / 38.0 * 57.0 / 64.0;
    assert!((sblock_share - expected).abs() < 0.01, "{sblock_share} vs {expected}");
}

#[test]
fn bad_parameters_name_themselves() {
    for (params, key) in [
        (&["block=96KiB"][..], "block"),
        (&["block=1000"][..], "block"),
        (&["segments=3"][..], "segments"),
        (&["segments=32", "block=64KiB"][..], "segments"),
        (&["mem=0"][..], "mem"),
        (&["ssd=1KiB"][..], "ssd"),
        (&["track=1000"][..], "track"),
        (&["window=0"][..], "window"),
        (&["disk_queue_depth=0"][..], "disk_queue_depth"),
        (&["disk_queue_depth=257"][..], "disk_queue_depth"),
        (&["destage_low=95%"][..], "destage_low"),
        (&["destage=background", "destage_high=40%", "destage_low=40%"][..], "destage_low"),
        (&["destage_high=150%"][..], "destage_high"),
        (&["destage=later"][..], "destage"),
    ] {
        let err = context(params, HWSR_PARAMS, build_hwsr).err().expect("refused");
        assert!(err.to_string().contains(&format!("'{key}'")) || err.to_string().contains(key), "{params:?}: {err}");
    }
    let err = context(&["spare=0"], SBLOCK_PARAMS, build_sblock).err().expect("refused");
    assert!(err.to_string().contains("spare"), "{err}");
    let mut ctx = IoCtx::new();
    let mut p = Params::new();
    let far = Footprint::dense(GIB, GIB, 990_000_000_000);
    let err = BuildContext::new(&mut p, far, 0, &mut ctx, &[])
        .construct(HWSR_PARAMS, build_hwsr)
        .err()
        .expect("beyond the disk");
    assert!(err.to_string().contains("disk"), "{err}");
}

/// A small geometry for the data checks: 1 MiB blocks, four per track and per segment.
const SMALL: [&str; 3] = ["block=1MiB", "region=4", "spare=0.25"];

fn small(system: &str, mem: &str, ssd: &str, fill: &str, drive: &[&str]) -> (Box<dyn Checked>, IoCtx) {
    let mut params: Vec<&str> = vec![mem, ssd, fill, SMALL[0], SMALL[1]];
    params.extend(drive);
    if system == "sblock" {
        params.push(SMALL[2]);
        let (s, ctx) = sblock(&params);
        (Box::new(s), ctx)
    } else {
        params.push("window=50%");
        let (h, ctx) = hwsr(&params);
        (Box::new(h), ctx)
    }
}

/// What the data checks need of either system.
trait Checked: System {
    fn violations(&mut self) -> Vec<String>;
    fn occupancy(&self) -> (usize, usize);
}

impl<D: ShingledDisk> Checked for super::hybrid::Hybrid<D> {
    fn violations(&mut self) -> Vec<String> {
        let blocks: Vec<u64> = self.front().ledger.latest().map(|(b, _)| b).collect();
        let located: Vec<(u64, Source)> = blocks.iter().map(|&b| (b, self.locate(b).0)).collect();
        let ledger = &mut self.front_mut().ledger;
        for (block, source) in located {
            ledger.check_latest(block, source);
        }
        ledger.violations.clone()
    }

    fn occupancy(&self) -> (usize, usize) {
        (self.mem_len(), self.ssd_len())
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// No data lost: after any mix of partial and whole writes and reads, every read found the
    /// latest version where it looked, every rewrite moved the version it should, and every
    /// block's latest version is where the system says it is; the MEM buffer and the SSD never
    /// hold more blocks than they have.
    #[test]
    fn no_data_is_lost_and_caches_stay_within_capacity(
        ops in proptest::collection::vec((any::<bool>(), 0u64..96, 1u64..6), 1..120),
        system in prop::sample::select(vec!["hwsr", "sblock"]),
        mem in prop::sample::select(vec!["mem=3MiB", "mem=none"]),
        ssd in prop::sample::select(vec!["ssd=2MiB", "ssd=none"]),
        fill in prop::sample::select(vec!["fill=full", "fill=empty"]),
    ) {
        let (mut s, mut ctx) = small(system, mem, ssd, fill, &[]);
        for (is_write, start, sixteenths) in ops {
            s.submit(&step(0, is_write, start, sixteenths), &mut ctx).unwrap();
            let (mem_len, ssd_len) = s.occupancy();
            prop_assert!(mem_len <= 3 && ssd_len <= 2);
        }
        let violations = s.violations();
        prop_assert!(violations.is_empty(), "{:?}", violations);
    }

    /// No data lost either when requests overlap at a drive that queues and the MEM buffer
    /// destages in the background: the same checks after an open-loop replay, arrivals 0 to
    /// 30 ms apart, a destage in flight while later requests are issued.
    #[test]
    fn no_data_is_lost_when_requests_overlap_and_the_buffer_destages_in_the_background(
        ops in proptest::collection::vec((any::<bool>(), 0u64..96, 1u64..6, 0u64..30), 1..120),
        system in prop::sample::select(vec!["hwsr", "sblock"]),
        ssd in prop::sample::select(vec!["ssd=2MiB", "ssd=none"]),
        fill in prop::sample::select(vec!["fill=full", "fill=empty"]),
        destage in prop::sample::select(vec!["destage=sync", "destage=background"]),
        depth in prop::sample::select(vec!["disk_queue_depth=1", "disk_queue_depth=8"]),
    ) {
        let (mut s, mut ctx) = small(system, "mem=3MiB", ssd, fill, &[destage, depth, "destage_high=3blocks", "destage_low=1block"]);
        let mut t = 0;
        let requests: Vec<Request> = ops.iter().map(|&(is_write, start, sixteenths, gap_ms)| {
            t += gap_ms * 1_000_000;
            step(t, is_write, start, sixteenths)
        }).collect();
        let open = EngineConfig { mode: ReplayMode::Open { speedup: 1.0 }, ..Default::default() };
        let report = Engine::new(open).run(s.as_mut(), &mut ctx, ok_requests(&requests)).unwrap();
        prop_assert_eq!(report.requests, requests.len() as u64);
        let (mem_len, ssd_len) = s.occupancy();
        prop_assert!(mem_len <= 3 && ssd_len <= 2);
        let violations = s.violations();
        prop_assert!(violations.is_empty(), "{:?}", violations);
    }
}

/// A request of the data checks at time `t`: offsets on 256 KiB steps over 24 MiB; lengths of
/// 256 KiB to 1.25 MiB, 4 KiB short from odd steps (a part of a 16 KiB unit).
fn step(t: u64, is_write: bool, start: u64, sixteenths: u64) -> Request {
    let len = sixteenths * 256 * KIB - (start % 2) * 4 * KIB;
    Request::new(t, if is_write { Op::Write } else { Op::Read }, start * 256 * KIB, len)
}

/// Every disk I/O, in the order the drive served it (an iolog recorded to memory).
#[derive(Clone, Default)]
struct Served(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Served {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("one writer").extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Served {
    /// ("read" or "write", byte offset) of each disk I/O.
    fn disk_ios(&self) -> Vec<(String, u64)> {
        let text = String::from_utf8(self.0.lock().expect("one writer").clone()).expect("text");
        text.lines()
            .filter_map(|line| match line.split(' ').collect::<Vec<_>>()[..] {
                ["disk", op @ ("read" | "write"), offset, _] => {
                    Some((op.to_string(), offset.parse().expect("an offset")))
                }
                _ => None,
            })
            .collect()
    }
}

/// A whole segment rewritten (a 4 KiB write to its first block with neither cache, the disk
/// full): 32 reads (the first block's older version, to merge, and the 31 it shingles over)
/// and 32 writes. On a drive that queues 32 commands, the reads go as one batch
/// and the writes after them as another, each batch in the order the drive reaches its blocks,
/// which takes less time than block by block; the write cache takes the writes at interface
/// speed, leaving the reads' time.
#[test]
fn a_rewrite_queues_its_reads_then_its_writes_at_the_drive() {
    let rewrite = |drive: &[&str]| {
        let mut params = vec!["mem=none", "ssd=none", "fill=full"];
        params.extend(drive);
        let (mut h, mut ctx) = hwsr(&params);
        let served = Served::default();
        ctx.record_to(smr_kernel::recorder::IologRecorder::new(Box::new(served.clone()), 0));
        h.submit(&write(at(5, 0), 4 * KIB), &mut ctx).unwrap();
        (ctx.now(), served.disk_ios())
    };
    let (in_order, ios) = rewrite(&["disk_queue_depth=1", "disk_write_cache=false"]);
    let offsets: Vec<u64> = ios.iter().map(|(_, o)| *o).collect();
    assert_eq!(ios.len(), 64);
    assert!(
        offsets[..32].windows(2).all(|w| w[0] < w[1]) && offsets[32..].windows(2).all(|w| w[0] < w[1]),
        "block by block at depth 1"
    );
    let (queued, ios) = rewrite(&["disk_queue_depth=32", "disk_write_cache=false"]);
    assert_eq!(ios.len(), 64);
    assert!(
        ios[..32].iter().all(|(op, _)| op == "read") && ios[32..].iter().all(|(op, _)| op == "write"),
        "the writes wait for every read"
    );
    let reads: Vec<u64> = ios[..32].iter().map(|(_, o)| *o).collect();
    assert!(reads.windows(2).any(|w| w[0] > w[1]), "the drive reordered the reads");
    assert!((queued as f64) < 0.9 * in_order as f64, "queued {queued} ns, block by block {in_order} ns");
    let (cached, _) = rewrite(&["disk_queue_depth=32", "disk_write_cache=true"]);
    assert!((cached as f64) < 0.6 * queued as f64, "write cache {cached} ns, without {queued} ns");
}

/// With destage=background the flusher keeps the MEM buffer below full when writes come slower
/// than it destages: no write waits (each costs its DRAM write), and the flusher did every
/// eviction; with destage=sync the writes that find the buffer full wait for a rewrite.
#[test]
fn a_background_flusher_keeps_writes_from_waiting() {
    // 64 writes to distinct segments of a full disk, 200 ms apart, into a buffer of 8 blocks.
    let requests: Vec<Request> =
        (0..64).map(|i| Request::new(i * 200_000_000, Op::Write, at(i * 3, 1), 4 * KIB)).collect();
    let run = |destage: &str| {
        let (mut h, mut ctx) = hwsr(&["mem=512KiB", "ssd=none", "fill=full", destage]);
        let open = EngineConfig { mode: ReplayMode::Open { speedup: 1.0 }, ..Default::default() };
        let report = Engine::new(open).run(&mut h, &mut ctx, ok_requests(&requests)).unwrap();
        (report, counters(&h))
    };
    let (background, c) = run("destage=background");
    assert_eq!(c.get("full_buffer_waits"), 0);
    assert!(c.get("flusher_evictions") > 0 && c.get("flusher_evictions") == c.get("mem_evictions"));
    assert!(background.write.response.max_ns < 10_000, "{}", background.write.response.max_ns);
    let (sync, c) = run("destage=sync");
    assert_eq!((c.get("flusher_evictions"), c.get("full_buffer_waits")), (0, c.get("mem_evictions")));
    assert!(sync.write.response.max_ns > 1_000_000, "a write waited for its eviction: {}", sync.write.response.max_ns);
}

#[test]
fn a_mem_buffer_of_more_blocks_than_its_policy_can_look_through_is_refused_naming_mem() {
    // The default 64 MiB of 512-byte blocks, 131,072 of them, made a replay run for hours.
    for build in [
        |p: &[&str]| context(p, HWSR_PARAMS, build_hwsr).map(|_| ()),
        |p: &[&str]| context(p, SBLOCK_PARAMS, build_sblock).map(|_| ()),
    ] {
        let err = build(&["block=512"]).unwrap_err().to_string();
        assert!(err.contains("'mem'") && err.contains("131072 blocks"), "{err}");
        // 64 MiB of 4 KiB blocks is at the limit; the paper's geometry is far below it.
        assert!(build(&["block=4KiB", "mem=64MiB"]).is_ok());
        assert!(build(&["block=4KiB", "mem=65MiB"]).unwrap_err().to_string().contains("'mem'"));
    }
}
