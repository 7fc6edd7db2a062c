//! `fluid`: FluidSMR (Wu, Li and Du, "FluidSMR: Adaptive Management for Hybrid SMR Drives", ACM
//! TOS 17(4), 2021) and its baselines on one H-Partition of a hybrid CMR/SMR drive.
//!
//! The drive (`geometry`, `drive`): zones laid from the outer (CMR) to the inner (SMR) diameter
//! in conversion groups of q CMR or p SMR zones (alpha = p/q, default 1.5), 256 MiB zones, a
//! 50 ms conversion command per group, the 10025 RPM `fluid10k` disk with its cache off, queue
//! depth one. The host sees an extendable space of user zones (`mapping`); a write to an SMR
//! zone not at its write pointer (an NSW) goes to the CMR cache (`cache`, its mapping table of
//! (lba, pba, length) entries in `extents`, the policies `lru`, `fifo`, `loopback`; cleaning in
//! `clean`), or, with no cache, rewrites the zone. Sizes the paper states per TB or as a share
//! follow the partition by one rule (`scaling`). The mechanisms, one file each: usage growth by
//! direct, light and heavy allocation with a guard range (`allocation`), quantized migration
//! (`migration`), NSW-Range tracking (`nsw`), Algorithm 1 (`algorithm1`) and its time window and
//! execution (`adapt`, `relocate`), zone swapping and the §2.4 baselines (`swap`),
//! occupancy-based swapping (`occupancy`). The schemes are rows of `scheme`; the request path
//! is `serve`.
//!
//! Choices where the paper is silent, beyond those noted in each file:
//! - The partition is sized as §7.1 says: its pure-SMR capacity is the trace's largest address
//!   divided by `usage`, in whole zones, rounded up to whole groups; the user zones are the
//!   trace's largest address in whole zones, all allocated before the first request (with the
//!   two-phase allocation of §4, no time charged) and full of data written before the trace
//!   (an SMR zone's write pointer at its end), so every write to an SMR data zone is an NSW
//!   until the zone is rewritten.
//! - Time windows (§2.4, §5.3) run on trace time, from the first request.
//! - The cache maps whole 4 KiB blocks: an NSW is widened to the blocks it touches, and its
//!   uncached runs become table entries (§6.1's triplets, `map_entry` bytes each).
//! - The zone map is persisted in each zone's first sector as part of the write that fills the
//!   zone from its start; persisting the table after an allocation, swap or conversion is
//!   counted, not timed.
//! - Data in flight during a swap or conversion is held in non-volatile memory (§5.3's stated
//!   assumption): every source is read before the conversion and the writes.

pub mod adapt;
pub mod algorithm1;
pub mod allocation;
pub mod cache;
pub mod clean;
pub mod drive;
pub mod extents;
pub mod fifo;
pub mod geometry;
pub mod loopback;
pub mod lru;
pub mod mapping;
pub mod migration;
pub mod nsw;
pub mod occupancy;
pub mod relocate;
pub mod scaling;
pub mod scheme;
pub mod serve;
pub mod swap;

#[cfg(test)]
mod tests;

use smr_core::Request;
use smr_media::{CacheConfig, Hdd, PRESETS, PRESET_NAMES};

use self::adapt::Window;
use self::cache::CmrCache;
use self::drive::HybridDrive;
use self::geometry::{Gain, Geometry, BLOCK};
use self::mapping::ZoneMap;
use self::migration::Migration;
use self::nsw::NswTracker;
use self::occupancy::OccupancySwap;
use self::scaling::Scaling;
use self::scheme::{Policy, Scheme, Swapping};
use smr_kernel::disk::check_table;
use smr_kernel::geometry::{Scale, GEOMETRY_PARAMS};
use smr_kernel::lists::RecencyList;
use smr_kernel::metrics::{Counters, Gauges, Metric, Ratio, Unit};
use smr_kernel::params::{ParamReader, TimeUnit, NONE};
use smr_kernel::{BuildContext, ChannelId, IoCtx, Kind, ParamList, ParamSpec, SimError, System, SystemEntry};

pub const SCHEME: ParamSpec = ParamSpec::new(
    "scheme",
    Kind::Choice(scheme::NAMES),
    "fluid-smr",
    "which scheme of the FluidSMR paper (see docs/fluidsmr.md)",
);
pub const DISK: ParamSpec =
    ParamSpec::new("disk", Kind::Choice(PRESET_NAMES), "fluid10k", "HDD timing preset (its cache is turned off, §7.1)");
pub const ALPHA: ParamSpec = ParamSpec::new(
    "alpha",
    Kind::Ratio,
    "1.5",
    "SMR density gain: SMR zones per CMR zone of the same area, p/q with q <= 64",
);
pub const USAGE: ParamSpec = ParamSpec::new(
    "usage",
    Kind::Fraction,
    "0.9",
    "share of the partition's pure-SMR capacity the trace's address range takes (above 0); sizes the partition (§7.1)",
);
pub const PARTITION: ParamSpec = ParamSpec::new(
    "partition",
    Kind::Size,
    NONE,
    "the partition's pure-SMR capacity, instead of deriving it from usage",
);
pub const ZONE_SIZE: ParamSpec = ParamSpec::new("zone_size", Kind::Size, "256MiB", "zone size, a multiple of 4 KiB");
pub const CONVERT: ParamSpec = ParamSpec::new(
    "convert",
    Kind::FractionOr { keyword: "scheme" },
    "scheme",
    "share of the CMR area beyond the minimum SMR area converted to SMR at the start, making the cache",
);
pub const CACHE_POLICY: ParamSpec = ParamSpec::new(
    "cache_policy",
    Kind::Choice(&["scheme", "none", "lru", "imprv-lru", "fifo", "loop-back"]),
    "scheme",
    "the CMR cache's policy, instead of the scheme's",
);
pub const SWAPPING: ParamSpec = ParamSpec::new(
    "swapping",
    Kind::Choice(&["scheme", "none", "recency", "frequency", "nsw-frequency", "nsw-range"]),
    "scheme",
    "zone swapping besides format adaptation's own (nsw-range: Algorithm 1's swaps alone), instead of the scheme's",
);
pub const ADAPT: ParamSpec = ParamSpec::new(
    "adapt",
    Kind::Choice(&["scheme", "on", "off"]),
    "scheme",
    "format adaptation by Algorithm 1 (its swaps and conversions), instead of the scheme's",
);
pub const OCCUPANCY_SWAP: ParamSpec = ParamSpec::new(
    "occupancy_swap",
    Kind::Choice(&["scheme", "on", "off"]),
    "scheme",
    "occupancy-based swapping (§6.2), instead of the scheme's",
);
pub const CACHE_LIMIT: ParamSpec = ParamSpec::new(
    "cache_limit",
    Kind::Share { of: "the SMR area at the start" },
    NONE,
    "the cache's size: the start layout makes room for it, and it uses no more (§7.4: 0.02% of the SMR region)",
);
pub const MAP_QUOTA: ParamSpec = ParamSpec::new(
    "map_quota",
    Kind::Share { of: "the partition's pure-SMR capacity" },
    NONE,
    "the cache mapping table's quota, instead of 25 MB per TB of partition (§6.1)",
);
pub const NSW_GRANULARITY: ParamSpec = ParamSpec::new(
    "nsw_granularity",
    Kind::Size,
    "4KiB",
    "bytes per bit of the NSW-Range bitmaps (§5.5), a multiple of 4 KiB",
);
pub const WINDOW: ParamSpec = ParamSpec::new(
    "window",
    Kind::Duration { unit: TimeUnit::Hours },
    "1",
    "first time window of format adaptation; doubles while the format is stable (§5.3)",
);
pub const WINDOW_MAX: ParamSpec = ParamSpec::new(
    "window_max",
    Kind::Duration { unit: TimeUnit::Hours },
    "24",
    "longest time window; the window of the §2.4 swapping baselines",
);
pub const OCCUPANCY: ParamSpec = ParamSpec::new(
    "occupancy",
    Kind::FractionOr { keyword: "rstar" },
    "0.05",
    "cache occupancy, a share of a zone above 0, above which an SMR zone is a swap candidate (§6.2); rstar: the gain's r*",
)
.open(
    "§6.2 states no threshold. A zone's occupancy is what it holds of a cache a few zones large, shared by every SMR zone, at the start of an \
     epoch: on the Table 1 workloads the largest are 5-15 % of a zone, so r* (a third, §5.2's break-even for a whole window's NSW-Range) \
     labels none; 5 % labels the zones holding the most",
);
pub const MAP_ENTRY: ParamSpec = ParamSpec::new("map_entry", Kind::Size, "20B", "bytes of one (lba, pba, length) entry of the cache's mapping table (§6.1)").open(
    "§6.1 gives the triplet, not its size: block addresses as 8-byte numbers and a 4-byte length, as a host-side table would hold them",
);
pub const LRU_PLACEMENT: ParamSpec = ParamSpec::new(
    "lru_placement",
    Kind::Choice(lru::PLACEMENT_NAMES),
    "first-free",
    "where block LRU and the improved block LRU put new data: the lowest free slots, hole after hole, or the smallest hole that holds it",
)
.open(
    "§6.1 says the improved block LRU \"will fragment the Cache's free space, causing random IOs\" but not how it places new data. \
     first-free takes the free slots as they lie, lowest first, one I/O and one positioning per hole, as a free-block bitmap \
     allocator would; best-fit (the model before) finds the smallest hole that holds the write, which the paper's random IOs \
     rule out where a hole that fits exists",
);
pub const GUARD: ParamSpec =
    ParamSpec::new("guard", Kind::Size, NONE, "guard range: unused space kept ready for allocations (§4.4)");
pub const SMR_HINT: ParamSpec = ParamSpec::new(
    "smr_hint",
    Kind::Fraction,
    "0",
    "share of the user zones allocated with the SMR hint (light allocation, §4.3): the highest ones",
);
pub const ALLOCATE: ParamSpec = ParamSpec::new(
    "allocate",
    Kind::Size,
    NONE,
    "a space allocation request of this many bytes during the run (§4.4, Fig. 19)",
);
pub const ALLOCATE_AT: ParamSpec = ParamSpec::new(
    "allocate_at",
    Kind::Count,
    "1",
    "the allocation request arrives before this request (counted from 1)",
);
pub const LATENCY_BOUND: ParamSpec = ParamSpec::new(
    "latency_bound",
    Kind::Duration { unit: TimeUnit::Milliseconds },
    NONE,
    "acceptable increase of latency: migration runs in quanta that take at most this long (§4.5); none: blocking",
);

pub const PARAMS: ParamList = &[
    &[
        SCHEME,
        DISK,
        ALPHA,
        USAGE,
        PARTITION,
        ZONE_SIZE,
        CONVERT,
        CACHE_POLICY,
        SWAPPING,
        ADAPT,
        OCCUPANCY_SWAP,
        CACHE_LIMIT,
        MAP_QUOTA,
        NSW_GRANULARITY,
        WINDOW,
        WINDOW_MAX,
        OCCUPANCY,
        MAP_ENTRY,
        LRU_PLACEMENT,
        GUARD,
        SMR_HINT,
        ALLOCATE,
        ALLOCATE_AT,
        LATENCY_BOUND,
    ],
    &GEOMETRY_PARAMS,
];

/// The largest acceptable latency increase a migration quantum is sized for: a minute (a bound
/// past it is no bound, and sizing quanta for it would take as long).
const MAX_LATENCY_BOUND_NS: u64 = 60_000_000_000;

/// The largest mapping entry accepted: a kilobyte (the paper's triplet needs about 20 bytes).
const MAX_ENTRY_BYTES: u64 = 1024;

/// The largest zone: 1 TiB (drives use 256 MiB), small enough that no partition arithmetic
/// overflows once the zone count is bounded too (`check_table`).
const MAX_ZONE: u64 = 1 << 40;

pub const ENTRY: SystemEntry = SystemEntry::new(
    "fluid",
    "FluidSMR and its baselines on a hybrid CMR/SMR drive partition (FluidSMR paper); --scheme picks one",
    PARAMS,
    |b| Ok(Box::new(Fluid::build(b)?)),
)
.with_aliases(&["fluidsmr"]);

pub static REQUESTS: Metric = Metric::new("requests", Unit::Count, "host requests served");
pub static SERVICE_NS: Metric =
    Metric::new("service_ns", Unit::Ns, "time spent serving host requests, migration quanta before them included");
pub static MEAN_LATENCY_NS: Ratio = Ratio::new(
    Metric::new("mean_latency_ns", Unit::Ns, "FluidSMR: average I/O latency (Figs. 12-19)"),
    &SERVICE_NS,
    &REQUESTS,
);
pub static CMR_DATA_ZONES: Metric =
    Metric::new("cmr_zones", Unit::Count, "FluidSMR: CMR zones holding user data (Figs. 15, 16)");
pub static SMR_DATA_ZONES: Metric =
    Metric::new("smr_zones", Unit::Count, "FluidSMR: SMR zones holding user data (Figs. 15, 16)");
pub static FREE_ZONES: Metric =
    Metric::new("free_zones", Unit::Count, "FluidSMR: online zones holding nothing (unused area and guard range)");
pub static MEMORY_BYTES: Metric = Metric::new(
    "memory_bytes",
    Unit::Bytes,
    "FluidSMR: zone map + NSW-Range tracking + cache mapping quota (§7.1's memory requirement)",
);

/// The channels FluidSMR's I/O is reported on (all on one disk).
pub struct Channels {
    pub host: ChannelId,
    pub cache: ChannelId,
    pub rmw: ChannelId,
    pub swap: ChannelId,
    pub convert: ChannelId,
    pub migrate: ChannelId,
}

/// FluidSMR, or one of its baselines, on one H-Partition.
pub struct Fluid {
    pub geo: Geometry,
    pub scheme: Scheme,
    pub drive: HybridDrive,
    pub map: ZoneMap,
    pub cache: Option<CmrCache>,
    pub nsw: NswTracker,
    /// Format adaptation's window (§5.3), for Algorithm 1.
    pub window: Window,
    /// The §2.4 swapping's fixed window of `window_max`.
    pub swap_window: Window,
    pub recency: Option<RecencyList>,
    pub occupancy: Option<OccupancySwap>,
    pub migration: Migration,
    pub scaling: Scaling,
    pub ch: Channels,
    pub counts: clean::Counts,
    capacity: u64,
    first_trace_ns: Option<u64>,
    /// The version the current host write stores (kept contents only).
    pub version: u64,
    requests: u64,
    service_ns: u64,
    guard_zones: u64,
    allocate: Option<(u64, u64)>,
}

fn switch(b: &mut BuildContext<'_>, spec: &ParamSpec, scheme_value: bool) -> Result<bool, SimError> {
    Ok(match b.params.choice(spec)? {
        "on" => true,
        "off" => false,
        _ => scheme_value,
    })
}

impl Fluid {
    pub fn build(b: &mut BuildContext<'_>) -> Result<Self, SimError> {
        Self::build_with(b, false)
    }

    /// Builds the system; `keep_contents` makes the drive keep every block's version (tests).
    pub fn build_with(b: &mut BuildContext<'_>, keep_contents: bool) -> Result<Self, SimError> {
        let mut scheme = scheme::by_name(b.params.choice(&SCHEME)?);
        let alpha = b.params.ratio(&ALPHA)?;
        let gain = Gain::from_alpha(alpha).map_err(|m| b.params.error(&ALPHA, m))?;
        let usage = b.params.fraction(&USAGE)?;
        if usage <= 0.0 {
            return Err(b.params.error(&USAGE, "must be above 0 and at most 1").into());
        }
        // The paper's zone follows a sample of its trace (`geometry_scale`), in whole blocks.
        let scale = Scale::read(&mut b.params, b.footprint.requests)?;
        let zone_size = scale.of_blocks(b.params.size(&ZONE_SIZE)?, BLOCK);
        if !scale.unscaled() {
            b.params.resolve_as(&ZONE_SIZE, zone_size.to_string());
        }
        if zone_size % BLOCK != 0 || zone_size > MAX_ZONE {
            return Err(b
                .params
                .error(&ZONE_SIZE, format!("must be a multiple of 4 KiB up to {MAX_ZONE} bytes"))
                .into());
        }
        let max_end = b.footprint.max_end.max(1);
        let partition = b.params.optional_size(&PARTITION)?;
        let geo = match partition {
            None => Geometry::for_usage(gain, zone_size, max_end, usage),
            Some(bytes) => {
                let zones = bytes / zone_size;
                if zones * zone_size < max_end {
                    return Err(b
                        .params
                        .error(
                            &PARTITION,
                            format!("{bytes} bytes of pure-SMR capacity cannot hold the trace's {max_end} bytes"),
                        )
                        .into());
                }
                Geometry { gain, zone_size, groups: zones / gain.smr }
            }
        };
        // Sized from usage or the partition: a partition the disk cannot hold, or too many
        // zones, is refused before any table is laid.
        let zones = geo.groups.saturating_mul(gain.smr);
        let disk_name = b.params.choice(&DISK)?;
        let spec = PRESETS.iter().find(|p| p.name == disk_name).expect("the choice lists the presets").clone();
        if zones.saturating_mul(zone_size) > spec.capacity {
            return Err(b
                .params
                .error(
                    &DISK,
                    format!(
                        "{disk_name} holds {} bytes but the partition spans {}",
                        spec.capacity,
                        zones.saturating_mul(zone_size)
                    ),
                )
                .into());
        }
        check_table(
            b,
            if partition.is_some() { &PARTITION } else { &USAGE },
            zones,
            "zones",
            zones.saturating_mul(zone_size),
        )?;
        if let Some(convert) = b.params.fraction_or(&CONVERT)? {
            scheme.convert = convert;
        }
        match b.params.choice(&CACHE_POLICY)? {
            "scheme" => {}
            name => scheme.policy = scheme::policy_by_name(name),
        }
        match b.params.choice(&SWAPPING)? {
            "scheme" => {}
            name => scheme.swapping = scheme::swapping_by_name(name),
        }
        scheme.adapt = switch(b, &ADAPT, scheme.adapt)?;
        scheme.occupancy_swap = switch(b, &OCCUPANCY_SWAP, scheme.occupancy_swap)?;
        let entry_bytes = b.params.size(&MAP_ENTRY)?;
        if !(1..=MAX_ENTRY_BYTES).contains(&entry_bytes) {
            return Err(b.params.error(&MAP_ENTRY, format!("must be from 1 to {MAX_ENTRY_BYTES} bytes")).into());
        }
        let granularity = b.params.size(&NSW_GRANULARITY)?;
        if granularity % BLOCK != 0 || granularity > zone_size {
            return Err(b.params.error(&NSW_GRANULARITY, "must be a multiple of 4 KiB no larger than a zone").into());
        }
        let positive = |b: &mut BuildContext<'_>, spec: &ParamSpec| match b.params.duration(spec)? {
            0 => Err(b.params.error(spec, "must be a time above 0")),
            ns => Ok(ns),
        };
        let (window_min, window_max) = (positive(b, &WINDOW)?, positive(b, &WINDOW_MAX)?);
        if window_max < window_min {
            return Err(b.params.error(&WINDOW_MAX, "must be at least window").into());
        }
        let occupancy = match b.params.fraction_or(&OCCUPANCY)? {
            None => gain.r_star(),
            Some(share) if share <= 0.0 => {
                return Err(b.params.error(&OCCUPANCY, "must be a share of a zone above 0").into())
            }
            Some(share) => share,
        };
        let guard_zones = b.params.optional_size(&GUARD)?.map_or(0, |g| g.div_ceil(zone_size));
        let smr_hint = b.params.fraction(&SMR_HINT)?;
        let allocate = b.params.optional_size(&ALLOCATE)?;
        let allocate_at = b.params.count(&ALLOCATE_AT)?;
        let latency_bound = match b.params.optional(&LATENCY_BOUND, ParamReader::duration)? {
            Some(ns) if ns > MAX_LATENCY_BOUND_NS => {
                return Err(b
                    .params
                    .error(&LATENCY_BOUND, format!("{ns} ns is more than {MAX_LATENCY_BOUND_NS} ns (a minute)"))
                    .into())
            }
            bound => bound,
        };
        let users = max_end.div_ceil(zone_size);
        // The room a cache needs at the start: its stated size (at most its share of the whole
        // partition, which the SMR area is part of), or a block for the scheme's conversion
        // rule; none for a scheme without a cache or one that starts without (§7.2's adapt).
        let pure_smr_bytes = geo.smr_zones() * zone_size;
        let stated = b.params.optional(&CACHE_LIMIT, |r, spec| r.share(spec, pure_smr_bytes, BLOCK))?;
        let cache_room = match (scheme.policy, stated) {
            (Policy::None, _) => None,
            (_, Some(bytes)) => Some(bytes),
            _ => (scheme.convert > 0.0).then_some(BLOCK),
        };
        let layout =
            allocation::Layout::plan(&geo, users, smr_hint, scheme, guard_zones, cache_room).map_err(|r| match r {
                allocation::Refused::Data(m) => b.params.error(&PARTITION, m),
                allocation::Refused::Cache(m) => {
                    b.params.error(if stated.is_some() { &CACHE_LIMIT } else { &USAGE }, m)
                }
            })?;
        let geo = layout.geo;
        if geo.medium_span() > spec.capacity {
            return Err(b
                .params
                .error(
                    &DISK,
                    format!("{disk_name} holds {} bytes but the partition spans {}", spec.capacity, geo.medium_span()),
                )
                .into());
        }
        let migration = Migration::new(&spec, latency_bound).map_err(|m| b.params.error(&LATENCY_BOUND, m))?;
        let mut drive = HybridDrive::new(
            b.ctx,
            Box::new(Hdd::with_cache(spec, CacheConfig::OFF)),
            geo,
            layout.cmr_groups,
            keep_contents,
        )?;
        let ch = Channels {
            host: drive.channel(b.ctx, "host"),
            cache: drive.channel(b.ctx, "cache"),
            rmw: drive.channel(b.ctx, "rmw"),
            swap: drive.channel(b.ctx, "swap"),
            convert: drive.channel(b.ctx, "convert"),
            migrate: drive.channel(b.ctx, "migrate"),
        };
        let mut map = ZoneMap::new(geo.smr_zones());
        let partition_bytes = geo.smr_zones() * zone_size;
        let map_quota = b.params.optional(&MAP_QUOTA, |r, spec| r.share(spec, partition_bytes, 1))?;
        // §7.4's share is of the SMR region, the SMR zones of the start layout; a lone CMR zone
        // holds no more than its own bytes.
        let smr_area = layout.smr_area_zones() * zone_size;
        let cache_limit = b.params.optional(&CACHE_LIMIT, |r, spec| r.share(spec, smr_area, BLOCK))?;
        let cache_limit = match (layout.lone, cache_limit) {
            (true, limit) => Some(limit.unwrap_or(u64::MAX).min(geo.lone_cmr_bytes())),
            (false, limit) => limit,
        };
        let scaling = Scaling::new(zone_size, partition_bytes, map_quota, cache_limit);
        let placement = lru::Placement::by_name(b.params.choice(&LRU_PLACEMENT)?);
        let mut cache = clean::new_cache(
            scheme.policy,
            placement,
            &geo,
            scaling.cache_limit.map(|bytes| bytes.div_ceil(BLOCK)),
            scaling.quota_bytes,
            entry_bytes,
        );
        layout.apply(&mut drive, &mut map, cache.as_mut())?;
        let occupancy = scheme
            .occupancy_swap
            .then(|| OccupancySwap::new((occupancy * geo.blocks_per_zone() as f64) as u64, users as u32));
        let recency = (scheme.swapping == Swapping::Recency).then(|| swap::recency_list(&map, &drive));
        Ok(Fluid {
            geo,
            scheme,
            drive,
            map,
            cache,
            nsw: NswTracker::new(users as u32, zone_size, granularity),
            window: Window::new(true, window_min, window_max),
            swap_window: Window::new(false, window_min, window_max),
            recency,
            occupancy,
            migration,
            scaling,
            ch,
            counts: clean::Counts::default(),
            capacity: users * zone_size,
            first_trace_ns: None,
            version: 0,
            requests: 0,
            service_ns: 0,
            guard_zones,
            allocate: allocate.map(|bytes| (allocate_at, bytes)),
        })
    }

    pub fn guard_zones(&self) -> u64 {
        self.guard_zones
    }

    /// Whether NSWs to SMR zones go to a cache.
    pub fn has_cache(&self) -> bool {
        self.scheme.policy != Policy::None
    }

    /// Zones of user data in CMR and in SMR.
    pub fn data_zones(&self) -> (u64, u64) {
        let (mut cmr, mut smr) = (0, 0);
        for user in 0..self.map.users() {
            if self.drive.is_cmr(self.map.zone_of(user)) {
                cmr += 1;
            } else {
                smr += 1;
            }
        }
        (cmr, smr)
    }
}

impl System for Fluid {
    fn submit(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError> {
        let start = ctx.now();
        let t0 = *self.first_trace_ns.get_or_insert(req.time_ns);
        let trace_ns = req.time_ns.saturating_sub(t0);
        self.requests += 1;
        if let Some((at, bytes)) = self.allocate {
            if self.requests == at {
                self.allocate = None;
                self.allocate_space(ctx, bytes)?;
            }
        }
        self.migration_quantum(ctx)?;
        if self.scheme.ranks_by_counts() && self.swap_window.due(trace_ns) {
            self.end_swap_window(ctx, trace_ns)?;
        }
        if self.scheme.runs_algorithm1() && self.window.due(trace_ns) {
            self.end_window(ctx, trace_ns)?;
        }
        self.serve(req, ctx)?;
        self.service_ns += ctx.now() - start;
        Ok(())
    }

    fn idle(&mut self, ctx: &mut IoCtx, _until_ns: u64) -> Result<bool, SimError> {
        self.idle_quantum(ctx)
    }

    fn capacity(&self) -> u64 {
        self.capacity
    }

    fn counters(&self, out: &mut Counters) {
        out.add(&REQUESTS, self.requests);
        out.add(&SERVICE_NS, self.service_ns);
        out.declare(&MEAN_LATENCY_NS);
        self.counts.counters(out);
        self.migration.counters(out);
        out.add(&drive::CONVERSION_COMMANDS, self.drive.conversions());
        if self.scheme.adapt {
            out.expect(&relocate::CONVERTED);
        }
    }

    fn gauges(&self, out: &mut Gauges) {
        let (cmr, smr) = self.data_zones();
        out.set(&CMR_DATA_ZONES, cmr as f64);
        out.set(&SMR_DATA_ZONES, smr as f64);
        out.set(&cache::CACHE_ZONES, self.cache.as_ref().map_or(0, |c| c.zones().len()) as f64);
        out.set(&FREE_ZONES, self.free_zones().count() as f64);
        out.set(&drive::SMR_AREA_BYTES, (self.drive.smr_area_zones() * self.geo.zone_size) as f64);
        if let Some(c) = &self.cache {
            c.gauges(out);
        }
        self.map.gauges(out);
        self.nsw.gauges(out);
        self.scaling.gauges(out);
        let window = if self.scheme.ranks_by_counts() && !self.scheme.runs_algorithm1() {
            &self.swap_window
        } else {
            &self.window
        };
        out.set(&adapt::WINDOW_HOURS, window.hours());
        self.migration.gauges(out);
        let quota = self.cache.as_ref().map_or(0, |c| c.quota_bytes());
        out.set(&MEMORY_BYTES, (self.map.memory_bytes() + self.nsw.memory_bytes() + quota) as f64);
    }
}
