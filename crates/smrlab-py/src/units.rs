//! Binding of smrlab's size parser, so the command line reads sizes exactly as the core does.

use pyo3::prelude::*;

use crate::errors;

/// Bytes of a size such as "4096", "4KiB", "20MB", "1.5GiB" (KB/MB/GB are powers of 1000).
#[pyfunction]
fn parse_size(text: &str) -> PyResult<u64> {
    smr_core::units::parse_size(text).map_err(errors::ParameterError::new_err)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(parse_size, m)?)
}
