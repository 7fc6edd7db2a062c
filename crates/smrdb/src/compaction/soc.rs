//! SMR-friendly organisation and compaction (SOC, §3.2.3): two levels; level 1 bands may
//! overlap, and compactions are chosen by how much reordering a band needs.
//!
//! - Level 0 to 1, when level 0 holds `l0_compaction_trigger` bands: from the oldest band,
//!   walk to newer ones, taking each that overlaps the oldest, up to `l0_max_inputs` bands. A
//!   band is never taken while an older band that overlaps it stays behind (that older band's
//!   versions would then shadow its newer ones). The level 1 candidates are the bands that
//!   overlap what was taken; of them the least sequential and every level 1 band newer than
//!   it that overlaps it join the merge. With no candidates a lone band moves down unchanged.
//! - Level 1 to 1, when `l1_overlap_trigger` level 1 bands overlap at one key (so a get may
//!   search that many): the bands holding the key where most overlap are the candidates; the
//!   least sequential of them that has a newer candidate, and the level 1 bands newer than it
//!   that overlap it, merge. (The thesis starts from the band with the most overlaps; counting
//!   overlaps at a key instead guarantees progress: two of the bands there merge into one
//!   sorted run, whose key span is covered by its inputs, so no key is covered by more bands
//!   than before and that key by fewer.)
//!
//! Sequentiality of a band (where the thesis gives the idea but no formula): for each bucket
//! of its equi-depth histogram, the share of the bucket's key range that is the band's own
//! bytes rather than other bands' (estimated from their histograms: every bucket of theirs
//! meeting the range counts whole), averaged over the band's buckets weighted by their bytes.
//! 1 means no other band has data inside the band's sub-ranges: reordering the whole store
//! would insert nothing into it. Dense sub-ranges count for more than sparse ones, which is
//! what the histogram is for.

use std::sync::Arc;

use super::{key_span, ranges_meet, Compaction};
use crate::options::Options;
use crate::table::Table;
use crate::version::Version;

pub fn pick(version: &Version, options: &Options) -> Option<Compaction> {
    if version.levels[0].len() >= options.l0_compaction_trigger {
        return Some(level_zero(version, options));
    }
    level_one(version, options)
}

/// The sequentiality of `band` with respect to every other table of the version, in [0, 1].
pub fn sequentiality(band: &Table, version: &Version) -> f64 {
    let own_total = band.meta.histogram.total_bytes().max(1) as f64;
    let others: Vec<&Arc<Table>> = version
        .tables()
        .map(|(_, t)| t)
        .filter(|t| t.meta.id != band.meta.id && ranges_meet(&t.meta, &band.meta))
        .collect();
    let mut score = 0.0;
    for (lo, hi, own) in band.meta.histogram.ranges(&band.meta.smallest) {
        let foreign: u64 = others
            .iter()
            .filter(|t| t.meta.overlaps(lo, hi))
            .map(|t| t.meta.histogram.bytes_in(&t.meta.smallest, lo, hi))
            .sum();
        let own_f = own as f64;
        score += (own_f / own_total) * (own_f / (own_f + foreign as f64).max(1.0));
    }
    score
}

fn level_zero(version: &Version, options: &Options) -> Compaction {
    let l0 = &version.levels[0];
    let oldest = &l0[0];
    let mut taken: Vec<Arc<Table>> = vec![oldest.clone()];
    let mut left: Vec<&Arc<Table>> = Vec::new();
    for t in &l0[1..] {
        let blocked = left.iter().any(|o| ranges_meet(&o.meta, &t.meta));
        if taken.len() < options.l0_inputs() && !blocked && ranges_meet(&oldest.meta, &t.meta) {
            taken.push(t.clone());
        } else {
            left.push(t);
        }
    }
    let (lo, hi) = key_span(&taken).expect("the oldest band at least");
    let candidates: Vec<&Arc<Table>> = version.levels[1].iter().filter(|t| t.meta.overlaps(&lo, &hi)).collect();
    if candidates.is_empty() && taken.len() == 1 {
        return Compaction { inputs: taken, output_level: 1, is_move: true, pointer: None };
    }
    let mut inputs = taken;
    if let Some(least) = least_sequential(&candidates, version, |_| true) {
        inputs.extend(newer_overlapping(least, version));
    }
    Compaction::merge(inputs, 1)
}

fn level_one(version: &Version, options: &Options) -> Option<Compaction> {
    let l1 = &version.levels[1];
    let (key, depth) = deepest_key(l1)?;
    if depth < options.l1_overlap_trigger {
        return None;
    }
    let candidates: Vec<&Arc<Table>> = l1.iter().filter(|t| t.covers(&key)).collect();
    let newest = candidates.iter().map(|t| t.meta.id).max()?;
    let least = least_sequential(&candidates, version, |t| t.meta.id < newest)?;
    Some(Compaction::merge(newer_overlapping(least, version), 1))
}

/// A key covered by the most tables, and how many cover it.
pub fn deepest_key(tables: &[Arc<Table>]) -> Option<(Vec<u8>, usize)> {
    // Ranges are closed: at equal keys a range's start counts before another's end.
    let mut events: Vec<(&[u8], u8)> = Vec::with_capacity(2 * tables.len());
    for t in tables {
        events.push((&t.meta.smallest, 0));
        events.push((&t.meta.largest, 1));
    }
    events.sort();
    let (mut depth, mut best): (usize, Option<(&[u8], usize)>) = (0, None);
    for (key, kind) in events {
        if kind == 0 {
            depth += 1;
            if best.is_none_or(|(_, d)| depth > d) {
                best = Some((key, depth));
            }
        } else {
            depth -= 1;
        }
    }
    best.map(|(k, d)| (k.to_vec(), d))
}

/// The least sequential of `candidates` passing `eligible`.
fn least_sequential<'a>(
    candidates: &[&'a Arc<Table>],
    version: &Version,
    eligible: impl Fn(&Arc<Table>) -> bool,
) -> Option<&'a Arc<Table>> {
    candidates
        .iter()
        .filter(|t| eligible(t))
        .map(|t| (sequentiality(t, version), *t))
        .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.meta.id.cmp(&b.1.meta.id)))
        .map(|(_, t)| t)
}

/// `band` and every level 1 band newer than it that overlaps it.
fn newer_overlapping(band: &Arc<Table>, version: &Version) -> Vec<Arc<Table>> {
    let mut out = vec![band.clone()];
    out.extend(
        version.levels[1].iter().filter(|t| t.meta.id > band.meta.id && ranges_meet(&t.meta, &band.meta)).cloned(),
    );
    out
}
