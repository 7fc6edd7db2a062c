//! An open table: its index and Bloom filter in memory, its data blocks read from the band on
//! demand (a get's through the store's block cache, `cache`), every block checked against its
//! checksum. A table whose band has been dropped from
//! the store's metadata is marked obsolete; its band is given back when the last reader lets go
//! of it, so iterators and gets in flight never see a band reset under them.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use super::block::Block;
use super::format::{Footer, IndexEntry, FOOTER_LEN};
use super::meta::TableMeta;
use crate::env::{Env, Stats};
use crate::error::Result;
use crate::key::{self, Found, Kind};
use crate::util::bloom;
use crate::util::coding::Cursor;

thread_local! {
    /// The block a get reads, kept per thread so that a get neither allocates nor zeroes one.
    static BLOCK: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

pub struct Table {
    env: Arc<Env>,
    pub meta: TableMeta,
    /// `head` of the smallest and the largest key: most gets decide `covers` on these.
    heads: (u64, u64),
    index: Vec<IndexEntry>,
    filter: Vec<u8>,
    obsolete: AtomicBool,
}

impl Table {
    /// Opens the table `meta` describes, reading and checking its footer, index and filter.
    pub fn open(env: Arc<Env>, meta: TableMeta) -> Result<Table> {
        let location = |what: &str| format!("band {} (table {}), {what}", meta.band, meta.id);
        if meta.len < FOOTER_LEN || meta.len > env.band_size {
            return Err(env.corruption("table", location("metadata"), format!("length {} is impossible", meta.len)));
        }
        let mut footer = vec![0u8; FOOTER_LEN as usize];
        env.read(meta.band, meta.len - FOOTER_LEN, &mut footer)?;
        let footer = Footer::decode(&footer)
            .map_err(|p| env.corruption("table", location(&format!("footer at byte {}", meta.len - FOOTER_LEN)), p))?;
        let tail_end = footer.filter_offset.checked_add(footer.filter_len);
        if footer.index_offset.checked_add(footer.index_len) != Some(footer.filter_offset)
            || tail_end != Some(meta.len - FOOTER_LEN)
            || footer.index_len < 8
            || footer.filter_len < 4
        {
            return Err(env.corruption("table", location("footer"), "index and filter bounds do not fit the table"));
        }
        let mut tail = vec![0u8; (footer.index_len + footer.filter_len) as usize];
        env.read(meta.band, footer.index_offset, &mut tail)?;
        let (index_bytes, filter_bytes) = tail.split_at(footer.index_len as usize);
        let index = parse_index(
            checked(index_bytes).ok_or_else(|| {
                env.corruption("table index", location(&format!("byte {}", footer.index_offset)), "checksum mismatch")
            })?,
            footer.index_offset,
        )
        .ok_or_else(|| {
            env.corruption("table index", location(&format!("byte {}", footer.index_offset)), "malformed entries")
        })?;
        let filter = checked(filter_bytes)
            .ok_or_else(|| {
                env.corruption("Bloom filter", location(&format!("byte {}", footer.filter_offset)), "checksum mismatch")
            })?
            .to_vec();
        let heads = (head(&meta.smallest), head(&meta.largest));
        Ok(Table { env, meta, heads, index, filter, obsolete: AtomicBool::new(false) })
    }

    pub fn env(&self) -> &Arc<Env> {
        &self.env
    }

    /// Marks the table as dropped from the store's metadata: its band is given back once the
    /// last reader lets go. Call only after the metadata record without it is durable.
    pub fn mark_obsolete(&self) {
        self.obsolete.store(true, Ordering::Release);
    }

    pub fn blocks(&self) -> usize {
        self.index.len()
    }

    pub fn index_entry(&self, block: usize) -> &IndexEntry {
        &self.index[block]
    }

    /// Whether `key` lies in the table's key range.
    pub fn covers(&self, key: &[u8]) -> bool {
        let (lo, hi, at) = (self.heads.0, self.heads.1, head(key));
        if at < lo || at > hi {
            return false;
        }
        (at > lo || self.meta.smallest.as_slice() <= key) && (at < hi || key <= self.meta.largest.as_slice())
    }

    /// The first block whose last entry is at or after `(key, tag)`.
    pub fn find_block(&self, key: &[u8], tag: u64) -> usize {
        self.index.partition_point(|e| key::compare(&e.last_key, e.last_tag, key, tag).is_lt())
    }

    /// Blocks `first..end` (adjacent in the band) in one read into `buf` (resized to fit;
    /// reused between reads without clearing), each checked; `counter` counts the bytes read.
    pub fn read_blocks_into(&self, first: usize, end: usize, counter: &AtomicU64, buf: &mut Vec<u8>) -> Result<()> {
        let start = self.index[first].offset;
        let last = &self.index[end - 1];
        let len = (last.offset + last.len - start) as usize;
        if buf.len() < len {
            buf.resize(len, 0);
        }
        buf.truncate(len);
        self.env.read(self.meta.band, start, buf)?;
        Stats::add(counter, len as u64);
        for e in &self.index[first..end] {
            let at = (e.offset - start) as usize;
            Block::parse(&buf[at..at + e.len as usize]).map_err(|p| self.damaged_block(e, p))?;
        }
        Ok(())
    }

    pub fn damaged_block(&self, e: &IndexEntry, problem: String) -> crate::Error {
        self.env.corruption(
            "data block",
            format!("band {} (table {}), bytes {}..{}", self.meta.band, self.meta.id, e.offset, e.offset + e.len),
            problem,
        )
    }

    /// The newest version of `key` (whose `bloom::hash_key` is `hash`) at or below `snapshot`
    /// in this table.
    pub fn get(&self, key: &[u8], hash: u64, snapshot: u64) -> Result<Option<(Found, u64)>> {
        if !self.covers(key) {
            return Ok(None);
        }
        Stats::add(&self.env.stats.get_tables_searched, 1);
        if !bloom::may_contain(&self.filter, hash) {
            return Ok(None);
        }
        Stats::add(&self.env.stats.get_blocks_read, 1);
        let probe = (snapshot << 8) | 0xFF;
        let block = self.find_block(key, probe);
        if block == self.index.len() {
            return Ok(None);
        }
        let name = (self.meta.id, self.index[block].offset);
        if let Some(cached) = self.env.blocks.get(name) {
            Stats::add(&self.env.stats.get_block_cache_hits, 1);
            return Ok(find_in(&cached, key, probe));
        }
        BLOCK.with_borrow_mut(|bytes| {
            self.read_blocks_into(block, block + 1, &self.env.stats.read_bytes, bytes)?;
            self.env.blocks.insert(name, Arc::from(bytes.as_slice()));
            Ok(find_in(bytes, key, probe))
        })
    }
}

impl Drop for Table {
    fn drop(&mut self) {
        if self.obsolete.load(Ordering::Acquire) {
            self.env.retire(self.meta.band);
        }
    }
}

/// The newest version of `key` at or below `probe` in a checked data block.
fn find_in(block: &[u8], key: &[u8], probe: u64) -> Option<(Found, u64)> {
    let view = Block::view(block).expect("read_blocks_into checked the block");
    let at = view.seek(key, probe);
    view.entry(at).filter(|e| e.key == key).map(|e| {
        let found = match key::kind_of(e.tag) {
            Some(Kind::Value) => Found::Value(e.value.to_vec()),
            _ => Found::Deleted,
        };
        (found, key::sequence_of(e.tag))
    })
}

/// A key's first 8 bytes (zeros past its end) as a big-endian number: where two keys' heads
/// differ, their order is the keys' order (a get compares its key with every covering table's
/// bounds, and whole-key comparisons were the largest cost of a get).
fn head(key: &[u8]) -> u64 {
    let mut bytes = [0u8; 8];
    let n = key.len().min(8);
    bytes[..n].copy_from_slice(&key[..n]);
    u64::from_be_bytes(bytes)
}

/// The body of a checksummed section (body, then CRC-32), if the checksum holds.
fn checked(bytes: &[u8]) -> Option<&[u8]> {
    let (body, crc) = bytes.split_at(bytes.len().checked_sub(4)?);
    (crc32fast::hash(body) == u32::from_le_bytes(crc.try_into().ok()?)).then_some(body)
}

/// Index entries, each block lying within the data (before `data_end`) and after the previous.
fn parse_index(body: &[u8], data_end: u64) -> Option<Vec<IndexEntry>> {
    let mut cur = Cursor::new(body);
    let count = cur.u32()?;
    let mut index = Vec::with_capacity(count as usize);
    let mut next = 0;
    for _ in 0..count {
        let last_key = cur.bytes()?.to_vec();
        let last_tag = cur.u64()?;
        let offset = cur.varint()?;
        let len = cur.varint()?;
        if offset != next || len < 8 || offset + len > data_end {
            return None;
        }
        next = offset + len;
        index.push(IndexEntry { last_key, last_tag, offset, len });
    }
    cur.is_empty().then_some(index)
}

#[cfg(test)]
mod tests {
    use super::head;
    use proptest::prelude::*;

    proptest! {
        /// Where heads differ they order keys as the keys order, so `covers` may decide on them.
        #[test]
        fn heads_order_keys(a in proptest::collection::vec(0u8..3, 0..12), b in proptest::collection::vec(0u8..3, 0..12)) {
            if head(&a) != head(&b) {
                prop_assert_eq!(head(&a) < head(&b), a < b);
            }
        }
    }
}
