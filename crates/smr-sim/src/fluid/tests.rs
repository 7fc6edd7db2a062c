//! FluidSMR on a small partition: hand-worked layouts and request paths, and the property that
//! no sequence of writes, swaps, evictions, conversions, allocations and migration quanta loses
//! a block's latest content, moves a write pointer backwards outside a reset, or overfills the
//! cache.

use proptest::prelude::*;
use smr_core::trace::Footprint;
use smr_core::{Op, Params, Request};

use super::mapping::Role;
use super::*;
use crate::kernel::{ok_requests, Engine, EngineConfig};

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
    let system = BuildContext::new(&mut params, footprint, 0, &mut ctx, &[&ENTRY]).construct(PARAMS, |b| Fluid::build_with(b, true))?;
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
    assert_eq!((f.map.zone_of(0), f.map.zone_of(4)), (1, 7), "users 0..5 in CMR zones 1, 3, 4, 6, 7 (slot 2 of a CMR group is offline)");
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
    assert_eq!((c.slots.occupancy(10), c.slots.extents(), f.counts.zone_rewrites), (2, 1, 0));
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
    assert_eq!((c.slots.occupancy(10), c.slots.occupancy(11), c.slots.occupancy(12)), (0, 8, 1));
    assert_eq!((f.counts.zone_rewrites, f.counts.evicted_blocks), (1, 8));
    assert_eq!(f.block_version(10, 7), Some(1), "evicted blocks are in their zone");
}

#[test]
fn plain_lru_evicts_a_block_improved_lru_its_zone() {
    for (scheme, rewrites, left) in [("format-adapt", 1, 7), ("imprv-lru", 1, 0)] {
        let (mut f, mut ctx) = small(&[&format!("scheme={scheme}")]).unwrap();
        write(&mut f, &mut ctx, 10, 0, 8);
        write(&mut f, &mut ctx, 11, 0, 8);
        write(&mut f, &mut ctx, 12, 5, 1);
        assert_eq!((f.counts.zone_rewrites, f.cache.as_ref().unwrap().slots.occupancy(10)), (rewrites, left), "{scheme}");
    }
}

#[test]
fn the_loop_back_log_requeues_hot_zones() {
    // Slots 0-7 zone 11, 8-11 zone 10 (written twice), 12-15 zone 12: the head wraps and the
    // epoch starts with zone 11 in the LRU half (cold), zones 10 and 12 hot. Zone 13's 5 blocks
    // evict zone 11 and take slots 0-4; zone 14's 4 blocks find 3 holes at the tail, then zone
    // 10's blocks: with free slots at the head, they loop back instead of being evicted.
    let (mut f, mut ctx) = small(&["scheme=loop-back"]).unwrap();
    for (user, blocks) in [(11, 8), (10, 4), (10, 4), (12, 4), (13, 5), (14, 4)] {
        write(&mut f, &mut ctx, user, 0, blocks);
    }
    let c = f.cache.as_ref().unwrap();
    assert!(f.counts.loop_backs >= 4, "{:?}", f.counts);
    assert_eq!((c.slots.occupancy(10), c.slots.occupancy(11), c.slots.occupancy(14)), (4, 0, 4));
    assert_eq!(f.block_version(10, 3), Some(3), "a looped-back block keeps its content");
    let (mut fifo, mut ctx) = small(&["scheme=fifo"]).unwrap();
    for (user, blocks) in [(11, 8), (10, 4), (10, 4), (12, 4), (13, 5), (14, 4)] {
        write(&mut fifo, &mut ctx, user, 0, blocks);
    }
    assert_eq!((fifo.counts.loop_backs, fifo.cache.as_ref().unwrap().slots.occupancy(10)), (0, 0), "FIFO evicts zone 10");
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
    for (param, name) in [("alpha=1", "alpha"), ("alpha=0.5", "alpha"), ("usage=0", "usage"), ("usage=1.5", "usage"), ("latency_bound=5", "latency_bound"), ("partition=512KiB", "partition")] {
        let err = small(&[param]).err().unwrap_or_else(|| panic!("{param} accepted"));
        assert!(err.to_string().contains(name), "{param}: {err}");
    }
}

#[test]
fn quantized_migration_keeps_each_quantum_within_its_bound() {
    // Phase I, 8 unused CMR zones kept as the guard range: allocating 4 zones leaves 4;
    // repletion converts CMR groups, one unused zone more each, in quanta.
    let (mut f, mut ctx) = small(&["scheme=swap-only", "usage=0.5", "guard=512KiB", "allocate=256KiB", "latency_bound=60"]).unwrap();
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
    let users: Vec<u32> = (0..f.map.users()).map(|i| (pick + i) % f.map.users()).filter(|&u| is_smr(f, u) == smr).take(3).collect();
    (users.len() == 3).then_some(users)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn no_block_is_lost_and_write_pointers_only_advance(
        scheme in prop::sample::select(vec!["fluid-smr", "format-adapt", "imprv-lru", "fifo", "swap-only", "recency", "fix-0.6"]),
        steps in prop::collection::vec(step(), 1..120),
    ) {
        let (mut f, mut ctx) = small(&[&format!("scheme={scheme}"), "usage=0.85", "guard=192KiB", "latency_bound=60"]).unwrap();
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
                Step::Window => f.end_window(&mut ctx, 1 << 60).unwrap(),
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
            if let Some(c) = f.cache.as_ref() {
                prop_assert!(c.slots.cached() <= c.capacity());
                prop_assert!(c.slots.extents() * cache::MAP_ENTRY_BYTES <= c.quota_bytes());
                for user in c.slots.users() {
                    prop_assert!(is_smr(&f, user), "only SMR zones have cached blocks");
                }
            }
        }
    }
}
