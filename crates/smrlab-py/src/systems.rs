//! Documentation of the simulated systems and their parameters, for `smrlab sim --help`.

use pyo3::prelude::*;

/// `[(name, summary, [(key, default, help), ...]), ...]` for every system.
#[pyfunction]
fn systems() -> Vec<(String, String, Vec<(String, String, String)>)> {
    smr_sim::registry::SYSTEMS
        .iter()
        .map(|d| {
            let params = d.params.iter().map(|p| (p.key.into(), p.default.into(), p.help.into())).collect();
            (d.name.into(), d.summary.into(), params)
        })
        .collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(systems, m)?)
}
