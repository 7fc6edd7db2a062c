//! The interface every simulated system implements, and what a system may reveal to one stacked
//! over it.

use smr_core::Request;

use super::bands::BandLayout;
use super::error::SimError;
use super::ioctx::IoCtx;
use super::metrics::{Counters, Gauges};

/// A storage system under simulation: a plain disk, a drive-managed SMR disk, a cache over any
/// system, a translation layer over a host-managed drive, ...
///
/// `submit` serves one host request by sending media I/Os through `ctx`; the time it takes is
/// the advance of `ctx.now()`. The engine has already checked that the request lies below
/// `capacity()` and is not empty. Systems may stack: a cache holds the system below it and
/// submits requests to it with the same `ctx`.
pub trait System {
    /// Serves `req`, starting at `ctx.now()`.
    fn submit(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError>;

    /// A hint that `req` is served `ahead` requests from now (the engine names the next two
    /// while it serves one): the system may start loading into the CPU caches what serving it
    /// will read (`smr_core::prefetch`), in stages: for the farther request (2) what it reads
    /// first, for the nearer one (1) what that, now in the CPU cache, points to. It changes no
    /// state and no result.
    fn prefetch(&self, _req: &Request, _ahead: u32) {}

    /// Does at most one quantum of background work (cleaning, migration, ...) starting at
    /// `ctx.now()`, ideally finishing by `until_ns` (the next arrival). Returns whether any work was
    /// done; once it returns false the engine stops offering idle time until the next request.
    /// A started quantum always finishes, even past `until_ns`.
    fn idle(&mut self, _ctx: &mut IoCtx, _until_ns: u64) -> Result<bool, SimError> {
        Ok(false)
    }

    /// Whether the engine may overlap the system's requests (see `Concurrency`); serial unless
    /// the system says otherwise.
    fn concurrency(&self) -> Concurrency {
        Concurrency::Serial
    }

    /// In an overlapped replay, issues at most one piece of background work at `ctx.now()`
    /// through `IoCtx::background` (a write buffer's flusher, say). The engine calls it after
    /// each request is issued, when background work finishes and when a device runs out of
    /// commands. Returns whether it issued any.
    fn background(&mut self, _ctx: &mut IoCtx) -> Result<bool, SimError> {
        Ok(false)
    }

    /// Bytes of host address space the system serves; the engine refuses requests beyond it.
    fn capacity(&self) -> u64;

    /// Adds the system's monotonic counters (totals since construction) and the ratios it
    /// declares over them to `out`. Called at the end of warm-up and at the end of the run; the
    /// engine reports the difference.
    fn counters(&self, out: &mut Counters);

    /// Adds point-in-time values (occupancy, open-region size, ...) to `out`.
    fn gauges(&self, _out: &mut Gauges) {}

    /// The bands of a shingled disk, for a policy stacked over it that may know them (LRU-band;
    /// PORE's default period). `None` for systems without bands.
    fn bands(&self) -> Option<Bands<'_>> {
        None
    }
}

/// What a shingled disk reveals of itself to a system stacked over it.
#[derive(Clone, Copy, Debug)]
pub struct Bands<'a> {
    pub layout: &'a BandLayout,
    /// Size of its persistent write buffer (media cache), bytes.
    pub write_buffer_bytes: u64,
    /// What that buffer holds now, bytes.
    pub write_buffer_held_bytes: u64,
}

/// How the engine may replay a system.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Concurrency {
    /// One request at a time, each served whole before the next: the system may time
    /// overlapped I/O itself (`IoCtx::io_at`, `IoCtx::advance_to`).
    Serial,
    /// Requests may overlap: `submit` only issues I/O (through `io`, `io_behind`, `batch`,
    /// `background`, `wait_for`) and never reads how long it took, so the engine can issue the
    /// I/O of requests that arrive while others are in service to the same device queues. The
    /// engine does so in an open-loop replay on devices that queue, and whenever `background`
    /// is set: the system has background work for `System::background`.
    Overlapped { background: bool },
    /// Requests may overlap as with `Overlapped` (no background work), and each request's
    /// commands wait for none of one another: the engine issues them together, each split into
    /// pieces of at most `max_command` bytes, and the request ends when the last piece does.
    /// This is how a translated trace is replayed (fio issues each logged command without
    /// knowing what one needs of another), for systems whose paper measured them that way; the
    /// system's decisions must not depend on time, so the commands are those of a serial run.
    Translated { max_command: u64 },
}
