//! No import circle among smrdb's top-level modules: reads the crate's sources, resolves every
//! `crate::`, `super::` and `self::` path (in `use` lines and in code) to the top-level module
//! it names, and fails on any cycle in that graph, naming it. A file's module comes from its
//! place under src/ or from the `#[path = "..."]` attribute that includes it. Not here: paths
//! through re-exports (`pub use`) are attributed to the module they are written against.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Top-level module each path in `text` reaches, for a file that is module `module` (segments
/// below the crate root; empty for lib.rs).
fn reached(text: &str, module: &[String]) -> BTreeSet<String> {
    let code: String = text.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join("\n");
    let bytes = code.as_bytes();
    let mut found = BTreeSet::new();
    let mut i = 0;
    while i < code.len() {
        if !code.is_char_boundary(i) {
            i += 1;
            continue;
        }
        let rest = &code[i..];
        let before = if i == 0 { b' ' } else { bytes[i - 1] };
        let starts = ["crate::", "super::", "self::"].iter().any(|p| rest.starts_with(p));
        if !starts || before.is_ascii_alphanumeric() || before == b'_' || before == b':' {
            i += 1;
            continue;
        }
        let (resolved, consumed) = resolve(rest, module);
        i += consumed.max(1);
        match resolved.first() {
            Some(top) => {
                found.insert(top.clone());
            }
            None if code[i..].starts_with('{') => found.extend(group_heads(&code[i..])),
            None => {}
        }
    }
    found
}

/// Follows a path's leading `crate`, `super` and `self` segments and the names after them;
/// returns the absolute module path reached and the bytes read.
fn resolve(path: &str, module: &[String]) -> (Vec<String>, usize) {
    let mut at: Vec<String> = module.to_vec();
    let mut consumed = 0;
    for seg in path.split("::") {
        match seg {
            "crate" => at.clear(),
            "super" => {
                at.pop();
            }
            "self" => {}
            _ => {
                let name: String = seg.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !name.is_empty() && at.is_empty() {
                    at.push(name);
                }
                break;
            }
        }
        consumed += seg.len() + 2;
    }
    (at, consumed)
}

/// The first names of each entry of a `{a::b, c, d::{e}}` group.
fn group_heads(group: &str) -> Vec<String> {
    let mut heads = Vec::new();
    let mut depth = 0;
    let mut entry_start = true;
    for (i, c) in group.char_indices() {
        match c {
            '{' => {
                depth += 1;
                entry_start = depth == 1;
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            ',' if depth == 1 => entry_start = true,
            c if entry_start && depth == 1 && (c.is_alphanumeric() || c == '_') => {
                let name: String = group[i..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if name != "self" {
                    heads.push(name);
                }
                entry_start = false;
            }
            _ => {}
        }
    }
    heads
}

/// Every source file under `src` with the module it is: its place under src/, or the module a
/// `#[path = "file"] mod name;` in another file makes of it.
fn modules(src: &Path) -> BTreeMap<PathBuf, Vec<String>> {
    let mut files = Vec::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    let mut by_place: BTreeMap<PathBuf, Vec<String>> = files
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(src).unwrap().with_extension("");
            let mut segs: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
            if matches!(segs.last().map(String::as_str), Some("mod" | "lib")) {
                segs.pop();
            }
            (f.clone(), segs)
        })
        .collect();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let mut lines = text.lines();
        while let Some(line) = lines.next() {
            let Some(target) = line.trim().strip_prefix("#[path = \"").and_then(|r| r.strip_suffix("\"]")) else { continue };
            let decl = lines.by_ref().map(str::trim).find(|l| l.contains("mod ")).unwrap();
            let name = decl.trim_end_matches(';').rsplit(' ').next().unwrap().to_string();
            let mut module = by_place[f].clone();
            module.push(name);
            by_place.insert(f.parent().unwrap().join(target), module);
        }
    }
    by_place
}

/// The first cycle found in `graph`, as the modules along it.
fn cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(node: &str, graph: &BTreeMap<String, BTreeSet<String>>, path: &mut Vec<String>, done: &mut BTreeSet<String>) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|n| n == node) {
            let mut circle = path[at..].to_vec();
            circle.push(node.to_string());
            return Some(circle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(c) = visit(next, graph, path, done) {
                return Some(c);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|n| visit(n, graph, &mut Vec::new(), &mut done))
}

/// Edges between distinct top-level modules of the crate at `src`.
fn top_level_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, module) in modules(src) {
        let Some(top) = module.first() else { continue };
        let text = std::fs::read_to_string(&file).unwrap();
        let is_module = |t: &String| src.join(format!("{t}.rs")).exists() || src.join(t).join("mod.rs").exists();
        let targets = reached(&text, &module).into_iter().filter(|t| t != top && is_module(t));
        graph.entry(top.clone()).or_default().extend(targets);
    }
    graph
}

#[test]
fn no_cycle_among_top_level_modules() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let graph = top_level_graph(&src);
    // The scan sees the edges it must: the stores reach their shared state and the lock helper.
    assert!(graph["db"].contains("state") && graph["background"].contains("state") && graph["offload"].contains("util"), "{graph:?}");
    if let Some(circle) = cycle(&graph) {
        panic!("smrdb's modules import each other in a circle: {}", circle.join(" -> "));
    }
}

#[test]
fn paths_resolve_to_top_level_modules() {
    let module = |m: &str| m.split("::").map(String::from).collect::<Vec<_>>();
    let text = "use super::{Inner, unit::Unit};\nuse super::super::db::check;\nlet x = crate::env::Env::new(); // crate::not_this\nuse crate::{a::B, c};\nfn f(self) { self::g(); Self::h(); }";
    let found = reached(text, &module("offload::open"));
    assert_eq!(found, ["a", "c", "db", "env", "offload"].map(String::from).into_iter().collect());
    let at_top = reached("use super::version::Version;\nself::x::y();", &module("db"));
    assert_eq!(at_top, ["db", "version"].map(String::from).into_iter().collect());
}

#[test]
fn cycles_are_found() {
    let graph = |edges: &[(&str, &str)]| {
        let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
        }
        g
    };
    assert_eq!(cycle(&graph(&[("a", "b"), ("b", "c"), ("c", "a")])), Some(vec!["a".into(), "b".into(), "c".into(), "a".into()]));
    assert_eq!(cycle(&graph(&[("a", "b"), ("b", "c"), ("a", "c")])), None);
}
