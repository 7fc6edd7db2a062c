//! The unit of work every trace reader yields and every simulated system consumes.
//!
//! Not a media I/O: what a system sends to its media is expressed through `smr-sim`'s `IoCtx`,
//! in the same units (bytes, nanoseconds).

use serde::{Deserialize, Serialize};

/// What a request does to its byte range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[repr(u8)]
pub enum Op {
    Read = 0,
    Write = 1,
    /// Discard / TRIM / zone-reset style hint: the range's contents are no longer needed.
    Trim = 2,
}

impl Op {
    /// The op's one-letter code, as used by the text formats smrlab writes (`R`, `W`, `T`).
    pub fn letter(self) -> char {
        match self {
            Op::Read => 'R',
            Op::Write => 'W',
            Op::Trim => 'T',
        }
    }

    /// Inverse of `as u8`; `None` for an unknown code.
    pub fn from_code(code: u8) -> Option<Op> {
        match code {
            0 => Some(Op::Read),
            1 => Some(Op::Write),
            2 => Some(Op::Trim),
            _ => None,
        }
    }
}

/// One host request: at `time_ns`, `op` on bytes `[offset, offset + len)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Request {
    /// Arrival time in nanoseconds since the start of the trace.
    pub time_ns: u64,
    pub op: Op,
    /// Byte offset on the logical device.
    pub offset: u64,
    /// Length in bytes (may be 0 for a flush-like record; systems treat it as a no-op).
    pub len: u64,
}

impl Request {
    pub fn new(time_ns: u64, op: Op, offset: u64, len: u64) -> Self {
        Request { time_ns, op, offset, len }
    }

    /// One past the last byte touched.
    pub fn end(&self) -> u64 {
        self.offset + self.len
    }

    /// The range of `block`-sized blocks this request touches (first, one past last).
    /// A zero-length request touches no block.
    pub fn blocks(&self, block: u64) -> std::ops::Range<u64> {
        if self.len == 0 {
            return self.offset / block..self.offset / block;
        }
        self.offset / block..self.end().div_ceil(block)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_cover_partial_ends() {
        let r = Request::new(0, Op::Write, 4095, 2);
        assert_eq!(r.blocks(4096), 0..2);
        let r = Request::new(0, Op::Write, 4096, 4096);
        assert_eq!(r.blocks(4096), 1..2);
        let r = Request::new(0, Op::Read, 8192, 0);
        assert!(r.blocks(4096).is_empty());
    }

    #[test]
    fn op_codes_round_trip() {
        for op in [Op::Read, Op::Write, Op::Trim] {
            assert_eq!(Op::from_code(op as u8), Some(op));
        }
        assert_eq!(Op::from_code(9), None);
    }
}
