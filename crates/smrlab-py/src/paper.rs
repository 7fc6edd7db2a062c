//! The papers' workload tables and generators (smr-trace's `paper`) for Python: the tables and
//! their constants, a workload's recipe (checked, its refusal a `ParameterError` carrying the
//! user's sentence), the shapes the FluidSMR commands print, and numpy's streams and `spread`
//! for the differential tests against numpy. Writing a workload is `trace_write` of a pipeline
//! whose source is `{"paper": ...}`. Not here: caching the generated files (Python's
//! `bundled.generated_trace`).

use pyo3::prelude::*;
use serde_json::json;
use smr_trace::paper::{
    fluid_table1, four_phase, hwsr_table3, numpy_random::NumpyRng, spread, PaperError, PaperTrace,
    MAX_GENERATED_REQUESTS,
};

use crate::errors;

fn refused(e: PaperError) -> PyErr {
    errors::ParameterError::new_err(e.0)
}

fn parse(paper_json: &str) -> PyResult<PaperTrace> {
    serde_json::from_str(paper_json).map_err(|e| errors::ParameterError::new_err(format!("paper workload: {e}")))
}

/// The tables (HWSR's Table 3, FluidSMR's Table 1) and the workloads' constants, as JSON.
#[pyfunction]
fn paper_tables() -> String {
    json!({
        "hwsr_table3": hwsr_table3::TABLE3,
        "fluid_table1": fluid_table1::TABLE1,
        "max_generated_requests": MAX_GENERATED_REQUESTS,
        "placements": fluid_table1::PLACEMENTS,
        "hot_ranges": fluid_table1::HOT_RANGES,
        "max_hot_ranges": fluid_table1::MAX_HOT_RANGES,
        "zone": four_phase::ZONE,
        "phase_requests": four_phase::PHASE_REQUESTS,
        "phase_hours": four_phase::PHASE_HOURS,
        "phase_hours_min": four_phase::PHASE_HOURS_MIN,
        "phase_hours_max": four_phase::PHASE_HOURS_MAX,
    })
    .to_string()
}

/// The recipe of a paper workload (JSON of `PaperTrace`), as JSON: `synth` parameters, `requests`,
/// `format`, and `chunk` and `end` of a spread trace.
#[pyfunction]
fn paper_recipe(paper_json: &str) -> PyResult<String> {
    let recipe = parse(paper_json)?.recipe().map_err(refused)?;
    serde_json::to_string(&recipe).map_err(|e| errors::SimulationError::new_err(e.to_string()))
}

/// (scale, requests, zone size, maximum offset) of FluidSMR Table 1 trace `name` at `requests`.
#[pyfunction]
#[pyo3(signature = (name, requests=None))]
fn fluid_table1_shape(name: &str, requests: Option<i64>) -> PyResult<(f64, i64, i64, i64)> {
    let row = fluid_table1::preset(name).map_err(refused)?;
    let scale = fluid_table1::scale_of(row, requests).map_err(refused)?;
    Ok((
        scale,
        fluid_table1::requests_of(row, scale),
        fluid_table1::zone_size(scale),
        fluid_table1::max_offset(row, scale),
    ))
}

/// (zone size, zones, zones of the CMR-favourable phases) of the four-phase workload at `requests`.
#[pyfunction]
fn four_phase_shape(requests: i64) -> (u64, i64, i64) {
    four_phase::shape(requests)
}

/// The four-phase workload's writes as numpy made them, (time ns, offset, length) each, before
/// its times are cut to the trace's 100 ns ticks.
#[pyfunction]
fn four_phase_writes(paper_json: &str) -> PyResult<Vec<(u64, u64, u64)>> {
    let PaperTrace::FourPhase(workload) = parse(paper_json)? else {
        return Err(errors::ParameterError::new_err("four_phase_writes takes a four_phase workload"));
    };
    Ok(workload.writes().map_err(refused)?.into_iter().map(|w| (w.time_ns, w.offset, w.len)).collect())
}

/// `offsets` moved by FluidSMR's `spread` placement (see smr-trace's paper/spread.rs).
#[pyfunction]
fn fluid_spread(mut offsets: Vec<u64>, lengths: Vec<u64>, chunk: u64, end: u64, seed: u64) -> PyResult<Vec<u64>> {
    if offsets.len() != lengths.len() || chunk == 0 {
        return Err(errors::ParameterError::new_err("spread needs as many lengths as offsets and a positive chunk"));
    }
    spread::spread(&mut offsets, &lengths, chunk, end, seed);
    Ok(offsets)
}

/// numpy's `default_rng(seed)`: one list per (low, high, count) of `integers(low, high, count)`,
/// drawn in turn from the one generator.
#[pyfunction]
fn numpy_integers(seed: u64, draws: Vec<(i64, i64, usize)>) -> PyResult<Vec<Vec<i64>>> {
    let mut rng = NumpyRng::new(seed);
    draws
        .into_iter()
        .map(|(low, high, count)| {
            rng.integers(low, high, count)
                .ok_or_else(|| errors::ParameterError::new_err(format!("high {high} <= low {low}")))
        })
        .collect()
}

/// numpy's `default_rng(seed).permutation(n)`.
#[pyfunction]
fn numpy_permutation(seed: u64, n: u64) -> Vec<u64> {
    NumpyRng::new(seed).permutation(n)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
        paper_tables,
        paper_recipe,
        fluid_table1_shape,
        four_phase_shape,
        four_phase_writes,
        fluid_spread,
        numpy_integers,
        numpy_permutation
    );
    Ok(())
}
