//! The Redis serialization protocol, version 2 (RESP2): parsing a client's commands (arrays
//! of bulk strings, or inline commands as `redis-cli` typed into telnet sends them) with limits
//! checked before anything is allocated, encoding replies, and parsing replies for our own
//! client. A parser never panics and never waits: given the bytes so far it returns a
//! command, "need more bytes", or a protocol error naming what was wrong.

mod reply;

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

/// A parsed command: its arguments and the bytes it took.
pub type Parsed = Option<(Vec<Vec<u8>>, usize)>;

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
    let text = std::str::from_utf8(&window[1..cr]).ok().and_then(|t| t.parse::<i64>().ok());
    match text {
        Some(n) => Ok(Some((n, at + cr + 2))),
        None => Err(ProtocolError(format!("invalid {what} length"))),
    }
}

/// Parses one command from the start of `buf`.
pub fn parse_command(buf: &[u8], limits: &Limits) -> Result<Parsed, ProtocolError> {
    match buf.first() {
        None => Ok(None),
        Some(b'*') => parse_array(buf, limits),
        Some(_) => parse_inline(buf, limits),
    }
}

fn parse_array(buf: &[u8], limits: &Limits) -> Result<Parsed, ProtocolError> {
    let Some((count, mut at)) = header(buf, 0, "multibulk")? else { return Ok(None) };
    if count < 0 || count as u64 > limits.max_args as u64 {
        return Err(ProtocolError(format!("invalid multibulk length {count} (at most {})", limits.max_args)));
    }
    // Lengths are checked before the arguments are copied; the vector grows with what arrived.
    let mut args = Vec::with_capacity((count as usize).min(64));
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
        args.push(buf[start..end].to_vec());
        at = end + 2;
    }
    Ok(Some((args, at)))
}

fn parse_inline(buf: &[u8], limits: &Limits) -> Result<Parsed, ProtocolError> {
    let Some(nl) = buf.iter().take(limits.max_inline + 1).position(|&b| b == b'\n') else {
        if buf.len() > limits.max_inline {
            return Err(ProtocolError(format!("inline command longer than {} bytes", limits.max_inline)));
        }
        return Ok(None);
    };
    let line = buf[..nl].strip_suffix(b"\r").unwrap_or(&buf[..nl]);
    let args: Vec<Vec<u8>> = line.split(|b| b.is_ascii_whitespace()).filter(|w| !w.is_empty()).map(<[u8]>::to_vec).collect();
    Ok(Some((args, nl + 1)))
}

/// Reply encoders, appending to `out`.
pub mod encode {
    pub fn simple(out: &mut Vec<u8>, text: &str) {
        out.push(b'+');
        out.extend_from_slice(text.as_bytes());
        out.extend_from_slice(b"\r\n");
    }

    /// An error reply; line breaks in `text` become spaces (a reply line must not break).
    pub fn error(out: &mut Vec<u8>, text: &str) {
        out.push(b'-');
        out.extend(text.bytes().map(|b| if b == b'\r' || b == b'\n' { b' ' } else { b }));
        out.extend_from_slice(b"\r\n");
    }

    pub fn integer(out: &mut Vec<u8>, n: i64) {
        out.extend_from_slice(format!(":{n}\r\n").as_bytes());
    }

    /// A bulk string, or the null bulk string for `None`.
    pub fn bulk(out: &mut Vec<u8>, data: Option<&[u8]>) {
        match data {
            None => out.extend_from_slice(b"$-1\r\n"),
            Some(d) => {
                out.extend_from_slice(format!("${}\r\n", d.len()).as_bytes());
                out.extend_from_slice(d);
                out.extend_from_slice(b"\r\n");
            }
        }
    }

    pub fn array_header(out: &mut Vec<u8>, n: usize) {
        out.extend_from_slice(format!("*{n}\r\n").as_bytes());
    }

    /// A command as a client sends it: an array of bulk strings.
    pub fn command(out: &mut Vec<u8>, args: &[&[u8]]) {
        array_header(out, args.len());
        for a in args {
            bulk(out, Some(a));
        }
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
