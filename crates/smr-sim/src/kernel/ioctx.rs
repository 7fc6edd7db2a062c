//! Where systems send their media I/Os: timing on the right `Medium`, accounting per channel,
//! the simulated clock, and optional recording as a translated trace.
//!
//! A *device* is one `Medium` (one head, one rotational phase). A *channel* is a named use of a
//! device ("band", "write-buffer", "ssd", ...): several channels may share a device, so a disk's
//! outer-track write buffer and its bands share one head while their times are reported apart.
//! Not here: any policy; a system decides which I/Os to issue, `IoCtx` only executes them.

use serde::{Deserialize, Serialize};
use smr_core::media::{FixedTiming, Medium};
use smr_core::Op;

use super::recorder::IologRecorder;

/// Index of a channel registered with `IoCtx::channel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChannelId(u16);

/// Index of a device registered with `IoCtx::add_device`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceId(u16);

/// Totals of one channel's I/O. Monotonic, so warm-up can be subtracted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChannelStats {
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    pub bytes_read: u64,
    pub bytes_written: u64,
    pub read_ns: u64,
    pub write_ns: u64,
    /// I/Os on a rotating device that did not start where its previous I/O ended (the head had
    /// to move); always 0 on solid-state media.
    pub seeks: u64,
}

impl ChannelStats {
    pub fn since(&self, earlier: &ChannelStats) -> ChannelStats {
        ChannelStats {
            reads: self.reads - earlier.reads,
            writes: self.writes - earlier.writes,
            trims: self.trims - earlier.trims,
            bytes_read: self.bytes_read - earlier.bytes_read,
            bytes_written: self.bytes_written - earlier.bytes_written,
            read_ns: self.read_ns - earlier.read_ns,
            write_ns: self.write_ns - earlier.write_ns,
            seeks: self.seeks - earlier.seeks,
        }
    }

    pub fn busy_ns(&self) -> u64 {
        self.read_ns + self.write_ns
    }
}

/// One channel's name, device and totals, as reported.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChannelReport {
    pub channel: String,
    pub device: String,
    #[serde(flatten)]
    pub stats: ChannelStats,
}

struct Device {
    name: String,
    medium: Box<dyn Medium>,
    /// `medium.rotating()`, asked once: every I/O needs it, and asking is a dynamic call.
    rotating: bool,
    /// `medium.fixed_latency()`, asked once: such a medium's I/O is timed here, inlined,
    /// instead of by a dynamic call (an SSD cache makes about three per request).
    fixed_latency: Option<FixedTiming>,
    /// Where the previous I/O on this device ended.
    last_end: u64,
}

struct Channel {
    name: String,
    device: DeviceId,
    stats: ChannelStats,
}

/// The simulated clock plus the media a system runs on.
pub struct IoCtx {
    now_ns: u64,
    devices: Vec<Device>,
    channels: Vec<Channel>,
    recorder: Option<IologRecorder>,
}

impl Default for IoCtx {
    fn default() -> Self {
        Self::new()
    }
}

impl IoCtx {
    pub fn new() -> Self {
        IoCtx { now_ns: 0, devices: Vec::new(), channels: Vec::new(), recorder: None }
    }

    /// Registers a medium under `name` (used in reports and as the file name in a recorded iolog).
    pub fn add_device(&mut self, name: &str, medium: Box<dyn Medium>) -> DeviceId {
        self.devices.push(Device { name: name.to_string(), rotating: medium.rotating(), fixed_latency: medium.fixed_latency(), medium, last_end: 0 });
        DeviceId((self.devices.len() - 1) as u16)
    }

    /// Registers a named channel on `device`; I/O through it is timed on that device's medium.
    pub fn channel(&mut self, device: DeviceId, name: &str) -> ChannelId {
        self.channels.push(Channel { name: name.to_string(), device, stats: ChannelStats::default() });
        ChannelId((self.channels.len() - 1) as u16)
    }

    pub fn device_capacity(&self, device: DeviceId) -> u64 {
        self.devices[device.0 as usize].medium.capacity()
    }

    pub fn device_of(&self, channel: ChannelId) -> DeviceId {
        self.channels[channel.0 as usize].device
    }

    /// Starts recording every media I/O into `recorder`.
    pub fn record_to(&mut self, recorder: IologRecorder) {
        self.recorder = Some(recorder);
    }

    /// Stops recording and hands the recorder back (to flush and close it).
    pub fn take_recorder(&mut self) -> Option<IologRecorder> {
        self.recorder.take()
    }

    /// Current simulated time in nanoseconds.
    pub fn now(&self) -> u64 {
        self.now_ns
    }

    /// Moves the clock forward to `t_ns` (never backwards).
    pub fn advance_to(&mut self, t_ns: u64) {
        self.now_ns = self.now_ns.max(t_ns);
    }

    /// One I/O starting now; the clock advances by its service time, which is returned.
    pub fn io(&mut self, channel: ChannelId, op: Op, offset: u64, len: u64) -> u64 {
        let service = self.io_at(channel, self.now_ns, op, offset, len);
        self.now_ns += service;
        service
    }

    /// One I/O starting at `start_ns` without moving the clock: for I/O that overlaps other I/O
    /// (e.g. a write buffer on its own SSD working while the disk rewrites a band). The caller
    /// advances the clock to the end of the overlapped work with `advance_to`.
    pub fn io_at(&mut self, channel: ChannelId, start_ns: u64, op: Op, offset: u64, len: u64) -> u64 {
        let ch = &mut self.channels[channel.0 as usize];
        let device = &mut self.devices[ch.device.0 as usize];
        let service = match &device.fixed_latency {
            Some(timing) => timing.service_ns(op, len),
            None => device.medium.access(start_ns, op, offset, len),
        };
        let s = &mut ch.stats;
        if offset != device.last_end && device.rotating {
            s.seeks += 1;
        }
        device.last_end = offset + len;
        match op {
            Op::Read => {
                s.reads += 1;
                s.bytes_read += len;
                s.read_ns += service;
            }
            Op::Write => {
                s.writes += 1;
                s.bytes_written += len;
                s.write_ns += service;
            }
            Op::Trim => {
                s.trims += 1;
                s.write_ns += service;
            }
        }
        if let Some(rec) = self.recorder.as_mut() {
            rec.record(&device.name, op, offset, len);
        }
        service
    }

    /// Every channel's totals, in registration order.
    pub fn channel_reports(&self) -> Vec<ChannelReport> {
        self.channels
            .iter()
            .map(|c| ChannelReport {
                channel: c.name.clone(),
                device: self.devices[c.device.0 as usize].name.clone(),
                stats: c.stats,
            })
            .collect()
    }

    /// Descriptions of every device's medium, for result files.
    pub fn device_descriptions(&self) -> Vec<(String, String)> {
        self.devices.iter().map(|d| (d.name.clone(), d.medium.describe())).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smr_core::media::FixedLatencyMedium;

    #[test]
    fn serial_io_advances_clock_and_overlapped_io_does_not() {
        let mut ctx = IoCtx::new();
        let ssd = ctx.add_device("ssd", Box::new(FixedLatencyMedium::ssd(1 << 30)));
        let a = ctx.channel(ssd, "cache");
        let b = ctx.channel(ssd, "buffer");
        let t = ctx.io(a, Op::Write, 0, 4096);
        assert_eq!(ctx.now(), t);
        let t2 = ctx.io_at(b, 0, Op::Read, 0, 4096);
        assert_eq!(ctx.now(), t);
        assert!(t2 > 0);
        let reports = ctx.channel_reports();
        assert_eq!(reports[0].stats.writes, 1);
        assert_eq!(reports[0].stats.write_ns, t);
        assert_eq!(reports[1].stats.reads, 1);
        assert_eq!(reports[1].device, "ssd");
        assert_eq!((reports[0].stats.seeks, reports[1].stats.seeks), (0, 0), "an SSD has no head to move");
        ctx.advance_to(5);
        assert_eq!(ctx.now(), t, "the clock never goes back");
        let disk = ctx.add_device("disk", Box::new(smr_core::media::Hdd::new(smr_core::media::DESKTOP7200)));
        let c = ctx.channel(disk, "disk");
        ctx.io(c, Op::Read, 0, 4096);
        ctx.io(c, Op::Read, 4096, 4096);
        ctx.io(c, Op::Read, 1 << 20, 4096);
        assert_eq!(ctx.channel_reports()[2].stats.seeks, 1, "only the jump to 1 MiB moved the head");
    }
}
