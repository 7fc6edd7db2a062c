//! smr-sim: the replay engine and every simulated SMR system.
//!
//! The kernel, its own crate (`smr-kernel`), holds what all systems share: the `System`
//! interface, typed parameters, the `IoCtx` that times media I/O, the `Engine` that replays a
//! request stream and its report, and the parts systems are built from. Each system lives in its
//! own folder and depends on the kernel only: `cmr` (a plain disk), `dmsmr` (drive-managed SMR), `cache` (the SSD cache
//! framework: LRU, LRU-band, PORE), `hostmanaged` (uCache, E-region, the zone map), `hwsr`
//! (HWSR and S-block), `fluid` (FluidSMR and its baselines on a hybrid CMR/SMR partition).
//! `registry` lists them; `runner` runs one from a description; `device` is one driven a request at a time. Not here: trace parsing and media models
//! (`smr-trace`, `smr-media`), the key-value store (`smrdb`).

pub mod device;
pub mod registry;
pub mod runner;

pub mod cache;
pub mod cmr;
pub mod dmsmr;
pub mod fluid;
pub mod hostmanaged;
pub mod hwsr;

pub use smr_kernel::{ChannelId, Engine, EngineConfig, IoCtx, ReplayMode, RunReport, SimError, System};
