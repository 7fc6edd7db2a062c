//! Iteration over the store: sources of entries in internal-key order (a memtable, a table),
//! the merge of several sources, and the user-facing iterator that shows, for each user key,
//! the newest version at its snapshot and hides tombstones.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::error::Result;
use crate::key::{self, Kind};
use crate::memtable::{Entry, MemTable};
use crate::table::block::EntryRef;

/// Entries in internal-key order (user key ascending, newest version first).
pub trait Source {
    /// The current entry; `None` at the end.
    fn current(&self) -> Option<EntryRef<'_>>;
    fn advance(&mut self) -> Result<()>;
}

/// A memtable's entries from a start key, copied out a run at a time.
pub struct MemSource {
    table: Arc<MemTable>,
    run: VecDeque<Entry>,
    /// The last entry copied out, to resume after it.
    resume: Option<(Vec<u8>, u64)>,
    start: Vec<u8>,
    done: bool,
}

const MEM_RUN: usize = 256;

impl MemSource {
    pub fn new(table: Arc<MemTable>, start: &[u8]) -> Self {
        let mut s = MemSource { table, run: VecDeque::new(), resume: None, start: start.to_vec(), done: false };
        s.refill();
        s
    }

    fn refill(&mut self) {
        let after = self.resume.as_ref().map(|(k, t)| (k.as_slice(), *t));
        let run = self.table.entries(after, &self.start, MEM_RUN);
        self.done = run.len() < MEM_RUN;
        if let Some((k, t, _)) = run.last() {
            self.resume = Some((k.clone(), *t));
        }
        self.run = run.into();
    }
}

impl Source for MemSource {
    fn current(&self) -> Option<EntryRef<'_>> {
        self.run.front().map(|(k, t, v)| EntryRef { key: k, tag: *t, value: v })
    }

    fn advance(&mut self) -> Result<()> {
        self.run.pop_front();
        if self.run.is_empty() && !self.done {
            self.refill();
        }
        Ok(())
    }
}

/// The merge of several sources: always the smallest current entry of any of them.
pub struct Merge {
    sources: Vec<Box<dyn Source + Send>>,
    /// Index of the source holding the smallest current entry.
    smallest: Option<usize>,
}

impl Merge {
    pub fn new(sources: Vec<Box<dyn Source + Send>>) -> Self {
        let mut m = Merge { sources, smallest: None };
        m.find_smallest();
        m
    }

    fn find_smallest(&mut self) {
        let mut best: Option<(usize, EntryRef<'_>)> = None;
        for (i, s) in self.sources.iter().enumerate() {
            if let Some(e) = s.current() {
                if best.is_none_or(|(_, b)| key::compare(e.key, e.tag, b.key, b.tag).is_lt()) {
                    best = Some((i, e));
                }
            }
        }
        self.smallest = best.map(|(i, _)| i);
    }
}

impl Source for Merge {
    fn current(&self) -> Option<EntryRef<'_>> {
        self.smallest.and_then(|i| self.sources[i].current())
    }

    fn advance(&mut self) -> Result<()> {
        if let Some(i) = self.smallest {
            self.sources[i].advance()?;
            self.find_smallest();
        }
        Ok(())
    }
}

/// User keys and values in `[start, end)` as of `snapshot`: the newest version of each key at
/// or below the snapshot, tombstoned keys left out. Its sources hold the memtables and tables
/// they read, so a compaction meanwhile cannot reset a band under it.
pub struct DbIter {
    merge: Merge,
    snapshot: u64,
    end: Option<Vec<u8>>,
    /// The user key whose visible version was already decided.
    last_key: Option<Vec<u8>>,
}

impl DbIter {
    pub fn new(merge: Merge, snapshot: u64, end: Option<Vec<u8>>) -> Self {
        DbIter { merge, snapshot, end, last_key: None }
    }

    /// Up to `max_items` pairs, or fewer once `max_bytes` of keys and values are gathered;
    /// an empty result means the end.
    pub fn next_batch(&mut self, max_items: usize, max_bytes: usize) -> Result<Vec<(Vec<u8>, Vec<u8>)>> {
        let mut out = Vec::with_capacity(max_items.min(1024));
        let mut bytes = 0;
        while out.len() < max_items && bytes < max_bytes {
            match self.next_pair()? {
                Some(pair) => {
                    bytes += pair.0.len() + pair.1.len();
                    out.push(pair);
                }
                None => break,
            }
        }
        Ok(out)
    }

    pub fn next_pair(&mut self) -> Result<Option<(Vec<u8>, Vec<u8>)>> {
        loop {
            let Some(e) = self.merge.current() else { return Ok(None) };
            if self.end.as_deref().is_some_and(|end| e.key >= end) {
                return Ok(None);
            }
            let shadowed = self.last_key.as_deref() == Some(e.key);
            let visible = key::sequence_of(e.tag) <= self.snapshot;
            let mut pair = None;
            if !shadowed && visible {
                match &mut self.last_key {
                    Some(k) => {
                        k.clear();
                        k.extend_from_slice(e.key);
                    }
                    None => self.last_key = Some(e.key.to_vec()),
                }
                if key::kind_of(e.tag) == Some(Kind::Value) {
                    pair = Some((e.key.to_vec(), e.value.to_vec()));
                }
            }
            self.merge.advance()?;
            if pair.is_some() {
                return Ok(pair);
            }
        }
    }
}
