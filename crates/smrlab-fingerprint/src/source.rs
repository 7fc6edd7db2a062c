//! A crate's source as rustc compiles it, digested: every file of its module tree
//! (`smrlab_arch::crate_files`, from `src/lib.rs` through each `mod`) except those compiled for
//! tests only, each parsed with syn, its `#[cfg(test)]` items and doc comments taken out, and
//! printed back as tokens, so that comments, formatting and tests change nothing; plus the
//! crate's Cargo.toml (its features and dependencies). Not here: which crates (`deps`).

use std::path::Path;

use proc_macro2::{Delimiter, TokenStream, TokenTree};
use quote::ToTokens;
use syn::visit_mut::{self, VisitMut};

use crate::digest::Digest;

/// The digest of the crate in `dir` (its manifest and root file included), counting only the
/// files whose top-level module `keep` accepts (`""` is the crate root's own file).
pub fn crate_digest(dir: &Path, keep: impl Fn(&str) -> bool) -> Result<Digest, String> {
    let mut digest = Digest::new("crate source");
    let manifest = dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest).map_err(|e| format!("{}: {e}", manifest.display()))?;
    digest.add("Cargo.toml", text.as_bytes());
    add_files(&mut digest, dir, |module| keep(module.first().map_or("", String::as_str)))?;
    Ok(digest)
}

/// The digest of one top-level module (`name`'s file or folder) of the crate in `dir`.
pub fn module_digest(dir: &Path, name: &str) -> Result<Digest, String> {
    let mut digest = Digest::new("module source");
    add_files(&mut digest, dir, |module| module.first().is_some_and(|m| m == name))?;
    Ok(digest)
}

fn add_files(digest: &mut Digest, dir: &Path, keep: impl Fn(&[String]) -> bool) -> Result<(), String> {
    let src = dir.join("src");
    let mut files = smrlab_arch::crate_files(&src)?;
    files.retain(|f| !f.test_only && keep(&f.module));
    files.sort_by(|a, b| a.path.cmp(&b.path));
    for file in files {
        let relative = file.path.strip_prefix(&src).unwrap_or(&file.path).to_string_lossy().replace('\\', "/");
        digest.add(&relative, compiled(file.syntax).as_bytes());
    }
    Ok(())
}

/// What rustc compiles of a parsed file outside tests, as text: its tokens without
/// `#[cfg(test)]` items or doc comments.
pub fn compiled(mut file: syn::File) -> String {
    WithoutTests.visit_file_mut(&mut file);
    without_docs(file.to_token_stream()).to_string()
}

/// Takes every `#[cfg(test)]` item out (in a file, a module, an impl or a trait).
struct WithoutTests;

impl VisitMut for WithoutTests {
    fn visit_file_mut(&mut self, file: &mut syn::File) {
        file.items.retain(|item| !test_item(item));
        visit_mut::visit_file_mut(self, file);
    }

    fn visit_item_mod_mut(&mut self, item: &mut syn::ItemMod) {
        if let Some((_, items)) = &mut item.content {
            items.retain(|item| !test_item(item));
        }
        visit_mut::visit_item_mod_mut(self, item);
    }

    fn visit_item_impl_mut(&mut self, item: &mut syn::ItemImpl) {
        item.items.retain(|member| match member {
            syn::ImplItem::Fn(f) => !smrlab_arch::is_test_only(&f.attrs),
            syn::ImplItem::Const(c) => !smrlab_arch::is_test_only(&c.attrs),
            syn::ImplItem::Type(t) => !smrlab_arch::is_test_only(&t.attrs),
            _ => true,
        });
        visit_mut::visit_item_impl_mut(self, item);
    }

    fn visit_item_trait_mut(&mut self, item: &mut syn::ItemTrait) {
        item.items.retain(|member| match member {
            syn::TraitItem::Fn(f) => !smrlab_arch::is_test_only(&f.attrs),
            syn::TraitItem::Const(c) => !smrlab_arch::is_test_only(&c.attrs),
            _ => true,
        });
        visit_mut::visit_item_trait_mut(self, item);
    }
}

fn test_item(item: &syn::Item) -> bool {
    let attrs = match item {
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        _ => return false,
    };
    smrlab_arch::is_test_only(attrs)
}

/// `tokens` without doc attributes (`#[doc = ...]`, `#![doc = ...]`: what `///` and `//!` become).
fn without_docs(tokens: TokenStream) -> TokenStream {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    let mut kept = Vec::with_capacity(trees.len());
    let mut at = 0;
    while at < trees.len() {
        let bang = matches!(trees.get(at + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!');
        let body = trees.get(at + 1 + usize::from(bang));
        let is_doc = matches!(&trees[at], TokenTree::Punct(p) if p.as_char() == '#')
            && matches!(body, Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket
                && matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(i)) if i == "doc"));
        if is_doc {
            at += 2 + usize::from(bang);
            continue;
        }
        kept.push(match &trees[at] {
            TokenTree::Group(g) => {
                let mut group = proc_macro2::Group::new(g.delimiter(), without_docs(g.stream()));
                group.set_span(g.span());
                TokenTree::Group(group)
            }
            other => other.clone(),
        });
        at += 1;
    }
    kept.into_iter().collect()
}

#[cfg(test)]
mod tests {
    fn compiled(text: &str) -> Result<String, syn::Error> {
        Ok(super::compiled(syn::parse_file(text)?))
    }

    const CODE: &str = "//! The module.\n\n/// Adds.\npub fn add(a: u64) -> u64 {\n    a + 1 // one\n}\n\n\
                        #[cfg(test)]\nmod tests {\n    #[test]\n    fn t() {}\n}\n";

    #[test]
    fn comments_formatting_docs_and_tests_change_nothing() {
        let base = compiled(CODE).unwrap();
        for same in [
            CODE.replace("// one", "// two"),
            CODE.replace("/// Adds.", "/// Adds one."),
            CODE.replace("//! The module.", ""),
            CODE.replace("a + 1", "a  +  1"),
            CODE.replace("fn t() {}", "fn t() { assert!(true) }"),
        ] {
            assert_eq!(compiled(&same).unwrap(), base, "{same}");
        }
    }

    #[test]
    fn code_changes_count_strings_included() {
        let base = compiled(CODE).unwrap();
        for other in [
            CODE.replace("a + 1", "a + 2"),
            CODE.replace("pub fn", "pub(crate) fn"),
            CODE.replace("a + 1 // one", "a + 1 + \"//\".len() as u64"),
            CODE.replace("#[cfg(test)]\nmod tests", "mod tests"),
        ] {
            assert_ne!(compiled(&other).unwrap(), base, "{other}");
        }
    }
}
