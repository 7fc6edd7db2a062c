//! PyO3 bindings of smrlab: thin wrappers that turn Python arguments into calls on the Rust
//! crates and results into JSON text or Python objects. No logic lives here.
//!
//! Errors cross as `smrlab._core.SmrlabError` subclasses whose message names what and where;
//! the Python command line turns them into one line and exit code 2.

use pyo3::prelude::*;

mod disk;
mod errors;
mod estimate;
mod hwsr;
mod interrupt;
mod kv;
mod paper;
mod sim;
mod systems;
mod trace;
mod units;
mod workload;

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    disk::register(m)?;
    errors::register(m)?;
    estimate::register(m)?;
    hwsr::register(m)?;
    kv::register(m)?;
    paper::register(m)?;
    sim::register(m)?;
    systems::register(m)?;
    trace::register(m)?;
    units::register(m)?;
    workload::register(m)?;
    Ok(())
}
