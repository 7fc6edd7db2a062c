//! The locks both stores (SMRDB and its offloading variant) guard their state with, and what
//! they decide under them alike: the writer, the metadata record, the state readers snapshot
//! with whether the store still takes writes, and the two signals between the writing threads
//! and the background thread. Each store's module comment says the order its locks are taken
//! in. Not here: what a store's writer or current state hold beyond that (`state`, `offload`),
//! or closing itself (`lifecycle`).

use std::sync::{Condvar, Mutex};

use crate::error::{Error, Result};
use crate::manifest::Manifest;
use crate::util::mutex::lock;

/// Whether a store still takes writes, kept in its current state (under `current`, so a thread
/// that waits on a signal sees it change).
#[derive(Default)]
pub(crate) struct Standing {
    pub closing: bool,
    /// Set when a log write failed (under `writer` too): later writes are refused, as the log's
    /// tail is unknown, and closing does not sync it.
    pub writer_error: Option<String>,
    /// Set when background work failed; writes are refused from then on.
    pub background_error: Option<String>,
}

impl Standing {
    /// Closing, or failed in the background: background work stops, waiters give up.
    pub fn stopped(&self) -> bool {
        self.closing || self.background_error.is_some()
    }
}

/// Why writes are refused after `what` failed with `e`, and what to do: a full device is still
/// full when reopened (the store then opens read-only, `e` says so); anything else is retried
/// by reopening the store.
fn failure(what: &str, e: &Error) -> String {
    match e {
        Error::DeviceFull { .. } => format!("{what} failed: {e}"),
        _ => format!("{what} failed: {e}; reopen the store to write again"),
    }
}

/// A store's current state, as the shared decisions need it.
pub(crate) trait CurrentState {
    fn standing(&mut self) -> &mut Standing;
}

/// A store's locks: `W` its writer, `C` what readers snapshot.
pub(crate) struct Guarded<W, C> {
    pub writer: Mutex<W>,
    pub meta: Mutex<Manifest>,
    pub current: Mutex<C>,
    /// Signalled when there may be background work (or the store closes).
    pub work: Condvar,
    /// Signalled when background work finished a step (writers may be waiting for it).
    pub progress: Condvar,
}

impl<W, C: CurrentState> Guarded<W, C> {
    pub fn new(writer: W, meta: Manifest, current: C) -> Self {
        Guarded {
            writer: Mutex::new(writer),
            meta: Mutex::new(meta),
            current: Mutex::new(current),
            work: Condvar::new(),
            progress: Condvar::new(),
        }
    }

    /// Tells the background thread to stop and wakes whoever waits on the store.
    pub fn mark_closing(&self) {
        lock(&self.current).standing().closing = true;
        self.work.notify_all();
        self.progress.notify_all();
    }

    /// Records that a log write failed (the caller holds the writer); returns `e`.
    pub fn log_failed(&self, what: &str, e: Error) -> Error {
        lock(&self.current).standing().writer_error = Some(failure(what, &e));
        e
    }

    /// Records that background work (`what`) failed with `e`: writes are refused from then on.
    pub fn background_failed(&self, what: &str, e: &Error) {
        lock(&self.current).standing().background_error = Some(failure(what, e));
    }

    /// Makes every write the log took durable with `sync`, unless a log write failed (its tail
    /// is unknown).
    pub fn sync_log(&self, sync: impl FnOnce(&mut W) -> Result<()>) -> Result<()> {
        let mut w = lock(&self.writer);
        if lock(&self.current).standing().writer_error.is_some() {
            return Ok(());
        }
        sync(&mut w)
    }

    /// Refuses a write to `store` (the caller holds the writer) once a log write failed, the
    /// store is closing, or background work failed.
    pub fn refuse_if_failed(&self, store: &str) -> Result<()> {
        let refused = |problem: &String| Error::WritesRefused { store: store.into(), problem: problem.clone() };
        let mut c = lock(&self.current);
        let standing = c.standing();
        if let Some(problem) = &standing.writer_error {
            return Err(refused(problem));
        }
        if standing.closing {
            return Err(Error::Closed { store: store.into() });
        }
        standing.background_error.as_ref().map_or(Ok(()), |p| Err(refused(p)))
    }
}
