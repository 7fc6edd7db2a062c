//! Binding of the simulation runner: a JSON run spec in, a JSON run output out, with a progress
//! callback and Ctrl-C honoured between progress points.

use pyo3::prelude::*;
use smr_sim::kernel::Progress;
use smr_sim::runner::{self, RunSpec};

use crate::errors;
use crate::interrupt::Signals;

fn parse_spec(spec_json: &str) -> PyResult<RunSpec> {
    serde_json::from_str(spec_json).map_err(|e| errors::ParameterError::new_err(format!("run spec: {e}")))
}

/// Runs one simulation. `progress(requests, sim_time_ns)` is called periodically; a falsy return
/// cancels the run (the report then says `cancelled`). Ctrl-C cancels and raises KeyboardInterrupt.
#[pyfunction]
#[pyo3(signature = (spec_json, progress=None))]
fn run_sim(py: Python<'_>, spec_json: &str, progress: Option<PyObject>) -> PyResult<String> {
    let spec = parse_spec(spec_json)?;
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
        runner::run(&spec, Some(&mut callback))
    });
    if let Some(e) = pending {
        return Err(e);
    }
    let output = result.map_err(errors::sim)?;
    serde_json::to_string(&output).map_err(|e| errors::SimulationError::new_err(e.to_string()))
}

/// The footprint of a trace (the first pass of a run), as JSON.
#[pyfunction]
fn trace_footprint(py: Python<'_>, spec_json: &str) -> PyResult<String> {
    let spec = parse_spec(spec_json)?;
    let signals = Signals::default();
    let footprint = py.allow_threads(|| runner::measure_footprint_with(&spec, &mut |_| signals.go_on()));
    let footprint = signals.result(footprint, errors::sim)?;
    serde_json::to_string(&footprint).map_err(|e| errors::SimulationError::new_err(e.to_string()))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(run_sim, m)?)?;
    m.add_function(wrap_pyfunction!(trace_footprint, m)?)
}
