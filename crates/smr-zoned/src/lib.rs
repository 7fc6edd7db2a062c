//! Zoned block devices as host-managed SMR drives present them (ZBC/ZAC, Linux `blkzoned`):
//! the address space is cut into equal zones, each conventional (rewritable anywhere) or
//! sequential-write-required, which can only be written at its write pointer and is rewound
//! by a reset. `ZoneTable` holds the rules (write pointers, conditions, checks) without data, so
//! simulated drives and real backends enforce exactly the same ones; `ZonedDevice` is the
//! interface of a device that also stores data: in memory (`MemZonedDevice`, for tests), in one
//! sparse file with durable write pointers (`FileZonedDevice`), and either of them with an HDD
//! preset's simulated time added (`TimedZonedDevice`), so a store can report disk time.
//!
//! Simplifications, stated: zones are not opened or closed explicitly (a written zone is
//! "implicitly open" until full; no open-zone limit); a write may not cross a zone boundary;
//! reads of a sequential zone above its write pointer return zeros (as drives that allow
//! unrestricted reads do). Not here: the simulator's zoned disk, which times I/O through its
//! `IoCtx` (`smr_kernel::zoned_disk`), and any layout of zones a system chooses.

#[cfg(test)]
mod device_commands;
mod file;
mod memory;
mod table;
mod timed;

pub use file::{FileGeometry, FileZonedDevice};
pub use memory::MemZonedDevice;
pub use table::ZoneTable;
pub use timed::{DiskActivity, TimedZonedDevice};

use serde::{Deserialize, Serialize};

/// The two kinds of zones on a host-managed drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneKind {
    /// Rewritable anywhere; has no write pointer.
    Conventional,
    /// Writable only at the write pointer; rewound by a reset.
    SequentialWriteRequired,
}

/// A zone's state, as a zone report gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ZoneCondition {
    NotWritePointer,
    Empty,
    ImplicitlyOpen,
    Full,
}

/// One line of a zone report.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ZoneInfo {
    pub start: u64,
    pub len: u64,
    /// Absolute byte address of the next write (for conventional zones, the zone's start).
    pub write_pointer: u64,
    pub kind: ZoneKind,
    pub condition: ZoneCondition,
}

/// A command the zone rules refuse; each names the zone and offset involved.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ZoneError {
    #[error("write at byte {offset} in sequential zone {zone} is not at its write pointer {write_pointer}")]
    NotAtWritePointer { zone: u64, offset: u64, write_pointer: u64 },
    #[error("I/O at byte {offset} (+{len}) crosses the end of zone {zone}")]
    CrossesZone { zone: u64, offset: u64, len: u64 },
    #[error("I/O at byte {offset} (+{len}) is beyond the device capacity of {capacity} bytes")]
    BeyondCapacity { offset: u64, len: u64, capacity: u64 },
    #[error("zone {zone} is full: {len} more bytes do not fit (reset it first)")]
    Full { zone: u64, len: u64 },
    #[error("zone {zone} is conventional: it has no write pointer")]
    Conventional { zone: u64 },
    #[error("zone {zone} does not exist (the device has {zones} zones)")]
    NoSuchZone { zone: u64, zones: u64 },
    #[error("invalid zoned geometry: {0}")]
    Geometry(String),
    /// The operating system refused an I/O on a file-backed device.
    #[error("{path}: {op} failed: {message}")]
    Io { path: String, op: String, message: String },
    /// A file is not a zoned-device file of this format, or its header is damaged.
    #[error("{path} is not a usable zoned-device file: {problem}")]
    BadFile { path: String, problem: String },
}

/// A zoned device that stores data.
pub trait ZonedDevice {
    /// The zone rules and state the device keeps.
    fn table(&self) -> &ZoneTable;
    fn zone_size(&self) -> u64 {
        self.table().zone_size()
    }
    fn zone_count(&self) -> u64 {
        self.table().zone_count()
    }
    fn capacity(&self) -> u64 {
        self.zone_size() * self.zone_count()
    }
    fn report_zones(&self) -> Vec<ZoneInfo> {
        self.table().report()
    }
    /// Reads `buf.len()` bytes at `offset` (within one zone).
    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<(), ZoneError>;
    /// Writes `data` at `offset`: anywhere in a conventional zone, at the write pointer of a
    /// sequential one.
    fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<(), ZoneError>;
    /// Writes `data` at the write pointer of sequential zone `zone`; returns where it landed.
    fn append(&mut self, zone: u64, data: &[u8]) -> Result<u64, ZoneError>;
    /// Rewinds a sequential zone to empty (its data is gone).
    fn reset(&mut self, zone: u64) -> Result<(), ZoneError>;
    /// Moves a sequential zone's write pointer to its end (full).
    fn finish(&mut self, zone: u64) -> Result<(), ZoneError>;
}
