//! The errors the store reports. Each names what went wrong and where (the store, the band and
//! the byte offset for damaged data), so a user can act on it; none of them is a panic. An error
//! never leaves half an operation visible: a refused write stores nothing, and a failed flush or
//! compaction leaves the previous metadata record in force.

use smr_zoned::ZoneError;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("key of {len} bytes is over the maximum of {max} bytes (max_key_len)")]
    KeyTooLarge { len: usize, max: usize },
    #[error("value of {len} bytes is over the maximum of {max} bytes (max_value_len)")]
    ValueTooLarge { len: usize, max: usize },
    #[error("write batch of {len} bytes does not fit in one log band (at most {max} bytes)")]
    BatchTooLarge { len: u64, max: u64 },
    #[error("{store}: device full: no empty band left for {purpose} (all {bands} bands of {band_size} bytes hold live data; what it holds stays readable, also when reopened (read-only then): copy it into a store with a larger capacity)")]
    DeviceFull { store: String, purpose: &'static str, bands: u64, band_size: u64 },
    #[error("{store}: corrupt {what} at {location}: {problem}")]
    Corruption { store: String, what: String, location: String, problem: String },
    #[error("{store} was created with {parameter} = {stored}, not {requested} (open it without {parameter} or with the stored value)")]
    ParameterMismatch { store: String, parameter: &'static str, stored: String, requested: String },
    #[error("{store} is in use by another process (its lock file {lock} is held)")]
    Locked { store: String, lock: String },
    #[error("invalid option {option}: {problem}")]
    InvalidOption { option: &'static str, problem: String },
    #[error("{store}: {source}")]
    Device { store: String, source: ZoneError },
    #[error("{store}: no store there (no {path}), and creating one was not asked for")]
    NoStore { store: String, path: String },
    #[error("{store}: its file {path} is missing, though the folder holds a store's files ({found}); it is not opened as a new, empty store: restore the file from a copy (nothing in the folder was changed)")]
    MissingFile { store: String, path: String, found: String },
    #[error("{store} holds {held}, not {wanted}: open it as {held} (nothing in it was changed)")]
    OtherKind { store: String, held: &'static str, wanted: &'static str },
    #[error("{path}: {op} failed: {source}")]
    Io { path: String, op: &'static str, source: std::io::Error },
    #[error("{store} is closed")]
    Closed { store: String },
    /// A log write, a flush or a compaction failed earlier (or the device was found full at
    /// open): writes are refused; reads go on. `problem` says what to do.
    #[error("{store}: writes are refused: {problem}")]
    WritesRefused { store: String, problem: String },
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
