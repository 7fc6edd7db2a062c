//! The lock file that keeps a second process (or a second opening in this one) from opening a
//! store that is in use: an exclusive `flock` on `DIR/LOCK`, held while the store is open and
//! released by the kernel when the process ends, however it ends.

use std::fs::{File, OpenOptions};
use std::os::unix::io::AsRawFd;
use std::path::Path;

use crate::error::{Error, Result};

/// The lock file's name in a store's folder.
pub const LOCK_FILE: &str = "LOCK";

pub struct LockFile {
    _file: File,
}

impl LockFile {
    pub fn acquire(dir: &Path) -> Result<LockFile> {
        let path = dir.join(LOCK_FILE);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|source| Error::Io { path: path.display().to_string(), op: "open lock file", source })?;
        // SAFETY: flock on a descriptor we own; no memory is passed.
        let status = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
        if status != 0 {
            let source = std::io::Error::last_os_error();
            if source.raw_os_error() == Some(libc::EWOULDBLOCK) {
                return Err(Error::Locked { store: dir.display().to_string(), lock: path.display().to_string() });
            }
            return Err(Error::Io { path: path.display().to_string(), op: "lock", source });
        }
        Ok(LockFile { _file: file })
    }
}
