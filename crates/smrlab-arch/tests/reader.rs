//! The module-graph reader on small crates written for the purpose: every way a path can reach
//! another module is an arrow (groups, `super::super::` from a nested module, paths in
//! expressions and in macro bodies, names the root re-exports), comments and strings are not,
//! and a circle is named.

use std::collections::BTreeSet;
use std::path::PathBuf;

use smrlab_arch::{module_graph, Circle, ModuleGraph};

/// A crate's `src` folder in a fresh temporary folder, with these files.
fn crate_with(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let src = std::env::temp_dir().join(format!("smrlab-arch-{}-{name}", std::process::id())).join("src");
    let _ = std::fs::remove_dir_all(&src);
    for (path, text) in files {
        let path = src.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    src
}

fn arrows_of(graph: &ModuleGraph, module: &str) -> BTreeSet<String> {
    graph.arrows[module].keys().cloned().collect()
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn groups_expression_paths_and_macro_bodies_are_arrows_but_comments_and_strings_are_not() {
    let src = crate_with(
        "paths",
        &[
            ("lib.rs", "pub mod a; pub mod b; pub mod c; pub mod d; pub mod e; pub mod f;"),
            (
                "a.rs",
                "use crate::{b, c::X};\n\
                 // crate::e is only mentioned in a comment\n\
                 /// and crate::e in a doc comment\n\
                 fn g() -> u64 { let s = \"crate::e::Y\"; crate::d::Z + format!(\"{}\", crate::f::W).len() as u64 }",
            ),
            ("b.rs", ""),
            ("c.rs", "pub struct X;"),
            ("d.rs", "pub const Z: u64 = 1;"),
            ("e.rs", ""),
            ("f.rs", "pub const W: u64 = 2;"),
        ],
    );
    let graph = module_graph(&src).unwrap();
    assert_eq!(arrows_of(&graph, "a"), set(&["b", "c", "d", "f"]));
    assert!(graph.circles().is_empty());
}

#[test]
fn super_super_from_a_nested_module_is_an_arrow_and_names_the_circle() {
    // The text scan this replaces saw only `crate::`; `super::super::` escaped it.
    let src = crate_with(
        "nested",
        &[
            ("lib.rs", "mod kernel; mod cache;"),
            ("kernel/mod.rs", "mod parts;"),
            ("kernel/parts.rs", "#[cfg(test)] mod tests { use super::super::super::cache::Lru; }"),
            ("cache.rs", "use crate::kernel::Thing; pub struct Lru;"),
        ],
    );
    let graph = module_graph(&src).unwrap();
    assert_eq!(arrows_of(&graph, "kernel"), set(&["cache"]));
    let cycle = vec!["cache".to_string(), "kernel".into(), "cache".into()];
    assert_eq!(graph.circles(), vec![Circle { members: vec!["cache".into(), "kernel".into()], cycle }]);
    assert!(graph.evidence("kernel", "cache").contains("super::super::super::cache::Lru"));
}

#[test]
fn a_name_the_root_re_exports_leads_to_the_module_it_comes_from() {
    let src = crate_with(
        "reexport",
        &[
            ("lib.rs", "pub mod kernel; pub mod cmr; pub use kernel::{Engine, System};"),
            ("kernel.rs", "pub struct Engine; pub trait System {}"),
            ("cmr.rs", "impl crate::System for Disk {} struct Disk;"),
        ],
    );
    assert_eq!(arrows_of(&module_graph(&src).unwrap(), "cmr"), set(&["kernel"]));
}

#[test]
fn files_are_found_as_rustc_finds_them() {
    // `a.rs` declares `mod inner;` (in `a/inner.rs`), whose inline `mod deep` declares `mod
    // leaf;` (in `a/inner/deep/leaf.rs`); `#[path]` names a file beside its declarer.
    let src = crate_with(
        "layout",
        &[
            ("lib.rs", "mod a; mod b; #[path = \"elsewhere.rs\"] mod c;"),
            ("a.rs", "mod inner;"),
            ("a/inner.rs", "mod deep { mod leaf; }"),
            ("a/inner/deep/leaf.rs", "use crate::c::Q;"),
            ("b.rs", ""),
            ("elsewhere.rs", "pub struct Q; use crate::b as _;"),
        ],
    );
    let graph = module_graph(&src).unwrap();
    assert_eq!(arrows_of(&graph, "a"), set(&["c"]));
    assert_eq!(arrows_of(&graph, "c"), set(&["b"]));
}

#[test]
fn a_missing_module_file_or_a_super_above_the_root_is_named() {
    let missing = crate_with("missing", &[("lib.rs", "mod gone;")]);
    let error = module_graph(&missing).err().unwrap();
    assert!(error.contains("mod gone;"), "{error}");
    let above = crate_with("above", &[("lib.rs", "mod a;"), ("a.rs", "use super::super::x;")]);
    let error = module_graph(&above).err().unwrap();
    assert!(error.contains("a.rs") && error.contains("super::super::x"), "{error}");
}

#[test]
fn a_circle_lists_every_module_in_it_not_only_the_shortest_cycle() {
    // a <-> b is the shortest cycle through a; c joins the circle through a -> c -> b -> a.
    let src = crate_with(
        "members",
        &[
            ("lib.rs", "mod a; mod b; mod c; mod d;"),
            ("a.rs", "use crate::b::X; use crate::c::Y;"),
            ("b.rs", "use crate::a::Z; pub struct X;"),
            ("c.rs", "use crate::b::X; use crate::d::W; pub struct Y;"),
            ("d.rs", "pub struct W;"),
        ],
    );
    let circles = module_graph(&src).unwrap().circles();
    assert_eq!(circles.len(), 1);
    assert_eq!(circles[0].members, ["a", "b", "c"]);
    assert_eq!(circles[0].cycle, ["a", "b", "a"]);
}
