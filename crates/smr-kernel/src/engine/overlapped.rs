//! The engine's overlapped replay: requests are issued when they arrive, not when the one
//! before them is done, so requests that arrive while others are in service reach the devices'
//! queues together (a drive that queues reorders them), and background work (a write buffer's
//! flusher) competes with them for the devices.
//!
//! Each request's I/O is issued at its arrival as a chain of commands (`IoCtx`, `inflight`);
//! between arrivals the completions are taken in time order, each completed request measured
//! (response: arrival to the end of its last command; service: from when its first command
//! started; a request that arrives with no other in flight found the system idle, for the
//! saturation verdict), and the system offered background work after each request is issued, when
//! background work finishes and when a device runs out of commands (`System::background`). In
//! a closed loop the next request arrives when fewer than `iodepth` requests are in flight (1:
//! when the one before it completes). `System::idle` is not offered: an overlapped system's
//! background work is `System::background`. A system replayed as a translated trace
//! (`Concurrency::Translated`) has each request's commands issued unordered (`IoCtx::overlap`).
//!
//! The engine uses it for systems that can overlap (`Concurrency::Overlapped`, `Translated`) in
//! an open-loop replay on devices that queue, in a closed loop that keeps more than one request
//! in flight, or whenever the system has background work; a system that cannot overlap is
//! refused either of the first two. Not here: the replay's measures (`engine`).

use rustc_hash::FxHashMap;
use smr_core::{ParamError, Request};

use super::{EngineConfig, Replay, ReplayMode};
use crate::error::SimError;
use crate::ioctx::Completed;
use crate::ioctx::IoCtx;
use crate::system::{Concurrency, System};

pub(crate) struct Overlapped {
    /// Requests issued and not yet completed: the request and its arrival, by sequence number.
    pending: FxHashMap<u64, (Request, u64)>,
    next_seq: u64,
    /// A closed loop: each request arrives when fewer than this many are in flight; 0 in an
    /// open loop.
    closed_depth: usize,
    completed: Vec<Completed>,
}

impl Overlapped {
    /// The overlapped replay, when the system and its devices call for one (see the module
    /// documentation); from then on `ctx` issues I/O into chains.
    pub(crate) fn wanted(
        system: &dyn System,
        ctx: &mut IoCtx,
        config: &EngineConfig,
    ) -> Result<Option<Self>, SimError> {
        let open = matches!(config.mode, ReplayMode::Open { .. });
        let queues = ctx.max_queue_depth() > 1;
        let deep = !open && config.iodepth > 1;
        let (overlap, translated) = match system.concurrency() {
            Concurrency::Overlapped { background } => (background || (open && queues) || deep, None),
            Concurrency::Translated { max_command } => ((open && queues) || deep, Some(max_command)),
            Concurrency::Serial if open && queues => {
                let message = "is above 1, but this system serves one request at a time (it times its own overlapped I/O), so an open-loop replay cannot queue its requests at the disk: use a queue depth of 1 or a closed-loop replay";
                return Err(ParamError::new("disk_queue_depth", message).into());
            }
            Concurrency::Serial if deep => {
                let message = format!("{} requests in flight, but this system serves one request at a time (it times its own overlapped I/O): use an iodepth of 1", config.iodepth);
                return Err(ParamError::new("iodepth", message).into());
            }
            Concurrency::Serial => (false, None),
        };
        if !overlap {
            return Ok(None);
        }
        ctx.overlap(translated);
        let closed_depth = if open { 0 } else { config.iodepth as usize };
        Ok(Some(Overlapped { pending: FxHashMap::default(), next_seq: 0, closed_depth, completed: Vec::new() }))
    }

    /// The same replay, but each request is served to its end before the next arrives, as in a
    /// closed loop, while arrivals keep their own times (a `Session`).
    pub(crate) fn awaiting_each(self) -> Self {
        Overlapped { closed_depth: 1, ..self }
    }

    /// Serves `req`, arriving at `arrival`: what completes before then is measured, then the
    /// request's I/O is issued (`Replay::serve`) and background work offered. Out of line, so
    /// that the engine's loop for serial replays stays as compact as it was.
    #[inline(never)]
    pub(crate) fn serve(
        &mut self,
        replay: &mut Replay<'_>,
        system: &mut dyn System,
        ctx: &mut IoCtx,
        req: &Request,
        arrival: u64,
    ) -> Result<(), SimError> {
        self.run(replay, system, ctx, |_, ctx| ctx.next_event().is_some_and(|t| t <= arrival))?;
        ctx.advance_to(arrival);
        let seq = self.next_seq;
        self.next_seq += 1;
        if self.pending.is_empty() {
            replay.found_idle(seq);
        }
        ctx.begin_request(seq);
        let served = replay.serve(system, ctx, req);
        ctx.end_request();
        served?;
        self.pending.insert(seq, (*req, arrival));
        system.background(ctx)?;
        if self.closed_depth > 0 {
            self.run(replay, system, ctx, |o, _| o.pending.len() >= o.closed_depth)?;
        }
        self.measure(replay, system, ctx)
    }

    /// Runs everything in flight to its end, measuring what completes.
    pub(crate) fn finish(
        mut self,
        replay: &mut Replay<'_>,
        system: &mut dyn System,
        ctx: &mut IoCtx,
    ) -> Result<(), SimError> {
        self.run(replay, system, ctx, |_, ctx| ctx.next_event().is_some())
    }

    /// Takes completions in time order while `go_on` holds and one is in flight, measuring the
    /// requests that complete and offering background work on its cues.
    fn run(
        &mut self,
        replay: &mut Replay<'_>,
        system: &mut dyn System,
        ctx: &mut IoCtx,
        go_on: impl Fn(&Self, &IoCtx) -> bool,
    ) -> Result<(), SimError> {
        loop {
            self.measure(replay, system, ctx)?;
            if !go_on(self, ctx) || ctx.next_event().is_none() {
                return Ok(());
            }
            ctx.step();
            if ctx.take_background_cue() {
                system.background(ctx)?;
            }
        }
    }

    /// Measures the requests completed since last asked.
    fn measure(&mut self, replay: &mut Replay<'_>, system: &dyn System, ctx: &mut IoCtx) -> Result<(), SimError> {
        ctx.take_completed(&mut self.completed);
        for done in self.completed.drain(..) {
            let (req, arrival) = self.pending.remove(&done.seq).expect("a completed request was issued");
            replay.measure(system, &req, arrival, done.started, done.ended)?;
        }
        Ok(())
    }
}
