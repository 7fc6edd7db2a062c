//! Compaction: which tables to merge (a scheme's `pick`, or a manual full compaction) and the
//! merge itself. A merge reads its input tables in key order, keeps the newest version of each
//! key, drops tombstones that hide nothing outside the inputs, and writes the result as new
//! tables, each filling a band, in the output level. A move changes only a table's level.
//!
//! Not here: installing the result (the store writes the metadata record, then retires the
//! inputs' bands) and scheduling (the store's background thread).

pub mod loc;
pub mod soc;

use std::sync::Arc;

use crate::env::Env;
use crate::error::Result;
use crate::iter::Merge;
use crate::key::{self, Kind};
use crate::source::Source;
use crate::table::builder::TableShape;
use crate::table::iter::{ReadPurpose, TableIter};
use crate::table::{Table, TableBuilder, TableMeta};
use crate::version::Version;

pub struct Compaction {
    pub inputs: Vec<Arc<Table>>,
    pub output_level: usize,
    /// Only a table's level changes (one input, nothing to merge it with).
    pub is_move: bool,
    /// LOC: the new round-robin position of the level compacted.
    pub pointer: Option<(u32, Vec<u8>)>,
}

impl Compaction {
    pub fn merge(inputs: Vec<Arc<Table>>, output_level: usize) -> Self {
        Compaction { inputs, output_level, is_move: false, pointer: None }
    }

    pub fn input_ids(&self) -> Vec<u64> {
        self.inputs.iter().map(|t| t.meta.id).collect()
    }
}

/// Everything into one sorted run without overlaps, at `output_level`; `None` if the store
/// has no tables.
pub fn full(version: &Version, output_level: usize) -> Option<Compaction> {
    let inputs: Vec<Arc<Table>> = version.tables().map(|(_, t)| t.clone()).collect();
    if inputs.is_empty() {
        return None;
    }
    Some(Compaction::merge(inputs, output_level))
}

/// Whether a table outside the inputs, at the output level or deeper, may hold an older
/// version of `key` (then a tombstone for it must be kept).
fn older_elsewhere(outside: &[(Vec<u8>, Vec<u8>)], key: &[u8]) -> bool {
    outside.iter().any(|(lo, hi)| lo.as_slice() <= key && key <= hi.as_slice())
}

/// Merges the inputs into new tables in fresh bands; returns their metadata (ids from
/// `next_id`). On error the bands taken so far are retired and nothing else changed.
pub fn run(
    env: &Env,
    shape: TableShape,
    c: &Compaction,
    version: &Version,
    next_id: &mut dyn FnMut() -> u64,
) -> Result<Vec<TableMeta>> {
    let outside = outside_ranges(version, c.output_level, &c.input_ids());
    let mut sources: Vec<Box<dyn Source + Send>> = Vec::new();
    for t in &c.inputs {
        sources.push(Box::new(TableIter::new(t.clone(), b"", ReadPurpose::Compaction)?));
    }
    merge_into_tables(env, shape, sources, &outside, next_id)
}

/// The key ranges of the tables at `output_level` or deeper that are not inputs (`ids`): where
/// an older version of a key may live, so a tombstone for it must be kept.
pub fn outside_ranges(version: &Version, output_level: usize, ids: &[u64]) -> Vec<(Vec<u8>, Vec<u8>)> {
    version
        .tables()
        .filter(|(level, t)| *level >= output_level && !ids.contains(&t.meta.id))
        .map(|(_, t)| (t.meta.smallest.clone(), t.meta.largest.clone()))
        .collect()
}

/// Merges `sources` (in internal-key order each) into new tables in fresh bands, keeping the
/// newest version of each key and dropping tombstones that hide nothing in `outside`.
pub fn merge_into_tables(
    env: &Env,
    shape: TableShape,
    sources: Vec<Box<dyn Source + Send>>,
    outside: &[(Vec<u8>, Vec<u8>)],
    next_id: &mut dyn FnMut() -> u64,
) -> Result<Vec<TableMeta>> {
    let mut merge = Merge::new(sources);
    let mut outputs = Vec::new();
    let mut builder: Option<TableBuilder> = None;
    let result = (|| -> Result<()> {
        let mut last_key: Option<Vec<u8>> = None;
        while let Some(e) = merge.current() {
            let newest = last_key.as_deref() != Some(e.key);
            if newest {
                last_key = Some(e.key.to_vec());
                let drop_tombstone = key::kind_of(e.tag) != Some(Kind::Value) && !older_elsewhere(outside, e.key);
                if !drop_tombstone {
                    if builder.as_ref().is_some_and(|b| !b.fits(e.key.len(), e.value.len())) {
                        outputs.push(builder.take().expect("checked just above").finish()?);
                    }
                    if builder.is_none() {
                        let band = env.allocate("a compaction")?;
                        builder =
                            Some(TableBuilder::new(env, &env.stats.compaction_bytes_written, shape, next_id(), band));
                    }
                    builder.as_mut().expect("made just above").add(e.key, e.tag, e.value)?;
                }
            }
            merge.advance()?;
        }
        if let Some(b) = builder.take() {
            if !b.is_empty() {
                outputs.push(b.finish()?);
            } else {
                env.retire(b.band());
            }
        }
        Ok(())
    })();
    match result {
        Ok(()) => Ok(outputs),
        Err(e) => {
            for band in outputs.iter().map(|m| m.band).chain(builder.map(|b| b.band())) {
                env.retire(band);
            }
            Err(e)
        }
    }
}

/// Whether two key ranges meet.
pub fn ranges_meet(a: &TableMeta, b: &TableMeta) -> bool {
    a.overlaps(&b.smallest, &b.largest)
}

/// The smallest and largest key of some tables.
pub fn key_span<'a>(tables: impl IntoIterator<Item = &'a Arc<Table>>) -> Option<(Vec<u8>, Vec<u8>)> {
    let mut span: Option<(Vec<u8>, Vec<u8>)> = None;
    for t in tables {
        span = Some(match span {
            None => (t.meta.smallest.clone(), t.meta.largest.clone()),
            Some((lo, hi)) => (lo.min(t.meta.smallest.clone()), hi.max(t.meta.largest.clone())),
        });
    }
    span
}
