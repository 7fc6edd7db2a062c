//! What every trace reader keeps to on any input whatever, checked by the property tests
//! (`tests/hostile_traces.rs`) and the fuzz targets (`fuzz/`), which feed it hostile bytes:
//!
//! - it ends: at most one item per input byte, plus one (the steps a read may take);
//! - every request it yields is a byte range smrlab accepts (`Request::checked`'s bounds);
//! - an error ends the stream, and its message is short (at most `MESSAGE_MAX` bytes), one
//!   line, and free of control characters, whatever the input held.
//!
//! A violation is returned as a message (the fuzz targets panic with it). Not here: whether a
//! reader parses valid records right (each reader's own tests, the round trips).

use std::io::Cursor;
use std::path::Path;

use super::{read_from, FormatEntry};
use smr_core::params::Params;
use smr_core::request::{MAX_END, MAX_LEN};

/// The longest error message a hostile input may produce.
pub const MESSAGE_MAX: usize = 400;

/// Reads `bytes` as a trace of the format called `format` with `options`; `Ok(requests read)` or
/// the invariant broken.
pub fn check(format: &str, bytes: &[u8], options: &[&str]) -> Result<u64, String> {
    let format = FormatEntry::named(format).map_err(|e| e.to_string())?;
    let mut params = Params::parse(options).map_err(|e| format!("bad options {options:?}: {e}"))?;
    let reader = match read_from(Box::new(Cursor::new(bytes.to_vec())), Path::new("hostile"), format, &mut params) {
        Ok(reader) => reader,
        Err(e) => return message_ok(&e.to_string()).map(|()| 0),
    };
    let steps_allowed = bytes.len() as u64 + 1;
    let (mut steps, mut requests) = (0u64, 0u64);
    let mut failed = false;
    for item in reader {
        steps += 1;
        if steps > steps_allowed {
            return Err(format!("{} yielded more than {steps_allowed} items from {} bytes", format.name, bytes.len()));
        }
        if failed {
            return Err(format!("{} went on after an error", format.name));
        }
        match item {
            Ok(req) if req.len > MAX_LEN || req.offset.checked_add(req.len).is_none_or(|end| end > MAX_END) => {
                return Err(format!("{} yielded a request outside the accepted ranges: {req:?}", format.name))
            }
            Ok(_) => requests += 1,
            Err(e) => {
                message_ok(&e.to_string())?;
                failed = true;
            }
        }
    }
    Ok(requests)
}

fn message_ok(message: &str) -> Result<(), String> {
    if message.len() > MESSAGE_MAX || message.chars().any(char::is_control) {
        let start: String = message.chars().take(MESSAGE_MAX).collect();
        return Err(format!("message of {} bytes or with control characters: {start:?}", message.len()));
    }
    Ok(())
}
