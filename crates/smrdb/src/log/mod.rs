//! The write-ahead log, kept in bands of its own: each memtable has one log band, holding the
//! records of the writes it took (one record per write batch). A log band is freed once its
//! memtable is a table named by a durable metadata record.
//!
//! Record frame: CRC-32 (u32) of what follows, payload length (u32), payload. A frame never
//! crosses a band. Zeros fail the checksum, so the unwritten end of a band ends the log.
//!
//! Every device write of the log is a whole number of `SECTOR`s, as a zoned drive writes whole
//! logical blocks at its write pointer (ZBC/ZAC): a write that would end inside a sector ends
//! with a padding frame (its length field has the `PADDING` bit set; it holds no record), so the
//! next write starts where this one ended and the disk continues the stream, instead of
//! rewriting the last sector a turn later.

pub mod reader;
pub mod writer;

/// Bytes a frame adds to its payload.
pub const FRAME_HEADER: u64 = 8;

/// The unit of the log's device writes, bytes.
pub const SECTOR: u64 = 512;

/// Set in a frame's length field: the frame is padding, not a record.
pub const PADDING: u32 = 1 << 31;

/// The most bytes padding adds to a device write (a frame header needs room).
pub const MAX_PADDING: u64 = SECTOR + FRAME_HEADER;

/// Bytes of padding that bring a log write ending at `end` to a sector boundary: none, or a
/// whole padding frame (at least its header).
pub fn padding_for(end: u64) -> u64 {
    let pad = (SECTOR - end % SECTOR) % SECTOR;
    if pad != 0 && pad < FRAME_HEADER {
        pad + SECTOR
    } else {
        pad
    }
}
