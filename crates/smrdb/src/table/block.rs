//! Data blocks: a run of entries in internal-key order, then each entry's offset, the entry
//! count and a CRC-32 of everything before it. The offsets let a reader binary-search a block.
//!
//! Entry: key length (varint), value length (varint), key, tag (u64), value.

use crate::key;
use crate::source::EntryRef;
use crate::util::coding::{put_u32, put_u64, put_varint, Cursor};

pub struct BlockBuilder {
    bytes: Vec<u8>,
    offsets: Vec<u32>,
}

impl BlockBuilder {
    pub fn new(capacity: usize) -> Self {
        BlockBuilder { bytes: Vec::with_capacity(capacity + 1024), offsets: Vec::new() }
    }

    pub fn add(&mut self, key: &[u8], tag: u64, value: &[u8]) {
        self.offsets.push(self.bytes.len() as u32);
        put_varint(&mut self.bytes, key.len() as u64);
        put_varint(&mut self.bytes, value.len() as u64);
        self.bytes.extend_from_slice(key);
        put_u64(&mut self.bytes, tag);
        self.bytes.extend_from_slice(value);
    }

    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Bytes the block will take once finished.
    pub fn finished_len(&self) -> usize {
        self.bytes.len() + 4 * self.offsets.len() + 8
    }

    /// The finished block; the builder is empty again.
    pub fn finish(&mut self) -> Vec<u8> {
        let mut out = std::mem::take(&mut self.bytes);
        for &o in &self.offsets {
            put_u32(&mut out, o);
        }
        put_u32(&mut out, self.offsets.len() as u32);
        let crc = crc32fast::hash(&out);
        put_u32(&mut out, crc);
        self.offsets.clear();
        out
    }
}

/// A finished block checked for its checksum and shape.
pub struct Block<'a> {
    entries: &'a [u8],
    offsets: &'a [u8],
    count: usize,
}

/// Where an entry's key and value lie in its block, and its tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryPos {
    pub key: (usize, usize),
    pub tag: u64,
    pub value: (usize, usize),
}

impl<'a> Block<'a> {
    /// The block in `bytes`, or what is wrong with it.
    pub fn parse(bytes: &'a [u8]) -> Result<Block<'a>, String> {
        if bytes.len() < 8 {
            return Err(format!("block of {} bytes is too short", bytes.len()));
        }
        let (body, crc) = bytes.split_at(bytes.len() - 4);
        if crc32fast::hash(body) != u32::from_le_bytes(crc.try_into().expect("4 bytes")) {
            return Err("block checksum mismatch".into());
        }
        let block = Self::view(bytes).ok_or("block's entry count does not fit its length")?;
        for i in 0..block.count {
            block.entry(i).ok_or_else(|| format!("entry {i} of the block is malformed"))?;
        }
        Ok(block)
    }

    /// A block that `parse` accepted before, without checking it again.
    pub fn view(bytes: &'a [u8]) -> Option<Block<'a>> {
        let body = bytes.get(..bytes.len().checked_sub(4)?)?;
        let (rest, count) = body.split_at(body.len().checked_sub(4)?);
        let count = u32::from_le_bytes(count.try_into().ok()?) as usize;
        let offsets_len = count.checked_mul(4).filter(|&n| n <= rest.len())?;
        let (entries, offsets) = rest.split_at(rest.len() - offsets_len);
        Some(Block { entries, offsets, count })
    }

    pub fn len(&self) -> usize {
        self.count
    }

    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Entry `i`; `None` only for a malformed block (which `parse` refuses).
    pub fn entry(&self, i: usize) -> Option<EntryRef<'a>> {
        let p = self.locate(i)?;
        Some(EntryRef { key: &self.entries[p.key.0..p.key.1], tag: p.tag, value: &self.entries[p.value.0..p.value.1] })
    }

    /// Where entry `i`'s parts lie in the block (byte ranges from the block's start).
    pub fn locate(&self, i: usize) -> Option<EntryPos> {
        let at = u32::from_le_bytes(self.offsets.get(4 * i..4 * i + 4)?.try_into().ok()?) as usize;
        let rest = self.entries.get(at..)?;
        let mut cur = Cursor::new(rest);
        let key_len = usize::try_from(cur.varint()?).ok()?;
        let value_len = usize::try_from(cur.varint()?).ok()?;
        let key_start = at + (rest.len() - cur.remaining());
        cur.take(key_len)?;
        let tag = cur.u64()?;
        let value_start = key_start + key_len + 8;
        cur.take(value_len)?;
        Some(EntryPos { key: (key_start, key_start + key_len), tag, value: (value_start, value_start + value_len) })
    }

    /// Index of the first entry at or after `(key, tag)` in internal-key order (`len()` if none).
    pub fn seek(&self, key: &[u8], tag: u64) -> usize {
        let (mut lo, mut hi) = (0, self.count);
        while lo < hi {
            let mid = (lo + hi) / 2;
            // An unreadable entry (only in a block `parse` refused) sorts last.
            let before = self.entry(mid).is_some_and(|e| key::compare(e.key, e.tag, key, tag).is_lt());
            if before {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{tag, Kind};

    #[test]
    fn entries_read_back_and_seek_finds_the_visible_version() {
        let mut b = BlockBuilder::new(4096);
        b.add(b"a", tag(5, Kind::Value), b"va");
        b.add(b"b", tag(9, Kind::Value), b"new");
        b.add(b"b", tag(3, Kind::Value), b"old");
        b.add(b"c", tag(1, Kind::Deletion), b"");
        let bytes = b.finish();
        assert!(b.is_empty());
        let block = Block::parse(&bytes).unwrap();
        assert_eq!(block.len(), 4);
        assert_eq!(block.entry(2).unwrap().value, b"old");
        assert_eq!(block.seek(b"b", tag(5, Kind::Value) | 0xFF), 2, "at snapshot 5 the old version is visible");
        assert_eq!(block.seek(b"b", u64::MAX), 1);
        assert_eq!(block.seek(b"bb", u64::MAX), 3);
        assert_eq!(block.seek(b"d", u64::MAX), 4);
        for i in 0..bytes.len() {
            let mut damaged = bytes.clone();
            damaged[i] ^= 0x40;
            assert!(Block::parse(&damaged).is_err(), "a flipped bit at byte {i} is caught");
        }
    }
}
