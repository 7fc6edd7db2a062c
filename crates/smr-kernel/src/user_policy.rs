//! The interface between the kernel and the cache policies it does not own: what any policy
//! may know of the cache it orders (`Geometry`), what the kernel asks of a user's own policy
//! (`OwnPolicy`, the hooks of `Policy` that may fail) and who builds one (`PolicySource`: the
//! bindings, which the kernel never names). A module of its own so that `build`'s context can
//! carry a `PolicySource` while the policy table builds from that context. Not here: the
//! checks on a user's policy (`policy::own`) or calling Python (smrlab-py's `policy`).

use crate::bands::BandLayout;
use crate::SimError;

/// What a policy may know of the cache it orders and of what lies around it; the same for a
/// native policy and a user's.
#[derive(Clone, Debug)]
pub struct Geometry {
    /// The cache, as messages name it ("the SSD cache", "HWSR's MEM buffer").
    pub host: &'static str,
    /// Its size in blocks: slots are numbered from 0 below it.
    pub slots: usize,
    pub block_bytes: u64,
    /// The band layout of the shingled disk below the cache, if there is one.
    pub bands: Option<BandLayout>,
    /// The size of that disk's persistent write buffer (media cache), in bytes.
    pub write_buffer_bytes: Option<u64>,
    /// Blocks per segment where the cache writes a segment's blocks together (HWSR's MEM
    /// buffer): every eviction takes blocks of one segment only.
    pub segment_blocks: Option<u64>,
}

/// The hooks of `Policy` for a policy whose code may fail: each returns what went wrong, in a
/// sentence for the user.
pub trait OwnPolicy {
    fn inserted(&mut self, slot: u32, block: u64, dirty: bool) -> Result<(), String>;
    fn hit(&mut self, slot: u32, block: u64, became_dirty: bool) -> Result<(), String>;
    fn removed(&mut self, slot: u32, block: u64, was_dirty: bool) -> Result<(), String>;
    /// Pushes onto `out` the slots to evict now (checked by `Guarded`).
    fn victims(&mut self, out: &mut Vec<u32>) -> Result<(), String>;
    /// Before `victims`: the bytes the shingled disk below holds in its write buffer now.
    fn below_buffer(&mut self, _held_bytes: u64) {}
    /// The policy's own counts, by name (`Guarded` reports them as `policy_NAME`). A policy
    /// whose counts cannot be read records that itself: the run's report is taken after the
    /// last request, when no hook can stop it any more.
    fn counters(&self, _out: &mut Vec<(String, u64)>) {}
}

/// Builds users' own policies from their references (`FILE.py:CLASS`, `MODULE:CLASS`): the
/// Python bindings hand one to a run (`BuildContext::with_policies`).
pub trait PolicySource {
    fn build(&self, reference: &str, geometry: &Geometry) -> Result<Box<dyn OwnPolicy>, SimError>;
}
