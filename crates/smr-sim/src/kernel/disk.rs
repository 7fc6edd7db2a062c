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

/// The disk the `disk` parameter names; an error naming the parameter if it cannot hold
/// `min_capacity` bytes.
pub fn disk(b: &mut BuildContext<'_>, min_capacity: u64) -> Result<Box<dyn Medium>, SimError> {
    let name = b.params.choice(&DISK)?;
    disk_preset(name, min_capacity).map_err(|message| ParamError::new(DISK.key, message).into())
}
