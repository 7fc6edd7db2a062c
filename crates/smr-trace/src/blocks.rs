//! The one-4 KiB-block-per-line format: `op blockno`, separated by blanks, with op 1 = write and
//! 0 = read (the format of several SMR cache simulators' block traces).
//!
//! The format has no times: every request gets time 0 (closed-loop replay ignores times; an
//! open-loop replay of such a trace issues everything at once).

use super::lines::{field_u64, leading_decimal, request, scaled_bytes, text, LineParser};
use smr_core::request::{Op, Request, MAX_END};
use smr_core::units::BLOCK_4K;

#[derive(Default)]
pub struct BlocksParser;

impl LineParser for BlocksParser {
    /// Bytes, not chars, and no collected field list: this is the hot loop of block-trace
    /// replays. Anything unusual falls through to the checked parse for its message.
    #[inline]
    fn parse(&mut self, line: &[u8]) -> Result<Option<Request>, String> {
        match fast_fields(line) {
            Some((op, block)) if block < MAX_END / BLOCK_4K => {
                Ok(Some(Request::new(0, op, block * BLOCK_4K, BLOCK_4K)))
            }
            _ => checked_parse(line),
        }
    }
}

/// A line the fast path refused, parsed field by field for the message that says why (or, for a
/// line it merely did not expect, its request).
#[cold]
#[inline(never)]
fn checked_parse(line: &[u8]) -> Result<Option<Request>, String> {
    let fields: Vec<&str> = text(line)?.split_whitespace().collect();
    if fields.len() != 2 {
        return Err(format!("expected 'op blockno' (2 fields), found {}", fields.len()));
    }
    let op = match fields[0] {
        "1" => Op::Write,
        "0" => Op::Read,
        other => return Err(format!("op {} is neither 1 (write) nor 0 (read)", smr_core::quote(other))),
    };
    let block = field_u64(&fields, 1, "block number")?;
    request(0, op, scaled_bytes(block, BLOCK_4K, "block number")?, BLOCK_4K)
}

/// `0|1`, blanks, decimal digits, optional trailing blanks: the op and block number, or `None`
/// for anything else (including a number that overflows).
fn fast_fields(line: &[u8]) -> Option<(Op, u64)> {
    let (op, rest) = match line.split_first()? {
        (b'1', rest) => (Op::Write, rest),
        (b'0', rest) => (Op::Read, rest),
        _ => return None,
    };
    let number = rest.trim_ascii_start();
    if number.len() == rest.len() {
        return None;
    }
    let (block, digits) = leading_decimal(number)?;
    number[digits..].iter().all(u8::is_ascii_whitespace).then_some((op, block))
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
    use std::path::PathBuf;

    use crate::lines::{LineRecords, MAX_LINE};
    use crate::TraceError;

    // LineRecords driven by this parser: lines across buffer refills, bad and overlong lines.
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
            assert_eq!(
                requests,
                [(Op::Write, 10), (Op::Read, 3), (Op::Write, 123456789), (Op::Read, 5)],
                "capacity {capacity}"
            );
        }
    }

    #[test]
    fn a_bad_line_is_named_by_its_number_and_ends_the_stream() {
        for capacity in [2, 64] {
            let results = read(b"1 10\n\n1 x\n0 4\n", capacity);
            assert_eq!(results.len(), 2);
            match &results[1] {
                Err(TraceError::Malformed { line, message, .. }) => {
                    assert_eq!((*line, message.contains("'x'")), (3, true))
                }
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
            let read: Result<Vec<Request>, TraceError> =
                LineRecords::new(Box::new(reader), PathBuf::from("t.blocks"), BlocksParser).collect();
            assert_eq!(read.unwrap().len(), 2, "capacity {capacity}");
        }
    }

    #[test]
    fn one_block_per_line() {
        let mut p = BlocksParser;
        assert_eq!(p.parse(b"1 10").unwrap().unwrap(), Request::new(0, Op::Write, 40960, 4096));
        assert_eq!(p.parse(b"0\t3").unwrap().unwrap().op, Op::Read);
        assert!(p.parse(b"2 3").unwrap_err().contains("op '2'"));
        assert!(p.parse(b"1").is_err());
        assert!(p.parse(b"1 3 4").unwrap_err().contains("found 3"));
        assert!(p.parse(b"01 3").is_err(), "the op is one digit");
        assert!(p.parse(b"1 3x").unwrap_err().contains("'3x'"));
        assert!(p.parse(b"1 99999999999999999999").unwrap_err().contains("block number"));
        assert!(p.parse(b"1 4503599627370496").unwrap_err().contains("out of range"));
        assert!(p.parse(b"1 2251799813685248").unwrap_err().contains("2^63"), "block 2^51 ends past byte 2^63");
        assert_eq!(
            p.parse(b"1 2251799813685247").unwrap().unwrap().end(),
            smr_core::request::MAX_END,
            "the last block ends at it"
        );
        assert_eq!(p.parse(b" 1 10 ").unwrap().unwrap().offset, 40960, "leading and trailing blanks");
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
