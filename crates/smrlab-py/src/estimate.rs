//! Binding of the §III-A write-amplification estimate (`smrlab trace smr-estimate`).

use pyo3::prelude::*;
use smr_sim::dmsmr::estimate::estimate;
use smr_sim::runner::{self, RunSpec};
use smr_trace::Interruptible;

use crate::errors;
use crate::interrupt::Signals;

/// Runs the estimate over the trace of a run spec (its params and seed apply); returns JSON.
#[pyfunction]
fn smr_estimate(py: Python<'_>, spec_json: &str) -> PyResult<String> {
    let spec: RunSpec =
        serde_json::from_str(spec_json).map_err(|e| errors::ParameterError::new_err(format!("run spec: {e}")))?;
    let signals = Signals::default();
    let result = py.allow_threads(|| {
        let footprint = match &spec.footprint {
            Some(f) => f.clone(),
            None => runner::measure_footprint_with(&spec, &mut |_| signals.go_on())?,
        };
        let mut params = runner::params_of(&spec)?;
        estimate(Interruptible::new(runner::open_trace(&spec)?, signals.check()), &mut params, footprint, spec.seed)
    });
    let out = signals.result(result, errors::sim)?;
    serde_json::to_string(&out).map_err(|e| errors::SimulationError::new_err(e.to_string()))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(m, smr_estimate);
    Ok(())
}
