//! Cache-occupancy-based swapping (§6.2), FluidSMR's light swapping between format adaptations,
//! folded into the log's cleaning. At the start of each epoch of the cache log, SMR zones whose
//! cached blocks take more than `occupancy` of a zone become SMR swap candidates and CMR zones
//! not written during the last epoch become CMR swap candidates. When cleaning evicts an SMR
//! candidate, it swaps with a CMR candidate instead (if one is left): the CMR zone's data goes to
//! the SMR zone and the SMR zone's data, merged with its cached blocks, to the CMR zone, so the
//! eviction's write is the swap's. Choices where the paper is silent: the threshold (`occupancy`,
//! an open choice: its reason is in its declaration); CMR candidates are taken lowest user zone
//! first.

use rustc_hash::FxHashSet;

use super::Fluid;
use smr_kernel::metrics::{Metric, Unit};
use smr_kernel::{IoCtx, SimError};

pub static OCCUPANCY_SWAPS: Metric =
    Metric::new("occupancy_swaps", Unit::Count, "FluidSMR: evictions that became swaps with a cold CMR zone (§6.2)");

pub struct OccupancySwap {
    threshold_blocks: u64,
    epoch: u32,
    /// Per user zone, the epoch of its last write.
    last_written: Vec<u32>,
    smr_candidates: FxHashSet<u32>,
    /// CMR candidates, the next one last.
    cmr_candidates: Vec<u32>,
}

impl OccupancySwap {
    pub fn new(threshold_blocks: u64, users: u32) -> Self {
        OccupancySwap {
            threshold_blocks,
            epoch: 0,
            last_written: vec![0; users as usize],
            smr_candidates: FxHashSet::default(),
            cmr_candidates: Vec::new(),
        }
    }

    pub fn grow(&mut self, users: u32) {
        self.last_written.resize(users as usize, self.epoch);
    }
}

impl Fluid {
    /// Notes a write to `user` for the CMR candidates.
    #[inline]
    pub fn written_now(&mut self, user: u32) {
        if let Some(o) = self.occupancy.as_mut() {
            o.last_written[user as usize] = o.epoch;
        }
    }

    /// Starts a cache epoch if the log has just begun one: labels the candidates.
    pub fn start_epoch_if_due(&mut self) {
        let Some(cache) = self.cache.as_mut() else { return };
        if !cache.epoch() {
            return;
        }
        let Some(o) = self.occupancy.as_mut() else { return };
        let cache = self.cache.as_ref().expect("checked above");
        o.smr_candidates = cache.map.users().filter(|&u| cache.map.occupancy(u) > o.threshold_blocks).collect();
        let last = o.epoch;
        let mut cold: Vec<u32> = (0..self.map.users())
            .filter(|&u| self.drive.is_cmr(self.map.zone_of(u)) && o.last_written[u as usize] < last)
            .collect();
        cold.reverse();
        o.cmr_candidates = cold;
        o.epoch += 1;
    }

    /// Cleaning is evicting SMR user zone `user`: if it is a swap candidate and a CMR candidate
    /// is left, swaps them instead. Returns whether it did.
    pub fn occupancy_swap(&mut self, ctx: &mut IoCtx, user: u32) -> Result<bool, SimError> {
        if self.migration.busy() {
            return Ok(false);
        }
        let Some(o) = self.occupancy.as_mut() else { return Ok(false) };
        if !o.smr_candidates.remove(&user) {
            return Ok(false);
        }
        let (drive, map) = (&self.drive, &self.map);
        let partner = std::iter::from_fn(|| o.cmr_candidates.pop()).find(|&c| drive.is_cmr(map.zone_of(c)));
        let Some(cmr) = partner else { return Ok(false) };
        let ch = self.ch.swap;
        self.swap(ctx, ch, cmr, user)?;
        self.counts.occupancy_swaps += 1;
        Ok(true)
    }
}
