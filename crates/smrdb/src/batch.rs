//! Write batches: puts and deletes applied together or not at all. A batch is one log record,
//! so after a crash either all of it is replayed or none (the record's checksum decides), and it
//! takes consecutive sequence numbers, so readers see all of it or none.
//!
//! Record payload: first sequence number (u64), entry count (u32), then per entry its kind
//! (u8), the key (varint length + bytes) and, for puts, the value (varint length + bytes).

use crate::key::Kind;
use crate::util::coding::{put_bytes, put_u32, put_u64, varint_len, Cursor};

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteBatch {
    entries: Vec<(Kind, Vec<u8>, Vec<u8>)>,
    /// Encoded payload size so far (without the 12-byte header).
    bytes: u64,
}

impl WriteBatch {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn put(&mut self, key: &[u8], value: &[u8]) {
        self.bytes += (1 + varint_len(key.len() as u64) + key.len() + varint_len(value.len() as u64) + value.len()) as u64;
        self.entries.push((Kind::Value, key.to_vec(), value.to_vec()));
    }

    pub fn delete(&mut self, key: &[u8]) {
        self.bytes += (1 + varint_len(key.len() as u64) + key.len()) as u64;
        self.entries.push((Kind::Deletion, key.to_vec(), Vec::new()));
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn entries(&self) -> impl Iterator<Item = (Kind, &[u8], &[u8])> {
        self.entries.iter().map(|(k, key, value)| (*k, key.as_slice(), value.as_slice()))
    }

    /// Bytes of the log record payload this batch makes.
    pub fn encoded_len(&self) -> u64 {
        12 + self.bytes
    }

    pub fn encode(&self, first_sequence: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len() as usize);
        put_u64(&mut out, first_sequence);
        put_u32(&mut out, self.entries.len() as u32);
        for (kind, key, value) in &self.entries {
            out.push(*kind as u8);
            put_bytes(&mut out, key);
            if *kind == Kind::Value {
                put_bytes(&mut out, value);
            }
        }
        out
    }

    /// The batch and its first sequence number from a log record payload; `None` if the
    /// payload is malformed.
    pub fn decode(payload: &[u8]) -> Option<(u64, WriteBatch)> {
        let mut cur = Cursor::new(payload);
        let first = cur.u64()?;
        let count = cur.u32()?;
        let mut batch = WriteBatch::new();
        for _ in 0..count {
            match cur.u8()? {
                0 => batch.delete(cur.bytes()?),
                1 => {
                    let key = cur.bytes()?;
                    batch.put(key, cur.bytes()?);
                }
                _ => return None,
            }
        }
        cur.is_empty().then_some((first, batch))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_rejects_damage() {
        let mut b = WriteBatch::new();
        b.put(b"k1", b"v1");
        b.delete(b"k2");
        b.put(b"", &[0; 300]);
        let payload = b.encode(42);
        assert_eq!(payload.len() as u64, b.encoded_len());
        assert_eq!(WriteBatch::decode(&payload), Some((42, b.clone())));
        assert_eq!(WriteBatch::decode(&payload[..payload.len() - 1]), None);
        let mut extra = payload.clone();
        extra.push(0);
        assert_eq!(WriteBatch::decode(&extra), None);
        let mut bad_kind = payload;
        bad_kind[12] = 7;
        assert_eq!(WriteBatch::decode(&bad_kind), None);
    }
}
