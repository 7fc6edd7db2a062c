//! Where systems send their media I/Os: timing on the right `Medium`, accounting per channel,
//! the simulated clock, and optional recording as a translated trace.
//!
//! A *device* is one `Medium` (one head, one rotational phase). A *channel* is a named use of a
//! device ("band", "write-buffer", "ssd", ...): several channels may share a device, so a disk's
//! outer-track write buffer and its bands share one head while their times are reported apart.
//!
//! One I/O at a time (`io`) runs at once and moves the clock. A batch (`batch`) is issued all
//! at once: a device whose medium queues commands (`Medium::queue_depth` above 1) holds several
//! and chooses their order, devices work side by side, and the clock moves to the end of the
//! last; where every device of the batch takes one command at a time it is the same as its
//! I/Os one by one. In an overlapped replay (the engine's `overlapped`) nothing runs at once:
//! each request's I/Os, and background work (`background`), are issued as chains of commands
//! that wait for one another and share the devices' queues (`inflight`), and the engine takes
//! their completions in time order; in a replay of a translated trace (`Concurrency::Translated`)
//! a request's commands wait for none of one another. A timer (`start_timer`, `stop_timer`)
//! adds up how long the commands issued while it runs take, from when the first reaches its
//! device to the end of the last, into a counter the report carries. Not here: any policy; a system decides
//! which I/Os to issue, `IoCtx` only executes them.

use serde::{Deserialize, Serialize};
use smr_core::Op;
use smr_media::{FixedTiming, Medium};

mod inflight;

use super::metrics::{Counters, Metric};
use super::recorder::IologRecorder;
pub use inflight::Background;
pub(crate) use inflight::Completed;
use inflight::InFlight;

/// Index of a channel registered with `IoCtx::channel`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ChannelId(u16);

/// Index of a device registered with `IoCtx::add_device`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DeviceId(u16);

/// A timer registered with `IoCtx::timer`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TimerId(u32);

/// A running timer (`IoCtx::start_timer`), to be stopped with `IoCtx::stop_timer`.
#[must_use = "a started timer is stopped with IoCtx::stop_timer"]
#[derive(Debug)]
pub struct RunningTimer {
    timer: TimerId,
    started_ns: u64,
}

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
    /// `medium.queue_depth()`, asked once.
    queue_depth: u32,
    /// Where the previous I/O on this device ended.
    last_end: u64,
}

struct Channel {
    name: String,
    device: DeviceId,
    stats: ChannelStats,
}

/// One media I/O of a batch (`IoCtx::batch`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command {
    pub channel: ChannelId,
    pub op: Op,
    pub offset: u64,
    pub len: u64,
    /// An earlier command of the same batch this one waits for (e.g. the read of what it
    /// writes), by its place in the batch.
    pub after: Option<u32>,
}

impl Command {
    pub fn new(channel: ChannelId, op: Op, offset: u64, len: u64) -> Self {
        Command { channel, op, offset, len, after: None }
    }

    /// The command, waiting for the batch's command at `index` (an earlier one).
    pub fn after(self, index: usize) -> Self {
        Command { after: Some(index as u32), ..self }
    }
}

/// The devices and channels: where each I/O is timed and counted.
pub(super) struct Media {
    devices: Vec<Device>,
    channels: Vec<Channel>,
    recorder: Option<IologRecorder>,
}

impl Media {
    /// Times and counts one I/O on `channel`'s device starting at `start_ns`; returns its
    /// service time.
    #[inline]
    pub fn serve(&mut self, channel: ChannelId, start_ns: u64, op: Op, offset: u64, len: u64) -> u64 {
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

    /// The index of `channel`'s device.
    #[inline]
    pub fn device_index(&self, channel: ChannelId) -> usize {
        self.channels[channel.0 as usize].device.0 as usize
    }

    pub fn medium(&self, device: usize) -> &dyn Medium {
        self.devices[device].medium.as_ref()
    }

    fn queue_depth(&self, channel: ChannelId) -> u32 {
        self.devices[self.device_index(channel)].queue_depth
    }
}

/// The simulated clock plus the media a system runs on.
pub struct IoCtx {
    now_ns: u64,
    media: Media,
    /// Commands in flight: kept between batches that queue, and through an overlapped replay.
    flight: Option<Box<InFlight>>,
    /// Whether I/O is issued into chains rather than run at once (an overlapped replay).
    overlapped: bool,
    /// Whether any device queues commands (its queue depth is above 1).
    queueing: bool,
    /// In an overlapped replay of a translated trace: the largest piece a request's commands
    /// are split into (`Concurrency::Translated`).
    translated: Option<u64>,
    /// Each timer's counter and its total from I/O run at once (the rest is in flight's).
    timers: Vec<(&'static Metric, u64)>,
}

impl Default for IoCtx {
    fn default() -> Self {
        Self::new()
    }
}

impl IoCtx {
    pub fn new() -> Self {
        IoCtx {
            now_ns: 0,
            media: Media { devices: Vec::new(), channels: Vec::new(), recorder: None },
            flight: None,
            overlapped: false,
            queueing: false,
            translated: None,
            timers: Vec::new(),
        }
    }

    /// Registers a medium under `name` (used in reports and as the file name in a recorded iolog).
    pub fn add_device(&mut self, name: &str, medium: Box<dyn Medium>) -> DeviceId {
        let devices = &mut self.media.devices;
        let queue_depth = medium.queue_depth().max(1);
        self.queueing |= queue_depth > 1;
        devices.push(Device {
            name: name.to_string(),
            rotating: medium.rotating(),
            fixed_latency: medium.fixed_latency(),
            queue_depth,
            medium,
            last_end: 0,
        });
        DeviceId((devices.len() - 1) as u16)
    }

    /// Registers a named channel on `device`; I/O through it is timed on that device's medium.
    pub fn channel(&mut self, device: DeviceId, name: &str) -> ChannelId {
        let channels = &mut self.media.channels;
        channels.push(Channel { name: name.to_string(), device, stats: ChannelStats::default() });
        ChannelId((channels.len() - 1) as u16)
    }

    pub fn device_capacity(&self, device: DeviceId) -> u64 {
        self.media.devices[device.0 as usize].medium.capacity()
    }

    pub fn device_of(&self, channel: ChannelId) -> DeviceId {
        self.media.channels[channel.0 as usize].device
    }

    /// The deepest command queue of any device (1 when none queues).
    pub fn max_queue_depth(&self) -> u32 {
        self.media.devices.iter().map(|d| d.queue_depth).max().unwrap_or(1)
    }

    /// Starts recording every media I/O into `recorder`.
    pub fn record_to(&mut self, recorder: IologRecorder) {
        self.media.recorder = Some(recorder);
    }

    /// Stops recording and hands the recorder back (to flush and close it).
    pub fn take_recorder(&mut self) -> Option<IologRecorder> {
        self.media.recorder.take()
    }

    /// Current simulated time in nanoseconds.
    pub fn now(&self) -> u64 {
        self.now_ns
    }

    /// Moves the clock forward to `t_ns` (never backwards).
    pub fn advance_to(&mut self, t_ns: u64) {
        self.now_ns = self.now_ns.max(t_ns);
    }

    /// One I/O starting now; the clock advances by its service time, which is returned. In an
    /// overlapped replay it is issued after what the request issued before it, and 0 returned.
    #[inline]
    pub fn io(&mut self, channel: ChannelId, op: Op, offset: u64, len: u64) -> u64 {
        if self.overlapped {
            self.issue(&Command::new(channel, op, offset, len));
            return 0;
        }
        let service = self.media.serve(channel, self.now_ns, op, offset, len);
        self.now_ns += service;
        service
    }

    /// `io` in an overlapped replay, out of line: the common path above stays small.
    #[cold]
    #[inline(never)]
    fn issue(&mut self, command: &Command) {
        let (flight, media, now) = self.gathering();
        flight.io(media, now, command);
    }

    /// One I/O starting at `start_ns` without moving the clock: for I/O that overlaps other I/O
    /// (e.g. a write buffer on its own SSD working while the disk rewrites a band). The caller
    /// advances the clock to the end of the overlapped work with `advance_to`. Not for systems
    /// replayed overlapped (`System::concurrency`), whose I/O the engine times.
    pub fn io_at(&mut self, channel: ChannelId, start_ns: u64, op: Op, offset: u64, len: u64) -> u64 {
        self.media.serve(channel, start_ns, op, offset, len)
    }

    /// One I/O after everything issued so far, which nothing waits for (e.g. filling a cache
    /// with what a read brought): it starts now without moving the clock, or in an overlapped
    /// replay once what the request issued before it is done.
    pub fn io_behind(&mut self, channel: ChannelId, op: Op, offset: u64, len: u64) {
        if self.overlapped {
            let (flight, media, now) = self.gathering();
            flight.behind(media, now, &Command::new(channel, op, offset, len));
        } else {
            self.media.serve(channel, self.now_ns, op, offset, len);
        }
    }

    /// `commands`, issued at once (see the module documentation): the clock moves to when the
    /// last ends; in an overlapped replay what the request issues next waits for all of them.
    pub fn batch(&mut self, commands: &[Command]) {
        if self.overlapped {
            let (flight, media, now) = self.gathering();
            flight.batch(media, now, commands);
            return;
        }
        if !self.queueing || commands.iter().all(|c| self.media.queue_depth(c.channel) == 1) {
            for c in commands {
                self.io(c.channel, c.op, c.offset, c.len);
            }
            return;
        }
        let now = self.now_ns;
        let flight = self.flight.get_or_insert_with(Box::default);
        flight.begin_batch();
        flight.batch(&mut self.media, now, commands);
        flight.end(&mut self.media, now);
        self.now_ns = flight.drain(&mut self.media, now);
    }

    /// Registers a timer that adds into the counter `metric` (`start_timer`); the report
    /// carries the counter, 0 if the timer never ran.
    pub fn timer(&mut self, metric: &'static Metric) -> TimerId {
        self.timers.push((metric, 0));
        TimerId((self.timers.len() - 1) as u32)
    }

    /// Starts `timer`: the commands issued until `stop_timer` are timed together, from when the
    /// first of them reaches its device (is taken into its queue: fio's submission) to the end
    /// of the last of them (when I/O runs at once, the time the clock moves).
    pub fn start_timer(&mut self, timer: TimerId) -> RunningTimer {
        if self.overlapped {
            self.in_flight().begin_timer(timer.0);
        }
        RunningTimer { timer, started_ns: self.now_ns }
    }

    /// Stops a running timer; its time joins its counter once its commands have ended.
    pub fn stop_timer(&mut self, running: RunningTimer) {
        if self.overlapped {
            let (flight, media, now) = self.gathering();
            flight.end_timer(media, now);
        } else {
            self.timers[running.timer.0 as usize].1 += self.now_ns - running.started_ns;
        }
    }

    /// Adds every timer's counter to `out` (what the engine reports beside the system's own).
    pub fn timer_counters(&self, out: &mut Counters) {
        let in_flight = self.flight.as_ref().map_or(&[][..], |f| &f.timed_ns[..]);
        for (index, (metric, total)) in self.timers.iter().enumerate() {
            out.add(metric, total + in_flight.get(index).copied().unwrap_or(0));
        }
    }

    /// Background work: what `work` issues through the context goes in flight on its own chain,
    /// which the request being served (if any) does not wait for; the handle says when it has
    /// finished. Outside an overlapped replay the work runs at once, moving the clock, and is
    /// finished when this returns.
    pub fn background<R>(&mut self, work: impl FnOnce(&mut Self) -> R) -> (Background, R) {
        if !self.overlapped {
            let result = work(self);
            return (self.in_flight().finished_handle(), result);
        }
        self.in_flight().begin_background();
        let result = work(self);
        let (flight, media, now) = self.gathering();
        let handle = flight.end(media, now).expect("background work has a handle");
        (handle, result)
    }

    /// What the request issues next waits until background work `work` has finished.
    pub fn wait_for(&mut self, work: Background) {
        if self.overlapped {
            self.in_flight().wait_for(work);
        }
    }

    /// Whether background work `work` has finished.
    pub fn finished(&self, work: Background) -> bool {
        self.flight.as_ref().is_none_or(|f| f.finished(work))
    }

    /// Whether `channel`'s device has no command in flight.
    pub fn device_idle(&self, channel: ChannelId) -> bool {
        self.flight.as_ref().is_none_or(|f| f.device_idle(self.media.device_index(channel)))
    }

    fn in_flight(&mut self) -> &mut InFlight {
        self.flight.get_or_insert_with(Box::default)
    }

    /// The commands in flight, the media and the clock, to issue into chains.
    fn gathering(&mut self) -> (&mut InFlight, &mut Media, u64) {
        (self.flight.get_or_insert_with(Box::default), &mut self.media, self.now_ns)
    }

    /// From now on I/O is issued into chains (an overlapped replay: the engine's `overlapped`);
    /// with `translated`, each request's commands into an unordered chain, split into pieces of
    /// at most that many bytes.
    pub(super) fn overlap(&mut self, translated: Option<u64>) {
        self.overlapped = true;
        self.translated = translated;
        self.in_flight();
    }

    /// Starts issuing the chain of request `seq`, arriving now.
    pub(super) fn begin_request(&mut self, seq: u64) {
        let pieces = self.translated;
        self.in_flight().begin_request(seq, pieces);
    }

    /// Ends the chain of the request being issued.
    pub(super) fn end_request(&mut self) {
        let (flight, media, now) = self.gathering();
        flight.end(media, now);
    }

    /// When the next command in flight completes.
    pub(super) fn next_event(&self) -> Option<u64> {
        self.flight.as_ref().and_then(|f| f.next_event())
    }

    /// Takes the next completion (`next_event`), moving the clock to it.
    pub(super) fn step(&mut self) {
        let flight = self.flight.as_mut().expect("commands in flight");
        let t = flight.step(&mut self.media);
        self.advance_to(t);
    }

    /// Moves requests completed since last asked onto `into`, in the order they completed.
    pub(super) fn take_completed(&mut self, into: &mut Vec<Completed>) {
        if let Some(f) = self.flight.as_mut() {
            f.take_completed(into);
        }
    }

    /// Whether, since last asked, background work finished or a device ran out of commands.
    pub(super) fn take_background_cue(&mut self) -> bool {
        self.flight
            .as_mut()
            .is_some_and(|f| std::mem::take(&mut f.background_finished) | std::mem::take(&mut f.went_idle))
    }

    /// Every command the device queues served: device, command, start and end.
    #[cfg(test)]
    pub(super) fn served(&self) -> &[(usize, smr_media::Access, u64, u64)] {
        self.flight.as_ref().map_or(&[], |f| &f.served)
    }

    /// Every channel's totals, in registration order.
    pub fn channel_reports(&self) -> Vec<ChannelReport> {
        let m = &self.media;
        m.channels
            .iter()
            .map(|c| ChannelReport {
                channel: c.name.clone(),
                device: m.devices[c.device.0 as usize].name.clone(),
                stats: c.stats,
            })
            .collect()
    }

    /// Descriptions of every device's medium, for result files.
    pub fn device_descriptions(&self) -> Vec<(String, String)> {
        self.media.devices.iter().map(|d| (d.name.clone(), d.medium.describe())).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smr_media::FixedLatencyMedium;

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
        let disk = ctx.add_device("disk", Box::new(smr_media::Hdd::new(smr_media::DESKTOP7200)));
        let c = ctx.channel(disk, "disk");
        ctx.io(c, Op::Read, 0, 4096);
        ctx.io(c, Op::Read, 4096, 4096);
        ctx.io(c, Op::Read, 1 << 20, 4096);
        assert_eq!(ctx.channel_reports()[2].stats.seeks, 1, "only the jump to 1 MiB moved the head");
    }
}
