//! The fingerprints of the real workspace (one digest per registered system module), and of a
//! small made-up workspace edited one way at a time: a change in one system's folder changes
//! that system's digest and no other; a comment, a doc comment or a test changes nothing; a
//! change in the kernel changes every system's and not the store's; one in the store, or in a
//! locked crate only the store uses, changes the store's only.

use std::path::{Path, PathBuf};

use smrlab_fingerprint::{workspace, Fingerprints};

#[test]
fn the_workspace_has_one_digest_per_registered_system_module() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let found = workspace(&root).unwrap_or_else(|e| panic!("{e}"));
    let modules: Vec<&str> = found.systems.iter().map(|(m, _)| m.as_str()).collect();
    for module in ["cmr", "dmsmr", "cache", "hostmanaged", "hwsr", "fluid"] {
        assert!(modules.contains(&module), "{module} in {modules:?}");
    }
    for (a, da) in &found.systems {
        for (b, db) in &found.systems {
            assert_eq!(a == b, da == db, "{a} and {b}: one digest per module");
        }
    }
    for part in ["smr-core", "smr-trace", "smr-media", "smr-zoned", "smr-kernel", "smr-sim", "smrdb", "smr-workload"] {
        assert!(found.parts.contains_key(part), "{part} in {:?}", found.parts.keys());
    }
    assert!(!found.parts.contains_key("smrlab-py") && !found.parts.contains_key("smrlab-arch"));
}

const LOCK: &str =
    "version = 4\n\n[[package]]\nname = \"smr-kernel\"\nversion = \"0.1.0\"\ndependencies = [\n \"rand\",\n]\n\n\
                    [[package]]\nname = \"rand\"\nversion = \"0.8.5\"\n\n\
                    [[package]]\nname = \"smrdb\"\nversion = \"0.1.0\"\ndependencies = [\n \"crc32fast\",\n]\n\n\
                    [[package]]\nname = \"crc32fast\"\nversion = \"1.5.0\"\n";

/// A workspace of four crates: a kernel, smr-sim with two systems (`one`, and `two` holding two
/// entries), and a store under its workloads.
fn made_up(root: &Path) {
    let _ = std::fs::remove_dir_all(root);
    let files: &[(&str, &str)] = &[
        ("Cargo.lock", LOCK),
        ("crates/smr-kernel/Cargo.toml", "[package]\nname = \"smr-kernel\"\n\n[dependencies]\nrand = \"0.8\"\n"),
        ("crates/smr-kernel/src/lib.rs", "//! The kernel.\n\npub struct Entry;\n\n#[cfg(test)]\nmod tests;\n"),
        ("crates/smr-kernel/src/tests.rs", "#[test]\nfn t() {}\n"),
        (
            "crates/smr-sim/Cargo.toml",
            "[package]\nname = \"smr-sim\"\n\n[dependencies]\nsmr-kernel.workspace = true\n\n\
             [dev-dependencies]\nsmrdb.workspace = true\n",
        ),
        ("crates/smr-sim/src/lib.rs", "pub mod registry;\npub mod one;\npub mod two;\n"),
        (
            "crates/smr-sim/src/registry.rs",
            "use smr_kernel::Entry;\n\npub const SYSTEMS: &[&Entry] = &[&crate::one::ENTRY, &crate::two::A, &crate::two::B];\n",
        ),
        ("crates/smr-sim/src/one.rs", "pub const ENTRY: smr_kernel::Entry = smr_kernel::Entry;\n"),
        ("crates/smr-sim/src/two/mod.rs", "mod part;\npub use part::{A, B};\n"),
        ("crates/smr-sim/src/two/part.rs", "pub const A: smr_kernel::Entry = smr_kernel::Entry;\npub const B: smr_kernel::Entry = smr_kernel::Entry;\n"),
        ("crates/smrdb/Cargo.toml", "[package]\nname = \"smrdb\"\n\n[dependencies]\ncrc32fast = \"1\"\n"),
        ("crates/smrdb/src/lib.rs", "pub fn put() {}\n"),
        ("crates/smr-workload/Cargo.toml", "[package]\nname = \"smr-workload\"\n\n[dependencies]\nsmrdb = { path = \"../smrdb\" }\n"),
        ("crates/smr-workload/src/lib.rs", "pub fn run() {}\n"),
    ];
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("made");
        std::fs::write(path, text).expect("written");
    }
}

fn edit(root: &Path, path: &str, change: impl Fn(String) -> String) {
    let path = root.join(path);
    let text = std::fs::read_to_string(&path).expect("readable");
    std::fs::write(path, change(text)).expect("writable");
}

/// Which systems' digests differ between `a` and `b` (one module per entry, in order), and
/// whether the store's does.
fn changed(a: &Fingerprints, b: &Fingerprints) -> (Vec<String>, bool) {
    let systems = a.systems.iter().zip(&b.systems).filter(|(x, y)| x.1 != y.1).map(|(x, _)| x.0.clone()).collect();
    (systems, a.key_value != b.key_value)
}

#[test]
fn an_edit_changes_the_digests_of_the_code_it_is_in() {
    let root: PathBuf = std::env::temp_dir().join(format!("smrlab-fingerprint-{}", std::process::id()));
    made_up(&root);
    let before = workspace(&root).unwrap_or_else(|e| panic!("{e}"));
    let modules: Vec<&str> = before.systems.iter().map(|(m, _)| m.as_str()).collect();
    assert_eq!(modules, ["one", "two", "two"]);
    assert_ne!(before.systems[0].1, before.systems[1].1);

    // Comments, doc comments and tests in the kernel, formatting in a system: nothing.
    edit(&root, "crates/smr-kernel/src/lib.rs", |t| {
        t.replace("//! The kernel.", "//! The kernel, said again.\n// a note")
    });
    edit(&root, "crates/smr-kernel/src/tests.rs", |t| t.replace("fn t() {}", "fn t() { assert!(true) }"));
    edit(&root, "crates/smr-sim/src/one.rs", |t| t.replace(" = ", "  =  "));
    let same = workspace(&root).expect("the made-up workspace");
    assert_eq!(changed(&before, &same), (vec![], false));

    // Code in one system's folder: that system only (both entries of `two`).
    edit(&root, "crates/smr-sim/src/two/part.rs", |t| format!("{t}const C: u8 = 1;\n"));
    let two = workspace(&root).expect("the made-up workspace");
    assert_eq!(changed(&same, &two), (vec!["two".to_string(), "two".to_string()], false));

    // The kernel, or a crate it locks: every system, not the store.
    edit(&root, "crates/smr-kernel/src/lib.rs", |t| format!("{t}pub const X: u8 = 1;\n"));
    let kernel = workspace(&root).expect("the made-up workspace");
    assert_eq!(changed(&two, &kernel).0.len(), 3);
    assert!(!changed(&two, &kernel).1);
    edit(&root, "Cargo.lock", |t| t.replace("0.8.5", "0.8.6"));
    let rand = workspace(&root).expect("the made-up workspace");
    assert_eq!(changed(&kernel, &rand), (vec!["one".to_string(), "two".to_string(), "two".to_string()], false));

    // The store, or a crate only it locks: the store only.
    edit(&root, "crates/smrdb/src/lib.rs", |t| t.replace("{}", "{ let _ = 1; }"));
    let store = workspace(&root).expect("the made-up workspace");
    assert_eq!(changed(&rand, &store), (vec![], true));
    edit(&root, "Cargo.lock", |t| t.replace("1.5.0", "1.5.1"));
    assert_eq!(changed(&store, &workspace(&root).expect("the made-up workspace")), (vec![], true));
    let _ = std::fs::remove_dir_all(&root);
}
