//! Every system smrlab simulates, in the order `smrlab sim --help` lists them, building one by
//! name, and the parameters one reads (`resolve`): the one place a front's `KEY=VALUE` strings
//! are split, checked against the declarations of the system and of every system it stacks
//! over, and resolved to their values, given or default, before any trace is read.
//!
//! Adding a system is adding its folder (or file) and one line in `SYSTEMS`. The registry
//! depends on the systems and the kernel; nothing depends on it but the runner and the
//! bindings. Not here: the systems themselves, or how they are built (`kernel::build`).

use std::collections::BTreeMap;

use smr_core::names::{did_you_mean, nearest};
use smr_core::param_spec::specs;
use smr_core::{params, quote, Kind, ParamError, ParamList, ParamSpec, Params};
use smr_trace::Footprint;

use smr_kernel::{BuildContext, IoCtx, SimError, System, SystemEntry};

/// Every system.
pub const SYSTEMS: &[&SystemEntry] = &[
    &crate::cmr::ENTRY,
    &crate::dmsmr::ENTRY,
    &crate::dmsmr::estimate::ENTRY,
    &crate::cache::ENTRY,
    &crate::hostmanaged::UCACHE,
    &crate::hostmanaged::EREGION,
    &crate::hostmanaged::ZONEMAP,
    &crate::hwsr::HWSR,
    &crate::hwsr::SBLOCK,
    &crate::fluid::ENTRY,
];

/// The entry of the system called `name` or answering to it as an alias.
pub fn entry(name: &str) -> Option<&'static SystemEntry> {
    SYSTEMS.iter().copied().find(|e| e.answers_to(name))
}

/// Builds system `name` (or an alias) on the media of `ctx`; a parameter that no part of the
/// system read is an error naming it.
pub fn build(
    name: &str,
    params: &mut Params,
    footprint: Footprint,
    seed: u64,
    ctx: &mut IoCtx,
) -> Result<Box<dyn System>, SimError> {
    let system = BuildContext::new(params, footprint, seed, ctx, SYSTEMS).build(name)?;
    params.finish()?;
    Ok(system)
}

/// One parameter a system reads, resolved: the key it is given under (`KEY`, or `NAME.KEY` for a
/// system stacked under one that declares the same key), its value (as given, or its default)
/// and its declaration.
#[derive(Clone, Debug)]
pub struct Resolved {
    pub key: String,
    pub value: String,
    pub given: bool,
    pub spec: &'static ParamSpec,
}

/// The entry of system `name`, or an error naming it and the nearest system names.
pub fn named(name: &str, param: &str) -> Result<&'static SystemEntry, ParamError> {
    entry(name).ok_or_else(|| {
        let names: Vec<&str> =
            SYSTEMS.iter().map(|e| e.name).chain(SYSTEMS.iter().flat_map(|e| e.aliases.iter().copied())).collect();
        let close = nearest(name, names.iter().copied(), 3);
        ParamError {
            message: format!("{} is not a system{} (systems: {})", quote(name), did_you_mean(&close), names.join(", ")),
            nearest: close,
            ..ParamError::new(param, "")
        }
    })
}

/// Every parameter system `name` reads given the values in `given` (which choose the systems it
/// stacks over), each under the key it is read by and with its declaration, in reading order:
/// the rule of `ParamReader::key` and `BuildContext::build`, walked without building.
pub fn declared(name: &str, given: &BTreeMap<String, String>) -> Result<Vec<(String, &'static ParamSpec)>, ParamError> {
    Ok(walked(name, given)?.0)
}

/// The systems `name` builds given the values in `given`: itself, then each it stacks over,
/// outermost first.
pub fn stack(name: &str, given: &BTreeMap<String, String>) -> Result<Vec<&'static str>, ParamError> {
    Ok(walked(name, given)?.1)
}

/// What `declared` and `stack` return, from one walk.
fn walked(name: &str, given: &BTreeMap<String, String>) -> Result<Declared, ParamError> {
    let (mut out, mut built) = (Vec::new(), Vec::new());
    walk(named(name, "system")?, given, &mut Vec::new(), &mut built, &mut out)?;
    Ok((out, built))
}

type Declared = (Vec<(String, &'static ParamSpec)>, Vec<&'static str>);

/// Walks `entry` and the systems below it; `built` gathers every system reached, outermost first.
fn walk(
    entry: &'static SystemEntry,
    given: &BTreeMap<String, String>,
    above: &mut Vec<ParamList>,
    built: &mut Vec<&'static str>,
    out: &mut Vec<(String, &'static ParamSpec)>,
) -> Result<(), ParamError> {
    built.push(entry.name);
    for spec in specs(entry.params) {
        let key = if !spec.shared && above.iter().any(|list| specs(list).any(|s| s.key == spec.key)) {
            format!("{}.{}", entry.name, spec.key)
        } else {
            spec.key.to_string()
        };
        if out.iter().any(|(k, _)| *k == key) {
            continue;
        }
        out.push((key.clone(), spec));
        if spec.kind == Kind::System {
            let lower = named(given.get(&key).map_or(spec.default, String::as_str), &key)?;
            if built.contains(&lower.name) {
                return Err(ParamError::new(key, format!("{} cannot stack over itself", lower.name)));
            }
            above.push(entry.params);
            walk(lower, given, above, built, out)?;
            above.pop();
        }
    }
    Ok(())
}

/// The `KEY=VALUE` strings `pairs` (from any front: the command line, an experiment file, the
/// API's keywords) as system `name` reads them: every parameter it and the systems below it
/// declare, with the value given or its default. One error for the first thing wrong, naming
/// it: an argument that is not `KEY=VALUE`, a key no part of the system reads (with the nearest
/// declared keys), or a value its kind refuses (with the parameter's unit and range). A value
/// that depends on the trace (a share of its footprint) is judged when the system is built.
pub fn resolve<S: AsRef<str>>(name: &str, pairs: &[S]) -> Result<Vec<Resolved>, ParamError> {
    resolve_pairs(name, &params::split(pairs)?)
}

/// `resolve` of pairs already split (`smr_core::params::split`).
pub fn resolve_pairs(name: &str, pairs: &[(String, String)]) -> Result<Vec<Resolved>, ParamError> {
    let given: BTreeMap<String, String> = pairs.iter().cloned().collect();
    let declared = declared(name, &given)?;
    let system = named(name, "system")?.name;
    for key in given.keys() {
        if !declared.iter().any(|(k, _)| k == key) {
            let close = nearest(key, declared.iter().map(|(k, _)| k.as_str()), 3);
            let message = format!(
                "{system} reads no such parameter{}; `smrlab sim --system {system} --help` lists those it reads",
                did_you_mean(&close)
            );
            return Err(ParamError { nearest: close, ..ParamError::new(key.clone(), message) });
        }
    }
    declared
        .into_iter()
        .map(|(key, spec)| match given.get(&key) {
            None => Ok(Resolved { value: spec.default.to_string(), key, given: false, spec }),
            Some(value) => match spec.check(value) {
                Ok(()) => Ok(Resolved { value: value.clone(), key, given: true, spec }),
                Err(why) => {
                    let unit = spec.unit();
                    Err(ParamError {
                        unit: Some(unit.clone()),
                        ..ParamError::new(key.clone(), format!("{why} (takes {unit})"))
                    })
                }
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stack_reads_its_own_keys_and_those_of_what_it_stacks_over() {
        let keys = |system: &str, pairs: &[&str]| -> Vec<String> {
            resolve(system, pairs).unwrap().into_iter().map(|r| r.key).collect()
        };
        let cache = keys("cache", &[]);
        assert!(
            cache.contains(&"zone".to_string()) && cache.contains(&"band_min".to_string()),
            "dmsmr below by default"
        );
        assert_eq!(cache.iter().filter(|k| k.as_str() == "geometry_scale").count(), 1, "shared, read once");
        let over_ucache = keys("cache", &["below=ucache"]);
        assert!(over_ucache.contains(&"ucache.cache".to_string()), "a key both declare is the lower's as NAME.KEY");
        let over_cmr = keys("pore", &["below=cmr"]);
        assert!(!over_cmr.contains(&"band_min".to_string()) && over_cmr.contains(&"disk".to_string()));
        let resolved = resolve("dmsmr", &["buffer=1/64"]).unwrap();
        let buffer = resolved.iter().find(|r| r.key == "buffer").unwrap();
        assert!(buffer.given && buffer.value == "1/64");
        assert!(resolved.iter().any(|r| r.key == "band_min" && !r.given && r.value == "17MB"));
        let over = |below: &str| BTreeMap::from([("below".to_string(), below.to_string())]);
        assert_eq!(stack("pore", &over("cmr")).unwrap(), ["cache", "cmr"]);
        assert_eq!(stack("dmsmr", &BTreeMap::new()).unwrap(), ["dmsmr"]);
    }

    #[test]
    fn what_is_wrong_is_named_with_the_nearest_names_or_the_unit() {
        let err = resolve("dmsmr", &["bufer=1/64"]).unwrap_err();
        assert_eq!((err.param.as_str(), err.nearest.first().map(String::as_str)), ("bufer", Some("buffer")));
        assert!(err.message.contains("dmsmr reads no such parameter (did you mean 'buffer'?)"), "{err}");
        let err = resolve("dmsmr", &["band_min=abc"]).unwrap_err();
        assert_eq!(err.param, "band_min");
        assert_eq!(err.unit.as_deref(), Some("bytes"));
        assert!(err.to_string().contains("(takes bytes)"), "{err}");
        for bad in ["foo", "=1", "a==b", " "] {
            assert_eq!(resolve("cmr", &[bad]).unwrap_err().param, bad);
        }
        assert!(resolve("cache", &["below=dmsrm"]).unwrap_err().message.contains("did you mean 'dmsmr'"));
        assert!(resolve("cache", &["below=cache"]).unwrap_err().message.contains("stack over itself"));
        assert!(resolve("cahce", &[] as &[&str]).unwrap_err().message.contains("did you mean 'cache'"));
        assert!(resolve("dmsmr", &["geometry_scale=0"]).unwrap_err().message.contains("above 0"));
        assert!(resolve("dmsmr", &["band_size=none", "idle_clean=yes"]).is_ok());
    }
}
