//! Writing the protocol: a connection's replies in the version it speaks (`Replies`), and the
//! RESP2 pieces they and our own client share (a command is an array of bulk strings).
//!
//! A connection starts in RESP2 and HELLO 3 switches it to RESP3 (as in Redis 6 and later).
//! The two differ, for the replies this server gives, in three types: RESP3's null (`_`), which
//! RESP2 writes as the null bulk string; its map (`%`), which RESP2 writes as a flat array of
//! keys and values; and its verbatim string (`=`, INFO's text), which RESP2 writes as a bulk
//! string. RESP3's doubles, booleans, sets and pushes are not written at all: Redis answers
//! none of the commands this server knows with them (SCAN, KEYS and HGETALL's values are bulk
//! strings there too), and it has no publish/subscribe to push with.
//!
//! Not here: which command answers with which type (`server::commands`); reading replies
//! (`reply`).

use std::io::Write;

/// The protocol version a connection speaks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Protocol {
    #[default]
    Resp2,
    Resp3,
}

impl Protocol {
    pub fn number(self) -> i64 {
        match self {
            Protocol::Resp2 => 2,
            Protocol::Resp3 => 3,
        }
    }
}

pub fn simple(out: &mut Vec<u8>, text: &str) {
    out.push(b'+');
    out.extend_from_slice(text.as_bytes());
    out.extend_from_slice(b"\r\n");
}

/// An error reply; line breaks in `text` become spaces (a reply line must not break), as
/// Redis does.
pub fn error(out: &mut Vec<u8>, text: &str) {
    out.push(b'-');
    out.extend(text.bytes().map(|b| if b == b'\r' || b == b'\n' { b' ' } else { b }));
    out.extend_from_slice(b"\r\n");
}

/// A header line: a type byte and a decimal number (written without allocating).
fn header(out: &mut Vec<u8>, kind: u8, n: impl std::fmt::Display) {
    out.push(kind);
    let _ = write!(out, "{n}\r\n");
}

pub fn integer(out: &mut Vec<u8>, n: i64) {
    header(out, b':', n);
}

/// A bulk string, or RESP2's null bulk string for `None`.
pub fn bulk(out: &mut Vec<u8>, data: Option<&[u8]>) {
    match data {
        None => out.extend_from_slice(b"$-1\r\n"),
        Some(d) => {
            header(out, b'$', d.len());
            out.extend_from_slice(d);
            out.extend_from_slice(b"\r\n");
        }
    }
}

pub fn array_header(out: &mut Vec<u8>, n: usize) {
    header(out, b'*', n);
}

/// A command as a client sends it: an array of bulk strings.
pub fn command(out: &mut Vec<u8>, args: &[&[u8]]) {
    array_header(out, args.len());
    for a in args {
        bulk(out, Some(a));
    }
}

/// The replies of one connection, written in its protocol version.
#[derive(Debug, Default)]
pub struct Replies {
    bytes: Vec<u8>,
    pub protocol: Protocol,
}

impl Replies {
    pub fn new(protocol: Protocol) -> Replies {
        Replies { bytes: Vec::new(), protocol }
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Where the next reply starts, to go back to with `truncate`.
    pub fn mark(&self) -> usize {
        self.bytes.len()
    }

    /// Drops the replies written since `mark`.
    pub fn truncate(&mut self, mark: usize) {
        self.bytes.truncate(mark);
    }

    pub fn simple(&mut self, text: &str) {
        simple(&mut self.bytes, text);
    }

    pub fn ok(&mut self) {
        self.bytes.extend_from_slice(b"+OK\r\n");
    }

    pub fn error(&mut self, text: &str) {
        error(&mut self.bytes, text);
    }

    pub fn integer(&mut self, n: i64) {
        integer(&mut self.bytes, n);
    }

    pub fn bulk(&mut self, data: &[u8]) {
        bulk(&mut self.bytes, Some(data));
    }

    /// "No value": RESP3's null, RESP2's null bulk string.
    pub fn null(&mut self) {
        match self.protocol {
            Protocol::Resp2 => self.bytes.extend_from_slice(b"$-1\r\n"),
            Protocol::Resp3 => self.bytes.extend_from_slice(b"_\r\n"),
        }
    }

    /// A bulk string, or null for `None`.
    pub fn bulk_or_null(&mut self, data: Option<&[u8]>) {
        match data {
            Some(d) => self.bulk(d),
            None => self.null(),
        }
    }

    pub fn array(&mut self, n: usize) {
        array_header(&mut self.bytes, n);
    }

    /// A map of `n` pairs, each written after it as key then value; RESP2 has no maps and
    /// gets the flat array of 2n elements.
    pub fn map(&mut self, n: usize) {
        match self.protocol {
            Protocol::Resp2 => array_header(&mut self.bytes, 2 * n),
            Protocol::Resp3 => header(&mut self.bytes, b'%', n),
        }
    }

    /// Text meant to be shown as it is (INFO's): RESP3's verbatim string of format `txt`,
    /// RESP2's bulk string.
    pub fn verbatim(&mut self, text: &str) {
        match self.protocol {
            Protocol::Resp2 => self.bulk(text.as_bytes()),
            Protocol::Resp3 => {
                header(&mut self.bytes, b'=', text.len() + 4);
                self.bytes.extend_from_slice(b"txt:");
                self.bytes.extend_from_slice(text.as_bytes());
                self.bytes.extend_from_slice(b"\r\n");
            }
        }
    }
}
