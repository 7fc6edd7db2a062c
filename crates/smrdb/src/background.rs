//! Background work: flushing the immutable memtable into level 0 tables, and compactions
//! (the scheme's choice, or a manual full compaction). One step at a time, either in the
//! store's background thread or, with `background: false`, in the writing thread.
//!
//! Every step ends the same way: the new tables are synced, then a metadata record naming
//! them (and no longer naming what they replace) is written and synced, then the new version
//! is installed for readers, and only then are the replaced tables marked obsolete, so their
//! bands are reset once no reader holds them. A crash at any point leaves either the old
//! record in force (the new bands are unreferenced and reset at the next open) or the new one.

use std::sync::atomic::Ordering::Relaxed;
use std::sync::Arc;

use crate::compaction::{self, loc, soc, Compaction};
use crate::env::Stats;
use crate::error::Result;
use crate::manifest::Manifest;
use crate::memtable::MemTable;
use crate::options::Scheme;
use crate::state::Inner;
use crate::table::{Table, TableBuilder, TableMeta};
use crate::util::mutex::lock;
use crate::version::Version;

impl Inner {
    /// The background thread: waits for work, does it a step at a time, and stops at close.
    /// After a failure it records the error (writes are refused from then on) and does nothing
    /// more, so a full device is not retried in a loop.
    pub(crate) fn work_loop(&self) {
        loop {
            {
                let mut c = lock(&self.guarded.current);
                loop {
                    if c.standing.stopped() {
                        return;
                    }
                    let manual = c.manual_done < c.manual_requested;
                    if c.imm.is_some() || manual || self.pick(&c.version).is_some() {
                        break;
                    }
                    c = self.guarded.work.wait(c).unwrap_or_else(|p| p.into_inner());
                }
            }
            let manual = {
                let c = lock(&self.guarded.current);
                c.imm.is_none() && c.manual_done < c.manual_requested
            };
            // Bands the step left without readers are reset at once, so the device (a sparse
            // file) gives their space back.
            let outcome = self.background_step(manual).and_then(|did| self.env.reset_retired_now().map(|()| did));
            match outcome {
                Err(e) => self.guarded.background_failed("a background flush or compaction", &e),
                Ok(_) if manual => {
                    let mut c = lock(&self.guarded.current);
                    c.manual_done = c.manual_requested;
                }
                Ok(_) => {}
            }
            self.guarded.progress.notify_all();
        }
    }

    /// The compaction the scheme wants for `version`, if any.
    pub(crate) fn pick(&self, version: &Version) -> Option<Compaction> {
        let pointers = lock(&self.pointers).clone();
        match self.geometry.scheme {
            Scheme::Loc => loc::pick(version, &self.options, self.geometry.band_size, &pointers),
            Scheme::Soc => soc::pick(version, &self.options),
        }
    }

    /// Does one step: a flush if a memtable is immutable, else the manual compaction if
    /// `manual`, else the compaction the scheme picks. Returns whether there was work.
    pub(crate) fn background_step(&self, manual: bool) -> Result<bool> {
        let _one_at_a_time = lock(&self.stepping);
        let (imm, version) = {
            let c = lock(&self.guarded.current);
            (c.imm.clone(), c.version.clone())
        };
        if let Some(imm) = imm {
            self.flush(&imm)?;
            return Ok(true);
        }
        let chosen = if manual { compaction::full(&version, self.manual_level(&version)) } else { self.pick(&version) };
        match chosen {
            Some(c) => {
                self.compact(c, &version)?;
                Ok(true)
            }
            None => Ok(false),
        }
    }

    /// Where a manual compaction puts the store: SOC level 1; LOC the shallowest level >= 1
    /// whose size threshold holds everything.
    fn manual_level(&self, version: &Version) -> usize {
        if self.geometry.scheme == Scheme::Soc {
            return 1;
        }
        let total: u64 = (0..version.levels.len()).map(|l| version.level_bytes(l)).sum();
        (1..version.levels.len())
            .find(|&l| loc::level_limit(&self.options, self.geometry.band_size, l) >= total)
            .unwrap_or(version.levels.len() - 1)
    }

    fn next_id(&self) -> u64 {
        self.next_table_id.fetch_add(1, Relaxed)
    }

    /// Writes a memtable's entries as tables in fresh bands (a band each, as many as needed).
    pub(crate) fn build_tables(&self, mem: &MemTable) -> Result<Vec<TableMeta>> {
        let env = &*self.env;
        let mut outputs = Vec::new();
        let mut builder: Option<TableBuilder> = None;
        let result = mem.for_each(|key, tag, value| {
            if builder.as_ref().is_some_and(|b| !b.fits(key.len(), value.len())) {
                outputs.push(builder.take().expect("checked just above").finish()?);
            }
            if builder.is_none() {
                builder = Some(TableBuilder::new(
                    env,
                    &env.stats.flush_bytes_written,
                    self.shape,
                    self.next_id(),
                    env.allocate("a flush")?,
                ));
            }
            builder.as_mut().expect("made just above").add(key, tag, value)
        });
        let result = result.and_then(|()| match builder.take() {
            Some(b) => b.finish().map(|m| outputs.push(m)),
            None => Ok(()),
        });
        if let Err(e) = result {
            for band in outputs.iter().map(|m| m.band).chain(builder.map(|b| b.band())) {
                env.retire(band);
            }
            return Err(e);
        }
        Ok(outputs)
    }

    /// Opens freshly written tables and makes them durable; on error their bands are retired.
    fn open_new_tables(&self, metas: Vec<TableMeta>) -> Result<Vec<Arc<Table>>> {
        let bands: Vec<u64> = metas.iter().map(|m| m.band).collect();
        let opened = self.env.sync().and_then(|()| {
            metas.into_iter().map(|m| Table::open(self.env.clone(), m).map(Arc::new)).collect::<Result<Vec<_>>>()
        });
        if opened.is_err() {
            bands.into_iter().for_each(|b| self.env.retire(b));
        }
        opened
    }

    /// Writes the next metadata record for `version` (changing the log bands and compaction
    /// pointers with `edit`) and installs `version` for readers.
    fn install(&self, version: Version, edit: impl FnOnce(&mut Manifest)) -> Result<()> {
        let mut meta = lock(&self.guarded.meta);
        let mut next = meta.clone();
        next.number += 1;
        next.next_table_id = self.next_table_id.load(Relaxed);
        next.tables = version.tables().map(|(l, t)| (l as u32, t.meta.clone())).collect();
        next.last_sequence =
            next.last_sequence.max(version.tables().map(|(_, t)| t.meta.max_sequence).max().unwrap_or(0));
        edit(&mut next);
        next.write(&self.env)?;
        lock(&self.pointers).clone_from(&next.compact_pointers);
        *meta = next;
        lock(&self.guarded.current).version = Arc::new(version);
        Ok(())
    }

    fn flush(&self, imm: &Arc<MemTable>) -> Result<()> {
        let metas = self.build_tables(imm)?;
        let tables = self.open_new_tables(metas)?;
        let version = lock(&self.guarded.current).version.apply(&[], tables.into_iter().map(|t| (0, t)).collect());
        let imm_last = lock(&self.guarded.current).imm_last_sequence;
        let mut freed_log = None;
        self.install(version, |m| {
            // The oldest log band belonged to this memtable.
            if !m.log_bands.is_empty() {
                freed_log = Some(m.log_bands.remove(0));
            }
            m.last_sequence = m.last_sequence.max(imm_last);
        })?;
        lock(&self.guarded.current).imm = None;
        if let Some(band) = freed_log {
            self.env.retire(band);
        }
        Stats::add(&self.env.stats.flushes, 1);
        Ok(())
    }

    fn compact(&self, c: Compaction, version: &Version) -> Result<()> {
        let removed = c.input_ids();
        let added: Vec<(usize, Arc<Table>)> = if c.is_move {
            c.inputs.iter().map(|t| (c.output_level, t.clone())).collect()
        } else {
            let metas = compaction::run(&self.env, self.shape, &c, version, &mut || self.next_id())?;
            self.open_new_tables(metas)?.into_iter().map(|t| (c.output_level, t)).collect()
        };
        let next = lock(&self.guarded.current).version.apply(&removed, added);
        let pointer = c.pointer.clone();
        self.install(next, |m| {
            if let Some((level, key)) = pointer {
                m.compact_pointers.retain(|(l, _)| *l != level);
                m.compact_pointers.push((level, key));
            }
        })?;
        if c.is_move {
            Stats::add(&self.env.stats.moves, 1);
        } else {
            Stats::add(&self.env.stats.compactions, 1);
            for t in &c.inputs {
                t.mark_obsolete();
            }
        }
        Ok(())
    }
}
