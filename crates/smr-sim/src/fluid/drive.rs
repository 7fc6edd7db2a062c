//! The hybrid (H-SMR) drive under one H-Partition: zones in CMR or SMR format, group by group,
//! the zone rules of `smr_zoned::ZoneTable` (an SMR zone takes writes only at its write
//! pointer; a CMR zone anywhere), one timed medium with the drive's cache off (§7.1), and the
//! format conversion command: one group at a time, 50 ms, destroying what the group held.
//!
//! Optionally the drive also keeps what every block holds (`Contents`: a version number per
//! written block), so tests can prove that data survives conversions, swaps and evictions; the
//! timing never depends on it. Not here: what is stored where (`mapping`), why data moves.

use rustc_hash::FxHashMap;
use smr_core::Op;
use smr_media::Medium;
use smr_zoned::{ZoneKind, ZoneTable};

use super::geometry::{Geometry, BLOCK};
use smr_kernel::ioctx::DeviceId;
use smr_kernel::metrics::{Metric, Unit};
use smr_kernel::{ChannelId, IoCtx, SimError};

pub static SMR_AREA_BYTES: Metric = Metric::new(
    "smr_area_bytes",
    Unit::Bytes,
    "FluidSMR: bytes of the partition in SMR format (its SMR zones: data, unused and guard range)",
);
pub static CONVERSION_COMMANDS: Metric =
    Metric::new("conversion_commands", Unit::Count, "FluidSMR: format conversion commands (one group each, 50 ms)");

/// A conversion command's time (§4.3: about 50 ms per command).
pub const CONVERSION_NS: u64 = 50_000_000;

/// What each block of the drive holds, when kept: a version per (zone, block); a block never
/// written, or destroyed by a conversion or reset, holds nothing.
#[derive(Default)]
pub struct Contents {
    blocks: FxHashMap<(u32, u32), u64>,
    /// The zone-mapping entry each zone's first sector holds (§4.2): the user zone stored there.
    entries: FxHashMap<u32, u32>,
}

/// Versions of a run of blocks read from the drive (`None` when contents are not kept).
pub type Image = Option<Vec<Option<u64>>>;

pub struct HybridDrive {
    pub geo: Geometry,
    table: ZoneTable,
    /// Per group: true when in CMR format.
    cmr: Vec<bool>,
    /// An SMR group's zone formatted CMR on its own (a cache with no whole CMR zone to spare,
    /// `allocation`): it holds `Geometry::lone_cmr_bytes` at its SMR place.
    lone: Option<u32>,
    device: DeviceId,
    contents: Option<Contents>,
    conversions: u64,
    /// Per zone, how often it was reset or converted (its write pointer rewound).
    rewinds: Vec<u32>,
}

fn device_error(e: smr_zoned::ZoneError) -> SimError {
    SimError::Device(e.to_string())
}

impl HybridDrive {
    /// A drive of `geo.groups` groups, the first `cmr_groups` (outermost) in CMR and the rest in
    /// SMR, registered as device "disk" on `medium`.
    pub fn new(
        ctx: &mut IoCtx,
        medium: Box<dyn Medium>,
        geo: Geometry,
        cmr_groups: u64,
        keep_contents: bool,
    ) -> Result<Self, SimError> {
        let table = ZoneTable::new(geo.zone_size, geo.smr_zones(), 0).map_err(device_error)?;
        let mut drive = HybridDrive {
            geo,
            table,
            cmr: vec![false; geo.groups as usize],
            lone: None,
            device: ctx.add_device("disk", medium),
            contents: keep_contents.then(Contents::default),
            conversions: 0,
            rewinds: vec![0; geo.smr_zones() as usize],
        };
        for group in 0..cmr_groups {
            drive.format(group, true)?;
        }
        Ok(drive)
    }

    pub fn channel(&self, ctx: &mut IoCtx, name: &str) -> ChannelId {
        ctx.channel(self.device, name)
    }

    pub fn is_cmr(&self, zone: u32) -> bool {
        self.cmr[self.geo.group_of(zone) as usize] || self.lone == Some(zone)
    }

    /// Formats SMR zone `zone` as CMR on its own, before the run (no time charged, as the rest
    /// of the layout): a lone CMR zone.
    pub fn format_lone_cmr(&mut self, zone: u32) -> Result<(), SimError> {
        if self.is_cmr(zone) || self.lone.is_some() {
            return Err(SimError::Device(format!("zone {zone} cannot become a lone CMR zone")));
        }
        self.table.convert(zone as u64, ZoneKind::Conventional).map_err(device_error)?;
        self.lone = Some(zone);
        Ok(())
    }

    /// Zones in SMR format: every zone of the SMR groups but a lone CMR zone.
    pub fn smr_area_zones(&self) -> u64 {
        let groups = self.cmr.iter().filter(|&&cmr| !cmr).count() as u64;
        groups * self.geo.gain.smr - u64::from(self.lone.is_some())
    }

    /// The lone CMR zone, if any.
    pub fn lone_cmr(&self) -> Option<u32> {
        self.lone
    }

    pub fn group_is_cmr(&self, group: u64) -> bool {
        self.cmr[group as usize]
    }

    /// Online zones of `group`: its CMR or its SMR zones.
    pub fn zones_of(&self, group: u64) -> impl Iterator<Item = u32> + '_ {
        let n = if self.cmr[group as usize] { self.geo.gain.cmr } else { self.geo.gain.smr };
        (0..n).map(move |slot| self.geo.zone(group, slot))
    }

    /// Bytes written into SMR zone `zone` from its start (its write pointer).
    pub fn written(&self, zone: u32) -> u64 {
        self.table.write_pointer(zone as u64) - zone as u64 * self.geo.zone_size
    }

    /// How often `zone`'s write pointer was rewound (reset or conversion).
    pub fn rewinds(&self, zone: u32) -> u32 {
        self.rewinds[zone as usize]
    }

    pub fn conversions(&self) -> u64 {
        self.conversions
    }

    /// One timed I/O of `len` bytes at `offset` inside `zone`, admitted by the zone rules.
    pub fn io(
        &mut self,
        ctx: &mut IoCtx,
        ch: ChannelId,
        op: Op,
        zone: u32,
        offset: u64,
        len: u64,
    ) -> Result<u64, SimError> {
        let cmr_group = self.cmr[self.geo.group_of(zone) as usize];
        let size = if self.lone == Some(zone) { self.geo.lone_cmr_bytes() } else { self.geo.zone_size };
        if op == Op::Write && !self.is_cmr(zone) {
            self.table.admit(op, zone as u64 * self.geo.zone_size + offset, len).map_err(device_error)?;
        } else if offset + len > size {
            return Err(SimError::Device(format!("I/O at byte {offset} (+{len}) crosses the end of zone {zone}")));
        }
        // A lone CMR zone lies where its SMR zone does.
        Ok(ctx.io(ch, op, self.geo.medium_offset(zone, cmr_group) + offset, len))
    }

    /// Marks the first `bytes` of `zone` as holding data stored before the run (version 0 when
    /// contents are kept), without media time: the volume's existing contents.
    pub fn prefill(&mut self, zone: u32, bytes: u64) -> Result<(), SimError> {
        if !self.is_cmr(zone) {
            self.table.admit(Op::Write, zone as u64 * self.geo.zone_size, bytes).map_err(device_error)?;
        }
        self.store(zone, 0, blocks(bytes), 0);
        Ok(())
    }

    /// Rewinds SMR zone `zone` (a metadata command: no media time); what it held is gone.
    pub fn reset(&mut self, zone: u32) -> Result<(), SimError> {
        self.table.reset(zone as u64).map_err(device_error)?;
        self.rewinds[zone as usize] += 1;
        if let Some(c) = self.contents.as_mut() {
            c.blocks.retain(|&(z, _), _| z != zone);
        }
        Ok(())
    }

    /// The conversion command: formats `group` as CMR (`to_cmr`) or SMR, destroying every zone
    /// of it; takes `CONVERSION_NS` of drive time.
    pub fn convert(&mut self, ctx: &mut IoCtx, group: u64, to_cmr: bool) -> Result<(), SimError> {
        self.format(group, to_cmr)?;
        self.conversions += 1;
        ctx.advance_to(ctx.now() + CONVERSION_NS);
        Ok(())
    }

    fn format(&mut self, group: u64, to_cmr: bool) -> Result<(), SimError> {
        if self.lone.is_some_and(|z| self.geo.group_of(z) == group) {
            return Err(SimError::Device(format!("group {group} holds the lone CMR zone: it is not converted")));
        }
        let q = self.geo.gain.cmr;
        for slot in 0..self.geo.gain.smr {
            let zone = self.geo.zone(group, slot);
            // Slots past a CMR group's zones are offline; they stay sequential and unused.
            let kind = if to_cmr && slot < q { ZoneKind::Conventional } else { ZoneKind::SequentialWriteRequired };
            self.table.convert(zone as u64, kind).map_err(device_error)?;
            self.rewinds[zone as usize] += 1;
            if let Some(c) = self.contents.as_mut() {
                c.blocks.retain(|&(z, _), _| z != zone);
                c.entries.remove(&zone);
            }
        }
        self.cmr[group as usize] = to_cmr;
        Ok(())
    }

    /// Records that blocks `first..first+n` of `zone` now hold `version` (a host write).
    pub fn store(&mut self, zone: u32, first: u64, n: u64, version: u64) {
        if let Some(c) = self.contents.as_mut() {
            for b in first..first + n {
                c.blocks.insert((zone, b as u32), version);
            }
        }
    }

    /// What blocks `first..first+n` of `zone` hold.
    pub fn image(&self, zone: u32, first: u64, n: u64) -> Image {
        self.contents.as_ref().map(|c| (first..first + n).map(|b| c.blocks.get(&(zone, b as u32)).copied()).collect())
    }

    /// Records that blocks from `first` of `zone` now hold `image` (a copy of other blocks).
    pub fn store_image(&mut self, zone: u32, first: u64, image: &Image) {
        if let (Some(c), Some(image)) = (self.contents.as_mut(), image) {
            for (i, version) in image.iter().enumerate() {
                let key = (zone, (first + i as u64) as u32);
                match version {
                    Some(v) => c.blocks.insert(key, *v),
                    None => c.blocks.remove(&key),
                };
            }
        }
    }

    /// Persists the zone-mapping entry in `zone`'s first sector (§4.2): `zone` holds user zone
    /// `user`. Part of the write that fills the zone from its start, so no I/O of its own.
    pub fn store_entry(&mut self, zone: u32, user: u32) {
        if let Some(c) = self.contents.as_mut() {
            c.entries.insert(zone, user);
        }
    }

    /// The entry `zone`'s first sector holds, when contents are kept.
    pub fn entry(&self, zone: u32) -> Option<u32> {
        self.contents.as_ref().and_then(|c| c.entries.get(&zone).copied())
    }
}

/// Blocks of `bytes`, rounded up.
pub fn blocks(bytes: u64) -> u64 {
    bytes.div_ceil(BLOCK)
}
