//! The Redis serialization protocol, RESP2 and RESP3: parsing a client's commands (arrays of
//! bulk strings, or inline commands as typed into telnet, split as Redis splits them
//! (`inline`); the same in both versions) with limits checked before anything is allocated, encoding replies in the
//! connection's version (`encode`), and parsing replies for our own client (`reply`). A parser
//! never panics and never waits: given the bytes so far it returns a command, "need more
//! bytes", or a protocol error naming what was wrong.

use std::ops::Range;

pub mod encode;
mod inline;
mod reply;

pub use encode::{Protocol, Replies};
pub use reply::{parse_reply, Reply};

/// What a command may be at most; checked on the headers, before the bytes are read.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// Bytes of one bulk string (a key or value).
    pub max_bulk: usize,
    /// Elements of one command array.
    pub max_args: usize,
    /// Bytes of an inline command line.
    pub max_inline: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_bulk: 16 << 20, max_args: 1 << 20, max_inline: 64 << 10 }
    }
}

/// A line longer than this before its CRLF cannot be an array or bulk header.
const MAX_HEADER: usize = 32;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("Protocol error: {0}")]
pub struct ProtocolError(pub String);

/// The header line at `at` (up to CRLF), its number, and where the line ends; `None` if the
/// CRLF has not arrived.
fn header(buf: &[u8], at: usize, what: &str) -> Result<Option<(i64, usize)>, ProtocolError> {
    let window = &buf[at..buf.len().min(at + MAX_HEADER)];
    let Some(cr) = window.iter().position(|&b| b == b'\r') else {
        if window.len() >= MAX_HEADER {
            return Err(ProtocolError(format!("{what} header longer than {MAX_HEADER} bytes")));
        }
        return Ok(None);
    };
    if at + cr + 1 >= buf.len() {
        return Ok(None);
    }
    if buf[at + cr + 1] != b'\n' {
        return Err(ProtocolError(format!("{what} header not ended by CRLF")));
    }
    match decimal(&window[1..cr]) {
        Some(n) => Ok(Some((n, at + cr + 2))),
        None => Err(ProtocolError(format!("invalid {what} length"))),
    }
}

/// A header's decimal number: an optional minus sign and 1 to 18 digits (so it cannot
/// overflow; every length the limits admit is shorter).
fn decimal(text: &[u8]) -> Option<i64> {
    let (negative, digits) = match text {
        [b'-', rest @ ..] => (true, rest),
        _ => (false, text),
    };
    if digits.is_empty() || digits.len() > 18 || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = digits.iter().fold(0i64, |n, d| n * 10 + i64::from(d - b'0'));
    Some(if negative { -n } else { n })
}

/// Where a parsed argument's bytes are: in the input, or, for an inline argument with quotes
/// or escapes, decoded into the list's own bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Span {
    Input(Range<usize>),
    Decoded(Range<usize>),
}

/// The arguments of the commands parsed so far, in order.
#[derive(Clone, Debug, Default)]
pub struct Args {
    spans: Vec<Span>,
    decoded: Vec<u8>,
}

impl Args {
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn clear(&mut self) {
        self.spans.clear();
        self.decoded.clear();
    }

    /// Each argument's bytes, `input` being what the arguments were parsed from.
    pub fn slices<'a>(&'a self, input: &'a [u8]) -> impl Iterator<Item = &'a [u8]> {
        self.spans.iter().map(move |span| match span {
            Span::Input(r) => &input[r.clone()],
            Span::Decoded(r) => &self.decoded[r.clone()],
        })
    }

    fn push_input(&mut self, range: Range<usize>) {
        self.spans.push(Span::Input(range));
    }

    /// Starts a decoded argument; its bytes are then pushed to `decoded`.
    fn start_decoded(&mut self) -> usize {
        self.decoded.len()
    }

    fn end_decoded(&mut self, start: usize) {
        self.spans.push(Span::Decoded(start..self.decoded.len()));
    }

    /// Drops what was added after the list held `spans` arguments and `decoded` bytes.
    fn truncate(&mut self, spans: usize, decoded: usize) {
        self.spans.truncate(spans);
        self.decoded.truncate(decoded);
    }
}

/// Parses one command starting at `at` in `buf`: appends its arguments to `args` (where each
/// lies in `buf`: nothing is copied but inline arguments with quotes or escapes) and returns
/// where the command ends, or `None` until all of it has arrived (then `args` is as it was).
/// An empty inline line is a command without arguments.
pub fn parse_command(buf: &[u8], at: usize, limits: &Limits, args: &mut Args) -> Result<Option<usize>, ProtocolError> {
    let before = (args.spans.len(), args.decoded.len());
    let parsed = match buf.get(at) {
        None => Ok(None),
        Some(b'*') => parse_array(buf, at, limits, args),
        Some(_) => inline::parse_inline(buf, at, limits, args),
    };
    if !matches!(parsed, Ok(Some(_))) {
        args.truncate(before.0, before.1);
    }
    parsed
}

fn parse_array(buf: &[u8], at: usize, limits: &Limits, args: &mut Args) -> Result<Option<usize>, ProtocolError> {
    let Some((count, mut at)) = header(buf, at, "multibulk")? else { return Ok(None) };
    if count < 0 || count as u64 > limits.max_args as u64 {
        return Err(ProtocolError(format!("invalid multibulk length {count} (at most {})", limits.max_args)));
    }
    for _ in 0..count {
        if at >= buf.len() {
            return Ok(None);
        }
        if buf[at] != b'$' {
            return Err(ProtocolError(format!("expected '$', got '{}'", buf[at].escape_ascii())));
        }
        let Some((len, start)) = header(buf, at, "bulk")? else { return Ok(None) };
        if len < 0 || len as u64 > limits.max_bulk as u64 {
            return Err(ProtocolError(format!("invalid bulk length {len} (at most {})", limits.max_bulk)));
        }
        let end = start + len as usize;
        if buf.len() < end + 2 {
            return Ok(None);
        }
        if &buf[end..end + 2] != b"\r\n" {
            return Err(ProtocolError("bulk string not ended by CRLF".into()));
        }
        args.push_input(start..end);
        at = end + 2;
    }
    Ok(Some(at))
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
