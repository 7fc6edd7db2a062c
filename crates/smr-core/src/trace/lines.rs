//! The shared driver of every text trace reader: reads lines, counts them, skips blank ones,
//! hands each to a format's `LineParser`, and turns a parse failure into an error that names the
//! file and line. Formats only say how one line becomes a request.
//!
//! A line is at most `MAX_LINE` bytes: an input without line ends (a binary file, `/dev/zero`)
//! is an error at its first line instead of a buffer that grows without bound. Lines end with
//! `\n` or `\r\n`; a carriage return anywhere else (old Mac line endings) is an error rather
//! than several lines read as one.

use std::io::{BufRead, ErrorKind};
use std::path::PathBuf;

use super::TraceError;
use crate::quote::quote;
use crate::request::{RangeError, Request};

/// The longest line a text trace may have, in bytes (without its end of line).
pub const MAX_LINE: usize = 64 * 1024;

/// Bytes of input `LineRecords` holds at once: room for many lines, and always for a whole
/// line of `MAX_LINE` bytes with its end, so a line never has to be gathered from two reads.
const WINDOW: usize = 4 * MAX_LINE;

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
/// The input is read into a window of `WINDOW` bytes, and each line is parsed where it lies
/// there. One scan per line finds its end: the first `\n` or `\r` (`memchr2`); a line with no
/// carriage return, nearly every line of a trace, is then checked no further for one. Reading
/// happens only when the window holds no whole line, so a line costs no call through the boxed
/// input. The window is refilled by moving the unread part (less than a line) to its front.
pub struct LineRecords<P: LineParser> {
    input: Box<dyn BufRead + Send>,
    path: PathBuf,
    line_no: u64,
    window: Box<[u8]>,
    /// The unread bytes are `window[start..end]`.
    start: usize,
    end: usize,
    at_eof: bool,
    parser: P,
    failed: bool,
}

impl<P: LineParser> LineRecords<P> {
    pub fn new(input: Box<dyn BufRead + Send>, path: PathBuf, parser: P) -> Self {
        LineRecords { input, path, line_no: 0, window: vec![0; WINDOW].into_boxed_slice(), start: 0, end: 0, at_eof: false, parser, failed: false }
    }

    /// What one line (without its `\n`) says: a request, nothing (blank or skipped), or the
    /// message of a failure.
    fn parse_line(parser: &mut P, line: &[u8]) -> Result<Option<Request>, String> {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.len() > MAX_LINE {
            return Err(too_long(line));
        }
        if memchr::memchr(b'\r', line).is_some() {
            return Err(BARE_CR.to_string());
        }
        Self::parse_checked(parser, line)
    }

    /// `parse_line` for a line known to hold no carriage return and to be within `MAX_LINE`.
    #[inline]
    fn parse_checked(parser: &mut P, line: &[u8]) -> Result<Option<Request>, String> {
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            return Ok(None);
        }
        parser.parse(line)
    }

    /// The next line's verdict, or `None` at the end of the input.
    #[inline]
    fn next_line(&mut self) -> Option<Result<Option<Request>, String>> {
        loop {
            let unread = &self.window[self.start..self.end];
            if let Some(at) = memchr::memchr2(b'\n', b'\r', unread) {
                if unread[at] == b'\n' && at <= MAX_LINE {
                    self.start += at + 1;
                    return Some(Self::parse_checked(&mut self.parser, &unread[..at]));
                }
                if let Some(line_end) = memchr::memchr(b'\n', &unread[at..]).map(|n| at + n) {
                    self.start += line_end + 1;
                    return Some(Self::parse_line(&mut self.parser, &unread[..line_end]));
                }
            }
            // No whole line is left unread. Kept up to one byte past the limit, as a line's last
            // byte may be its `\r`.
            if unread.len() > MAX_LINE + 1 {
                return Some(Err(too_long(&unread[..MAX_LINE + 2])));
            }
            if self.at_eof {
                if unread.is_empty() {
                    return None;
                }
                self.start = self.end;
                return Some(Self::parse_line(&mut self.parser, unread));
            }
            if let Err(e) = self.refill() {
                return Some(Err(e.to_string()));
            }
        }
    }

    /// Moves the unread bytes to the window's front and reads more after them (at least one
    /// byte, or the end of the input is reached).
    #[cold]
    fn refill(&mut self) -> std::io::Result<()> {
        self.window.copy_within(self.start..self.end, 0);
        (self.start, self.end) = (0, self.end - self.start);
        let read = loop {
            match self.input.read(&mut self.window[self.end..]) {
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                other => break other?,
            }
        };
        self.end += read;
        self.at_eof = read == 0;
        Ok(())
    }
}

const BARE_CR: &str = "a carriage return inside the line (old Mac line endings?): lines must end with \\n or \\r\\n";

/// The message for a line longer than `MAX_LINE`.
fn too_long(start: &[u8]) -> String {
    let hint = if memchr::memchr(b'\r', start).is_some() { " (its carriage returns look like old Mac line endings: lines must end with \\n or \\r\\n)" } else { " (is this a text trace?)" };
    format!("the line is longer than {MAX_LINE} bytes{hint}; it starts {}", quote(&start[..start.len().min(16)]))
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
    text.parse::<u64>().map_err(|_| format!("{name} {} is not a non-negative whole number", quote(text)))
}

/// Parses field `index` as a finite, non-negative number.
pub fn field_f64(fields: &[&str], index: usize, name: &str) -> Result<f64, String> {
    let text = fields.get(index).ok_or_else(|| format!("missing field {} ({name})", index + 1))?.trim();
    match text.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!("{name} {} is not a non-negative number", quote(text))),
    }
}

/// `value` units of `ns_per_unit` nanoseconds each, rounded to the nearest nanosecond (decimal
/// seconds such as `0.551706` are not exact in binary; truncating would lose a nanosecond).
/// A time past 2^64 ns (585 years) is an error naming `name`.
pub fn scaled_ns(value: f64, ns_per_unit: f64, name: &str) -> Result<u64, String> {
    let ns = (value * ns_per_unit).round();
    if ns < u64::MAX as f64 {
        Ok(ns as u64)
    } else {
        Err(format!("{name} {value} is beyond 2^64 nanoseconds (585 years)"))
    }
}

/// `count` units of `unit` bytes, or an error naming the field (`name`) if that is past 2^64.
pub fn scaled_bytes(count: u64, unit: u64, name: &str) -> Result<u64, String> {
    count.checked_mul(unit).ok_or_else(|| format!("{name} {count} is out of range (times {unit} bytes it passes 2^64)"))
}

/// The checked request of a text line; a range that cannot be one is the line's error.
pub fn request(time_ns: u64, op: crate::Op, offset: u64, len: u64) -> Result<Option<Request>, String> {
    Request::checked(time_ns, op, offset, len).map(Some).map_err(|e: RangeError| e.to_string())
}

/// Makes times relative to the first record: trace files carry absolute clocks (Windows
/// filetime, Unix seconds) and replay only needs the offsets. A clock that goes backwards is
/// kept as it is (a time before the first record's is 0): readers report what the file says,
/// and the replay engine and the statistics count such records and say so.
#[derive(Default)]
pub struct RelativeClock {
    first: Option<u64>,
}

impl RelativeClock {
    pub fn at(&mut self, absolute_ns: u64) -> u64 {
        let first = *self.first.get_or_insert(absolute_ns);
        absolute_ns.saturating_sub(first)
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

    fn first_error(input: Vec<u8>, capacity: usize) -> (u64, String) {
        let reader = std::io::BufReader::with_capacity(capacity, std::io::Cursor::new(input));
        let results: Vec<_> = LineRecords::new(Box::new(reader), PathBuf::from("t.blocks"), BlocksParser).collect();
        match results.last() {
            Some(Err(TraceError::Malformed { line, message, .. })) => (*line, message.clone()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_input_without_line_ends_is_an_error_at_its_first_line_not_a_growing_buffer() {
        for capacity in [7, 4096, 1 << 20] {
            let (line, message) = first_error(vec![0u8; 4 * MAX_LINE], capacity);
            assert_eq!(line, 1);
            assert!(message.contains("longer than 65536 bytes"), "{message}");
            assert!(message.len() < 300, "the message quotes only the start: {}", message.len());
        }
        let mut lines = b"1 10\n".to_vec();
        lines.extend(vec![b'7'; MAX_LINE + 1]);
        lines.extend(b"\n1 11\n");
        assert_eq!(first_error(lines, 4096).0, 2, "a long line in the middle is named by its number");
    }

    #[test]
    fn a_line_of_exactly_the_limit_is_read() {
        let mut line = b"1 10".to_vec();
        line.extend(vec![b' '; MAX_LINE - 4]);
        line.extend(b"\r\n0 3\n");
        for capacity in [5, 1 << 20] {
            let reader = std::io::BufReader::with_capacity(capacity, std::io::Cursor::new(line.clone()));
            let read: Result<Vec<Request>, TraceError> = LineRecords::new(Box::new(reader), PathBuf::from("t.blocks"), BlocksParser).collect();
            assert_eq!(read.unwrap().len(), 2, "capacity {capacity}");
        }
    }

    #[test]
    fn carriage_returns_that_do_not_end_a_line_are_refused() {
        for capacity in [3, 64] {
            let (line, message) = first_error(b"1 10\r0 3\r1 4\r".to_vec(), capacity);
            assert_eq!(line, 1);
            assert!(message.contains("carriage return"), "{message}");
        }
        let (_, message) = first_error(b"1 1\r".repeat(MAX_LINE), 4096);
        assert!(message.contains("carriage returns"), "{message}");
    }
}
