//! Write locality of a trace, as the uCache paper measures it (§II): the write footprint when
//! accesses are rounded up to buckets of several sizes (Fig. 4), the CDF of the LRU stack
//! distance of writes at 4 MiB granularity (Fig. 2: how many distinct 4 MiB regions are written
//! between two writes to the same one), and the share of writes landing within 256 KiB of the
//! previous write (spatial locality).
//!
//! Stack distances are computed exactly in O(n log n) with a Fenwick tree over request positions
//! marking each region's latest write. Not here: replay; this reads the trace once.

use serde::{Deserialize, Serialize};

use super::TraceError;
use smr_core::blockset::BlockSet;
use smr_core::request::{Op, Request};

const REGION_SHIFT: u32 = 22;
const NEAR: u64 = 256 << 10;

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Locality {
    pub writes: u64,
    /// (bucket size in bytes, distinct buckets written × bucket size).
    pub footprint: Vec<(u64, u64)>,
    /// (distance d, fraction of writes to a region seen before whose stack distance is ≤ d).
    pub stack_distance_cdf: Vec<(u64, f64)>,
    /// Writes to a 4 MiB region never written before.
    pub first_region_writes: u64,
    /// Fraction of writes starting within 256 KiB of the previous write's start.
    pub near_previous: f64,
}

/// Fenwick tree of counts over positions 1..=n.
struct Fenwick(Vec<u32>);

impl Fenwick {
    fn add(&mut self, mut i: usize, delta: i32) {
        while i < self.0.len() {
            self.0[i] = (self.0[i] as i32 + delta) as u32;
            i += i & i.wrapping_neg();
        }
    }

    fn prefix(&self, mut i: usize) -> u64 {
        let mut sum = 0u64;
        while i > 0 {
            sum += self.0[i] as u64;
            i -= i & i.wrapping_neg();
        }
        sum
    }
}

impl Locality {
    /// Measures the writes of `requests` for each size in `bucket_sizes` (bytes).
    pub fn compute(
        requests: impl IntoIterator<Item = Result<Request, TraceError>>,
        bucket_sizes: &[u64],
    ) -> Result<Self, TraceError> {
        let mut sets: Vec<BlockSet> = bucket_sizes.iter().map(|_| BlockSet::new()).collect();
        let mut regions: Vec<u64> = Vec::new();
        let (mut near, mut previous) = (0u64, None::<u64>);
        for req in requests {
            let req = req?;
            if req.op != Op::Write || req.len == 0 {
                continue;
            }
            for (set, &size) in sets.iter_mut().zip(bucket_sizes) {
                for bucket in req.blocks(size) {
                    set.insert(bucket);
                }
            }
            if previous.is_some_and(|p| p.abs_diff(req.offset) < NEAR) {
                near += 1;
            }
            previous = Some(req.offset);
            regions.push(req.offset >> REGION_SHIFT);
        }
        let writes = regions.len() as u64;
        let footprint = bucket_sizes.iter().zip(&sets).map(|(&size, set)| (size, set.len() * size)).collect();
        let (distances, first) = stack_distances(&regions);
        let reused = distances.len() as f64;
        let mut cdf = Vec::new();
        let mut sorted = distances;
        sorted.sort_unstable();
        let mut d = 0u64;
        loop {
            let at_most = sorted.partition_point(|&x| x <= d) as f64;
            cdf.push((d, if reused == 0.0 { 0.0 } else { at_most / reused }));
            if sorted.last().is_none_or(|&m| d >= m) {
                break;
            }
            d = if d == 0 { 1 } else { d * 2 };
        }
        Ok(Locality {
            writes,
            footprint,
            stack_distance_cdf: cdf,
            first_region_writes: first,
            near_previous: if writes < 2 { 0.0 } else { near as f64 / (writes - 1) as f64 },
        })
    }
}

/// LRU stack distance of each access that repeats a region, and the number of first accesses.
fn stack_distances(regions: &[u64]) -> (Vec<u64>, u64) {
    let mut tree = Fenwick(vec![0; regions.len() + 1]);
    let mut last: rustc_hash::FxHashMap<u64, usize> = Default::default();
    let (mut out, mut first) = (Vec::new(), 0u64);
    for (t, &r) in regions.iter().enumerate() {
        let now = t + 1;
        match last.insert(r, now) {
            Some(before) => {
                out.push(tree.prefix(now - 1) - tree.prefix(before));
                tree.add(before, -1);
            }
            None => first += 1,
        }
        tree.add(now, 1);
    }
    (out, first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stack_distances_by_hand() {
        // Regions a b a c b a: a repeats after {b} (1), b after {a, c} (2), a after {c, b} (2).
        let (d, first) = stack_distances(&[1, 2, 1, 3, 2, 1]);
        assert_eq!(d, vec![1, 2, 2]);
        assert_eq!(first, 3);
        assert_eq!(stack_distances(&[5, 5, 5]).0, vec![0, 0]);
    }

    #[test]
    fn footprint_grows_with_bucket_size_and_stack_distances_by_hand() {
        let mb = 1u64 << 20;
        let reqs = [0, 8 * mb, 3 * 4096, 8 * mb + 4096, 20 * mb].map(|o| Ok(Request::new(0, Op::Write, o, 4096)));
        let l = Locality::compute(reqs, &[4096, 256 << 10, 4 * mb]).unwrap();
        assert_eq!(l.writes, 5);
        assert_eq!(l.footprint, vec![(4096, 5 * 4096), (256 << 10, 3 * (256 << 10)), (4 * mb, 3 * 4 * mb)]);
        assert_eq!(l.first_region_writes, 3);
        // 4 MiB regions 0 2 0 2 5: each repeat comes after one other region.
        assert_eq!(l.stack_distance_cdf, vec![(0, 0.0), (1, 1.0)]);
        assert!((l.near_previous - 0.0).abs() < 1e-9);
    }
}
