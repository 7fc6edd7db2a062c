//! Records media I/Os as a fio iolog (version 2), so a simulated system's translated trace can be
//! replayed on a real drive with `fio --read_iolog`.
//!
//! Format (fio's HOWTO, "I/O replay"): a first line `fio version 2 iolog`, then `FILE add` and
//! `FILE open` for each file, then `FILE read|write|trim OFFSET LENGTH` per I/O, and `FILE close`.
//! Large I/Os can be split into pieces of at most `max_io` bytes, as the uCache paper did for GC
//! (512 KiB). Not here: the timestamps of iolog v3; replay on a real drive is fio's job.

use std::io::Write;

use smr_core::Op;

/// The smallest piece an I/O may be split into: one 512-byte sector (smaller pieces would
/// multiply a log's size by up to 4096 for nothing a drive could replay).
pub const MIN_SPLIT: u64 = 512;

/// Writes iolog v2 lines to any writer; remembers which files were opened.
pub struct IologRecorder {
    out: Box<dyn Write + Send>,
    files: Vec<String>,
    max_io: u64,
    lines: u64,
    error: Option<std::io::Error>,
}

impl IologRecorder {
    /// `max_io` splits each I/O into pieces of at most that many bytes (0: never split; the
    /// runner refuses values below `MIN_SPLIT`).
    pub fn new(out: Box<dyn Write + Send>, max_io: u64) -> Self {
        let mut rec = IologRecorder { out, files: Vec::new(), max_io, lines: 0, error: None };
        rec.line(format_args!("fio version 2 iolog\n"));
        rec
    }

    fn line(&mut self, args: std::fmt::Arguments<'_>) {
        if self.error.is_none() {
            if let Err(e) = self.out.write_fmt(args) {
                self.error = Some(e);
            }
        }
    }

    pub fn record(&mut self, file: &str, op: Op, offset: u64, len: u64) {
        if !self.files.iter().any(|f| f == file) {
            self.files.push(file.to_string());
            self.line(format_args!("{file} add\n{file} open\n"));
        }
        let verb = match op {
            Op::Read => "read",
            Op::Write => "write",
            Op::Trim => "trim",
        };
        let piece = if self.max_io == 0 { len.max(1) } else { self.max_io };
        let mut done = 0;
        loop {
            let n = piece.min(len - done);
            self.line(format_args!("{file} {verb} {} {n}\n", offset + done));
            self.lines += 1;
            done += n;
            if done >= len {
                break;
            }
        }
    }

    /// Number of I/O lines written (after splitting).
    pub fn io_count(&self) -> u64 {
        self.lines
    }

    /// Closes every file, flushes, and reports the first write error, if any.
    pub fn finish(mut self) -> std::io::Result<u64> {
        let files = std::mem::take(&mut self.files);
        for f in &files {
            self.line(format_args!("{f} close\n"));
        }
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.out.flush()?;
        Ok(self.lines)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn writes_v2_header_opens_files_and_splits_large_ios() {
        let buf = Shared::default();
        let mut rec = IologRecorder::new(Box::new(buf.clone()), 512 * 1024);
        rec.record("disk", Op::Write, 0, 4096);
        rec.record("disk", Op::Read, 1 << 20, 1 << 20);
        assert_eq!(rec.finish().unwrap(), 3);
        let text = String::from_utf8(buf.0.lock().unwrap().clone()).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "fio version 2 iolog",
                "disk add",
                "disk open",
                "disk write 0 4096",
                "disk read 1048576 524288",
                "disk read 1572864 524288",
                "disk close"
            ]
        );
    }
}
