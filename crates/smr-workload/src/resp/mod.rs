//! The Redis serialization protocol, RESP2 and RESP3: parsing a client's commands (arrays of
//! bulk strings, or inline commands as `redis-cli` typed into telnet sends them; the same in
//! both versions) with limits checked before anything is allocated, encoding replies in the
//! connection's version (`encode`), and parsing replies for our own client (`reply`). A parser
//! never panics and never waits: given the bytes so far it returns a command, "need more
//! bytes", or a protocol error naming what was wrong.

use std::ops::Range;

pub mod encode;
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

/// Parses one command starting at `at` in `buf`: appends where each of its arguments lies in
/// `buf` to `args` (nothing is copied) and returns where the command ends, or `None` until all
/// of it has arrived (then `args` is as it was). An empty inline line is a command without
/// arguments.
pub fn parse_command(
    buf: &[u8],
    at: usize,
    limits: &Limits,
    args: &mut Vec<Range<usize>>,
) -> Result<Option<usize>, ProtocolError> {
    let before = args.len();
    let parsed = match buf.get(at) {
        None => Ok(None),
        Some(b'*') => parse_array(buf, at, limits, args),
        Some(_) => parse_inline(buf, at, limits, args),
    };
    if !matches!(parsed, Ok(Some(_))) {
        args.truncate(before);
    }
    parsed
}

fn parse_array(
    buf: &[u8],
    at: usize,
    limits: &Limits,
    args: &mut Vec<Range<usize>>,
) -> Result<Option<usize>, ProtocolError> {
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
        args.push(start..end);
        at = end + 2;
    }
    Ok(Some(at))
}

fn parse_inline(
    buf: &[u8],
    at: usize,
    limits: &Limits,
    args: &mut Vec<Range<usize>>,
) -> Result<Option<usize>, ProtocolError> {
    let rest = &buf[at..];
    let Some(nl) = rest.iter().take(limits.max_inline + 1).position(|&b| b == b'\n') else {
        if rest.len() > limits.max_inline {
            return Err(ProtocolError(format!("inline command longer than {} bytes", limits.max_inline)));
        }
        return Ok(None);
    };
    let mut word_start = None;
    for (i, b) in rest[..nl].iter().enumerate().chain([(nl, &b' ')]) {
        match (b.is_ascii_whitespace(), word_start) {
            (false, None) => word_start = Some(i),
            (true, Some(s)) => {
                args.push(at + s..at + i);
                word_start = None;
            }
            _ => {}
        }
    }
    Ok(Some(at + nl + 1))
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
