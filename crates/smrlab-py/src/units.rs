//! Bindings of the core's handling of text a user gives: the size parser, so the command line
//! reads sizes exactly as the core does, and the quoting of such text in error messages, so
//! Python's messages quote it as the core's do.

use pyo3::prelude::*;

use crate::errors;

/// Bytes of a size such as "4096", "4KiB", "20MB", "1.5GiB" (KB/MB/GB are powers of 1000).
#[pyfunction]
fn parse_size(text: &str) -> PyResult<u64> {
    smr_core::units::parse_size(text).map_err(errors::ParameterError::new_err)
}

/// `text` (its UTF-8 bytes) in single quotes for a message: printable ASCII kept, every other
/// byte written `\xNN`, cut after `most` characters (default the core's `QUOTE_MAX`) with a note
/// of how many bytes were left out.
#[pyfunction]
#[pyo3(signature = (text, most=smr_core::quote::QUOTE_MAX))]
fn quote(text: &str, most: usize) -> String {
    smr_core::quote_within(text, most)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(m, parse_size, quote);
    Ok(())
}
