//! Moving zones' data around a format conversion, and the two conversions of Algorithm 1.
//!
//! `relocate` carries out a set of moves at once: it reads every source (a user zone's data,
//! with the zone's cached blocks merged in, or a cache zone whole), converts a group if asked,
//! then writes every destination. Data in flight is held in non-volatile memory, §5.3's
//! assumption, so a destination may be another move's source.
//!
//! A conversion to SMR (Algorithm 1, line 21) takes C_conv = p CMR user zones: it converts one
//! CMR group to p SMR zones that receive them; what else the group held moves to the CMR zones
//! the candidates leave, and the p - q zones left over join the cache. A conversion to CMR (line
//! 28) converts one SMR group to q CMR zones; with p - q more CMR zones (unused ones first, else
//! the cache's last zones, whose blocks are evicted first) they receive the p candidates; what
//! else the group held moves to the SMR zones the candidates leave. Choice where the paper is
//! silent: the group converted is the one holding the most candidates (fewest moves), the one
//! nearest the CMR/SMR boundary among equals. Not here: deciding what converts (`algorithm1`).

use smr_core::Op;

use super::drive::Image;
use super::mapping::Role;
use super::Fluid;
use smr_kernel::metrics::{Exercise, Metric, Unit};
use smr_kernel::{ChannelId, IoCtx, SimError};

pub static TO_SMR_CONVERSIONS: Metric =
    Metric::new("to_smr_conversions", Unit::Count, "FluidSMR: groups converted CMR to SMR by format adaptation");
pub static TO_CMR_CONVERSIONS: Metric =
    Metric::new("to_cmr_conversions", Unit::Count, "FluidSMR: groups converted SMR to CMR by format adaptation");
pub static CONVERTED: Exercise = Exercise {
    counters: &[&TO_SMR_CONVERSIONS, &TO_CMR_CONVERSIONS],
    when_never:
        "format adaptation converted no group between CMR and SMR: these figures are those of the scheme without it",
};
pub static MOVED_BYTES: Metric = Metric::new(
    "moved_bytes",
    Unit::Bytes,
    "FluidSMR: bytes written to move zones' data (swaps, conversions, allocations)",
);

/// What a move carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Content {
    User(u32),
    CacheZone,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    pub content: Content,
    pub from: u32,
    pub to: u32,
}

impl Fluid {
    /// Carries out `moves`, converting `conversion` = (group, to CMR?) between the reads and
    /// the writes. Every I/O goes through channel `ch`.
    pub fn relocate(
        &mut self,
        ctx: &mut IoCtx,
        ch: ChannelId,
        moves: &[Move],
        conversion: Option<(u64, bool)>,
    ) -> Result<(), SimError> {
        let zone_size = self.geo.zone_size;
        let mut images: Vec<(u64, Image)> = Vec::with_capacity(moves.len());
        for m in moves {
            images.push(match m.content {
                Content::User(user) => self.read_user_zone(ctx, ch, user)?,
                Content::CacheZone => {
                    self.drive.io(ctx, ch, Op::Read, m.from, 0, zone_size)?;
                    (zone_size, self.drive.image(m.from, 0, self.geo.blocks_per_zone()))
                }
            });
        }
        if let Some((group, to_cmr)) = conversion {
            let zones: Vec<u32> = (0..self.geo.gain.smr).map(|s| self.geo.zone(group, s)).collect();
            for &zone in &zones {
                self.map.set_role(zone, Role::Free);
            }
            self.drive.convert(ctx, group, to_cmr)?;
        }
        for (m, (len, image)) in moves.iter().zip(&images) {
            if !self.drive.is_cmr(m.to) {
                self.drive.reset(m.to)?;
            }
            if *len > 0 {
                self.drive.io(ctx, ch, Op::Write, m.to, 0, *len)?;
            }
            self.drive.store_image(m.to, 0, image);
            self.counts.moved_bytes += len;
            match m.content {
                Content::User(user) => {
                    self.map.place(user, m.to);
                    self.drive.store_entry(m.to, user);
                }
                Content::CacheZone => {
                    if self.map.role(m.from) == Role::Cache {
                        self.map.set_role(m.from, Role::Free);
                    }
                    self.map.set_role(m.to, Role::Cache);
                    if let Some(cache) = self.cache.as_mut() {
                        cache.move_zone(m.from, m.to);
                    }
                }
            }
        }
        self.counts.map_persists += 1;
        Ok(())
    }

    /// Reads user zone `user` whole for a move: its zone's data and, from the cache, its cached
    /// blocks, which leave the cache (merged into what moves). Returns the bytes to write and
    /// what they hold.
    pub fn read_user_zone(&mut self, ctx: &mut IoCtx, ch: ChannelId, user: u32) -> Result<(u64, Image), SimError> {
        let zone = self.map.zone_of(user);
        let stored = if self.drive.is_cmr(zone) { self.map.valid(user) } else { self.drive.written(zone) };
        if stored > 0 {
            self.drive.io(ctx, ch, Op::Read, zone, 0, stored)?;
        }
        let mut image = self.drive.image(zone, 0, self.geo.blocks_per_zone());
        self.merge_cached(ctx, ch, user, &mut image)?;
        Ok((self.map.valid(user), image))
    }

    /// The moves that put group `group`'s user data into the group's own SMR zones after its
    /// conversion to SMR (the data held in flight meanwhile).
    pub fn group_contents_to_new_smr(&self, group: u64) -> Vec<Move> {
        self.drive
            .zones_of(group)
            .enumerate()
            .filter_map(|(slot, zone)| match self.map.role(zone) {
                Role::Data(user) => {
                    Some(Move { content: Content::User(user), from: zone, to: self.geo.zone(group, slot as u64) })
                }
                _ => None,
            })
            .collect()
    }

    /// The group of format `cmr` holding the most of `users`, nearest the boundary among equals.
    fn group_for(&self, users: &[u32], cmr: bool) -> Option<u64> {
        let holding = |g: u64| users.iter().filter(|&&u| self.geo.group_of(self.map.zone_of(u)) == g).count();
        // An SMR group holding a lone CMR zone of the cache is not converted.
        let usable = |g: u64| {
            self.drive.group_is_cmr(g) == cmr
                && self.drive.zones_of(g).all(|z| match self.map.role(z) {
                    Role::Reserved => false,
                    Role::Cache => cmr,
                    _ => true,
                })
        };
        let candidates = (0..self.geo.groups).filter(|&g| usable(g));
        // Nearest the boundary: the innermost CMR group, the outermost SMR group.
        if cmr {
            candidates.rev().max_by_key(|&g| (holding(g), g))
        } else {
            candidates.max_by_key(|&g| (holding(g), std::cmp::Reverse(g)))
        }
    }

    /// Algorithm 1, line 21: `users` (C_conv CMR user zones) move to SMR.
    pub fn convert_to_smr(&mut self, ctx: &mut IoCtx, users: &[u32]) -> Result<(), SimError> {
        let Some(group) = self.group_for(users, true) else { return Ok(()) };
        let in_group = |f: &Fluid, zone: u32| f.geo.group_of(zone) == group;
        let mut freed: Vec<u32> = users.iter().map(|&u| self.map.zone_of(u)).filter(|&z| !in_group(self, z)).collect();
        let mut moves: Vec<Move> = users
            .iter()
            .enumerate()
            .map(|(i, &u)| Move {
                content: Content::User(u),
                from: self.map.zone_of(u),
                to: self.geo.zone(group, i as u64),
            })
            .collect();
        for zone in self.drive.zones_of(group).collect::<Vec<_>>() {
            let content = match self.map.role(zone) {
                Role::Data(user) if !users.contains(&user) => Content::User(user),
                Role::Cache => Content::CacheZone,
                _ => continue,
            };
            let to = freed.pop().expect("a conversion to SMR frees more CMR zones than its group held");
            moves.push(Move { content, from: zone, to });
        }
        let ch = self.ch.convert;
        self.relocate(ctx, ch, &moves, Some((group, false)))?;
        for zone in freed {
            self.map.set_role(zone, Role::Cache);
            if let Some(cache) = self.cache.as_mut() {
                cache.add_zone(zone);
            }
        }
        self.counts.to_smr += 1;
        Ok(())
    }

    /// Algorithm 1, line 28: `users` (C_conv SMR user zones) move to CMR. Does nothing when no
    /// SMR group or not enough spare CMR zones are left.
    pub fn convert_to_cmr(&mut self, ctx: &mut IoCtx, users: &[u32]) -> Result<(), SimError> {
        let Some(group) = self.group_for(users, false) else { return Ok(()) };
        let extra = (self.geo.gain.surplus()) as usize;
        let mut homes: Vec<u32> = self.free_zones().filter(|&z| self.drive.is_cmr(z)).take(extra).collect();
        while homes.len() < extra {
            let Some(zone) = self.retire_last_cache_zone(ctx)? else { return Ok(()) };
            homes.push(zone);
        }
        let in_group = |f: &Fluid, zone: u32| f.geo.group_of(zone) == group;
        let mut freed: Vec<u32> = users.iter().map(|&u| self.map.zone_of(u)).filter(|&z| !in_group(self, z)).collect();
        for &zone in &homes {
            self.map.set_role(zone, Role::Reserved);
        }
        let new_cmr = (0..self.geo.gain.cmr).map(|s| self.geo.zone(group, s));
        let targets: Vec<u32> = new_cmr.chain(homes.iter().copied()).collect();
        let mut moves: Vec<Move> = users
            .iter()
            .zip(&targets)
            .map(|(&u, &to)| Move { content: Content::User(u), from: self.map.zone_of(u), to })
            .collect();
        for zone in self.drive.zones_of(group).collect::<Vec<_>>() {
            if let Role::Data(user) = self.map.role(zone) {
                if !users.contains(&user) {
                    let to =
                        freed.pop().expect("a conversion to CMR frees as many SMR zones as its group held of others");
                    moves.push(Move { content: Content::User(user), from: zone, to });
                }
            }
        }
        let ch = self.ch.convert;
        self.relocate(ctx, ch, &moves, Some((group, true)))?;
        self.counts.to_cmr += 1;
        Ok(())
    }
}
