//! What one source file says about modules: the `mod` items it declares (inline or in their own
//! file) and every path it writes, each with the module it is written in. Read with syn, so
//! comments and strings are never mistaken for code; paths in `use` trees (groups included),
//! in expressions, types and patterns, and inside macro bodies (`crate::a::b` written in a
//! `format!` or `assert!`) all count. Not here: finding the files (`tree`), resolving paths
//! to modules (`graph`).

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};

/// A `mod NAME;` whose body is in another file.
pub struct OutOfLine {
    /// The module path of the declared module (its parent's path and `NAME`).
    pub module: Vec<String>,
    /// Its `#[path = "..."]`, if any.
    pub path_attr: Option<String>,
    /// How many inline modules enclose the declaration in its file (they add folders).
    pub inline_depth: usize,
    /// Whether it is compiled for tests only (`#[cfg(test)]` on it or on an inline module
    /// around it).
    pub test_only: bool,
}

/// A path written in a module: its segments as written (`super`, `crate`, `self` included).
pub struct Written {
    pub module: Vec<String>,
    pub segments: Vec<String>,
}

/// What a file declares and writes.
#[derive(Default)]
pub struct FileFacts {
    pub out_of_line: Vec<OutOfLine>,
    pub written: Vec<Written>,
}

/// Reads a parsed file whose top is module `module`.
pub fn read(file: &syn::File, module: &[String]) -> FileFacts {
    let mut reader = Reader { module: module.to_vec(), inline_depth: 0, test_depth: 0, facts: FileFacts::default() };
    reader.visit_file(file);
    reader.facts
}

struct Reader {
    module: Vec<String>,
    inline_depth: usize,
    /// How many of the inline modules around the current item are `#[cfg(test)]`.
    test_depth: usize,
    facts: FileFacts,
}

impl Reader {
    fn write(&mut self, segments: Vec<String>) {
        self.facts.written.push(Written { module: self.module.clone(), segments });
    }

    /// Every leaf of a `use` tree as a full path (a glob as the path to its module).
    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => self.write(prefix.iter().cloned().chain([n.ident.to_string()]).collect()),
            syn::UseTree::Rename(r) => self.write(prefix.iter().cloned().chain([r.ident.to_string()]).collect()),
            syn::UseTree::Glob(_) => self.write(prefix.clone()),
            syn::UseTree::Group(g) => g.items.iter().for_each(|item| self.use_tree(prefix, item)),
        }
    }

    /// Paths that start with `crate`, `self` or `super` inside a macro's tokens.
    fn macro_tokens(&mut self, tokens: TokenStream) {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut at = 0;
        while at < trees.len() {
            match &trees[at] {
                TokenTree::Group(group) => self.macro_tokens(group.stream()),
                TokenTree::Ident(ident) if ["crate", "self", "super"].contains(&ident.to_string().as_str()) => {
                    let (segments, next) = path_at(&trees, at);
                    if segments.len() > 1 {
                        self.write(segments);
                    }
                    at = next;
                    continue;
                }
                _ => {}
            }
            at += 1;
        }
    }
}

/// Whether `attrs` hold `#[cfg(test)]`: the item is compiled for tests only.
pub fn is_test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg") && matches!(&a.meta, syn::Meta::List(list) if list.tokens.to_string() == "test")
    })
}

/// The `a::b::c` path starting at token `start`, and the index after it.
fn path_at(trees: &[TokenTree], start: usize) -> (Vec<String>, usize) {
    let mut segments = Vec::new();
    let mut at = start;
    while let Some(TokenTree::Ident(ident)) = trees.get(at) {
        segments.push(ident.to_string());
        let colons = matches!((trees.get(at + 1), trees.get(at + 2)),
            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) if a.as_char() == ':' && b.as_char() == ':');
        if !colons {
            return (segments, at + 1);
        }
        at += 3;
    }
    (segments, at)
}

impl<'ast> Visit<'ast> for Reader {
    fn visit_item_mod(&mut self, item: &'ast syn::ItemMod) {
        let name = item.ident.to_string();
        let test_only = is_test_only(&item.attrs);
        match &item.content {
            Some((_, items)) => {
                self.module.push(name);
                self.inline_depth += 1;
                self.test_depth += usize::from(test_only);
                items.iter().for_each(|i| self.visit_item(i));
                self.test_depth -= usize::from(test_only);
                self.inline_depth -= 1;
                self.module.pop();
            }
            None => {
                let path_attr = item.attrs.iter().find(|a| a.path().is_ident("path")).and_then(|a| match &a.meta {
                    syn::Meta::NameValue(nv) => match &nv.value {
                        syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => Some(s.value()),
                        _ => None,
                    },
                    _ => None,
                });
                let module = self.module.iter().cloned().chain([name]).collect();
                let test_only = test_only || self.test_depth > 0;
                self.facts.out_of_line.push(OutOfLine {
                    module,
                    path_attr,
                    inline_depth: self.inline_depth,
                    test_only,
                });
            }
        }
    }

    fn visit_item_use(&mut self, item: &'ast syn::ItemUse) {
        self.use_tree(&mut Vec::new(), &item.tree);
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        if path.segments.len() > 1 {
            self.write(path.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.macro_tokens(mac.tokens.clone());
        visit::visit_macro(self, mac);
    }
}
