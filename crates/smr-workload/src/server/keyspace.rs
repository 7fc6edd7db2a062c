//! The keys as a run of commands sees them: the store, with the writes of the run's earlier
//! commands laid over it. Those writes are held here and stored together as one write batch
//! (`commit`), so a transaction or a pipeline costs the store one write, and a transaction is
//! applied atomically; reads (single keys and key-ordered scans) see them before then.
//!
//! Expired keys are absent to every read; their records stay in the store until a write
//! replaces or deletes them (no background sweep).
//!
//! Not here: who may write while a run holds writes (the server's writer lock, taken by the
//! runner), the meaning of records (`record`).

use std::collections::BTreeMap;

use rustc_hash::FxHashMap;
use smrdb::key::Kind;
use smrdb::WriteBatch;

use super::record::Record;
use crate::target::SharedStore;

pub struct Keyspace<'a> {
    store: &'a SharedStore,
    sync: bool,
    /// The run's clock: milliseconds since the Unix epoch, read once per run.
    pub now_ms: u64,
    /// Writes not yet stored, in order (a later one for the same key supersedes an earlier).
    batch: WriteBatch,
    /// The latest of the pending writes of each key (`None`: a delete), built on the first read
    /// that needs it: a run that only writes, as a pipeline of SETs, never pays for it.
    latest: Option<FxHashMap<Vec<u8>, Option<Vec<u8>>>>,
    pending_bytes: usize,
}

/// A write batch entry's value: `None` for a delete.
fn written(kind: Kind, value: &[u8]) -> Option<&[u8]> {
    (kind == Kind::Value).then_some(value)
}

impl<'a> Keyspace<'a> {
    /// With `sync`, each commit is durable before it returns.
    pub fn new(store: &'a SharedStore, sync: bool, now_ms: u64) -> Keyspace<'a> {
        Keyspace { store, sync, now_ms, batch: WriteBatch::new(), latest: None, pending_bytes: 0 }
    }

    /// The stored bytes under `key` (expired or not), as this run sees them.
    pub fn get_stored(&mut self, key: &[u8]) -> smrdb::Result<Option<Vec<u8>>> {
        if !self.batch.is_empty() {
            let batch = &self.batch;
            let latest = self.latest.get_or_insert_with(|| {
                batch.entries().map(|(kind, k, v)| (k.to_vec(), written(kind, v).map(<[u8]>::to_vec))).collect()
            });
            if let Some(pending) = latest.get(key) {
                return Ok(pending.clone());
            }
        }
        self.store.with(|s| s.get(key))
    }

    /// The live record under `key`: none if it is absent or expired.
    pub fn get(&mut self, key: &[u8]) -> smrdb::Result<Option<Record>> {
        let now = self.now_ms;
        Ok(self.get_stored(key)?.map(Record::decode).filter(|r| !r.is_expired(now)))
    }

    fn write(&mut self, key: &[u8], stored: Option<&[u8]>) {
        self.pending_bytes += key.len() + stored.map_or(0, <[u8]>::len);
        match stored {
            Some(v) => self.batch.put(key, v),
            None => self.batch.delete(key),
        }
        if let Some(latest) = &mut self.latest {
            latest.insert(key.to_vec(), stored.map(<[u8]>::to_vec));
        }
    }

    pub fn put(&mut self, key: &[u8], record: &Record) {
        self.write(key, Some(&record.encode()));
    }

    /// Stores a string with no time to live (SET's common case, without building a record).
    pub fn put_string(&mut self, key: &[u8], value: &[u8]) {
        if super::record::needs_header(value) {
            self.put(key, &Record::string(value.to_vec()));
        } else {
            self.write(key, Some(value));
        }
    }

    pub fn delete(&mut self, key: &[u8]) {
        self.write(key, None);
    }

    /// Bytes of keys and values waiting to be stored.
    pub fn pending_bytes(&self) -> usize {
        self.pending_bytes
    }

    /// Stores the pending writes as one batch. They are dropped either way: on an error the
    /// store applied none of them.
    pub fn commit(&mut self) -> smrdb::Result<()> {
        if self.batch.is_empty() {
            return Ok(());
        }
        let batch = std::mem::take(&mut self.batch);
        self.latest = None;
        self.pending_bytes = 0;
        self.store.with(|s| s.write(&batch, self.sync))
    }

    /// Up to `limit` stored records with `start <= key`, expired ones included (a scan's
    /// COUNT counts the keys it examined), in key order, as this run sees them: fewer when the
    /// store stops on the bytes it read (none at all when pending deletes hide every pair it
    /// read), so a caller goes on after `passed` while `more`.
    pub fn scan(&mut self, start: &[u8], limit: usize) -> smrdb::Result<Swept> {
        let mut pending: BTreeMap<&[u8], Option<&[u8]>> = BTreeMap::new();
        for (kind, k, v) in self.batch.entries() {
            if k >= start {
                pending.insert(k, written(kind, v));
            }
        }
        // Pending deletes may hide stored keys: read as many more as there are pending keys.
        let stored = self.store.with(|s| s.scan(start, None, limit.saturating_add(pending.len())))?;
        // Where the store stopped short, pending keys after its last one belong to a later call.
        let bound = if stored.more { stored.pairs.last().map(|(k, _)| k.clone()) } else { None };
        let mut merged = Vec::with_capacity(limit.min(stored.pairs.len() + pending.len()));
        let mut pending = pending.into_iter().filter(|(k, _)| bound.as_deref().is_none_or(|b| *k <= b)).peekable();
        let mut stored_pairs = stored.pairs.into_iter().peekable();
        let mut passed = None;
        while merged.len() < limit {
            let take_pending = match (pending.peek(), stored_pairs.peek()) {
                (Some((pk, _)), Some((sk, _))) => *pk <= sk.as_slice(),
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            if take_pending {
                let (k, v) = pending.next().expect("peeked");
                if stored_pairs.peek().is_some_and(|(sk, _)| sk.as_slice() == k) {
                    stored_pairs.next();
                }
                passed = Some(k.to_vec());
                if let Some(v) = v {
                    merged.push((k.to_vec(), Record::decode(v.to_vec())));
                }
            } else {
                let (k, v) = stored_pairs.next().expect("peeked");
                passed = Some(k.clone());
                merged.push((k, Record::decode(v)));
            }
        }
        let more = stored.more || pending.peek().is_some() || stored_pairs.peek().is_some();
        Ok(Swept { records: merged, passed: passed.filter(|_| more) })
    }
}

/// One call's records of a key-ordered scan.
pub struct Swept {
    pub records: Vec<(Vec<u8>, Record)>,
    /// Where records may follow: the last key this call went past (the last record's, or a
    /// pending delete's after it); `None` when no record follows.
    pub passed: Option<Vec<u8>>,
}
