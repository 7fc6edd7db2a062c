//! A host-managed zoned SMR disk: equal zones (default 256 MiB), the first ones conventional
//! (default 16 GiB of them), the rest sequential-write-required, with one HDD timing model over
//! the whole address space — so seeks between the cache zones at the outer edge and data zones
//! further in cost what they cost. Every write passes the `ZoneTable` checks: a translation
//! layer that writes a sequential zone anywhere but at its write pointer gets a device error.
//!
//! Layout, decided here once for every translation layer: zone 0 is the checkpoint zone and the
//! other conventional zones are the on-media cache; the last sequential zone is the temporary
//! zone that holds a backup copy during garbage collection; the sequential zones before it are
//! the data zones, which hold the host's address space in order and start full (the volume's
//! existing contents).

use smr_core::zoned::{ZoneError, ZoneTable};
use smr_core::{Op, ParamError};

use crate::error::SimError;
use crate::ioctx::{ChannelId, DeviceId, IoCtx};
use crate::registry::{BuildContext, ParamDoc};

/// The drive parameters every translation layer on this disk accepts.
pub const ZONE_SIZE: ParamDoc = ParamDoc { key: "zone_size", default: "256MiB", help: "zone size of the host-managed drive, bytes" };
pub const CONVENTIONAL: ParamDoc = ParamDoc {
    key: "conventional",
    default: "16GiB",
    help: "bytes of conventional (rewritable) zones at the start of the drive: the checkpoint zone, then the on-media cache",
};

pub struct HmSmrDisk {
    table: ZoneTable,
    device: DeviceId,
}

fn device_error(e: ZoneError) -> SimError {
    SimError::Device(e.to_string())
}

impl HmSmrDisk {
    /// Reads `zone_size` and `conventional` (bytes of conventional zones) and the `disk` preset;
    /// the data zones must hold `min_data_capacity` bytes.
    pub fn build(b: &mut BuildContext<'_>, min_data_capacity: u64) -> Result<Self, SimError> {
        let zone_size = b.params.size("zone_size", 256 << 20)?;
        let conventional = b.params.size("conventional", 16 << 30)?;
        if conventional % zone_size != 0 || conventional < 2 * zone_size {
            return Err(ParamError::new("conventional", format!("must be a multiple of zone_size ({zone_size} bytes) holding at least two zones (checkpoint and cache)")).into());
        }
        let conventional_zones = conventional / zone_size;
        let data_zones = min_data_capacity.div_ceil(zone_size).max(1);
        let zones = conventional_zones + data_zones + 1;
        let medium = smr_core::media::disk_from_params(b.params, zones * zone_size)?;
        // The disk is used whole: zones past those the trace needs are data zones nobody writes.
        let zones = medium.capacity() / zone_size;
        let mut table = ZoneTable::new(zone_size, zones, conventional_zones).map_err(device_error)?;
        for zone in conventional_zones..zones - 1 {
            table.finish(zone).map_err(device_error)?;
        }
        let device = b.ctx.add_device("disk", medium);
        Ok(HmSmrDisk { table, device })
    }

    pub fn channel(&self, ctx: &mut IoCtx, name: &str) -> ChannelId {
        ctx.channel(self.device, name)
    }

    pub fn zone_size(&self) -> u64 {
        self.table.zone_size()
    }

    /// The on-media cache: conventional zones after the checkpoint zone, as a byte range.
    pub fn cache_range(&self) -> std::ops::Range<u64> {
        self.zone_size()..self.table.conventional_zones() * self.zone_size()
    }

    /// Where host address 0 lives: the first data zone.
    pub fn data_start(&self) -> u64 {
        self.table.conventional_zones() * self.zone_size()
    }

    /// Host-visible bytes: the data zones.
    pub fn data_capacity(&self) -> u64 {
        self.temporary_zone() * self.zone_size() - self.data_start()
    }

    pub fn temporary_zone(&self) -> u64 {
        self.table.zone_count() - 1
    }

    pub fn table(&self) -> &ZoneTable {
        &self.table
    }

    /// One timed I/O, checked against the zone rules zone by zone first: an I/O may span zones
    /// (a read anywhere, a write across conventional zones), but each piece of a write in a
    /// sequential zone must start at that zone's write pointer.
    pub fn io(&mut self, ctx: &mut IoCtx, ch: ChannelId, op: Op, offset: u64, len: u64) -> Result<u64, SimError> {
        let size = self.zone_size();
        let mut at = offset;
        while at < offset + len {
            let piece = ((at / size + 1) * size).min(offset + len) - at;
            match op {
                Op::Write => self.table.write(at, piece).map(|_| ()),
                _ => self.table.check_range(at, piece).map(|_| ()),
            }
            .map_err(device_error)?;
            at += piece;
        }
        Ok(ctx.io(ch, op, offset, len))
    }

    /// Rewinds sequential zone `zone` (no media time: a reset is a metadata command).
    pub fn reset(&mut self, zone: u64) -> Result<(), SimError> {
        self.table.reset(zone).map_err(device_error)
    }

    /// The cleaning of one data zone that every translation layer here does: read the zone and
    /// its cached pieces (`cached`: byte ranges in the cache), merge them, write the merged zone
    /// to the temporary zone as a backup, then rewrite the zone. Returns the bytes read.
    pub fn clean_data_zone(&mut self, ctx: &mut IoCtx, ch: ChannelId, zone: u64, cached: &[(u64, u64)]) -> Result<u64, SimError> {
        let size = self.zone_size();
        self.io(ctx, ch, Op::Read, zone * size, size)?;
        let mut read = size;
        for &(offset, len) in cached {
            self.io(ctx, ch, Op::Read, offset, len)?;
            read += len;
        }
        let temporary = self.temporary_zone();
        self.reset(temporary)?;
        self.io(ctx, ch, Op::Write, temporary * size, size)?;
        self.reset(zone)?;
        self.io(ctx, ch, Op::Write, zone * size, size)?;
        Ok(read)
    }
}
