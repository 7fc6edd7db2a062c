//! Appends framed records to a log band through a buffer (the thesis's log buffer): records
//! reach the device when the buffer fills, and are durable after `sync`.

use super::FRAME_HEADER;
use crate::env::{Env, Stats};
use crate::error::Result;
use crate::util::coding::put_u32;

pub struct LogWriter {
    band: u64,
    /// Bytes appended to the band so far.
    appended: u64,
    buffer: Vec<u8>,
    buffer_limit: usize,
}

impl LogWriter {
    /// A writer at the end of `band` (empty for a new log band).
    pub fn new(band: u64, buffer_limit: usize) -> Self {
        LogWriter { band, appended: 0, buffer: Vec::with_capacity(buffer_limit.min(1 << 20)), buffer_limit }
    }

    pub fn band(&self) -> u64 {
        self.band
    }

    /// Where in the band the next record will start.
    pub fn position(&self) -> u64 {
        self.appended + self.buffer.len() as u64
    }

    /// Whether a record with a `payload_len`-byte payload still fits in the band.
    pub fn fits(&self, payload_len: u64, band_size: u64) -> bool {
        self.appended + self.buffer.len() as u64 + FRAME_HEADER + payload_len <= band_size
    }

    /// Adds one record; the caller has checked that it `fits`.
    pub fn add(&mut self, env: &Env, payload: &[u8]) -> Result<()> {
        let mut digest = crc32fast::Hasher::new();
        digest.update(&(payload.len() as u32).to_le_bytes());
        digest.update(payload);
        put_u32(&mut self.buffer, digest.finalize());
        put_u32(&mut self.buffer, payload.len() as u32);
        self.buffer.extend_from_slice(payload);
        if self.buffer.len() >= self.buffer_limit {
            self.flush(env)?;
        }
        Ok(())
    }

    /// Hands the buffered records to the device (not yet durable).
    pub fn flush(&mut self, env: &Env) -> Result<()> {
        if !self.buffer.is_empty() {
            env.append(self.band, &self.buffer)?;
            self.appended += self.buffer.len() as u64;
            Stats::add(&env.stats.log_bytes_written, self.buffer.len() as u64);
            self.buffer.clear();
        }
        Ok(())
    }

    /// Makes every record added so far durable.
    pub fn sync(&mut self, env: &Env) -> Result<()> {
        self.flush(env)?;
        env.sync()?;
        Stats::add(&env.stats.log_syncs, 1);
        Ok(())
    }
}
