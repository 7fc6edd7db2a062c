//! Every system smrlab simulates, in the order `smrlab sim --help` lists them, and building one
//! by name.
//!
//! Adding a system is adding its folder (or file) and one line in `SYSTEMS`. The registry
//! depends on the systems and the kernel; nothing depends on it but the runner and the
//! bindings. Not here: the systems themselves, or how they are built (`kernel::build`).

use smr_core::Params;
use smr_trace::Footprint;

use smr_kernel::{BuildContext, IoCtx, SimError, System, SystemEntry};

/// Every system.
pub const SYSTEMS: &[&SystemEntry] = &[
    &crate::cmr::ENTRY,
    &crate::dmsmr::ENTRY,
    &crate::dmsmr::estimate::ENTRY,
    &crate::cache::ENTRY,
    &crate::hostmanaged::UCACHE,
    &crate::hostmanaged::EREGION,
    &crate::hostmanaged::ZONEMAP,
    &crate::hwsr::HWSR,
    &crate::hwsr::SBLOCK,
    &crate::fluid::ENTRY,
];

/// The entry of the system called `name` or answering to it as an alias.
pub fn entry(name: &str) -> Option<&'static SystemEntry> {
    SYSTEMS.iter().copied().find(|e| e.answers_to(name))
}

/// Builds system `name` (or an alias) on the media of `ctx`; a parameter that no part of the
/// system read is an error naming it.
pub fn build(
    name: &str,
    params: &mut Params,
    footprint: Footprint,
    seed: u64,
    ctx: &mut IoCtx,
) -> Result<Box<dyn System>, SimError> {
    let system = BuildContext::new(params, footprint, seed, ctx, SYSTEMS).build(name)?;
    params.finish()?;
    Ok(system)
}
