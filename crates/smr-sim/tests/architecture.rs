//! The dependency arrows of smr-sim, checked from its source: the kernel names no system, no
//! system names another, and the top-level modules form no cycle. A `crate::NAME` path (or a
//! `use crate::{...}` group) in a file under `src/NAME/` or `src/NAME.rs` is an arrow from that
//! file's top-level module to `NAME`; comments are ignored, test code is not.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The system modules: each may reach the kernel only.
const SYSTEMS: &[&str] = &["cmr", "dmsmr", "cache", "hostmanaged", "hwsr", "fluid"];

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).expect("src is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// The top-level module a file under `src` belongs to (`lib` for lib.rs).
fn module_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).expect("under src");
    let first = relative.components().next().expect("a path").as_os_str().to_string_lossy().into_owned();
    first.trim_end_matches(".rs").to_string()
}

/// The modules a source text names through `crate::`.
fn referenced(text: &str) -> BTreeSet<String> {
    let code: String = text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let mut names = BTreeSet::new();
    let ident = |s: &str| s.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect::<String>();
    for (at, _) in code.match_indices("crate::") {
        let rest = code[at + "crate::".len()..].trim_start();
        if let Some(group) = rest.strip_prefix('{') {
            let inner = &group[..group.find('}').unwrap_or(group.len())];
            names.extend(inner.split(',').map(|part| ident(part.trim())).filter(|n| !n.is_empty()));
        } else {
            names.insert(ident(rest));
        }
    }
    names
}

fn arrows() -> BTreeMap<String, BTreeSet<String>> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in rust_files(&src) {
        let module = module_of(&src, &file);
        let text = std::fs::read_to_string(&file).expect("readable source");
        let targets: Vec<String> = referenced(&text).into_iter().filter(|t| *t != module).collect();
        graph.entry(module).or_default().extend(targets);
    }
    graph
}

#[test]
fn the_kernel_names_no_system_and_systems_name_only_the_kernel() {
    let graph = arrows();
    let kernel = &graph["kernel"];
    assert!(kernel.is_empty(), "the kernel reaches {kernel:?}");
    for system in SYSTEMS {
        let reached: Vec<&String> = graph[*system].iter().filter(|t| t.as_str() != "kernel").collect();
        assert!(reached.is_empty(), "{system} reaches {reached:?}: a system may reach the kernel only");
    }
    let modules: BTreeSet<&str> = graph.keys().map(String::as_str).collect();
    let known: BTreeSet<&str> = SYSTEMS.iter().copied().chain(["kernel", "registry", "runner", "lib"]).collect();
    assert_eq!(modules, known, "a new top-level module: list it here as a system or a layer");
}

#[test]
fn top_level_modules_form_no_cycle() {
    let graph = arrows();
    // Depth-first search for a back edge.
    fn visit<'a>(node: &'a str, graph: &'a BTreeMap<String, BTreeSet<String>>, path: &mut Vec<&'a str>, done: &mut BTreeSet<&'a str>) {
        if done.contains(node) {
            return;
        }
        assert!(!path.contains(&node), "import cycle: {} -> {node}", path.join(" -> "));
        path.push(node);
        for next in graph.get(node).into_iter().flatten() {
            visit(next, graph, path, done);
        }
        path.pop();
        done.insert(node);
    }
    let mut done = BTreeSet::new();
    for node in graph.keys().filter(|n| n.as_str() != "lib") {
        visit(node, &graph, &mut Vec::new(), &mut done);
    }
}

#[test]
fn the_reader_sees_groups_and_paths_but_not_comments() {
    let text = "use crate::kernel::{A, B};\nuse crate::{cache, dmsmr::X};\n// crate::registry is not named here\nlet x = crate::cmr::ENTRY;";
    let names: Vec<String> = referenced(text).into_iter().collect();
    assert_eq!(names, ["cache", "cmr", "dmsmr", "kernel"]);
}
