//! The few facts about a trace that systems need to size themselves (a write buffer of 1/256 of
//! the written range, a cache of 2 % of the accessed range, a device large enough for the trace).
//!
//! Computed by `TraceStats` in a first pass over the trace. Not the full statistics.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Footprint {
    /// Union of the 4 KiB blocks written, in bytes (a multiple of 4096).
    pub written_bytes: u64,
    /// Union of the 4 KiB blocks read or written, in bytes.
    pub accessed_bytes: u64,
    /// One past the highest byte any request touches.
    pub max_end: u64,
}
