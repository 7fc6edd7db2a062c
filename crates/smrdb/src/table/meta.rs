//! What the metadata record says of a table (`TableMeta`): its band, size, key range, newest
//! sequence number and histogram, and how that is encoded in the record. Not here: the table's
//! own format (`format`) or which tables make up the store (`version`).

use crate::histogram::Histogram;
use crate::util::coding::{put_bytes, put_varint, Cursor};

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableMeta {
    /// Unique, increasing with creation time (so it orders tables by age).
    pub id: u64,
    pub band: u64,
    /// Bytes of the band the table takes, footer included.
    pub len: u64,
    pub entries: u64,
    pub data_bytes: u64,
    pub smallest: Vec<u8>,
    pub largest: Vec<u8>,
    pub max_sequence: u64,
    pub histogram: Histogram,
}

impl TableMeta {
    pub fn overlaps(&self, lo: &[u8], hi: &[u8]) -> bool {
        self.smallest.as_slice() <= hi && lo <= self.largest.as_slice()
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        for v in [self.id, self.band, self.len, self.entries, self.data_bytes, self.max_sequence] {
            put_varint(out, v);
        }
        put_bytes(out, &self.smallest);
        put_bytes(out, &self.largest);
        self.histogram.encode(out);
    }

    pub fn decode(cur: &mut Cursor<'_>) -> Option<TableMeta> {
        let mut v = [0u64; 6];
        for x in &mut v {
            *x = cur.varint()?;
        }
        let [id, band, len, entries, data_bytes, max_sequence] = v;
        let smallest = cur.bytes()?.to_vec();
        let largest = cur.bytes()?.to_vec();
        let histogram = Histogram::decode(cur)?;
        Some(TableMeta { id, band, len, entries, data_bytes, smallest, largest, max_sequence, histogram })
    }
}
