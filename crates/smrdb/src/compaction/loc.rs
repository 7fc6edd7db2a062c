//! LevelDB-style organisation and compaction (LOC, §3.2.3): levels with size thresholds, no
//! overlap within levels >= 1. The level most over its threshold is compacted: for level 0
//! (threshold: a band count) its oldest band with every level 0 band overlapping it, for deeper
//! levels the next band round-robin after the level's compaction pointer; with them go all
//! bands of the next level that overlap. A lone band with nothing to merge with moves down.

use std::sync::Arc;

use super::{key_span, Compaction};
use crate::options::Options;
use crate::table::Table;
use crate::version::Version;

/// Bytes level `level` (>= 1) may hold (at most `u64::MAX`: a level that large is never over).
pub fn level_limit(options: &Options, band_size: u64, level: usize) -> u64 {
    options.l1_bands.saturating_mul(band_size).saturating_mul(options.level_ratio.saturating_pow(level as u32 - 1))
}

/// The compaction the version needs most, if any level is over its threshold.
pub fn pick(version: &Version, options: &Options, band_size: u64, pointers: &[(u32, Vec<u8>)]) -> Option<Compaction> {
    let last = version.levels.len() - 1;
    let mut best: Option<(f64, usize)> = None;
    for level in 0..last {
        let score = if level == 0 {
            version.levels[0].len() as f64 / options.l0_compaction_trigger as f64
        } else {
            version.level_bytes(level) as f64 / level_limit(options, band_size, level) as f64
        };
        if score >= 1.0 && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, level));
        }
    }
    let (_, level) = best?;
    let chosen: Vec<Arc<Table>> = if level == 0 {
        level_zero_inputs(version)
    } else {
        let pointer = pointers.iter().find(|(l, _)| *l as usize == level).map(|(_, k)| k.as_slice());
        let tables = &version.levels[level];
        let next = tables.iter().find(|t| pointer.is_none_or(|p| t.meta.largest.as_slice() > p)).unwrap_or(&tables[0]);
        vec![next.clone()]
    };
    let (lo, hi) = key_span(&chosen)?;
    let below: Vec<Arc<Table>> =
        version.levels[level + 1].iter().filter(|t| t.meta.overlaps(&lo, &hi)).cloned().collect();
    let pointer = Some((level as u32, hi));
    if chosen.len() == 1 && below.is_empty() {
        return Some(Compaction { inputs: chosen, output_level: level + 1, is_move: true, pointer });
    }
    let mut c = Compaction::merge(chosen.into_iter().chain(below).collect(), level + 1);
    c.pointer = pointer;
    Some(c)
}

/// The oldest level 0 band and, transitively, every level 0 band overlapping the growing key
/// range (a newer band left behind must not overlap what moves down).
fn level_zero_inputs(version: &Version) -> Vec<Arc<Table>> {
    let l0 = &version.levels[0];
    let mut chosen = vec![l0[0].clone()];
    loop {
        let (lo, hi) = key_span(&chosen).expect("at least the oldest band");
        let more: Vec<Arc<Table>> = l0
            .iter()
            .filter(|t| !chosen.iter().any(|c| c.meta.id == t.meta.id) && t.meta.overlaps(&lo, &hi))
            .cloned()
            .collect();
        if more.is_empty() {
            return chosen;
        }
        chosen.extend(more);
    }
}
