//! Which folder of smr-sim each registered system comes from: the `SYSTEMS` list of
//! `registry.rs`, read with syn, each entry's `crate::MODULE::...` path giving its module, in the
//! registry's order (the bindings pair them with the entries at run time and refuse a count
//! that differs). Not here: the digests.

use std::path::Path;

use syn::visit::Visit;

/// The top-level module of each entry of `SYSTEMS` in the registry file at `path`, in order.
pub fn system_modules(path: &Path) -> Result<Vec<String>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let file = syn::parse_file(&text).map_err(|e| format!("{}: {e}", path.display()))?;
    let list = file.items.iter().find_map(|item| match item {
        syn::Item::Const(c) if c.ident == "SYSTEMS" => Some(&c.expr),
        syn::Item::Static(s) if s.ident == "SYSTEMS" => Some(&s.expr),
        _ => None,
    });
    let Some(list) = list else {
        return Err(format!("{}: no `SYSTEMS` list of the registered systems", path.display()));
    };
    let mut paths = CratePaths(Vec::new());
    paths.visit_expr(list);
    if paths.0.is_empty() {
        return Err(format!("{}: `SYSTEMS` names no `crate::MODULE::ENTRY`", path.display()));
    }
    Ok(paths.0)
}

/// The second segment of every `crate::...` path, in the order written.
struct CratePaths(Vec<String>);

impl<'ast> Visit<'ast> for CratePaths {
    fn visit_path(&mut self, path: &'ast syn::Path) {
        let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
        if segments.len() > 2 && segments[0] == "crate" {
            self.0.push(segments[1].clone());
        }
        syn::visit::visit_path(self, path);
    }
}
