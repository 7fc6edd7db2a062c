//! Stopping a long pass over a trace when the user asks (Ctrl-C): an iterator adaptor that asks
//! a check every `CHECK_EVERY` requests whether to go on, and otherwise ends the stream with a
//! `TraceError::Interrupted`, so every consumer (statistics, conversion, the simulator's first
//! pass) stops at once without knowing why.
//!
//! Not here: how the check learns of the request (the Python bindings look for a pending
//! signal) or what is done about the files being written (the caller's business).

use super::TraceError;
use smr_core::request::Request;

/// Requests between two checks: often enough to stop well within a second at any reader's speed.
pub const CHECK_EVERY: u64 = 1 << 16;

/// `input`, ended with `Interrupted` as soon as `go_on(requests so far)` says no.
pub struct Interruptible<I, F> {
    input: I,
    go_on: F,
    seen: u64,
    stopped: bool,
}

impl<I, F> Interruptible<I, F>
where
    I: Iterator<Item = Result<Request, TraceError>>,
    F: FnMut(u64) -> bool,
{
    pub fn new(input: I, go_on: F) -> Self {
        Interruptible { input, go_on, seen: 0, stopped: false }
    }
}

impl<I, F> Iterator for Interruptible<I, F>
where
    I: Iterator<Item = Result<Request, TraceError>>,
    F: FnMut(u64) -> bool,
{
    type Item = Result<Request, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.stopped {
            return None;
        }
        self.seen += 1;
        if self.seen.is_multiple_of(CHECK_EVERY) && !(self.go_on)(self.seen) {
            self.stopped = true;
            return Some(Err(TraceError::Interrupted));
        }
        self.input.next()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smr_core::request::Op;

    #[test]
    fn the_stream_ends_with_interrupted_at_the_first_check_that_says_stop() {
        let endless = std::iter::repeat_with(|| Ok(Request::new(0, Op::Read, 0, 4096)));
        let mut checks = 0;
        let items: Vec<_> = Interruptible::new(endless, |seen| {
            checks += 1;
            seen < 3 * CHECK_EVERY
        })
        .collect();
        assert_eq!(checks, 3);
        assert_eq!(items.len() as u64, 3 * CHECK_EVERY);
        assert!(matches!(items.last(), Some(Err(TraceError::Interrupted))));
    }
}
