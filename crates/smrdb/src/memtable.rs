//! The memtable: the newest writes, sorted in memory, until they fill a band's worth of table
//! and are flushed. Entries are only ever added, never changed or removed, so a reader at
//! snapshot `s` sees a stable picture by skipping entries newer than `s`; iterators copy short
//! runs of entries out under the read lock and seek past the last one for the next run.

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{RwLock, RwLockReadGuard};

use crate::key::{self, Found, Kind};
use crate::table::format::estimated_entry_bytes;

/// Key order: user key ascending, then tag descending (newest version first).
type MemKey = (Vec<u8>, Reverse<u64>);

/// One entry: user key, tag, value (empty for tombstones).
pub type Entry = (Vec<u8>, u64, Vec<u8>);

pub struct MemTable {
    map: RwLock<BTreeMap<MemKey, Vec<u8>>>,
    /// Bytes the entries will take as a table, estimated.
    table_bytes: AtomicU64,
    block_size: usize,
}

/// The tag a snapshot probe uses: it sorts before every version at or below `snapshot`.
fn probe(snapshot: u64) -> u64 {
    (snapshot << 8) | 0xFF
}

impl MemTable {
    pub fn new(block_size: usize) -> Self {
        MemTable { map: RwLock::new(BTreeMap::new()), table_bytes: AtomicU64::new(0), block_size }
    }

    fn read(&self) -> RwLockReadGuard<'_, BTreeMap<MemKey, Vec<u8>>> {
        // Inserts are single BTreeMap calls: a panic cannot leave the map half-changed.
        self.map.read().unwrap_or_else(|p| p.into_inner())
    }

    pub fn insert(&self, sequence: u64, kind: Kind, key: &[u8], value: &[u8]) {
        let bytes = estimated_entry_bytes(key.len(), value.len(), self.block_size);
        self.map.write().unwrap_or_else(|p| p.into_inner()).insert((key.to_vec(), Reverse(key::tag(sequence, kind))), value.to_vec());
        self.table_bytes.fetch_add(bytes, Relaxed);
    }

    /// Inserts a write batch whose first entry has sequence number `first`, counting its puts,
    /// deletes and user bytes (keys and values) in `stats`; returns the user bytes.
    pub fn insert_batch(&self, first: u64, batch: &crate::batch::WriteBatch, stats: &crate::env::Stats) -> u64 {
        let mut user_bytes = 0;
        for (i, (kind, key, value)) in batch.entries().enumerate() {
            self.insert(first + i as u64, kind, key, value);
            user_bytes += (key.len() + value.len()) as u64;
            crate::env::Stats::add(if kind == Kind::Value { &stats.puts } else { &stats.deletes }, 1);
        }
        crate::env::Stats::add(&stats.user_bytes, user_bytes);
        user_bytes
    }

    /// Estimated size of this memtable as a table.
    pub fn table_bytes(&self) -> u64 {
        self.table_bytes.load(Relaxed)
    }

    pub fn is_empty(&self) -> bool {
        self.read().is_empty()
    }

    /// The newest version of `key` at or below `snapshot`, if the memtable has one.
    pub fn get(&self, key: &[u8], snapshot: u64) -> Option<(Found, u64)> {
        let map = self.read();
        let start = (key.to_vec(), Reverse(probe(snapshot)));
        let ((found_key, Reverse(tag)), value) = map.range(start..).next()?;
        if found_key.as_slice() != key {
            return None;
        }
        let found = match key::kind_of(*tag) {
            Some(Kind::Value) => Found::Value(value.clone()),
            _ => Found::Deleted,
        };
        Some((found, key::sequence_of(*tag)))
    }

    /// Up to `limit` entries after `after` (exclusive; `None`: from `start`, inclusive of every
    /// version of `start`), in internal-key order.
    pub fn entries(&self, after: Option<(&[u8], u64)>, start: &[u8], limit: usize) -> Vec<Entry> {
        let map = self.read();
        let lower = match after {
            Some((k, tag)) => Bound::Excluded((k.to_vec(), Reverse(tag))),
            None => Bound::Included((start.to_vec(), Reverse(u64::MAX))),
        };
        map.range((lower, Bound::Unbounded)).take(limit).map(|((k, Reverse(tag)), v)| (k.clone(), *tag, v.clone())).collect()
    }

    /// Every entry, in internal-key order (for flushing a memtable no one writes to any more).
    pub fn for_each(&self, mut f: impl FnMut(&[u8], u64, &[u8]) -> crate::Result<()>) -> crate::Result<()> {
        for ((k, Reverse(tag)), v) in self.read().iter() {
            f(k, *tag, v)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_see_the_newest_version_at_their_snapshot() {
        let m = MemTable::new(4096);
        m.insert(1, Kind::Value, b"k", b"one");
        m.insert(2, Kind::Value, b"k", b"two");
        m.insert(3, Kind::Deletion, b"k", b"");
        m.insert(4, Kind::Value, b"kk", b"other");
        assert_eq!(m.get(b"k", 0), None);
        assert_eq!(m.get(b"k", 1), Some((Found::Value(b"one".to_vec()), 1)));
        assert_eq!(m.get(b"k", 2), Some((Found::Value(b"two".to_vec()), 2)));
        assert_eq!(m.get(b"k", 9), Some((Found::Deleted, 3)));
        assert_eq!(m.get(b"j", 9), None);
        let all = m.entries(None, b"", 10);
        let order: Vec<(Vec<u8>, u64)> = all.iter().map(|(k, t, _)| (k.clone(), key::sequence_of(*t))).collect();
        assert_eq!(order, vec![(b"k".to_vec(), 3), (b"k".to_vec(), 2), (b"k".to_vec(), 1), (b"kk".to_vec(), 4)]);
        let rest = m.entries(Some((&all[1].0, all[1].1)), b"", 10);
        assert_eq!(rest.len(), 2, "resumes after the last entry returned");
        assert!(m.table_bytes() > 0);
    }
}
