//! The disk parameters every disk-based system accepts: which HDD timing preset it runs on, and
//! how the drive's own cache behaves (its size and segments default to the preset's data sheet;
//! read-ahead fills a segment; writes go through to the media, as in the papers' experiments).

use smr_core::media::{preset_spec, CacheConfig, Hdd, Medium, ReadAhead, PRESET_NAMES};
use smr_core::units::SECTOR;
use smr_core::values;

use super::build::BuildContext;
use super::error::SimError;
use super::params::{Kind, ParamSpec};

pub const DISK: ParamSpec = ParamSpec::new(
    "disk",
    Kind::Choice(PRESET_NAMES),
    "st5000as0011",
    "HDD timing preset: st5000as0011 (5900 RPM 5 TB archive SMR), desktop7200 (7200 RPM 1 TB), fluid10k (10025 RPM, FluidSMR §7.1)",
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
    "write-back caching: writes acknowledged from the drive's cache and written in idle time (the papers disable it)",
);

/// The parameters of the drive's cache, for a system that declares its own `disk` (with
/// another default preset) and reads it with `disk_named`.
pub const DISK_CACHE_PARAMS: [ParamSpec; 4] = [DISK_CACHE, DISK_CACHE_SEGMENTS, DISK_READ_AHEAD, DISK_WRITE_CACHE];

/// Every disk parameter, for a system's list of declared parameters.
pub const DISK_PARAMS: [ParamSpec; 5] = [DISK, DISK_CACHE, DISK_CACHE_SEGMENTS, DISK_READ_AHEAD, DISK_WRITE_CACHE];

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
    disk_named(b, &DISK, min_capacity)
}

/// `disk`, with the preset named by `preset` (a system's own `disk` declaration, of kind
/// `Choice(PRESET_NAMES)`) and the cache by `DISK_CACHE_PARAMS`.
pub fn disk_named(b: &mut BuildContext<'_>, preset: &ParamSpec, min_capacity: u64) -> Result<Box<dyn Medium>, SimError> {
    let name = b.params.choice(preset)?;
    let spec = preset_spec(name, min_capacity).map_err(|message| b.params.error(preset, message))?;
    let cache = cache_config(b, &spec.default_cache())?;
    Ok(Box::new(Hdd::with_cache(spec, cache)))
}

fn cache_config(b: &mut BuildContext<'_>, preset: &CacheConfig) -> Result<CacheConfig, SimError> {
    let bytes = match b.params.text(&DISK_CACHE)?.as_str() {
        "preset" => preset.bytes,
        "off" | "0" => 0,
        text => values::size(text).map_err(|m| b.params.error(&DISK_CACHE, m))?,
    };
    let segments = match b.params.text(&DISK_CACHE_SEGMENTS)?.as_str() {
        "preset" => preset.segments,
        text => values::count(text).and_then(|n| u32::try_from(n).map_err(|_| format!("{n} segments are more than 2^32"))).map_err(|m| b.params.error(&DISK_CACHE_SEGMENTS, m))?,
    };
    if bytes > 0 && bytes / u64::from(segments) < SECTOR {
        return Err(b.params.error(&DISK_CACHE_SEGMENTS, format!("{segments} segments of a {bytes}-byte cache would hold less than a sector each")).into());
    }
    let read_ahead = match b.params.text(&DISK_READ_AHEAD)?.as_str() {
        "segment" => ReadAhead::Segment,
        "track" => ReadAhead::TrackEnd,
        text => ReadAhead::Sectors(values::size(text).map_err(|m| b.params.error(&DISK_READ_AHEAD, m))? / SECTOR),
    };
    let write_back = b.params.bool(&DISK_WRITE_CACHE)?;
    if write_back && bytes == 0 {
        return Err(b.params.error(&DISK_WRITE_CACHE, "write-back caching needs a cache (disk_cache is off)").into());
    }
    Ok(CacheConfig { bytes, segments, read_ahead, write_back })
}
