//! SPC (Storage Performance Council / UMass) traces: CSV lines `ASU,LBA,Size,Opcode,Timestamp`
//! with LBA in 512-byte sectors, Size in bytes, Opcode `r`/`w` (either case) and Timestamp in
//! seconds (fractional).
//!
//! ASUs (application storage units) are separate volumes. By default every ASU is read into the
//! same address space, as most block-trace tools do; option `asu=N` keeps only ASU N. Times
//! are relative to the first record.

use std::io::BufRead;
use std::path::Path;

use super::lines::{
    field_f64, field_u64, request, scaled_bytes, scaled_ns, text, LineParser, LineRecords, RelativeClock,
};
use super::{TraceError, TraceReader};
use smr_core::param_spec::NONE;
use smr_core::request::{Op, Request};
use smr_core::units::{NS_PER_S, SECTOR};
use smr_core::{Kind, ParamReader, ParamSpec, Params};

const ASU: ParamSpec =
    ParamSpec::new("asu", Kind::Whole, NONE, "keep only this ASU's requests (none: every ASU, in one address space)");

/// The reader's options.
pub const OPTIONS: &[ParamSpec] = &[ASU];

/// Reads an SPC trace from `input`.
pub fn read(input: Box<dyn BufRead + Send>, path: &Path, options: &mut Params) -> Result<TraceReader, TraceError> {
    let mut options = ParamReader::new(options, &[OPTIONS]);
    let asu = if options.given(&ASU) {
        let text = options.text(&ASU).map_err(TraceError::option)?;
        let number = text.parse::<u64>().map_err(|_| {
            TraceError::Invalid(format!("trace option 'asu': {} is not an ASU number", smr_core::quote(&text)))
        })?;
        Some(number)
    } else {
        None
    };
    Ok(TraceReader::boxed(LineRecords::new(input, path.to_path_buf(), SpcParser::new(asu))))
}

pub struct SpcParser {
    only_asu: Option<u64>,
    clock: RelativeClock,
}

impl SpcParser {
    pub fn new(only_asu: Option<u64>) -> Self {
        SpcParser { only_asu, clock: RelativeClock::default() }
    }
}

impl LineParser for SpcParser {
    fn parse(&mut self, line: &[u8]) -> Result<Option<Request>, String> {
        let line = text(line)?;
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() != 5 {
            return Err(format!(
                "expected 5 comma-separated fields (ASU,LBA,Size,Opcode,Timestamp), found {}",
                fields.len()
            ));
        }
        let asu = field_u64(&fields, 0, "ASU")?;
        let lba = field_u64(&fields, 1, "LBA")?;
        let len = field_u64(&fields, 2, "Size")?;
        let op = match fields[3].trim() {
            "r" | "R" => Op::Read,
            "w" | "W" => Op::Write,
            other => return Err(format!("Opcode {} is neither r nor w", smr_core::quote(other))),
        };
        let seconds = field_f64(&fields, 4, "Timestamp")?;
        let time_ns = self.clock.at(scaled_ns(seconds, NS_PER_S as f64, "Timestamp")?);
        if self.only_asu.is_some_and(|keep| keep != asu) {
            return Ok(None);
        }
        request(time_ns, op, scaled_bytes(lba, SECTOR, "LBA")?, len)
    }
}

/// Writes one request as an SPC line (ASU 0).
pub fn write_line(out: &mut dyn std::io::Write, req: &Request) -> std::io::Result<()> {
    let op = if req.op == Op::Write { 'w' } else { 'r' };
    writeln!(out, "0,{},{},{op},{:.9}", req.offset / SECTOR, req.len, req.time_ns as f64 / NS_PER_S as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sectors_and_seconds() {
        let mut p = SpcParser::new(None);
        assert_eq!(
            p.parse(b"0,20941264,8192,W,0.551706").unwrap().unwrap(),
            Request::new(0, Op::Write, 20941264 * 512, 8192)
        );
        assert_eq!(p.parse(b"1,8,512,r,0.651706").unwrap().unwrap(), Request::new(100_000_000, Op::Read, 4096, 512));
        let mut only = SpcParser::new(Some(1));
        assert_eq!(only.parse(b"0,1,512,r,0").unwrap(), None);
        assert!(p.parse(b"0,1,512,x,0").unwrap_err().contains("Opcode"));
        assert!(p.parse(b"0,1,512,r,0,7").unwrap_err().contains("found 6"));
        assert!(
            p.parse(b"0,36028797018963967,8192,r,0").unwrap_err().contains("2^63"),
            "an LBA near 2^55 ends past 2^63 bytes"
        );
        assert!(p.parse(b"0,36028797018963968000,512,r,0").unwrap_err().contains("LBA"));
        assert!(p.parse(b"0,1,512,r,1e300").unwrap_err().contains("Timestamp"));
    }
}
