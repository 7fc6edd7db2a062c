//! blkparse's default text output, e.g.
//! `  8,0    3        1     0.000000000   697  D   W 223490 + 8 [kjournald]`:
//! device, CPU, sequence, time in seconds, PID, action, RWBS, sector + sectors, process.
//!
//! One action becomes a request (option `action`, default `D`: issued to the driver; `Q`: queued
//! by the block layer; `C`: completed). The RWBS field decides the op: `D` discard → trim, `W` →
//! write, `R` → read; events with no data (`N`) are skipped. Lines that are not events (the
//! per-CPU and total summaries blkparse prints at the end) are skipped; an event line whose
//! numbers do not parse is an error. Times are relative to the first event.

use std::io::BufRead;
use std::path::Path;

use super::lines::{
    field_f64, field_u64, request, scaled_bytes, scaled_ns, text, LineParser, LineRecords, RelativeClock,
};
use super::{TraceError, TraceReader};
use smr_core::request::{Op, Request};
use smr_core::units::{NS_PER_S, SECTOR};
use smr_core::{Kind, ParamReader, ParamSpec, Params};

const ACTION: ParamSpec = ParamSpec::new(
    "action",
    Kind::Custom { unit: "Q, D or C (as blkparse prints it)" },
    "D",
    "the event that becomes a request: Q queued, D issued to the driver, C completed",
);

/// The reader's options.
pub const OPTIONS: &[ParamSpec] = &[ACTION];

/// Reads blkparse's text output from `input`.
pub fn read(input: Box<dyn BufRead + Send>, path: &Path, options: &mut Params) -> Result<TraceReader, TraceError> {
    let action = ParamReader::new(options, &[OPTIONS]).text(&ACTION).map_err(TraceError::option)?;
    let parser =
        BlkparseParser::new(&action).map_err(|m| TraceError::Invalid(format!("trace option 'action': {m}")))?;
    Ok(TraceReader::boxed(LineRecords::new(input, path.to_path_buf(), parser)))
}

pub struct BlkparseParser {
    action: String,
    clock: RelativeClock,
}

impl BlkparseParser {
    pub fn new(action: &str) -> Result<Self, String> {
        match action {
            "Q" | "D" | "C" => Ok(BlkparseParser { action: action.to_string(), clock: RelativeClock::default() }),
            other => Err(format!("blkparse action {} is not one of Q, D, C", smr_core::quote(other))),
        }
    }
}

fn is_device(field: &str) -> bool {
    field.split_once(',').is_some_and(|(a, b)| {
        !a.is_empty() && !b.is_empty() && a.bytes().all(|c| c.is_ascii_digit()) && b.bytes().all(|c| c.is_ascii_digit())
    })
}

impl LineParser for BlkparseParser {
    fn parse(&mut self, line: &[u8]) -> Result<Option<Request>, String> {
        let line = text(line)?;
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 7 || !is_device(fields[0]) {
            return Ok(None);
        }
        let seconds = field_f64(&fields, 3, "time")?;
        let time_ns = self.clock.at(scaled_ns(seconds, NS_PER_S as f64, "time")?);
        if fields[5] != self.action {
            return Ok(None);
        }
        let rwbs = fields[6];
        let op = if rwbs.contains('D') {
            Op::Trim
        } else if rwbs.contains('W') {
            Op::Write
        } else if rwbs.contains('R') {
            Op::Read
        } else {
            return Ok(None);
        };
        if fields.len() < 10 || fields[8] != "+" {
            return Ok(None);
        }
        let sector = field_u64(&fields, 7, "sector")?;
        let sectors = field_u64(&fields, 9, "sector count")?;
        request(time_ns, op, scaled_bytes(sector, SECTOR, "sector")?, scaled_bytes(sectors, SECTOR, "sector count")?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn picks_the_chosen_action_and_maps_rwbs() {
        let mut p = BlkparseParser::new("D").unwrap();
        assert_eq!(p.parse(b"  8,0    3        1     0.000000000   697  Q   W 223490 + 8 [kjournald]").unwrap(), None);
        let r = p.parse(b"  8,0    3        2     0.000100000   697  D  WS 223490 + 8 [kjournald]").unwrap().unwrap();
        assert_eq!(r, Request::new(100_000, Op::Write, 223490 * 512, 4096));
        let r = p.parse(b"  8,0    0        3     0.000200000   697  D   R 8 + 16 [cat]").unwrap().unwrap();
        assert_eq!((r.op, r.offset, r.len), (Op::Read, 4096, 8192));
        let r = p.parse(b"  8,0    0        4     0.000300000   697  D  DS 64 + 8 [fstrim]").unwrap().unwrap();
        assert_eq!(r.op, Op::Trim);
        assert_eq!(p.parse(b"CPU0 (8,0):").unwrap(), None);
        assert_eq!(p.parse(b" Reads Queued:      1,        4KiB\t Writes Queued:       2,        8KiB").unwrap(), None);
        assert!(p.parse(b"  8,0    0        5     x.y   697  D   R 8 + 16 [cat]").unwrap_err().contains("time"));
        assert!(BlkparseParser::new("X").is_err());
        let far = p.parse(b"  8,0    0        6     0.1   697  D   W 18446744073709551615 + 8 [x]").unwrap_err();
        assert!(far.contains("sector 18446744073709551615"), "{far}");
        let ends = p.parse(b"  8,0    0        6     0.1   697  D   W 18014398509481983 + 8 [x]").unwrap_err();
        assert!(ends.contains("2^63"), "{ends}");
    }
}
