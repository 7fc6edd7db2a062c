//! Any zoned device with a medium's simulated time added: every read and write that the inner
//! device accepts is also timed on a `Medium` (an `Hdd` preset, say the 7200 rpm disk of the
//! SMRDB thesis) at the same byte offsets, one access after another (closed loop, queue depth
//! one). The sum is the disk time the workload would take on that disk, whatever this
//! machine's own storage is; it never looks at the wall clock, so the same sequence of commands
//! gives the same time.
//!
//! Zone management commands (reset, finish) and flushes take no disk time here: on a
//! host-managed drive they change the drive's zone metadata, not the platters. Refused commands
//! are not timed. Not here: queueing of concurrent requests (commands are timed in the order
//! they reach the device) and the drive's own write-cache flush cost.

use std::sync::Mutex;

use super::{ZoneError, ZoneTable, ZonedDevice};
use smr_core::request::Op;
use smr_media::Medium;

/// What the simulated disk did so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct DiskActivity {
    /// Simulated busy time, ns.
    pub busy_ns: u64,
    pub reads: u64,
    pub read_bytes: u64,
    pub writes: u64,
    pub write_bytes: u64,
}

struct Clock {
    medium: Box<dyn Medium>,
    activity: DiskActivity,
}

impl Clock {
    fn time(&mut self, op: Op, offset: u64, len: u64) {
        if len == 0 {
            return;
        }
        let service = self.medium.access(self.activity.busy_ns, op, offset, len);
        let a = &mut self.activity;
        a.busy_ns += service;
        match op {
            Op::Read => {
                a.reads += 1;
                a.read_bytes += len;
            }
            _ => {
                a.writes += 1;
                a.write_bytes += len;
            }
        }
    }
}

pub struct TimedZonedDevice<D> {
    inner: D,
    /// Behind a lock because reads (`&self`) move the disk's head too.
    clock: Mutex<Clock>,
}

impl<D: ZonedDevice> TimedZonedDevice<D> {
    /// Times `inner` on `medium`; the medium must be at least as large as the device.
    pub fn new(inner: D, medium: Box<dyn Medium>) -> Result<Self, ZoneError> {
        if inner.capacity() > medium.capacity() {
            return Err(ZoneError::Geometry(format!(
                "a {}-byte zoned device does not fit on {} ({} bytes)",
                inner.capacity(),
                medium.describe(),
                medium.capacity()
            )));
        }
        Ok(TimedZonedDevice { inner, clock: Mutex::new(Clock { medium, activity: DiskActivity::default() }) })
    }

    pub fn activity(&self) -> DiskActivity {
        self.lock().activity
    }

    /// The medium's description ("hdd:desktop7200", ...).
    pub fn medium(&self) -> String {
        self.lock().medium.describe()
    }

    pub fn inner(&self) -> &D {
        &self.inner
    }

    pub fn inner_mut(&mut self) -> &mut D {
        &mut self.inner
    }

    pub fn into_inner(self) -> D {
        self.inner
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Clock> {
        // The clock holds plain numbers: a panic elsewhere cannot leave it half-updated.
        self.clock.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl<D: ZonedDevice> ZonedDevice for TimedZonedDevice<D> {
    fn table(&self) -> &ZoneTable {
        self.inner.table()
    }

    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<(), ZoneError> {
        self.inner.read(offset, buf)?;
        self.lock().time(Op::Read, offset, buf.len() as u64);
        Ok(())
    }

    fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<(), ZoneError> {
        self.inner.write_at(offset, data)?;
        self.lock().time(Op::Write, offset, data.len() as u64);
        Ok(())
    }

    fn append(&mut self, zone: u64, data: &[u8]) -> Result<u64, ZoneError> {
        let at = self.inner.append(zone, data)?;
        self.lock().time(Op::Write, at, data.len() as u64);
        Ok(at)
    }

    fn reset(&mut self, zone: u64) -> Result<(), ZoneError> {
        self.inner.reset(zone)
    }

    fn finish(&mut self, zone: u64) -> Result<(), ZoneError> {
        self.inner.finish(zone)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemZonedDevice;
    use smr_core::units::MIB;
    use smr_media::{Hdd, DESKTOP7200};

    fn disk() -> Box<dyn Medium> {
        Box::new(Hdd::new(DESKTOP7200))
    }

    #[test]
    fn times_accepted_commands_as_the_medium_does() {
        let mem = MemZonedDevice::new(MIB, 16, 1).unwrap();
        let mut timed = TimedZonedDevice::new(mem, disk()).unwrap();
        let mut reference = Hdd::new(DESKTOP7200);
        let mut now = 0;
        for (zone, len) in [(3u64, 4096u64), (3, 65536), (9, 4096)] {
            let at = timed.append(zone, &vec![1; len as usize]).unwrap();
            now += reference.access(now, Op::Write, at, len);
        }
        let mut buf = vec![0; 4096];
        timed.read(3 * MIB, &mut buf).unwrap();
        now += reference.access(now, Op::Read, 3 * MIB, 4096);
        let a = timed.activity();
        assert_eq!(a.busy_ns, now);
        assert_eq!((a.writes, a.write_bytes, a.reads, a.read_bytes), (3, 4096 + 65536 + 4096, 1, 4096));
        // Refused and zone-management commands cost nothing.
        assert!(timed.write_at(3 * MIB + 7, b"x").is_err());
        timed.reset(3).unwrap();
        assert_eq!(timed.activity(), a);
        assert_eq!(buf, vec![1; 4096], "data comes from the inner device");
    }

    #[test]
    fn sequential_band_writes_are_much_faster_than_scattered_ones() {
        let run = |scattered: bool| {
            let mut timed = TimedZonedDevice::new(MemZonedDevice::new(4 * MIB, 64, 1).unwrap(), disk()).unwrap();
            for i in 0..256u64 {
                let zone = if scattered { 1 + (i * 37) % 63 } else { 1 + i / 64 };
                timed.append(zone, &[0; 16384]).unwrap();
            }
            timed.activity().busy_ns
        };
        let (sequential, scattered) = (run(false), run(true));
        assert!(scattered > 5 * sequential, "sequential {sequential} ns, scattered {scattered} ns");
    }

    #[test]
    fn refuses_a_device_larger_than_the_disk() {
        let big = MemZonedDevice::new(1 << 40, 2, 1).unwrap();
        assert!(matches!(TimedZonedDevice::new(big, disk()), Err(ZoneError::Geometry(_))));
    }
}
