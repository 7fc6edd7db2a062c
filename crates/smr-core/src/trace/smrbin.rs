//! smrlab's own binary trace format, for fast re-runs: a 16-byte header
//! (`SMRLABTR`, format version u32 = 1, record size u32 = 24) and then fixed 24-byte
//! little-endian records `time_ns u64, offset u64, len u32, op u8, 3 zero bytes`.
//!
//! An uncompressed file is memory-mapped (memmap2) and decoded in place; a compressed one
//! (`.smrbin.zst` etc.) is streamed. A request longer than 4 GiB cannot be stored (an error).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::records::{read_full, u32_at, u64_at, FixedRecords};
use super::{TraceError, TraceReader};
use crate::request::{Op, Request};

const MAGIC: &[u8; 8] = b"SMRLABTR";
const VERSION: u32 = 1;
pub const HEADER: usize = 16;
pub const RECORD: usize = 24;

/// Why a record is not a request: its op code, or its byte range.
enum BadRecord {
    Op(u8),
    Range(crate::request::RangeError),
}

impl std::fmt::Display for BadRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BadRecord::Op(code) => write!(f, "unknown op code {code}"),
            BadRecord::Range(e) => e.fmt(f),
        }
    }
}

/// One record as a request (on the memory-mapped reader's per-record path: no allocation
/// unless the record is bad).
#[inline]
fn request_of(b: &[u8; RECORD]) -> Result<Request, BadRecord> {
    let op = Op::from_code(b[20]).ok_or(BadRecord::Op(b[20]))?;
    Request::checked(u64_at(b, 0), op, u64_at(b, 8), u32_at(b, 16) as u64).map_err(BadRecord::Range)
}

/// One record for `FixedRecords` (the streamed reader).
fn decode(b: &[u8]) -> Result<Option<Request>, String> {
    let record = b.first_chunk::<RECORD>().expect("FixedRecords hands out whole records");
    request_of(record).map(Some).map_err(|e| e.to_string())
}

fn check_header(head: &[u8], path: &Path) -> Result<(), TraceError> {
    let corrupt = |message: String| TraceError::Corrupt { path: path.to_path_buf(), offset: 0, message };
    if head.len() < HEADER || &head[..8] != MAGIC {
        return Err(corrupt("not an smrbin trace (bad magic)".into()));
    }
    let (version, size) = (u32_at(head, 8), u32_at(head, 12));
    if version != VERSION || size as usize != RECORD {
        return Err(corrupt(format!("smrbin version {version} with {size}-byte records is not supported (expected version {VERSION}, {RECORD} bytes)")));
    }
    Ok(())
}

/// A memory-mapped smrbin file.
pub struct Mapped {
    map: Mmap,
    pos: usize,
    path: PathBuf,
    failed: bool,
}

impl Mapped {
    /// The error at the current record (which `request_of` refused, or which the file ends
    /// inside); reading stops there. Kept out of `next` so that its fast path stays small.
    #[cold]
    #[inline(never)]
    fn fail(&mut self, message: String) -> Option<Result<Request, TraceError>> {
        self.failed = true;
        Some(Err(TraceError::Corrupt { path: self.path.clone(), offset: self.pos as u64, message }))
    }
}

impl Iterator for Mapped {
    type Item = Result<Request, TraceError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let rest = self.map.get(self.pos..).filter(|_| !self.failed)?;
        let Some(record) = rest.first_chunk::<RECORD>() else {
            return if rest.is_empty() { None } else { self.fail(format!("the file ends inside a {RECORD}-byte record: truncated?")) };
        };
        match request_of(record) {
            Ok(request) => {
                self.pos += RECORD;
                Some(Ok(request))
            }
            Err(bad) => self.fail(bad.to_string()),
        }
    }
}

/// Opens an uncompressed smrbin file by memory-mapping it.
pub fn open_mapped(path: &Path) -> Result<TraceReader, TraceError> {
    let file = super::compress::open_file(path)?;
    // SAFETY: the map is read-only; smrlab never writes a trace while replaying it. A file
    // truncated by another process meanwhile would fault, as with any mmap reader.
    let map = unsafe { Mmap::map(&file) }.map_err(|e| TraceError::io(path, e))?;
    check_header(&map[..map.len().min(HEADER)], path)?;
    Ok(TraceReader::Mapped(Mapped { map, pos: HEADER, path: path.to_path_buf(), failed: false }))
}

/// Opens a (decompressed) smrbin stream.
pub fn open_stream(mut input: Box<dyn Read + Send>, path: &Path) -> Result<TraceReader, TraceError> {
    let mut head = [0u8; HEADER];
    let n = read_full(&mut input, &mut head).map_err(|e| TraceError::io(path, e))?;
    check_header(&head[..n], path)?;
    Ok(TraceReader::boxed(FixedRecords::new(input, path.to_path_buf(), HEADER as u64, RECORD, decode)))
}

pub fn write_header(out: &mut dyn Write) -> std::io::Result<()> {
    out.write_all(MAGIC)?;
    out.write_all(&VERSION.to_le_bytes())?;
    out.write_all(&(RECORD as u32).to_le_bytes())
}

/// Writes one record; a request longer than `u32::MAX` bytes is refused.
pub fn write_record(out: &mut dyn Write, req: &Request) -> std::io::Result<()> {
    let len = u32::try_from(req.len)
        .map_err(|_| std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("request of {} bytes is too long for smrbin (max 4 GiB)", req.len)))?;
    let mut rec = [0u8; RECORD];
    rec[0..8].copy_from_slice(&req.time_ns.to_le_bytes());
    rec[8..16].copy_from_slice(&req.offset.to_le_bytes());
    rec[16..20].copy_from_slice(&len.to_le_bytes());
    rec[20] = req.op as u8;
    out.write_all(&rec)
}
