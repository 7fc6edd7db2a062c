//! Whether a store folder holds the files its store needs, checked before the folder is created
//! or anything in it is opened. A folder that holds some of a store's files (its lock file, one
//! device file of two) but not all was a store that lost a file: an error naming the file,
//! never a new, empty store in its place, which would hide the loss of everything it held. A
//! folder holding none of them (or no folder) becomes a new store only when the caller asked
//! for one (`Options::create_if_missing`).
//!
//! Which of the two stores a folder holds is told by its device file (`kind_in`), so each
//! opener refuses the other's folder by name instead of calling it a store that lost a file.
//!
//! Not here: whether the files that are there hold a valid store (`recovery`, `manifest`).

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::lock::LOCK_FILE;

/// The two stores a folder may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreKind {
    /// SMRDB: one device file, `bands`.
    Plain,
    /// The write-offloading store: `offload-bands` (and an NVRAM device file).
    Offloading,
}

impl StoreKind {
    pub fn name(self) -> &'static str {
        match self {
            StoreKind::Plain => "an SMRDB store",
            StoreKind::Offloading => "a write-offloading store",
        }
    }

    /// The store's device file in `dir`: SMRDB's `bands`, the offloading store's
    /// `offload-bands`, named apart so neither store opens the other's folder by mistake.
    pub fn device_path(self, dir: &Path) -> PathBuf {
        dir.join(match self {
            StoreKind::Plain => "bands",
            StoreKind::Offloading => "offload-bands",
        })
    }
}

/// The store `dir` holds, by its device file; `None` where it holds neither.
pub fn kind_in(dir: &Path) -> Option<StoreKind> {
    let present = |path: PathBuf| path.symlink_metadata().is_ok();
    if present(StoreKind::Offloading.device_path(dir)) {
        Some(StoreKind::Offloading)
    } else if present(StoreKind::Plain.device_path(dir)) {
        Some(StoreKind::Plain)
    } else {
        None
    }
}

/// Refuses to open `dir` as `wanted` where it holds the other store.
pub fn check_kind(dir: &Path, wanted: StoreKind) -> Result<()> {
    match kind_in(dir) {
        Some(held) if held != wanted => {
            Err(Error::OtherKind { store: dir.display().to_string(), held: held.name(), wanted: wanted.name() })
        }
        _ => Ok(()),
    }
}

/// The most folder entries an error lists.
const LISTED: usize = 5;

/// Checks that `needed` (the store's device files) are all in `dir`, or that none of a store's
/// files is and `create` allows a new store.
pub fn check_present(dir: &Path, needed: &[PathBuf], create: bool) -> Result<()> {
    let store = dir.display().to_string();
    let present = |path: &Path| path.symlink_metadata().is_ok();
    let Some(missing) = needed.iter().find(|path| !present(path)) else { return Ok(()) };
    if present(&dir.join(LOCK_FILE)) || needed.iter().any(|path| present(path)) {
        return Err(Error::MissingFile { store, path: missing.display().to_string(), found: listing(dir) });
    }
    if !create {
        return Err(Error::NoStore { store, path: missing.display().to_string() });
    }
    Ok(())
}

/// The first few names in `dir`, sorted, for a message.
fn listing(dir: &Path) -> String {
    let mut names: Vec<String> = match std::fs::read_dir(dir) {
        Ok(entries) => entries.filter_map(|e| e.ok()).map(|e| e.file_name().to_string_lossy().into_owned()).collect(),
        Err(_) => Vec::new(),
    };
    names.sort();
    let more = names.len().saturating_sub(LISTED);
    names.truncate(LISTED);
    let shown = names.iter().map(smr_core::quote::quote).collect::<Vec<_>>().join(", ");
    if more > 0 {
        format!("{shown} and {more} more")
    } else {
        shown
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scratch::scratch as folder;

    #[test]
    fn a_new_folder_is_a_store_only_when_asked() {
        let dir = folder("new");
        let needed = [dir.join("bands")];
        check_present(&dir, &needed, true).unwrap();
        let e = check_present(&dir, &needed, false).unwrap_err();
        assert!(matches!(e, Error::NoStore { .. }) && e.to_string().contains("bands"), "{e}");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("notes.txt"), b"mine").unwrap();
        check_present(&dir, &needed, true).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_folder_that_held_a_store_is_never_a_new_one() {
        let dir = folder("held");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(LOCK_FILE), b"").unwrap();
        let e = check_present(&dir, &[dir.join("bands")], true).unwrap_err();
        assert!(
            e.to_string().contains(&dir.join("bands").display().to_string()) && e.to_string().contains("'LOCK'"),
            "{e}"
        );
        // One device file of two, without a lock file.
        std::fs::remove_file(dir.join(LOCK_FILE)).unwrap();
        std::fs::write(dir.join("disk"), b"").unwrap();
        let e = check_present(&dir, &[dir.join("disk"), dir.join("nvram")], true).unwrap_err();
        assert!(matches!(e, Error::MissingFile { .. }) && e.to_string().contains("nvram"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
