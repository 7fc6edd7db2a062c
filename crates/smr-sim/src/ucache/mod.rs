//! Translation layers for host-managed SMR drives with rewritable (conventional) zones, after
//! the uCache paper: the drive model (`device`, which also holds the data-zone cleaning every
//! layer shares), uCache itself (`ucache`), its E-region baseline (`eregion`) and the
//! dm-zoned-like extreme (`zonemap`).
//!
//! uCache's bucket headers, checkpoints and recovery are in `journal`. Not here: the paper's
//! derived measures (I/O amplification, promotion time, seeks beside a plain disk), which the
//! Python front computes from these systems' counters and channel totals (`smrlab.derived`).

pub mod device;
pub mod eregion;
pub mod journal;
pub mod ucache;
pub mod zonemap;

/// Test helper shared by the translation layers' tests: replays `reqs` through `system` on a small
/// drive (1 MiB zones, 3 MiB conventional: the checkpoint zone and 2 MiB of cache).
#[cfg(test)]
pub(crate) fn replay_small(system: &str, extra: &[&str], reqs: &[smr_core::Request]) -> Result<smr_core::metrics::Counters, crate::SimError> {
    Ok(replay_small_report(system, extra, reqs, crate::EngineConfig::default())?.counters)
}

/// `replay_small` with the engine configured by the caller, returning the whole report.
#[cfg(test)]
pub(crate) fn replay_small_report(system: &str, extra: &[&str], reqs: &[smr_core::Request], engine: crate::EngineConfig) -> Result<crate::RunReport, crate::SimError> {
    let mut params: Vec<&str> = vec!["zone_size=1MiB", "conventional=3MiB", "disk=desktop7200"];
    params.extend_from_slice(extra);
    let mut p = smr_core::Params::parse(&params).expect("test parameters parse");
    let mut ctx = crate::IoCtx::new();
    let footprint = smr_core::trace::Footprint::dense(64 << 20, 64 << 20, 64 << 20);
    let mut s = crate::registry::build(system, &mut crate::registry::BuildContext { params: &mut p, footprint, seed: 0, ctx: &mut ctx })?;
    crate::Engine::new(engine).run(s.as_mut(), &mut ctx, crate::engine::ok_requests(reqs))
}
