//! Iteration over the store: sources of entries in internal-key order (a memtable, a table),
//! the merge of several sources, and the user-facing iterator that shows, for each user key,
//! the newest version at its snapshot and hides tombstones.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::error::Result;
use crate::key::{self, Kind};
use crate::memtable::{Entry, MemTable};
use crate::source::{EntryRef, Source};

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

/// The merge of several sources: always the smallest current entry of any of them. The
/// sources that are not exhausted sit in a binary min-heap by their current entry.
pub struct Merge {
    sources: Vec<Box<dyn Source + Send>>,
    heap: Vec<usize>,
}

impl Merge {
    pub fn new(sources: Vec<Box<dyn Source + Send>>) -> Self {
        let heap = (0..sources.len()).filter(|&i| sources[i].current().is_some()).collect();
        let mut m = Merge { sources, heap };
        for at in (0..m.heap.len() / 2).rev() {
            m.sift_down(at);
        }
        m
    }

    /// A merge of sources some of which may be pending (read only once the merge reaches
    /// them, so a short scan reads only the tables its keys are in).
    pub fn lazy(sources: Vec<Box<dyn Source + Send>>) -> Result<Self> {
        let mut m = Self::new(sources);
        m.settle()?;
        Ok(m)
    }

    /// Reads pending sources while one is the smallest, so `current` is always a real entry.
    fn settle(&mut self) -> Result<()> {
        while let Some(&top) = self.heap.first() {
            if !self.sources[top].pending() {
                return Ok(());
            }
            self.sources[top].advance()?;
            if self.sources[top].current().is_none() {
                self.heap.swap_remove(0);
            }
            self.sift_down(0);
        }
        Ok(())
    }

    /// Whether source `a`'s current entry sorts before source `b`'s (both are in the heap, so
    /// both have one).
    fn before(&self, a: usize, b: usize) -> bool {
        match (self.sources[a].current(), self.sources[b].current()) {
            (Some(x), Some(y)) => key::compare(x.key, x.tag, y.key, y.tag).is_lt(),
            (x, _) => x.is_some(),
        }
    }

    fn sift_down(&mut self, mut at: usize) {
        loop {
            let (left, right) = (2 * at + 1, 2 * at + 2);
            let mut least = at;
            if left < self.heap.len() && self.before(self.heap[left], self.heap[least]) {
                least = left;
            }
            if right < self.heap.len() && self.before(self.heap[right], self.heap[least]) {
                least = right;
            }
            if least == at {
                return;
            }
            self.heap.swap(at, least);
            at = least;
        }
    }
}

impl Source for Merge {
    fn current(&self) -> Option<EntryRef<'_>> {
        self.heap.first().and_then(|&i| self.sources[i].current())
    }

    fn advance(&mut self) -> Result<()> {
        let Some(&top) = self.heap.first() else { return Ok(()) };
        self.sources[top].advance()?;
        if self.sources[top].current().is_none() {
            self.heap.swap_remove(0);
        }
        self.sift_down(0);
        self.settle()
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
            let more = self.step(&mut |k, v| {
                bytes += k.len() + v.len();
                out.push((k.to_vec(), v.to_vec()));
            })?;
            if !more {
                break;
            }
        }
        Ok(out)
    }

    /// As `next_batch`, but packed: keys and values are appended back to back to `arena`, and
    /// for each pair the arena length after its key and after its value to `ends` (one
    /// allocation per batch instead of two per pair). Returns how many pairs were added.
    pub fn next_batch_packed(
        &mut self,
        max_items: usize,
        max_bytes: usize,
        arena: &mut Vec<u8>,
        ends: &mut Vec<(usize, usize)>,
    ) -> Result<usize> {
        let (start, mut n) = (arena.len(), 0);
        while n < max_items && arena.len() - start < max_bytes {
            let more = self.step(&mut |k, v| {
                arena.extend_from_slice(k);
                let key_end = arena.len();
                arena.extend_from_slice(v);
                ends.push((key_end, arena.len()));
            })?;
            if !more {
                break;
            }
            n += 1;
        }
        Ok(n)
    }

    /// Hands the next visible pair to `out`; false at the end.
    fn step(&mut self, out: &mut dyn FnMut(&[u8], &[u8])) -> Result<bool> {
        loop {
            let Some(e) = self.merge.current() else { return Ok(false) };
            if self.end.as_deref().is_some_and(|end| e.key >= end) {
                return Ok(false);
            }
            let shadowed = self.last_key.as_deref() == Some(e.key);
            let visible = key::sequence_of(e.tag) <= self.snapshot;
            let mut found = false;
            if !shadowed && visible {
                match &mut self.last_key {
                    Some(k) => {
                        k.clear();
                        k.extend_from_slice(e.key);
                    }
                    None => self.last_key = Some(e.key.to_vec()),
                }
                if key::kind_of(e.tag) == Some(Kind::Value) {
                    out(e.key, e.value);
                    found = true;
                }
            }
            self.merge.advance()?;
            if found {
                return Ok(true);
            }
        }
    }
}
