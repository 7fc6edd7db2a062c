//! The zoned devices a store runs on, behind one object-safe interface that shared threads can
//! call: `BandDevice`. Any `ZonedDevice` of smr-zoned that can also make its writes durable
//! (`Persist`) serves: the file-backed device (real persistence), the memory one (tests) and
//! either of them with a disk's simulated time. Reads share a read lock; writes, resets and
//! syncs take the write lock, as one host-managed drive serves one command at a time.

use std::sync::{RwLock, RwLockReadGuard, RwLockWriteGuard};

use smr_zoned::{
    DiskActivity, FileZonedDevice, MemZonedDevice, TimedZonedDevice, ZoneError, ZoneInfo, ZoneKind, ZonedDevice,
};

/// A zoned device that can make what was written durable.
pub trait Persist {
    /// Makes every write so far and the write pointers durable.
    fn persist(&mut self) -> Result<(), ZoneError>;
    /// The simulated disk's activity, if the device is timed.
    fn activity(&self) -> Option<DiskActivity> {
        None
    }
    /// Bytes of storage the device takes on this machine, where that is known.
    fn allocated_bytes(&self) -> Option<u64> {
        None
    }
}

impl Persist for MemZonedDevice {
    fn persist(&mut self) -> Result<(), ZoneError> {
        Ok(())
    }
}

impl Persist for FileZonedDevice {
    fn persist(&mut self) -> Result<(), ZoneError> {
        self.sync()
    }

    fn allocated_bytes(&self) -> Option<u64> {
        FileZonedDevice::allocated_bytes(self).ok()
    }
}

impl<D: ZonedDevice + Persist> Persist for TimedZonedDevice<D> {
    fn persist(&mut self) -> Result<(), ZoneError> {
        self.inner_mut().persist()
    }

    fn activity(&self) -> Option<DiskActivity> {
        Some(TimedZonedDevice::activity(self))
    }

    fn allocated_bytes(&self) -> Option<u64> {
        self.inner().allocated_bytes()
    }
}

/// Bytes written in each zone of a zone report (0 for conventional zones).
pub fn zone_fill(zones: &[ZoneInfo]) -> Vec<u64> {
    zones
        .iter()
        .map(|z| match z.kind {
            ZoneKind::Conventional => 0,
            ZoneKind::SequentialWriteRequired => z.write_pointer - z.start,
        })
        .collect()
}

/// What the store needs of a device, callable from several threads.
pub trait BandDevice: Send + Sync {
    fn zone_size(&self) -> u64;
    fn zone_count(&self) -> u64;
    fn conventional_zones(&self) -> u64;
    /// Bytes written in each zone (0 for conventional zones).
    fn filled(&self) -> Vec<u64>;
    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<(), ZoneError>;
    fn write_at(&self, offset: u64, data: &[u8]) -> Result<(), ZoneError>;
    fn append(&self, zone: u64, data: &[u8]) -> Result<u64, ZoneError>;
    fn reset(&self, zone: u64) -> Result<(), ZoneError>;
    fn sync(&self) -> Result<(), ZoneError>;
    fn activity(&self) -> Option<DiskActivity>;
    fn allocated_bytes(&self) -> Option<u64>;
}

/// A `ZonedDevice + Persist` shared between threads.
pub struct Shared<D> {
    device: RwLock<D>,
    conventional: u64,
}

impl<D: ZonedDevice + Persist + Send + Sync> Shared<D> {
    pub fn new(device: D) -> Self {
        let conventional = device.report_zones().iter().filter(|z| z.kind == ZoneKind::Conventional).count() as u64;
        Shared { device: RwLock::new(device), conventional }
    }

    // A panic while a device command runs is a bug; the zone table it guards is updated only
    // after a command is admitted, so the state behind a poisoned lock is still consistent.
    fn shared(&self) -> RwLockReadGuard<'_, D> {
        self.device.read().unwrap_or_else(|p| p.into_inner())
    }

    fn exclusive(&self) -> RwLockWriteGuard<'_, D> {
        self.device.write().unwrap_or_else(|p| p.into_inner())
    }
}

impl<D: ZonedDevice + Persist + Send + Sync> BandDevice for Shared<D> {
    fn zone_size(&self) -> u64 {
        self.shared().zone_size()
    }

    fn zone_count(&self) -> u64 {
        self.shared().zone_count()
    }

    fn conventional_zones(&self) -> u64 {
        self.conventional
    }

    fn filled(&self) -> Vec<u64> {
        zone_fill(&self.shared().report_zones())
    }

    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<(), ZoneError> {
        self.shared().read(offset, buf)
    }

    fn write_at(&self, offset: u64, data: &[u8]) -> Result<(), ZoneError> {
        self.exclusive().write_at(offset, data)
    }

    fn append(&self, zone: u64, data: &[u8]) -> Result<u64, ZoneError> {
        self.exclusive().append(zone, data)
    }

    fn reset(&self, zone: u64) -> Result<(), ZoneError> {
        self.exclusive().reset(zone)
    }

    fn sync(&self) -> Result<(), ZoneError> {
        self.exclusive().persist()
    }

    fn activity(&self) -> Option<DiskActivity> {
        self.shared().activity()
    }

    fn allocated_bytes(&self) -> Option<u64> {
        self.shared().allocated_bytes()
    }
}
