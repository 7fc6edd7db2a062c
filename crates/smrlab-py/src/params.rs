//! Binding of the one parameter path: `KEY=VALUE` strings from any front split, checked and
//! resolved by the core (`smr_sim::registry::resolve`), the keys a system reads, the replay
//! options every front shares, and the limits the fronts name in their help.

use pyo3::prelude::*;
use smr_kernel::engine::{EngineOptions, MAX_GAUGE_SAMPLES, MAX_IODEPTH, MAX_SECONDS, PROGRESS_EVERY};

use crate::errors;

/// `[(key, value), ...]` of `KEY=VALUE` strings, in order: the one place they are split (an
/// argument that is not one `KEY=VALUE` raises `ParameterError` naming it).
#[pyfunction]
fn parse_params(pairs: Vec<String>) -> PyResult<Vec<(String, String)>> {
    smr_core::params::split(&pairs).map_err(errors::param)
}

/// `[(key, value, given), ...]`: every parameter `system` (and what it stacks over) reads, with
/// the value given or its default; `ParameterError` (with `key`, `nearest` and `unit`) for the
/// first argument that is not `KEY=VALUE`, a key it does not read, or a value its kind refuses.
#[pyfunction]
fn resolve_params(system: &str, pairs: Vec<String>) -> PyResult<Vec<(String, String, bool)>> {
    let resolved = smr_sim::registry::resolve(system, &pairs).map_err(errors::param)?;
    Ok(resolved.into_iter().map(|r| (r.key, r.value, r.given)).collect())
}

/// The keys `system` reads, given the `(key, value)` pairs that choose what it stacks over.
#[pyfunction]
fn system_keys(system: &str, pairs: Vec<(String, String)>) -> PyResult<Vec<String>> {
    let given = pairs.into_iter().collect();
    let declared = smr_sim::registry::declared(system, &given).map_err(errors::param)?;
    Ok(declared.into_iter().map(|(key, _)| key).collect())
}

/// The systems `system` builds given the `KEY=VALUE` strings `pairs`: itself, then each it
/// stacks over, outermost first.
#[pyfunction]
fn system_stack(system: &str, pairs: Vec<String>) -> PyResult<Vec<&'static str>> {
    let given = smr_core::params::split(&pairs).map_err(errors::param)?.into_iter().collect();
    smr_sim::registry::stack(system, &given).map_err(errors::param)
}

/// `(system, mode, speedup)` of every system: how it is replayed unless told otherwise.
#[pyfunction]
fn system_replays() -> Vec<(&'static str, &'static str, Option<f64>)> {
    smr_sim::registry::SYSTEMS
        .iter()
        .map(|e| match e.replay {
            smr_kernel::ReplayMode::Closed => (e.name, "closed", None),
            smr_kernel::ReplayMode::Open { speedup } => (e.name, "open", Some(speedup)),
        })
        .collect()
}

/// The replay `options` (JSON) ask of `system`, as the engine will run it (JSON of its
/// configuration): a mode or a speed-up left out is the system's own; `ParameterError` names an
/// option out of its range.
#[pyfunction]
fn resolve_engine(system: &str, options: &str) -> PyResult<String> {
    let options: EngineOptions =
        serde_json::from_str(options).map_err(|e| errors::ParameterError::new_err(format!("replay options: {e}")))?;
    let entry = smr_sim::registry::named(system, "system").map_err(errors::param)?;
    let config = options.config(entry.replay).map_err(errors::param)?;
    serde_json::to_string(&config).map_err(|e| errors::SimulationError::new_err(e.to_string()))
}

/// The replay options as JSON `{key: default}` (a mode and a speed-up left out: `null`).
#[pyfunction]
fn engine_options() -> PyResult<String> {
    serde_json::to_string(&EngineOptions::default()).map_err(|e| errors::SimulationError::new_err(e.to_string()))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("MAX_GAUGE_SAMPLES", MAX_GAUGE_SAMPLES)?;
    m.add("MAX_IODEPTH", MAX_IODEPTH)?;
    m.add("MAX_SECONDS", MAX_SECONDS)?;
    m.add("PROGRESS_EVERY", PROGRESS_EVERY)?;
    m.add("MAX_WHOLE", u64::MAX)?;
    add_functions!(
        m,
        parse_params,
        resolve_params,
        resolve_engine,
        system_keys,
        system_stack,
        system_replays,
        engine_options
    );
    Ok(())
}
