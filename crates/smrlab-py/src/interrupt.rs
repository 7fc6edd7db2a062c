//! Ctrl-C during a long pass in Rust: a check, called every `CHECK_EVERY` requests from the
//! Rust side, that takes the GIL, lets Python run its signal handlers, and keeps the
//! `KeyboardInterrupt` they raise so the binding returns it instead of the error the stopped
//! pass ends with.

use std::sync::{Arc, Mutex};

use pyo3::prelude::*;

/// Signals seen during one call into Rust.
#[derive(Clone, Default)]
pub struct Signals {
    pending: Arc<Mutex<Option<PyErr>>>,
}

impl Signals {
    /// True to go on; false (and the exception kept) once a signal handler raised.
    pub fn go_on(&self) -> bool {
        Python::with_gil(|py| match py.check_signals() {
            Ok(()) => true,
            Err(e) => {
                if let Ok(mut pending) = self.pending.lock() {
                    *pending = Some(e);
                }
                false
            }
        })
    }

    /// A check for `smr_trace::Interruptible`.
    pub fn check(&self) -> impl FnMut(u64) -> bool + Send + 'static {
        let signals = self.clone();
        move |_| signals.go_on()
    }

    /// `result`, unless a signal handler raised meanwhile: then that exception.
    pub fn result<T, E>(&self, result: Result<T, E>, convert: impl FnOnce(E) -> PyErr) -> PyResult<T> {
        if let Some(e) = self.pending.lock().ok().and_then(|mut p| p.take()) {
            return Err(e);
        }
        result.map_err(convert)
    }
}
