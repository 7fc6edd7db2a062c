//! MSR Cambridge block traces (SNIA IOTTA): CSV lines
//! `Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`, with Timestamp in Windows
//! filetime ticks of 100 ns, Type `Read` or `Write`, Offset and Size in bytes.
//!
//! Request times are relative to the first record. A header line starting with `Timestamp` is
//! skipped. Also the writer of this format (Hostname `smrlab`, DiskNumber 0, ResponseTime 0).

use std::io::Write;

use super::lines::{field_u64, LineParser, RelativeClock};
use crate::request::{Op, Request};

#[derive(Default)]
pub struct MsrParser {
    clock: RelativeClock,
}

impl LineParser for MsrParser {
    fn parse(&mut self, line: &str) -> Result<Option<Request>, String> {
        if line.starts_with("Timestamp") {
            return Ok(None);
        }
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() < 6 {
            return Err(format!(
                "expected 7 comma-separated fields (Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime), found {}",
                fields.len()
            ));
        }
        let ticks = field_u64(&fields, 0, "Timestamp")?;
        let op = match fields[3].trim() {
            t if t.eq_ignore_ascii_case("read") => Op::Read,
            t if t.eq_ignore_ascii_case("write") => Op::Write,
            other => return Err(format!("Type '{other}' is neither Read nor Write")),
        };
        let offset = field_u64(&fields, 4, "Offset")?;
        let len = field_u64(&fields, 5, "Size")?;
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
        assert!(p.parse("1,h,0").unwrap_err().contains("7 comma-separated"));
    }
}
