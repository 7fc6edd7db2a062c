//! The memtable: the newest writes, sorted in memory, until they fill a band's worth of table
//! and are flushed. Entries are only ever added, never changed or removed, so a reader at
//! snapshot `s` sees a stable picture by skipping entries newer than `s`; iterators copy short
//! runs of entries out under the read lock and seek past the last one for the next run.
//!
//! Beside the sorted map, a hash map holds each key's newest version: a point read at a
//! snapshot that sees it (nearly every read) or of a key the memtable does not hold is one hash
//! probe, not a search of the sorted map (a byte comparison per level: over half of a
//! Redis-protocol GET's time, measured by profiling `smrlab kv serve` under redis-benchmark).
//! Values are shared between the two maps, not copied.

use std::cmp::Reverse;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, RwLock, RwLockReadGuard};

use rustc_hash::FxHashMap;

use crate::key::{self, Found, Kind};
use crate::table::format::estimated_entry_bytes;

/// Key order: user key ascending, then tag descending (newest version first).
type MemKey = (Vec<u8>, Reverse<u64>);

/// One entry: user key, tag, value (empty for tombstones).
pub type Entry = (Vec<u8>, u64, Vec<u8>);

/// The entries, sorted, and each key's newest version (its tag and value).
#[derive(Default)]
struct Maps {
    sorted: BTreeMap<MemKey, Arc<[u8]>>,
    newest: FxHashMap<Box<[u8]>, (u64, Arc<[u8]>)>,
}

pub struct MemTable {
    map: RwLock<Maps>,
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
        MemTable { map: RwLock::new(Maps::default()), table_bytes: AtomicU64::new(0), block_size }
    }

    fn read(&self) -> RwLockReadGuard<'_, Maps> {
        // An insert allocates before it changes either map, and the newest version it records
        // is also in the sorted map: a panic cannot leave a reader a wrong answer.
        self.map.read().unwrap_or_else(|p| p.into_inner())
    }

    pub fn insert(&self, sequence: u64, kind: Kind, key: &[u8], value: &[u8]) {
        let bytes = estimated_entry_bytes(key.len(), value.len(), self.block_size);
        let tag = key::tag(sequence, kind);
        let value: Arc<[u8]> = Arc::from(value);
        let mut maps = self.map.write().unwrap_or_else(|p| p.into_inner());
        maps.sorted.insert((key.to_vec(), Reverse(tag)), value.clone());
        match maps.newest.get_mut(key) {
            Some(newest) if newest.0 < tag => *newest = (tag, value),
            Some(_) => {}
            None => {
                maps.newest.insert(key.into(), (tag, value));
            }
        }
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
        self.read().sorted.is_empty()
    }

    /// The newest version of `key` at or below `snapshot`, if the memtable has one.
    pub fn get(&self, key: &[u8], snapshot: u64) -> Option<(Found, u64)> {
        let maps = self.read();
        let (newest_tag, newest_value) = maps.newest.get(key)?;
        if key::sequence_of(*newest_tag) <= snapshot {
            return Some(found(*newest_tag, newest_value));
        }
        // An older snapshot: its version, if any, is further down the key's run in the sorted map.
        let start = (key.to_vec(), Reverse(probe(snapshot)));
        let ((found_key, Reverse(tag)), value) = maps.sorted.range(start..).next()?;
        (found_key.as_slice() == key).then(|| found(*tag, value))
    }

    /// Up to `limit` entries after `after` (exclusive; `None`: from `start`, inclusive of every
    /// version of `start`), in internal-key order.
    pub fn entries(&self, after: Option<(&[u8], u64)>, start: &[u8], limit: usize) -> Vec<Entry> {
        let maps = self.read();
        let lower = match after {
            Some((k, tag)) => Bound::Excluded((k.to_vec(), Reverse(tag))),
            None => Bound::Included((start.to_vec(), Reverse(u64::MAX))),
        };
        maps.sorted.range((lower, Bound::Unbounded)).take(limit).map(|((k, Reverse(tag)), v)| (k.clone(), *tag, v.to_vec())).collect()
    }

    /// Every entry, in internal-key order (for flushing a memtable no one writes to any more).
    pub fn for_each(&self, mut f: impl FnMut(&[u8], u64, &[u8]) -> crate::Result<()>) -> crate::Result<()> {
        for ((k, Reverse(tag)), v) in self.read().sorted.iter() {
            f(k, *tag, v)?;
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

    proptest::proptest! {
        /// A read at any snapshot finds what a search of every entry finds: the newest version
        /// of the key at or below the snapshot (the hash map's shortcut never answers for an
        /// older snapshot or a key the memtable does not hold).
        #[test]
        fn reads_match_a_search_of_every_entry(writes in proptest::collection::vec((0u8..6, proptest::bool::ANY, 0u8..4), 1..60),
                                               snapshots in proptest::collection::vec(0u64..70, 1..20)) {
            let m = MemTable::new(4096);
            let mut all = Vec::new();
            for (i, (k, delete, v)) in writes.iter().enumerate() {
                let (sequence, kind) = (i as u64 + 1, if *delete { Kind::Deletion } else { Kind::Value });
                let value = if *delete { Vec::new() } else { vec![*v; 3] };
                m.insert(sequence, kind, &[*k], &value);
                all.push((vec![*k], sequence, kind, value));
            }
            for snapshot in snapshots {
                for k in 0u8..7 {
                    let expected = all.iter().filter(|(key, seq, ..)| key[..] == [k] && *seq <= snapshot).max_by_key(|(_, seq, ..)| *seq)
                        .map(|(_, seq, kind, value)| (if *kind == Kind::Value { Found::Value(value.clone()) } else { Found::Deleted }, *seq));
                    proptest::prop_assert_eq!(m.get(&[k], snapshot), expected, "key {} at snapshot {}", k, snapshot);
                }
            }
        }
    }
}
