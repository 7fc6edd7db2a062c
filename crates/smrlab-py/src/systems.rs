//! Documentation of the simulated systems and their parameters, and of the trace synthesizer's
//! (the arrival processes' are `workload::arrival_params`),
//! for `smrlab sim --help`, `smrlab trace synth --help` and for the Python front, which reads
//! every parameter's name, default, unit, kind and choices from the Rust declarations instead of
//! copying them.

use pyo3::prelude::*;
use smr_core::param_spec::{specs, Kind, ParamList, ParamSpec};

/// One parameter as Python sees it: (key, default, unit, help, open, kind, choices): `open` the
/// reason for the default of an open choice (a value the paper does not state), else None;
/// `kind` the name of its `Kind` (size, share, choice, ...), which fixes how the command line
/// checks a value; `choices` the words of a choice, or the native names a policy offers.
pub(crate) type ParamTuple = (String, String, String, String, Option<String>, &'static str, Option<Vec<String>>);

fn param_tuple(p: &ParamSpec) -> ParamTuple {
    let choices = match p.kind {
        Kind::Choice(words) | Kind::Policy(words) => Some(words.iter().map(|w| w.to_string()).collect()),
        _ => None,
    };
    (p.key.into(), p.default.into(), p.unit(), p.help.into(), p.open.map(String::from), p.kind.name(), choices)
}

/// Every declaration of `list` as Python sees it.
pub(crate) fn param_tuples(list: ParamList) -> Vec<ParamTuple> {
    specs(list).map(param_tuple).collect()
}

/// `[(name, summary, [(key, default, unit, help, open, kind, choices), ...]), ...]` for every system.
#[pyfunction]
fn systems() -> Vec<(String, String, Vec<ParamTuple>)> {
    smr_sim::registry::SYSTEMS.iter().map(|e| (e.name.into(), e.summary.into(), param_tuples(e.params))).collect()
}

/// `[(key, default, unit, help, open, kind, choices), ...]`: the trace synthesizer's parameters.
#[pyfunction]
fn synth_params() -> Vec<ParamTuple> {
    param_tuples(smr_trace::synth::PARAMS)
}

/// Every name `smrlab sim --system` accepts: the systems, then their aliases.
#[pyfunction]
fn system_names() -> Vec<String> {
    let names = smr_sim::registry::SYSTEMS.iter().map(|e| e.name.to_string());
    names.chain(smr_sim::registry::SYSTEMS.iter().flat_map(|e| e.aliases.iter().map(|a| a.to_string()))).collect()
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(m, systems, synth_params, system_names);
    Ok(())
}
