//! The unit of work every trace reader yields and every simulated system consumes.
//!
//! Not a media I/O: what a system sends to its media is expressed through `smr-sim`'s `IoCtx`,
//! in the same units (bytes, nanoseconds).
//!
//! Every reader makes its requests with `Request::checked`, the one place where a request's
//! byte range is checked: its end must not pass `MAX_END` and its length not `MAX_LEN`, so that
//! `end()` and the rounding of ends up to blocks, bands and zones cannot overflow anywhere
//! downstream. `Request::new` is for requests whose range is known to be valid (tests, systems).

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

/// The largest byte address a request may reach (exclusive end): 2^63 bytes (8 EiB). No device
/// is that large; the headroom lets any end be rounded up to a block, band or zone without overflow.
pub const MAX_END: u64 = 1 << 63;

/// The longest request: 4 GiB − 1 byte, the most one request of Linux's block layer (a `bio`'s
/// 32-bit size) and one smrbin record can carry. Also bounds the per-block work one request costs.
pub const MAX_LEN: u64 = u32::MAX as u64;

/// Why a byte range cannot be a request.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RangeError {
    #[error("a request of {len} bytes is longer than the longest allowed ({MAX_LEN} bytes, 4 GiB - 1)")]
    TooLong { len: u64 },
    #[error("a request at byte {offset} of {len} bytes ends past byte 2^63 (the largest address smrlab accepts)")]
    EndsTooFar { offset: u64, len: u64 },
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
    /// A request whose range is known to be valid (see `checked` for one read from outside).
    pub fn new(time_ns: u64, op: Op, offset: u64, len: u64) -> Self {
        Request { time_ns, op, offset, len }
    }

    /// A request read from outside smrlab: refused unless `len <= MAX_LEN` and
    /// `offset + len <= MAX_END`.
    pub fn checked(time_ns: u64, op: Op, offset: u64, len: u64) -> Result<Self, RangeError> {
        if len > MAX_LEN {
            return Err(RangeError::TooLong { len });
        }
        match offset.checked_add(len) {
            Some(end) if end <= MAX_END => Ok(Request { time_ns, op, offset, len }),
            _ => Err(RangeError::EndsTooFar { offset, len }),
        }
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
    fn checked_refuses_ranges_that_overflow_or_are_too_long() {
        assert_eq!(Request::checked(1, Op::Write, 4096, 8192), Ok(Request::new(1, Op::Write, 4096, 8192)));
        assert_eq!(Request::checked(0, Op::Read, MAX_END - MAX_LEN, MAX_LEN).map(|r| r.end()), Ok(MAX_END));
        assert_eq!(Request::checked(0, Op::Read, MAX_END, 0).map(|r| r.end()), Ok(MAX_END));
        assert_eq!(Request::checked(0, Op::Read, MAX_END, 1), Err(RangeError::EndsTooFar { offset: MAX_END, len: 1 }));
        assert_eq!(
            Request::checked(0, Op::Read, u64::MAX, 4096),
            Err(RangeError::EndsTooFar { offset: u64::MAX, len: 4096 })
        );
        assert_eq!(Request::checked(0, Op::Read, 0, MAX_LEN + 1), Err(RangeError::TooLong { len: MAX_LEN + 1 }));
        assert_eq!(Request::checked(0, Op::Read, 0, u64::MAX), Err(RangeError::TooLong { len: u64::MAX }));
    }

    #[test]
    fn op_codes_round_trip() {
        for op in [Op::Read, Op::Write, Op::Trim] {
            assert_eq!(Op::from_code(op as u8), Some(op));
        }
        assert_eq!(Op::from_code(9), None);
    }
}
