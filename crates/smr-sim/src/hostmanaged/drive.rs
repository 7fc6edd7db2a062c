//! The host-managed zoned SMR disk the translation layers stand on: equal zones (default
//! 256 MiB), the first ones conventional (default 16 GiB of them), the rest
//! sequential-write-required, with one HDD timing model over the whole address space — so seeks
//! between the cache zones at the outer edge and data zones further in cost what they cost. The
//! zone rules and timing are the kernel's `ZonedDisk`: a translation layer that writes a
//! sequential zone anywhere but at its write pointer gets a device error.
//!
//! Layout, decided here once for every translation layer: zone 0 is the checkpoint zone and the
//! other conventional zones are the on-media cache; the last sequential zone is the temporary
//! zone that holds a backup copy during garbage collection; the sequential zones before it are
//! the data zones, which hold the host's address space in order and start full (the volume's
//! existing contents).
//!
//! How the layers are timed, after the paper's emulation (§IV): "Trace replay was performed by
//! fio, an I/O testing tool, using libaio I/O engine with iodepth of 31", the translated traces
//! holding "remapped host I/Os, bucket promotion reads and writes for μCache, and garbage
//! collection operations", "Promotion and GC I/Os were split into 512 KiB operations". So every
//! layer here is replayed as a translated trace (`REPLAY`): a request's commands wait for none
//! of one another, each is split into pieces of at most 512 KiB (`MAX_COMMAND`), and the
//! drive queues 31 commands (`QUEUE_DEPTH`, served shortest positioning time first), which a
//! closed loop keeping 31 requests in flight (the engine's `iodepth`, set by the uCache
//! experiments) keeps full. At an iodepth of 1 the commands run one after another, as before
//! the replay queued.

use smr_core::units::KIB;
use smr_core::Op;
use smr_zoned::{ZoneError, ZoneTable};

use smr_kernel::disk::{check_table, disk_with, DiskSpecs, DISK, DISK_CACHE_PARAMS, DISK_WRITE_CACHE};
use smr_kernel::gc::GcCost;
use smr_kernel::zoned_disk::ZonedDisk;
use smr_kernel::{BuildContext, ChannelId, Concurrency, IoCtx, Kind, ParamSpec, SimError};

/// The largest command of a replayed translated trace (§IV: "Promotion and GC I/Os were split
/// into 512 KiB operations, a common limit for SCSI reads and writes").
pub const MAX_COMMAND: u64 = 512 * KIB;

/// How every translation layer here is replayed: as its translated trace (see the module
/// documentation).
pub const REPLAY: Concurrency = Concurrency::Translated { max_command: MAX_COMMAND };

/// The drive's command queue: the paper's fio keeps 31 commands in flight (§IV) on a SATA drive
/// (Table II), whose native command queueing holds them all.
pub const QUEUE_DEPTH: ParamSpec = ParamSpec::new(
    "disk_queue_depth",
    Kind::Whole,
    "31",
    "commands the drive holds at once, served shortest positioning time first (1 to 256; 1: one at a time, in order)",
)
.open("the paper replays at iodepth 31 on a SATA drive (Table II) but does not say whether the drive reordered the commands; native command queueing, which SATA drives ship with on, holds all 31");

const DISK_SPECS: DiskSpecs = DiskSpecs { preset: &DISK, write_cache: &DISK_WRITE_CACHE, queue_depth: &QUEUE_DEPTH };

/// The disk parameters every translation layer here declares: the shared ones, with this
/// drive's queue depth.
pub const DISK_PARAMS: [ParamSpec; 6] =
    [DISK, DISK_CACHE_PARAMS[0], DISK_CACHE_PARAMS[1], DISK_CACHE_PARAMS[2], DISK_WRITE_CACHE, QUEUE_DEPTH];

/// The drive parameters every translation layer on this disk accepts.
pub const ZONE_SIZE: ParamSpec =
    ParamSpec::new("zone_size", Kind::Size, "256MiB", "zone size of the host-managed drive");
pub const CONVENTIONAL: ParamSpec = ParamSpec::new(
    "conventional",
    Kind::Size,
    "16GiB",
    "bytes of conventional (rewritable) zones at the start of the drive: the checkpoint zone, then the on-media cache",
);

pub struct HmSmrDisk {
    disk: ZonedDisk,
}

fn geometry_error(e: ZoneError) -> SimError {
    SimError::Device(e.to_string())
}

impl HmSmrDisk {
    /// Reads `zone_size` and `conventional` (bytes of conventional zones) and the `disk` preset;
    /// the data zones must hold `min_data_capacity` bytes.
    pub fn build(b: &mut BuildContext<'_>, min_data_capacity: u64) -> Result<Self, SimError> {
        let zone_size = b.params.size(&ZONE_SIZE)?;
        let conventional = b.params.size(&CONVENTIONAL)?;
        if conventional % zone_size != 0 || conventional < 2 * zone_size {
            return Err(b.params.error(&CONVENTIONAL, format!("must be a multiple of zone_size ({zone_size} bytes) holding at least two zones (checkpoint and cache)")).into());
        }
        let conventional_zones = conventional / zone_size;
        let data_zones = min_data_capacity.div_ceil(zone_size).max(1);
        let needed = conventional_zones.checked_add(data_zones + 1).and_then(|zones| zones.checked_mul(zone_size));
        let medium = disk_with(b, &DISK_SPECS, needed.unwrap_or(u64::MAX))?;
        // The disk is used whole: zones past those the trace needs are data zones nobody writes.
        let zones = medium.capacity() / zone_size;
        check_table(b, &ZONE_SIZE, zones, "zones", medium.capacity())?;
        let mut table = ZoneTable::new(zone_size, zones, conventional_zones).map_err(geometry_error)?;
        for zone in conventional_zones..zones - 1 {
            table.finish(zone).map_err(geometry_error)?;
        }
        Ok(HmSmrDisk { disk: ZonedDisk::new(b.ctx, "disk", medium, table) })
    }

    pub fn channel(&self, ctx: &mut IoCtx, name: &str) -> ChannelId {
        self.disk.channel(ctx, name)
    }

    pub fn zone_size(&self) -> u64 {
        self.table().zone_size()
    }

    /// The on-media cache: conventional zones after the checkpoint zone, as a byte range.
    pub fn cache_range(&self) -> std::ops::Range<u64> {
        self.zone_size()..self.table().conventional_zones() * self.zone_size()
    }

    /// Where host address 0 lives: the first data zone.
    pub fn data_start(&self) -> u64 {
        self.table().conventional_zones() * self.zone_size()
    }

    /// Host-visible bytes: the data zones.
    pub fn data_capacity(&self) -> u64 {
        self.temporary_zone() * self.zone_size() - self.data_start()
    }

    pub fn temporary_zone(&self) -> u64 {
        self.table().zone_count() - 1
    }

    pub fn table(&self) -> &ZoneTable {
        self.disk.table()
    }

    /// One timed I/O, admitted by the zone rules first (it may span zones).
    pub fn io(&mut self, ctx: &mut IoCtx, ch: ChannelId, op: Op, offset: u64, len: u64) -> Result<u64, SimError> {
        self.disk.io(ctx, ch, op, offset, len)
    }

    /// Rewinds sequential zone `zone` (no media time: a reset is a metadata command).
    pub fn reset(&mut self, zone: u64) -> Result<(), SimError> {
        self.disk.reset(zone)
    }

    /// The cleaning of one data zone that every translation layer here does: read the zone and
    /// its cached pieces (`cached`: byte ranges in the cache), merge them, write the merged zone
    /// to the temporary zone as a backup, then rewrite the zone; its cost goes to `gc`.
    pub fn clean_data_zone(
        &mut self,
        ctx: &mut IoCtx,
        ch: ChannelId,
        zone: u64,
        cached: &[(u64, u64)],
        gc: &mut GcCost,
    ) -> Result<(), SimError> {
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
        gc.record(read, 2 * size);
        Ok(())
    }
}
