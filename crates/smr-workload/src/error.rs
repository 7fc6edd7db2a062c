//! The errors of the workload crate: a bad parameter (named, with what is wrong), a store's own
//! error, a server that cannot be reached or answers out of protocol, and the operating
//! system's refusals. Each message names what and where; none is a panic.

#[derive(Debug, thiserror::Error)]
pub enum WorkloadError {
    #[error("invalid parameter {name}: {problem}")]
    Parameter { name: String, problem: String },
    #[error(transparent)]
    Store(#[from] smrdb::Error),
    #[error("{what}: {source}")]
    Io { what: String, source: std::io::Error },
    #[error("server {}: {problem}", smr_core::quote::quote(server))]
    Server { server: String, problem: String },
}

impl WorkloadError {
    pub fn parameter(name: impl Into<String>, problem: impl Into<String>) -> Self {
        WorkloadError::Parameter { name: name.into(), problem: problem.into() }
    }

    pub fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        WorkloadError::Io { what: what.into(), source }
    }
}

/// A declared parameter's bad value, as the shared reader reports it.
impl From<smr_core::ParamError> for WorkloadError {
    fn from(e: smr_core::ParamError) -> Self {
        WorkloadError::parameter(e.param, e.message)
    }
}

pub type Result<T, E = WorkloadError> = std::result::Result<T, E>;
