//! FluidSMR's two-level zone mapping (§4.2): the extendable space the host sees is cut into
//! user zones; each is mapped to a logical zone of the drive (an online CMR or SMR zone), and
//! the logical zone to its physical area by the drive's group formats (`geometry`, `drive`).
//! Every online zone has a role: it holds a user zone's data, is a zone of the CMR cache, is
//! reserved as the target of a migration under way, or is unused.
//!
//! The entry of each zone is also stored in the zone's first sector (`HybridDrive::store_entry`),
//! so the map can be rebuilt from the media; the in-memory copy and its size (§4.2: a zone
//! number per zone) are here. Not here: deciding where data goes (`allocation`, `adapt`,
//! `swap`), the cache's block map (`cache`).

use smr_kernel::metrics::{Gauges, Metric, Unit};

/// Bytes of one zone number in the in-memory map (§4.2 counts 8).
pub const MAP_ENTRY_BYTES: u64 = 8;

pub static ZONE_MAP_BYTES: Metric =
    Metric::new("zone_map_bytes", Unit::Bytes, "FluidSMR: memory of the zone-mapping table, 8 bytes per zone (§4.2)");

/// No zone / no user zone.
pub const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Online and unused (the free area and guard range of §4.4), or offline.
    Free,
    /// Holds user zone `0`'s data.
    Data(u32),
    /// A zone of the CMR cache.
    Cache,
    /// The target of a migration under way.
    Reserved,
}

pub struct ZoneMap {
    /// User zone -> the zone holding it.
    zone_of: Vec<u32>,
    /// Zone -> its role.
    role: Vec<Role>,
    /// Per user zone, bytes from its start that hold data (its high-water mark, cached blocks
    /// included): what a migration of the zone must carry.
    valid: Vec<u64>,
}

impl ZoneMap {
    pub fn new(zones: u64) -> Self {
        ZoneMap { zone_of: Vec::new(), role: vec![Role::Free; zones as usize], valid: Vec::new() }
    }

    /// Appends a user zone holding `valid` bytes, stored in `zone`; returns its number.
    pub fn add_user(&mut self, zone: u32, valid: u64) -> u32 {
        self.zone_of.push(NONE);
        self.valid.push(valid);
        let user = (self.zone_of.len() - 1) as u32;
        self.place(user, zone);
        user
    }

    /// Records that user zone `user` is now stored in `zone` (its old zone becomes free).
    pub fn place(&mut self, user: u32, zone: u32) {
        let old = self.zone_of[user as usize];
        if old != NONE && self.role[old as usize] == Role::Data(user) {
            self.role[old as usize] = Role::Free;
        }
        self.zone_of[user as usize] = zone;
        self.role[zone as usize] = Role::Data(user);
    }

    pub fn users(&self) -> u32 {
        self.zone_of.len() as u32
    }

    pub fn zone_of(&self, user: u32) -> u32 {
        self.zone_of[user as usize]
    }

    pub fn role(&self, zone: u32) -> Role {
        self.role[zone as usize]
    }

    pub fn set_role(&mut self, zone: u32, role: Role) {
        self.role[zone as usize] = role;
    }

    pub fn valid(&self, user: u32) -> u64 {
        self.valid[user as usize]
    }

    pub fn extend_valid(&mut self, user: u32, end: u64) {
        let v = &mut self.valid[user as usize];
        *v = (*v).max(end);
    }

    /// Zones with role `role`.
    pub fn zones_with(&self, role: Role) -> impl Iterator<Item = u32> + '_ {
        self.role.iter().enumerate().filter(move |(_, r)| **r == role).map(|(z, _)| z as u32)
    }

    /// The in-memory map's size (§4.2): one zone number per zone.
    pub fn memory_bytes(&self) -> u64 {
        self.role.len() as u64 * MAP_ENTRY_BYTES
    }

    pub fn gauges(&self, out: &mut Gauges) {
        out.set(&ZONE_MAP_BYTES, self.memory_bytes() as f64);
    }
}
