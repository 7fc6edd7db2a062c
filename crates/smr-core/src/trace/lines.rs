//! The shared driver of every text trace reader: reads lines, counts them, skips blank ones,
//! hands each to a format's `LineParser`, and turns a parse failure into an error that names the
//! file and line. Formats only say how one line becomes a request.

use std::io::BufRead;
use std::path::PathBuf;

use super::TraceError;
use crate::request::Request;

/// How one format turns a line into a request.
pub trait LineParser: Send {
    /// `line` has no end-of-line bytes and is not blank. Formats whose fields are ASCII digits and
    /// words read the bytes directly (the hot loop of large traces); the others take `text(line)`.
    /// `Ok(None)` skips the line (a header, a comment, an event of another kind).
    fn parse(&mut self, line: &[u8]) -> Result<Option<Request>, String>;
}

/// A line as text, or the message for a file that is not text.
pub fn text(line: &[u8]) -> Result<&str, String> {
    std::str::from_utf8(line).map_err(|_| "not valid UTF-8 text (is this a binary trace? give --format)".to_string())
}

/// Iterator over the requests of a text trace.
///
/// A line that lies whole in the reader's buffer is parsed where it lies (found with `memchr`,
/// no copy); only a line that straddles two fills of the buffer is gathered into `spill`.
pub struct LineRecords<P: LineParser> {
    reader: Box<dyn BufRead + Send>,
    path: PathBuf,
    line_no: u64,
    spill: Vec<u8>,
    parser: P,
    failed: bool,
}

impl<P: LineParser> LineRecords<P> {
    pub fn new(input: Box<dyn BufRead + Send>, path: PathBuf, parser: P) -> Self {
        LineRecords { reader: input, path, line_no: 0, spill: Vec::new(), parser, failed: false }
    }

    /// What one line (without its end of line) says: a request, nothing (blank or skipped), or
    /// the message of a failure.
    fn parse_line(parser: &mut P, line: &[u8]) -> Result<Option<Request>, String> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            return Ok(None);
        }
        parser.parse(line)
    }

    /// The next line's verdict, or `None` at the end of the input.
    fn next_line(&mut self) -> Option<Result<Option<Request>, String>> {
        let available = match self.reader.fill_buf() {
            Ok(bytes) => bytes,
            Err(e) => return Some(Err(e.to_string())),
        };
        if let Some(end) = memchr::memchr(b'\n', available) {
            let verdict = Self::parse_line(&mut self.parser, &available[..end]);
            self.reader.consume(end + 1);
            return Some(verdict);
        }
        self.spill.clear();
        match self.reader.read_until(b'\n', &mut self.spill) {
            Ok(0) => None,
            Ok(_) => {
                let line = self.spill.strip_suffix(b"\n").unwrap_or(&self.spill);
                Some(Self::parse_line(&mut self.parser, line))
            }
            Err(e) => Some(Err(e.to_string())),
        }
    }
}

impl<P: LineParser> Iterator for LineRecords<P> {
    type Item = Result<Request, TraceError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            self.line_no += 1;
            match self.next_line()? {
                Ok(Some(req)) => return Some(Ok(req)),
                Ok(None) => continue,
                Err(message) => {
                    self.failed = true;
                    return Some(Err(TraceError::malformed(&self.path, self.line_no, message)));
                }
            }
        }
    }
}

/// Parses field `index` of `fields` as an unsigned integer; the error names the field.
pub fn field_u64(fields: &[&str], index: usize, name: &str) -> Result<u64, String> {
    let text = fields.get(index).ok_or_else(|| format!("missing field {} ({name})", index + 1))?.trim();
    text.parse::<u64>().map_err(|_| format!("{name} '{text}' is not a non-negative whole number"))
}

/// Parses field `index` as a finite, non-negative number.
pub fn field_f64(fields: &[&str], index: usize, name: &str) -> Result<f64, String> {
    let text = fields.get(index).ok_or_else(|| format!("missing field {} ({name})", index + 1))?.trim();
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("{name} '{text}' is not a non-negative number")),
    }
}

/// `value` units of `ns_per_unit` nanoseconds each, rounded to the nearest nanosecond (decimal
/// seconds such as `0.551706` are not exact in binary; truncating would lose a nanosecond).
pub fn scaled_ns(value: f64, ns_per_unit: f64) -> u64 {
    (value * ns_per_unit).round() as u64
}

/// Makes times relative to the first record: trace files carry absolute clocks (Windows
/// filetime, Unix seconds) and replay only needs the offsets. A clock that goes backwards is
/// clamped to the previous time rather than rejected, as real traces have small reorderings.
#[derive(Default)]
pub struct RelativeClock {
    first: Option<u64>,
    last: u64,
}

impl RelativeClock {
    pub fn at(&mut self, absolute_ns: u64) -> u64 {
        let first = *self.first.get_or_insert(absolute_ns);
        self.last = self.last.max(absolute_ns.saturating_sub(first));
        self.last
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trace::blocks::BlocksParser;
    use crate::Op;

    /// Reads `input` through a buffer of `capacity` bytes, so lines straddle its refills.
    fn read(input: &'static [u8], capacity: usize) -> Vec<Result<Request, TraceError>> {
        let reader = std::io::BufReader::with_capacity(capacity, input);
        LineRecords::new(Box::new(reader), PathBuf::from("t.blocks"), BlocksParser).collect()
    }

    #[test]
    fn lines_across_buffer_refills_with_blank_lines_crlf_and_no_final_newline() {
        for capacity in [1, 3, 4, 7, 64] {
            let requests: Vec<(Op, u64)> = read(b"1 10\r\n\n0 3\n  \n1 123456789\n0 5", capacity)
                .into_iter()
                .map(|r| r.map(|r| (r.op, r.offset / 4096)).unwrap())
                .collect();
            assert_eq!(requests, [(Op::Write, 10), (Op::Read, 3), (Op::Write, 123456789), (Op::Read, 5)], "capacity {capacity}");
        }
    }

    #[test]
    fn a_bad_line_is_named_by_its_number_and_ends_the_stream() {
        for capacity in [2, 64] {
            let results = read(b"1 10\n\n1 x\n0 4\n", capacity);
            assert_eq!(results.len(), 2);
            match &results[1] {
                Err(TraceError::Malformed { line, message, .. }) => assert_eq!((*line, message.contains("'x'")), (3, true)),
                other => panic!("{other:?}"),
            }
        }
    }
}
