//! `zonemap`: the dm-zoned-like extreme of uCache (the uCache paper, §III-A): every bucket is a
//! whole zone, promoted by map (no read), into conventional buffer zones; reclaim — cleaning the
//! data zone of the least recently used buffer — starts as soon as free buffer zones fall under
//! a low watermark, as dm-zoned's background reclaim does (`reclaim_below`, default 25 %, our
//! choice of watermark).

use super::drive::{CONVENTIONAL, DISK_PARAMS, ZONE_SIZE};
use super::ucache::{UCache, CACHE, CHECKPOINT_EVERY, RECORD_JOURNAL};
use smr_kernel::{BuildContext, Kind, ParamList, ParamSpec, SimError, SystemEntry};

pub const RECLAIM_BELOW: ParamSpec =
    ParamSpec::new("reclaim_below", Kind::Fraction, "0.25", "reclaim while free buffer zones are fewer than this fraction of them (below 1)")
        .open("dm-zoned reclaims below a low watermark of free buffer zones that the uCache paper does not give; a quarter leaves room for a burst while reclaim runs");

pub const PARAMS: ParamList =
    &[&DISK_PARAMS, &[RECLAIM_BELOW, CHECKPOINT_EVERY, RECORD_JOURNAL, CACHE, ZONE_SIZE, CONVENTIONAL]];

pub const ENTRY: SystemEntry = SystemEntry::new(
    "zonemap",
    "dm-zoned-like zone map: uCache with zone-sized buckets promoted by map and watermark reclaim",
    PARAMS,
    |b| Ok(Box::new(build(b)?)),
);

pub fn build(b: &mut BuildContext<'_>) -> Result<UCache, SimError> {
    let below = b.params.fraction(&RECLAIM_BELOW)?;
    if below >= 1.0 {
        return Err(b.params.error(&RECLAIM_BELOW, "must be a fraction from 0 up to (not including) 1").into());
    }
    UCache::build_with(b, None, true, below)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use smr_core::units::MIB;
    use smr_core::{Op, Request};

    proptest! {
        /// Random reads and writes over sixty 1 MiB zones with four buffer zones: reclaim runs
        /// often, and the device never sees a write off a sequential zone's write pointer (it
        /// would fail the run).
        #[test]
        fn never_breaks_the_zone_rules(ops in proptest::collection::vec((any::<bool>(), 0u64..60 * 256, 1u64..24), 1..200)) {
            let reqs: Vec<Request> = ops.iter().map(|&(write, block, blocks)| {
                Request::new(0, if write { Op::Write } else { Op::Read }, block * 4096, blocks * 4096)
            }).collect();
            let c = super::super::replay_small("zonemap", &["conventional=5MiB"], &reqs);
            prop_assert!(c.is_ok(), "{:?}", c.err());
            let c = c.unwrap();
            prop_assert!(c.get("gc_buckets") <= c.get("promotions"));
        }
    }

    #[test]
    fn zone_buckets_promoted_by_map_reclaimed_at_the_watermark() {
        // 1 MiB zones, four buffer zones; a quarter of them must stay free.
        let reqs: Vec<Request> = (0..5u64).map(|zone| Request::new(0, Op::Write, (zone << 20) + 8192, 4096)).collect();
        let c = super::super::replay_small("zonemap", &["conventional=5MiB"], &reqs).unwrap();
        assert_eq!(c.get("promotions"), 5);
        assert_eq!(c.get("promotion_bytes_read"), 0, "promotion by map reads nothing");
        // The fourth promotion leaves no buffer free: reclaim; so does the fifth.
        assert_eq!((c.get("gc_cycles"), c.get("gc_buckets")), (2, 2));
        // Each reclaim reads its 1 MiB data zone and the 1 MiB buffer zone, then writes the
        // backup copy and the rewritten data zone.
        assert_eq!((c.get("gc_bytes_read"), c.get("gc_bytes_written")), (2 * 2 * MIB, 2 * 2 * MIB));
        let err = super::super::replay_small("zonemap", &["bucket=256KiB"], &[]).unwrap_err();
        assert!(err.to_string().contains("bucket"), "zonemap's bucket is the zone: {err}");
    }
}
