//! The memtable: the newest writes, in memory, until they fill a band's worth of table and are
//! flushed. Entries are only ever added, never changed or removed, so a reader at snapshot `s`
//! sees a stable picture by skipping entries newer than `s`; iterators copy short runs of
//! entries out under the read lock and seek past the last one for the next run.
//!
//! Each key is held once (short keys inline: `memtable_key`), in a hash map, with the place and
//! tag of its newest version; each version links to the key's next older one, and values are
//! copied into large arena chunks. So a write is a hash probe and two appends (no allocation of
//! its own unless the key is new), a point read at any snapshot a probe and a walk along that
//! key's few versions, and freeing a memtable a few calls. Key order is needed only by
//! iterators and flushes, so it is kept lazily: a key new to the memtable joins a list of
//! unordered keys, folded into the ordered set when an iterator or a flush next asks for order
//! (sorted first, then merged in bulk or inserted one by one, whichever is cheaper). A SET
//! under redis-benchmark spent 41 % of the server's time in the sorted insert this replaces (a
//! B-tree keyed by key and tag: a key copy and a byte comparison per level per write).
//!
//! Not here: sequence numbers (handed out by the write path), durability (the log).

use std::collections::BTreeSet;
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use rustc_hash::FxHashMap;

use crate::key::{self, Found, Kind};
use crate::table::format::estimated_entry_bytes;
use key_bytes::MemKey;

/// One entry: user key, tag, value (empty for tombstones).
pub type Entry = (Vec<u8>, u64, Vec<u8>);

/// Where a value lies in the arena: chunk, start, length.
#[derive(Clone, Copy)]
struct ValueRef {
    chunk: u32,
    start: u32,
    len: u32,
}

/// One version of a key: its tag, its value, and the key's next older version (`NONE`: none).
struct Version {
    tag: u64,
    value: ValueRef,
    older: u32,
}

const NONE: u32 = u32::MAX;

/// Bytes of an arena chunk (a larger value takes a chunk of its own size).
const CHUNK: usize = 1 << 20;

/// The values, copied one after another into large chunks: one allocation per megabyte, not
/// per write, and a memtable's values are freed in a few calls.
#[derive(Default)]
struct Arena {
    chunks: Vec<Vec<u8>>,
}

impl Arena {
    fn add(&mut self, value: &[u8]) -> ValueRef {
        let fits = self.chunks.last().is_some_and(|c| c.capacity() - c.len() >= value.len());
        if !fits {
            self.chunks.push(Vec::with_capacity(value.len().max(CHUNK)));
        }
        let chunk = self.chunks.len() - 1;
        let bytes = &mut self.chunks[chunk];
        let start = bytes.len();
        bytes.extend_from_slice(value);
        ValueRef { chunk: chunk as u32, start: start as u32, len: value.len() as u32 }
    }

    fn get(&self, at: ValueRef) -> &[u8] {
        &self.chunks[at.chunk as usize][at.start as usize..][..at.len as usize]
    }
}

/// A key's newest version: its place, tag and value (so a read of it need not look at the
/// versions).
struct Newest {
    at: u32,
    tag: u64,
    value: ValueRef,
}

/// The keys, each with its newest version, the versions (each linked to the key's next older
/// one), the values, and the keys' order.
#[derive(Default)]
struct Maps {
    newest: FxHashMap<MemKey, Newest>,
    versions: Vec<Version>,
    values: Arena,
    /// Every key but those in `unordered`, in order.
    ordered: BTreeSet<MemKey>,
    /// Keys added since order was last asked for.
    unordered: Vec<MemKey>,
}

impl Maps {
    fn add(&mut self, tag: u64, key: &[u8], value: &[u8]) {
        let at = self.versions.len() as u32;
        let value = self.values.add(value);
        let Some(newest) = self.newest.get_mut(key) else {
            let key = MemKey::new(key);
            self.unordered.push(key.clone());
            self.newest.insert(key, Newest { at, tag, value });
            self.versions.push(Version { tag, value, older: NONE });
            return;
        };
        if tag > newest.tag {
            self.versions.push(Version { tag, value, older: newest.at });
            *newest = Newest { at, tag, value };
            return;
        }
        // Writes arrive in sequence order, so only a replayed duplicate comes here: it goes
        // where its tag belongs (the same tag twice keeps the later value, as a map would).
        let (mut newer, mut older) = (NONE, newest.at);
        while older != NONE && self.versions[older as usize].tag > tag {
            (newer, older) = (older, self.versions[older as usize].older);
        }
        if older != NONE && self.versions[older as usize].tag == tag {
            self.versions[older as usize].value = value;
            if older == newest.at {
                newest.value = value;
            }
            return;
        }
        self.versions.push(Version { tag, value, older });
        self.versions[newer as usize].older = at;
    }

    /// `key`'s versions, newest first.
    fn versions_of(&self, key: &[u8]) -> impl Iterator<Item = (u64, &[u8])> {
        self.versions_from(self.newest.get(key).map_or(NONE, |newest| newest.at))
    }

    /// The version at `at` and the older ones it links to, newest first.
    fn versions_from(&self, mut at: u32) -> impl Iterator<Item = (u64, &[u8])> {
        std::iter::from_fn(move || {
            let version = self.versions.get(at as usize)?;
            at = version.older;
            Some((version.tag, self.values.get(version.value)))
        })
    }

    /// Folds the unordered keys into the ordered set.
    fn order(&mut self) {
        if self.unordered.is_empty() {
            return;
        }
        let mut fresh = std::mem::take(&mut self.unordered);
        fresh.sort_unstable();
        // A merge costs the whole set; one insert costs a search: merge only when the new keys
        // are a good share of the set (a flush, a scan after many writes).
        if fresh.len() >= self.ordered.len() / 8 {
            let mut more: BTreeSet<MemKey> = fresh.into_iter().collect();
            self.ordered.append(&mut more);
        } else {
            self.ordered.extend(fresh);
        }
    }

    /// Appends to `out` up to `limit` entries from `key`'s versions with a tag below `below`,
    /// newest first; whether the limit was reached.
    fn push_versions(&self, key: &MemKey, below: u64, out: &mut Vec<Entry>, limit: usize) -> bool {
        for (tag, value) in self.versions_of(key.as_slice()).filter(|(tag, _)| *tag < below) {
            if out.len() == limit {
                return true;
            }
            out.push((key.as_slice().to_vec(), tag, value.to_vec()));
        }
        out.len() == limit
    }
}

pub struct MemTable {
    maps: RwLock<Maps>,
    /// Bytes the entries will take as a table, estimated.
    table_bytes: AtomicU64,
    block_size: usize,
}

impl MemTable {
    pub fn new(block_size: usize) -> Self {
        MemTable { maps: RwLock::new(Maps::default()), table_bytes: AtomicU64::new(0), block_size }
    }

    // The maps are changed only by code that allocates before it changes them (a panic can
    // leave a key unordered or a version missing, never a wrong answer): a poisoned lock
    // still guards consistent maps.
    fn read(&self) -> RwLockReadGuard<'_, Maps> {
        self.maps.read().unwrap_or_else(|p| p.into_inner())
    }

    fn write(&self) -> RwLockWriteGuard<'_, Maps> {
        self.maps.write().unwrap_or_else(|p| p.into_inner())
    }

    /// The maps with every key in order, for reading.
    fn ordered(&self) -> RwLockReadGuard<'_, Maps> {
        {
            let maps = self.read();
            if maps.unordered.is_empty() {
                return maps;
            }
        }
        self.write().order();
        // Keys added between the two locks are newer than any reader that asked before them.
        self.read()
    }

    pub fn insert(&self, sequence: u64, kind: Kind, key: &[u8], value: &[u8]) {
        self.write().add(key::tag(sequence, kind), key, value);
        self.table_bytes.fetch_add(estimated_entry_bytes(key.len(), value.len(), self.block_size), Relaxed);
    }

    /// Inserts a write batch whose first entry has sequence number `first`, under one lock,
    /// counting its puts, deletes and user bytes (keys and values) in `stats`; returns the user
    /// bytes.
    pub fn insert_batch(&self, first: u64, batch: &crate::batch::WriteBatch, stats: &crate::env::Stats) -> u64 {
        let (mut user_bytes, mut table_bytes, mut puts) = (0, 0, 0);
        let mut maps = self.write();
        for (i, (kind, key, value)) in batch.entries().enumerate() {
            maps.add(key::tag(first + i as u64, kind), key, value);
            user_bytes += (key.len() + value.len()) as u64;
            table_bytes += estimated_entry_bytes(key.len(), value.len(), self.block_size);
            puts += (kind == Kind::Value) as u64;
        }
        drop(maps);
        self.table_bytes.fetch_add(table_bytes, Relaxed);
        crate::env::Stats::add(&stats.puts, puts);
        crate::env::Stats::add(&stats.deletes, batch.len() as u64 - puts);
        crate::env::Stats::add(&stats.user_bytes, user_bytes);
        user_bytes
    }

    /// Estimated size of this memtable as a table.
    pub fn table_bytes(&self) -> u64 {
        self.table_bytes.load(Relaxed)
    }

    pub fn is_empty(&self) -> bool {
        self.read().newest.is_empty()
    }

    /// The newest version of `key` at or below `snapshot`, if the memtable has one.
    pub fn get(&self, key: &[u8], snapshot: u64) -> Option<(Found, u64)> {
        let maps = self.read();
        let newest = maps.newest.get(key)?;
        if key::sequence_of(newest.tag) <= snapshot {
            return Some(found(newest.tag, maps.values.get(newest.value)));
        }
        let (tag, value) = maps.versions_from(newest.at).find(|(tag, _)| key::sequence_of(*tag) <= snapshot)?;
        Some(found(tag, value))
    }

    /// Up to `limit` entries after `after` (exclusive; `None`: from `start`, inclusive of every
    /// version of `start`), in internal-key order.
    pub fn entries(&self, after: Option<(&[u8], u64)>, start: &[u8], limit: usize) -> Vec<Entry> {
        let maps = self.ordered();
        let mut out = Vec::with_capacity(limit.min(1024));
        if limit == 0 {
            return out;
        }
        let lower = match after {
            Some((k, tag)) => {
                if let Some(key) = maps.ordered.get(k) {
                    if maps.push_versions(key, tag, &mut out, limit) {
                        return out;
                    }
                }
                Bound::Excluded(k)
            }
            None => Bound::Included(start),
        };
        for key in maps.ordered.range::<[u8], _>((lower, Bound::Unbounded)) {
            if maps.push_versions(key, u64::MAX, &mut out, limit) {
                break;
            }
        }
        out
    }

    /// Every entry, in internal-key order (for flushing a memtable no one writes to any more).
    pub fn for_each(&self, mut f: impl FnMut(&[u8], u64, &[u8]) -> crate::Result<()>) -> crate::Result<()> {
        let maps = self.ordered();
        for key in &maps.ordered {
            for (tag, value) in maps.versions_of(key.as_slice()) {
                f(key.as_slice(), tag, value)?;
            }
        }
        Ok(())
    }
}

/// What a read finds in an entry with `tag` and `value`, and its sequence number.
fn found(tag: u64, value: &[u8]) -> (Found, u64) {
    let found = match key::kind_of(tag) {
        Some(Kind::Value) => Found::Value(value.to_vec()),
        _ => Found::Deleted,
    };
    (found, key::sequence_of(tag))
}

#[path = "memtable_key.rs"]
mod key_bytes;

#[cfg(test)]
#[path = "memtable_tests.rs"]
mod tests;
