//! The one error type of trace reading and writing.

use std::path::PathBuf;

/// What went wrong while reading or writing a trace, and where.
#[derive(Debug, thiserror::Error)]
pub enum TraceError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    /// A text record that does not parse; `line` counts from 1.
    #[error("{path}:{line}: {message}")]
    Malformed { path: PathBuf, line: u64, message: String },
    /// A binary file that ends inside a record or whose header is wrong; `offset` is in bytes.
    #[error("{path}: at byte {offset}: {message}")]
    Corrupt { path: PathBuf, offset: u64, message: String },
    #[error("{path}: the trace has no requests")]
    Empty { path: PathBuf },
    #[error("unknown trace format {} (known: {known})", smr_core::quote(name))]
    UnknownFormat { name: String, known: String },
    /// A transform or writer option that cannot be honoured.
    #[error("{0}")]
    Invalid(String),
    /// The user asked to stop (see `Interruptible`).
    #[error("interrupted")]
    Interrupted,
}

impl TraceError {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        TraceError::Io { path: path.into(), source }
    }

    pub fn malformed(path: impl Into<PathBuf>, line: u64, message: impl Into<String>) -> Self {
        TraceError::Malformed { path: path.into(), line, message: message.into() }
    }

    /// A refused reader option.
    pub fn option(e: smr_core::params::ParamError) -> Self {
        TraceError::Invalid(format!("trace option {e}"))
    }
}
