//! The one-4 KiB-block-per-line format: `op blockno`, separated by blanks, with op 1 = write and
//! 0 = read (the format of several SMR cache simulators' block traces).
//!
//! The format has no times: every request gets time 0 (closed-loop replay ignores times; an
//! open-loop replay of such a trace issues everything at once).

use super::lines::{field_u64, LineParser};
use crate::request::{Op, Request};
use crate::units::BLOCK_4K;

#[derive(Default)]
pub struct BlocksParser;

impl LineParser for BlocksParser {
    fn parse(&mut self, line: &str) -> Result<Option<Request>, String> {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() != 2 {
            return Err(format!("expected 'op blockno' (2 fields), found {}", fields.len()));
        }
        let op = match fields[0] {
            "1" => Op::Write,
            "0" => Op::Read,
            other => return Err(format!("op '{other}' is neither 1 (write) nor 0 (read)")),
        };
        let block = field_u64(&fields, 1, "block number")?;
        let offset = block.checked_mul(BLOCK_4K).ok_or_else(|| format!("block number {block} is out of range"))?;
        Ok(Some(Request { time_ns: 0, op, offset, len: BLOCK_4K }))
    }
}

/// Writes a request as one line per 4 KiB block it touches.
pub fn write_lines(out: &mut dyn std::io::Write, req: &Request) -> std::io::Result<()> {
    let op = if req.op == Op::Write { 1 } else { 0 };
    for block in req.blocks(BLOCK_4K) {
        writeln!(out, "{op} {block}")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_block_per_line() {
        let mut p = BlocksParser;
        assert_eq!(p.parse("1 10").unwrap().unwrap(), Request::new(0, Op::Write, 40960, 4096));
        assert_eq!(p.parse("0\t3").unwrap().unwrap().op, Op::Read);
        assert!(p.parse("2 3").unwrap_err().contains("op '2'"));
        assert!(p.parse("1").is_err());
    }
}
