//! The `disk` parameter every disk-based system accepts: which HDD timing preset it runs on.

use smr_core::media::{disk_preset, Medium, PRESET_NAMES};
use smr_core::ParamError;

use super::build::BuildContext;
use super::error::SimError;
use super::params::{Kind, ParamSpec};

pub const DISK: ParamSpec = ParamSpec::new(
    "disk",
    Kind::Choice(PRESET_NAMES),
    "st5000as0011",
    "HDD timing preset: st5000as0011 (5900 RPM 5 TB archive SMR), desktop7200 (7200 RPM 1 TB), fluid10k (10025 RPM, FluidSMR §7.1)",
);

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
    disk(b, bytes).map(drop)
}

/// The disk the `disk` parameter names; an error naming the parameter if it cannot hold
/// `min_capacity` bytes.
pub fn disk(b: &mut BuildContext<'_>, min_capacity: u64) -> Result<Box<dyn Medium>, SimError> {
    let name = b.params.choice(&DISK)?;
    disk_preset(name, min_capacity).map_err(|message| ParamError::new(DISK.key, message).into())
}
