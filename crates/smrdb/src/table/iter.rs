//! Walks a table's entries in order from a start key, reading several adjacent blocks per
//! device read (read-ahead), so scans and compactions read bands sequentially.

use std::sync::Arc;

use super::block::{Block, EntryPos};
use super::reader::Table;
use crate::error::Result;
use crate::source::{EntryRef, Source};

/// Bytes read ahead per device read.
const READ_AHEAD: u64 = 256 * 1024;

pub struct TableIter {
    table: Arc<Table>,
    purpose: ReadPurpose,
    /// Blocks `chunk_first..chunk_end` are in `chunk`.
    chunk: Vec<u8>,
    chunk_first: usize,
    chunk_end: usize,
    /// Current block and entry within it; `block == table.blocks()` at the end.
    block: usize,
    entry: usize,
    /// The current block's bytes within `chunk`.
    block_range: (usize, usize),
    /// The current entry, located once (offsets from the block's start); `None` at the end.
    here: Option<EntryPos>,
}

/// Whose reads these are, for the counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadPurpose {
    User,
    Compaction,
}

impl TableIter {
    /// Positioned at the first entry at or after `start` (all versions of it).
    pub fn new(table: Arc<Table>, start: &[u8], purpose: ReadPurpose) -> Result<Self> {
        let block = table.find_block(start, u64::MAX);
        let mut it = TableIter {
            table,
            purpose,
            chunk: Vec::new(),
            chunk_first: 0,
            chunk_end: 0,
            block,
            entry: 0,
            block_range: (0, 0),
            here: None,
        };
        if it.block < it.table.blocks() {
            it.load(it.block)?;
            let view = it.view();
            it.entry = view.seek(start, u64::MAX);
            it.skip_exhausted()?;
        }
        Ok(it)
    }

    fn view(&self) -> Block<'_> {
        Block::view(&self.chunk[self.block_range.0..self.block_range.1]).expect("read_blocks_into checked every block")
    }

    /// Makes `block` current, reading a new chunk if it is not in the one held.
    fn load(&mut self, block: usize) -> Result<()> {
        if !(self.chunk_first..self.chunk_end).contains(&block) {
            let start = self.table.index_entry(block).offset;
            let mut end = block + 1;
            while end < self.table.blocks()
                && self.table.index_entry(end).offset + self.table.index_entry(end).len - start <= READ_AHEAD
            {
                end += 1;
            }
            let stats = &self.table.env().stats;
            let counter = match self.purpose {
                ReadPurpose::User => &stats.read_bytes,
                ReadPurpose::Compaction => &stats.compaction_bytes_read,
            };
            // `chunk` keeps its allocation: truncating and regrowing it within its capacity
            // does not clear it again.
            let mut chunk = std::mem::take(&mut self.chunk);
            let read = self.table.read_blocks_into(block, end, counter, &mut chunk);
            self.chunk = chunk;
            read?;
            self.chunk_first = block;
            self.chunk_end = end;
        }
        let chunk_start = self.table.index_entry(self.chunk_first).offset;
        let e = self.table.index_entry(block);
        self.block_range = ((e.offset - chunk_start) as usize, (e.offset - chunk_start + e.len) as usize);
        self.block = block;
        self.entry = 0;
        Ok(())
    }

    /// Moves past the end of finished blocks and locates the current entry.
    fn skip_exhausted(&mut self) -> Result<()> {
        while self.block < self.table.blocks() && self.entry >= self.view().len() {
            if self.block + 1 < self.table.blocks() {
                self.load(self.block + 1)?;
            } else {
                self.block = self.table.blocks();
            }
        }
        self.here = if self.block < self.table.blocks() { self.view().locate(self.entry) } else { None };
        Ok(())
    }
}

impl Source for TableIter {
    fn current(&self) -> Option<EntryRef<'_>> {
        let p = self.here?;
        let block = &self.chunk[self.block_range.0..self.block_range.1];
        Some(EntryRef { key: &block[p.key.0..p.key.1], tag: p.tag, value: &block[p.value.0..p.value.1] })
    }

    fn advance(&mut self) -> Result<()> {
        self.entry += 1;
        self.skip_exhausted()
    }
}

/// A table a scan may need, read only when the merge reaches it: until then it shows a
/// placeholder at the larger of the scan's start and the table's smallest key (a lower bound
/// of its entries, sorting before every real entry of that key).
pub struct LazyTableIter {
    table: Arc<Table>,
    start: Vec<u8>,
    bound: Vec<u8>,
    iter: Option<TableIter>,
}

impl LazyTableIter {
    pub fn new(table: Arc<Table>, start: &[u8]) -> Self {
        let bound = start.max(table.meta.smallest.as_slice()).to_vec();
        LazyTableIter { table, start: start.to_vec(), bound, iter: None }
    }
}

impl Source for LazyTableIter {
    fn current(&self) -> Option<EntryRef<'_>> {
        match &self.iter {
            Some(it) => it.current(),
            None => Some(EntryRef { key: &self.bound, tag: u64::MAX, value: &[] }),
        }
    }

    fn advance(&mut self) -> Result<()> {
        match &mut self.iter {
            Some(it) => it.advance(),
            None => {
                self.iter = Some(TableIter::new(self.table.clone(), &self.start, ReadPurpose::User)?);
                Ok(())
            }
        }
    }

    fn pending(&self) -> bool {
        self.iter.is_none()
    }
}
