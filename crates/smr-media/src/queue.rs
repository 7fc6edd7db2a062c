//! A device's command queue, as SATA's native command queueing and SCSI's tagged queueing keep
//! it: commands the host has issued wait in the order it issued them; up to the medium's queue
//! depth of them are in the device, which serves one at a time and chooses which
//! (`Medium::choose`: a disk the one it can reach soonest). At depth 1 the device serves the
//! commands in the order they came, one after another.
//!
//! `DeviceQueue` keeps that order only: whoever drives the device asks it for the next command
//! when the device is free and times it. `serve_batch` drives one medium through a batch issued
//! at once. Not here: when commands are issued or what waits for them (the simulator's I/O
//! context runs many devices' queues side by side).

use std::collections::VecDeque;

use super::{Access, Medium};

/// The deepest command queue a medium may have: SCSI's tagged queueing addresses 256 commands
/// (SATA's NCQ 32).
pub const MAX_QUEUE_DEPTH: u32 = 256;

/// The commands issued to one device and not yet started, each with its owner's tag.
#[derive(Debug)]
pub struct DeviceQueue<T> {
    /// Issued but not yet taken in by the device (it holds its queue depth), oldest first.
    waiting: VecDeque<(T, Access)>,
    /// Taken in by the device, oldest first: tags and commands side by side, so that
    /// `Medium::choose` reads the commands as one slice.
    tags: Vec<T>,
    held: Vec<Access>,
}

impl<T> Default for DeviceQueue<T> {
    fn default() -> Self {
        DeviceQueue { waiting: VecDeque::new(), tags: Vec::new(), held: Vec::new() }
    }
}

impl<T> DeviceQueue<T> {
    /// The host issues `access` for `tag`.
    pub fn push(&mut self, tag: T, access: Access) {
        self.waiting.push_back((tag, access));
    }

    /// Commands issued and not yet started.
    pub fn len(&self) -> usize {
        self.waiting.len() + self.held.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The command `medium` serves next, free at `now_ns`, taken off the queue: the device first
    /// takes in the oldest waiting commands it has room for, then chooses among those it holds.
    pub fn next(&mut self, medium: &dyn Medium, now_ns: u64) -> Option<(T, Access)> {
        self.next_admitting(medium, now_ns, |_| {})
    }

    /// The device, serving `in_service` commands, takes in the oldest waiting commands it has
    /// room for (its queue depth counts the ones in service), telling `admitted` each one's tag:
    /// the moment a host's command reaches the drive (fio's submission, from which it times a
    /// command). Which command is served next does not change: the device chooses only when free.
    pub fn admit(&mut self, medium: &dyn Medium, in_service: usize, mut admitted: impl FnMut(&T)) {
        let depth = medium.queue_depth().clamp(1, MAX_QUEUE_DEPTH) as usize;
        while self.held.len() + in_service < depth {
            let Some((tag, access)) = self.waiting.pop_front() else { break };
            admitted(&tag);
            self.tags.push(tag);
            self.held.push(access);
        }
    }

    /// `next`, telling `admitted` the tag of each command the device takes in (`admit`).
    pub fn next_admitting(
        &mut self,
        medium: &dyn Medium,
        now_ns: u64,
        admitted: impl FnMut(&T),
    ) -> Option<(T, Access)> {
        self.admit(medium, 0, admitted);
        let chosen = match self.held.len() {
            0 => return None,
            1 => 0,
            _ => medium.choose(now_ns, &self.held).min(self.held.len() - 1),
        };
        Some((self.tags.remove(chosen), self.held.remove(chosen)))
    }
}

/// Serves `batch`, all of it issued at `now_ns`, on `medium`, which holds up to its queue depth
/// of the commands and serves them one at a time in the order it chooses. Returns when each
/// command ends, in the order of `batch`.
pub fn serve_batch(medium: &mut dyn Medium, now_ns: u64, batch: &[Access]) -> Vec<u64> {
    let mut queue = DeviceQueue::default();
    for (index, &access) in batch.iter().enumerate() {
        queue.push(index, access);
    }
    let mut ends = vec![now_ns; batch.len()];
    let mut t = now_ns;
    while let Some((index, a)) = queue.next(medium, t) {
        t += medium.access(t, a.op, a.offset, a.len);
        ends[index] = t;
    }
    ends
}

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    use super::*;
    use crate::{CacheConfig, Hdd, DESKTOP7200};
    use smr_core::request::Op;
    use smr_core::units::SECTOR;

    fn disk(depth: u32) -> Hdd {
        Hdd::with_cache(DESKTOP7200, CacheConfig::OFF).with_queue_depth(depth)
    }

    /// `n` reads of 8 sectors each at random places on track 10 of the outer zone, none
    /// overlapping another (8-sector slots drawn without repeats), and where the track starts.
    fn reads_on_one_track(n: usize, seed: u64) -> (Vec<Access>, u64) {
        let d = disk(1);
        let spt = d.sectors_per_track_at(0);
        let track_start = 10 * spt;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let slots = rand::seq::index::sample(&mut rng, (spt / 8) as usize, n);
        let reads = slots
            .iter()
            .map(|slot| Access { op: Op::Read, offset: (track_start + slot as u64 * 8) * SECTOR, len: 8 * SECTOR })
            .collect();
        (reads, track_start * SECTOR)
    }

    /// Known answer: with the head on the track, N reads there that do not overlap, served at
    /// depth N, take the platter at most one turn (each is picked as it comes round: a sweep of
    /// at most one revolution, plus the last one's 8 sectors), where at depth 1 each waits for
    /// its own sector in the order issued, about half a turn apiece.
    #[test]
    fn reads_on_one_track_finish_within_a_turn_at_depth_n() {
        for (n, seed) in [(8, 1), (16, 2), (32, 3)] {
            let (reads, track) = reads_on_one_track(n, seed);
            let mut queued = disk(n as u32);
            let rev = queued.revolution_ns();
            let sector_ns = rev / queued.sectors_per_track_at(0) as f64;
            let start = queued.access(0, Op::Read, track, SECTOR);
            let ends = serve_batch(&mut queued, start, &reads);
            let took = (*ends.iter().max().unwrap() - start) as f64;
            assert!(took <= rev + 9.0 * sector_ns, "depth {n}: {took} ns, a turn is {rev}");
            let mut serial = disk(1);
            let start = serial.access(0, Op::Read, track, SECTOR);
            let ends = serve_batch(&mut serial, start, &reads);
            let serial_took = (*ends.iter().max().unwrap() - start) as f64;
            assert!(serial_took > n as f64 / 4.0 * rev, "depth 1: {serial_took} ns for {n} reads");
        }
    }

    /// At depth 1 a batch is the plain sequence of accesses, time for time.
    #[test]
    fn depth_one_serves_in_order_exactly_as_single_accesses() {
        let (reads, _) = reads_on_one_track(20, 4);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let scattered: Vec<Access> = (0..20)
            .map(|i| Access {
                op: if i % 3 == 0 { Op::Write } else { Op::Read },
                offset: rng.gen_range(0..1u64 << 28) * SECTOR,
                len: 64 * SECTOR,
            })
            .collect();
        for batch in [reads, scattered] {
            let mut batched = Hdd::new(DESKTOP7200);
            let mut single = Hdd::new(DESKTOP7200);
            let ends = serve_batch(&mut batched, 1_000, &batch);
            let mut t = 1_000;
            for (a, end) in batch.iter().zip(ends) {
                t += single.access(t, a.op, a.offset, a.len);
                assert_eq!(t, end);
            }
        }
    }

    /// The device takes in no more than its depth: of three commands at depth 2 the third, the
    /// nearest of all, waits until one of the first two is served.
    #[test]
    fn the_device_holds_its_depth_and_the_rest_wait_in_order() {
        let d = disk(2);
        let spt = d.sectors_per_track_at(0);
        let at = |sector: u64| Access { op: Op::Read, offset: sector * SECTOR, len: SECTOR };
        let mut q = DeviceQueue::default();
        // At time 0 the head is on track 0 at sector 0: sector 3 comes round first, then 100.
        for (tag, sector) in [(0, spt / 2), (1, 100), (2, 3)] {
            q.push(tag, at(sector));
        }
        assert_eq!(q.next(&d, 0).map(|(tag, _)| tag), Some(1), "sector 3 is not in the device yet");
        assert_eq!(q.next(&d, 0).map(|(tag, _)| tag), Some(2));
        assert_eq!(q.next(&d, 0).map(|(tag, _)| tag), Some(0));
        assert!(q.next(&d, 0).is_none() && q.is_empty());
    }
}
