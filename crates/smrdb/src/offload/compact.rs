//! Compaction of the offloading store, LevelDB-style through the buffer levels and aggressive
//! (§5.3): a level over its size is compacted as soon as the background thread sees it, and a
//! periodic checker that finds no size-triggered compaction for a while merges whole buffer
//! levels down. While any compaction runs, `compacting` is set, and writes go to the NVRAM
//! device.
//!
//! - Level 0 (its units' bytes reach `buffer_bands[0]` bands, or it holds four times as many
//!   units): every unit, with the level 1 tables their keys overlap, into level 1.
//! - Level 1 or 2 (more tables than `buffer_bands[1]` or `[2]`; the most over goes first): the
//!   next table round-robin after the level's pointer, with the overlapping tables one level
//!   down; a lone table with nothing below moves down unchanged.
//! - Quiet (no size-triggered compaction for `quiet_interval`): the shallowest non-empty
//!   buffer level, whole, with what it overlaps one level down.

use std::sync::atomic::Ordering::{Relaxed, Release};
use std::sync::Arc;
use std::time::Instant;

use super::unit::{Unit, UnitSource};
use super::{Inner, Shape, LEVELS};
use crate::compaction::{key_span, merge_into_tables, outside_ranges};
use crate::env::Stats;
use crate::error::Result;
use crate::source::Source;
use crate::table::iter::{ReadPurpose, TableIter};
use crate::table::Table;
use crate::util::mutex::lock;

/// One compaction: units and tables in, tables out at `output_level`.
pub(crate) struct Pick {
    units: Vec<Arc<Unit>>,
    tables: Vec<Arc<Table>>,
    output_level: usize,
    /// Only a table's level changes.
    is_move: bool,
    pointer: Option<(u32, Vec<u8>)>,
}

/// The tables of `level` overlapping `[lo, hi]`.
fn overlapping(shape: &Shape, level: usize, lo: &[u8], hi: &[u8]) -> Vec<Arc<Table>> {
    shape.version.levels[level].iter().filter(|t| t.meta.overlaps(lo, hi)).cloned().collect()
}

impl Inner {
    /// Tables a buffer level (1 or 2) may hold.
    fn level_limit(&self, level: usize) -> u64 {
        self.options.buffer_bands[level]
    }

    /// The size-triggered compaction `shape` needs, if any.
    pub(crate) fn due(&self, shape: &Shape, pointers: &[(u32, Vec<u8>)]) -> Option<Pick> {
        let l0_bytes: u64 = shape.units.iter().map(|u| u.bytes).sum();
        let l0_bands = self.options.buffer_bands[0];
        if !shape.units.is_empty()
            && (l0_bytes >= l0_bands.saturating_mul(self.geometry.band_size)
                || shape.units.len() as u64 >= 4 * l0_bands)
        {
            return Some(self.level_zero(shape));
        }
        let (level, _) = (1..LEVELS - 1)
            .map(|l| (l, shape.version.levels[l].len() as f64 / self.level_limit(l) as f64))
            .filter(|&(_, score)| score > 1.0)
            .max_by(|a, b| a.1.total_cmp(&b.1))?;
        let tables = &shape.version.levels[level];
        let pointer = pointers.iter().find(|(l, _)| *l as usize == level).map(|(_, k)| k.as_slice());
        let chosen =
            tables.iter().find(|t| pointer.is_none_or(|p| t.meta.largest.as_slice() > p)).unwrap_or(&tables[0]).clone();
        let below = overlapping(shape, level + 1, &chosen.meta.smallest, &chosen.meta.largest);
        let pointer = Some((level as u32, chosen.meta.largest.clone()));
        let is_move = below.is_empty();
        Some(Pick {
            units: Vec::new(),
            tables: std::iter::once(chosen).chain(below).collect(),
            output_level: level + 1,
            is_move,
            pointer,
        })
    }

    /// Every unit of level 0 with the level 1 tables their keys overlap.
    fn level_zero(&self, shape: &Shape) -> Pick {
        let spans: Vec<(&[u8], &[u8])> = shape.units.iter().filter_map(|u| u.key_span()).collect();
        let tables = match (spans.iter().map(|s| s.0).min(), spans.iter().map(|s| s.1).max()) {
            (Some(lo), Some(hi)) => overlapping(shape, 1, lo, hi),
            _ => Vec::new(),
        };
        Pick { units: shape.units.clone(), tables, output_level: 1, is_move: false, pointer: None }
    }

    /// The shallowest non-empty buffer level, whole, with what it overlaps one level down.
    fn aggressive(&self, shape: &Shape) -> Option<Pick> {
        if !shape.units.is_empty() {
            return Some(self.level_zero(shape));
        }
        let level = (1..LEVELS - 1).find(|&l| !shape.version.levels[l].is_empty())?;
        let tables = &shape.version.levels[level];
        let (lo, hi) = key_span(tables)?;
        let below = overlapping(shape, level + 1, &lo, &hi);
        Some(Pick {
            units: Vec::new(),
            tables: tables.iter().cloned().chain(below).collect(),
            output_level: level + 1,
            is_move: false,
            pointer: None,
        })
    }

    /// The background thread: size-triggered compactions as soon as they are due, aggressive
    /// ones when writes have been quiet; stops at close or after a failure (recorded: writes
    /// are refused from then on).
    pub(crate) fn work_loop(&self) {
        let mut last_triggered = Instant::now();
        loop {
            let (pick, aggressive) = {
                let mut c = lock(&self.guarded.current);
                loop {
                    if c.standing.stopped() {
                        return;
                    }
                    if let Some(p) = self.due(&c.shape, &c.pointers) {
                        break (p, false);
                    }
                    if last_triggered.elapsed() >= self.options.quiet_interval {
                        if let Some(p) = self.aggressive(&c.shape) {
                            break (p, true);
                        }
                    }
                    c = self
                        .guarded
                        .work
                        .wait_timeout(c, self.options.check_interval)
                        .unwrap_or_else(|p| p.into_inner())
                        .0;
                }
            };
            let outcome = self.run(pick, aggressive);
            if !aggressive {
                last_triggered = Instant::now();
            }
            if let Err(e) = outcome {
                self.guarded.background_failed("a background compaction", &e);
            }
            self.guarded.progress.notify_all();
        }
    }

    /// Runs one compaction with `compacting` set (writes are offloaded meanwhile).
    fn run(&self, pick: Pick, aggressive: bool) -> Result<()> {
        let started = Instant::now();
        self.compacting.store(true, Release);
        let result = self.merge_and_install(pick);
        self.compacting.store(false, Release);
        Stats::add(&self.counters.compaction_ns, started.elapsed().as_nanos() as u64);
        Stats::add(&self.counters.compactions, 1);
        if aggressive {
            Stats::add(&self.counters.aggressive, 1);
        }
        result.and_then(|()| {
            self.disk.reset_retired_now()?;
            self.nvram.as_ref().map_or(Ok(()), |n| n.reset_retired_now())
        })
    }

    fn merge_and_install(&self, pick: Pick) -> Result<()> {
        let version = lock(&self.guarded.current).shape.version.clone();
        let removed: Vec<u64> = pick.tables.iter().map(|t| t.meta.id).collect();
        let added: Vec<(usize, Arc<Table>)> = if pick.is_move {
            pick.tables.iter().map(|t| (pick.output_level, t.clone())).collect()
        } else {
            let mut sources: Vec<Box<dyn Source + Send>> = Vec::new();
            for u in &pick.units {
                sources.push(Box::new(UnitSource::new(u.clone(), b"", true)?));
            }
            for t in &pick.tables {
                sources.push(Box::new(TableIter::new(t.clone(), b"", ReadPurpose::Compaction)?));
            }
            let outside = outside_ranges(&version, pick.output_level, &removed);
            let metas = merge_into_tables(&self.disk, self.table_shape, sources, &outside, &mut || {
                self.next_table_id.fetch_add(1, Relaxed)
            })?;
            let bands: Vec<u64> = metas.iter().map(|m| m.band).collect();
            let opened = self.disk.sync().and_then(|()| {
                metas.into_iter().map(|m| Table::open(self.disk.clone(), m).map(Arc::new)).collect::<Result<Vec<_>>>()
            });
            match opened {
                Ok(tables) => tables.into_iter().map(|t| (pick.output_level, t)).collect(),
                Err(e) => {
                    bands.into_iter().for_each(|b| self.disk.retire(b));
                    return Err(e);
                }
            }
        };
        let compacted_units: Vec<u64> = pick.units.iter().filter(|u| !u.on_nvram).map(|u| u.band).collect();
        let compacted_sequence = pick.units.iter().map(|u| u.last_sequence).max();
        let mut meta = lock(&self.guarded.meta);
        let mut c = lock(&self.guarded.current);
        let next_version = c.shape.version.apply(&removed, added);
        let mut next = meta.clone();
        next.number += 1;
        next.next_table_id = self.next_table_id.load(Relaxed);
        next.tables = next_version.tables().map(|(l, t)| (l as u32, t.meta.clone())).collect();
        next.log_bands.retain(|b| !compacted_units.contains(b));
        if let Some(s) = compacted_sequence {
            next.last_sequence = next.last_sequence.max(s);
        }
        if let Some((level, key)) = &pick.pointer {
            next.compact_pointers.retain(|(l, _)| l != level);
            next.compact_pointers.push((*level, key.clone()));
        }
        next.write(&self.disk)?;
        c.pointers.clone_from(&next.compact_pointers);
        *meta = next;
        let units: Vec<Arc<Unit>> =
            c.shape.units.iter().filter(|u| !pick.units.iter().any(|p| Arc::ptr_eq(p, u))).cloned().collect();
        c.shape = Arc::new(Shape { units, version: Arc::new(next_version) });
        drop(c);
        drop(meta);
        pick.units.iter().for_each(|u| u.mark_obsolete());
        if !pick.is_move {
            pick.tables.iter().for_each(|t| t.mark_obsolete());
        }
        Ok(())
    }
}
