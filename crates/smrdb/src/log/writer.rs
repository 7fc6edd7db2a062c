//! Appends framed records to a log band through a buffer (the thesis's log buffer): records
//! reach the device when the buffer fills, and are durable after `sync`.

use super::{padding_for, FRAME_HEADER, MAX_PADDING, PADDING};
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
        self.appended + self.buffer.len() as u64 + FRAME_HEADER + payload_len + MAX_PADDING <= band_size
    }

    /// Adds one record; the caller has checked that it `fits`.
    pub fn add(&mut self, env: &Env, payload: &[u8]) -> Result<()> {
        self.frame(payload.len() as u32, payload);
        if self.buffer.len() >= self.buffer_limit {
            self.flush(env)?;
        }
        Ok(())
    }

    /// Frames `payload` into the buffer under the length field `len`.
    fn frame(&mut self, len: u32, payload: &[u8]) {
        let mut digest = crc32fast::Hasher::new();
        digest.update(&len.to_le_bytes());
        digest.update(payload);
        put_u32(&mut self.buffer, digest.finalize());
        put_u32(&mut self.buffer, len);
        self.buffer.extend_from_slice(payload);
    }

    /// Hands the buffered records to the device (not yet durable), padded to whole sectors.
    pub fn flush(&mut self, env: &Env) -> Result<()> {
        if !self.buffer.is_empty() {
            let pad = padding_for(self.position());
            if pad > 0 {
                let body = vec![0u8; (pad - FRAME_HEADER) as usize];
                self.frame(PADDING | body.len() as u32, &body);
            }
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

#[cfg(test)]
mod tests {
    use smr_zoned::MemZonedDevice;

    use super::*;
    use crate::device::Shared;
    use crate::log::reader::read_records;
    use crate::log::SECTOR;

    #[test]
    fn every_device_write_is_whole_sectors_and_padding_is_not_a_record() {
        let env = Env::new(Box::new(Shared::new(MemZonedDevice::new(1 << 20, 4, 1).unwrap())), "test".into());
        let mut log = LogWriter::new(2, 1 << 16);
        let mut written = Vec::new();
        // Payloads chosen so that some writes end 1..7 bytes short of a sector (a padding frame
        // then needs a sector more) and some end exactly on one (no padding).
        for (i, len) in [1usize, 500, 503, 504, 505, 1016, 4142, 0, 77].into_iter().enumerate() {
            let payload = vec![i as u8 + 1; len];
            log.add(&env, &payload).unwrap();
            log.sync(&env).unwrap();
            assert_eq!(log.position() % SECTOR, 0, "after record {i} ({len} bytes) the log ends on a sector");
            written.push(payload);
        }
        let filled = env.device.filled()[2];
        assert_eq!(filled, log.position());
        let (records, torn) = read_records(&env, 2, filled).unwrap();
        assert_eq!(records, written);
        assert_eq!(torn, 0);
    }
}
