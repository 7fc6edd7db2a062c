//! A zoned disk under simulation: the zone rules of `smr_zoned::ZoneTable` over one timed
//! device of the `IoCtx`. Every I/O passes the rules first, so a system that writes a
//! sequential zone anywhere but at its write pointer gets a device error instead of a silently
//! wrong result. Not here: how a system lays out its zones (a translation layer's cache and
//! data zones, a hybrid drive's CMR and SMR areas).

use smr_core::Op;
use smr_media::Medium;
use smr_zoned::{ZoneError, ZoneTable};

use super::error::SimError;
use super::ioctx::{ChannelId, DeviceId, IoCtx};

pub struct ZonedDisk {
    table: ZoneTable,
    device: DeviceId,
}

fn device_error(e: ZoneError) -> SimError {
    SimError::Device(e.to_string())
}

impl ZonedDisk {
    /// Registers `medium` with `ctx` as device `name`, governed by `table`.
    pub fn new(ctx: &mut IoCtx, name: &str, medium: Box<dyn Medium>, table: ZoneTable) -> Self {
        ZonedDisk { device: ctx.add_device(name, medium), table }
    }

    /// A named channel on this disk, for reporting its I/O apart.
    pub fn channel(&self, ctx: &mut IoCtx, name: &str) -> ChannelId {
        ctx.channel(self.device, name)
    }

    pub fn table(&self) -> &ZoneTable {
        &self.table
    }

    /// One timed I/O through `ch`, admitted by the zone rules first (it may span zones).
    pub fn io(&mut self, ctx: &mut IoCtx, ch: ChannelId, op: Op, offset: u64, len: u64) -> Result<u64, SimError> {
        self.table.admit(op, offset, len).map_err(device_error)?;
        Ok(ctx.io(ch, op, offset, len))
    }

    /// Rewinds sequential zone `zone` (no media time: a reset is a metadata command).
    pub fn reset(&mut self, zone: u64) -> Result<(), SimError> {
        self.table.reset(zone).map_err(device_error)
    }

    /// Moves sequential zone `zone`'s write pointer to its end (no media time).
    pub fn finish(&mut self, zone: u64) -> Result<(), SimError> {
        self.table.finish(zone).map_err(device_error)
    }
}
