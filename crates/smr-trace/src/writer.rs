//! Writing traces in any writable format, compressed by file suffix.
//!
//! An uncompressed smrbin file also gets the statistics of what was written (see `smrbin`), so
//! that runs over it skip their measuring pass.
//!
//! Formats without a way to express an op (trims in MSR, SPC and blocks) refuse it with an error
//! naming the request, rather than silently changing it.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::{create_write, smrbin, split_compression, Compression, FormatEntry, FormatWriter, StatsPass, TraceError};
use smr_core::request::{Op, Request};

/// A trace being written; call `finish` to flush it.
pub struct TraceWriter {
    out: Box<dyn Write + Send>,
    format: &'static FormatEntry,
    writer: &'static FormatWriter,
    path: PathBuf,
    count: u64,
    /// The statistics of the requests written, kept for an uncompressed smrbin file.
    stats: Option<StatsPass>,
}

impl TraceWriter {
    /// Creates `path` in `format` (from the file name if `None`).
    pub fn create(path: &Path, format: Option<&str>) -> Result<Self, TraceError> {
        let format = FormatEntry::resolve(format, path)?;
        let Some(writer) = format.write.as_ref() else {
            return Err(TraceError::Invalid(format!("smrlab reads but does not write the {} format", format.name)));
        };
        let mut out = create_write(path)?;
        if writer.smrbin_layout {
            smrbin::write_header(&mut out).map_err(|e| TraceError::io(path, e))?;
        }
        // Only a regular file can have its header patched at the end (not a pipe or a terminal).
        let patchable =
            split_compression(path).0 == Compression::None && std::fs::metadata(path).is_ok_and(|m| m.is_file());
        let stats = (writer.smrbin_layout && patchable).then(StatsPass::default);
        Ok(TraceWriter { out, format, writer, path: path.to_path_buf(), count: 0, stats })
    }

    pub fn write(&mut self, req: &Request) -> Result<(), TraceError> {
        if req.op == Op::Trim && !self.writer.trims {
            return Err(TraceError::Invalid(format!(
                "{}: request #{} is a trim, which the {} format cannot express",
                self.path.display(),
                self.count + 1,
                self.format.name
            )));
        }
        (self.writer.record)(&mut self.out, req).map_err(|e| TraceError::io(&self.path, e))?;
        if let Some(stats) = self.stats.as_mut() {
            stats.add(req);
        }
        self.count += 1;
        Ok(())
    }

    /// Flushes and closes; returns the number of requests written.
    pub fn finish(self) -> Result<u64, TraceError> {
        let TraceWriter { mut out, path, count, stats, .. } = self;
        let io = |e| TraceError::io(&path, e);
        let stored = stats.map(|stats| smrbin::write_stats(&mut out, stats)).transpose().map_err(io)?.is_some();
        out.flush().map_err(io)?;
        drop(out);
        if stored {
            smrbin::patch_count(&path, count).map_err(io)?;
        }
        Ok(count)
    }
}

/// Writes every request of `requests` to `path`; returns how many.
pub fn write_all(
    path: &Path,
    format: Option<&str>,
    requests: impl IntoIterator<Item = Result<Request, TraceError>>,
) -> Result<u64, TraceError> {
    let mut writer = TraceWriter::create(path, format)?;
    for req in requests {
        writer.write(&req?)?;
    }
    writer.finish()
}
