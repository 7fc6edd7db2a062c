//! MSR Cambridge block traces (SNIA IOTTA): CSV lines
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`, with Timestamp in Windows
//! filetime ticks of 100 ns, Type `Read` or `Write`, Offset and Size in bytes.
//!
//! Request times are relative to the first record. A header line starting with `Timestamp` is
//! skipped. A line must have exactly the seven fields. Also the writer of this format (Hostname `smrlab`, DiskNumber 0, ResponseTime 0).

use std::io::Write;

use super::lines::{leading_decimal, request, LineParser, RelativeClock};
use smr_core::quote::quote;
use smr_core::request::{Op, Request};

const FIELDS: &str = "expected 7 comma-separated fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime)";

#[derive(Default)]
pub struct MsrParser {
    clock: RelativeClock,
}

/// A line's comma-separated fields, taken in order (bytes, not text: this is the hot loop of
/// reading MSR traces).
struct Fields<'a> {
    /// What follows the last comma taken; `None` once the last field is taken.
    rest: Option<&'a [u8]>,
}

impl<'a> Fields<'a> {
    /// The next field, or an error naming the missing one.
    #[inline]
    fn text(&mut self, name: &str) -> Result<&'a [u8], String> {
        let rest = self.rest.ok_or_else(|| missing(name))?;
        // Fields are a few bytes: a plain scan beats a search call's set-up.
        match rest.iter().position(|&b| b == b',') {
            Some(comma) => {
                self.rest = Some(&rest[comma + 1..]);
                Ok(&rest[..comma])
            }
            None => {
                self.rest = None;
                Ok(rest)
            }
        }
    }

    /// The next field as a number: decimal digits, surrounding blanks allowed. Digits that run
    /// up to the comma (every field of a well-formed trace) are read in one pass, the comma
    /// found on the way.
    #[inline]
    fn number(&mut self, name: &str) -> Result<u64, String> {
        let rest = self.rest.ok_or_else(|| missing(name))?;
        if let Some((n, digits)) = leading_decimal(rest) {
            match rest.get(digits) {
                Some(b',') => {
                    self.rest = Some(&rest[digits + 1..]);
                    return Ok(n);
                }
                None => {
                    self.rest = None;
                    return Ok(n);
                }
                _ => {}
            }
        }
        let digits = self.text(name)?.trim_ascii();
        match leading_decimal(digits) {
            Some((n, used)) if used == digits.len() => Ok(n),
            _ => Err(format!("{name} {} is not a non-negative whole number", quote(digits))),
        }
    }
}

#[cold]
fn missing(name: &str) -> String {
    format!("missing field {name}: {FIELDS}")
}

impl LineParser for MsrParser {
    fn parse(&mut self, line: &[u8]) -> Result<Option<Request>, String> {
        if line.starts_with(b"Timestamp") {
            return Ok(None);
        }
        let mut fields = Fields { rest: Some(line) };
        let ticks = fields.number("Timestamp")?;
        fields.text("Hostname")?;
        fields.text("DiskNumber")?;
        let kind = fields.text("Type")?.trim_ascii();
        let op = if kind.eq_ignore_ascii_case(b"write") {
            Op::Write
        } else if kind.eq_ignore_ascii_case(b"read") {
            Op::Read
        } else {
            return Err(format!("Type {} is neither Read nor Write", quote(kind)));
        };
        let offset = fields.number("Offset")?;
        let len = fields.number("Size")?;
        fields.text("ResponseTime")?;
        if fields.rest.is_some() {
            return Err(format!("more than 7 fields: {FIELDS}"));
        }
        let ns = ticks.checked_mul(100).ok_or_else(|| format!("Timestamp {ticks} is beyond 2^64 nanoseconds"))?;
        request(self.clock.at(ns), op, offset, len)
    }
}

/// Writes one request as an MSR line. Trims have no MSR spelling and are refused by the caller.
pub fn write_line(out: &mut dyn Write, req: &Request) -> std::io::Result<()> {
    let kind = if req.op == Op::Write { "Write" } else { "Read" };
    writeln!(out, "{},smrlab,0,{kind},{},{},0", req.time_ns / 100, req.offset, req.len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_msr_lines_relative_to_the_first() {
        let mut p = MsrParser::default();
        let a = p.parse(b"128166372003061629,wdev,0,Write,3154944,4096,1331").unwrap().unwrap();
        let b = p.parse(b"128166372003081629,wdev,0,Read,0,512,10").unwrap().unwrap();
        assert_eq!(a, Request::new(0, Op::Write, 3154944, 4096));
        assert_eq!(b, Request::new(2_000_000, Op::Read, 0, 512));
        assert_eq!(p.parse(b"Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime").unwrap(), None);
        let blanks = p.parse(b" 128166372003061629 ,wdev,0, write ,\t3154944, 4096 ,1331").unwrap().unwrap();
        assert_eq!(blanks, a, "blanks around fields");
    }

    #[test]
    fn bad_fields_are_named() {
        let mut p = MsrParser::default();
        let cases: &[(&[u8], &str)] = &[
            (b"1,h,0,Erase,0,4096,1", "Type 'Erase'"),
            (b"1,h,0,Read,-5,4096,1", "Offset '-5'"),
            (b"1,h,0,Read,,4096,1", "Offset ''"),
            (b"1,h,0,Read,5 5,4096,1", "Offset '5 5'"),
            (b"1,h,0,Read,0,4096x,1", "Size '4096x'"),
            (b"1,h,0", "missing field Type"),
            (b"1,h,0,Read,0,4096", "missing field ResponseTime"),
            (b"1,h,0,Read,0,4096,1,x", "more than 7 fields"),
            (b"1,h,0,Read,0,4096,1,x,y", "more than 7 fields"),
            (b"1,h,0,Read,18446744073709551615,4096,1", "2^63"),
            (b"1,h,0,Read,0,18446744073709551615,1", "longer than"),
            (b"1844674407370955162,h,0,Read,0,1,1", "Timestamp"),
        ];
        for (line, named) in cases {
            let problem = p.parse(line).unwrap_err();
            assert!(problem.contains(named), "{}: {problem}", String::from_utf8_lossy(line));
        }
    }
}
