//! The arrows of every crate in the workspace (each `crates/*/src/lib.rs` and the files its
//! modules reach), checked from the source: no crate's top-level modules form a circle, and no
//! system of smr-sim names another system. That the kernel names no system Cargo checks itself
//! (smr-kernel does not depend on smr-sim). The systems are read from smr-sim's registry (the
//! parser the fingerprint uses), so a new system needs no line here.

use std::path::{Path, PathBuf};

use smrlab_arch::{module_graph, ModuleGraph};

/// smr-sim's other top-level modules: they list, run and serve the systems (`device`: one at a time, to a prober).
const SIM_LAYERS: &[&str] = &["registry", "runner", "device"];

fn workspace_crates() -> Vec<(String, PathBuf)> {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("crates/").to_path_buf();
    let mut found: Vec<(String, PathBuf)> = std::fs::read_dir(&crates)
        .expect("crates/ is readable")
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|dir| dir.join("src/lib.rs").is_file())
        .map(|dir| (dir.file_name().expect("a name").to_string_lossy().into_owned(), dir.join("src")))
        .collect();
    found.sort();
    found
}

/// The system modules of smr-sim, each once, as its registry's `SYSTEMS` list names them: each
/// may reach the kernel (its own crate) only.
fn systems() -> Vec<String> {
    let (_, src) = workspace_crates().into_iter().find(|(n, _)| n == "smr-sim").expect("crates/smr-sim exists");
    let mut modules = smrlab_fingerprint::system_modules(&src.join("registry.rs")).unwrap_or_else(|e| panic!("{e}"));
    modules.sort_unstable();
    modules.dedup();
    modules
}

fn graph_of(name: &str) -> ModuleGraph {
    let (_, src) =
        workspace_crates().into_iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("crates/{name} exists"));
    module_graph(&src).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn no_crate_has_an_import_circle_between_its_top_level_modules() {
    let crates = workspace_crates();
    assert!(crates.len() >= 8, "the walk finds the workspace's crates: {crates:?}");
    let mut found = Vec::new();
    for (name, src) in &crates {
        let graph = module_graph(src).unwrap_or_else(|e| panic!("{e}"));
        for circle in graph.circles() {
            let steps: Vec<String> = circle
                .cycle
                .windows(2)
                .map(|pair| format!("  {} -> {} ({})", pair[0], pair[1], graph.evidence(&pair[0], &pair[1])))
                .collect();
            found.push(format!(
                "{name}: {} reach one another, e.g. {}\n{}",
                circle.members.join(", "),
                circle.cycle.join(" -> "),
                steps.join("\n")
            ));
        }
    }
    assert!(found.is_empty(), "import circles between top-level modules:\n{}", found.join("\n"));
}

#[test]
fn no_system_of_smr_sim_names_another() {
    let graph = graph_of("smr-sim");
    let modules: Vec<&str> = graph.arrows.keys().map(String::as_str).collect();
    let systems = systems();
    assert!(systems.len() >= 6, "the registry names the systems' modules: {systems:?}");
    let mut known: Vec<&str> = systems.iter().map(String::as_str).chain(SIM_LAYERS.iter().copied()).collect();
    known.sort_unstable();
    assert_eq!(
        modules, known,
        "a new top-level module of smr-sim that is not a system of its registry: list it here as a layer"
    );
    for system in &systems {
        let reached: Vec<String> =
            graph.arrows[system.as_str()].iter().map(|(to, evidence)| format!("{to} ({evidence})")).collect();
        assert!(reached.is_empty(), "{system} reaches {reached:?}: a system may reach the kernel (smr_kernel) only");
    }
}
