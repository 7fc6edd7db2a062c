//! Bindings of the HWSR paper's models that are not simulations: the capacity model's Fig. 7
//! and the trace characteristics of Table 3.

use pyo3::prelude::*;
use smr_sim::hwsr::{capacity, table3};
use smr_trace::pipeline::Pipeline;

use crate::errors;

/// Fig. 7's curves and the paper's stated points, as JSON.
#[pyfunction]
fn hwsr_capacity() -> PyResult<String> {
    serde_json::to_string(&capacity::figure7()).map_err(|e| errors::SimulationError::new_err(e.to_string()))
}

/// Table 3's columns of the pipeline's output, as JSON.
#[pyfunction]
fn hwsr_trace_table(py: Python<'_>, pipeline_json: &str) -> PyResult<String> {
    let pipeline: Pipeline = serde_json::from_str(pipeline_json)
        .map_err(|e| errors::ParameterError::new_err(format!("trace pipeline: {e}")))?;
    let row = py.allow_threads(|| table3::measure(pipeline.requests()?)).map_err(errors::trace)?;
    serde_json::to_string(&row).map_err(|e| errors::SimulationError::new_err(e.to_string()))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // The largest emulated track (bytes) and the most tracks a region may span, which the
    // command line's sweeps refuse past.
    m.add("HWSR_MAX_TRACK", smr_sim::hwsr::MAX_TRACK)?;
    m.add("HWSR_MAX_REGION_TRACKS", smr_sim::hwsr::MAX_TRACKS)?;
    add_functions!(m, hwsr_capacity, hwsr_trace_table);
    Ok(())
}
