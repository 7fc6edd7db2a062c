//! PyO3 bindings of smrlab: thin wrappers that turn Python arguments into calls on the Rust
//! crates and results into JSON text or Python objects. No logic lives here.
//!
//! Errors cross as `smrlab._core.SmrlabError` subclasses whose message names what and where;
//! the Python command line turns them into one line and exit code 2.

use pyo3::prelude::*;

/// Adds each named `#[pyfunction]` to the module `m`: how every file of the bindings registers
/// its functions.
macro_rules! add_functions {
    ($m:expr, $($function:ident),+ $(,)?) => {
        $( $m.add_function(wrap_pyfunction!($function, $m)?)?; )+
    };
}

/// Adds each named type (an exception class) to the module `m` under its Rust name.
macro_rules! add_types {
    ($m:expr, $($name:ident),+ $(,)?) => {
        $( $m.add(stringify!($name), $m.py().get_type::<$name>())?; )+
    };
}

mod disk;
mod errors;
mod estimate;
mod fingerprint;
mod hwsr;
mod interrupt;
mod kv;
mod paper;
mod params;
mod policy;
mod probe;
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
    fingerprint::register(m)?;
    hwsr::register(m)?;
    kv::register(m)?;
    paper::register(m)?;
    params::register(m)?;
    policy::register(m)?;
    probe::register(m)?;
    sim::register(m)?;
    systems::register(m)?;
    trace::register(m)?;
    units::register(m)?;
    workload::register(m)?;
    Ok(())
}
