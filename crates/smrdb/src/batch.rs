//! Write batches: puts and deletes applied together or not at all. A batch is one log record,
//! so after a crash either all of it is replayed or none (the record's checksum decides), and it
//! takes consecutive sequence numbers, so readers see all of it or none.
//!
//! Record payload: first sequence number (u64), entry count (u32), then per entry its kind
//! (u8), the key (varint length + bytes) and, for puts, the value (varint length + bytes).

use crate::key::Kind;
use crate::util::coding::{put_bytes, put_u32, put_u64, Cursor};

/// The entries are kept encoded, one after another, as the log record holds them (LevelDB's
/// `rep_`): a put is one append, not two allocations, and encoding the record is one copy.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WriteBatch {
    /// The encoded entries (the payload without its 12-byte header).
    rep: Vec<u8>,
    count: usize,
}

impl WriteBatch {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn put(&mut self, key: &[u8], value: &[u8]) {
        self.rep.push(Kind::Value as u8);
        put_bytes(&mut self.rep, key);
        put_bytes(&mut self.rep, value);
        self.count += 1;
    }

    pub fn delete(&mut self, key: &[u8]) {
        self.rep.push(Kind::Deletion as u8);
        put_bytes(&mut self.rep, key);
        self.count += 1;
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The entries in the order they were added: kind, key, value (empty for deletes).
    pub fn entries(&self) -> impl Iterator<Item = (Kind, &[u8], &[u8])> {
        let mut cur = Cursor::new(&self.rep);
        // `rep` is only ever written by `put` and `delete`, or checked whole by `decode`.
        std::iter::from_fn(move || {
            (!cur.is_empty()).then(|| next_entry(&mut cur).expect("a batch's entries are well formed"))
        })
    }

    /// Bytes of the log record payload this batch makes.
    pub fn encoded_len(&self) -> u64 {
        12 + self.rep.len() as u64
    }

    pub fn encode(&self, first_sequence: u64) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.encoded_len() as usize);
        put_u64(&mut out, first_sequence);
        put_u32(&mut out, self.count as u32);
        out.extend_from_slice(&self.rep);
        out
    }

    /// The batch and its first sequence number from a log record payload; `None` if the
    /// payload is malformed.
    pub fn decode(payload: &[u8]) -> Option<(u64, WriteBatch)> {
        let mut cur = Cursor::new(payload);
        let first = cur.u64()?;
        let count = cur.u32()? as usize;
        let rep = &payload[12..];
        let mut entries = Cursor::new(rep);
        for _ in 0..count {
            next_entry(&mut entries)?;
        }
        entries.is_empty().then(|| (first, WriteBatch { rep: rep.to_vec(), count }))
    }
}

/// The entry at `cur`, or `None` if the bytes there are no entry (or there are none).
fn next_entry<'a>(cur: &mut Cursor<'a>) -> Option<(Kind, &'a [u8], &'a [u8])> {
    match cur.u8()? {
        0 => Some((Kind::Deletion, cur.bytes()?, &[][..])),
        1 => {
            let key = cur.bytes()?;
            Some((Kind::Value, key, cur.bytes()?))
        }
        _ => None,
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
        let entries: Vec<_> = b.entries().map(|(kind, k, v)| (kind, k.to_vec(), v.to_vec())).collect();
        assert_eq!(
            entries,
            vec![
                (Kind::Value, b"k1".to_vec(), b"v1".to_vec()),
                (Kind::Deletion, b"k2".to_vec(), vec![]),
                (Kind::Value, vec![], vec![0; 300])
            ]
        );
        assert_eq!(b.len(), 3);
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
