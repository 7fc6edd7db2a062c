//! Computes the model's fingerprint (`smrlab_fingerprint`) from the workspace's source and hands
//! it to `src/fingerprint.rs` as constants; Cargo runs it again whenever a file it read changes.

use std::path::Path;

fn main() {
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("Cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("../..");
    let found = smrlab_fingerprint::workspace(&root).unwrap_or_else(|e| panic!("the model's fingerprint: {e}"));
    for path in &found.read {
        println!("cargo:rerun-if-changed={}", path.display());
    }
    let systems: Vec<String> = found.systems.iter().map(|(m, d)| format!("({m:?}, {d:?})")).collect();
    let parts: Vec<String> = found.parts.iter().map(|(n, d)| format!("({n:?}, {d:?})")).collect();
    let code = format!(
        "/// Each entry of smr-sim's registry, in order: its module and the digest of its model.\n\
         pub const SYSTEMS: &[(&str, &str)] = &[{}];\n\
         /// The key-value store's digest.\n\
         pub const KEY_VALUE: &str = {:?};\n\
         /// The digest of each part.\n\
         pub const PARTS: &[(&str, &str)] = &[{}];\n",
        systems.join(", "),
        found.key_value,
        parts.join(", ")
    );
    let out = Path::new(&std::env::var("OUT_DIR").expect("Cargo sets OUT_DIR")).join("fingerprint.rs");
    std::fs::write(&out, code).unwrap_or_else(|e| panic!("{}: {e}", out.display()));
}
