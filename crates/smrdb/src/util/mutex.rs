//! Locking a mutex of a store's shared state, poisoned or not. Not here: which locks a store has
//! or the order they are taken in (each store's module comment says).

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex; the state behind these locks is replaced whole (Arcs, numbers), never left
/// half-changed by a panic, so a poisoned lock still guards consistent state.
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}
