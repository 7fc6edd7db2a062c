//! Builds a simulated system from its name and `key=value` parameters, and documents every
//! system's parameters for `smrlab sim --help`.
//!
//! Adding a system is adding its module and one line in `SYSTEMS` and `build`. Not here: the
//! systems themselves.

use smr_core::trace::Footprint;
use smr_core::Params;

use crate::error::SimError;
use crate::ioctx::IoCtx;
use crate::system::System;

/// One parameter of a system, for `--help`: its key, default and meaning with units.
#[derive(Clone, Copy, Debug)]
pub struct ParamDoc {
    pub key: &'static str,
    pub default: &'static str,
    pub help: &'static str,
}

impl ParamDoc {
    /// The disk model every disk-based system accepts.
    pub const DISK: ParamDoc = ParamDoc {
        key: "disk",
        default: "st5000as0011",
        help: "HDD timing preset: st5000as0011 (5900 RPM 5 TB archive SMR), desktop7200 (7200 RPM 1 TB), fluid10k (10025 RPM, FluidSMR §7.1)",
    };
}

/// A system's name, one-line summary and parameters.
#[derive(Clone, Copy, Debug)]
pub struct SystemDoc {
    pub name: &'static str,
    pub summary: &'static str,
    pub params: &'static [ParamDoc],
}

/// What a system's constructor gets: its parameters (it must read every one it accepts), the
/// trace's footprint (for defaults relative to it), the seed, and the `IoCtx` to register media in.
pub struct BuildContext<'a> {
    pub params: &'a mut Params,
    pub footprint: Footprint,
    pub seed: u64,
    pub ctx: &'a mut IoCtx,
}

/// Every system, in the order `--help` lists them.
pub const SYSTEMS: &[&SystemDoc] = &[&crate::cmr::DOC, &crate::dmsmr::DOC, &crate::cache::DOC, &crate::ucache::ucache::DOC, &crate::ucache::eregion::DOC, &crate::ucache::zonemap::DOC];

/// Other names systems answer to: (alias, system).
pub const ALIASES: &[(&str, &str)] = &[("pore", "cache")];

/// Builds system `name` (or an alias); unknown parameters are an error naming the parameter.
pub fn build(name: &str, b: &mut BuildContext<'_>) -> Result<Box<dyn System>, SimError> {
    let name = ALIASES.iter().find(|(alias, _)| *alias == name).map_or(name, |(_, system)| system);
    let system: Box<dyn System> = match name {
        "cmr" => Box::new(crate::cmr::Cmr::build(b)?),
        "dmsmr" => Box::new(crate::dmsmr::Dmsmr::build(b)?),
        "cache" => Box::new(crate::cache::SsdCache::build(b)?),
        "ucache" => Box::new(crate::ucache::ucache::UCache::build(b)?),
        "eregion" => Box::new(crate::ucache::eregion::ERegion::build(b)?),
        "zonemap" => Box::new(crate::ucache::zonemap::build(b)?),
        _ => {
            return Err(SimError::UnknownSystem {
                name: name.to_string(),
                known: SYSTEMS.iter().map(|d| d.name).collect::<Vec<_>>().join(", "),
            })
        }
    };
    b.params.finish()?;
    Ok(system)
}
