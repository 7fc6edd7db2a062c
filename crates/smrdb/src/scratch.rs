//! Scratch folders for the store's tests (test only): a fresh path under the system's
//! temporary folder for each call. Not here: anything a test puts in it.

use std::path::PathBuf;

/// A path named after `name` that holds nothing yet (the folder is not made).
pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("smrdb-test-{}-{name}-{}", std::process::id(), rand::random::<u32>()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}
