//! Block traces: streaming readers and writers for every supported format, statistics,
//! synthesis and transforms.
//!
//! Every reader yields `Result<Request, TraceError>`; a malformed record is an error that names
//! the file and line (or byte offset), never a panic. Not here: replay (see `smr-sim`'s engine).

mod blkparse;
mod blocks;
pub mod columns;
mod compress;
mod csv;
mod error;
mod footprint;
mod formats;
mod interrupt;
pub mod invariants;
mod lines;
pub mod locality;
mod msr;
pub mod paper;
pub mod pipeline;
mod records;
#[cfg(test)]
mod roundtrip_tests;
mod smrbin;
mod spc;
pub mod stats;
pub mod synth;
pub mod transform;
mod vscsi;
mod writer;

use std::path::Path;

pub use compress::{create_write, open_read, split_compression, Compression};
pub use error::TraceError;
pub use footprint::{Footprint, EXTENT_GRAIN};
pub use formats::{FormatEntry, FormatWriter, MapFn, ReadFn, FORMATS};
pub use interrupt::{Interruptible, CHECK_EVERY};
pub use stats::{StatsPass, TraceStats};
pub use writer::{write_all, TraceWriter};

use smr_core::params::Params;
use smr_core::request::Request;

/// A stream of requests from one trace, in file order. An uncompressed smrbin file, the format
/// re-runs read, is decoded from its memory map with no dynamic call per request (decoding a
/// record takes a few dozen instructions, and a call through a box cost about as much again);
/// every other reader is boxed.
pub enum TraceReader {
    Mapped(smrbin::Mapped),
    Boxed(Box<dyn Iterator<Item = Result<Request, TraceError>> + Send>),
}

impl TraceReader {
    /// Any stream of requests as a reader.
    pub fn boxed(requests: impl Iterator<Item = Result<Request, TraceError>> + Send + 'static) -> Self {
        TraceReader::Boxed(Box::new(requests))
    }

    /// The statistics of the whole trace that its file carries (a finished uncompressed smrbin
    /// file, opened as it is), so that a first pass over it need not be made.
    pub fn stored_stats(&self) -> Option<&TraceStats> {
        match self {
            TraceReader::Mapped(mapped) => mapped.stored_stats(),
            TraceReader::Boxed(_) => None,
        }
    }
}

impl Iterator for TraceReader {
    type Item = Result<Request, TraceError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            TraceReader::Mapped(mapped) => mapped.next(),
            TraceReader::Boxed(boxed) => boxed.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            TraceReader::Mapped(mapped) => mapped.size_hint(),
            TraceReader::Boxed(boxed) => boxed.size_hint(),
        }
    }
}

/// Opens `path` as a trace of `format` (detected from the file name if `None`), with reader
/// `options` (e.g. `action=D` for blkparse, the column mapping for csv). Compressed files
/// (.gz, .xz, .bz2, .zst) are decompressed on the fly. Unknown options are an error.
pub fn open(path: &Path, format: Option<&str>, options: &mut Params) -> Result<TraceReader, TraceError> {
    let format = FormatEntry::resolve(format, path)?;
    let compressed = split_compression(path).0 != Compression::None;
    // Only a regular file can be mapped; a device or pipe is streamed.
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    if let Some(map) = format.map.filter(|_| !compressed && regular) {
        let reader = map(path)?;
        options.finish().map_err(TraceError::option)?;
        return Ok(reader);
    }
    read_from(open_read(path)?, path, format, options)
}

/// Reads a trace of `format` from the byte stream `input` (already decompressed); `path` names
/// it in messages. Unknown options are an error.
pub fn read_from(
    input: Box<dyn std::io::BufRead + Send>,
    path: &Path,
    format: &FormatEntry,
    options: &mut Params,
) -> Result<TraceReader, TraceError> {
    let reader = (format.read)(input, path, options)?;
    options.finish().map_err(TraceError::option)?;
    Ok(reader)
}

/// All requests of a trace, or an `Empty` error if it has none (for commands that need some).
pub fn open_nonempty(
    path: &Path,
    format: Option<&str>,
    options: &mut Params,
) -> Result<std::iter::Peekable<TraceReader>, TraceError> {
    let mut reader = open(path, format, options)?.peekable();
    if reader.peek().is_none() {
        return Err(TraceError::Empty { path: path.to_path_buf() });
    }
    Ok(reader)
}
