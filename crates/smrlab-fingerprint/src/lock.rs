//! The external crates a closure of workspace crates is built from, read from Cargo.lock: each
//! `[[package]]` reached from the closure through `dependencies`, with its version, source and
//! checksum. A version bump of a crate a system uses (a random-number generator's streams, say)
//! changes that system's digest; one used only by the bindings, the store or the benchmarks
//! does not. Not here: the workspace crates' own source (`source`).

use std::collections::{BTreeMap, BTreeSet};

use crate::digest::Digest;

/// One `[[package]]` of Cargo.lock: its lines as written, and the names of its dependencies.
pub struct Package {
    pub lines: Vec<String>,
    pub dependencies: Vec<String>,
}

/// Every package of a Cargo.lock, by name (a name locked at two versions holds both).
pub fn packages(lock: &str) -> BTreeMap<String, Vec<Package>> {
    let mut found: BTreeMap<String, Vec<Package>> = BTreeMap::new();
    for block in lock.split("[[package]]").skip(1) {
        let lines: Vec<String> = block.lines().map(str::trim).filter(|l| !l.is_empty()).map(String::from).collect();
        let name = lines.iter().find_map(|l| l.strip_prefix("name = ")).map(|n| n.trim_matches('"').to_string());
        let Some(name) = name else { continue };
        let dependencies = match block.find("dependencies = [") {
            Some(start) => {
                let list = &block[start + "dependencies = [".len()..];
                let list = &list[..list.find(']').unwrap_or(list.len())];
                // `"rand 0.8.5"` or `"rand 0.8.5 (registry+...)"`: the name is the first word.
                list.split(',')
                    .filter_map(|item| item.trim().trim_matches('"').split_whitespace().next().map(String::from))
                    .collect()
            }
            None => Vec::new(),
        };
        found.entry(name).or_default().push(Package { lines, dependencies });
    }
    found
}

/// The digest of the packages reached from `roots` (workspace crates), the roots' own entries
/// left out (their source is digested apart).
pub fn closure_digest(packages: &BTreeMap<String, Vec<Package>>, roots: &[String]) -> Digest {
    let mut reached = BTreeSet::new();
    let mut pending: Vec<String> = roots.to_vec();
    while let Some(name) = pending.pop() {
        if !reached.insert(name.clone()) {
            continue;
        }
        for package in packages.get(&name).into_iter().flatten() {
            pending.extend(package.dependencies.iter().cloned());
        }
    }
    let mut digest = Digest::new("Cargo.lock closure");
    for name in reached.iter().filter(|n| !roots.contains(n)) {
        for package in packages.get(name).into_iter().flatten() {
            digest.add(name, package.lines.join("\n").as_bytes());
        }
    }
    digest
}

#[cfg(test)]
mod tests {
    use super::{closure_digest, packages};

    const LOCK: &str = r#"
version = 4

[[package]]
name = "a"
version = "0.1.0"
dependencies = [
 "b",
 "rand 0.8.5",
]

[[package]]
name = "b"
version = "0.1.0"

[[package]]
name = "rand"
version = "0.8.5"
source = "registry+https://github.com/rust-lang/crates.io-index"
checksum = "11"

[[package]]
name = "tokio"
version = "1.0.0"
"#;

    fn digest_of(lock: &str, roots: &[&str]) -> String {
        let roots: Vec<String> = roots.iter().map(|s| s.to_string()).collect();
        closure_digest(&packages(lock), &roots).hex()
    }

    #[test]
    fn a_version_in_the_closure_counts_and_one_outside_does_not() {
        let base = digest_of(LOCK, &["a", "b"]);
        assert_ne!(base, digest_of(&LOCK.replace("0.8.5", "0.8.6"), &["a", "b"]));
        assert_ne!(base, digest_of(&LOCK.replace("checksum = \"11\"", "checksum = \"12\""), &["a", "b"]));
        assert_eq!(base, digest_of(&LOCK.replace("1.0.0", "1.0.1"), &["a", "b"]));
        // The roots' own entries are their source's business.
        assert_eq!(
            base,
            digest_of(
                &LOCK.replace("name = \"a\"\nversion = \"0.1.0\"", "name = \"a\"\nversion = \"0.2.0\""),
                &["a", "b"]
            )
        );
    }
}
