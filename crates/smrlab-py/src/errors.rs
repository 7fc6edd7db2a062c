//! The exception classes Python sees, and the conversion of Rust errors into them.

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use smr_core::ParamError;
use smr_sim::SimError;
use smr_trace::TraceError;

create_exception!(_core, SmrlabError, PyException, "Any error smrlab reports to its user.");
create_exception!(_core, ParameterError, SmrlabError, "A parameter is missing, unknown or out of range.");
create_exception!(_core, TraceFormatError, SmrlabError, "A trace file is unreadable, malformed, truncated or empty.");
create_exception!(_core, SimulationError, SmrlabError, "A request the simulated device cannot serve.");
create_exception!(
    _core,
    PolicyError,
    SmrlabError,
    "A user's own policy raised, or answered a hook wrongly; its cause is the user's exception, if any."
);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_types!(m, SmrlabError, ParameterError, TraceFormatError, SimulationError, PolicyError);
    Ok(())
}

/// A `ParameterError` whose message is `e`'s, with `e`'s parts as attributes: `key` (the
/// parameter, or the whole argument when it is not `KEY=VALUE`), `nearest` (the declared names
/// nearest an unknown key) and `unit` (the unit and range of a refused value, or None).
pub fn param(e: ParamError) -> PyErr {
    Python::with_gil(|py| {
        let err = ParameterError::new_err(e.to_string());
        let value = err.value(py);
        let set = value
            .setattr("key", &e.param)
            .and_then(|()| value.setattr("nearest", e.nearest.clone()))
            .and_then(|()| value.setattr("unit", e.unit.clone()));
        set.err().unwrap_or(err)
    })
}

pub fn trace(e: TraceError) -> PyErr {
    TraceFormatError::new_err(e.to_string())
}

pub fn sim(e: SimError) -> PyErr {
    match e {
        SimError::Param(p) => param(p),
        SimError::Trace(t) => trace(t),
        SimError::UnknownSystem { .. } => ParameterError::new_err(e.to_string()),
        SimError::Policy { .. } => PolicyError::new_err(e.to_string()),
        other => SimulationError::new_err(other.to_string()),
    }
}
