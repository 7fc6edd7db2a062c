//! Documentation of the simulated systems and their parameters, for `smrlab sim --help` and for
//! the Python front, which reads every system's parameter names and defaults from here instead
//! of copying them.

use pyo3::prelude::*;

/// One parameter as Python sees it: (key, default, unit, help, open), `open` the reason for the
/// default of an open choice (a value the paper does not state), else None.
type ParamTuple = (String, String, String, String, Option<String>);

/// `[(name, summary, [(key, default, unit, help, open), ...]), ...]` for every system.
#[pyfunction]
fn systems() -> Vec<(String, String, Vec<ParamTuple>)> {
    smr_sim::registry::SYSTEMS
        .iter()
        .map(|e| {
            let params = smr_kernel::params::specs(e.params).map(|p| (p.key.into(), p.default.into(), p.kind.unit(), p.help.into(), p.open.map(String::from))).collect();
            (e.name.into(), e.summary.into(), params)
        })
        .collect()
}

/// Every name `smrlab sim --system` accepts: the systems, then their aliases.
#[pyfunction]
fn system_names() -> Vec<String> {
    let names = smr_sim::registry::SYSTEMS.iter().map(|e| e.name.to_string());
    names.chain(smr_sim::registry::SYSTEMS.iter().flat_map(|e| e.aliases.iter().map(|a| a.to_string()))).collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(systems, m)?)?;
    m.add_function(wrap_pyfunction!(system_names, m)?)
}
