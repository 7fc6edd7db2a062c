//! The write path of the offloading store: a write goes, log-framed, to the open unit, on the
//! NVRAM device while a compaction is in progress and on the disk otherwise; the unit is sealed
//! into level 0 when it is full or when the device writes should go to changes.

use std::sync::atomic::Ordering::{Acquire, Relaxed};
use std::sync::Arc;

use super::unit::{index_record, Unit, UnitIndex};
use super::{Inner, OpenUnit, Shape, Writer, CROWDED_SHARE};
use crate::batch::WriteBatch;
use crate::db::check_batch;
use crate::env::Stats;
use crate::error::Result;
use crate::log::writer::LogWriter;
use crate::memtable::MemTable;
use crate::util::mutex::lock;

impl Inner {
    pub(crate) fn write(&self, batch: &WriteBatch, sync: bool) -> Result<()> {
        check_batch(&self.limits, self.geometry.band_size, batch)?;
        if batch.is_empty() {
            return Ok(());
        }
        if !self.options.offload_delay.is_zero() && self.nvram_crowded() {
            // Outside the writer's lock, as LevelDB's slowdown sleeps outside its mutex.
            std::thread::sleep(self.options.offload_delay);
            Stats::add(&self.counters.delayed_writes, 1);
        }
        let mut w = lock(&self.guarded.writer);
        self.guarded.refuse_if_failed(&self.disk.store)?;
        let offloading = self.nvram.is_some() && self.options.offload && self.compacting.load(Acquire);
        if w.open.on_nvram != offloading {
            self.switch_unit(&mut w, offloading)?;
        }
        if !w.open.log.fits(batch.encoded_len(), self.geometry.band_size) {
            let same = w.open.on_nvram;
            self.switch_unit(&mut w, same)?;
        }
        let first = w.last_sequence + 1;
        let payload = batch.encode(first);
        let offset = w.open.log.position();
        let env = self.env_of(w.open.on_nvram).clone();
        let logged = w.open.log.add(&env, &payload).and_then(|()| if sync { w.open.log.sync(&env) } else { Ok(()) });
        if let Err(e) = logged {
            return Err(self.guarded.log_failed("a log write", e));
        }
        index_record(&mut w.open.index, offset, first, batch, payload.len());
        let mem = lock(&self.guarded.current).mem.clone();
        let user_bytes = mem.insert_batch(first, batch, &self.disk.stats);
        if w.open.on_nvram {
            Stats::add(&self.counters.offloaded_user_bytes, user_bytes);
            Stats::add(&self.counters.offloaded_writes, 1);
        }
        let open = &mut w.open;
        open.first_sequence.get_or_insert(first);
        open.last_sequence = first + batch.len() as u64 - 1;
        open.user_bytes += user_bytes;
        w.last_sequence = first + batch.len() as u64 - 1;
        lock(&self.guarded.current).visible_sequence = w.last_sequence;
        Ok(())
    }

    /// Whether more than `CROWDED_SHARE` of the NVRAM device's bands are in use.
    fn nvram_crowded(&self) -> bool {
        self.nvram.as_ref().is_some_and(|n| (n.bands() - n.free_bands()) as f64 > CROWDED_SHARE * n.bands() as f64)
    }

    /// Seals the open unit (if it holds records) and opens one on the NVRAM device if
    /// `to_nvram` (and it has room), else on the disk. A write bound for a full NVRAM device
    /// while the open unit is on the disk keeps that unit: sealing it for each such write took a
    /// band a write, until the disk was full.
    fn switch_unit(&self, w: &mut Writer, to_nvram: bool) -> Result<()> {
        let next = if to_nvram { self.nvram_band() } else { None };
        let next = match next {
            Some(band) => (true, band),
            None => {
                if to_nvram {
                    Stats::add(&self.counters.nvram_full_writes, 1);
                    if !w.open.on_nvram {
                        return Ok(());
                    }
                }
                (false, self.disk_band(w)?)
            }
        };
        let fresh = OpenUnit {
            on_nvram: next.0,
            band: next.1,
            log: LogWriter::new(next.1, self.limits.log_buffer),
            index: UnitIndex::new(),
            first_sequence: None,
            last_sequence: 0,
            user_bytes: 0,
        };
        let old = std::mem::replace(&mut w.open, fresh);
        self.seal(w, old)
    }

    /// An empty band of the NVRAM device, if there is one.
    fn nvram_band(&self) -> Option<u64> {
        self.nvram.as_ref().and_then(|n| n.allocate("offloaded writes").ok())
    }

    /// An empty disk band named by the metadata record: the parked one, or a new one.
    fn disk_band(&self, w: &mut Writer) -> Result<u64> {
        if let Some(band) = w.parked.take() {
            return Ok(band);
        }
        let band = self.disk.allocate("an unsorted band")?;
        lock(&self.guarded.meta).add_log_band(&self.disk, band, self.next_table_id.load(Relaxed))?;
        Ok(band)
    }

    /// Makes `old` durable and a level 0 unit (or, if empty, keeps its band for later).
    fn seal(&self, w: &mut Writer, mut old: OpenUnit) -> Result<()> {
        let env = self.env_of(old.on_nvram).clone();
        let Some(first) = old.first_sequence else {
            if old.on_nvram {
                env.retire(old.band);
            } else {
                // The open disk unit is the only one that can be empty, and the next disk unit
                // takes the parked band: there is never a second one to park.
                debug_assert!(w.parked.is_none(), "one empty disk band at a time");
                w.parked = Some(old.band);
            }
            return Ok(());
        };
        // Everything in the sealed unit is durable before a synced write lands in the next.
        if let Err(e) = old.log.sync(&env) {
            return Err(self.guarded.log_failed("sealing a unit", e));
        }
        let unit = Arc::new(Unit::new(
            env,
            old.band,
            old.on_nvram,
            std::mem::take(&mut old.index),
            old.log.position(),
            first,
            old.last_sequence,
            old.user_bytes,
        ));
        {
            let mut c = lock(&self.guarded.current);
            let mut units = c.shape.units.clone();
            units.push(unit);
            c.shape = Arc::new(Shape { units, version: c.shape.version.clone() });
            c.mem = Arc::new(MemTable::new(self.options.base.block_size));
        }
        self.guarded.work.notify_all();
        Ok(())
    }
}
