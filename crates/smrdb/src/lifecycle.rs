//! What SMRDB and its offloading variant share of being open: the background thread (if any),
//! the lock file, whether the store was closed, and the one way both close (stop the thread,
//! make the log durable, give back retired bands, sync every device). Each store says what its
//! state does at each of those steps through `Closing`. Not here: opening (`recovery`,
//! `offload::open`), or what the background thread does.

use std::sync::Arc;
use std::thread::JoinHandle;

use crate::env::Env;
use crate::error::{Error, Result};
use crate::lock::LockFile;

/// A store's shared state, as closing needs it.
pub(crate) trait Closing: Send + Sync {
    /// Tells the background thread to stop and wakes whoever waits on the store.
    fn mark_closing(&self);
    /// Makes every write the log took durable, unless a log write failed (its tail is unknown).
    fn sync_log(&self) -> Result<()>;
    /// The devices' environments, disk first (the disk's names the store in errors).
    fn envs(&self) -> Vec<&Env>;
}

/// The store's name in errors: its disk's.
fn store(state: &dyn Closing) -> String {
    state.envs()[0].store.clone()
}

/// What a store's background thread runs.
pub(crate) type ThreadBody = Box<dyn FnOnce() + Send>;

/// An open store's background thread, lock file and closed flag. Dropping it closes the store
/// (errors at close are then lost; `close` reports them).
pub(crate) struct Lifecycle {
    state: Arc<dyn Closing>,
    thread: Option<JoinHandle<()>>,
    closed: bool,
    lock: Option<LockFile>,
}

impl Lifecycle {
    /// Starts `body` in a thread called `name` (`None`: the store does its background work
    /// inline, in the writing threads).
    pub fn start(state: Arc<dyn Closing>, thread: Option<(&str, ThreadBody)>) -> Result<Lifecycle> {
        let thread = match thread {
            None => None,
            Some((name, body)) => {
                Some(std::thread::Builder::new().name(name.into()).spawn(body).map_err(|source| Error::Io {
                    path: store(&*state),
                    op: "start compaction thread",
                    source,
                })?)
            }
        };
        Ok(Lifecycle { state, thread, closed: false, lock: None })
    }

    /// Holds `lock` until the store is closed.
    pub fn hold(&mut self, lock: LockFile) {
        self.lock = Some(lock);
    }

    pub fn check_open(&self) -> Result<()> {
        if self.closed {
            return Err(Error::Closed { store: store(&*self.state) });
        }
        Ok(())
    }

    /// Stops the background thread, makes every write durable and gives back retired bands;
    /// does nothing the second time.
    pub fn close(&mut self) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        self.closed = true;
        self.state.mark_closing();
        if let Some(thread) = self.thread.take() {
            // A panic in the thread is a bug; its state is already recorded as an error.
            let _ = thread.join();
        }
        self.state.sync_log()?;
        for env in self.state.envs() {
            env.reset_retired_now()?;
            env.sync()?;
        }
        Ok(())
    }
}

impl Drop for Lifecycle {
    fn drop(&mut self) {
        let _ = self.close();
    }
}
