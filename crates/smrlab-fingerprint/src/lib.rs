//! smrlab-fingerprint: digests of the source code a simulated system's numbers come from, made
//! when the bindings are built (`crates/smrlab-py/build.rs`) so that a stored result is reused
//! only by the code that made it (python/smrlab/experiment/cells.py puts a cell's digest in its
//! key).
//!
//! A system's digest covers every crate its numbers can come from, module by module as rustc
//! compiles them (`source`): the workspace crates smr-sim depends on, read from their
//! Cargo.toml files (`deps`); smr-sim's own files outside the system folders (registry,
//! runner); the system's own folder, found from the registry (`registry`); and the external
//! crates of that closure, with their versions and checksums, from Cargo.lock (`lock`). The
//! key-value store's digest covers smr-workload's closure (smrdb and below) the same way.
//!
//! Sound: a system builds only from those crates (Cargo refuses a path to any other), a system
//! folder never names another (crates/smrlab-arch checks it), and what rustc compiles is the
//! token stream the digest reads. It over-approximates: any change of a shared crate (the
//! kernel, a trace reader, a policy another system uses) changes every system's digest, and
//! any change of a token changes it whether or not a number moves; comments, formatting,
//! doc comments and `#[cfg(test)]` code do not. Not covered: the compiler and the platform's
//! maths library (rustc and libm do not change a result the tests pin on another machine), and
//! the bindings, which hold no logic. Not here: putting the digest in a cell's key (Python).

mod deps;
mod digest;
mod lock;
mod registry;
mod source;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use digest::Digest;
pub use registry::system_modules;

/// The crate whose systems are fingerprinted one by one, and the key-value store's top crate.
pub const SIMULATOR: &str = "smr-sim";
pub const KEY_VALUE: &str = "smr-workload";

/// The fingerprints of a workspace's models.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprints {
    /// Each system module of smr-sim (`cmr`, `dmsmr`, ...) in the registry's order, once per
    /// entry it exports (`hwsr` holds HWSR and S-block), with its digest.
    pub systems: Vec<(String, String)>,
    /// The key-value store's digest (SMRDB, its workloads and what they build on).
    pub key_value: String,
    /// The digest of each part, for the record: a workspace crate, `smr-sim/MODULE` for a system
    /// folder, `smr-sim` for the rest of it, `Cargo.lock:CRATE` for a closure's external crates.
    pub parts: BTreeMap<String, String>,
    /// Every file and folder read, for the build script's `rerun-if-changed`.
    pub read: Vec<PathBuf>,
}

/// The fingerprints of the workspace at `root` (the folder holding Cargo.lock and crates/), or a
/// message naming the file that could not be read or parsed.
pub fn workspace(root: &Path) -> Result<Fingerprints, String> {
    let crates = root.join("crates");
    let lock_path = root.join("Cargo.lock");
    let lock_text = read(&lock_path)?;
    let packages = lock::packages(&lock_text);
    let mut parts = BTreeMap::new();
    let mut read_paths = vec![lock_path];

    let sim_deps = deps::closure(&crates, SIMULATOR)?;
    let kv_deps = deps::closure(&crates, KEY_VALUE)?;
    for name in sim_deps.iter().chain(&kv_deps) {
        if name != SIMULATOR && !parts.contains_key(name) {
            let digest = source::crate_digest(&crates.join(name), |_| true)?;
            parts.insert(name.clone(), digest.hex());
            read_paths.push(crates.join(name));
        }
    }

    let sim_dir = crates.join(SIMULATOR);
    read_paths.push(sim_dir.clone());
    let entries = registry::system_modules(&sim_dir.join("src").join("registry.rs"))?;
    let mut modules = entries.clone();
    modules.sort();
    modules.dedup();
    let shared = source::crate_digest(&sim_dir, |module| !modules.iter().any(|m| m == module))?;
    parts.insert(SIMULATOR.to_string(), shared.hex());
    for module in &modules {
        let own = source::module_digest(&sim_dir, module)?;
        parts.insert(format!("{SIMULATOR}/{module}"), own.hex());
    }

    let sim_lock = lock::closure_digest(&packages, &sim_deps);
    let kv_lock = lock::closure_digest(&packages, &kv_deps);
    parts.insert(format!("Cargo.lock:{SIMULATOR}"), sim_lock.hex());
    parts.insert(format!("Cargo.lock:{KEY_VALUE}"), kv_lock.hex());

    let combine = |names: &[String]| {
        let mut digest = Digest::new("smrlab model");
        for name in names {
            digest.add(name, parts[name].as_bytes());
        }
        digest.hex()
    };
    let base: Vec<String> = sim_deps.iter().filter(|n| *n != SIMULATOR).cloned().collect();
    let systems = entries
        .iter()
        .map(|module| {
            let mut names = base.clone();
            names.extend([SIMULATOR.to_string(), format!("{SIMULATOR}/{module}"), format!("Cargo.lock:{SIMULATOR}")]);
            (module.clone(), combine(&names))
        })
        .collect();
    let mut kv_names = kv_deps.clone();
    kv_names.push(format!("Cargo.lock:{KEY_VALUE}"));
    let key_value = combine(&kv_names);
    read_paths.sort();
    read_paths.dedup();
    Ok(Fingerprints { systems, key_value, parts, read: read_paths })
}

fn read(path: &Path) -> Result<String, String> {
    std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))
}
