//! The interface every simulated system implements.

use smr_core::metrics::Counters;
use smr_core::Request;

use crate::error::SimError;
use crate::ioctx::IoCtx;

/// A storage system under simulation: a plain disk, a drive-managed SMR disk, a cache over one,
/// a translation layer over a host-managed drive, ...
///
/// `submit` serves one host request by sending media I/Os through `ctx`; the time it takes is
/// the advance of `ctx.now()`. Systems may stack: a cache holds the system below it and submits
/// requests to it with the same `ctx`.
pub trait System {
    /// Serves `req`, starting at `ctx.now()`.
    fn submit(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError>;

    /// Does at most one quantum of background work (cleaning, migration, ...) starting at
    /// `ctx.now()`, ideally finishing by `until_ns` (the next arrival). Returns whether any work was
    /// done; once it returns false the engine stops offering idle time until the next request.
    /// A started quantum always finishes, even past `until_ns`.
    fn idle(&mut self, _ctx: &mut IoCtx, _until_ns: u64) -> Result<bool, SimError> {
        Ok(false)
    }

    /// Adds the system's monotonic counters (totals since construction) to `out`. Called at the
    /// end of warm-up and at the end of the run; the engine reports the difference.
    fn counters(&self, out: &mut Counters);

    /// Adds point-in-time values (occupancy, open-region size, ...) reported at the end of the run.
    fn gauges(&self, _out: &mut Vec<(String, f64)>) {}
}
