//! Every registered system against its declared parameters: each one it declares is read when
//! given (so it is not documentation of nothing), it reads none it does not declare (the kernel
//! refuses such a read), every declaration has a unit and a default that parses, and names and
//! aliases are unique.

use std::collections::BTreeSet;

use smr_core::Params;
use smr_kernel::params::{specs, Kind, ParamSpec, NONE};
use smr_kernel::IoCtx;
use smr_sim::registry::{self, SYSTEMS};
use smr_trace::Footprint;

const GIB: u64 = 1 << 30;

/// A value to give `spec` alone: its default, or for an optional size a size (for FluidSMR's
/// partition, one that holds the 1 GiB footprint these tests build for).
fn sample(spec: &ParamSpec) -> String {
    match (spec.kind, spec.default) {
        (Kind::Size, NONE) if spec.key == "partition" => "2GiB".to_string(),
        (Kind::Size, NONE) => "1MiB".to_string(),
        _ => spec.default.to_string(),
    }
}

fn build(system: &str, params: &[String]) -> Result<(), String> {
    let mut p = Params::parse(params).map_err(|e| e.to_string())?;
    let mut ctx = IoCtx::new();
    registry::build(system, &mut p, Footprint::dense(GIB, GIB, GIB), 0, &mut ctx).map(|_| ()).map_err(|e| e.to_string())
}

#[test]
fn every_system_builds_on_its_defaults() {
    for entry in SYSTEMS {
        build(entry.name, &[]).unwrap_or_else(|e| panic!("{}: {e}", entry.name));
    }
}

#[test]
fn every_declared_parameter_is_read_when_given() {
    for entry in SYSTEMS {
        for spec in specs(entry.params) {
            let given = format!("{}={}", spec.key, sample(spec));
            build(entry.name, std::slice::from_ref(&given))
                .unwrap_or_else(|e| panic!("{} with {given}: {e}", entry.name));
        }
    }
}

#[test]
fn an_undeclared_parameter_is_refused_by_name() {
    for entry in SYSTEMS {
        let err = build(entry.name, &["no_such_parameter=1".to_string()]).unwrap_err();
        assert!(err.contains("no_such_parameter"), "{}: {err}", entry.name);
    }
}

#[test]
fn declarations_have_units_and_unique_keys_and_names() {
    let mut names = BTreeSet::new();
    for entry in SYSTEMS {
        for name in std::iter::once(&entry.name).chain(entry.aliases) {
            assert!(names.insert(*name), "{name} is registered twice");
        }
        let mut keys = BTreeSet::new();
        for spec in specs(entry.params) {
            assert!(keys.insert(spec.key), "{}: {} declared twice", entry.name, spec.key);
            assert!(!spec.kind.unit().is_empty() && !spec.help.is_empty(), "{}: {}", entry.name, spec.key);
        }
    }
}

#[test]
fn the_cache_stacks_over_any_system_but_itself() {
    for below in ["cmr", "dmsmr", "ucache"] {
        let params = [format!("below={below}"), "policy=lru".to_string(), "cache=64blocks".to_string()];
        build("cache", &params).unwrap_or_else(|e| panic!("cache over {below}: {e}"));
    }
    // Both the SSD cache and uCache declare `cache`: the lower one reads `ucache.cache`.
    let params = ["below=ucache", "policy=lru", "cache=64blocks", "ucache.cache=512MiB"].map(String::from);
    build("cache", &params).unwrap();
    let err = build("cache", &["below=ucache", "policy=lru", "ucache.cache=1KiB"].map(String::from)).unwrap_err();
    assert!(err.contains("parameter 'ucache.cache'"), "{err}");
    let err = build("cache", &["below=pore".to_string()]).unwrap_err();
    assert!(err.contains("cannot stack over itself"), "{err}");
    let err = build("cache", &["below=floppy".to_string()]).unwrap_err();
    assert!(err.contains("unknown system 'floppy'"), "{err}");
}

/// A system's policy parameters offer policies of the kernel's table only, each at most once,
/// and declare every parameter of the policies they offer: a policy is added by its file and
/// one row in `POLICIES`, and no system names one the table does not know. Fails if a system
/// lists a name the table lacks, or offers a policy without declaring its parameters.
#[test]
fn every_offered_policy_is_in_the_kernels_table() {
    let mut offered = 0;
    for system in SYSTEMS {
        for spec in specs(system.params).filter(|s| matches!(s.kind, Kind::Policy(_))) {
            let Kind::Policy(names) = spec.kind else { unreachable!() };
            for name in names {
                let entry = smr_kernel::policy::entry(name);
                assert!(entry.is_some(), "{}: policy {name} is not in kernel::policy::POLICIES", system.name);
                for param in entry.into_iter().flat_map(|e| e.params) {
                    assert!(
                        specs(system.params).any(|s| s == param),
                        "{} offers {name} but does not declare its parameter {}",
                        system.name,
                        param.key
                    );
                }
                offered += 1;
            }
        }
    }
    assert!(offered >= 9, "cache, hwsr and sblock offer nine policies between them, found {offered}");
    let names: BTreeSet<&str> = smr_kernel::policy::POLICIES.iter().map(|p| p.name).collect();
    assert_eq!(names.len(), smr_kernel::policy::POLICIES.len(), "a name twice in POLICIES");
}
