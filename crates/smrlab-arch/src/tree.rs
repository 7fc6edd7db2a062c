//! The files of a crate's module tree, found as rustc finds them: from `src/lib.rs`, each
//! `mod NAME;` in `NAME.rs` or `NAME/mod.rs` beside its parent (in the parent's own folder when
//! the parent is not a `mod.rs` or `lib.rs`), or where its `#[path]` says. A file no `mod`
//! reaches is not part of the crate and is not read. Not here: what the files say (`read`).

use std::path::{Path, PathBuf};

use crate::read::{read, FileFacts};

/// One file of the tree, what it says, and where it is (for messages).
pub struct SourceFile {
    pub path: PathBuf,
    /// Its module path (empty for `lib.rs`).
    pub module: Vec<String>,
    /// Whether it is compiled for tests only (its `mod`, or one above it, is `#[cfg(test)]`).
    pub test_only: bool,
    pub facts: FileFacts,
    /// The file as syn parsed it.
    pub syntax: syn::File,
}

/// Every file of the module tree rooted at `src/lib.rs`, or a message naming the file that could
/// not be read or parsed.
pub fn crate_files(src: &Path) -> Result<Vec<SourceFile>, String> {
    let mut files = Vec::new();
    let mut pending = vec![(src.join("lib.rs"), Vec::new(), false)];
    while let Some((path, module, test_only)) = pending.pop() {
        let text = std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let parsed = syn::parse_file(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        let facts = read(&parsed, &module);
        for child in &facts.out_of_line {
            pending.push((child_file(&path, child)?, child.module.clone(), test_only || child.test_only));
        }
        files.push(SourceFile { path, module, test_only, facts, syntax: parsed });
    }
    Ok(files)
}

/// Where the body of an out-of-line `mod` declared in `parent` lives.
fn child_file(parent: &Path, child: &crate::read::OutOfLine) -> Result<PathBuf, String> {
    let folder = parent.parent().expect("a source file is in a folder");
    let owns_folder = matches!(parent.file_name().and_then(|n| n.to_str()), Some("mod.rs" | "lib.rs" | "main.rs"));
    let inline: Vec<&String> =
        child.module[child.module.len() - 1 - child.inline_depth..child.module.len() - 1].iter().collect();
    // A `#[path]` outside inline modules is relative to the declaring file's own folder; a
    // plain `mod` in a file that is not `mod.rs` or `lib.rs`, and any `mod` inside inline
    // modules, is relative to the folder named after that file.
    let mut base = folder.to_path_buf();
    if !owns_folder && (child.path_attr.is_none() || child.inline_depth > 0) {
        base.push(parent.file_stem().expect("a file name"));
    }
    base.extend(inline.iter().map(|s| s.as_str()));
    if let Some(path) = &child.path_attr {
        return Ok(base.join(path));
    }
    let name = child.module.last().expect("a declared module has a name");
    let flat = base.join(format!("{name}.rs"));
    let nested = base.join(name).join("mod.rs");
    match (flat.is_file(), nested.is_file()) {
        (true, _) => Ok(flat),
        (false, true) => Ok(nested),
        (false, false) => {
            Err(format!("{}: `mod {name};` has neither {} nor {}", parent.display(), flat.display(), nested.display()))
        }
    }
}
