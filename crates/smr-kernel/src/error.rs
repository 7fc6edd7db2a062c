//! The error type of simulation: bad parameters, bad traces, and requests a device cannot serve.

use smr_core::ParamError;
use smr_trace::TraceError;

#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error(transparent)]
    Param(#[from] ParamError),
    #[error(transparent)]
    Trace(#[from] TraceError),
    /// A request outside the simulated device; `index` counts requests from 1 (systems leave it
    /// 0 and the engine fills it in).
    #[error("request #{index} at byte {offset} (+{len}) is beyond the device capacity of {capacity} bytes")]
    OutOfRange { index: u64, offset: u64, len: u64, capacity: u64 },
    /// A device-level rule was broken (e.g. a write not at a sequential zone's write pointer).
    /// This is a bug in a translation layer, reported instead of silently mis-simulated.
    #[error("device error: {0}")]
    Device(String),
    #[error("unknown system {} (known: {known})", smr_core::quote(name))]
    UnknownSystem { name: String, known: String },
    #[error("{path}: {source}")]
    Io { path: String, source: std::io::Error },
    /// A run whose every request fell in the warm-up: there is no figure to report.
    #[error("{0}")]
    NothingMeasured(String),
    /// A user's own policy (`policy::own`) failed in `hook` or answered it wrongly; `request`
    /// counts requests from 1 (the policy leaves it `None` and the engine fills it in).
    #[error("policy {policy}: {hook}(){}: {detail}", request.map(|n| format!(" at request #{n}")).unwrap_or_default())]
    Policy { policy: String, hook: &'static str, request: Option<u64>, detail: String },
}

impl SimError {
    /// The error as it stands at request `index` (from 1): a policy's failure learns its number.
    pub fn at_request(self, index: u64) -> SimError {
        match self {
            SimError::Policy { policy, hook, request: None, detail } => {
                SimError::Policy { policy, hook, request: Some(index), detail }
            }
            other => other,
        }
    }
}
