//! Crash consistency of uCache's map (§III-B, Fig. 5 of the uCache paper): a header for every
//! promoted bucket — its logical bucket number, a sequence number, a CRC, and the physical cache
//! bucket the next promotion will use — and checkpoints of the whole map. Recovery reads the
//! last checkpoint and follows the header chain from the bucket it names, applying each header
//! whose CRC and sequence number are right, until one is not.
//!
//! The simulator keeps no data, so the media holds these records only (`Journal`); the timed
//! I/Os are the translation layer's. Choices where the paper is silent: a header is one 512-byte
//! sector in a slot of the checkpoint zone (one per cache bucket), written right after the bucket
//! (a seek the paper's in-bucket header avoids: a conservative choice); the checkpoint is written
//! after every garbage collection (which frees buckets no header records) and every
//! `checkpoint_every` promotions; a promotion that has to collect first announces "no next
//! bucket", so the chain ends there and the checkpoint after the collection restarts it.

use serde::{Deserialize, Serialize};

/// The header of one promoted bucket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub lbn: u32,
    pub seq: u64,
    /// The cache bucket of the next promotion, or `NONE`.
    pub next: u32,
    pub crc: u32,
}

pub const NONE: u32 = u32::MAX;
pub const HEADER_BYTES: u64 = 512;

fn crc(lbn: u32, seq: u64, next: u32) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&lbn.to_le_bytes());
    h.update(&seq.to_le_bytes());
    h.update(&next.to_le_bytes());
    h.finalize()
}

impl Header {
    pub fn new(lbn: u32, seq: u64, next: u32) -> Self {
        Header { lbn, seq, next, crc: crc(lbn, seq, next) }
    }

    pub fn intact(&self) -> bool {
        self.crc == crc(self.lbn, self.seq, self.next)
    }
}

/// A checkpoint: the map, and where the header chain continues.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checkpoint {
    pub map: Vec<(u32, u32)>,
    pub next_bucket: u32,
    pub next_seq: u64,
}

impl Checkpoint {
    /// Bytes a checkpoint of `entries` map entries takes on the media: 8 per entry plus a
    /// 16-byte trailer, in whole sectors.
    pub fn bytes_for(entries: usize) -> u64 {
        (entries as u64 * 8 + 16).div_ceil(HEADER_BYTES) * HEADER_BYTES
    }
}

/// What the media holds of the map's persistence.
#[derive(Clone, Debug)]
pub struct Journal {
    headers: Vec<Option<Header>>,
    checkpoint: Checkpoint,
}

impl Journal {
    /// `buckets` header slots; the initial checkpoint is the empty map starting at `first`.
    pub fn new(buckets: usize, first: u32) -> Self {
        Journal {
            headers: vec![None; buckets],
            checkpoint: Checkpoint { map: Vec::new(), next_bucket: first, next_seq: 0 },
        }
    }

    pub fn write_header(&mut self, bucket: u32, header: Header) {
        self.headers[bucket as usize] = Some(header);
    }

    /// A torn header write: the sector holds garbage.
    pub fn tear_header(&mut self, bucket: u32) {
        if let Some(h) = self.headers[bucket as usize].as_mut() {
            h.crc ^= 0xdead_beef;
        }
    }

    pub fn write_checkpoint(&mut self, checkpoint: Checkpoint) {
        self.checkpoint = checkpoint;
    }

    /// Rebuilds the map (sorted by logical bucket) from the checkpoint and the header chain.
    pub fn recover(&self) -> Vec<(u32, u32)> {
        let mut map: std::collections::BTreeMap<u32, u32> = self.checkpoint.map.iter().copied().collect();
        let (mut bucket, mut seq) = (self.checkpoint.next_bucket, self.checkpoint.next_seq);
        while let Some(Some(h)) = self.headers.get(bucket as usize) {
            if !h.intact() || h.seq != seq {
                break;
            }
            map.insert(h.lbn, bucket);
            seq += 1;
            bucket = h.next;
        }
        map.into_iter().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chain_from_checkpoint_stops_at_a_bad_header() {
        let mut j = Journal::new(8, 2);
        j.write_header(2, Header::new(10, 0, 4));
        j.write_header(4, Header::new(11, 1, 0));
        j.write_header(0, Header::new(12, 2, 1));
        assert_eq!(j.recover(), vec![(10, 2), (11, 4), (12, 0)]);
        j.tear_header(4);
        assert_eq!(j.recover(), vec![(10, 2)], "a torn header ends the chain");
        j.write_header(4, Header::new(11, 7, 0));
        assert_eq!(j.recover(), vec![(10, 2)], "a stale header (old sequence number) ends it too");
        j.write_checkpoint(Checkpoint { map: vec![(10, 2), (11, 4)], next_bucket: 0, next_seq: 2 });
        assert_eq!(j.recover(), vec![(10, 2), (11, 4), (12, 0)]);
    }
}
