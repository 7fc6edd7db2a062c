//! Which workspace crates a crate is built from: the crates under `crates/` its Cargo.toml names
//! in `[dependencies]` (as `NAME.workspace = true`, `NAME = { workspace = true }` or
//! `NAME = { path = ... }`), and theirs, and so on. Development and build dependencies do not
//! make its numbers and are left out. Not here: external crates (`lock`).

use std::collections::BTreeSet;
use std::path::Path;

/// `name` and every workspace crate it depends on, directly or not, sorted.
pub fn closure(crates: &Path, name: &str) -> Result<Vec<String>, String> {
    let mut found = BTreeSet::new();
    let mut pending = vec![name.to_string()];
    while let Some(next) = pending.pop() {
        if !found.insert(next.clone()) {
            continue;
        }
        let manifest = crates.join(&next).join("Cargo.toml");
        let text = std::fs::read_to_string(&manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
        pending.extend(direct(&text).into_iter().filter(|dep| crates.join(dep).join("Cargo.toml").is_file()));
    }
    Ok(found.into_iter().collect())
}

/// The names a manifest's `[dependencies]` table lists.
fn direct(manifest: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut inside = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            inside = line == "[dependencies]";
            continue;
        }
        if !inside || line.is_empty() || line.starts_with('#') {
            continue;
        }
        let key = line.split(['=', '.']).next().unwrap_or("").trim().trim_matches('"');
        if !key.is_empty() {
            names.push(key.to_string());
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::direct;

    #[test]
    fn only_the_dependencies_table_counts() {
        let manifest = "[package]\nname = \"x\"\n\n[dependencies]\n# a comment\nsmr-core.workspace = true\n\
                        serde = { workspace = true }\n\"smr-media\" = { path = \"../smr-media\" }\n\n\
                        [dev-dependencies]\nproptest.workspace = true\n";
        assert_eq!(direct(manifest), ["smr-core", "serde", "smr-media"]);
    }
}
