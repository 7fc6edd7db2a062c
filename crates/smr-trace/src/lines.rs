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
use smr_core::quote::quote;
use smr_core::request::{RangeError, Request};

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
/// there. A line ends at the first `\n` or `\r` after its start (`LineEnds`); a line with no
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
    ends: LineEnds,
    at_eof: bool,
    parser: P,
    failed: bool,
}

impl<P: LineParser> LineRecords<P> {
    pub fn new(input: Box<dyn BufRead + Send>, path: PathBuf, parser: P) -> Self {
        let window = vec![0; WINDOW].into_boxed_slice();
        LineRecords {
            input,
            path,
            line_no: 0,
            window,
            start: 0,
            end: 0,
            ends: LineEnds::default(),
            at_eof: false,
            parser,
            failed: false,
        }
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
        // A line that starts with a field is not blank: only the others are scanned whole.
        let blank = match line.first() {
            Some(b) if !b.is_ascii_whitespace() => false,
            _ => line.iter().all(|b| b.is_ascii_whitespace()),
        };
        if blank {
            return Ok(None);
        }
        parser.parse(line)
    }

    /// The next line's verdict, or `None` at the end of the input.
    #[inline]
    fn next_line(&mut self) -> Option<Result<Option<Request>, String>> {
        loop {
            let next_end = self.ends.next(&self.window[..self.end], self.start);
            let unread = &self.window[self.start..self.end];
            if let Some(at) = next_end.map(|end| end - self.start) {
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
        self.ends = LineEnds::default();
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

/// Finds the line ends (`\n` and `\r`) of a window 64 bytes at a time. Lines of block traces
/// are a dozen bytes or so, and a search call per line (memchr's) costs more in its set-up than
/// in its scan; this marks the ends of a whole block of 64 bytes in one mask and hands them out
/// one by one. Written here because it lives between the calls of a per-line iterator, which
/// memchr's one-shot searches cannot.
#[derive(Default)]
struct LineEnds {
    /// The window's bytes before `scanned` have been looked at, in blocks of `BLOCK`.
    scanned: usize,
    /// Bit `k` is set when byte `scanned - BLOCK + k` is a line end not yet handed out.
    pending: u64,
}

/// Bytes marked at once: one bit each in a `u64`.
const BLOCK: usize = 64;

impl LineEnds {
    /// The first line end in `bytes` at or after `from`. `bytes` may only grow between calls
    /// (a refill that moves bytes starts over with a new `LineEnds`), and `from` never goes back.
    #[inline]
    fn next(&mut self, bytes: &[u8], from: usize) -> Option<usize> {
        loop {
            while self.pending != 0 {
                let at = self.scanned - BLOCK + self.pending.trailing_zeros() as usize;
                self.pending &= self.pending - 1;
                if at >= from {
                    return Some(at);
                }
            }
            // Nothing pending: what lies before `from` need not be scanned (the rest of a line
            // whose end was found by other means).
            self.scanned = self.scanned.max(from);
            let Some(block) = bytes.get(self.scanned..self.scanned + BLOCK) else {
                // Less than a block left: searched, not marked, as it may grow.
                let tail = &bytes[self.scanned..];
                return memchr::memchr2(b'\n', b'\r', tail).map(|i| self.scanned + i);
            };
            self.pending = line_end_mask(block.try_into().expect("a block"));
            self.scanned += BLOCK;
        }
    }
}

/// One bit per byte of `block`, set where the byte is `\n` or `\r`: four 16-byte compares on
/// x86-64, a word-at-a-time test elsewhere.
#[inline]
fn line_end_mask(block: &[u8; BLOCK]) -> u64 {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: SSE2 is part of x86-64; each unaligned load reads 16 of the block's 64 bytes.
    unsafe {
        use std::arch::x86_64::{
            __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
        };
        let (newline, carriage_return) = (_mm_set1_epi8(b'\n' as i8), _mm_set1_epi8(b'\r' as i8));
        (0..BLOCK / 16).fold(0u64, |mask, i| {
            let bytes = _mm_loadu_si128(block.as_ptr().add(16 * i) as *const __m128i);
            let ends = _mm_or_si128(_mm_cmpeq_epi8(bytes, newline), _mm_cmpeq_epi8(bytes, carriage_return));
            mask | u64::from(_mm_movemask_epi8(ends) as u16) << (16 * i)
        })
    }
    #[cfg(not(target_arch = "x86_64"))]
    portable_line_end_mask(block)
}

/// `line_end_mask` eight bytes at a time in plain integer arithmetic (tested on every target).
#[cfg(any(test, not(target_arch = "x86_64")))]
fn portable_line_end_mask(block: &[u8; BLOCK]) -> u64 {
    block.chunks_exact(8).enumerate().fold(0u64, |mask, (i, word)| {
        let word = u64::from_le_bytes(word.try_into().expect("eight bytes"));
        let high_bits = bytes_equal(word, b'\n') | bytes_equal(word, b'\r');
        // Bit 7 of byte k to bit k: the multiplication gathers the eight into the top byte.
        mask | ((high_bits >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * i)
    })
}

/// Bit 7 of each byte of `word` that equals `byte`, and no other bit. (Exact, unlike the
/// shorter has-zero-byte test, whose carries mark bytes above a match too.)
#[cfg(any(test, not(target_arch = "x86_64")))]
#[inline]
fn bytes_equal(word: u64, byte: u8) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let x = word ^ (u64::from(byte) * 0x0101_0101_0101_0101);
    !(((x & LOW7) + LOW7) | x | LOW7)
}

const BARE_CR: &str = "a carriage return inside the line (old Mac line endings?): lines must end with \\n or \\r\\n";

/// The message for a line longer than `MAX_LINE`.
fn too_long(start: &[u8]) -> String {
    let hint = if memchr::memchr(b'\r', start).is_some() {
        " (its carriage returns look like old Mac line endings: lines must end with \\n or \\r\\n)"
    } else {
        " (is this a text trace?)"
    };
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

/// The decimal number at the start of `bytes` and how many digits it has; `None` when `bytes`
/// does not start with a digit or the number passes 2^64. The byte formats' number reader (the
/// hot loop of large text traces): eight digits at a time while eight bytes are left (an MSR
/// timestamp's eighteen take two steps and two bytes), then a byte at a time. Nineteen digits
/// cannot overflow, so only a longer number is read again with checks.
#[inline(always)]
pub fn leading_decimal(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    let mut digits = 0;
    while digits <= 8 {
        let Some(eight) =
            bytes.get(digits..digits + 8).and_then(|chunk| eight_digits(chunk.try_into().expect("eight bytes")))
        else {
            break;
        };
        value = value * 100_000_000 + eight;
        digits += 8;
    }
    for &b in &bytes[digits..] {
        let digit = b.wrapping_sub(b'0');
        if digit > 9 {
            break;
        }
        value = value.wrapping_mul(10).wrapping_add(u64::from(digit));
        digits += 1;
    }
    match digits {
        0 => None,
        1..=19 => Some((value, digits)),
        _ => bytes[..digits]
            .iter()
            .try_fold(0u64, |n, &b| n.checked_mul(10)?.checked_add(u64::from(b - b'0')))
            .map(|n| (n, digits)),
    }
}

/// Eight ASCII digits as their number, or `None` if any byte is not a digit: the digits' values
/// combined in pairs, then pairs of pairs, inside one word (three multiplications instead of
/// eight).
#[inline]
fn eight_digits(chunk: [u8; 8]) -> Option<u64> {
    const HIGH_NIBBLES: u64 = 0xf0f0_f0f0_f0f0_f0f0;
    let word = u64::from_le_bytes(chunk);
    // A digit is 0x30..=0x39: high nibble 3, and still 3 after adding 6 (0x3a..=0x3f become
    // 0x40..). A carry out of a byte starts at a byte whose own high nibble is not 3.
    let nibbles = (word & HIGH_NIBBLES) | ((word.wrapping_add(0x0606_0606_0606_0606) & HIGH_NIBBLES) >> 4);
    if nibbles != 0x3333_3333_3333_3333 {
        return None;
    }
    // The first digit is the lowest byte: each step multiplies the more significant half of a
    // lane by its weight and adds the less significant half shifted down onto it.
    let d = word - 0x3030_3030_3030_3030;
    let d = (d * 10 + (d >> 8)) & 0x00ff_00ff_00ff_00ff;
    let d = (d * 100 + (d >> 16)) & 0x0000_ffff_0000_ffff;
    Some((d * 10_000 + (d >> 32)) & 0xffff_ffff)
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
pub fn request(time_ns: u64, op: smr_core::Op, offset: u64, len: u64) -> Result<Option<Request>, String> {
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
    use smr_core::Op;

    /// A parser that turns each line into a request naming its length and first and last byte.
    struct Echo;

    impl LineParser for Echo {
        fn parse(&mut self, line: &[u8]) -> Result<Option<Request>, String> {
            Ok(Some(Request::new(line.len() as u64, Op::Read, u64::from(line[0]), u64::from(line[line.len() - 1]))))
        }
    }

    /// What `LineRecords` must make of `input`, line by line, from a plain split: blank lines
    /// skipped, a `\r` only as the last byte of a line, lines up to `MAX_LINE` bytes.
    fn split_naively(input: &[u8]) -> Vec<Result<(u64, u64, u64), u64>> {
        let mut out = Vec::new();
        let mut lines: Vec<&[u8]> = input.split(|&b| b == b'\n').collect();
        if lines.last().is_some_and(|l| l.is_empty()) {
            lines.pop();
        }
        for (index, line) in lines.into_iter().enumerate() {
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.len() > MAX_LINE || line.contains(&b'\r') {
                out.push(Err(index as u64 + 1));
                break;
            }
            if !line.iter().all(u8::is_ascii_whitespace) {
                out.push(Ok((line.len() as u64, u64::from(line[0]), u64::from(line[line.len() - 1]))));
            }
        }
        out
    }

    proptest::proptest! {
        /// Line ends found 64 bytes at a time, across refills of any size, split exactly as
        /// a plain split does, carriage returns and blank lines included.
        #[test]
        fn lines_are_split_as_a_plain_split_does(
            input in proptest::collection::vec(proptest::sample::select(b"01 \t\n\n\r9x".to_vec()), 0..600),
            capacity in proptest::sample::select(vec![1usize, 7, 40, 63, 64, 65, 200, 4096]),
        ) {
            let reader = std::io::BufReader::with_capacity(capacity, std::io::Cursor::new(input.clone()));
            let read: Vec<Result<(u64, u64, u64), u64>> = LineRecords::new(Box::new(reader), PathBuf::from("t"), Echo)
                .map(|r| match r {
                    Ok(r) => Ok((r.time_ns, r.offset, r.len)),
                    Err(TraceError::Malformed { line, .. }) => Err(line),
                    Err(other) => panic!("{other}"),
                })
                .collect();
            proptest::prop_assert_eq!(read, split_naively(&input));
        }
    }

    proptest::proptest! {
        /// The mask marks exactly the line ends, on this target's path and the portable one.
        #[test]
        fn line_end_masks_mark_exactly_the_line_ends(block in proptest::collection::vec(proptest::sample::select(b"\n\r\x0b\x0c\x8a\x8d\x00\xff 7".to_vec()), BLOCK)) {
            let block: &[u8; BLOCK] = block.as_slice().try_into().unwrap();
            let expected = block.iter().enumerate().fold(0u64, |mask, (k, &b)| mask | u64::from(b == b'\n' || b == b'\r') << k);
            proptest::prop_assert_eq!(line_end_mask(block), expected);
            proptest::prop_assert_eq!(portable_line_end_mask(block), expected);
        }
    }

    #[test]
    fn leading_decimals_stop_at_the_first_non_digit_and_refuse_overflow() {
        assert_eq!(leading_decimal(b"183438 "), Some((183438, 6)));
        assert_eq!(leading_decimal(b"0,5"), Some((0, 1)));
        assert_eq!(leading_decimal(b"x1"), None);
        assert_eq!(leading_decimal(b""), None);
        assert_eq!(
            leading_decimal(b"9999999999999999999"),
            Some((9_999_999_999_999_999_999, 19)),
            "19 digits need no check"
        );
        assert_eq!(leading_decimal(b"18446744073709551615"), Some((u64::MAX, 20)));
        assert_eq!(leading_decimal(b"18446744073709551616"), None, "2^64");
        assert_eq!(leading_decimal(b"000000000000000000000042;"), Some((42, 24)), "leading zeros are not an overflow");
        assert_eq!(
            leading_decimal(b"128166372003061629,wdev"),
            Some((128_166_372_003_061_629, 18)),
            "two words and two bytes"
        );
        assert_eq!(leading_decimal(b"1234567:9"), Some((1_234_567, 7)), "':' is the byte after '9'");
        assert_eq!(leading_decimal(b"12345678/"), Some((12_345_678, 8)), "'/' is the byte before '0'");
        assert_eq!(leading_decimal(b"1234\xfa7890123"), Some((1234, 4)), "0xfa + 6 carries into the next byte");
    }

    proptest::proptest! {
        /// Any run of digits followed by anything reads as the standard library parses it.
        #[test]
        fn leading_decimals_read_as_the_standard_library_does(
            digits in "[0-9]{0,24}",
            after in proptest::collection::vec(proptest::num::u8::ANY, 0..10),
        ) {
            let mut bytes = digits.clone().into_bytes();
            bytes.extend(&after);
            let run = digits.len() + after.iter().take_while(|b| b.is_ascii_digit()).count();
            let expected = std::str::from_utf8(&bytes[..run]).unwrap().parse::<u64>().ok().map(|n| (n, run));
            proptest::prop_assert_eq!(leading_decimal(&bytes), expected);
        }
    }
}
