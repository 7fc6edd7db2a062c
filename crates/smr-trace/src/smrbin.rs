//! smrlab's own binary trace format, for fast re-runs: a header, fixed 24-byte little-endian
//! records `time_ns u64, offset u64, len u32, op u8, 3 zero bytes`, and the trace's statistics.
//!
//! Version 3 (written): a 24-byte header (`SMRLABTR`, version u32 = 3, record size u32 = 24,
//! record count u64), the records, then a statistics block: its length u32, the CRC-32 of its
//! bytes u32, and the bytes: the length u32 of `TraceStats` as JSON, that JSON, then the
//! footprint's written and its accessed extents, each as a count u64 and that many
//! `(offset u64, length u64)` pairs. A run then sizes its system from the block instead of
//! reading the trace twice (the footprint pass was a tenth of a replay). The extents are binary
//! because a scattered trace has hundreds of thousands of them: as JSON (version 2) their parse
//! took a third of a replay of a million requests on a plain disk, where reading the pairs is a
//! copy. Both versions' extents are checked on reading (`check_extents`).
//!
//! The writer learns the count and the statistics only at the end, so it writes `UNKNOWN_COUNT`
//! first and patches the header when it finishes: a file whose writer stopped early, or one
//! written compressed (a stream cannot be patched), says `UNKNOWN_COUNT`, has no statistics
//! block, and its records run to the end of the file. (A writer stopped between writing the
//! block and patching the count leaves the block where records are read: the block's 21st byte,
//! the JSON's 9th, always printable, falls on a record's op code, so reading fails there with an
//! error, never a request made of statistics.)
//!
//! Read only: version 2, whose block is one JSON value holding the statistics and both extent
//! lists, and version 1, a 16-byte header (no count) and records to the end of the file.
//!
//! The checksum guards the statistics, not the records (a record's fields are checked as it is
//! read); a file whose records were edited in place after it was written keeps statistics that
//! no longer describe it, as any file with a stored summary would.
//!
//! An uncompressed file is memory-mapped (memmap2) and decoded in place; a compressed one
//! (`.smrbin.zst` etc.) is streamed. A request longer than 4 GiB cannot be stored (an error).

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::records::{read_full, u32_at, u64_at, FixedRecords};
use super::{StatsPass, TraceError, TraceReader, TraceStats};
use smr_core::request::{Op, Request};

const MAGIC: &[u8; 8] = b"SMRLABTR";
const VERSION: u32 = 3;
/// The version whose statistics block is all JSON (read only).
const VERSION_JSON_STATS: u32 = 2;
/// The header of version 1 files, which have no record count.
const HEADER_V1: usize = 16;
pub const HEADER: usize = 24;
pub const RECORD: usize = 24;
/// Where the record count sits in a header of version 2 or later.
const COUNT_AT: u64 = 16;
/// The record count of a file whose writer did not finish, or wrote it compressed.
const UNKNOWN_COUNT: u64 = u64::MAX;
/// How far ahead of the record being decoded the mapped reader asks for the file's bytes.
const PREFETCH_AHEAD: usize = 1024;
/// The statistics block's length and checksum fields.
const STATS_PREFIX: usize = 8;

/// Why a record is not a request: its op code, or its byte range.
enum BadRecord {
    Op(u8),
    Range(smr_core::request::RangeError),
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

/// What a header says: its version, where the records start and, for a finished file of
/// version 2 or later, how many there are.
struct Header {
    version: u32,
    records_at: usize,
    count: Option<u64>,
}

/// Reads the header at the start of `head` (at least `HEADER` bytes of the file, if it has them).
fn parse_header(head: &[u8], path: &Path) -> Result<Header, TraceError> {
    let corrupt = |message: String| TraceError::Corrupt { path: path.to_path_buf(), offset: 0, message };
    if head.len() < HEADER_V1 || &head[..8] != MAGIC {
        return Err(corrupt("not an smrbin trace (bad magic)".into()));
    }
    match (u32_at(head, 8), u32_at(head, 12) as usize) {
        (1, RECORD) => Ok(Header { version: 1, records_at: HEADER_V1, count: None }),
        (version @ (VERSION_JSON_STATS | VERSION), RECORD) if head.len() >= HEADER => {
            let count = u64_at(head, COUNT_AT as usize);
            Ok(Header { version, records_at: HEADER, count: (count != UNKNOWN_COUNT).then_some(count) })
        }
        (VERSION_JSON_STATS | VERSION, RECORD) => Err(corrupt(format!("the file ends inside its {HEADER}-byte header: truncated?"))),
        (version, size) => Err(corrupt(format!(
            "smrbin version {version} with {size}-byte records is not supported (expected version 1 to {VERSION}, {RECORD} bytes)"
        ))),
    }
}

/// The statistics block that starts at byte `at` of `file` and must end it, checked; `version`
/// is the file's (2 or later).
fn read_stats(file: &[u8], at: usize, count: u64, version: u32, path: &Path) -> Result<TraceStats, TraceError> {
    let corrupt = |message: String| TraceError::Corrupt { path: path.to_path_buf(), offset: at as u64, message };
    let Some(prefix) = file.get(at..at + STATS_PREFIX) else {
        return Err(corrupt(format!(
            "the header announces {count} records, and the file ends before their statistics: truncated?"
        )));
    };
    let (len, crc) = (u32_at(prefix, 0) as usize, u32_at(prefix, 4));
    let block = &file[at + STATS_PREFIX..];
    if block.len() != len {
        return Err(corrupt(format!(
            "the statistics block should be {len} bytes and the file holds {} after it: truncated or appended to?",
            block.len()
        )));
    }
    if crc32fast::hash(block) != crc {
        return Err(corrupt("the statistics block fails its checksum".into()));
    }
    let (mut stats, written_extents, accessed_extents): (TraceStats, Extents, Extents) = match version {
        VERSION_JSON_STATS => from_json(block),
        _ => decode_stats(block),
    }
    .map_err(corrupt)?;
    check_extents(&written_extents, "written")
        .and_then(|()| check_extents(&accessed_extents, "accessed"))
        .map_err(corrupt)?;
    if stats.requests != count {
        return Err(corrupt(format!("the statistics count {} requests and the header {count}", stats.requests)));
    }
    stats.derive_ratios();
    stats.written_extents = written_extents;
    stats.accessed_extents = accessed_extents;
    Ok(stats)
}

/// The JSON part of a statistics block (all of it in version 2), decoded.
fn from_json<T: serde::de::DeserializeOwned>(json: &[u8]) -> Result<T, String> {
    serde_json::from_slice(json).map_err(|e| format!("the statistics block is not readable: {e}"))
}

/// Extents as a list of `(offset, length)` pairs.
type Extents = Vec<(u64, u64)>;

/// The bytes of a version 3 statistics block: the statistics and the written and accessed
/// extents.
fn decode_stats(block: &[u8]) -> Result<(TraceStats, Extents, Extents), String> {
    let json_and_rest = block
        .split_first_chunk::<4>()
        .and_then(|(len, after)| after.split_at_checked(u32::from_le_bytes(*len) as usize));
    let Some((json, mut rest)) = json_and_rest else {
        return Err("the statistics block ends inside its JSON".into());
    };
    let stats = from_json(json)?;
    let written = take_extents(&mut rest, "written")?;
    let accessed = take_extents(&mut rest, "accessed")?;
    if !rest.is_empty() {
        return Err(format!("the statistics block has {} bytes after its extents", rest.len()));
    }
    Ok((stats, written, accessed))
}

/// Bytes per stored extent: its offset and its length.
const EXTENT_BYTES: usize = 16;

/// The `what` extents at the start of `rest` (a count, then the pairs), which it moves past.
fn take_extents(rest: &mut &[u8], what: &str) -> Result<Extents, String> {
    let ends_inside = || format!("the statistics block ends inside its {what} extents");
    let (count, after_count) = rest.split_first_chunk::<8>().ok_or_else(ends_inside)?;
    let count = u64::from_le_bytes(*count);
    let bytes = usize::try_from(count)
        .ok()
        .and_then(|n| n.checked_mul(EXTENT_BYTES))
        .filter(|&n| n <= after_count.len())
        .ok_or_else(ends_inside)?;
    let (pairs, after) = after_count.split_at(bytes);
    *rest = after;
    Ok(pairs.chunks_exact(EXTENT_BYTES).map(|pair| (u64_at(pair, 0), u64_at(pair, 8))).collect())
}

/// Checks that the `what` extents are non-empty, ascending, disjoint and below 2^64, as the
/// statistics pass makes them: a block whose checksum holds may still carry lists that the
/// systems sizing themselves from them would misread.
fn check_extents(extents: &[(u64, u64)], what: &str) -> Result<(), String> {
    let mut free_from = 0u64;
    for (i, &(offset, len)) in extents.iter().enumerate() {
        match offset.checked_add(len) {
            Some(end) if offset >= free_from && len > 0 => free_from = end,
            _ => {
                return Err(format!(
                    "{what} extent {} of {} ({offset}, {len} bytes) is empty, out of order or past 2^64",
                    i + 1,
                    extents.len()
                ))
            }
        }
    }
    Ok(())
}

/// A memory-mapped smrbin file.
pub struct Mapped {
    map: Mmap,
    pos: usize,
    /// Where the records end (the statistics block, or the end of the file).
    end: usize,
    path: PathBuf,
    failed: bool,
    /// Boxed: the reader is moved about, the statistics are read once.
    stats: Option<Box<TraceStats>>,
}

impl Mapped {
    /// The statistics the file carries (a finished file of version 2 or later).
    pub fn stored_stats(&self) -> Option<&TraceStats> {
        self.stats.as_deref()
    }

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
        // The records a kilobyte on: read one by one, each cache line of the map was a stall
        // to memory (a seventh of a dmsmr replay), which the CPU's own prefetcher left to the
        // demand load.
        if let Some(ahead) = self.map.get(self.pos + PREFETCH_AHEAD) {
            smr_core::prefetch::prefetch(ahead);
        }
        let rest = self.map.get(self.pos..self.end).filter(|_| !self.failed)?;
        let Some(record) = rest.first_chunk::<RECORD>() else {
            return if rest.is_empty() {
                None
            } else {
                self.fail(format!("the file ends inside a {RECORD}-byte record: truncated?"))
            };
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
    let header = parse_header(&map[..map.len().min(HEADER)], path)?;
    let (end, stats) = match header.count {
        None => (map.len(), None),
        Some(count) => {
            let end = usize::try_from(count)
                .ok()
                .and_then(|n| n.checked_mul(RECORD)?.checked_add(header.records_at))
                .filter(|&end| end <= map.len());
            let Some(end) = end else {
                return Err(TraceError::Corrupt {
                    path: path.to_path_buf(),
                    offset: map.len() as u64,
                    message: format!("the header announces {count} records and the file ends before them: truncated?"),
                });
            };
            (end, Some(Box::new(read_stats(&map, end, count, header.version, path)?)))
        }
    };
    Ok(TraceReader::Mapped(Mapped { map, pos: header.records_at, end, path: path.to_path_buf(), failed: false, stats }))
}

/// Opens a (decompressed) smrbin stream. Statistics are not read from a stream (a run reads it
/// twice instead); its records stop where the header's count says.
pub fn open_stream(mut input: Box<dyn Read + Send>, path: &Path) -> Result<TraceReader, TraceError> {
    let mut head = [0u8; HEADER];
    let n = read_full(&mut input, &mut head).map_err(|e| TraceError::io(path, e))?;
    let header = parse_header(&head[..n], path)?;
    // A version 1 header is shorter: what was read past it begins the first record.
    let input = Box::new(std::io::Cursor::new(head[header.records_at.min(n)..n].to_vec()).chain(input));
    let records_at = header.records_at as u64;
    Ok(match header.count {
        None => TraceReader::boxed(FixedRecords::new(input, path.to_path_buf(), records_at, RECORD, decode)),
        Some(count) => {
            let records = FixedRecords::new(
                Box::new(input.take(count.saturating_mul(RECORD as u64))),
                path.to_path_buf(),
                records_at,
                RECORD,
                decode,
            );
            TraceReader::boxed(Counted { records, count, read: 0, records_at, path: path.to_path_buf(), done: false })
        }
    })
}

/// A finished stream's records (version 2 or later): as many as its header announces, or an error.
struct Counted {
    records: FixedRecords,
    count: u64,
    read: u64,
    records_at: u64,
    path: PathBuf,
    done: bool,
}

impl Iterator for Counted {
    type Item = Result<Request, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        match self.records.next() {
            Some(Ok(request)) => {
                self.read += 1;
                Some(Ok(request))
            }
            Some(Err(e)) => {
                self.done = true;
                Some(Err(e))
            }
            None => {
                self.done = true;
                (self.read < self.count).then(|| {
                    Err(TraceError::Corrupt {
                        path: self.path.clone(),
                        offset: self.records_at + self.read * RECORD as u64,
                        message: format!(
                            "the stream ends after {} of the {} records its header announces: truncated?",
                            self.read, self.count
                        ),
                    })
                })
            }
        }
    }
}

/// Writes a version 3 header whose record count is not known yet (`finish_file` patches it).
pub fn write_header(out: &mut dyn Write) -> std::io::Result<()> {
    out.write_all(MAGIC)?;
    out.write_all(&VERSION.to_le_bytes())?;
    out.write_all(&(RECORD as u32).to_le_bytes())?;
    out.write_all(&UNKNOWN_COUNT.to_le_bytes())
}

/// Writes the statistics block of the records written (the file's end).
pub fn write_stats(out: &mut dyn Write, stats: StatsPass) -> std::io::Result<()> {
    let stats = stats.finish();
    let json = serde_json::to_vec(&stats).map_err(std::io::Error::other)?;
    let extents = stats.written_extents.len() + stats.accessed_extents.len();
    let mut block = Vec::with_capacity(4 + json.len() + 2 * 8 + extents * EXTENT_BYTES);
    block.extend_from_slice(&(json.len() as u32).to_le_bytes());
    block.extend_from_slice(&json);
    for list in [&stats.written_extents, &stats.accessed_extents] {
        block.extend_from_slice(&(list.len() as u64).to_le_bytes());
        for &(offset, len) in list {
            block.extend_from_slice(&offset.to_le_bytes());
            block.extend_from_slice(&len.to_le_bytes());
        }
    }
    let len =
        u32::try_from(block.len()).map_err(|_| std::io::Error::other("the statistics block is larger than 4 GiB"))?;
    out.write_all(&len.to_le_bytes())?;
    out.write_all(&crc32fast::hash(&block).to_le_bytes())?;
    out.write_all(&block)
}

/// Writes the record count into the header of the finished file at `path`, which makes its
/// statistics block count (the last step of writing it).
pub fn patch_count(path: &Path, count: u64) -> std::io::Result<()> {
    use std::os::unix::fs::FileExt;
    std::fs::OpenOptions::new().write(true).open(path)?.write_all_at(&count.to_le_bytes(), COUNT_AT)
}

/// Writes one record; a request longer than `u32::MAX` bytes is refused.
pub fn write_record(out: &mut dyn Write, req: &Request) -> std::io::Result<()> {
    let len = u32::try_from(req.len).map_err(|_| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("request of {} bytes is too long for smrbin (max 4 GiB)", req.len),
        )
    })?;
    let mut rec = [0u8; RECORD];
    rec[0..8].copy_from_slice(&req.time_ns.to_le_bytes());
    rec[8..16].copy_from_slice(&req.offset.to_le_bytes());
    rec[16..20].copy_from_slice(&len.to_le_bytes());
    rec[20] = req.op as u8;
    out.write_all(&rec)
}
