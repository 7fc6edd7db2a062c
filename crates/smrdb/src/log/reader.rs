//! Reads a log band back at recovery: every whole record up to the first frame that is torn,
//! damaged or absent (the end of what was written before the crash). Writes are acknowledged as
//! synced only after everything before them reached the device, so no acknowledged record lies
//! after the first bad frame; the store starts a new log band rather than append after it.

use super::{FRAME_HEADER, PADDING};
use crate::env::Env;
use crate::error::Result;

/// The payloads of a log band's whole records, in order, and the bytes after them that did
/// not form a record (a torn tail, normally zeros).
pub fn read_records(env: &Env, band: u64, filled: u64) -> Result<(Vec<Vec<u8>>, u64)> {
    let mut bytes = vec![0u8; filled as usize];
    env.read(band, 0, &mut bytes)?;
    let mut records = Vec::new();
    let mut at = 0usize;
    while let Some((payload, end)) = frame_at(&bytes, at) {
        if !is_padding(&bytes, at) {
            records.push(payload.to_vec());
        }
        at = end;
    }
    Ok((records, (bytes.len() - at) as u64))
}

/// The payload of the whole, undamaged record frame starting at `at` in `bytes`, and where the
/// frame ends; `None` if the frame is torn, damaged or absent.
pub fn frame_at(bytes: &[u8], at: usize) -> Option<(&[u8], usize)> {
    let header = bytes.get(at..at + FRAME_HEADER as usize)?;
    let crc = u32::from_le_bytes(header[..4].try_into().expect("4 bytes"));
    let len = (u32::from_le_bytes(header[4..].try_into().expect("4 bytes")) & !PADDING) as usize;
    let end = at + FRAME_HEADER as usize + len;
    if end > bytes.len() || crc32fast::hash(&bytes[at + 4..end]) != crc {
        return None;
    }
    Some((&bytes[at + FRAME_HEADER as usize..end], end))
}

/// Whether the frame at `at` (which `frame_at` found whole) is padding rather than a record.
pub fn is_padding(bytes: &[u8], at: usize) -> bool {
    u32::from_le_bytes(bytes[at + 4..at + 8].try_into().expect("a whole frame has a header")) & PADDING != 0
}
