//! Tests of the HDD model against hand-worked timings and the presets' documented figures.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::presets::{DESKTOP7200, FLUID10K, PRESETS, ST3500418AS, ST5000AS0011};
use super::{Hdd, Medium};
use smr_core::request::Op;
use smr_core::units::SECTOR;

#[test]
fn sequential_read_of_a_track_costs_a_revolution_plus_the_switch() {
    let mut d = Hdd::new(DESKTOP7200);
    let rev = d.revolution_ns();
    let track_bytes = d.sectors_per_track_at(0) * SECTOR;
    // Read track 0 whole, then track 1 right after: a head switch, the skew absorbs rotation.
    let t0 = d.access(0, Op::Read, 0, track_bytes);
    assert!((t0 as f64 - rev).abs() < rev / 1000.0, "track 0 from sector 0 at angle 0: one revolution ({t0} vs {rev})");
    let t1 = d.access(t0, Op::Read, track_bytes, track_bytes);
    let sector_ns = rev / d.sectors_per_track_at(0) as f64;
    let expected = rev + DESKTOP7200.head_switch_ns as f64;
    assert!((t1 as f64 - expected).abs() <= sector_ns + 1.0, "{t1} vs {expected}");
}

#[test]
fn rotational_latency_follows_simulated_time() {
    let mut d = Hdd::new(ST5000AS0011);
    let rev = d.revolution_ns();
    let a = d.access(0, Op::Read, 0, 512);
    let mut d = Hdd::new(ST5000AS0011);
    let b = d.access((rev / 2.0) as u64, Op::Read, 0, 512);
    // At time 0 sector 0 is under the head; half a revolution later it is half a turn away.
    assert!((b as f64 - a as f64 - rev / 2.0).abs() < rev / 500.0, "{a} {b}");
}

#[test]
fn outer_tracks_transfer_faster() {
    for spec in PRESETS {
        let mut d = Hdd::new(spec.clone());
        let outer = d.sectors_per_track_at(0);
        let inner = d.sectors_per_track_at(spec.capacity - 4096);
        assert!(outer > inner, "{}", spec.name);
        let big = 64 << 20;
        let t_outer = d.access(0, Op::Read, 0, big);
        let t_inner = d.access(0, Op::Read, spec.capacity - big, big);
        assert!(t_inner > t_outer, "{}: inner {t_inner} outer {t_outer}", spec.name);
    }
}

#[test]
fn writes_settle_longer_than_reads_on_average() {
    // Same random seeks for reads and writes: rotational waits average out, the settle does not.
    let (mut r, mut w) = (Hdd::new(DESKTOP7200), Hdd::new(DESKTOP7200));
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let (n, mut diff) = (5_000, 0f64);
    for _ in 0..n {
        let offset = rng.gen_range(0..DESKTOP7200.capacity / 4096 - 1) * 4096;
        let now = rng.gen_range(0..1_000_000_000u64);
        diff += w.access(now, Op::Write, offset, 4096) as f64 - r.access(now, Op::Read, offset, 4096) as f64;
    }
    let settle = DESKTOP7200.write_settle_ns as f64;
    let mean = diff / n as f64;
    assert!(mean > 0.5 * settle && mean < 1.5 * settle, "mean write-read difference {mean} vs settle {settle}");
}

#[test]
fn average_random_4k_read_matches_documented_access_time() {
    // Documented average access time = average seek + half a revolution (+ a 4 KiB transfer).
    for spec in [ST5000AS0011, DESKTOP7200, ST3500418AS, FLUID10K] {
        let mut d = Hdd::new(spec.clone());
        let documented = spec.average_seek_ns as f64 + d.revolution_ns() / 2.0;
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let (n, mut sum, mut now) = (20_000u64, 0f64, 0u64);
        for _ in 0..n {
            let offset = rng.gen_range(0..spec.capacity / 4096 - 1) * 4096;
            now += rng.gen_range(0..50_000_000);
            let t = d.access(now, Op::Read, offset, 4096);
            now += t;
            sum += t as f64;
        }
        let mean = sum / n as f64;
        let ratio = mean / documented;
        assert!(
            (ratio - 1.0).abs() < 0.10,
            "{}: mean random read {mean:.0} ns vs documented {documented:.0} ns",
            spec.name
        );
    }
}

#[test]
fn unknown_or_too_small_disks_are_refused_by_name() {
    assert!(super::disk_preset("floppy", 0)
        .err()
        .unwrap()
        .contains("st5000as0011, desktop7200, st3500418as, fluid10k"));
    assert!(super::disk_preset("desktop7200", 2 << 40).err().unwrap().contains("needed"));
    assert_eq!(super::disk_preset("fluid10k", 0).unwrap().describe(), Hdd::new(super::FLUID10K).describe());
}

#[test]
fn preset_names_list_the_presets_in_order() {
    let names: Vec<&str> = super::PRESETS.iter().map(|p| p.name).collect();
    assert_eq!(names, super::PRESET_NAMES);
}

#[test]
fn a_long_transfer_costs_what_its_tracks_cost_one_by_one() {
    // 40 tracks crossing head and cylinder switches (8 heads): one access vs 40 chained ones.
    let spec = ST5000AS0011;
    let mut whole = Hdd::new(spec.clone());
    let mut pieces = Hdd::new(spec);
    let track = whole.sectors_per_track_at(0) * SECTOR;
    let start = 3 * track;
    for op in [Op::Read, Op::Write] {
        let one = whole.access(1_000, op, start, 40 * track) as f64;
        let mut t = 1_000u64;
        for i in 0..40 {
            t += pieces.access(t, op, start + i * track, track);
        }
        let chained = (t - 1_000) as f64;
        let sector_ns = whole.revolution_ns() / whole.sectors_per_track_at(0) as f64;
        assert!((one - chained).abs() <= 40.0 * sector_ns, "{op:?}: one access {one} vs chained {chained}");
    }
}

#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "beyond the disk")]
fn an_access_beyond_capacity_is_a_caller_bug() {
    let mut d = Hdd::new(FLUID10K);
    d.access(0, Op::Read, FLUID10K.capacity - 4096, 8192);
}

/// Service time of a 4 KiB write at `offset` after a first write at 0 and a far read between.
fn second_write_after_far_read(second_at: u64) -> (u64, f64) {
    let mut d = Hdd::new(ST5000AS0011);
    let mut t = d.access(0, Op::Write, 0, 4096);
    t += d.access(t, Op::Read, ST5000AS0011.capacity / 2, 4096);
    let sector_ns = d.revolution_ns() / d.sectors_per_track_at(0) as f64;
    (d.access(t + 12_345, Op::Write, second_at, 4096), sector_ns)
}

#[test]
fn a_write_continuing_a_stream_costs_only_its_transfer() {
    // The far read moved the head and time went on, yet the write at 4096 continues the first.
    let (continued, sector_ns) = second_write_after_far_read(4096);
    let transfer = 8.0 * sector_ns;
    assert!((continued as f64 - transfer).abs() <= 1.0 + transfer * 0.01, "{continued} vs transfer {transfer}");
    // One block further on is a new stream: it pays the seek back and the rotation.
    let (fresh, _) = second_write_after_far_read(8192);
    assert!(fresh as f64 > 1_000_000.0 + transfer, "a new stream seeks: {fresh}");
}

#[test]
fn a_stream_is_followed_per_op_and_only_as_many_as_the_drive_has_segments() {
    let mut d = Hdd::new(DESKTOP7200);
    // 4 KiB transferred on the slowest (innermost) track used below, with 1 ns of rounding.
    let stride = DESKTOP7200.capacity / 16 / 4096 * 4096;
    let transfer = (8.0 * d.revolution_ns() / d.sectors_per_track_at(8 * stride) as f64) as u64 + 1;
    // A read where a write ended is no continuation.
    let t = d.access(0, Op::Write, 0, 4096);
    assert!(d.access(t + 5_000_000, Op::Read, 4096, 4096) > transfer);
    // Eight streams are followed at once; a ninth pushes out the least recently used (the first).
    let mut d = Hdd::new(DESKTOP7200);
    let mut t = 0;
    for i in 0..9 {
        t += d.access(t, Op::Write, i * stride, 4096);
    }
    let second = d.access(t, Op::Write, stride + 4096, 4096);
    assert!(second <= transfer, "the second stream is still followed: {second}");
    let first = d.access(t + second, Op::Write, 4096, 4096);
    assert!(first > transfer, "the first stream was forgotten: {first}");
}

/// The interface time of `bytes` on `spec`'s drive, ns.
fn interface_ns(spec: &super::HddSpec, bytes: u64) -> f64 {
    bytes as f64 * 1e9 / spec.max_transfer as f64
}

#[test]
fn a_second_read_of_the_same_sectors_is_served_at_interface_speed() {
    let spec = DESKTOP7200;
    let mut d = Hdd::new(spec.clone());
    let first = d.access(0, Op::Read, 1 << 30, 64 << 10);
    let second = d.access(first + 5_000_000, Op::Read, 1 << 30, 64 << 10);
    assert!(first as f64 > 2.0 * interface_ns(&spec, 64 << 10), "the first read waits for the media: {first}");
    assert_eq!(second as f64, interface_ns(&spec, 64 << 10).round(), "the second is a cache hit");
    let mut off = Hdd::with_cache(spec.clone(), super::CacheConfig::OFF);
    off.access(0, Op::Read, 1 << 30, 64 << 10);
    assert!(off.access(first + 5_000_000, Op::Read, 1 << 30, 64 << 10) > 4 * second, "without a cache it waits again");
}

/// Closed loop, back to back: `pieces` reads of `piece` bytes each, from byte 0 on.
fn scan(d: &mut Hdd, piece: u64, pieces: u64) -> u64 {
    let mut t = 0;
    for i in 0..pieces {
        t += d.access(t, Op::Read, i * piece, piece);
    }
    t
}

#[test]
fn an_unaligned_sequential_scan_costs_about_what_an_aligned_one_costs() {
    // 16 MiB in pieces of 4096 bytes, and in pieces of 5000 bytes (whose ends share a sector
    // with the next piece's start).
    let spec = ST5000AS0011;
    let aligned = scan(&mut Hdd::new(spec.clone()), 4096, 4096) as f64;
    let unaligned = scan(&mut Hdd::new(spec.clone()), 5000, 16 * 1024 * 1024 / 5000) as f64;
    assert!((unaligned / aligned - 1.0).abs() < 0.03, "aligned {aligned} unaligned {unaligned}");
    // Without a cache, each unaligned piece rereads a sector that has just passed: a turn each.
    let uncached =
        scan(&mut Hdd::with_cache(spec.clone(), super::CacheConfig::OFF), 5000, 16 * 1024 * 1024 / 5000) as f64;
    assert!(uncached > 20.0 * aligned, "uncached {uncached} aligned {aligned}");
}

#[test]
fn read_ahead_fills_idle_time_and_stops_when_the_head_is_needed() {
    let spec = DESKTOP7200;
    let mut d = Hdd::new(spec.clone());
    let rev = d.revolution_ns();
    let t = d.access(0, Op::Read, 0, 4096);
    // A turn later the drive has read on, well past the next 64 KiB: a hit.
    let next = d.access(t + rev as u64, Op::Read, 4096, 64 << 10);
    assert_eq!(next as f64, interface_ns(&spec, 64 << 10).round());
    // A read elsewhere stops the read-ahead; coming back at once finds only what it had read.
    let mut d = Hdd::new(spec.clone());
    let t = d.access(0, Op::Read, 0, 4096);
    let far = d.access(t, Op::Read, 100 << 30, 4096);
    let back = d.access(t + far, Op::Read, 4096, 4096);
    assert!(back as f64 > 10.0 * interface_ns(&spec, 4096), "nothing was read ahead: {back}");
}

#[test]
fn write_back_acknowledges_at_interface_speed_and_writes_in_idle_time() {
    let spec = DESKTOP7200;
    let cache = super::CacheConfig { write_back: true, ..spec.default_cache() };
    let mut d = Hdd::with_cache(spec.clone(), cache);
    let w = d.access(0, Op::Write, 500 << 30, 4096);
    assert_eq!(w as f64, interface_ns(&spec, 4096).round(), "acknowledged from the cache");
    // The drive writes it while idle: a read far away 50 ms later finds the head free.
    let mut through = Hdd::new(spec.clone());
    through.access(0, Op::Write, 500 << 30, 4096);
    let read_after_idle = d.access(50_000_000, Op::Read, 0, 4096);
    let read_write_through = through.access(50_000_000, Op::Read, 0, 4096);
    assert_eq!(read_after_idle, read_write_through, "the cached write reached the media before the read");
    // A read that comes at once waits for the cached write the drive has started.
    let mut d = Hdd::with_cache(spec.clone(), cache);
    d.access(0, Op::Write, 500 << 30, 4096);
    let waited = d.access(1, Op::Read, 0, 4096);
    assert!(waited > read_write_through, "{waited} vs {read_write_through}");
    // More than the cache holds: a write waits for the oldest to reach the media.
    let small = super::CacheConfig { bytes: 64 << 10, segments: 1, ..cache };
    let mut d = Hdd::with_cache(spec.clone(), small);
    assert_eq!(d.access(0, Op::Write, 0, 64 << 10) as f64, interface_ns(&spec, 64 << 10).round());
    assert!(d.access(0, Op::Write, 100 << 30, 4096) as f64 > 10.0 * interface_ns(&spec, 4096), "no room: it waits");
}

/// With the cache off, coming back to a sequential stream of writes after an access elsewhere
/// pays a seek back; with it on, the stream continues as if nothing came between.
#[test]
fn without_stream_cache_a_returning_stream_pays_its_positioning() {
    let run = |mut d: Hdd| {
        let mut t = 0;
        t += d.access(t, Op::Write, 0, 64 * 1024);
        t += d.access(t, Op::Write, 500_000_000_000, 4096);
        d.access(t, Op::Write, 64 * 1024, 64 * 1024)
    };
    let cached = run(Hdd::new(FLUID10K));
    let uncached = run(Hdd::with_cache(FLUID10K, super::CacheConfig::OFF));
    assert!(uncached > cached + FLUID10K.track_to_track_ns, "cache off {uncached} ns, on {cached} ns");
}

/// With a command queue the drive writes its cached writes back soonest-reached first: sixteen
/// 4 KiB writes scattered over one track fill a 64 KiB cache; a 64 KiB write after them must
/// wait until they are all on the media, which takes about a turn at depth 16, where written
/// back oldest first they take about half a turn each.
#[test]
fn queued_drive_writes_back_its_cache_in_positioning_order() {
    let spec = DESKTOP7200;
    let cache = super::CacheConfig { bytes: 64 << 10, segments: 1, write_back: true, ..spec.default_cache() };
    let spt = Hdd::new(spec.clone()).sectors_per_track_at(0);
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let slots = rand::seq::index::sample(&mut rng, (spt / 8) as usize, 16);
    let waited = |depth: u32| {
        let mut d = Hdd::with_cache(spec.clone(), cache).with_queue_depth(depth);
        // Reading the track's first sector puts the head on it.
        let mut t = d.access(0, Op::Read, 20 * spt * SECTOR, SECTOR);
        for slot in slots.iter() {
            t += d.access(t, Op::Write, (20 * spt + slot as u64 * 8) * SECTOR, 8 * SECTOR);
        }
        d.access(t, Op::Write, 20 * spt * SECTOR, 64 << 10) as f64
    };
    let rev = Hdd::new(spec.clone()).revolution_ns();
    let (queued, in_order) = (waited(16), waited(1));
    assert!(queued < 1.5 * rev, "depth 16: {queued} ns, a turn is {rev}");
    assert!(in_order > 4.0 * rev, "depth 1: {in_order} ns");
}

/// The disk PORE's experiments are timed on is the class §V-B names, "a 7200RPM 500GB CMR
/// disk", with its data sheet's figures: 4.16 ms average latency, 125 MB/s at the outer edge.
#[test]
fn the_pore_testbed_disk_has_its_data_sheets_figures() {
    let d = Hdd::new(ST3500418AS);
    assert_eq!((ST3500418AS.rpm, ST3500418AS.capacity), (7200, 500_000_000_000));
    let average_latency_ms = d.revolution_ns() / 2.0 / 1e6;
    assert!((average_latency_ms - 4.16).abs() < 0.01, "{average_latency_ms} ms");
    let outer_rate = (d.sectors_per_track_at(0) * SECTOR) as f64 * 7200.0 / 60.0;
    assert!((outer_rate / 125e6 - 1.0).abs() < 0.01, "{outer_rate} B/s at the outer edge");
}
