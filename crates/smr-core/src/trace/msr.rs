//! MSR Cambridge block traces (SNIA IOTTA): CSV lines
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`, with Timestamp in Windows
//! filetime ticks of 100 ns, Type `Read` or `Write`, Offset and Size in bytes.
//!
//! Request times are relative to the first record. A header line starting with `Timestamp` is
//! skipped. A line must have exactly the seven fields. Also the writer of this format (Hostname `smrlab`, DiskNumber 0, ResponseTime 0).

use std::io::Write;

use super::lines::{request, LineParser, RelativeClock};
use crate::quote::quote;
use crate::request::{Op, Request};

const FIELDS: &str = "expected 7 comma-separated fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime)";

#[derive(Default)]
pub struct MsrParser {
    clock: RelativeClock,
}

/// The next comma-separated field (as bytes), or an error naming the missing one.
fn next_field<'a>(fields: &mut impl Iterator<Item = &'a [u8]>, name: &str) -> Result<&'a [u8], String> {
    fields.next().ok_or_else(|| format!("missing field {name}: {FIELDS}"))
}

/// Parses decimal digits in one pass without allocation (the hot path of reading MSR traces);
/// surrounding blanks are allowed.
fn number(field: &[u8], name: &str) -> Result<u64, String> {
    let digits = field.trim_ascii();
    let bad = || format!("{name} {} is not a non-negative whole number", quote(digits));
    if digits.is_empty() {
        return Err(bad());
    }
    digits.iter().try_fold(0u64, |n, &b| {
        if b.is_ascii_digit() {
            n.checked_mul(10).and_then(|n| n.checked_add((b - b'0') as u64)).ok_or_else(bad)
        } else {
            Err(bad())
        }
    })
}

impl LineParser for MsrParser {
    fn parse(&mut self, line: &[u8]) -> Result<Option<Request>, String> {
        if line.starts_with(b"Timestamp") {
            return Ok(None);
        }
        let mut fields = line.split(|&b| b == b',');
        let ticks = number(next_field(&mut fields, "Timestamp")?, "Timestamp")?;
        next_field(&mut fields, "Hostname")?;
        next_field(&mut fields, "DiskNumber")?;
        let kind = next_field(&mut fields, "Type")?.trim_ascii();
        let op = if kind.eq_ignore_ascii_case(b"write") {
            Op::Write
        } else if kind.eq_ignore_ascii_case(b"read") {
            Op::Read
        } else {
            return Err(format!("Type {} is neither Read nor Write", quote(kind)));
        };
        let offset = number(next_field(&mut fields, "Offset")?, "Offset")?;
        let len = number(next_field(&mut fields, "Size")?, "Size")?;
        next_field(&mut fields, "ResponseTime")?;
        if fields.next().is_some() {
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
    }

    #[test]
    fn bad_fields_are_named() {
        let mut p = MsrParser::default();
        assert!(p.parse(b"1,h,0,Erase,0,4096,1").unwrap_err().contains("Type 'Erase'"));
        assert!(p.parse(b"1,h,0,Read,-5,4096,1").unwrap_err().contains("Offset"));
        assert!(p.parse(b"1,h,0").unwrap_err().contains("missing field Type"));
        assert!(p.parse(b"1,h,0,Read,0,4096").unwrap_err().contains("missing field ResponseTime"));
        assert!(p.parse(b"1,h,0,Read,0,4096,1,x").unwrap_err().contains("more than 7 fields"));
        assert!(p.parse(b"1,h,0,Read,0,4096,1,x,y").unwrap_err().contains("more than 7 fields"));
        assert!(p.parse(b"1,h,0,Read,18446744073709551615,4096,1").unwrap_err().contains("2^63"));
        assert!(p.parse(b"1,h,0,Read,0,18446744073709551615,1").unwrap_err().contains("longer than"));
        assert!(p.parse(b"1844674407370955162,h,0,Read,0,1,1").unwrap_err().contains("Timestamp"));
    }
}
