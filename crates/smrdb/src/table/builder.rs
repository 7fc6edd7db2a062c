//! Writes one table into an empty band, front to back: entries arrive in internal-key order and
//! are packed into data blocks, which go to the device in large sequential appends; `finish`
//! appends the index, the Bloom filter and the footer after the data, in the same band. The
//! builder tells its caller when the next entry would no longer fit in the band, so a memtable
//! flush or a compaction can continue in a new band.

use std::sync::atomic::AtomicU64;

use super::block::BlockBuilder;
use super::format::{block_entry_bytes, Footer, IndexEntry, FOOTER_LEN};
use super::meta::TableMeta;
use crate::env::{Env, Stats};
use crate::error::Result;
use crate::histogram::Histogram;
use crate::key;
use crate::util::bloom;
use crate::util::coding::{put_bytes, put_u32, put_u64, put_varint};

/// Appends to the device in pieces of this size (sequential writes of a useful length).
const WRITE_CHUNK: usize = 1 << 20;

/// How tables are cut into blocks and summarised.
#[derive(Clone, Copy, Debug)]
pub struct TableShape {
    pub block_size: usize,
    pub bloom_bits_per_key: u32,
    pub histogram_bytes: usize,
}

pub struct TableBuilder<'e> {
    env: &'e Env,
    /// Where written bytes are counted (flush or compaction).
    counter: &'e AtomicU64,
    shape: TableShape,
    id: u64,
    band: u64,
    block: BlockBuilder,
    /// Finished bytes not yet appended.
    pending: Vec<u8>,
    appended: u64,
    index: Vec<IndexEntry>,
    index_bytes: u64,
    hashes: Vec<u64>,
    /// Each finished block's last user key and length, for the histogram.
    block_sizes: Vec<(Vec<u8>, u64)>,
    smallest: Option<Vec<u8>>,
    last: Option<(Vec<u8>, u64)>,
    entries: u64,
    max_sequence: u64,
}

impl<'e> TableBuilder<'e> {
    /// A builder for table `id` in `band`, which must be empty.
    pub fn new(env: &'e Env, counter: &'e AtomicU64, shape: TableShape, id: u64, band: u64) -> Self {
        TableBuilder {
            env,
            counter,
            shape,
            id,
            band,
            block: BlockBuilder::new(shape.block_size),
            pending: Vec::with_capacity(WRITE_CHUNK + shape.block_size * 2),
            appended: 0,
            index: Vec::new(),
            index_bytes: 4 + 4,
            hashes: Vec::new(),
            block_sizes: Vec::new(),
            smallest: None,
            last: None,
            entries: 0,
            max_sequence: 0,
        }
    }

    pub fn band(&self) -> u64 {
        self.band
    }

    pub fn is_empty(&self) -> bool {
        self.entries == 0
    }

    /// Whether an entry of these sizes still fits in the band together with everything the
    /// table must end with (the open block's index entry, the filter, the footer).
    pub fn fits(&self, key_len: usize, value_len: usize) -> bool {
        let data = self.appended
            + self.pending.len() as u64
            + self.block.finished_len() as u64
            + block_entry_bytes(key_len, value_len);
        // Two more index entries at most: the open block's and one the new entry may open.
        let index = self.index_bytes + 2 * (key_len as u64 + 30);
        let filter = ((self.hashes.len() as u64 + 1) * self.shape.bloom_bits_per_key as u64).div_ceil(8).max(8) + 1 + 4;
        data + index + filter + FOOTER_LEN <= self.env.band_size
    }

    /// Adds an entry; entries come in internal-key order and the caller checked `fits`.
    pub fn add(&mut self, key: &[u8], tag: u64, value: &[u8]) -> Result<()> {
        debug_assert!(
            self.last.as_ref().is_none_or(|(k, t)| key::compare(k, *t, key, tag).is_lt()),
            "entries out of order"
        );
        if self.smallest.is_none() {
            self.smallest = Some(key.to_vec());
        }
        if self.last.as_ref().is_none_or(|(k, _)| k.as_slice() != key) {
            self.hashes.push(bloom::hash_key(key));
        }
        self.block.add(key, tag, value);
        self.entries += 1;
        self.max_sequence = self.max_sequence.max(key::sequence_of(tag));
        match &mut self.last {
            Some((k, t)) => {
                k.clear();
                k.extend_from_slice(key);
                *t = tag;
            }
            None => self.last = Some((key.to_vec(), tag)),
        }
        if self.block.finished_len() >= self.shape.block_size {
            self.finish_block()?;
        }
        Ok(())
    }

    fn finish_block(&mut self) -> Result<()> {
        if self.block.is_empty() {
            return Ok(());
        }
        let (last_key, last_tag) = self.last.clone().expect("a non-empty block has a last entry");
        let bytes = self.block.finish();
        let entry = IndexEntry {
            last_key: last_key.clone(),
            last_tag,
            offset: self.appended + self.pending.len() as u64,
            len: bytes.len() as u64,
        };
        self.index_bytes += entry.encoded_len();
        self.block_sizes.push((last_key, entry.len));
        self.index.push(entry);
        self.pending.extend_from_slice(&bytes);
        if self.pending.len() >= WRITE_CHUNK {
            self.write_pending()?;
        }
        Ok(())
    }

    fn write_pending(&mut self) -> Result<()> {
        if !self.pending.is_empty() {
            let at = self.env.append(self.band, &self.pending)?;
            debug_assert_eq!(at, self.appended, "a table band has one writer");
            self.appended += self.pending.len() as u64;
            Stats::add(self.counter, self.pending.len() as u64);
            self.pending.clear();
        }
        Ok(())
    }

    /// Writes the index, filter and footer; returns the table's metadata. The table is not
    /// durable until the device is synced.
    pub fn finish(mut self) -> Result<TableMeta> {
        self.finish_block()?;
        let data_bytes = self.appended + self.pending.len() as u64;
        let mut index = Vec::with_capacity(self.index_bytes as usize);
        put_u32(&mut index, self.index.len() as u32);
        for e in &self.index {
            put_bytes(&mut index, &e.last_key);
            put_u64(&mut index, e.last_tag);
            put_varint(&mut index, e.offset);
            put_varint(&mut index, e.len);
        }
        let crc = crc32fast::hash(&index);
        put_u32(&mut index, crc);
        let mut filter = bloom::build(&self.hashes, self.shape.bloom_bits_per_key);
        let crc = crc32fast::hash(&filter);
        put_u32(&mut filter, crc);
        let footer = Footer {
            index_offset: data_bytes,
            index_len: index.len() as u64,
            filter_offset: data_bytes + index.len() as u64,
            filter_len: filter.len() as u64,
            entries: self.entries,
        };
        self.pending.extend_from_slice(&index);
        self.pending.extend_from_slice(&filter);
        self.pending.extend_from_slice(&footer.encode());
        self.write_pending()?;
        Ok(TableMeta {
            id: self.id,
            band: self.band,
            len: self.appended,
            entries: self.entries,
            data_bytes,
            smallest: self.smallest.unwrap_or_default(),
            largest: self.last.map(|(k, _)| k).unwrap_or_default(),
            max_sequence: self.max_sequence,
            histogram: Histogram::from_blocks(&self.block_sizes, self.shape.histogram_bytes),
        })
    }
}
