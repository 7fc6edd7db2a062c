//! Zone swapping between the CMR and SMR areas, and the swapping baselines of §2.4.
//!
//! A swap exchanges the data of a CMR zone and an SMR zone (Fig. 11): both are read (the SMR
//! zone's cached blocks merged in, leaving the cache), the SMR zone's data is written into the
//! CMR zone in place, the SMR zone is reset and receives the CMR zone's data. The baselines:
//! recency (an accessed SMR zone swaps at once with the least recently accessed CMR zone),
//! frequency (every window, the most accessed SMR zones swap with the least accessed CMR zones
//! while they are more accessed) and NSW-frequency, `swap-only` (the same ranking by NSWs). Not
//! here: Algorithm 1's swaps (`adapt`), occupancy-based swaps (`occupancy`).

use smr_core::Op;

use super::drive::HybridDrive;
use super::mapping::ZoneMap;
use super::Fluid;
use smr_kernel::lists::RecencyList;
use smr_kernel::metrics::{Metric, Unit};
use smr_kernel::{ChannelId, IoCtx, SimError};

pub static SWAPS: Metric = Metric::new("swaps", Unit::Count, "FluidSMR: CMR-SMR zone swaps (all kinds)");
pub static FREQUENCY_SWAPS: Metric = Metric::new(
    "frequency_swaps",
    Unit::Count,
    "FluidSMR: swaps of the §2.4 ranking by access or NSW counts (swap-only, +cache-fix, format-adapt)",
);

/// The recency baseline's list of user zones in CMR, most recently accessed first.
pub fn recency_list(map: &ZoneMap, drive: &HybridDrive) -> RecencyList {
    let mut list = RecencyList::new(map.users() as usize);
    for user in 0..map.users() {
        if drive.is_cmr(map.zone_of(user)) {
            list.push_front(user);
        }
    }
    list
}

impl Fluid {
    /// Swaps CMR user zone `cmr` and SMR user zone `smr` through channel `ch`.
    pub fn swap(&mut self, ctx: &mut IoCtx, ch: ChannelId, cmr: u32, smr: u32) -> Result<(), SimError> {
        let (x, y) = (self.map.zone_of(cmr), self.map.zone_of(smr));
        debug_assert!(self.drive.is_cmr(x) && !self.drive.is_cmr(y));
        let cmr_len = self.map.valid(cmr);
        if cmr_len > 0 {
            self.drive.io(ctx, ch, Op::Read, x, 0, cmr_len)?;
        }
        let cmr_image = self.drive.image(x, 0, cmr_len.div_ceil(super::geometry::BLOCK));
        let (smr_len, smr_image) = self.read_user_zone(ctx, ch, smr)?;
        if smr_len > 0 {
            self.drive.io(ctx, ch, Op::Write, x, 0, smr_len)?;
        }
        self.drive.store_image(x, 0, &smr_image);
        self.drive.reset(y)?;
        if cmr_len > 0 {
            self.drive.io(ctx, ch, Op::Write, y, 0, cmr_len)?;
        }
        self.drive.store_image(y, 0, &cmr_image);
        self.map.place(cmr, y);
        self.map.place(smr, x);
        self.drive.store_entry(x, smr);
        self.drive.store_entry(y, cmr);
        self.counts.moved_bytes += cmr_len + smr_len;
        self.counts.swaps += 1;
        self.counts.map_persists += 1;
        Ok(())
    }

    /// The recency baseline on an access to `user`: an SMR zone swaps with the least recently
    /// accessed CMR zone (not while a migration is under way: it may be copying that zone).
    pub fn touch(&mut self, ctx: &mut IoCtx, user: u32) -> Result<(), SimError> {
        if self.migration.busy() {
            return Ok(());
        }
        let Some(list) = self.recency.as_mut() else { return Ok(()) };
        list.grow(self.map.users() as usize);
        if self.drive.is_cmr(self.map.zone_of(user)) {
            list.move_to_front(user);
            return Ok(());
        }
        // Zones another mechanism moved to SMR leave the list as they are met.
        list.remove(user);
        let victim = loop {
            let Some(victim) = list.back() else { return Ok(()) };
            list.remove(victim);
            if self.drive.is_cmr(self.map.zone_of(victim)) {
                break victim;
            }
        };
        list.push_front(user);
        let ch = self.ch.swap;
        self.swap(ctx, ch, victim, user)
    }

    /// The frequency baselines at the end of a window: SMR zones of most `score` swap with CMR
    /// zones of least while the SMR zone's score is higher.
    pub fn swap_by(&mut self, ctx: &mut IoCtx, score: impl Fn(&Fluid, u32) -> u32) -> Result<(), SimError> {
        let (mut cmr, mut smr): (Vec<u32>, Vec<u32>) =
            (0..self.map.users()).partition(|&u| self.drive.is_cmr(self.map.zone_of(u)));
        cmr.sort_by_key(|&u| (score(self, u), u));
        smr.sort_by_key(|&u| (std::cmp::Reverse(score(self, u)), u));
        let pairs: Vec<(u32, u32)> = cmr
            .iter()
            .zip(&smr)
            .take_while(|&(&c, &s)| score(self, s) > score(self, c))
            .map(|(&c, &s)| (c, s))
            .collect();
        let ch = self.ch.swap;
        for (c, s) in pairs {
            self.swap(ctx, ch, c, s)?;
            self.counts.frequency_swaps += 1;
        }
        Ok(())
    }
}
