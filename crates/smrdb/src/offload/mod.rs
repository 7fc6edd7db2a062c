//! The write-offloading store of chapter 5 (§5.3 of the SMRDB thesis): SMRDB rebuilt so that
//! first-level bands are written unsorted, as the writes arrive, with no sorted copy (no double
//! write), LevelDB-style compaction through three buffer levels into a final level, and writes
//! offloaded to a separate NVRAM device when, and only when, a compaction is in progress.
//!
//! - Writes (`write`) are appended, log-framed, to the open unit: a band of the disk, or while a
//!   compaction runs a band of the NVRAM device (a second zoned device, one sparse file), and
//!   enter a memtable for reads. A full unit, or one of the wrong device when compaction starts
//!   or stops, is sealed: it joins level 0 with its in-memory key index (`unit`). Offloaded data
//!   reaches the disk's bands only through compaction.
//! - Levels: 0 (unsorted units, `buffer_bands[0]` bands' worth), 1 and 2 (sorted tables, at
//!   most `buffer_bands[1]` and `[2]` bands, disjoint key ranges), and the final level 3.
//!   Compaction (`compact`) is aggressive: a level over its size is compacted at once (level 0
//!   whole with the overlapping level 1 tables; deeper levels one table round-robin with the
//!   overlapping tables below), and writes are never stopped; a periodic checker that finds no
//!   compaction for `quiet_interval` merges whole buffer levels down, one after another.
//! - Reads see the memtable, then level 0's units newest first, then levels 1 to 3.
//! - Recovery (`open`): the metadata record names the tables and the disk's unit bands; the
//!   NVRAM device's written bands are its units; units whose every sequence number is at or
//!   below the record's are already compacted and are reset.
//!
//! Choices where the thesis is silent: level 0's size is counted in bytes (units sealed early
//! at a device switch are partly filled bands), with at most four times as many units as its
//! bands; a unit switches device at the first write after a compaction starts or ends (the
//! current one is then sealed and synced); a compaction reads each unit whole (one sequential
//! read) rather than record by record; when the NVRAM device is full, writes go to the disk;
//! the checker wakes every `check_interval` (1 s) and calls writes quiet after 5 s without a
//! size-triggered compaction; the NVRAM device holds 256 bands by default (16 GiB at 64 MiB,
//! the thesis's partition). The compaction chooses no sequentiality metric: chapter 5 used
//! LevelDB-style compaction on purpose, for its representative overhead.
//!
//! Not here: SOC compaction, snapshots beyond an iterator's own, a key-value object cache.

mod compact;
mod open;
pub mod options;
pub mod unit;
mod write;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::batch::WriteBatch;
use crate::device::{BandDevice, Shared};
use crate::env::Env;
use crate::error::{Error, Result};
use crate::guarded::{CurrentState, Guarded, Standing};
use crate::iter::{DbIter, MemSource, Merge};
use crate::key::Found;
use crate::lifecycle::{Closing, Lifecycle};
use crate::lock::LockFile;
use crate::log::writer::LogWriter;
use crate::memtable::MemTable;
use crate::options::{Geometry, Limits, Options};
use crate::source::Source;
use crate::table::builder::TableShape;
use crate::table::iter::{ReadPurpose, TableIter};
use crate::util::mutex::lock;
use crate::version::Version;
use unit::{Unit, UnitIndex, UnitSource};

pub use options::{OffloadOptions, DEFAULT_NVRAM_BANDS, MAX_OFFLOAD_DELAY, MIN_INTERVAL, OFFLOAD_TUNING};

/// Levels: 0 (unsorted units), 1 and 2 (buffers), 3 (final).
pub const LEVELS: usize = 4;

/// The share of the NVRAM device's bands in use above which writes sleep `offload_delay`. Open
/// choice: the thesis says "too many files" without a number; half leaves room for the rest of
/// a compaction's offloaded writes.
pub const CROWDED_SHARE: f64 = 0.5;

/// The most bands a buffer level may be given (more than any device holds).
pub const MAX_BUFFER_BANDS: u64 = 1 << 32;

/// What `OffloadDb::stats` reports: bytes and counts since opening, and the state now.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct OffloadStats {
    pub band_size: u64,
    pub offload: bool,
    pub disk_capacity: u64,
    pub nvram_capacity: u64,
    pub puts: u64,
    pub deletes: u64,
    /// Keys and values written by the user.
    pub user_bytes: u64,
    /// Of them, written while offloading (to the NVRAM device).
    pub offloaded_user_bytes: u64,
    pub offloaded_writes: u64,
    /// Writes that found the NVRAM device full during a compaction and went to the disk.
    pub nvram_full_writes: u64,
    /// Writes that slept `offload_delay` first (the NVRAM device crowded).
    pub delayed_writes: u64,
    /// Bytes appended to the disk's unsorted bands and to the NVRAM device.
    pub disk_log_bytes: u64,
    pub nvram_bytes_written: u64,
    pub compaction_bytes_read: u64,
    pub compaction_bytes_written: u64,
    pub compactions: u64,
    /// Of them, run by the periodic checker.
    pub aggressive_compactions: u64,
    /// Seconds a compaction was in progress (offloading was active this long, if enabled).
    pub compaction_seconds: f64,
    pub open_seconds: f64,
    /// Keys and values in unsorted units (level 0 and the open unit) now, and of them on NVRAM.
    pub unsorted_user_bytes: u64,
    pub unsorted_nvram_user_bytes: u64,
    pub units: u64,
    pub nvram_units: u64,
    /// Tables and bytes of levels 1, 2 and 3.
    pub levels: Vec<(u64, u64)>,
    /// Simulated busy time of each device, where it is timed.
    pub disk_busy_ns: Option<u64>,
    pub nvram_busy_ns: Option<u64>,
}

/// The tables and units readers see.
pub(crate) struct Shape {
    /// Level 0, oldest first.
    pub units: Vec<Arc<Unit>>,
    /// Levels 1 to 3 (level 0 of the version is unused).
    pub version: Arc<Version>,
}

/// The unit writes go to.
pub(crate) struct OpenUnit {
    pub on_nvram: bool,
    pub band: u64,
    pub log: LogWriter,
    pub index: UnitIndex,
    pub first_sequence: Option<u64>,
    pub last_sequence: u64,
    pub user_bytes: u64,
}

pub(crate) struct Writer {
    pub open: OpenUnit,
    /// An empty disk band the metadata record names, kept for the next disk unit.
    pub parked: Option<u64>,
    pub last_sequence: u64,
}

pub(crate) struct Current {
    pub mem: Arc<MemTable>,
    pub shape: Arc<Shape>,
    pub visible_sequence: u64,
    pub standing: Standing,
    pub pointers: Vec<(u32, Vec<u8>)>,
}

#[derive(Default)]
pub(crate) struct Counters {
    pub offloaded_user_bytes: AtomicU64,
    pub offloaded_writes: AtomicU64,
    pub nvram_full_writes: AtomicU64,
    pub delayed_writes: AtomicU64,
    pub compactions: AtomicU64,
    pub aggressive: AtomicU64,
    pub compaction_ns: AtomicU64,
}

pub(crate) struct Inner {
    pub disk: Arc<Env>,
    pub nvram: Option<Arc<Env>>,
    pub options: OffloadOptions,
    pub geometry: Geometry,
    pub limits: Limits,
    pub table_shape: TableShape,
    /// `work` is signalled when a unit is sealed (or the store closes), `progress` when a
    /// compaction step ends.
    pub guarded: Guarded<Writer, Current>,
    pub next_table_id: AtomicU64,
    /// A compaction is in progress: writes go to the NVRAM device.
    pub compacting: AtomicBool,
    pub counters: Counters,
    pub opened: Instant,
}

impl Inner {
    fn env_of(&self, on_nvram: bool) -> &Arc<Env> {
        match (&self.nvram, on_nvram) {
            (Some(n), true) => n,
            _ => &self.disk,
        }
    }

    fn snapshot(&self) -> (Arc<MemTable>, Arc<Shape>, u64) {
        let c = lock(&self.guarded.current);
        (c.mem.clone(), c.shape.clone(), c.visible_sequence)
    }
}

impl CurrentState for Current {
    fn standing(&mut self) -> &mut Standing {
        &mut self.standing
    }
}

/// An open write-offloading store. Dropping it closes it.
pub struct OffloadDb {
    inner: Arc<Inner>,
    life: Lifecycle,
}

/// The device file of a file-backed offloading store in `dir`.
pub fn device_path(dir: &Path) -> PathBuf {
    crate::files::StoreKind::Offloading.device_path(dir)
}

impl OffloadDb {
    /// Opens the store in folder `dir`: the disk `dir/offload-bands` and the NVRAM device
    /// `dir/nvram` (or `nvram_path`), both sparse files, or creates them where the folder holds
    /// no store (`Options::create_if_missing`). The NVRAM device is opened even when not
    /// offloading (`offload` false), so the writes offloaded to it before are recovered; only
    /// new writes stay on the disk.
    pub fn open(dir: &Path, options: OffloadOptions) -> Result<OffloadDb> {
        let nvram_path = options.nvram_path.clone().unwrap_or_else(|| dir.join("nvram"));
        crate::files::check_kind(dir, crate::files::StoreKind::Offloading)?;
        crate::files::check_present(dir, &[device_path(dir), nvram_path.clone()], options.base.create_if_missing)?;
        std::fs::create_dir_all(dir).map_err(|source| Error::Io {
            path: dir.display().to_string(),
            op: "create folder",
            source,
        })?;
        let lock = LockFile::acquire(dir)?;
        let store = dir.display().to_string();
        let base = Options { compaction: Some(crate::options::Scheme::Loc), ..options.base.clone() };
        let disk = crate::recovery::open_file_device(&device_path(dir), &store, &base)?;
        let band = disk.geometry().zone_size;
        let nvram_options = Options {
            band_size: Some(band),
            capacity: Some(options.nvram_capacity.unwrap_or(DEFAULT_NVRAM_BANDS * band)),
            ..Options::default()
        };
        let nvram: Box<dyn BandDevice> =
            Box::new(Shared::new(open::open_nvram_file(&nvram_path, &store, &nvram_options)?));
        let mut db = Self::open_devices(Box::new(Shared::new(disk)), Some(nvram), store, options)?;
        db.life.hold(lock);
        Ok(db)
    }

    /// Opens the store on any disk device and, when offloading, NVRAM device (a zoned device
    /// of the disk's band size with no conventional zones).
    pub fn open_devices(
        disk: Box<dyn BandDevice>,
        nvram: Option<Box<dyn BandDevice>>,
        store: String,
        options: OffloadOptions,
    ) -> Result<OffloadDb> {
        let inner = Arc::new(open::recover(disk, nvram, store, options)?);
        let background = inner.clone();
        let life = Lifecycle::start(
            inner.clone(),
            Some(("smrdb-offload-compaction", Box::new(move || background.work_loop()))),
        )?;
        Ok(OffloadDb { inner, life })
    }

    pub fn put(&self, key: &[u8], value: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.put(key, value);
        self.write(&b, self.inner.options.base.sync)
    }

    pub fn delete(&self, key: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete(key);
        self.write(&b, self.inner.options.base.sync)
    }

    /// Applies a batch atomically; with `sync` it is durable when this returns.
    pub fn write(&self, batch: &WriteBatch, sync: bool) -> Result<()> {
        self.life.check_open()?;
        self.inner.write(batch, sync)
    }

    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.life.check_open()?;
        let (mem, shape, snapshot) = self.inner.snapshot();
        let mut found = mem.get(key, snapshot).map(|(f, _)| f);
        for unit in shape.units.iter().rev() {
            if found.is_some() {
                break;
            }
            found = unit.get(key)?;
        }
        if found.is_none() {
            found = shape.version.get(key, snapshot)?;
        }
        Ok(match found {
            Some(Found::Value(v)) => Some(v),
            _ => None,
        })
    }

    /// The pairs with `start <= key < end` in key order, as of now. Unsorted units are read
    /// record by record.
    pub fn scan(&self, start: Option<&[u8]>, end: Option<&[u8]>) -> Result<DbIter> {
        self.life.check_open()?;
        let (mem, shape, snapshot) = self.inner.snapshot();
        let start = start.unwrap_or(b"");
        let mut sources: Vec<Box<dyn Source + Send>> = vec![Box::new(MemSource::new(mem, start))];
        for unit in &shape.units {
            sources.push(Box::new(UnitSource::new(unit.clone(), start, false)?));
        }
        for (_, t) in shape.version.tables() {
            if t.meta.largest.as_slice() >= start && end.is_none_or(|e| t.meta.smallest.as_slice() < e) {
                sources.push(Box::new(TableIter::new(t.clone(), start, ReadPurpose::User)?));
            }
        }
        Ok(DbIter::new(Merge::new(sources), snapshot, end.map(<[u8]>::to_vec)))
    }

    /// The sorted tables as of now, with their levels (1 to 3); the unsorted units of level 0
    /// are in `stats`.
    pub fn tables(&self) -> Vec<(usize, crate::table::TableMeta)> {
        self.inner.snapshot().1.version.tables().map(|(l, t)| (l, t.meta.clone())).collect()
    }

    /// Makes every write so far durable.
    pub fn sync(&self) -> Result<()> {
        self.life.check_open()?;
        let mut w = lock(&self.inner.guarded.writer);
        let on_nvram = w.open.on_nvram;
        w.open.log.sync(self.inner.env_of(on_nvram))
    }

    /// Waits until no size-triggered compaction is due or running.
    pub fn wait_idle(&self) -> Result<()> {
        self.life.check_open()?;
        self.inner.wait_idle()
    }

    pub fn stats(&self) -> OffloadStats {
        self.inner.stats()
    }

    /// Stops compaction, makes every write durable and gives back retired bands.
    pub fn close(mut self) -> Result<()> {
        self.life.close()
    }
}

impl Closing for Inner {
    fn envs(&self) -> Vec<&Env> {
        std::iter::once(&*self.disk).chain(self.nvram.as_deref()).collect()
    }

    fn mark_closing(&self) {
        self.guarded.mark_closing()
    }

    fn sync_log(&self) -> Result<()> {
        self.guarded.sync_log(|w| w.open.log.sync(self.env_of(w.open.on_nvram)))
    }
}

impl Inner {
    fn wait_idle(&self) -> Result<()> {
        let mut c = lock(&self.guarded.current);
        loop {
            if let Some(problem) = &c.standing.background_error {
                return Err(Error::WritesRefused { store: self.disk.store.clone(), problem: problem.clone() });
            }
            if c.standing.closing || (!self.compacting.load(Relaxed) && self.due(&c.shape, &c.pointers).is_none()) {
                return Ok(());
            }
            c = self.guarded.progress.wait_timeout(c, Duration::from_millis(20)).unwrap_or_else(|p| p.into_inner()).0;
        }
    }

    fn stats(&self) -> OffloadStats {
        let (_, shape, _) = self.snapshot();
        let (open_user, open_on_nvram) = {
            let w = lock(&self.guarded.writer);
            (w.open.user_bytes, w.open.on_nvram)
        };
        let d = &self.disk.stats;
        let nv = self.nvram.as_ref().map(|n| &n.stats);
        let sum = |f: fn(&crate::env::Stats) -> u64| f(d) + nv.map_or(0, f);
        let unit_bytes =
            |nvram: bool| shape.units.iter().filter(|u| u.on_nvram == nvram).map(|u| u.user_bytes).sum::<u64>();
        OffloadStats {
            band_size: self.geometry.band_size,
            offload: self.options.offload && self.nvram.is_some(),
            disk_capacity: self.geometry.zones * self.geometry.band_size,
            nvram_capacity: self.nvram.as_ref().map_or(0, |n| n.device.zone_count() * n.band_size),
            puts: d.puts.load(Relaxed),
            deletes: d.deletes.load(Relaxed),
            user_bytes: d.user_bytes.load(Relaxed),
            offloaded_user_bytes: self.counters.offloaded_user_bytes.load(Relaxed),
            offloaded_writes: self.counters.offloaded_writes.load(Relaxed),
            nvram_full_writes: self.counters.nvram_full_writes.load(Relaxed),
            delayed_writes: self.counters.delayed_writes.load(Relaxed),
            disk_log_bytes: d.log_bytes_written.load(Relaxed),
            nvram_bytes_written: nv.map_or(0, |n| n.log_bytes_written.load(Relaxed)),
            compaction_bytes_read: sum(|s| s.compaction_bytes_read.load(Relaxed)),
            compaction_bytes_written: d.compaction_bytes_written.load(Relaxed),
            compactions: self.counters.compactions.load(Relaxed),
            aggressive_compactions: self.counters.aggressive.load(Relaxed),
            compaction_seconds: self.counters.compaction_ns.load(Relaxed) as f64 / 1e9,
            open_seconds: self.opened.elapsed().as_secs_f64(),
            unsorted_user_bytes: unit_bytes(false) + unit_bytes(true) + open_user,
            unsorted_nvram_user_bytes: unit_bytes(true) + if open_on_nvram { open_user } else { 0 },
            units: shape.units.len() as u64,
            nvram_units: shape.units.iter().filter(|u| u.on_nvram).count() as u64,
            levels: (1..LEVELS).map(|l| (shape.version.levels[l].len() as u64, shape.version.level_bytes(l))).collect(),
            disk_busy_ns: self.disk.device.activity().map(|a| a.busy_ns),
            nvram_busy_ns: self.nvram.as_ref().and_then(|n| n.device.activity()).map(|a| a.busy_ns),
        }
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
