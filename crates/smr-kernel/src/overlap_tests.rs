//! Batches and overlapped replays: known answers worked from the media's timings, and the
//! invariants of the commands in flight (a device serves one at a time, nothing starts before
//! what it waits for ends, the clock ends with the last command).

use proptest::prelude::*;
use smr_core::units::SECTOR;
use smr_core::{Op, Request};
use smr_media::{CacheConfig, FixedLatencyMedium, Hdd, Medium, DESKTOP7200};

use super::engine::{ok_requests, Engine, EngineConfig, ReplayMode};
use super::ioctx::{Background, ChannelId, Command, IoCtx};
use super::metrics::Counters;
use super::system::{Concurrency, System};
use super::SimError;

/// A 4 KiB SSD read and write (`FixedLatencyMedium::ssd`: 50 µs + 4096 B at 500 MB/s; 65 µs +
/// 4096 B at 460 MB/s, rounded up).
const SSD_READ: u64 = 50_000 + 8_192;
const SSD_WRITE: u64 = 65_000 + 8_905;

fn disk(depth: u32) -> Box<dyn Medium> {
    Box::new(Hdd::with_cache(DESKTOP7200, CacheConfig::OFF).with_queue_depth(depth))
}

/// A context with a disk of queue depth `depth` and an SSD; their channels.
fn context(depth: u32) -> (IoCtx, ChannelId, ChannelId) {
    let mut ctx = IoCtx::new();
    let d = ctx.add_device("disk", disk(depth));
    let s = ctx.add_device("ssd", Box::new(FixedLatencyMedium::ssd(1 << 30)));
    let (disk, ssd) = (ctx.channel(d, "disk"), ctx.channel(s, "ssd"));
    (ctx, disk, ssd)
}

fn spt() -> u64 {
    Hdd::new(DESKTOP7200).sectors_per_track_at(0)
}

fn revolution() -> f64 {
    Hdd::new(DESKTOP7200).revolution_ns()
}

/// `n` 8-sector slots of track 10, drawn without repeats, as byte offsets.
fn slots_on_track_10(n: usize, seed: u64) -> Vec<u64> {
    use rand::SeedableRng;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    rand::seq::index::sample(&mut rng, (spt() / 8) as usize, n)
        .iter()
        .map(|slot| (10 * spt() + slot as u64 * 8) * SECTOR)
        .collect()
}

#[test]
fn a_batch_on_devices_that_do_not_queue_is_its_ios_one_by_one() {
    let (mut batched, disk, ssd) = context(1);
    let (mut single, _, _) = context(1);
    let commands: Vec<Command> = (0..12u64)
        .map(|i| {
            if i % 3 == 0 {
                Command::new(ssd, Op::Read, i << 20, 4096)
            } else {
                Command::new(disk, Op::Write, (i * 7919) << 20, 65536)
            }
        })
        .collect();
    batched.batch(&commands);
    for c in &commands {
        single.io(c.channel, c.op, c.offset, c.len);
    }
    assert_eq!(batched.now(), single.now());
    assert_eq!(batched.channel_reports(), single.channel_reports());
}

/// Known answer: with the head on the track, N reads there (not overlapping) issued as a batch
/// to a drive of depth N take at most a turn plus the last one's 8 sectors; at depth 1, in the
/// order issued, over a quarter turn each.
#[test]
fn reads_on_one_track_batched_at_depth_n_finish_within_a_turn() {
    let rev = revolution();
    for n in [8, 32] {
        let took = |depth: u32| {
            let (mut ctx, disk, _) = context(depth);
            ctx.io(disk, Op::Read, 10 * spt() * SECTOR, SECTOR);
            let start = ctx.now();
            let reads: Vec<Command> = slots_on_track_10(n, n as u64)
                .into_iter()
                .map(|at| Command::new(disk, Op::Read, at, 8 * SECTOR))
                .collect();
            ctx.batch(&reads);
            (ctx.now() - start) as f64
        };
        let (queued, in_order) = (took(n as u32), took(1));
        assert!(queued <= rev + 9.0 * rev / spt() as f64, "depth {n}: {queued} ns, a turn is {rev}");
        assert!(in_order > n as f64 / 4.0 * rev, "depth 1: {in_order} ns for {n} reads");
    }
}

/// The drive picks the nearest command it may start: of a far read, a near write that waits for
/// it and a near read, the near read goes first, then the far read, then the write.
#[test]
fn a_command_of_a_batch_waits_for_the_one_it_is_after() {
    let (mut ctx, disk, _) = context(3);
    let far = Command::new(disk, Op::Read, 300 << 30, 4096);
    let near_write = Command::new(disk, Op::Write, 4096, 4096).after(0);
    let near_read = Command::new(disk, Op::Read, 8192, 4096);
    ctx.batch(&[far, near_write, near_read]);
    let order: Vec<u64> = ctx.served().iter().map(|(_, a, _, _)| a.offset).collect();
    assert_eq!(order, [8192, 300 << 30, 4096]);
    let (_, _, far_start, far_end) = ctx.served()[1];
    assert!(ctx.served()[2].2 >= far_end && far_start >= ctx.served()[0].3);
    assert_eq!(ctx.now(), ctx.served()[2].3);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// Any batch over two disks of any depth and an SSD, with any `after` links: each device
    /// serves one command at a time, every command once; none starts before the batch or
    /// before the command it is after ends; the clock ends with the last command.
    #[test]
    fn a_batch_keeps_its_order_constraints_and_devices_serve_one_at_a_time(
        commands in proptest::collection::vec((0usize..3, any::<bool>(), 0u64..1 << 13, proptest::option::of(any::<prop::sample::Index>())), 1..40),
        depths in (1u32..9, 1u32..9),
        start in 0u64..1 << 30,
    ) {
        let mut ctx = IoCtx::new();
        let channels: Vec<ChannelId> = [disk(depths.0), disk(depths.1), Box::new(FixedLatencyMedium::ssd(1 << 40))]
            .into_iter()
            .enumerate()
            .map(|(i, medium)| {
                let d = ctx.add_device(&format!("d{i}"), medium);
                ctx.channel(d, "c")
            })
            .collect();
        ctx.advance_to(start);
        // Offsets are unique: a command's place in the batch times 64 KiB, plus a scatter.
        let batch: Vec<Command> = commands
            .iter()
            .enumerate()
            .map(|(i, &(device, write, scatter, after))| {
                let c = Command::new(channels[device], if write { Op::Write } else { Op::Read }, (scatter << 26) + ((i as u64) << 16), 4096);
                match after.filter(|_| i > 0) {
                    Some(index) => c.after(index.index(i)),
                    None => c,
                }
            })
            .collect();
        ctx.batch(&batch);
        let served = ctx.served().to_vec();
        let device_depths = [depths.0, depths.1, 1];
        let queued = commands.iter().any(|&(device, ..)| device_depths[device] > 1);
        if !queued {
            prop_assert!(served.is_empty(), "devices that do not queue run a batch one by one");
            return Ok(());
        }
        prop_assert_eq!(served.len(), batch.len());
        let times = |c: &Command| served.iter().find(|s| s.1.offset == c.offset).map(|s| (s.2, s.3)).expect("served");
        for (i, c) in batch.iter().enumerate() {
            let (s, _) = times(c);
            prop_assert!(s >= start);
            if let Some(a) = c.after {
                prop_assert!(s >= times(&batch[a as usize]).1, "command {} started before command {} ended", i, a);
            }
        }
        for device in 0..3 {
            let mut spans: Vec<(u64, u64)> = served.iter().filter(|s| s.0 == device).map(|s| (s.2, s.3)).collect();
            spans.sort_unstable();
            prop_assert!(spans.windows(2).all(|w| w[0].1 <= w[1].0), "device {} served two at once", device);
        }
        prop_assert_eq!(ctx.now(), served.iter().map(|s| s.3).max().unwrap());
    }
}

/// A system of one I/O per request on the disk (reads, writes) or on the SSD (offsets from
/// 2^40), that may overlap; with `backlog`, background work of that many 4 KiB SSD writes,
/// one at a time, and requests to byte 1 wait for the one in flight.
struct Toy {
    disk: ChannelId,
    ssd: ChannelId,
    overlaps: bool,
    backlog: u32,
    in_flight: Option<Background>,
    background_done: u32,
}

const ON_SSD: u64 = 1 << 40;

impl Toy {
    fn new(depth: u32, overlaps: bool, backlog: u32) -> (Self, IoCtx) {
        let (ctx, disk, ssd) = context(depth);
        (Toy { disk, ssd, overlaps, backlog, in_flight: None, background_done: 0 }, ctx)
    }
}

impl System for Toy {
    fn submit(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError> {
        if req.offset == 1 {
            if let Some(work) = self.in_flight {
                ctx.wait_for(work);
            }
        }
        match req.offset.checked_sub(ON_SSD) {
            Some(at) => ctx.io(self.ssd, req.op, at, req.len),
            None => ctx.io(self.disk, req.op, req.offset, req.len),
        };
        Ok(())
    }

    fn concurrency(&self) -> Concurrency {
        if self.overlaps {
            Concurrency::Overlapped { background: self.backlog > 0 }
        } else {
            Concurrency::Serial
        }
    }

    fn background(&mut self, ctx: &mut IoCtx) -> Result<bool, SimError> {
        if self.in_flight.is_some_and(|w| !ctx.finished(w)) || self.backlog == 0 {
            return Ok(false);
        }
        if self.in_flight.take().is_some() {
            self.background_done += 1;
        }
        self.backlog -= 1;
        let ssd = self.ssd;
        self.in_flight = Some(ctx.background(|ctx| ctx.io(ssd, Op::Write, 0, 4096)).0);
        Ok(true)
    }

    fn capacity(&self) -> u64 {
        2 * ON_SSD
    }

    fn counters(&self, _out: &mut Counters) {}
}

fn open() -> EngineConfig {
    EngineConfig { mode: ReplayMode::Open { speedup: 1.0 }, ..Default::default() }
}

/// Known answer: N reads on one track arriving at the same moment reach a drive of depth N
/// together: the first starts as it arrives (the drive is idle), and the rest are served as
/// the platter brings them round, so all complete within two turns of their arrival; the
/// serial replay (depth 1) serves them in arrival order, over a quarter turn each.
#[test]
fn requests_arriving_together_queue_at_the_drive() {
    let rev = revolution();
    let n = 16;
    let mut requests = vec![Request::new(0, Op::Read, 10 * spt() * SECTOR, SECTOR)];
    requests.extend(slots_on_track_10(n, 7).into_iter().map(|at| Request::new(50_000_000, Op::Read, at, 8 * SECTOR)));
    let worst = |depth: u32| {
        let (mut toy, mut ctx) = Toy::new(depth, true, 0);
        let r = Engine::new(open()).run(&mut toy, &mut ctx, ok_requests(&requests)).unwrap();
        r.read.response.max_ns as f64
    };
    let (queued, in_order) = (worst(n as u32), worst(1));
    assert!(queued <= 2.0 * rev + 9.0 * rev / spt() as f64, "depth {n}: slowest {queued} ns, a turn is {rev}");
    assert!(in_order > n as f64 / 4.0 * rev, "depth 1: slowest {in_order} ns");
}

/// Known answer: background work shares the SSD with requests. A read arriving at 100 µs,
/// while the first background write (issued after the read at 0, behind it: 58,192 to
/// 132,097 ns) is in service, starts when that write ends, before the next background write is
/// issued: its response is 32,097 + 58,192 ns.
#[test]
fn background_work_shares_the_device_with_requests() {
    let requests = [Request::new(0, Op::Read, ON_SSD, 4096), Request::new(100_000, Op::Read, ON_SSD + 4096, 4096)];
    let (mut toy, mut ctx) = Toy::new(1, true, 5);
    let r = Engine::new(open()).run(&mut toy, &mut ctx, ok_requests(&requests)).unwrap();
    assert_eq!(r.read.response.sum_ns, SSD_READ + (132_097 - 100_000 + SSD_READ));
    assert_eq!(r.read.service.sum_ns, 2 * SSD_READ);
    // Every background write ran, one after another after the second read.
    assert_eq!(toy.backlog, 0);
    assert_eq!(ctx.now(), SSD_READ + SSD_WRITE + SSD_READ + 4 * SSD_WRITE);
}

/// A request that waits for background work completes after it: the second read (to byte 1)
/// waits for the background write in flight at its arrival.
#[test]
fn a_request_that_waits_for_background_work_completes_after_it() {
    let requests = [Request::new(0, Op::Read, ON_SSD, 4096), Request::new(100_000, Op::Read, 1, 4096)];
    let (mut toy, mut ctx) = Toy::new(1, true, 1);
    let r = Engine::new(open()).run(&mut toy, &mut ctx, ok_requests(&requests)).unwrap();
    let background_end = SSD_READ + SSD_WRITE;
    assert!(r.read.response.max_ns > background_end - 100_000, "{}", r.read.response.max_ns);
    assert_eq!(toy.backlog, 0);
}

/// In a closed loop an overlapped replay issues each request when the one before it completes,
/// and background work still runs beside them.
#[test]
fn a_closed_loop_issues_each_request_when_the_last_completes() {
    let requests: Vec<Request> = (0..6).map(|i| Request::new(0, Op::Read, ON_SSD + i * 4096, 4096)).collect();
    let (mut toy, mut ctx) = Toy::new(1, true, 3);
    let r = Engine::new(EngineConfig::default()).run(&mut toy, &mut ctx, ok_requests(&requests)).unwrap();
    assert_eq!(r.read.requests, 6);
    assert_eq!(r.read.response.sum_ns, r.read.service.sum_ns, "no request waited for another");
    assert_eq!(toy.backlog, 0);
    assert_eq!(ctx.now(), 6 * SSD_READ + 3 * SSD_WRITE);
}

#[test]
fn a_system_that_cannot_overlap_is_refused_a_queueing_drive_in_an_open_loop() {
    let requests = [Request::new(0, Op::Read, 0, 4096)];
    let (mut toy, mut ctx) = Toy::new(4, false, 0);
    let err = Engine::new(open()).run(&mut toy, &mut ctx, ok_requests(&requests)).unwrap_err().to_string();
    assert!(err.contains("'disk_queue_depth'"), "{err}");
    let (mut toy, mut ctx) = Toy::new(4, false, 0);
    assert!(
        Engine::new(EngineConfig::default()).run(&mut toy, &mut ctx, ok_requests(&requests)).is_ok(),
        "closed loop: one request at a time anyway"
    );
}

#[test]
fn overlapped_replays_are_deterministic() {
    let requests: Vec<Request> = (0..400u64)
        .map(|i| {
            Request::new(
                i * 700_000,
                if i % 3 == 0 { Op::Write } else { Op::Read },
                if i % 4 == 0 { ON_SSD + i * 4096 } else { (i * 7919 % 5000) << 20 },
                4096,
            )
        })
        .collect();
    let run = || {
        let (mut toy, mut ctx) = Toy::new(8, true, 50);
        Engine::new(open()).run(&mut toy, &mut ctx, ok_requests(&requests)).unwrap()
    };
    let (a, b) = (run(), run());
    assert_eq!(a, b);
    assert_eq!(a.requests, 400);
}

/// The saturation verdict of an overlapped replay: requests every 20 µs to an SSD that takes
/// 58 µs each pile up for the whole replay; every 100 µs they find it idle.
#[test]
fn an_overlapped_replay_is_judged_saturated_when_its_queue_grows_throughout() {
    let saturated = |gap_ns: u64| {
        let requests: Vec<Request> =
            (0..2_000u64).map(|i| Request::new(i * gap_ns, Op::Read, ON_SSD + i * 4096, 4096)).collect();
        let (mut toy, mut ctx) = Toy::new(8, true, 0);
        let r = Engine::new(open()).run(&mut toy, &mut ctx, ok_requests(&requests)).unwrap();
        r.saturation.expect("an open-loop replay has a verdict").saturated
    };
    assert!(saturated(20_000));
    assert!(!saturated(100_000));
}

/// The iodepth of a closed loop, on the reads of `requests_arriving_together_queue_at_the_drive`:
/// a positioning read at the start of track 10 and N reads on that track, replayed back to
/// back. Known answer: keeping all N + 1 in flight at a drive of that depth, the drive serves
/// them as the platter brings them round once the head is on the track, so the replay takes
/// at most the seek there, one turn and the last read's 8 sectors; one at a time (iodepth 1,
/// the closed loop as it was) each waits for its own sector, over a quarter turn apiece.
#[test]
fn a_closed_loop_at_iodepth_n_keeps_n_requests_at_the_drive() {
    let rev = revolution();
    let n = 16;
    let track = 10 * spt() * SECTOR;
    let mut requests = vec![Request::new(0, Op::Read, track, SECTOR)];
    requests.extend(slots_on_track_10(n, 7).into_iter().map(|at| Request::new(0, Op::Read, at, 8 * SECTOR)));
    let replay = |iodepth: u32| {
        let (mut toy, mut ctx) = Toy::new(n as u32 + 1, true, 0);
        let config = EngineConfig { iodepth, ..Default::default() };
        let r = Engine::new(config).run(&mut toy, &mut ctx, ok_requests(&requests)).unwrap();
        assert_eq!((r.requests, r.iodepth), (n as u64 + 1, iodepth));
        r.makespan_ns as f64
    };
    let positioning = disk(1).access(0, Op::Read, track, SECTOR) as f64;
    let (queued, one_by_one) = (replay(n as u32 + 1), replay(1));
    assert!(queued <= positioning + rev + 9.0 * rev / spt() as f64, "iodepth {}: {queued} ns", n + 1);
    assert!(one_by_one > positioning + n as f64 / 4.0 * rev, "iodepth 1: {one_by_one} ns");
}

/// Requests that each issue a list of commands (the request's offset picks its list), replayed
/// as a translated trace (unordered, split into pieces of `piece` bytes) or as ordered chains;
/// each request's commands are timed together.
struct Logged {
    lists: Vec<Vec<(ChannelId, Op, u64, u64)>>,
    piece: Option<u64>,
    timer: super::ioctx::TimerId,
}

static TIMED: super::metrics::Metric =
    super::metrics::Metric::new("timed_ns", super::metrics::Unit::Ns, "requests' commands, issue to end");

impl Logged {
    fn new(ctx: &mut IoCtx, lists: Vec<Vec<(ChannelId, Op, u64, u64)>>, piece: Option<u64>) -> Self {
        let timer = ctx.timer(&TIMED);
        Logged { lists, piece, timer }
    }
}

impl System for Logged {
    fn submit(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError> {
        let timer = ctx.start_timer(self.timer);
        for &(channel, op, offset, len) in &self.lists[req.offset as usize] {
            ctx.io(channel, op, offset, len);
        }
        ctx.stop_timer(timer);
        Ok(())
    }

    fn concurrency(&self) -> Concurrency {
        match self.piece {
            Some(max_command) => Concurrency::Translated { max_command },
            None => Concurrency::Overlapped { background: false },
        }
    }

    fn capacity(&self) -> u64 {
        self.lists.len() as u64
    }

    fn counters(&self, _out: &mut Counters) {}
}

/// A request of a translated trace issues its commands together, none waiting for another, and
/// split. While the drive (depth 2) serves a read at the start of the disk, a request issues a
/// far read and then a near write: the near write is served next (an ordered chain serves the
/// far read first, the write waiting for it); a 256 KiB read in 64 KiB pieces is four commands.
#[test]
fn a_translated_request_issues_its_commands_unordered_and_split() {
    let served = |piece: Option<u64>, lists: Vec<Vec<(Op, u64, u64)>>| {
        let (mut ctx, disk, _) = context(2);
        let lists: Vec<_> = lists
            .into_iter()
            .map(|l| l.into_iter().map(|(op, offset, len)| (disk, op, offset, len)).collect())
            .collect();
        let requests: Vec<Request> = (0..lists.len() as u64).map(|i| Request::new(0, Op::Read, i, 1)).collect();
        let mut system = Logged::new(&mut ctx, lists, piece);
        let config = EngineConfig { iodepth: 2, ..Default::default() };
        Engine::new(config).run(&mut system, &mut ctx, ok_requests(&requests)).unwrap();
        ctx.served().iter().map(|(_, a, _, _)| (a.offset, a.len)).collect::<Vec<_>>()
    };
    let busy = vec![(Op::Read, 0, 4096)];
    let far_then_near = vec![(Op::Read, 300 << 30, 4096), (Op::Write, 8192, 4096)];
    let lists = vec![busy, far_then_near];
    assert_eq!(served(Some(64 << 10), lists.clone()), [(0, 4096), (8192, 4096), (300 << 30, 4096)]);
    assert_eq!(served(None, lists), [(0, 4096), (300 << 30, 4096), (8192, 4096)]);
    let mut pieces = served(Some(64 << 10), vec![vec![(Op::Read, 1 << 30, 256 << 10)]]);
    pieces.sort_unstable();
    assert_eq!(pieces, (0..4).map(|i| ((1 << 30) + i * (64 << 10), 64 << 10)).collect::<Vec<_>>());
}

/// Known answer: a timer adds up its commands' time from when the first reaches its device
/// (the device takes it into its queue: fio's submission) to the end of the last. Two requests
/// of one read each, kept in flight together (iodepth 2): on a device that takes one command
/// at a time (an SSD, or a disk of depth 1) the second reaches it when the first is done, so
/// each is timed for its own service; a disk of depth 2 takes both at once, and the second is
/// timed from then, its wait in the drive's queue included.
#[test]
fn a_timer_counts_from_the_device_taking_a_command_to_its_end() {
    let timed = |depth: u32, on_ssd: bool, iodepth: u32| {
        let (mut ctx, disk, ssd) = context(depth);
        let channel = if on_ssd { ssd } else { disk };
        let lists = (0..2).map(|i| vec![(channel, Op::Read, (10 * spt() + i * 300) * SECTOR, 4096)]).collect();
        let mut system = Logged::new(&mut ctx, lists, None);
        let requests: Vec<Request> = (0..2).map(|i| Request::new(0, Op::Read, i, 1)).collect();
        let config = EngineConfig { iodepth, ..Default::default() };
        let r = Engine::new(config).run(&mut system, &mut ctx, ok_requests(&requests)).unwrap();
        let served: Vec<(u64, u64)> = ctx.served().iter().map(|s| (s.2, s.3)).collect();
        (r.counters.get("timed_ns"), served)
    };
    assert_eq!(timed(1, true, 1).0, 2 * SSD_READ);
    assert_eq!(timed(1, true, 2).0, 2 * SSD_READ);
    let (one_at_a_time, served) = timed(1, false, 2);
    assert_eq!(one_at_a_time, served.iter().map(|(start, end)| end - start).sum::<u64>());
    let (both_at_once, served) = timed(2, false, 2);
    assert_eq!(served.len(), 2);
    assert_eq!(both_at_once, served[0].1 + served[1].1, "both reached the drive at 0");
    assert!(both_at_once > served.iter().map(|(start, end)| end - start).sum::<u64>());
}

/// An iodepth out of range, above 1 in an open loop, or above 1 for a system that cannot
/// overlap is refused, naming `iodepth`.
#[test]
fn a_bad_iodepth_is_refused_by_name() {
    let requests = [Request::new(0, Op::Read, 0, 4096)];
    for (iodepth, overlaps, mode) in [
        (0, true, ReplayMode::Closed),
        (super::engine::MAX_IODEPTH + 1, true, ReplayMode::Closed),
        (2, true, ReplayMode::Open { speedup: 1.0 }),
        (2, false, ReplayMode::Closed),
    ] {
        let (mut toy, mut ctx) = Toy::new(1, overlaps, 0);
        let config = EngineConfig { iodepth, mode, ..Default::default() };
        let err = Engine::new(config).run(&mut toy, &mut ctx, ok_requests(&requests)).unwrap_err().to_string();
        assert!(err.contains("'iodepth'"), "{iodepth}, {mode:?}: {err}");
    }
}
