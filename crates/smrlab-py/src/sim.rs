//! Binding of the simulation runner: a JSON run spec in (with the trace it names, or its
//! requests as four columns of bytes from memory), a JSON run output out, with a progress
//! callback and Ctrl-C honoured between progress points.

use std::sync::Arc;

use pyo3::prelude::*;
use smr_kernel::Progress;
use smr_sim::runner::{self, RunOutput, RunSpec};
use smr_sim::SimError;
use smr_trace::columns::requests_from_columns;

use crate::errors;
use crate::interrupt::Signals;

fn parse_spec(spec_json: &str) -> PyResult<RunSpec> {
    serde_json::from_str(spec_json).map_err(|e| errors::ParameterError::new_err(format!("run spec: {e}")))
}

/// Runs `start` without the GIL, handing it a progress callback that notices Ctrl-C and calls
/// `progress(requests, sim_time_ns)` (not during the first pass); a falsy return or an
/// exception in `progress` cancels. Returns the output as JSON.
fn run_reporting(
    py: Python<'_>,
    progress: Option<PyObject>,
    start: impl FnOnce(&mut dyn FnMut(Progress) -> bool) -> Result<RunOutput, SimError> + Send,
) -> PyResult<String> {
    let mut pending: Option<PyErr> = None;
    let result = py.allow_threads(|| {
        let mut callback = |p: Progress| -> bool {
            Python::with_gil(|py| {
                if let Err(e) = py.check_signals() {
                    pending = Some(e);
                    return false;
                }
                match &progress {
                    None => true,
                    Some(_) if p.first_pass => true,
                    Some(f) => match f.call1(py, (p.requests, p.sim_time_ns)) {
                        Ok(v) => v.bind(py).is_truthy().unwrap_or(true),
                        Err(e) => {
                            pending = Some(e);
                            false
                        }
                    },
                }
            })
        };
        start(&mut callback)
    });
    if let Some(e) = pending {
        return Err(e);
    }
    let output = result.map_err(errors::sim)?;
    serde_json::to_string(&output).map_err(|e| errors::SimulationError::new_err(e.to_string()))
}

/// Runs one simulation of the trace the spec names. `progress(requests, sim_time_ns)` is called
/// periodically; a falsy return cancels the run (the report then says `cancelled`). Ctrl-C
/// cancels and raises KeyboardInterrupt.
#[pyfunction]
#[pyo3(signature = (spec_json, progress=None))]
fn run_sim(py: Python<'_>, spec_json: &str, progress: Option<PyObject>) -> PyResult<String> {
    let spec = parse_spec(spec_json)?;
    run_reporting(py, progress, |callback| runner::run(&spec, Some(callback)))
}

/// `run_sim` on requests held in memory: four little-endian columns (arrival ns, op code,
/// offset, length; see `smr_trace::columns`) instead of the file the spec names.
#[pyfunction]
#[pyo3(signature = (spec_json, time_ns, op, offset, len, progress=None))]
fn run_sim_columns(
    py: Python<'_>,
    spec_json: &str,
    time_ns: &[u8],
    op: &[u8],
    offset: &[u8],
    len: &[u8],
    progress: Option<PyObject>,
) -> PyResult<String> {
    let spec = parse_spec(spec_json)?;
    let requests: Arc<[smr_core::Request]> =
        requests_from_columns(time_ns, op, offset, len).map_err(errors::trace)?.into();
    run_reporting(py, progress, |callback| runner::run_requests(&spec, requests, Some(callback)))
}

/// The footprint of a trace (the first pass of a run) and its number of requests, as JSON
/// `{"footprint": ..., "requests": n}`.
#[pyfunction]
fn trace_footprint(py: Python<'_>, spec_json: &str) -> PyResult<String> {
    let spec = parse_spec(spec_json)?;
    let signals = Signals::default();
    let measured = py.allow_threads(|| runner::measure_with(&spec, &mut |_| signals.go_on()));
    let (footprint, requests) = signals.result(measured, errors::sim)?;
    serde_json::to_string(&serde_json::json!({"footprint": footprint, "requests": requests}))
        .map_err(|e| errors::SimulationError::new_err(e.to_string()))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // The runner's limits, so the command line refuses what the core would (and names them once).
    m.add("MAX_GAUGE_SAMPLES", smr_kernel::engine::MAX_GAUGE_SAMPLES)?;
    m.add("MIN_IOLOG_PIECE", smr_kernel::recorder::MIN_SPLIT)?;
    add_functions!(m, run_sim, run_sim_columns, trace_footprint);
    Ok(())
}
