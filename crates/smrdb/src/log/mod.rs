//! The write-ahead log, kept in bands of its own: each memtable has one log band, holding the
//! records of the writes it took (one record per write batch). A log band is freed once its
//! memtable is a table named by a durable metadata record.
//!
//! Record frame: CRC-32 (u32) of what follows, payload length (u32), payload. A frame never
//! crosses a band. Zeros fail the checksum, so the unwritten end of a band ends the log.

pub mod reader;
pub mod writer;

/// Bytes a frame adds to its payload.
pub const FRAME_HEADER: u64 = 8;
