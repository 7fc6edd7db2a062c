//! The calls the executor and the Redis-protocol server make on a store in this process, so
//! both serve SMRDB and its write-offloading variant alike. Implemented here for
//! `smrdb::Db` and `smrdb::offload::OffloadDb`.

use std::sync::RwLock;

use smrdb::offload::OffloadDb;
use smrdb::{Db, WriteBatch};

/// A key-value store shared by many threads.
pub trait Store: Send + Sync {
    fn get(&self, key: &[u8]) -> smrdb::Result<Option<Vec<u8>>>;
    fn write(&self, batch: &WriteBatch, sync: bool) -> smrdb::Result<()>;
    /// Up to `limit` pairs with `start <= key` (and `key < end`), in key order: fewer when their
    /// bytes reach a bound (at least one pair all the same), so a caller goes on while `more`.
    fn scan(&self, start: &[u8], end: Option<&[u8]>, limit: usize) -> smrdb::Result<Scanned>;
    fn sync(&self) -> smrdb::Result<()>;
    /// Stops background work and makes everything durable.
    fn close(self: Box<Self>) -> smrdb::Result<()>;
    /// Counters, as JSON, for INFO and run reports.
    fn stats_json(&self) -> serde_json::Value;
    /// Bytes the store's (disk) device holds.
    fn capacity(&self) -> u64;
}

/// One call's pairs of a scan, in key order.
#[derive(Debug, Default)]
pub struct Scanned {
    pub pairs: Vec<(Vec<u8>, Vec<u8>)>,
    /// The range may hold pairs after the last of these (false: it certainly holds none).
    pub more: bool,
}

/// A store shared by threads (executor workers, server connections) until it is closed: calls
/// after `close` fail as a closed store's do.
pub struct SharedStore {
    store: RwLock<Option<Box<dyn Store>>>,
    name: String,
}

impl SharedStore {
    pub fn new(store: Box<dyn Store>, name: impl Into<String>) -> SharedStore {
        SharedStore { store: RwLock::new(Some(store)), name: name.into() }
    }

    /// Runs `f` on the store, or fails if it is closed.
    pub fn with<T>(&self, f: impl FnOnce(&dyn Store) -> smrdb::Result<T>) -> smrdb::Result<T> {
        let guard = self.store.read().unwrap_or_else(|p| p.into_inner());
        match guard.as_deref() {
            Some(s) => f(s),
            None => Err(smrdb::Error::Closed { store: self.name.clone() }),
        }
    }

    /// Bytes the store's device holds.
    pub fn capacity(&self) -> smrdb::Result<u64> {
        self.with(|s| Ok(s.capacity()))
    }

    /// Closes the store (waiting for calls in progress); later calls fail. Closing twice is
    /// harmless.
    pub fn close(&self) -> smrdb::Result<()> {
        let store = self.store.write().unwrap_or_else(|p| p.into_inner()).take();
        store.map_or(Ok(()), |s| s.close())
    }
}

/// Bytes of keys and values after which a scan call stops (its last pair may end past them).
const SCAN_BATCH_BYTES: usize = 4 << 20;

/// Up to `limit` pairs of `it`, stopping once they hold `SCAN_BATCH_BYTES`; `more` unless the
/// iterator ended before either bound.
fn scan_batch(mut it: smrdb::DbIter, limit: usize) -> smrdb::Result<Scanned> {
    let pairs = it.next_batch(limit, SCAN_BATCH_BYTES)?;
    let bytes: usize = pairs.iter().map(|(k, v)| k.len() + v.len()).sum();
    let more = pairs.len() >= limit || bytes >= SCAN_BATCH_BYTES;
    Ok(Scanned { pairs, more })
}

/// The store calls SMRDB and its offloading variant answer alike, under the same names.
macro_rules! delegate_store {
    ($store:ident) => {
        fn get(&self, key: &[u8]) -> smrdb::Result<Option<Vec<u8>>> {
            $store::get(self, key)
        }

        fn write(&self, batch: &WriteBatch, sync: bool) -> smrdb::Result<()> {
            $store::write(self, batch, sync)
        }

        fn scan(&self, start: &[u8], end: Option<&[u8]>, limit: usize) -> smrdb::Result<Scanned> {
            scan_batch($store::scan(self, Some(start), end)?, limit)
        }

        fn sync(&self) -> smrdb::Result<()> {
            $store::sync(self)
        }

        fn close(self: Box<Self>) -> smrdb::Result<()> {
            $store::close(*self)
        }
    };
}

impl Store for Db {
    delegate_store!(Db);

    fn capacity(&self) -> u64 {
        let s = self.stats();
        s.bands * s.band_size
    }

    fn stats_json(&self) -> serde_json::Value {
        let s = self.stats();
        serde_json::json!({
            "store": "smrdb",
            "scheme": s.scheme,
            "puts": s.puts,
            "deletes": s.deletes,
            "user_bytes": s.user_bytes,
            "device_bytes_written": s.device_bytes_written,
            "compaction_bytes_read": s.compaction_bytes_read,
            "compaction_bytes_written": s.compaction_bytes_written,
            "compactions": s.compactions,
            "flushes": s.flushes,
            "stall_micros": s.stall_micros,
            "write_amplification": s.write_amplification(),
            "disk_busy_ns": s.disk.map(|d| d.busy_ns),
        })
    }
}

impl Store for OffloadDb {
    delegate_store!(OffloadDb);

    fn capacity(&self) -> u64 {
        self.stats().disk_capacity
    }

    fn stats_json(&self) -> serde_json::Value {
        // Every figure the store reports, under its field's name, and the store's kind.
        let mut stats = serde_json::to_value(self.stats()).expect("the offloading store's stats are numbers and flags");
        stats["store"] = "smrdb-offload".into();
        stats
    }
}
