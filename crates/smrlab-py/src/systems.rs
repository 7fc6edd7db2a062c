//! Documentation of the simulated systems and their parameters, for `smrlab sim --help`.

use pyo3::prelude::*;

/// One parameter as Python sees it: (key, default, help).
type ParamTuple = (String, String, String);

/// `[(name, summary, [(key, default, help), ...]), ...]` for every system.
#[pyfunction]
fn systems() -> Vec<(String, String, Vec<ParamTuple>)> {
    smr_sim::registry::SYSTEMS
        .iter()
        .map(|d| {
            let params = d.params.iter().map(|p| (p.key.into(), p.default.into(), p.help.into())).collect();
            (d.name.into(), d.summary.into(), params)
        })
        .collect()
}

/// Every name `smrlab sim --system` accepts: the systems, then their aliases.
#[pyfunction]
fn system_names() -> Vec<String> {
    let names = smr_sim::registry::SYSTEMS.iter().map(|d| d.name.to_string());
    names.chain(smr_sim::registry::ALIASES.iter().map(|(alias, _)| alias.to_string())).collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(systems, m)?)?;
    m.add_function(wrap_pyfunction!(system_names, m)?)
}
