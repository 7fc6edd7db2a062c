//! The few facts about a trace that systems need to size themselves (a write buffer of 1/256 of
//! the written range, a cache of 2 % of the accessed range, a device large enough for the trace).
//!
//! Computed by `TraceStats` in a first pass over the trace. Not the full statistics. The PORE
//! paper measures a trace's written (accessed) LBA range as the capacity of the SMR bands it
//! writes (touches) (Table I); a system with bands reckons that from the extents kept here,
//! which record where the trace wrote and where it touched at `EXTENT_GRAIN` (a band is at least
//! that long whenever band sizes are scaled no further than 1/256 of 17 MB).

use serde::{Deserialize, Serialize};

/// The granularity of `Footprint`'s extents: 64 KiB.
pub const EXTENT_GRAIN: u64 = 64 * 1024;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Footprint {
    /// Union of the 4 KiB blocks written, in bytes (a multiple of 4096).
    pub written_bytes: u64,
    /// Union of the 4 KiB blocks read or written, in bytes.
    pub accessed_bytes: u64,
    /// One past the highest byte any request touches.
    pub max_end: u64,
    /// Where the trace writes: ascending, disjoint `(offset, length)` byte extents, each a whole
    /// number of `EXTENT_GRAIN`s (empty when not measured, e.g. a footprint given by hand).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub written_extents: Vec<(u64, u64)>,
    /// Where the trace reads or writes, likewise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub accessed_extents: Vec<(u64, u64)>,
    /// The trace's requests (0 when not counted, e.g. a footprint given by hand): how much of a
    /// paper trace a sample of it holds (`geometry_scale=auto`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub requests: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Footprint {
    /// A footprint for a trace that wrote (and touched) every block of `[0, written)`
    /// (`[0, accessed)`); for tests and hand-made sizing.
    pub fn dense(written: u64, accessed: u64, max_end: u64) -> Self {
        let extent =
            |bytes: u64| if bytes == 0 { vec![] } else { vec![(0, bytes.div_ceil(EXTENT_GRAIN) * EXTENT_GRAIN)] };
        Footprint {
            written_bytes: written,
            accessed_bytes: accessed,
            max_end,
            written_extents: extent(written),
            accessed_extents: extent(accessed),
            requests: 0,
        }
    }
}
