//! FluidSMR on a small partition: hand-worked layouts and request paths, and the properties
//! that no sequence of writes, swaps, evictions, conversions, allocations and migration quanta
//! loses a block's latest content (every block reads back from where the cache's table or the
//! zone map says), moves a write pointer backwards outside a reset, overfills the cache or its
//! table's quota; and that no geometry, scheme and request stream makes a run fail.

use proptest::prelude::*;
use smr_core::{Op, Params, Request};
use smr_trace::Footprint;

use super::mapping::Role;
use super::*;
use smr_kernel::{ok_requests, Engine, EngineConfig};

const ZONE: u64 = 64 << 10;
const BLOCKS: u64 = ZONE / BLOCK;
/// Twenty user zones of 64 KiB: at usage 0.9 a partition of 24 SMR zones (8 groups).
const USERS: u64 = 20;

fn small(extra: &[&str]) -> Result<(Fluid, IoCtx), SimError> {
    let mut pairs = vec!["zone_size=64KiB".to_string(), "map_quota=1MiB".to_string()];
    pairs.extend(extra.iter().map(|s| s.to_string()));
    let mut params = Params::parse(&pairs)?;
    let mut ctx = IoCtx::new();
    let footprint = Footprint::dense(USERS * ZONE, USERS * ZONE, USERS * ZONE);
    let system = BuildContext::new(&mut params, footprint, 0, &mut ctx, &[&ENTRY])
        .construct(PARAMS, |b| Fluid::build_with(b, true))?;
    params.finish()?;
    Ok((system, ctx))
}

fn write(f: &mut Fluid, ctx: &mut IoCtx, user: u64, block: u64, blocks: u64) {
    f.submit(&Request::new(0, Op::Write, user * ZONE + block * BLOCK, blocks * BLOCK), ctx).unwrap();
}

fn is_smr(f: &Fluid, user: u32) -> bool {
    !f.drive.is_cmr(f.map.zone_of(user))
}

/// The minimum SMR area for 20 zones in 24 is 4 CMR groups; fluid-smr converts 20 % of them
/// (one group): 3 CMR groups = 6 CMR zones, one of them the cache, 5 CMR user zones; 15 SMR.
#[test]
fn the_start_layout_follows_the_two_phase_allocation() {
    let (f, _) = small(&[]).unwrap();
    assert_eq!(f.geo.smr_zones(), 24);
    assert_eq!(f.data_zones(), (5, 15));
    assert_eq!(f.cache.as_ref().unwrap().zones(), &[0], "the outermost zone is the cache");
    assert_eq!(
        (f.map.zone_of(0), f.map.zone_of(4)),
        (1, 7),
        "users 0..5 in CMR zones 1, 3, 4, 6, 7 (slot 2 of a CMR group is offline)"
    );
    assert!((0..5).all(|u| !is_smr(&f, u)) && (5..20).all(|u| is_smr(&f, u)));
    let (swap_only, _) = small(&["scheme=swap-only"]).unwrap();
    assert_eq!(swap_only.data_zones(), (8, 12), "no conversion beyond the minimum: 4 CMR groups, no cache");
    let (all_smr, _) = small(&["scheme=fix-0.8"]).unwrap();
    assert_eq!(all_smr.data_zones(), (0, 20), "80 % of 4 groups is 3, capped where all data is in SMR (7 groups)");
    assert_eq!(all_smr.cache.as_ref().unwrap().zones().len(), 2);
    let (low, _) = small(&["usage=0.5"]).unwrap();
    assert_eq!(low.data_zones(), (20, 0), "phase I: 40 SMR zones' worth hold 20 CMR zones (direct allocation)");
    let (hinted, _) = small(&["usage=0.5", "smr_hint=0.25"]).unwrap();
    assert_eq!(hinted.data_zones(), (15, 5), "light allocation: the 5 hinted zones in SMR at the inner end");
    assert_eq!(hinted.map.zone_of(19) as u64 / 3, hinted.geo.groups - 1);
}

/// Every scheme with a cache starts with one (§7.1, §7.4), however full the partition: where
/// the scheme's conversions, rounded to whole groups, leave no cache zone, one more group
/// converts; where no whole CMR zone can be spared, the one spare SMR zone is formatted CMR on
/// its own (1/alpha of a zone: 10 of 16 blocks); with no zone to spare, a cache is refused.
#[test]
fn every_cached_scheme_starts_with_a_cache_however_full_the_partition() {
    // 19 zones at usage 0.95: 21 zones, 2 to spare. The minimum SMR area keeps 2 CMR groups,
    // 20 % of them rounds to none; one converted leaves 1 CMR user zone and 1 cache zone.
    let (f, _) = geometry(16, 19, &["scheme=+cache-fix".into(), "usage=0.95".into()]).unwrap();
    assert_eq!((f.data_zones(), f.cache.as_ref().unwrap().zones().len()), ((1, 18), 1));
    assert_eq!(f.drive.lone_cmr(), None);
    // 20 zones at 0.96: 21 zones, 1 to spare: a CMR group of a cache zone costs 2.
    for scheme in ["+cache-fix", "format-adapt", "imprv-lru", "fifo", "loop-back", "fluid-smr", "fix-0.8"] {
        let (f, _) = geometry(16, 20, &[format!("scheme={scheme}"), "usage=0.96".into()]).unwrap();
        let c = f.cache.as_ref().unwrap();
        assert_eq!((f.data_zones(), c.zones(), c.capacity()), ((0, 20), &[0][..], 10), "{scheme}");
        assert_eq!((f.drive.lone_cmr(), f.drive.smr_area_zones()), (Some(0), 20), "{scheme}");
    }
    // A stated size: 2 % of the 20-zone SMR area is 6 blocks, in the lone zone; 5 % (16 blocks)
    // does not fit in it.
    let stated =
        |share: &str| geometry(16, 20, &["scheme=fifo".into(), "usage=0.96".into(), format!("cache_limit={share}")]);
    assert_eq!(stated("2%").unwrap().0.cache.as_ref().unwrap().capacity(), 6);
    let err = stated("5%").err().unwrap().to_string();
    assert!(err.contains("cache_limit") && err.contains("no room for a cache"), "{err}");
    // 21 zones at usage 1: nothing to spare. A scheme without a cache runs; one with is refused.
    assert!(geometry(16, 21, &["scheme=swap-only".into(), "usage=1".into()]).is_ok());
    let err = geometry(16, 21, &["scheme=fifo".into(), "usage=1".into()]).err().unwrap().to_string();
    assert!(err.contains("usage") && err.contains("no room for a cache"), "{err}");
}

#[test]
fn an_nsw_goes_to_the_cache_or_costs_a_zone_rewrite() {
    let (mut f, mut ctx) = small(&["scheme=swap-only"]).unwrap();
    write(&mut f, &mut ctx, 10, 3, 2);
    assert_eq!((f.counts.nsw_writes, f.counts.zone_rewrites), (1, 1), "no cache: read-modify-write of the zone");
    assert_eq!(f.drive.written(f.map.zone_of(10)), ZONE, "the zone is rewritten whole");
    let (mut f, mut ctx) = small(&["scheme=fifo"]).unwrap();
    write(&mut f, &mut ctx, 10, 3, 2);
    write(&mut f, &mut ctx, 10, 4, 1);
    write(&mut f, &mut ctx, 2, 0, 1);
    let c = f.cache.as_ref().unwrap();
    assert_eq!((f.counts.new_blocks, f.counts.hit_blocks, f.counts.cmr_writes), (2, 1, 1));
    assert_eq!((c.map.occupancy(10), c.map.len(), f.counts.zone_rewrites), (2, 1, 0));
    assert_eq!(f.block_version(10, 4), Some(2), "the second write's version, from the cache");
}

#[test]
fn a_full_fifo_log_evicts_the_tail_blocks_zone() {
    // 16 cache slots: 8 blocks of zone 10, then 8 of zone 11 fill it; 1 more block of zone 12
    // evicts zone 10 (the tail), whose 8 slots are passed one by one.
    let (mut f, mut ctx) = small(&["scheme=fifo"]).unwrap();
    write(&mut f, &mut ctx, 10, 0, 8);
    write(&mut f, &mut ctx, 11, 0, 8);
    write(&mut f, &mut ctx, 12, 5, 1);
    let c = f.cache.as_ref().unwrap();
    assert_eq!((c.map.occupancy(10), c.map.occupancy(11), c.map.occupancy(12)), (0, 8, 1));
    assert_eq!((f.counts.zone_rewrites, f.counts.evicted_blocks), (1, 8));
    assert_eq!(f.block_version(10, 7), Some(1), "evicted blocks are in their zone");
}

#[test]
fn plain_lru_evicts_an_entry_improved_lru_its_zone() {
    // Zone 10 holds two entries (blocks 0 and 4), zone 11 one of 14 blocks: the 16 slots are
    // full. Zone 12's block evicts the least recent entry (zone 10's block 0) under plain LRU,
    // all of zone 10 under the improved LRU; either way one zone rewrite.
    for (scheme, entries, left) in [("format-adapt", 1, 1), ("imprv-lru", 2, 0)] {
        let (mut f, mut ctx) = small(&[&format!("scheme={scheme}")]).unwrap();
        write(&mut f, &mut ctx, 10, 0, 1);
        write(&mut f, &mut ctx, 10, 4, 1);
        write(&mut f, &mut ctx, 11, 0, 14);
        assert_eq!(f.cache.as_ref().unwrap().map.len(), 3);
        write(&mut f, &mut ctx, 12, 5, 1);
        let c = f.cache.as_ref().unwrap();
        assert_eq!(
            (f.counts.zone_rewrites, f.counts.evicted_entries, c.map.occupancy(10)),
            (1, entries, left),
            "{scheme}"
        );
        assert_eq!(f.block_version(10, 0), Some(1), "{scheme}: the evicted block is in its zone");
    }
}

/// §6.1: "the improved block LRU policy will fragment the Cache's free space, causing random
/// IOs". Zone 10's entries lie in slots 0, 2, 4 and 8-11, zone 11's between them; a write of
/// zone 12 to the full cache evicts zone 10 (least recent), leaving holes of one slot at 0, 2
/// and 4 and one of four at 8. Its three blocks take the free space as it lies: three holes,
/// three writes, three positionings; best fit puts them in the hole of four with one.
#[test]
fn a_write_into_a_fragmented_cache_costs_a_positioning_per_hole() {
    let writes = [(10, 0, 1), (11, 0, 1), (10, 2, 1), (11, 2, 1), (10, 4, 1), (11, 4, 3), (10, 8, 4), (11, 8, 4)];
    // The default places as first-free does.
    for (placement, holes) in [("", 3), ("lru_placement=best-fit", 1)] {
        let params: Vec<&str> = ["scheme=imprv-lru", placement].into_iter().filter(|p| !p.is_empty()).collect();
        let (mut f, mut ctx) = small(&params).unwrap();
        for (user, block, blocks) in writes {
            write(&mut f, &mut ctx, user, block, blocks);
        }
        assert_eq!(f.cache.as_ref().unwrap().map.cached(), 16, "the cache is full");
        let cache_io = |ctx: &IoCtx| ctx.channel_reports().into_iter().find(|r| r.channel == "cache").unwrap().stats;
        let before = cache_io(&ctx);
        write(&mut f, &mut ctx, 12, 0, 3);
        let io = cache_io(&ctx).since(&before);
        assert_eq!((f.counts.zone_rewrites, f.cache.as_ref().unwrap().map.occupancy(10)), (1, 0), "{placement}");
        assert_eq!((io.writes, io.seeks, io.bytes_written), (holes, holes, 3 * BLOCK), "{placement}");
        assert_eq!(f.cache.as_ref().unwrap().map.occupancy(12), 3, "{placement}");
        assert_eq!(f.block_version(12, 2), Some(f.version), "{placement}");
    }
}

#[test]
fn the_loop_back_log_requeues_hot_zones() {
    // Slots 0-7 zone 11, 8-11 zone 10 (written twice), 12-15 zone 12: the head wraps and the
    // epoch starts with zone 11 in the LRU half (cold), zones 10 and 12 hot. Zone 13's 4 blocks
    // evict zone 11 and take slots 0-3. Zone 14's 5 blocks find 4 free slots: cleaning meets
    // zone 10's entry at the tail, then zone 12's, each with room for it at the head, and
    // loops them back; then zone 13's entry, cold, is evicted, and zone 14's blocks take slots
    // 12-15 and 0, two entries round the log's end.
    let writes = [(11, 8), (10, 4), (10, 4), (12, 4), (13, 4), (14, 5)];
    let (mut f, mut ctx) = small(&["scheme=loop-back"]).unwrap();
    for (user, blocks) in writes {
        write(&mut f, &mut ctx, user, 0, blocks);
    }
    let c = f.cache.as_ref().unwrap();
    assert_eq!((f.counts.loop_backs, f.counts.zone_rewrites), (8, 2), "{:?}", f.counts);
    assert_eq!(
        (c.map.occupancy(10), c.map.occupancy(11), c.map.occupancy(12), c.map.occupancy(13), c.map.occupancy(14)),
        (4, 0, 4, 0, 5)
    );
    assert_eq!(c.map.len(), 4, "zones 10 and 12 one entry each, zone 14 two");
    assert_eq!(f.block_version(10, 3), Some(3), "a looped-back block keeps its content");
    let (mut fifo, mut ctx) = small(&["scheme=fifo"]).unwrap();
    for (user, blocks) in writes {
        write(&mut fifo, &mut ctx, user, 0, blocks);
    }
    assert_eq!((fifo.counts.loop_backs, fifo.cache.as_ref().unwrap().map.occupancy(10)), (0, 0), "FIFO evicts zone 10");
}

/// §7.1: format-adapt is "On top of +cache-fix", itself "In addition to swap", and §7.3's steps
/// change only format-adapt's cache policy: all of them swap by NSW frequency every 24 h.
/// fluid-smr swaps by cache occupancy instead (§6.2, §7.3). Zone 12 (SMR) takes ten NSWs of one
/// block in the first hour, a sixteenth of its range (below r*, and the cache holds it, so
/// Algorithm 1 neither swaps nor converts); a read a day later ends the 24 h window.
#[test]
fn every_scheme_built_on_cache_fix_swaps_by_nsw_frequency() {
    let hour = 3_600_000_000_000u64;
    for (scheme, swaps) in
        [("+cache-fix", 1), ("format-adapt", 1), ("imprv-lru", 1), ("fifo", 1), ("loop-back", 1), ("fluid-smr", 0)]
    {
        let (mut f, mut ctx) = small(&[&format!("scheme={scheme}")]).unwrap();
        assert!(is_smr(&f, 12));
        for i in 0..10 {
            f.submit(&Request::new(i * hour / 10, Op::Write, 12 * ZONE + 3 * BLOCK, BLOCK), &mut ctx).unwrap();
        }
        f.submit(&Request::new(25 * hour, Op::Read, 0, BLOCK), &mut ctx).unwrap();
        assert_eq!(
            (f.counts.frequency_swaps, f.counts.swap_windows, f.counts.to_smr + f.counts.to_cmr),
            (swaps, swaps, 0),
            "{scheme}"
        );
        assert_eq!(is_smr(&f, 12), swaps == 0, "{scheme}: the zone of most NSWs went to CMR");
        assert_eq!(f.block_version(12, 3), Some(10), "{scheme}");
    }
}

#[test]
fn algorithm1_converts_toward_cmr_under_wide_nsw_ranges_and_toward_the_cache_under_narrow_ones() {
    // Every SMR zone written over most of its range: CMR zones are hotter than r* too, so no
    // swap; SMR batches of 3 convert to CMR while the cache has zones to give.
    let (mut f, mut ctx) = small(&["scheme=adapt", "convert=0.5"]).unwrap();
    let before = f.data_zones();
    for user in 0..USERS {
        write(&mut f, &mut ctx, user, 1, BLOCKS - 2);
    }
    f.end_window(&mut ctx, 3_600_000_000_000).unwrap();
    let after = f.data_zones();
    assert!(after.0 > before.0, "toward CMR: {before:?} -> {after:?}");
    // Narrow ranges: CMR zones convert to SMR, the cache grows.
    let (mut f, mut ctx) = small(&["scheme=adapt"]).unwrap();
    let cache_before = f.cache.as_ref().unwrap().zones().len();
    for user in 0..USERS {
        write(&mut f, &mut ctx, user, 2, 1);
    }
    f.end_window(&mut ctx, 3_600_000_000_000).unwrap();
    assert!(f.cache.as_ref().unwrap().zones().len() > cache_before, "toward SMR + cache");
    assert_eq!(f.window.hours(), 1.0, "the configuration changed: the window stays at 1 h");
}

#[test]
fn bad_parameters_name_themselves() {
    for (param, name) in [
        ("alpha=1", "alpha"),
        ("alpha=0.5", "alpha"),
        ("usage=0", "usage"),
        ("usage=1.5", "usage"),
        ("latency_bound=5", "latency_bound"),
        ("partition=512KiB", "partition"),
        ("lru_placement=worst-fit", "lru_placement"),
    ] {
        let err = small(&[param]).err().unwrap_or_else(|| panic!("{param} accepted"));
        assert!(err.to_string().contains(name), "{param}: {err}");
    }
}

#[test]
fn quantized_migration_keeps_each_quantum_within_its_bound() {
    // Phase I, 8 unused CMR zones kept as the guard range: allocating 4 zones leaves 4;
    // repletion converts CMR groups, one unused zone more each, in quanta.
    let (mut f, mut ctx) =
        small(&["scheme=swap-only", "usage=0.5", "guard=512KiB", "allocate=256KiB", "latency_bound=60"]).unwrap();
    let reqs: Vec<Request> = (0..400u64).map(|i| Request::new(i, Op::Read, (i % USERS) * ZONE, BLOCK)).collect();
    let report = Engine::new(EngineConfig::default()).run(&mut f, &mut ctx, ok_requests(&reqs)).unwrap();
    assert!(report.counters.get("migration_quanta") > 1, "{:?}", report.counters);
    assert_eq!(report.counters.get("repletions"), 1);
    let max = report.gauges.iter().find(|(n, _)| n == "max_quantum_ns").unwrap().1;
    assert!(max > 0.0 && max <= 60e6, "{max}");
    assert!(f.free_zones().count() as u64 >= f.guard_zones());
    assert!((0..f.map.users()).all(|u| f.drive.entry(f.map.zone_of(u)) == Some(u)));
}

#[derive(Clone, Debug)]
enum Step {
    Write { user: u64, block: u64, blocks: u64 },
    Swap { a: u32, b: u32 },
    Evict { user: u32 },
    ToSmr { pick: u32 },
    ToCmr { pick: u32 },
    Window,
    Allocate,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => (0..USERS, 0..BLOCKS, 1u64..6).prop_map(|(user, block, blocks)| Step::Write { user, block, blocks: blocks.min(BLOCKS - block) }),
        1 => (0..USERS as u32, 0..USERS as u32).prop_map(|(a, b)| Step::Swap { a, b }),
        1 => (0..USERS as u32).prop_map(|user| Step::Evict { user }),
        1 => (0..USERS as u32).prop_map(|pick| Step::ToSmr { pick }),
        1 => (0..USERS as u32).prop_map(|pick| Step::ToCmr { pick }),
        1 => Just(Step::Window),
        1 => Just(Step::Allocate),
    ]
}

/// Three user zones of `format` from `pick` on, or `None`.
fn batch(f: &Fluid, pick: u32, smr: bool) -> Option<Vec<u32>> {
    let users: Vec<u32> =
        (0..f.map.users()).map(|i| (pick + i) % f.map.users()).filter(|&u| is_smr(f, u) == smr).take(3).collect();
    (users.len() == 3).then_some(users)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn no_block_is_lost_and_write_pointers_only_advance(
        scheme in prop::sample::select(vec!["fluid-smr", "format-adapt", "imprv-lru", "fifo", "loop-back", "swap-only", "recency", "fix-0.6"]),
        quota in prop::sample::select(vec!["1MiB", "200B", "60B"]),
        steps in prop::collection::vec(step(), 1..120),
    ) {
        let (mut f, mut ctx) = small(&[&format!("scheme={scheme}"), "usage=0.85", "guard=192KiB", "latency_bound=60", &format!("map_quota={quota}")]).unwrap();
        let mut latest: std::collections::HashMap<(u32, u64), u64> = Default::default();
        for user in 0..f.map.users() {
            for block in 0..BLOCKS {
                latest.insert((user, block), 0);
            }
        }
        let mut pointers: Vec<(u64, u32)> = (0..f.geo.smr_zones() as u32).map(|z| (f.drive.written(z), f.drive.rewinds(z))).collect();
        let mut allocated = false;
        for step in steps {
            match step {
                Step::Write { user, block, blocks } => {
                    write(&mut f, &mut ctx, user, block, blocks);
                    for b in block..block + blocks {
                        latest.insert((user as u32, b), f.version);
                    }
                }
                Step::Swap { a, b } => {
                    if !is_smr(&f, a) && is_smr(&f, b) && !f.migration.busy() {
                        let ch = f.ch.swap;
                        f.swap(&mut ctx, ch, a, b).unwrap();
                    }
                }
                Step::Evict { user } => {
                    if is_smr(&f, user) && !f.migration.busy() {
                        let ch = f.ch.rmw;
                        f.rewrite_zone(&mut ctx, ch, user, None).unwrap();
                    }
                }
                Step::ToSmr { pick } => {
                    if let Some(users) = batch(&f, pick, false).filter(|_| !f.migration.busy()) {
                        f.convert_to_smr(&mut ctx, &users).unwrap();
                    }
                }
                Step::ToCmr { pick } => {
                    if let Some(users) = batch(&f, pick, true).filter(|_| !f.migration.busy()) {
                        f.convert_to_cmr(&mut ctx, &users).unwrap();
                    }
                }
                Step::Window => {
                    f.end_swap_window(&mut ctx, 1 << 60).unwrap();
                    f.end_window(&mut ctx, 1 << 60).unwrap();
                }
                Step::Allocate => {
                    if !allocated && f.free_zones().count() > 0 {
                        allocated = true;
                        f.allocate_space(&mut ctx, ZONE).unwrap();
                    }
                }
            }
            // Every block written reads back its latest version (allocated zones are empty).
            for (&(user, block), &version) in &latest {
                prop_assert_eq!(f.block_version(user, block), Some(version), "user {} block {} after {:?}", user, block, scheme);
            }
            // The zone map can be rebuilt from the zones' first sectors.
            for user in 0..f.map.users() {
                let zone = f.map.zone_of(user);
                prop_assert_eq!(f.map.role(zone), Role::Data(user));
                if f.map.valid(user) > 0 {
                    prop_assert_eq!(f.drive.entry(zone), Some(user));
                }
            }
            // A write pointer moves back only when its zone is reset or converted.
            for zone in 0..f.geo.smr_zones() as u32 {
                let now = (f.drive.written(zone), f.drive.rewinds(zone));
                let before = pointers[zone as usize];
                prop_assert!(now.0 >= before.0 || now.1 > before.1, "zone {} pointer went back without a reset", zone);
                pointers[zone as usize] = now;
            }
            // The mapping table is sound and within its quota; what it maps is what the cache
            // slots hold.
            if let Some(c) = f.cache.as_ref() {
                prop_assert!(c.map.cached() <= c.capacity());
                prop_assert!(c.map.len() <= c.quota_entries(), "{} entries, quota {}", c.map.len(), c.quota_entries());
                c.map.check(c.capacity()).map_err(TestCaseError::fail)?;
                for user in c.map.users() {
                    prop_assert!(is_smr(&f, user), "only SMR zones have cached blocks");
                }
            }
        }
    }
}

/// A partition of `users` zones of `zone_blocks` blocks, with `extra` parameters.
fn geometry(zone_blocks: u64, users: u64, extra: &[String]) -> Result<(Fluid, IoCtx), SimError> {
    let mut pairs = vec![format!("zone_size={}", zone_blocks * BLOCK)];
    pairs.extend(extra.iter().cloned());
    let mut params = Params::parse(&pairs)?;
    let mut ctx = IoCtx::new();
    let span = users * zone_blocks * BLOCK;
    let footprint = Footprint::dense(span, span, span);
    let system = BuildContext::new(&mut params, footprint, 0, &mut ctx, &[&ENTRY])
        .construct(PARAMS, |b| Fluid::build_with(b, true))?;
    params.finish()?;
    Ok((system, ctx))
}

/// The 2,000-request usr_0 of `smrlab fluid-trace` in small: zones of 60 blocks (its suggested
/// 245,760 bytes) and 128 KiB writes over a cache of a few zones. A partly cached write whose
/// own zone cleaning evicts then holds more new blocks than the cache; it goes to its zone.
#[test]
fn a_write_the_cache_can_no_longer_take_goes_to_its_zone() {
    for scheme in ["format-adapt", "imprv-lru", "fifo", "loop-back", "fluid-smr", "fix-0.2", "adapt"] {
        let (mut f, mut ctx) = geometry(60, 20, &[format!("scheme={scheme}"), "cache_limit=40KiB".into()]).unwrap();
        let zone = 60 * BLOCK;
        let target = (0..20).find(|&u| is_smr(&f, u)).unwrap() as u64;
        // Eight blocks cached, then a write of twelve covering them: four new blocks fit in the
        // ten slots only once the zone's own eight leave, and then twelve do not.
        f.submit(&Request::new(0, Op::Write, target * zone + 4 * BLOCK, 8 * BLOCK), &mut ctx).unwrap();
        f.submit(&Request::new(0, Op::Write, target * zone, 12 * BLOCK), &mut ctx).unwrap();
        assert_eq!(f.block_version(target as u32, 11), Some(2), "{scheme}");
        assert!(f.cache.as_ref().is_none_or(|c| c.map.cached() <= 10), "{scheme}");
    }
}

fn request() -> impl Strategy<Value = (bool, f64, u64, u64)> {
    // (write?, where in the range, bytes, hours after the last)
    (prop::bool::weighted(0.8), 0.0..1.0f64, 1u64..600_000, prop::sample::select(vec![0u64, 0, 0, 1, 3]))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Any geometry, scheme, quota, cache size and request stream: every request is served (no
    /// panic, no error), every block reads back its latest version, the table stays sound and
    /// within its quota.
    #[test]
    fn no_geometry_or_scheme_makes_a_run_fail(
        zone_blocks in 1u64..64,
        users in 1u64..24,
        usage in 0.3..=1.0f64,
        alpha in prop::sample::select(vec!["1.25", "1.5", "2", "3"]),
        scheme in prop::sample::select(scheme::NAMES.to_vec()),
        quota in prop::sample::select(vec!["none", "1MiB", "100B"]),
        limit in prop::sample::select(vec!["none", "8KiB", "0.02%", "50%"]),
        occupancy in prop::sample::select(vec!["rstar", "0.01", "1"]),
        requests in prop::collection::vec(request(), 1..150),
    ) {
        let extra = [format!("scheme={scheme}"), format!("usage={usage}"), format!("alpha={alpha}"), format!("map_quota={quota}"),
                     format!("cache_limit={limit}"), format!("occupancy={occupancy}")];
        // A partition the layout refuses (too few zones for the scheme) is a typed error, not a run.
        let Ok((mut f, mut ctx)) = geometry(zone_blocks, users, &extra) else { return Ok(()) };
        let span = users * zone_blocks * BLOCK;
        let mut latest: std::collections::HashMap<(u32, u64), u64> = Default::default();
        let mut now = 0u64;
        for (is_write, at, len, hours) in requests {
            now += hours * 3_600_000_000_000;
            let offset = ((span as f64 * at) as u64).min(span - 1);
            let len = len.min(span - offset);
            let op = if is_write { Op::Write } else { Op::Read };
            f.submit(&Request::new(now, op, offset, len), &mut ctx).map_err(|e| TestCaseError::fail(e.to_string()))?;
            if is_write {
                for b in offset / BLOCK..(offset + len).div_ceil(BLOCK) {
                    latest.insert(((b / zone_blocks) as u32, b % zone_blocks), f.version);
                }
            }
        }
        for (&(user, block), &version) in &latest {
            prop_assert_eq!(f.block_version(user, block), Some(version), "user {} block {}", user, block);
        }
        if let Some(c) = f.cache.as_ref() {
            prop_assert!(c.map.len() <= c.quota_entries());
            c.map.check(c.capacity()).map_err(TestCaseError::fail)?;
        }
    }
}

/// A log whose head comes round to its tail: the block written at the head continues, in the
/// zone and in the slots, the entry at the tail (user 16's blocks 10-13 in slots 4-7, its block
/// 9 written into slot 3). Joined, the entry straddled the tail, which then passed over its
/// slots as holes, and the next write overwrote block 10.
#[test]
fn a_log_never_joins_its_head_to_its_tail() {
    let writes = [
        (0, 0, 1),
        (3, 0, 1),
        (2, 1, 1),
        (0, 9, 1),
        (16, 9, 3),
        (1, 10, 2),
        (4, 11, 3),
        (14, 1, 2),
        (16, 10, 4),
        (0, 5, 5),
        (16, 9, 3),
        (13, 12, 1),
    ];
    for scheme in ["fifo", "loop-back"] {
        let (mut f, mut ctx) =
            small(&[&format!("scheme={scheme}"), "usage=0.85", "convert=1", "cache_limit=40KiB"]).unwrap();
        let mut latest = std::collections::HashMap::new();
        for (user, block, blocks) in writes {
            write(&mut f, &mut ctx, user, block, blocks);
            for b in block..block + blocks {
                latest.insert((user as u32, b), f.version);
            }
        }
        for (&(user, block), &version) in &latest {
            assert_eq!(f.block_version(user, block), Some(version), "{scheme}: user {user} block {block}");
        }
        f.cache.as_ref().unwrap().map.check(10).unwrap();
    }
}
