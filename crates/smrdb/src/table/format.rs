//! The fixed parts of the table format: the footer, index entries, and the size estimates the
//! memtable and the builder use to fill a band without overflowing it.
//!
//! ```text
//! band offset 0:  data block 0 | data block 1 | ... | index | filter | footer (56 bytes)
//! footer:         magic "SMRDBTB1" | index offset u64 | index length u64 | filter offset u64
//!                 | filter length u64 | entries u64 | CRC-32 of the above | 4 zero bytes
//! index:          entry count u32, then per data block: last key (varint length + bytes),
//!                 last tag u64, block offset (varint), block length (varint); CRC-32
//! filter:         Bloom filter bytes (see util::bloom); CRC-32
//! ```

use crate::util::coding::{put_u32, put_u64, varint_len, Cursor};

pub const MAGIC: &[u8; 8] = b"SMRDBTB1";
pub const FOOTER_LEN: u64 = 56;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Footer {
    pub index_offset: u64,
    pub index_len: u64,
    pub filter_offset: u64,
    pub filter_len: u64,
    pub entries: u64,
}

impl Footer {
    pub fn encode(&self) -> Vec<u8> {
        // 8 + 5 x 8 bytes of fields, then the CRC and 4 bytes of padding: FOOTER_LEN.
        let mut out = Vec::with_capacity(FOOTER_LEN as usize);
        out.extend_from_slice(MAGIC);
        for v in [self.index_offset, self.index_len, self.filter_offset, self.filter_len, self.entries] {
            put_u64(&mut out, v);
        }
        let crc = crc32fast::hash(&out);
        put_u32(&mut out, crc);
        put_u32(&mut out, 0);
        out
    }

    /// The footer, or a description of what is wrong with it.
    pub fn decode(bytes: &[u8]) -> Result<Footer, String> {
        if bytes.len() != FOOTER_LEN as usize || &bytes[..8] != MAGIC {
            return Err("no table footer (wrong magic number)".into());
        }
        let mut cur = Cursor::new(&bytes[8..]);
        let mut field = || cur.u64().expect("the footer's length was checked");
        let footer = Footer {
            index_offset: field(),
            index_len: field(),
            filter_offset: field(),
            filter_len: field(),
            entries: field(),
        };
        let crc = u32::from_le_bytes(bytes[48..52].try_into().expect("4 bytes"));
        if crc32fast::hash(&bytes[..48]) != crc {
            return Err("footer checksum mismatch".into());
        }
        Ok(footer)
    }
}

/// One data block as the index knows it: its last internal key and where it lies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IndexEntry {
    pub last_key: Vec<u8>,
    pub last_tag: u64,
    pub offset: u64,
    pub len: u64,
}

impl IndexEntry {
    pub fn encoded_len(&self) -> u64 {
        (varint_len(self.last_key.len() as u64)
            + self.last_key.len()
            + 8
            + varint_len(self.offset)
            + varint_len(self.len)) as u64
    }
}

/// Bytes an entry of this size takes in a data block, with its offset slot.
pub fn block_entry_bytes(key_len: usize, value_len: usize) -> u64 {
    (varint_len(key_len as u64) + varint_len(value_len as u64) + key_len + 8 + value_len + 4) as u64
}

/// An estimate of what one entry adds to a table: its block bytes, its share of a block's
/// trailer and index entry (blocks are cut once they reach `block_size`, so a block holds
/// `ceil(block_size / entry)` entries), and its Bloom filter bits.
pub fn estimated_entry_bytes(key_len: usize, value_len: usize, block_size: usize) -> u64 {
    let entry = block_entry_bytes(key_len, value_len);
    let per_block = 8 + key_len as u64 + 8 + 20;
    let per_block_entries = (block_size as u64).div_ceil(entry).max(1);
    entry + per_block.div_ceil(per_block_entries) + 2
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_footer_has_its_fixed_length_and_catches_damage() {
        let f = Footer {
            index_offset: 1 << 20,
            index_len: 300,
            filter_offset: (1 << 20) + 300,
            filter_len: 90,
            entries: 1234,
        };
        let bytes = f.encode();
        assert_eq!(bytes.len() as u64, FOOTER_LEN);
        assert_eq!(Footer::decode(&bytes), Ok(f));
        for i in 0..48 {
            let mut damaged = bytes.clone();
            damaged[i] ^= 1;
            assert!(Footer::decode(&damaged).is_err(), "byte {i}");
        }
    }
}
