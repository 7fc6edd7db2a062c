//! The disk parameters every disk-based system accepts: which HDD timing preset it runs on, how
//! the drive's own cache behaves (its size and segments default to the preset's data sheet;
//! read-ahead fills a segment; writes go through to the media unless write-back caching is
//! asked for), and how many commands the drive queues. A system may declare its own preset,
//! write-cache and queue-depth defaults (`DiskSpecs`).

use smr_core::units::SECTOR;
use smr_core::values;
use smr_media::{preset_spec, CacheConfig, Hdd, Medium, ReadAhead, MAX_QUEUE_DEPTH, PRESET_NAMES};

use super::build::BuildContext;
use super::error::SimError;
use smr_core::param_spec::{Kind, ParamSpec};

pub const DISK: ParamSpec = ParamSpec::new(
    "disk",
    Kind::Choice(PRESET_NAMES),
    "st5000as0011",
    "HDD timing preset: st5000as0011 (5900 RPM 5 TB archive SMR), desktop7200 (7200 RPM 1 TB), st3500418as (7200 RPM 500 GB, the class of PORE §V-B's CMR disk), fluid10k (10025 RPM, FluidSMR §7.1)",
);
pub const DISK_CACHE: ParamSpec = ParamSpec::new(
    "disk_cache",
    Kind::Custom { unit: "bytes, off, or preset (the data sheet's size)" },
    "preset",
    "the drive's own cache (DRAM buffer): served at interface speed, filled by reads, read-ahead and writes",
);
pub const DISK_CACHE_SEGMENTS: ParamSpec = ParamSpec::new(
    "disk_cache_segments",
    Kind::Custom { unit: "a whole number above 0, or preset (the preset's count)" },
    "preset",
    "segments the drive's cache is cut into (each holds one run of sectors)",
);
pub const DISK_READ_AHEAD: ParamSpec = ParamSpec::new(
    "disk_read_ahead",
    Kind::Custom { unit: "segment (until the segment is full), track (to the end of the track), or bytes" },
    "segment",
    "how far the drive reads on after a read that missed, while its head is free",
);
pub const DISK_WRITE_CACHE: ParamSpec = ParamSpec::new(
    "disk_write_cache",
    Kind::Bool,
    "false",
    "write-back caching: writes acknowledged from the drive's cache and written in idle time",
)
.open("FluidSMR §7.1 turns the drive's caches off; the PORE and uCache papers do not say, and with write-back off each write's media time shows in its response");
pub const DISK_QUEUE_DEPTH: ParamSpec = ParamSpec::new(
    "disk_queue_depth",
    Kind::Whole,
    "1",
    "commands the drive holds at once, served shortest positioning time first (1 to 256; 1: one at a time, in order); above 1, requests of an open-loop replay that arrive while others are in service queue at the drive together",
)
.open("FluidSMR §7.1 sets the queue size to one; the PORE and uCache papers do not say");

/// The parameters of the drive's cache apart from write-back, for a system that declares its
/// own `disk`, `disk_write_cache` and `disk_queue_depth` and reads them with `disk_with`.
pub const DISK_CACHE_PARAMS: [ParamSpec; 3] = [DISK_CACHE, DISK_CACHE_SEGMENTS, DISK_READ_AHEAD];

/// Every disk parameter, for a system's list of declared parameters.
pub const DISK_PARAMS: [ParamSpec; 6] =
    [DISK, DISK_CACHE, DISK_CACHE_SEGMENTS, DISK_READ_AHEAD, DISK_WRITE_CACHE, DISK_QUEUE_DEPTH];

/// The declarations a disk is read through: the preset, write-back caching and the queue depth,
/// each of kind and key as `DISK`, `DISK_WRITE_CACHE` and `DISK_QUEUE_DEPTH` (a system may give
/// them its own defaults), and the cache's shape (`DISK_CACHE_PARAMS`).
pub struct DiskSpecs {
    pub preset: &'static ParamSpec,
    pub write_cache: &'static ParamSpec,
    pub queue_depth: &'static ParamSpec,
}

/// The shared declarations.
pub const DISK_SPECS: DiskSpecs =
    DiskSpecs { preset: &DISK, write_cache: &DISK_WRITE_CACHE, queue_depth: &DISK_QUEUE_DEPTH };

/// The most entries of a table a system sizes from a geometry parameter (one per band, zone or
/// bucket): 2^23. Past it a band or zone is far smaller than the space it tiles, and the run is
/// refused naming that parameter instead of allocating gigabytes.
pub const MAX_TABLE_ENTRIES: u64 = 1 << 23;

/// Refuses `count` entries of `what` (e.g. "zones") over `cover` bytes when they are more than
/// `MAX_TABLE_ENTRIES`; the error names `spec`, the parameter that made them so many.
pub fn check_table(b: &BuildContext<'_>, spec: &ParamSpec, count: u64, what: &str, cover: u64) -> Result<(), SimError> {
    if count > MAX_TABLE_ENTRIES {
        return Err(b.params.error(spec, format!("makes {count} {what} over {cover} bytes, more than the {MAX_TABLE_ENTRIES} smrlab keeps: choose a larger one")).into());
    }
    Ok(())
}

/// Refuses, before any table is sized from it, a trace that reaches past the disk the `disk`
/// parameter names (`bytes`: what the system needs of it).
pub fn check_capacity(b: &mut BuildContext<'_>, bytes: u64) -> Result<(), SimError> {
    let name = b.params.choice(&DISK)?;
    preset_spec(name, bytes).map(drop).map_err(|message| b.params.error(&DISK, message).into())
}

/// The disk the disk parameters describe; an error naming the parameter if it cannot hold
/// `min_capacity` bytes or a value is bad.
pub fn disk(b: &mut BuildContext<'_>, min_capacity: u64) -> Result<Box<dyn Medium>, SimError> {
    disk_with(b, &DISK_SPECS, min_capacity)
}

/// `disk`, read through `specs` (a system's own declarations).
pub fn disk_with(b: &mut BuildContext<'_>, specs: &DiskSpecs, min_capacity: u64) -> Result<Box<dyn Medium>, SimError> {
    let name = b.params.choice(specs.preset)?;
    let spec = preset_spec(name, min_capacity).map_err(|message| b.params.error(specs.preset, message))?;
    let cache = cache_config(b, &spec.default_cache(), specs.write_cache)?;
    let depth = b.params.whole(specs.queue_depth)?;
    if !(1..=u64::from(MAX_QUEUE_DEPTH)).contains(&depth) {
        return Err(b.params.error(specs.queue_depth, format!("{depth} commands: a drive's queue holds 1 to {MAX_QUEUE_DEPTH} commands (SCSI tagged queueing; SATA's holds 32)")).into());
    }
    Ok(Box::new(Hdd::with_cache(spec, cache).with_queue_depth(depth as u32)))
}

fn cache_config(
    b: &mut BuildContext<'_>,
    preset: &CacheConfig,
    write_cache: &ParamSpec,
) -> Result<CacheConfig, SimError> {
    let bytes = match b.params.text(&DISK_CACHE)?.as_str() {
        "preset" => preset.bytes,
        "off" | "0" => 0,
        text => values::size(text).map_err(|m| b.params.error(&DISK_CACHE, m))?,
    };
    let segments = match b.params.text(&DISK_CACHE_SEGMENTS)?.as_str() {
        "preset" => preset.segments,
        text => values::count(text)
            .and_then(|n| u32::try_from(n).map_err(|_| format!("{n} segments are more than 2^32")))
            .map_err(|m| b.params.error(&DISK_CACHE_SEGMENTS, m))?,
    };
    if bytes > 0 && bytes / u64::from(segments) < SECTOR {
        return Err(b
            .params
            .error(
                &DISK_CACHE_SEGMENTS,
                format!("{segments} segments of a {bytes}-byte cache would hold less than a sector each"),
            )
            .into());
    }
    let read_ahead = match b.params.text(&DISK_READ_AHEAD)?.as_str() {
        "segment" => ReadAhead::Segment,
        "track" => ReadAhead::TrackEnd,
        text => ReadAhead::Sectors(values::size(text).map_err(|m| b.params.error(&DISK_READ_AHEAD, m))? / SECTOR),
    };
    let write_back = b.params.bool(write_cache)?;
    if write_back && bytes == 0 {
        return Err(b.params.error(write_cache, "write-back caching needs a cache (disk_cache is off)").into());
    }
    Ok(CacheConfig { bytes, segments, read_ahead, write_back })
}
