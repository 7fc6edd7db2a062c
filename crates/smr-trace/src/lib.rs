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
pub use interrupt::{Interruptible, CHECK_EVERY};
pub use stats::{StatsPass, TraceStats};
pub use writer::{write_all, TraceWriter};

use lines::LineRecords;
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

/// The trace formats smrlab reads (all) and writes (all but `blkparse` and `vscsi`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    Msr,
    Spc,
    Blkparse,
    Vscsi,
    Blocks,
    Csv,
    Smrbin,
}

impl TraceFormat {
    pub const ALL: [TraceFormat; 7] = [
        TraceFormat::Msr,
        TraceFormat::Spc,
        TraceFormat::Blkparse,
        TraceFormat::Vscsi,
        TraceFormat::Blocks,
        TraceFormat::Csv,
        TraceFormat::Smrbin,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TraceFormat::Msr => "msr",
            TraceFormat::Spc => "spc",
            TraceFormat::Blkparse => "blkparse",
            TraceFormat::Vscsi => "vscsi",
            TraceFormat::Blocks => "blocks",
            TraceFormat::Csv => "csv",
            TraceFormat::Smrbin => "smrbin",
        }
    }

    pub fn writable(self) -> bool {
        !matches!(self, TraceFormat::Blkparse | TraceFormat::Vscsi)
    }

    fn known() -> String {
        Self::ALL.iter().map(|f| f.name()).collect::<Vec<_>>().join(", ")
    }

    /// The format called `name`.
    pub fn from_name(name: &str) -> Result<Self, TraceError> {
        Self::ALL
            .into_iter()
            .find(|f| f.name().eq_ignore_ascii_case(name))
            .ok_or_else(|| TraceError::UnknownFormat { name: name.to_string(), known: Self::known() })
    }

    /// The format named by `name`, or else the one the file name implies (after removing a
    /// compression suffix): `.smrbin`, `.spc`, `.blkparse`/`.blktrace.txt`, `.vscsi`, `.blocks`,
    /// and `.csv` for MSR Cambridge CSV.
    pub fn resolve(name: Option<&str>, path: &Path) -> Result<Self, TraceError> {
        if let Some(name) = name {
            return Self::from_name(name);
        }
        let (_, stem) = split_compression(path);
        let by_suffix = [
            (".smrbin", TraceFormat::Smrbin),
            (".spc", TraceFormat::Spc),
            (".blkparse", TraceFormat::Blkparse),
            (".blktrace.txt", TraceFormat::Blkparse),
            (".vscsi", TraceFormat::Vscsi),
            (".blocks", TraceFormat::Blocks),
            (".csv", TraceFormat::Msr),
        ];
        by_suffix.into_iter().find(|(s, _)| stem.ends_with(s)).map(|(_, f)| f).ok_or_else(|| {
            TraceError::UnknownFormat {
                name: format!("{} (cannot tell from the file name; give the format)", path.display()),
                known: Self::known(),
            }
        })
    }
}

fn option_error(e: smr_core::params::ParamError) -> TraceError {
    TraceError::Invalid(format!("trace option {}", e))
}

/// Opens `path` as a trace of `format` (detected from the file name if `None`), with reader
/// `options` (e.g. `action=D` for blkparse, the column mapping for csv). Compressed files
/// (.gz, .xz, .bz2, .zst) are decompressed on the fly. Unknown options are an error.
pub fn open(path: &Path, format: Option<&str>, options: &mut Params) -> Result<TraceReader, TraceError> {
    let format = TraceFormat::resolve(format, path)?;
    let compressed = split_compression(path).0 != Compression::None;
    // Only a regular file can be mapped; a device or pipe is streamed.
    let regular = std::fs::metadata(path).is_ok_and(|m| m.is_file());
    if format == TraceFormat::Smrbin && !compressed && regular {
        let reader = smrbin::open_mapped(path)?;
        options.finish().map_err(option_error)?;
        return Ok(reader);
    }
    read_from(open_read(path)?, path, format, options)
}

/// Reads a trace of `format` from the byte stream `input` (already decompressed); `path` names
/// it in messages. Unknown options are an error.
pub fn read_from(
    input: Box<dyn std::io::BufRead + Send>,
    path: &Path,
    format: TraceFormat,
    options: &mut Params,
) -> Result<TraceReader, TraceError> {
    let owned = path.to_path_buf();
    let reader: TraceReader = match format {
        TraceFormat::Smrbin => smrbin::open_stream(input, path)?,
        TraceFormat::Vscsi => vscsi::open(input, path)?,
        TraceFormat::Msr => TraceReader::boxed(LineRecords::new(input, owned, msr::MsrParser::default())),
        TraceFormat::Blocks => TraceReader::boxed(LineRecords::new(input, owned, blocks::BlocksParser)),
        TraceFormat::Spc => {
            let asu = options
                .raw("asu")
                .map(|v| {
                    v.parse::<u64>().map_err(|_| {
                        TraceError::Invalid(format!("trace option 'asu': {} is not an ASU number", smr_core::quote(&v)))
                    })
                })
                .transpose()?;
            TraceReader::boxed(LineRecords::new(input, owned, spc::SpcParser::new(asu)))
        }
        TraceFormat::Blkparse => {
            let parser = blkparse::BlkparseParser::new(&options.string("action", "D"))
                .map_err(|m| TraceError::Invalid(format!("trace option 'action': {m}")))?;
            TraceReader::boxed(LineRecords::new(input, owned, parser))
        }
        TraceFormat::Csv => {
            if !options.contains("op") {
                csv::default_layout(options);
            }
            let parser = csv::CsvParser::from_params(options).map_err(option_error)?;
            TraceReader::boxed(LineRecords::new(input, owned, parser))
        }
    };
    options.finish().map_err(option_error)?;
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
