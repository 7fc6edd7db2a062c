//! The store: its public operations and the write path (§3.2.2). A write is validated, framed
//! into the log (synced if asked), then inserted into the memtable and published by its
//! sequence number; a memtable that has reached a band's worth of table becomes immutable and
//! a new one, with a new log band, takes the writes. Gets and scans read a snapshot: the
//! memtables and the version current when they start, and only sequence numbers published then.
//!
//! Locks, always taken in this order: `writer` (one writer at a time: log, sequence numbers,
//! memtable switches), `meta` (the metadata record, written one at a time), `current` (what a
//! reader snapshots; held only for moments), and the leaf `pointers`; `stepping` (one flush or
//! compaction at a time) comes after `writer` and before `meta`. The background thread never
//! takes `writer`.

use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;
use std::time::{Duration, Instant};

use smr_media::Medium;
use smr_zoned::{DiskActivity, MemZonedDevice, TimedZonedDevice};

use crate::batch::WriteBatch;
use crate::device::{BandDevice, Shared};
use crate::env::{Env, Stats};
use crate::error::{Error, Result};
use crate::iter::{DbIter, MemSource, Merge};
use crate::key::Found;
use crate::lifecycle::{Closing, Lifecycle, ThreadBody};
use crate::lock::LockFile;
use crate::log::writer::LogWriter;
use crate::log::{FRAME_HEADER, MAX_PADDING};
use crate::memtable::MemTable;
use crate::options::{Limits, Options};
use crate::source::Source;
use crate::state::{Inner, Writer};
use crate::table::format::{estimated_entry_bytes, FOOTER_LEN};
use crate::table::iter::LazyTableIter;
use crate::util::mutex::lock;
use crate::version::Version;

/// An open store. Dropping it closes it (errors at close are then lost; call `close` to see
/// them).
pub struct Db {
    inner: Arc<Inner>,
    life: Lifecycle,
}

/// What `Db::stats` reports (serialised by field name for the Python binding).
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct DbStats {
    pub scheme: &'static str,
    pub band_size: u64,
    pub bands: u64,
    pub free_bands: u64,
    /// Per level: tables (bands) and their bytes.
    pub levels: Vec<(u64, u64)>,
    pub memtable_bytes: u64,
    pub last_sequence: u64,
    pub puts: u64,
    pub deletes: u64,
    pub user_bytes: u64,
    pub log_bytes_written: u64,
    pub log_syncs: u64,
    pub flush_bytes_written: u64,
    pub compaction_bytes_written: u64,
    pub compaction_bytes_read: u64,
    pub metadata_bytes_written: u64,
    pub device_bytes_written: u64,
    pub read_bytes: u64,
    /// Gets that reached the tables, the tables whose key range held the key (Bloom filter
    /// consulted), and of those the ones whose filter passed it (a data block read).
    pub table_gets: u64,
    pub get_tables_searched: u64,
    pub get_blocks_read: u64,
    /// Of those blocks, the ones the block cache held.
    pub get_block_cache_hits: u64,
    pub flushes: u64,
    pub compactions: u64,
    pub moves: u64,
    pub slowdowns: u64,
    pub stall_micros: u64,
    pub bands_reset: u64,
    /// Bytes of live tables plus the log bands' written bytes.
    pub live_bytes: u64,
    /// Bytes the device takes on this machine (file device: allocated blocks).
    pub allocated_bytes: Option<u64>,
    /// Simulated disk activity (timed devices only).
    pub disk: Option<DiskActivity>,
}

impl DbStats {
    /// Bytes written to the device per byte of keys and values written by the user.
    pub fn write_amplification(&self) -> f64 {
        self.device_bytes_written as f64 / self.user_bytes.max(1) as f64
    }
}

impl Db {
    /// Opens the store in folder `dir`, a file-backed zoned device `dir/bands` and a lock file
    /// `dir/LOCK`, or creates one where the folder holds none (`Options::create_if_missing`).
    pub fn open(dir: &Path, options: Options) -> Result<Db> {
        Self::open_file(dir, options, None)
    }

    /// As `open`, with every device command also timed on `disk` (simulated disk time).
    pub fn open_timed(dir: &Path, options: Options, disk: Box<dyn Medium>) -> Result<Db> {
        Self::open_file(dir, options, Some(disk))
    }

    fn open_file(dir: &Path, options: Options, disk: Option<Box<dyn Medium>>) -> Result<Db> {
        crate::files::check_kind(dir, crate::files::StoreKind::Plain)?;
        crate::files::check_present(dir, &[device_path(dir)], options.create_if_missing)?;
        std::fs::create_dir_all(dir).map_err(|source| Error::Io {
            path: dir.display().to_string(),
            op: "create folder",
            source,
        })?;
        let lock = LockFile::acquire(dir)?;
        let store = dir.display().to_string();
        let file = crate::recovery::open_file_device(&device_path(dir), &store, &options)?;
        let device: Box<dyn BandDevice> = match disk {
            None => Box::new(Shared::new(file)),
            Some(disk) => Box::new(Shared::new(
                TimedZonedDevice::new(file, disk).map_err(|source| Error::Device { store: store.clone(), source })?,
            )),
        };
        let mut db = Self::open_device(device, store, options)?;
        db.life.hold(lock);
        Ok(db)
    }

    /// A store held in memory (for tests and experiments); optionally timed on `disk`.
    pub fn open_in_memory(options: Options, disk: Option<Box<dyn Medium>>) -> Result<Db> {
        let g = options.new_geometry()?;
        let mem = MemZonedDevice::new(g.band_size, g.zones, crate::options::METADATA_ZONES)
            .map_err(|e| Error::InvalidOption { option: "capacity", problem: e.to_string() })?;
        let store = "the memory store".to_string();
        let device: Box<dyn BandDevice> = match disk {
            None => Box::new(Shared::new(mem)),
            Some(disk) => Box::new(Shared::new(
                TimedZonedDevice::new(mem, disk).map_err(|source| Error::Device { store: store.clone(), source })?,
            )),
        };
        Self::open_device(device, store, options)
    }

    /// Opens the store on any device (recovering what it holds).
    pub fn open_device(device: Box<dyn BandDevice>, store: String, options: Options) -> Result<Db> {
        let inner = Arc::new(crate::recovery::recover(device, store, options)?);
        let background = inner.clone();
        let thread = inner
            .options
            .background
            .then(|| ("smrdb-compaction", Box::new(move || background.work_loop()) as ThreadBody));
        let life = Lifecycle::start(inner.clone(), thread)?;
        Ok(Db { inner, life })
    }

    pub fn store(&self) -> &str {
        &self.inner.env.store
    }

    pub fn options(&self) -> &Options {
        &self.inner.options
    }

    pub fn put(&self, key: &[u8], value: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.put(key, value);
        self.write(&b, self.inner.options.sync)
    }

    pub fn delete(&self, key: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.delete(key);
        self.write(&b, self.inner.options.sync)
    }

    /// Applies a batch atomically; with `sync` it is durable when this returns.
    pub fn write(&self, batch: &WriteBatch, sync: bool) -> Result<()> {
        self.inner.write(batch, sync)
    }

    pub fn get(&self, key: &[u8]) -> Result<Option<Vec<u8>>> {
        self.life.check_open()?;
        let (mem, imm, version, snapshot) = self.inner.snapshot();
        let found = match mem.get(key, snapshot) {
            Some((f, _)) => Some(f),
            None => match imm.as_ref().and_then(|m| m.get(key, snapshot)) {
                Some((f, _)) => Some(f),
                None => {
                    Stats::add(&self.inner.env.stats.table_gets, 1);
                    version.get(key, snapshot)?
                }
            },
        };
        Ok(match found {
            Some(Found::Value(v)) => Some(v),
            _ => None,
        })
    }

    /// The pairs with `start <= key < end` (unbounded where `None`), in key order, as of now.
    pub fn scan(&self, start: Option<&[u8]>, end: Option<&[u8]>) -> Result<DbIter> {
        self.life.check_open()?;
        let (mem, imm, version, snapshot) = self.inner.snapshot();
        let start = start.unwrap_or(b"");
        let mut sources: Vec<Box<dyn Source + Send>> = vec![Box::new(MemSource::new(mem, start))];
        if let Some(imm) = imm {
            sources.push(Box::new(MemSource::new(imm, start)));
        }
        for (_, t) in version.tables() {
            let reaches = t.meta.largest.as_slice() >= start && end.is_none_or(|e| t.meta.smallest.as_slice() < e);
            if reaches {
                sources.push(Box::new(LazyTableIter::new(t.clone(), start)));
            }
        }
        Ok(DbIter::new(Merge::lazy(sources)?, snapshot, end.map(|e| e.to_vec())))
    }

    /// Flushes the memtable and merges every table into one sorted run without overlapping
    /// bands (SOC: level 1; LOC: the shallowest level that holds it all), dropping overwritten
    /// versions and tombstones.
    pub fn compact(&self) -> Result<()> {
        self.life.check_open()?;
        self.inner.compact_all()
    }

    /// Makes every write so far durable.
    pub fn sync(&self) -> Result<()> {
        self.life.check_open()?;
        self.inner.refuse_sync_without_log()?;
        let mut w = lock(&self.inner.guarded.writer);
        w.log.sync(&self.inner.env)
    }

    /// Waits until no background work is due (no immutable memtable, no compaction needed).
    pub fn wait_idle(&self) -> Result<()> {
        self.life.check_open()?;
        self.inner.wait_idle()
    }

    pub fn stats(&self) -> DbStats {
        self.inner.stats()
    }

    /// The tables as of now, with their levels: level 0 oldest first, then deeper levels.
    pub fn tables(&self) -> Vec<(usize, crate::table::TableMeta)> {
        self.inner.snapshot().2.tables().map(|(l, t)| (l, t.meta.clone())).collect()
    }

    /// Stops background work, makes every write durable and gives back retired bands.
    pub fn close(mut self) -> Result<()> {
        self.life.close()
    }
}

impl Closing for Inner {
    fn envs(&self) -> Vec<&Env> {
        vec![&self.env]
    }

    fn mark_closing(&self) {
        self.guarded.mark_closing()
    }

    fn sync_log(&self) -> Result<()> {
        self.guarded.sync_log(|w| w.log.sync(&self.env))
    }
}

impl Inner {
    pub(crate) fn snapshot(&self) -> (Arc<MemTable>, Option<Arc<MemTable>>, Arc<Version>, u64) {
        let c = lock(&self.guarded.current);
        (c.mem.clone(), c.imm.clone(), c.version.clone(), c.visible_sequence)
    }

    /// Table bytes a memtable may reach before it is switched: a band, less the table's tail
    /// and a margin for the estimate's error.
    fn memtable_limit(&self) -> u64 {
        let band = self.geometry.band_size;
        band - FOOTER_LEN - 2 * self.options.block_size as u64 - band / 64
    }

    /// A store that writes no log cannot make a write durable: a sync is refused.
    fn refuse_sync_without_log(&self) -> Result<()> {
        if self.options.write_log {
            return Ok(());
        }
        Err(Error::InvalidOption {
            option: "write_log",
            problem: "a store without a log cannot make writes durable: the sync was refused".into(),
        })
    }

    fn validate(&self, batch: &WriteBatch) -> Result<()> {
        check_batch(&self.limits, self.geometry.band_size, batch)
    }

    fn write(&self, batch: &WriteBatch, sync: bool) -> Result<()> {
        self.validate(batch)?;
        if sync {
            self.refuse_sync_without_log()?;
        }
        if batch.is_empty() {
            return Ok(());
        }
        let mut w = lock(&self.guarded.writer);
        self.guarded.refuse_if_failed(&self.env.store)?;
        self.throttle()?;
        let batch_bytes: u64 =
            batch.entries().map(|(_, k, v)| estimated_entry_bytes(k.len(), v.len(), self.options.block_size)).sum();
        let mem = lock(&self.guarded.current).mem.clone();
        let full = mem.table_bytes() + batch_bytes > self.memtable_limit() && !mem.is_empty();
        if full || !w.log.fits(batch.encoded_len(), self.geometry.band_size) {
            self.switch_memtable(&mut w)?;
        }
        let first = w.last_sequence + 1;
        let payload = batch.encode(first);
        let logged = if self.options.write_log {
            w.log.add(&self.env, &payload).and_then(|()| if sync { w.log.sync(&self.env) } else { Ok(()) })
        } else {
            Ok(())
        };
        if let Err(e) = logged {
            return Err(self.guarded.log_failed("a log write", e));
        }
        let mem = lock(&self.guarded.current).mem.clone();
        mem.insert_batch(first, batch, &self.env.stats);
        w.last_sequence = first + batch.len() as u64 - 1;
        lock(&self.guarded.current).visible_sequence = w.last_sequence;
        drop(w);
        if !self.options.background {
            self.run_pending_work()?;
        }
        Ok(())
    }

    /// Slows writes down while level 0 holds many bands, and stops them while it holds too
    /// many (background mode; inline mode compacts after each write instead).
    fn throttle(&self) -> Result<()> {
        if !self.options.background {
            return Ok(());
        }
        let l0 = lock(&self.guarded.current).version.levels[0].len();
        if l0 >= self.options.l0_slowdown_trigger && l0 < self.options.l0_stop_trigger {
            Stats::add(&self.env.stats.slowdowns, 1);
            std::thread::sleep(Duration::from_micros(self.options.slowdown_micros));
            Stats::add(&self.env.stats.stall_micros, self.options.slowdown_micros);
        }
        let started = Instant::now();
        let mut c = lock(&self.guarded.current);
        while c.version.levels[0].len() >= self.options.l0_stop_trigger && !c.standing.stopped() {
            c = self.guarded.progress.wait(c).unwrap_or_else(|p| p.into_inner());
        }
        Stats::add(&self.env.stats.stall_micros, started.elapsed().as_micros() as u64);
        Ok(())
    }

    /// Makes the memtable immutable and starts a new one with a new log band. Waits for (or,
    /// inline, does) the flush of the previous immutable memtable first.
    fn switch_memtable(&self, w: &mut Writer) -> Result<()> {
        if self.options.background {
            let mut c = lock(&self.guarded.current);
            while c.imm.is_some() && !c.standing.stopped() {
                c = self.guarded.progress.wait(c).unwrap_or_else(|p| p.into_inner());
            }
            drop(c);
            self.guarded.refuse_if_failed(&self.env.store)?;
        } else {
            self.run_pending_work()?;
        }
        // Everything in the old log must be durable before a synced write lands in the new one.
        w.log.sync(&self.env)?;
        let band = self.env.allocate("the log")?;
        {
            let mut meta = lock(&self.guarded.meta);
            meta.add_log_band(&self.env, band, self.next_table_id.load(Relaxed))?;
            let mut c = lock(&self.guarded.current);
            let fresh = Arc::new(MemTable::new(self.options.block_size));
            c.imm = Some(std::mem::replace(&mut c.mem, fresh));
            c.imm_last_sequence = w.last_sequence;
        }
        w.log = LogWriter::new(band, self.limits.log_buffer);
        self.guarded.work.notify_all();
        Ok(())
    }

    /// Switches a non-empty memtable and waits for its flush, then merges everything.
    fn compact_all(&self) -> Result<()> {
        {
            let mut w = lock(&self.guarded.writer);
            self.guarded.refuse_if_failed(&self.env.store)?;
            if !lock(&self.guarded.current).mem.is_empty() {
                self.switch_memtable(&mut w)?;
            }
        }
        if !self.options.background {
            self.run_pending_work()?;
            self.background_step(true)?;
            return self.env.reset_retired_now();
        }
        let mut c = lock(&self.guarded.current);
        c.manual_requested += 1;
        let ticket = c.manual_requested;
        self.guarded.work.notify_all();
        while c.manual_done < ticket && !c.standing.stopped() {
            c = self.guarded.progress.wait(c).unwrap_or_else(|p| p.into_inner());
        }
        match &c.standing.background_error {
            Some(problem) => Err(Error::WritesRefused { store: self.env.store.clone(), problem: problem.clone() }),
            None => Ok(()),
        }
    }

    fn wait_idle(&self) -> Result<()> {
        if !self.options.background {
            return self.run_pending_work();
        }
        let mut c = lock(&self.guarded.current);
        loop {
            if let Some(problem) = &c.standing.background_error {
                return Err(Error::WritesRefused { store: self.env.store.clone(), problem: problem.clone() });
            }
            if c.standing.closing
                || (c.imm.is_none() && c.manual_done == c.manual_requested && self.pick(&c.version).is_none())
            {
                return Ok(());
            }
            c = self.guarded.progress.wait_timeout(c, Duration::from_millis(50)).unwrap_or_else(|p| p.into_inner()).0;
        }
    }

    /// Inline mode: does every due flush and compaction now, in the calling thread.
    fn run_pending_work(&self) -> Result<()> {
        while self.background_step(false)? {}
        self.env.reset_retired_now()
    }

    fn stats(&self) -> DbStats {
        let (mem, imm, version, visible) = self.snapshot();
        let s = &self.env.stats;
        let log_bytes: u64 = lock(&self.guarded.meta)
            .log_bands
            .iter()
            .map(|&b| self.env.device.filled().get(b as usize).copied().unwrap_or(0))
            .sum();
        let levels: Vec<(u64, u64)> =
            version.levels.iter().map(|ts| (ts.len() as u64, ts.iter().map(|t| t.meta.len).sum())).collect();
        DbStats {
            scheme: self.geometry.scheme.name(),
            band_size: self.geometry.band_size,
            bands: self.geometry.zones - crate::options::METADATA_ZONES,
            free_bands: self.env.free_bands(),
            live_bytes: levels.iter().map(|l| l.1).sum::<u64>() + log_bytes,
            levels,
            memtable_bytes: mem.table_bytes() + imm.map_or(0, |m| m.table_bytes()),
            last_sequence: visible,
            puts: s.puts.load(Relaxed),
            deletes: s.deletes.load(Relaxed),
            user_bytes: s.user_bytes.load(Relaxed),
            log_bytes_written: s.log_bytes_written.load(Relaxed),
            log_syncs: s.log_syncs.load(Relaxed),
            flush_bytes_written: s.flush_bytes_written.load(Relaxed),
            compaction_bytes_written: s.compaction_bytes_written.load(Relaxed),
            compaction_bytes_read: s.compaction_bytes_read.load(Relaxed),
            metadata_bytes_written: s.metadata_bytes_written.load(Relaxed),
            device_bytes_written: s.device_bytes_written(),
            read_bytes: s.read_bytes.load(Relaxed),
            table_gets: s.table_gets.load(Relaxed),
            get_tables_searched: s.get_tables_searched.load(Relaxed),
            get_blocks_read: s.get_blocks_read.load(Relaxed),
            get_block_cache_hits: s.get_block_cache_hits.load(Relaxed),
            flushes: s.flushes.load(Relaxed),
            compactions: s.compactions.load(Relaxed),
            moves: s.moves.load(Relaxed),
            slowdowns: s.slowdowns.load(Relaxed),
            stall_micros: s.stall_micros.load(Relaxed),
            bands_reset: s.bands_reset.load(Relaxed),
            allocated_bytes: self.env.device.allocated_bytes(),
            disk: self.env.device.activity(),
        }
    }
}

/// Refuses a batch with a key or value over the limits, or too large for one log band.
pub(crate) fn check_batch(limits: &Limits, band_size: u64, batch: &WriteBatch) -> Result<()> {
    for (_, key, value) in batch.entries() {
        if key.len() > limits.max_key_len {
            return Err(Error::KeyTooLarge { len: key.len(), max: limits.max_key_len });
        }
        if value.len() > limits.max_value_len {
            return Err(Error::ValueTooLarge { len: value.len(), max: limits.max_value_len });
        }
    }
    let max = band_size - FRAME_HEADER - MAX_PADDING;
    if batch.encoded_len() > max {
        return Err(Error::BatchTooLarge { len: batch.encoded_len(), max });
    }
    Ok(())
}

/// The device file of a file-backed store in `dir`.
pub fn device_path(dir: &Path) -> PathBuf {
    crate::files::StoreKind::Plain.device_path(dir)
}

#[cfg(test)]
#[path = "db_tests.rs"]
pub(crate) mod tests;
