//! smrlab-arch: the module graph of each crate in the workspace, read from its source, for the
//! test (tests/workspace.rs) that fails on an import circle between a crate's top-level modules
//! and on a system of smr-sim that names another system. Dev-only: no other crate depends on it.
//!
//! `tree` finds a crate's files as rustc does, `read` lists the paths each file writes (with
//! syn), `graph` resolves them to top-level modules and finds circles. Not here: arrows between
//! crates, which Cargo itself enforces (a crate names only the crates in its Cargo.toml).

mod graph;
mod read;
mod tree;

pub use graph::{resolve, Circle, ModuleGraph};
pub use read::is_test_only;
pub use tree::{crate_files, SourceFile};

/// The module graph of the crate whose sources are in `src` (its `lib.rs` and every file a `mod`
/// reaches), or a message naming the file that could not be read.
pub fn module_graph(src: &std::path::Path) -> Result<ModuleGraph, String> {
    ModuleGraph::of(&crate_files(src)?)
}
