//! MSR Cambridge block traces (SNIA IOTTA): CSV lines
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`, with Timestamp in Windows
//! filetime ticks of 100 ns, Type `Read` or `Write`, Offset and Size in bytes.
//!
//! Request times are relative to the first record. A header line starting with `Timestamp` is
//! skipped. Also the writer of this format (Hostname `smrlab`, DiskNumber 0, ResponseTime 0).

use std::io::Write;

use super::lines::{LineParser, RelativeClock};
use crate::request::{Op, Request};

#[derive(Default)]
pub struct MsrParser {
    clock: RelativeClock,
}

/// The next comma-separated field, or an error naming the missing one.
fn next_field<'a>(fields: &mut std::str::Split<'a, char>, name: &str) -> Result<&'a str, String> {
    fields.next().ok_or_else(|| {
        format!("missing field {name}: expected 7 comma-separated fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime)")
    })
}

/// Parses decimal digits without allocation (the hot path of reading MSR traces).
fn number(text: &str, name: &str) -> Result<u64, String> {
    let t = text.trim();
    if t.is_empty() || t.len() > 19 || !t.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{name} '{t}' is not a non-negative whole number"));
    }
    Ok(t.bytes().fold(0u64, |n, b| n * 10 + (b - b'0') as u64))
}

impl LineParser for MsrParser {
    fn parse(&mut self, line: &str) -> Result<Option<Request>, String> {
        if line.starts_with("Timestamp") {
            return Ok(None);
        }
        let mut fields = line.split(',');
        let ticks = number(next_field(&mut fields, "Timestamp")?, "Timestamp")?;
        next_field(&mut fields, "Hostname")?;
        next_field(&mut fields, "DiskNumber")?;
        let op = match next_field(&mut fields, "Type")?.trim() {
            t if t.eq_ignore_ascii_case("write") => Op::Write,
            t if t.eq_ignore_ascii_case("read") => Op::Read,
            other => return Err(format!("Type '{other}' is neither Read nor Write")),
        };
        let offset = number(next_field(&mut fields, "Offset")?, "Offset")?;
        let len = number(next_field(&mut fields, "Size")?, "Size")?;
        let time_ns = self.clock.at(ticks.saturating_mul(100));
        Ok(Some(Request { time_ns, op, offset, len }))
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
        let a = p.parse("128166372003061629,wdev,0,Write,3154944,4096,1331").unwrap().unwrap();
        let b = p.parse("128166372003081629,wdev,0,Read,0,512,10").unwrap().unwrap();
        assert_eq!(a, Request::new(0, Op::Write, 3154944, 4096));
        assert_eq!(b, Request::new(2_000_000, Op::Read, 0, 512));
        assert_eq!(p.parse("Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime").unwrap(), None);
    }

    #[test]
    fn bad_fields_are_named() {
        let mut p = MsrParser::default();
        assert!(p.parse("1,h,0,Erase,0,4096,1").unwrap_err().contains("Type 'Erase'"));
        assert!(p.parse("1,h,0,Read,-5,4096,1").unwrap_err().contains("Offset"));
        assert!(p.parse("1,h,0").unwrap_err().contains("missing field Type"));
    }
}
