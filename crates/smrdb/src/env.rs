//! What every part of an open store shares: the device, the store's name for messages, the
//! counters, the block cache, and the pool of empty bands. Bands leave the pool for a log, a flush or a
//! compaction output, and come back through `retire` once nothing refers to them: retired bands
//! are reset lazily, just before the pool hands out a band again.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;

use smr_zoned::ZoneError;

use crate::block_cache::BlockCache;
use crate::device::BandDevice;
use crate::error::{Error, Result};

/// Counters of what the store did, in bytes or events, since it was opened.
#[derive(Default)]
pub struct Stats {
    pub user_bytes: AtomicU64,
    pub puts: AtomicU64,
    pub deletes: AtomicU64,
    pub log_bytes_written: AtomicU64,
    pub log_syncs: AtomicU64,
    pub flush_bytes_written: AtomicU64,
    pub compaction_bytes_written: AtomicU64,
    pub compaction_bytes_read: AtomicU64,
    pub metadata_bytes_written: AtomicU64,
    pub read_bytes: AtomicU64,
    /// Gets that reached the tables (not answered by a memtable).
    pub table_gets: AtomicU64,
    /// Tables whose key range held a get's key, so its Bloom filter was consulted.
    pub get_tables_searched: AtomicU64,
    /// Of those, the tables whose filter let the key through, so a data block was read.
    pub get_blocks_read: AtomicU64,
    /// Of those blocks, the ones found in the block cache rather than read from the band.
    pub get_block_cache_hits: AtomicU64,
    pub flushes: AtomicU64,
    pub compactions: AtomicU64,
    pub moves: AtomicU64,
    pub slowdowns: AtomicU64,
    pub stall_micros: AtomicU64,
    pub bands_reset: AtomicU64,
}

impl Stats {
    pub fn add(counter: &AtomicU64, n: u64) {
        counter.fetch_add(n, Relaxed);
    }

    /// Bytes the store wrote to the device: log, tables and metadata.
    pub fn device_bytes_written(&self) -> u64 {
        self.log_bytes_written.load(Relaxed)
            + self.flush_bytes_written.load(Relaxed)
            + self.compaction_bytes_written.load(Relaxed)
            + self.metadata_bytes_written.load(Relaxed)
    }
}

struct BandPool {
    /// Empty bands, lowest first (the outer, faster tracks of a disk).
    free: BTreeSet<u64>,
    /// Bands nothing refers to any more, still to be reset.
    retired: Vec<u64>,
}

pub struct Env {
    pub device: Box<dyn BandDevice>,
    /// "the store at PATH" or "the memory store", for messages.
    pub store: String,
    pub band_size: u64,
    pub stats: Stats,
    /// Data blocks that gets read (none kept unless `with_block_cache` gives a budget).
    pub blocks: BlockCache,
    pool: Mutex<BandPool>,
}

impl Env {
    pub fn new(device: Box<dyn BandDevice>, store: String) -> Self {
        let band_size = device.zone_size();
        Env {
            device,
            store,
            band_size,
            stats: Stats::default(),
            blocks: BlockCache::new(0),
            pool: Mutex::new(BandPool { free: BTreeSet::new(), retired: Vec::new() }),
        }
    }

    /// The same environment keeping up to `bytes` of the blocks gets read (`Options::block_cache`).
    pub fn with_block_cache(mut self, bytes: u64) -> Self {
        self.blocks = BlockCache::new(bytes);
        self
    }

    fn pool(&self) -> std::sync::MutexGuard<'_, BandPool> {
        // The pool is two sets of band numbers; no half-updated state survives a panic.
        self.pool.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Hands the pool the bands found empty when the store was opened.
    pub fn set_free(&self, bands: impl IntoIterator<Item = u64>) {
        self.pool().free = bands.into_iter().collect();
    }

    /// Takes an empty band for `purpose` ("the log", "a flush", "a compaction").
    pub fn allocate(&self, purpose: &'static str) -> Result<u64> {
        let mut pool = self.pool();
        if pool.free.is_empty() {
            self.reset_retired(&mut pool)?;
        }
        pool.free.pop_first().ok_or_else(|| Error::DeviceFull {
            store: self.store.clone(),
            purpose,
            bands: self.device.zone_count() - self.device.conventional_zones(),
            band_size: self.band_size,
        })
    }

    /// Gives back a band that nothing refers to any more (its metadata record no longer names
    /// it, and no reader holds it).
    pub fn retire(&self, band: u64) {
        self.pool().retired.push(band);
    }

    /// Resets the retired bands now (at close, so a reopened store finds them empty).
    pub fn reset_retired_now(&self) -> Result<()> {
        let mut pool = self.pool();
        self.reset_retired(&mut pool)
    }

    fn reset_retired(&self, pool: &mut BandPool) -> Result<()> {
        while let Some(band) = pool.retired.pop() {
            if let Err(e) = self.device.reset(band) {
                pool.retired.push(band);
                return Err(self.device_error(e));
            }
            Stats::add(&self.stats.bands_reset, 1);
            pool.free.insert(band);
        }
        Ok(())
    }

    /// The device's bands (its sequential zones).
    pub fn bands(&self) -> u64 {
        self.device.zone_count() - self.device.conventional_zones()
    }

    pub fn free_bands(&self) -> u64 {
        let pool = self.pool();
        (pool.free.len() + pool.retired.len()) as u64
    }

    pub fn band_start(&self, band: u64) -> u64 {
        band * self.band_size
    }

    /// Reads `buf.len()` bytes at `offset` within `band`.
    pub fn read(&self, band: u64, offset: u64, buf: &mut [u8]) -> Result<()> {
        self.device.read(self.band_start(band) + offset, buf).map_err(|e| self.device_error(e))
    }

    /// Appends `data` at the band's write pointer; returns the offset within the band.
    pub fn append(&self, band: u64, data: &[u8]) -> Result<u64> {
        let at = self.device.append(band, data).map_err(|e| self.device_error(e))?;
        Ok(at - self.band_start(band))
    }

    pub fn sync(&self) -> Result<()> {
        self.device.sync().map_err(|e| self.device_error(e))
    }

    pub fn device_error(&self, source: ZoneError) -> Error {
        Error::Device { store: self.store.clone(), source }
    }

    pub fn corruption(
        &self,
        what: impl Into<String>,
        location: impl Into<String>,
        problem: impl Into<String>,
    ) -> Error {
        Error::Corruption {
            store: self.store.clone(),
            what: what.into(),
            location: location.into(),
            problem: problem.into(),
        }
    }
}
