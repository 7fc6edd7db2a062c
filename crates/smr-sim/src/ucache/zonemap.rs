//! `zonemap`: the dm-zoned-like extreme of uCache (the uCache paper, §III-A): every bucket is a
//! whole zone, promoted by map (no read), into conventional buffer zones; reclaim — cleaning the
//! data zone of the least recently used buffer — starts as soon as free buffer zones fall under
//! a low watermark, as dm-zoned's background reclaim does (`reclaim_below`, default 25 %, our
//! choice of watermark).

use smr_core::ParamError;

use super::ucache::UCache;
use crate::error::SimError;
use crate::registry::{BuildContext, ParamDoc, SystemDoc};

pub const PARAMS: &[ParamDoc] = &[
    ParamDoc::DISK,
    ParamDoc { key: "reclaim_below", default: "0.25", help: "reclaim while free buffer zones are fewer than this fraction of them" },
    ParamDoc { key: "checkpoint_every", default: "1024", help: "promotions between checkpoints of the zone map" },
    ParamDoc { key: "cache", default: "all", help: "bytes of buffer zones (at most the conventional zones minus the checkpoint zone)" },
    ParamDoc { key: "zone_size", default: "256MiB", help: "zone size of the host-managed drive, bytes" },
    ParamDoc { key: "conventional", default: "16GiB", help: "bytes of conventional zones at the start of the drive" },
];

pub const DOC: SystemDoc = SystemDoc {
    name: "zonemap",
    summary: "dm-zoned-like zone map: uCache with zone-sized buckets promoted by map and watermark reclaim",
    params: PARAMS,
};

pub fn build(b: &mut BuildContext<'_>) -> Result<UCache, SimError> {
    let below = b.params.f64("reclaim_below", 0.25)?;
    if !(0.0..1.0).contains(&below) {
        return Err(ParamError::new("reclaim_below", "must be a fraction from 0 up to (not including) 1").into());
    }
    UCache::build_with(b, None, true, below)
}

#[cfg(test)]
mod tests {
    use crate::engine::{ok_requests, Engine, EngineConfig};
    use crate::ioctx::IoCtx;
    use crate::registry::{build, BuildContext};
    use smr_core::trace::Footprint;
    use smr_core::{Op, Params, Request};

    #[test]
    fn zone_buckets_promoted_by_map_reclaimed_at_the_watermark() {
        // 1 MiB zones, four buffer zones; a quarter of them must stay free.
        let mut p = Params::parse(&["zone_size=1MiB", "conventional=5MiB", "disk=desktop7200"]).unwrap();
        let mut ctx = IoCtx::new();
        let fp = Footprint { written_bytes: 64 << 20, accessed_bytes: 64 << 20, max_end: 64 << 20 };
        let mut z = build("zonemap", &mut BuildContext { params: &mut p, footprint: fp, seed: 0, ctx: &mut ctx }).unwrap();
        let reqs: Vec<Request> = (0..5u64).map(|zone| Request::new(0, Op::Write, (zone << 20) + 8192, 4096)).collect();
        let c = Engine::new(EngineConfig::default()).run(z.as_mut(), &mut ctx, ok_requests(&reqs)).unwrap().counters;
        assert_eq!(c.get("promotions"), 5);
        assert_eq!(c.get("promotion_bytes_read"), 0, "promotion by map reads nothing");
        // The fourth promotion leaves no buffer free: reclaim; so does the fifth.
        assert_eq!((c.get("gc_cycles"), c.get("gc_buckets")), (2, 2));
        let mut p = Params::parse(&["bucket=256KiB"]).unwrap();
        assert!(build("zonemap", &mut BuildContext { params: &mut p, footprint: fp, seed: 0, ctx: &mut IoCtx::new() }).is_err(), "zonemap's bucket is the zone");
    }
}
