//! A device whose commands take a medium's time in real time: every read and write is timed on
//! a `Medium` (an HDD preset, or an NVRAM profile) as `TimedZonedDevice` does, and the calling
//! thread then sleeps for that time while holding the device, as a drive with one head serves
//! one command at a time. It emulates, on whatever storage this machine has, the disk an
//! experiment is about, so that measured wall-clock latencies show a compaction's disk traffic
//! getting in the way of user writes (the interference chapter 5 of the thesis is about).
//!
//! For experiments that measure real latency (the open-loop executor); results that must be
//! deterministic use `TimedZonedDevice`'s simulated time instead. Sleeping has a granularity of
//! tens of microseconds, so commands shorter than `MIN_SLEEP` (NVRAM's) run up a debt that is
//! slept off once it reaches it: their total time is right, each one's is not.

use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use smr_zoned::{DiskActivity, TimedZonedDevice, ZoneError, ZoneKind, ZonedDevice};

use crate::device::{zone_fill, BandDevice, Persist};

/// The shortest sleep taken: shorter medium times accumulate until they reach it.
pub const MIN_SLEEP: Duration = Duration::from_micros(200);

struct Head<D> {
    device: TimedZonedDevice<D>,
    /// Medium time not yet slept, ns.
    owed_ns: u64,
}

pub struct Paced<D> {
    head: Mutex<Head<D>>,
    zone_size: u64,
    zone_count: u64,
    conventional: u64,
}

impl<D: ZonedDevice + Persist + Send> Paced<D> {
    pub fn new(device: TimedZonedDevice<D>) -> Self {
        let conventional = device.report_zones().iter().filter(|z| z.kind == ZoneKind::Conventional).count() as u64;
        Paced {
            zone_size: device.zone_size(),
            zone_count: device.zone_count(),
            conventional,
            head: Mutex::new(Head { device, owed_ns: 0 }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Head<D>> {
        // The device's zone table is updated only after a command is admitted; a panic while a
        // command ran leaves it consistent.
        self.head.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs `command` and sleeps for the medium time it took (with any debt), holding the
    /// device throughout.
    fn timed<T>(&self, command: impl FnOnce(&mut TimedZonedDevice<D>) -> Result<T, ZoneError>) -> Result<T, ZoneError> {
        let mut head = self.lock();
        let before = head.device.activity().busy_ns;
        let result = command(&mut head.device);
        head.owed_ns += head.device.activity().busy_ns - before;
        if head.owed_ns >= MIN_SLEEP.as_nanos() as u64 {
            std::thread::sleep(Duration::from_nanos(head.owed_ns));
            head.owed_ns = 0;
        }
        result
    }
}

impl<D: ZonedDevice + Persist + Send> BandDevice for Paced<D> {
    fn zone_size(&self) -> u64 {
        self.zone_size
    }

    fn zone_count(&self) -> u64 {
        self.zone_count
    }

    fn conventional_zones(&self) -> u64 {
        self.conventional
    }

    fn filled(&self) -> Vec<u64> {
        zone_fill(&self.lock().device.report_zones())
    }

    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<(), ZoneError> {
        self.timed(|d| d.read(offset, buf))
    }

    fn write_at(&self, offset: u64, data: &[u8]) -> Result<(), ZoneError> {
        self.timed(|d| d.write_at(offset, data))
    }

    fn append(&self, zone: u64, data: &[u8]) -> Result<u64, ZoneError> {
        self.timed(|d| d.append(zone, data))
    }

    fn reset(&self, zone: u64) -> Result<(), ZoneError> {
        self.lock().device.reset(zone)
    }

    fn sync(&self) -> Result<(), ZoneError> {
        self.lock().device.persist()
    }

    fn activity(&self) -> Option<DiskActivity> {
        Some(self.lock().device.activity())
    }

    fn allocated_bytes(&self) -> Option<u64> {
        self.lock().device.allocated_bytes()
    }
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use smr_media::{Hdd, DESKTOP7200};
    use smr_zoned::MemZonedDevice;

    use super::*;

    #[test]
    fn commands_take_the_medium_time_in_real_time() {
        let mem = MemZonedDevice::new(1 << 20, 64, 1).unwrap();
        let paced = Paced::new(TimedZonedDevice::new(mem, Box::new(Hdd::new(DESKTOP7200))).unwrap());
        let started = Instant::now();
        for zone in [5u64, 40, 9, 60] {
            paced.append(zone, &[7; 4096]).unwrap();
        }
        let simulated = paced.activity().unwrap().busy_ns;
        assert!(simulated > 4_000_000, "four scattered writes cost seeks: {simulated} ns");
        assert!(started.elapsed().as_nanos() as u64 >= simulated, "slept at least the simulated time");
        let mut buf = [0u8; 4096];
        paced.read(40 << 20, &mut buf).unwrap();
        assert_eq!(buf, [7; 4096]);
    }
}
