//! The model's fingerprint as the build computed it (`build.rs`, `smrlab_fingerprint`): a
//! digest per registered system (its name and aliases) and one for the key-value store, which
//! change whenever the code behind their numbers does.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::collections::BTreeMap;

mod built {
    include!(concat!(env!("OUT_DIR"), "/fingerprint.rs"));
}

/// Digests by name: of each system (and alias), or of each part of the workspace.
type Digests = BTreeMap<String, String>;

/// `({system or alias: digest}, key-value digest, {part: digest})`.
#[pyfunction]
fn model_fingerprints() -> PyResult<(Digests, String, Digests)> {
    let entries = smr_sim::registry::SYSTEMS;
    if entries.len() != built::SYSTEMS.len() {
        return Err(PyRuntimeError::new_err(format!(
            "the build read {} systems from registry.rs and the registry holds {}: rebuild the bindings",
            built::SYSTEMS.len(),
            entries.len()
        )));
    }
    let mut systems = BTreeMap::new();
    for (entry, (_, digest)) in entries.iter().zip(built::SYSTEMS) {
        for name in std::iter::once(&entry.name).chain(entry.aliases) {
            systems.insert(name.to_string(), digest.to_string());
        }
    }
    let parts = built::PARTS.iter().map(|(n, d)| (n.to_string(), d.to_string())).collect();
    Ok((systems, built::KEY_VALUE.to_string(), parts))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(m, model_fingerprints);
    Ok(())
}
