//! Translation layers for host-managed SMR drives with rewritable (conventional) zones, after
//! the uCache paper: the drive's layout and the data-zone cleaning every layer shares (`drive`),
//! uCache itself (`ucache`, with its crash-consistent map in `journal`), its E-region baseline
//! (`eregion`) and the dm-zoned-like extreme (`zonemap`).
//!
//! Each layer declares its measures (hit ratios, GC cycles, promotion time) beside its
//! counters; I/O amplification and seeks come with every run's report. Not here: the zone
//! rules and timing (`kernel::zoned_disk` over `smr_zoned`).

pub mod drive;
pub mod eregion;
pub mod journal;
pub mod ucache;
pub mod zonemap;

pub use eregion::ENTRY as EREGION;
pub use ucache::ENTRY as UCACHE;
pub use zonemap::ENTRY as ZONEMAP;

/// Test helper shared by the translation layers' tests: replays `reqs` through `system` on a small
/// drive (1 MiB zones, 3 MiB conventional: the checkpoint zone and 2 MiB of cache).
#[cfg(test)]
pub(crate) fn replay_small(
    system: &str,
    extra: &[&str],
    reqs: &[smr_core::Request],
) -> Result<smr_kernel::metrics::CounterValues, smr_kernel::SimError> {
    Ok(replay_small_report(system, extra, reqs, smr_kernel::EngineConfig::default())?.counters)
}

/// `replay_small` with the engine configured by the caller, returning the whole report.
#[cfg(test)]
pub(crate) fn replay_small_report(
    system: &str,
    extra: &[&str],
    reqs: &[smr_core::Request],
    engine: smr_kernel::EngineConfig,
) -> Result<smr_kernel::RunReport, smr_kernel::SimError> {
    use smr_kernel::{ok_requests, BuildContext, Engine, IoCtx};
    let mut params: Vec<&str> = vec!["zone_size=1MiB", "conventional=3MiB", "disk=desktop7200"];
    params.extend_from_slice(extra);
    let mut p = smr_core::Params::parse(&params).expect("test parameters parse");
    let mut ctx = IoCtx::new();
    let footprint = smr_trace::Footprint::dense(64 << 20, 64 << 20, 64 << 20);
    let mut s = BuildContext::new(&mut p, footprint, 0, &mut ctx, &[&UCACHE, &EREGION, &ZONEMAP]).build(system)?;
    p.finish()?;
    Engine::new(engine).run(s.as_mut(), &mut ctx, ok_requests(reqs))
}
