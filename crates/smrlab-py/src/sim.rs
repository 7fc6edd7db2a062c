//! Binding of the simulation runner: a JSON run spec in (with the trace it names, or its
//! requests as four columns of bytes from memory), a JSON run output out, with a progress
//! callback and Ctrl-C honoured between progress points. A run whose parameters name policies
//! written in Python is given their classes (`policies`, reference -> class) and keeps the GIL
//! throughout; what goes wrong in them is raised as `PolicyError`, caused by the user's own
//! exception (or as `KeyboardInterrupt` when Ctrl-C stopped one).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict};
use smr_core::Request;
use smr_kernel::policy::PolicySource;
use smr_kernel::Progress;
use smr_sim::runner::{self, RunOutput, RunSpec};
use smr_sim::SimError;
use smr_trace::columns::requests_from_columns;

use crate::errors;
use crate::interrupt::Signals;
use crate::policy::{Failures, PySource};

fn parse_spec(spec_json: &str) -> PyResult<RunSpec> {
    serde_json::from_str(spec_json).map_err(|e| errors::ParameterError::new_err(format!("run spec: {e}")))
}

/// Runs `spec` (on `requests`, when given) without the GIL, or with it when `policies`
/// (reference -> class) are given, handing it a progress callback that notices Ctrl-C and calls
/// `progress(requests, sim_time_ns)` (not during the first pass); a return of `False` (not
/// merely falsy: None goes on) or an exception in `progress` cancels. Returns the output as JSON.
fn run_reporting(
    py: Python<'_>,
    spec: &RunSpec,
    requests: Option<Arc<[Request]>>,
    progress: Option<PyObject>,
    policies: Option<Bound<'_, PyDict>>,
) -> PyResult<String> {
    let mut pending: Option<PyErr> = None;
    let failures = Rc::new(RefCell::new(Failures::default()));
    let source = policies.filter(|p| !p.is_empty()).map(|p| PySource::new(p.unbind(), Rc::clone(&failures)));
    let mut go = |source: Option<&dyn PolicySource>| {
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
                        // Only an explicit False cancels: a callback that returns nothing
                        // (None) means to go on.
                        Ok(v) => !v.bind(py).downcast::<PyBool>().is_ok_and(|b| !b.is_true()),
                        Err(e) => {
                            pending = Some(e);
                            false
                        }
                    },
                }
            })
        };
        match (source, requests.clone()) {
            (Some(source), requests) => runner::run_own(spec, requests, Some(&mut callback), source),
            (None, Some(requests)) => runner::run_requests(spec, requests, Some(&mut callback)),
            (None, None) => runner::run(spec, Some(&mut callback)),
        }
    };
    let result = match &source {
        // The policies' hooks call Python: the GIL is kept for the whole run.
        Some(source) => go(Some(source)),
        None => py.allow_threads(|| go(None)),
    };
    if let Some(e) = pending {
        return Err(e);
    }
    let output = policy_outcome(py, result, &mut failures.borrow_mut())?;
    serde_json::to_string(&output).map_err(|e| errors::SimulationError::new_err(e.to_string()))
}

/// The run's result, or the error to raise: a policy's failure as `PolicyError` caused by the
/// user's exception, or as the `KeyboardInterrupt` that stopped it; a run that ended but whose
/// policy failed after its last request is a failure too.
fn policy_outcome(py: Python<'_>, result: Result<RunOutput, SimError>, failures: &mut Failures) -> PyResult<RunOutput> {
    let message = match &result {
        Err(failure @ SimError::Policy { .. }) => failure.to_string(),
        Ok(_) if failures.after_run.is_some() => failures.after_run.take().unwrap_or_default(),
        _ => return result.map_err(errors::sim),
    };
    let cause = failures.first_error.take();
    if cause.as_ref().is_some_and(|c| c.is_instance_of::<PyKeyboardInterrupt>(py)) {
        return Err(PyKeyboardInterrupt::new_err(message));
    }
    let error = errors::PolicyError::new_err(message);
    error.set_cause(py, cause);
    Err(error)
}

/// Runs one simulation of the trace the spec names. `progress(requests, sim_time_ns)` is called
/// periodically; returning `False` cancels the run (the report then says `cancelled`; any other
/// value, None included, goes on). Ctrl-C
/// cancels and raises KeyboardInterrupt. `policies` maps each Python policy the parameters
/// name (`FILE.py:CLASS`, `MODULE:CLASS`) to its class.
#[pyfunction]
#[pyo3(signature = (spec_json, progress=None, policies=None))]
fn run_sim(
    py: Python<'_>,
    spec_json: &str,
    progress: Option<PyObject>,
    policies: Option<Bound<'_, PyDict>>,
) -> PyResult<String> {
    let spec = parse_spec(spec_json)?;
    run_reporting(py, &spec, None, progress, policies)
}

/// `run_sim` on requests held in memory: four little-endian columns (arrival ns, op code,
/// offset, length; see `smr_trace::columns`) instead of the file the spec names.
#[pyfunction]
#[pyo3(signature = (spec_json, time_ns, op, offset, len, progress=None, policies=None))]
#[allow(clippy::too_many_arguments)]
fn run_sim_columns(
    py: Python<'_>,
    spec_json: &str,
    time_ns: &[u8],
    op: &[u8],
    offset: &[u8],
    len: &[u8],
    progress: Option<PyObject>,
    policies: Option<Bound<'_, PyDict>>,
) -> PyResult<String> {
    let spec = parse_spec(spec_json)?;
    let requests: Arc<[Request]> = requests_from_columns(time_ns, op, offset, len).map_err(errors::trace)?.into();
    run_reporting(py, &spec, Some(requests), progress, policies)
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
    // The runner's limit, which `--iolog-max-io`'s help names.
    m.add("MIN_IOLOG_PIECE", smr_kernel::recorder::MIN_SPLIT)?;
    add_functions!(m, run_sim, run_sim_columns, trace_footprint);
    Ok(())
}
