//! Bindings of trace statistics and the trace pipeline (convert, merge, duplicate, synthesize,
//! transform): JSON descriptions in, JSON, counts or request columns out; and statistics of
//! requests held in memory as columns.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use smr_trace::columns::{columns_from_requests, requests_from_columns};
use smr_trace::pipeline::Pipeline;
use smr_trace::{write_all, Interruptible, TraceError, TraceReader, TraceStats};

use crate::errors;
use crate::interrupt::Signals;

/// The pipeline's requests, ended early if Ctrl-C is pressed.
fn requests(
    pipeline: &Pipeline,
    signals: &Signals,
) -> Result<Interruptible<TraceReader, impl FnMut(u64) -> bool>, TraceError> {
    Ok(Interruptible::new(pipeline.requests()?, signals.check()))
}

fn parse(pipeline_json: &str) -> PyResult<Pipeline> {
    serde_json::from_str(pipeline_json).map_err(|e| errors::ParameterError::new_err(format!("trace pipeline: {e}")))
}

/// Statistics of the pipeline's output, as JSON. An empty result is an error naming the first input.
#[pyfunction]
fn trace_stats(py: Python<'_>, pipeline_json: &str) -> PyResult<String> {
    let pipeline = parse(pipeline_json)?;
    let signals = Signals::default();
    let stats = py.allow_threads(|| -> Result<TraceStats, TraceError> {
        let stats = TraceStats::of(pipeline.requests()?, |trace| Interruptible::new(trace, signals.check()))?;
        if stats.requests == 0 {
            let path = pipeline.inputs.first().map(|i| i.path.clone()).unwrap_or_default();
            return Err(TraceError::Empty { path });
        }
        Ok(stats)
    });
    let stats = signals.result(stats, errors::trace)?;
    serde_json::to_string(&stats).map_err(|e| errors::SimulationError::new_err(e.to_string()))
}

/// Statistics of requests held in memory as four columns (see `smr_trace::columns`), as
/// JSON; no requests is an error.
#[pyfunction]
fn columns_stats(py: Python<'_>, time_ns: &[u8], op: &[u8], offset: &[u8], len: &[u8]) -> PyResult<String> {
    let requests = requests_from_columns(time_ns, op, offset, len).map_err(errors::trace)?;
    if requests.is_empty() {
        return Err(errors::trace(TraceError::Empty { path: smr_trace::columns::IN_MEMORY.into() }));
    }
    let stats = py.allow_threads(|| TraceStats::compute(requests.into_iter().map(Ok))).map_err(errors::trace)?;
    serde_json::to_string(&stats).map_err(|e| errors::SimulationError::new_err(e.to_string()))
}

/// The pipeline's output as four columns of bytes (arrival ns, op code, offset, length; see
/// `smr_trace::columns`), for a trace read into memory.
#[pyfunction]
fn trace_columns<'py>(py: Python<'py>, pipeline_json: &str) -> PyResult<[Bound<'py, PyBytes>; 4]> {
    let pipeline = parse(pipeline_json)?;
    let signals = Signals::default();
    let columns = py.allow_threads(|| columns_from_requests(requests(&pipeline, &signals)?));
    let columns = signals.result(columns, errors::trace)?;
    Ok(columns.map(|column| PyBytes::new(py, &column)))
}

/// Writes the pipeline's output to `out` in `out_format` (from the suffix if None); returns the
/// number of requests written.
#[pyfunction]
#[pyo3(signature = (pipeline_json, out, out_format=None))]
fn trace_write(
    py: Python<'_>,
    pipeline_json: &str,
    out: std::path::PathBuf,
    out_format: Option<String>,
) -> PyResult<u64> {
    let pipeline = parse(pipeline_json)?;
    let signals = Signals::default();
    let written = py.allow_threads(|| write_all(&out, out_format.as_deref(), requests(&pipeline, &signals)?));
    signals.result(written, errors::trace)
}

/// Write locality of the pipeline's output (uCache paper §II) for the given bucket sizes, as JSON.
#[pyfunction]
fn trace_locality(py: Python<'_>, pipeline_json: &str, bucket_sizes: Vec<u64>) -> PyResult<String> {
    let pipeline = parse(pipeline_json)?;
    if bucket_sizes.contains(&0) {
        return Err(errors::ParameterError::new_err("bucket sizes must be positive"));
    }
    let signals = Signals::default();
    let locality =
        py.allow_threads(|| smr_trace::locality::Locality::compute(requests(&pipeline, &signals)?, &bucket_sizes));
    let locality = signals.result(locality, errors::trace)?;
    serde_json::to_string(&locality).map_err(|e| errors::SimulationError::new_err(e.to_string()))
}

/// The names of the trace formats, and whether smrlab writes each.
#[pyfunction]
fn trace_formats() -> Vec<(String, bool)> {
    smr_trace::FORMATS.iter().map(|f| (f.name.to_string(), f.writable())).collect()
}

/// Table I presets of the synthesizer: (name, requests, write %, written GB, accessed GB).
#[pyfunction]
fn synth_presets() -> Vec<(String, u64, f64, f64, f64)> {
    smr_trace::synth::PRESETS
        .iter()
        .map(|p| (p.name.to_string(), p.requests, p.write_percent, p.written_gb, p.accessed_gb))
        .collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
        trace_stats,
        trace_write,
        trace_columns,
        columns_stats,
        trace_locality,
        trace_formats,
        synth_presets
    );
    Ok(())
}
