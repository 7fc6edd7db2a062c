//! The shared driver of binary trace readers: fixed-size little-endian records read from a
//! stream, each decoded by a format's function; a file that ends inside a record is a `Corrupt`
//! error naming the byte offset. Formats only say how one record becomes a request.

use std::io::{ErrorKind, Read};
use std::path::PathBuf;

use super::TraceError;
use smr_core::request::Request;

/// Decodes one record; `Ok(None)` skips it (e.g. a SCSI command that moves no data).
pub type DecodeFn = fn(&[u8]) -> Result<Option<Request>, String>;

pub struct FixedRecords {
    input: Box<dyn Read + Send>,
    path: PathBuf,
    offset: u64,
    buf: Vec<u8>,
    decode: DecodeFn,
    failed: bool,
}

impl FixedRecords {
    /// `offset` is where the first record starts in the file (after any header already read).
    pub fn new(input: Box<dyn Read + Send>, path: PathBuf, offset: u64, record_size: usize, decode: DecodeFn) -> Self {
        FixedRecords { input, path, offset, buf: vec![0; record_size], decode, failed: false }
    }

    fn corrupt(&mut self, message: String) -> Option<Result<Request, TraceError>> {
        self.failed = true;
        Some(Err(TraceError::Corrupt { path: self.path.clone(), offset: self.offset, message }))
    }
}

/// Reads as many bytes as available into `buf`, up to its length; returns how many.
pub fn read_full(input: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut filled = 0;
    while filled < buf.len() {
        match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
}

impl Iterator for FixedRecords {
    type Item = Result<Request, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.failed {
                return None;
            }
            let size = self.buf.len();
            match read_full(&mut self.input, &mut self.buf) {
                Ok(0) => return None,
                Ok(n) if n < size => {
                    return self
                        .corrupt(format!("the file ends inside a {size}-byte record ({n} bytes left): truncated?"))
                }
                Ok(_) => {}
                Err(e) => return self.corrupt(e.to_string()),
            }
            match (self.decode)(&self.buf) {
                Ok(Some(req)) => {
                    self.offset += size as u64;
                    return Some(Ok(req));
                }
                Ok(None) => self.offset += size as u64,
                Err(message) => return self.corrupt(message),
            }
        }
    }
}

pub fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

pub fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

pub fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(bytes)
}
