//! Usage growth (§4): how user zones get zones as the extendable space grows.
//!
//! Phase I: direct allocation maps user zones to CMR zones from the outer diameter; light
//! allocation, for space allocated with the SMR hint, converts CMR groups at the inner diameter
//! to SMR (no data to move) and maps the hinted zones there. Phase II: heavy allocation converts
//! CMR groups to SMR to make room, migrating their data first (`migration`), and keeps a guard
//! range of unused zones ready for the next allocation.
//!
//! The layout before the first request is what these allocations lead to (`Layout`), computed
//! without charging time: the first CMR groups hold the cache (outermost, as user zone A's old
//! zone becomes the cache in Fig. 5) and then the lowest user zones; the SMR groups hold the
//! guard range (next to the CMR/SMR boundary, where heavy allocation creates it) and then the
//! highest user zones. A scheme that converts more than the minimum at the start (§7.1,
//! §7.2) does so only in phase II: in phase I every zone that is not hinted fits in CMR, and
//! the cache is the scheme's share of the unused CMR zones.
//!
//! Every scheme with a cache starts with one (§7.1's +cache-fix and the schemes built on it;
//! §7.4 "The Cache size is set to 0.02 % of the SMR region size"): at least the room the run
//! asks for (`cache_room`: the stated size, or one block for a scheme's conversion rule). When
//! the scheme's conversions, rounded to whole groups, leave no cache zone, more groups convert
//! until they do; when no whole CMR zone can be spared at all (at usages of 0.99 and 0.999 a
//! partition may have a single zone to spare, and a CMR group of one cache zone and one data
//! zone costs two), the outermost unused SMR zone is converted to CMR on its own, a *lone* CMR
//! zone holding 1/alpha of a zone (§5.3: "the host can convert any extent of physically
//! consecutive zones"; a lone zone leaves the rest of its span unused, the "seam"). A partition
//! with not even one zone to spare has no room for a cache and is refused.
//! During the run, `allocate_space` serves one allocation request (Fig. 19): unused zones first
//! (CMR ones first: direct allocation), blocking heavy allocation for what is missing, then
//! repletion of the guard range in the background. Not here: the copying (`migration`).

use smr_core::Op;

use super::cache::CmrCache;
use super::drive::HybridDrive;
use super::geometry::Geometry;
use super::mapping::{Role, ZoneMap};
use super::scheme::Scheme;
use super::Fluid;
use smr_kernel::metrics::{Metric, Unit};
use smr_kernel::{IoCtx, SimError};

pub static ALLOCATED_ZONES: Metric =
    Metric::new("allocated_zones", Unit::Count, "FluidSMR: user zones added by allocation requests during the run");

/// Why a layout is refused: the data does not fit, or there is no room for the cache.
#[derive(Clone, Debug, PartialEq)]
pub enum Refused {
    Data(String),
    Cache(String),
}

/// Where everything is before the first request.
#[derive(Clone, Debug, PartialEq)]
pub struct Layout {
    pub geo: Geometry,
    pub cmr_groups: u64,
    pub users: u64,
    /// User zones in CMR (the lowest ones).
    pub cmr_data: u64,
    /// Whole CMR zones of the cache (the outermost CMR zones).
    pub cache_zones: u64,
    /// The cache is the outermost SMR zone converted to CMR on its own (and no whole zone).
    pub lone: bool,
}

impl Layout {
    /// The layout for `users` user zones on `geo`, `smr_hint` of them hinted, with `scheme`'s
    /// start conversion, a guard range of `guard` zones and, if asked, room for a cache of
    /// `cache_room` bytes.
    pub fn plan(
        geo: &Geometry,
        users: u64,
        smr_hint: f64,
        scheme: Scheme,
        guard: u64,
        cache_room: Option<u64>,
    ) -> Result<Layout, Refused> {
        let (q, p) = (geo.gain.cmr, geo.gain.smr);
        if scheme.pure_cmr {
            let groups = users.div_ceil(q).max(1);
            return Ok(Layout {
                geo: Geometry { groups, ..*geo },
                cmr_groups: groups,
                users,
                cmr_data: users,
                cache_zones: 0,
                lone: false,
            });
        }
        let groups = geo.groups;
        if users + guard > groups * p {
            return Err(Refused::Data(format!(
                "the trace's {users} zones and the {guard}-zone guard range do not fit in the partition's pure-SMR capacity of {} zones",
                groups * p
            )));
        }
        let needed = cache_room.map_or(0, |bytes| bytes.div_ceil(geo.zone_size));
        let hinted = (smr_hint * users as f64).round() as u64;
        let light_groups = hinted.div_ceil(p);
        let plain = users - hinted;
        let cmr_groups = groups - light_groups;
        let layout = |cmr_groups, cmr_data, cache_zones| Layout {
            geo: *geo,
            cmr_groups,
            users,
            cmr_data,
            cache_zones,
            lone: false,
        };
        if plain <= cmr_groups * q && cmr_groups * q + light_groups * p >= users + guard {
            // Phase I: the cache takes the scheme's share of the unused CMR zones, no fewer than
            // it needs, leaving the guard range unused.
            let unused = cmr_groups * q - plain;
            let spare = (cmr_groups * q + light_groups * p - users - guard).min(unused);
            let share = (scheme.convert * unused as f64).round() as u64;
            let cache = if cache_room.is_some() { share.max(needed) } else { 0 };
            if cache <= spare {
                return Ok(layout(cmr_groups, plain, cache));
            }
        }
        // Phase II: as many CMR groups as the capacity allows, less the scheme's conversions,
        // which stop where every user zone is in SMR (converting more only leaves SMR unused).
        let fit = (groups * p - users - guard) / (p - q);
        let minimum = fit.min(cmr_groups);
        let all_smr = groups.saturating_sub((users + guard).div_ceil(p)).min(minimum);
        // With `g` CMR groups: the user zones left in CMR, and the CMR zones they leave.
        let cmr_data = |g: u64| {
            let smr_zones = (groups - g) * p;
            users - (smr_zones - guard.min(smr_zones)).min(users)
        };
        let cache_zones = |g: u64| (g * q).saturating_sub(cmr_data(g));
        let mut cmr_groups = (minimum - (scheme.convert * minimum as f64).round() as u64).max(all_smr);
        if cache_room.is_some() {
            // More conversions, as few as give the cache the zones it needs.
            if let Some(g) = (all_smr..=cmr_groups).rev().find(|&g| cache_zones(g) >= needed.max(1)) {
                cmr_groups = g;
            } else {
                return Self::lone(geo, users, guard, cmr_groups, cache_room.unwrap_or(0));
            }
        }
        Ok(layout(cmr_groups, cmr_data(cmr_groups), cache_zones(cmr_groups)))
    }

    /// Phase II with no whole CMR zone to spare for a cache of `room` bytes: the CMR groups the
    /// capacity allows beside one unused SMR zone (at most the scheme's `most`), which becomes a
    /// lone CMR zone.
    fn lone(geo: &Geometry, users: u64, guard: u64, most: u64, room: u64) -> Result<Layout, Refused> {
        let (q, p) = (geo.gain.cmr, geo.gain.smr);
        let spare = geo.groups * p - users - guard;
        if spare == 0 || room > geo.lone_cmr_bytes() {
            return Err(Refused::Cache(format!(
                "no room for a cache of {room} bytes: the partition's {} zones hold the trace's {users} zones and a \
                 {guard}-zone guard range with {spare} zone(s) to spare, and a cache smaller than a zone needs one unused \
                 zone (converted to CMR it holds {} bytes); lower the usage or choose a scheme without a cache",
                geo.groups * p,
                geo.lone_cmr_bytes()
            )));
        }
        let cmr_groups = ((spare - 1) / (p - q)).min(most);
        let smr_zones = (geo.groups - cmr_groups) * p;
        let cmr_data = users - smr_zones.saturating_sub(guard + 1).min(users);
        Ok(Layout { geo: *geo, cmr_groups, users, cmr_data, cache_zones: 0, lone: true })
    }

    /// Zones of the SMR area (data, guard range and unused; not a lone CMR zone).
    pub fn smr_area_zones(&self) -> u64 {
        (self.geo.groups - self.cmr_groups) * self.geo.gain.smr - u64::from(self.lone)
    }

    /// Lays the zones out: maps every user zone, fills it with data, and hands the cache zones
    /// to `cache` (without a cache they stay unused).
    pub fn apply(
        &self,
        drive: &mut HybridDrive,
        map: &mut ZoneMap,
        mut cache: Option<&mut CmrCache>,
    ) -> Result<(), SimError> {
        let geo = self.geo;
        let zone_size = geo.zone_size;
        let cmr: Vec<u32> = (0..self.cmr_groups).flat_map(|g| (0..geo.gain.cmr).map(move |s| geo.zone(g, s))).collect();
        let smr: Vec<u32> =
            (self.cmr_groups..geo.groups).flat_map(|g| (0..geo.gain.smr).map(move |s| geo.zone(g, s))).collect();
        let (cache_zones, cmr_rest) = cmr.split_at(self.cache_zones as usize);
        // A lone CMR zone is the outermost SMR zone; the guard range and unused zones follow it.
        let lone = self.lone.then(|| smr[0]);
        if let Some(zone) = lone {
            drive.format_lone_cmr(zone)?;
        }
        if let Some(cache) = cache.as_mut() {
            for &zone in cache_zones.iter().chain(&lone) {
                cache.add_zone(zone);
                map.set_role(zone, Role::Cache);
            }
        }
        let smr_data = self.users - self.cmr_data;
        let smr_start = smr.len() - smr_data as usize;
        let homes = cmr_rest[..self.cmr_data as usize].iter().chain(&smr[smr_start..]);
        for &zone in homes {
            drive.prefill(zone, zone_size)?;
            let user = map.add_user(zone, zone_size);
            drive.store_entry(zone, user);
        }
        Ok(())
    }
}

impl Fluid {
    /// Online zones holding nothing.
    pub fn free_zones(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.geo.groups).flat_map(move |g| self.drive.zones_of(g)).filter(move |&z| self.map.role(z) == Role::Free)
    }

    /// The group heavy allocation converts next: the innermost CMR group that holds no cache
    /// zone and no migration target (cache zones stay where they are).
    pub fn heavy_group(&self) -> Option<u64> {
        (0..self.geo.groups)
            .rev()
            .filter(|&g| self.drive.group_is_cmr(g))
            .find(|&g| self.drive.zones_of(g).all(|z| matches!(self.map.role(z), Role::Free | Role::Data(_))))
    }

    /// Serves one allocation request of `bytes` (§4.1): new user zones are appended to the
    /// extendable space, unused zones first, CMR before SMR (direct allocation); if too few are
    /// unused, heavy allocation converts groups right away (the request waits); then the guard
    /// range is replenished in the background.
    pub fn allocate_space(&mut self, ctx: &mut IoCtx, bytes: u64) -> Result<(), SimError> {
        let wanted = bytes.div_ceil(self.geo.zone_size);
        while (self.free_zones().count() as u64) < wanted {
            let Some(group) = self.heavy_group() else {
                return Err(SimError::Device(format!(
                    "the partition cannot hold {wanted} more zones: no CMR group is left to convert"
                )));
            };
            self.convert_for_space(ctx, group)?;
        }
        let mut free: Vec<u32> = self.free_zones().collect();
        free.sort_by_key(|&z| (!self.drive.is_cmr(z), z));
        for &zone in &free[..wanted as usize] {
            let user = self.map.add_user(zone, 0);
            if self.drive.is_cmr(zone) {
                // One sector holds the zone's entry; an empty SMR zone gets it with its first write.
                self.drive.io(ctx, self.ch.migrate, Op::Write, zone, 0, 512)?;
            }
            self.drive.store_entry(zone, user);
        }
        self.counts.allocated_zones += wanted;
        self.nsw.grow(self.map.users());
        if let Some(o) = self.occupancy.as_mut() {
            o.grow(self.map.users());
        }
        if let Some(list) = self.recency.as_mut() {
            list.grow(self.map.users() as usize);
        }
        self.start_repletion(ctx)
    }

    /// Converts CMR group `group` to SMR at once, its data held in flight (the blocking heavy
    /// allocation: data lands in the group's new SMR zones).
    pub fn convert_for_space(&mut self, ctx: &mut IoCtx, group: u64) -> Result<(), SimError> {
        let moves = self.group_contents_to_new_smr(group);
        let ch = self.ch.migrate;
        self.relocate(ctx, ch, &moves, Some((group, false)))
    }
}
