//! A hard disk timing model: zoned-recording geometry, a seek curve, rotational position tracked
//! from simulated time, head and track switches, and transfer at the rate of the radius.
//!
//! Geometry. LBA 0 is on the outermost cylinder. The surface is split into recording zones of
//! equal cylinder count whose sectors per track fall linearly from `outer_spt` to `inner_spt`;
//! within a zone, tracks are filled cylinder by cylinder, head by head. Consecutive tracks are
//! skewed by the sectors that pass during a head switch, so a sequential transfer crossing a
//! track boundary costs the switch and not a lost revolution.
//!
//! Timing of one access starting at `now`: positioning (a seek if the cylinder changes — plus a
//! write settle for writes —, a head switch if only the head changes), then the rotational wait
//! until the first sector passes under the head (the platter's angle is `now` modulo one
//! revolution, not an average), then the transfer, track by track, with a switch and a new
//! rotational wait at every track boundary; the transfer is never faster than the interface
//! (`max_transfer`).
//!
//! Sequential streams. An access that starts at the sector where the previous one ended
//! continues it: no rotational wait beyond what a back-to-back continuation has. For writes the
//! drive follows up to `STREAMS` streams at once, as its cache segments do: a write that starts
//! where an earlier write ended continues that stream as if no other access had come between
//! them — positioning from the stream's last track, no lost turn. This is how a drive combines
//! small sequential writes (PORE §II-C: writes to a persistent write buffer "have close disk
//! locations" and are combined); what it costs to come back to the stream later is taken to be
//! hidden by the drive. Reads that come back to a stream are the cache's business (below).
//!
//! The drive's cache (`disk_cache`): reads of sectors it holds, read earlier, written earlier or
//! read ahead while the head was free, are served at interface speed; the rest of a read comes
//! from the media, continuing where the read-ahead stopped. A read-ahead runs until a command
//! needs the head. Writes go through to the media unless write-back caching is on.
//!
//! Command queueing. A drive with a queue depth above 1 holds several commands and serves next
//! the one it can reach soonest: shortest positioning time first (seek plus rotational wait,
//! from where the head is and the angle the platter has turned to), the scheduling of
//! Jacobson & Wilkes (HP Labs TR HPL-CSP-91-7, 1991) and Seltzer, Chen & Ousterhout (USENIX
//! Winter 1990) that drives implement as rotational position ordering; a command the cache
//! answers (a read it holds, a write it has room for) needs no positioning. Ties go to the
//! oldest. Cached writes are written back the same way, the soonest reached of the oldest
//! queue-depth ones. Not modelled: aging of passed-over commands, command overhead.

use super::disk_cache::{CacheConfig, ReadAhead, SegmentCache, WriteBack};
use super::seek::SeekCurve;
use super::{exact_f64, Access, Medium};
use smr_core::request::Op;
use smr_core::stretch_index::StretchIndex;
use smr_core::units::{NS_PER_S, SECTOR};
use strength_reduce::StrengthReducedU64;

/// Everything that defines a drive.
#[derive(Clone, Debug, PartialEq)]
pub struct HddSpec {
    pub name: &'static str,
    pub capacity: u64,
    pub rpm: u32,
    pub heads: u32,
    pub outer_spt: u32,
    pub inner_spt: u32,
    pub recording_zones: u32,
    pub track_to_track_ns: u64,
    pub average_seek_ns: u64,
    pub full_stroke_ns: u64,
    pub head_switch_ns: u64,
    pub write_settle_ns: u64,
    /// Interface limit, bytes per second.
    pub max_transfer: u64,
    /// The drive's cache (DRAM buffer), bytes, as its data sheet gives it.
    pub cache_bytes: u64,
    /// Segments the cache is cut into.
    pub cache_segments: u32,
}

impl HddSpec {
    /// The cache as the drive ships: its size and segments, read-ahead until a segment is full,
    /// writes through to the media (the papers' experiments disable write caching).
    pub fn default_cache(&self) -> CacheConfig {
        CacheConfig {
            bytes: self.cache_bytes,
            segments: self.cache_segments,
            read_ahead: ReadAhead::Segment,
            write_back: false,
        }
    }
}

#[derive(Clone, Debug)]
struct RecordingZone {
    first_sector: u64,
    first_track: u64,
    spt: u64,
    /// `spt` as a divisor by multiplication: the sector and track arithmetic divides by it on
    /// every access, and a hardware division takes tens of cycles.
    spt_divisor: StrengthReducedU64,
    /// One sector's time under the head, ns, and its share of a turn (precomputed: divisions
    /// are the slow part of an access).
    sector_ns: f64,
    turns_per_sector: f64,
    /// Sectors a head switch lets pass: the skew between consecutive tracks.
    skew: u64,
    /// Cost of crossing into the next track and reading or writing it whole, by boundary kind
    /// and op: `[head switch, cylinder switch]` for reads, then for writes. Lets a long
    /// sequential transfer be timed per zone instead of per track.
    full_track_ns: [[f64; 2]; 2],
}

/// Where a sector is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Place {
    zone: usize,
    /// Global track number (cylinder × heads + head).
    track: u64,
    sector: u64,
}

/// The fractional part of a non-negative number of turns. Truncation through a signed integer
/// is exact below 2^53 and compiles to one conversion, where `f64::floor` is a libm call on
/// baseline x86-64 (this sits on the per-access path).
#[inline]
fn fraction_of_turn(turns: f64) -> f64 {
    turns - (turns as i64) as f64
}

/// The place of the smallest of `positioning` times; ties to the first (the oldest command).
/// A command that needs no positioning at all (the next sectors under the head, or answered
/// by the cache) cannot be beaten, so the rest are not timed.
fn soonest(positioning: impl Iterator<Item = f64>) -> usize {
    let mut best = (0, f64::INFINITY);
    for (i, t) in positioning.enumerate() {
        if t < best.1 {
            best = (i, t);
            if t <= 0.0 {
                break;
            }
        }
    }
    best.0
}

/// How many sequential streams the drive follows at once (its cache segments).
const STREAMS: usize = 8;

/// One followed sequential stream.
#[derive(Clone, Copy, Debug)]
struct Stream {
    /// The sector after the stream's last transferred one (`u64::MAX` while unused).
    next_sector: u64,
    op: Op,
    /// The track the stream's last transfer ended on.
    track: u64,
    /// Fraction of a revolution at which that transfer ended.
    angle: f64,
    /// Access count at the stream's last use (the least recently used stream is replaced).
    last_use: u64,
}

const UNUSED_STREAM: Stream = Stream { next_sector: u64::MAX, op: Op::Read, track: 0, angle: 0.0, last_use: 0 };

#[derive(Clone, Debug)]
pub struct Hdd {
    spec: HddSpec,
    zones: Vec<RecordingZone>,
    /// Each zone's first sector, apart from `zones` so the per-access search stays in a few
    /// cache lines.
    zone_starts: Vec<u64>,
    /// Finds a sector's zone in `zone_starts` without a binary search.
    zone_index: StretchIndex,
    /// log2 of the head count when it is a power of two (every preset's), so a track's cylinder
    /// is a shift rather than a division.
    heads_shift: Option<u32>,
    cylinders: u64,
    seek: SeekCurve,
    rev_ns: f64,
    turns_per_ns: f64,
    /// Interface time per byte, ns.
    interface_ns_per_byte: f64,
    track: u64,
    streams: [Stream; STREAMS],
    accesses: u64,
    cache: Option<SegmentCache>,
    write_back: Option<WriteBack>,
    /// Where the last media access ended: its zone and the end of its last track, in sectors.
    last_track_end: (usize, u64),
    /// Commands the drive holds at once (`Medium::queue_depth`).
    queue_depth: u32,
}

impl Hdd {
    /// The drive with its cache as it ships (`HddSpec::default_cache`).
    pub fn new(spec: HddSpec) -> Self {
        let cache = spec.default_cache();
        Self::with_cache(spec, cache)
    }

    /// The drive with a cache of `cache`'s size and behaviour (`CacheConfig::OFF`: none).
    pub fn with_cache(spec: HddSpec, cache: CacheConfig) -> Self {
        let z = spec.recording_zones.max(1) as u64;
        let spt = |i: u64| {
            let (o, n) = (spec.outer_spt as f64, spec.inner_spt as f64);
            if z == 1 {
                o as u64
            } else {
                (o - (o - n) * i as f64 / (z - 1) as f64).round() as u64
            }
        };
        let heads = spec.heads.max(1) as u64;
        let per_cylinder_all_zones: u64 = (0..z).map(|i| spt(i) * heads).sum();
        let cap_sectors = spec.capacity.div_ceil(SECTOR);
        let cyl_per_zone = cap_sectors.div_ceil(per_cylinder_all_zones).max(1);
        let rev_ns = 60.0 * NS_PER_S as f64 / spec.rpm as f64;
        let mut zones = Vec::new();
        let (mut sector, mut track) = (0u64, 0u64);
        for i in 0..z {
            let s = spt(i);
            let sector_ns = rev_ns / s as f64;
            zones.push(RecordingZone {
                first_sector: sector,
                first_track: track,
                spt: s,
                spt_divisor: StrengthReducedU64::new(s),
                sector_ns,
                turns_per_sector: 1.0 / s as f64,
                skew: (spec.head_switch_ns as f64 / sector_ns).ceil() as u64,
                full_track_ns: [[0.0; 2]; 2],
            });
            sector += s * heads * cyl_per_zone;
            track += heads * cyl_per_zone;
        }
        let cylinders = cyl_per_zone * z;
        let seek = SeekCurve::three_point(
            spec.track_to_track_ns,
            spec.average_seek_ns,
            spec.full_stroke_ns,
            cylinders / 3,
            cylinders,
        );
        for z in &mut zones {
            // After a track is transferred to its end the head is at the angle of that track's
            // sector 0; the next track's sector 0 lies `skew` sectors further on.
            let skew_turn = (z.skew % z.spt) as f64 / z.spt as f64;
            for (op_index, settle) in [0, spec.write_settle_ns].into_iter().enumerate() {
                for (kind, move_ns) in [spec.head_switch_ns, seek.time(1) + settle].into_iter().enumerate() {
                    let wait = (skew_turn - move_ns as f64 / rev_ns).rem_euclid(1.0) * rev_ns;
                    z.full_track_ns[op_index][kind] = move_ns as f64 + wait + rev_ns;
                }
            }
        }
        let interface_ns_per_byte = NS_PER_S as f64 / spec.max_transfer as f64;
        let zone_starts: Vec<u64> = zones.iter().map(|z| z.first_sector).collect();
        let smallest_zone = zones.iter().map(|z| z.spt * heads * cyl_per_zone).min().unwrap_or(1).max(1);
        let zone_index = StretchIndex::new(&zone_starts, smallest_zone);
        let segments = SegmentCache::new(&cache, SECTOR);
        let write_back = (cache.write_back && segments.is_some()).then(|| WriteBack::new(cache.bytes / SECTOR));
        Hdd {
            spec,
            zones,
            zone_starts,
            zone_index,
            heads_shift: heads.is_power_of_two().then(|| heads.trailing_zeros()),
            cylinders,
            seek,
            rev_ns,
            turns_per_ns: 1.0 / rev_ns,
            interface_ns_per_byte,
            track: 0,
            streams: [UNUSED_STREAM; STREAMS],
            accesses: 0,
            cache: segments,
            write_back,
            last_track_end: (0, 0),
            queue_depth: 1,
        }
    }

    /// The drive holding up to `depth` commands at once and choosing among them (see the module
    /// documentation); 1, as built, serves them in order.
    pub fn with_queue_depth(mut self, depth: u32) -> Self {
        self.queue_depth = depth.max(1);
        self
    }

    pub fn spec(&self) -> &HddSpec {
        &self.spec
    }

    pub fn cylinders(&self) -> u64 {
        self.cylinders
    }

    /// One revolution in ns.
    pub fn revolution_ns(&self) -> f64 {
        self.rev_ns
    }

    /// Sectors per track at byte `offset`.
    pub fn sectors_per_track_at(&self, offset: u64) -> u64 {
        self.zones[self.place(offset / SECTOR).zone].spt
    }

    fn place(&self, sector: u64) -> Place {
        let zone = self.zone_index.find(&self.zone_starts, sector);
        let z = &self.zones[zone];
        let within = sector - z.first_sector;
        let (track, sector) = StrengthReducedU64::div_rem(within, z.spt_divisor);
        Place { zone, track: z.first_track + track, sector }
    }

    fn cylinder(&self, track: u64) -> u64 {
        match self.heads_shift {
            Some(shift) => track >> shift,
            None => track / self.spec.heads.max(1) as u64,
        }
    }

    /// Fraction of a revolution at which sector `sector` of `track` passes under the head.
    fn angle_of(&self, zone: usize, track: u64, sector: u64) -> f64 {
        exact_f64(self.angle_index(zone, track, sector)) * self.zones[zone].turns_per_sector
    }

    /// `angle_of` in sectors of the zone's track: the sector slot, counted from the angle of
    /// sector 0 of the zone's first track, that passes under the head with it.
    fn angle_index(&self, zone: usize, track: u64, sector: u64) -> u64 {
        let z = &self.zones[zone];
        (sector + (track - z.first_track) * z.skew) % z.spt_divisor
    }

    /// Wait from time `t` until the platter reaches `angle`. The clock counts whole ns, so an
    /// angle passed less than 1 ns ago counts as reached (no lost revolution from rounding).
    fn rotational_wait(&self, t: f64, angle: f64) -> f64 {
        let now = fraction_of_turn(t * self.turns_per_ns);
        let wait = angle - now;
        let one_ns = self.turns_per_ns;
        (if wait <= -one_ns { wait + 1.0 } else { wait.max(0.0) }) * self.rev_ns
    }

    /// Records where an access ended: in the stream it continued, else in place of the least
    /// recently used stream.
    fn follow_stream(&mut self, continued: Option<usize>, now: Stream) {
        let slot =
            continued.unwrap_or_else(|| (0..STREAMS).min_by_key(|&i| self.streams[i].last_use).expect("STREAMS > 0"));
        self.streams[slot] = now;
    }

    /// Time to move from `from` to `to` (tracks): seek, head switch, or nothing.
    fn positioning(&self, from: u64, to: u64, op: Op) -> f64 {
        let (a, b) = (self.cylinder(from), self.cylinder(to));
        if a != b {
            let settle = if op == Op::Write { self.spec.write_settle_ns } else { 0 };
            (self.seek.time(a.abs_diff(b)) + settle) as f64
        } else if from != to {
            self.spec.head_switch_ns as f64
        } else {
            0.0
        }
    }
}

impl Hdd {
    /// One media access of `total` sectors from sector `first`, starting at `start_ns`; returns
    /// when it ends. Follows sequential streams (see the module documentation).
    fn media(&mut self, start_ns: f64, op: Op, first: u64, total: u64) -> f64 {
        let place = self.place(first);
        self.accesses += 1;
        let stream = self.continued_stream(first, op, self.accesses - 1);
        let (from_track, phase_ns) = self.resume(stream, start_ns);
        let t = start_ns + self.positioning(from_track, place.track, op);
        // Most accesses stay within their first track; a longer one goes on across tracks, out
        // of line, so that the common path keeps its values in registers.
        let (t, n, end_index) = self.within_track(t, phase_ns, place, total);
        self.track = place.track;
        let (t, place, angle) = if n == total {
            (t, place, exact_f64(end_index) * self.zones[place.zone].turns_per_sector)
        } else {
            debug_assert_eq!(
                first + n,
                self.track_end(place),
                "a transfer that goes on moved its first track to the end"
            );
            self.across_tracks(t, phase_ns, op, place, first + total, end_index)
        };
        self.follow_stream(
            stream,
            Stream { next_sector: first + total, op, track: place.track, angle, last_use: self.accesses },
        );
        if let Some(wb) = self.write_back.as_mut() {
            wb.busy_until_ns = wb.busy_until_ns.max(t);
        }
        self.last_track_end = (place.zone, self.track_end(place));
        t
    }

    /// The followed stream an access of `op` from sector `first` continues, the access before
    /// it being number `last_access`. A write continues any followed stream while the drive
    /// has its cache (which combines writes); a read, or any access without the cache, only
    /// what the head has just done (what a read-ahead saves is the cache's business).
    #[inline(always)]
    fn continued_stream(&self, first: u64, op: Op, last_access: u64) -> Option<usize> {
        let combining = op == Op::Write && self.cache.is_some();
        self.streams
            .iter()
            .position(|s| s.next_sector == first && s.op == op && (combining || s.last_use == last_access))
    }

    /// Where an access starting at `start_ns` positions from: the head's track, or a continued
    /// stream's, in track and in rotational phase (`phase_ns` shifts the platter's angle so that
    /// it stands where the stream left it).
    #[inline(always)]
    fn resume(&self, stream: Option<usize>, start_ns: f64) -> (u64, f64) {
        match stream {
            Some(i) => {
                let s = &self.streams[i];
                let behind = s.angle - fraction_of_turn(start_ns * self.turns_per_ns);
                (s.track, if behind < 0.0 { behind + 1.0 } else { behind } * self.rev_ns)
            }
            None => (self.track, 0.0),
        }
    }

    /// How long after `now_ns` the first sector of a media access of `op` from sector `first`
    /// would pass under the head: the seek or head switch (and write settle), then the
    /// rotational wait. The head stands where the last media access left it.
    fn media_positioning_ns(&self, now_ns: f64, op: Op, first: u64) -> f64 {
        let place = self.place(first);
        let (from_track, phase_ns) = self.resume(self.continued_stream(first, op, self.accesses), now_ns);
        let t = now_ns + self.positioning(from_track, place.track, op);
        let angle = exact_f64(self.angle_index(place.zone, place.track, place.sector))
            * self.zones[place.zone].turns_per_sector;
        t + self.rotational_wait(t + phase_ns, angle) - now_ns
    }

    /// `media_positioning_ns` for a queued command, or none when the cache answers it: a read
    /// of sectors it holds, a write it has room for.
    fn positioning_ns(&self, now_ns: f64, a: &Access) -> f64 {
        let (first, end) = (a.offset / SECTOR, (a.offset + a.len).div_ceil(SECTOR));
        let answered = match a.op {
            _ if a.len == 0 => true,
            Op::Trim => true,
            Op::Read => self.cache.as_ref().is_some_and(|c| c.holds(first, end)),
            Op::Write => self.write_back.as_ref().is_some_and(|wb| wb.has_room(end - first)),
        };
        if answered {
            0.0
        } else {
            self.media_positioning_ns(now_ns, a.op, first)
        }
    }

    /// The sector after the last one of `place`'s track.
    fn track_end(&self, place: Place) -> u64 {
        let z = &self.zones[place.zone];
        z.first_sector + (place.track - z.first_track + 1) * z.spt
    }

    /// The part of a transfer of `remaining` sectors that lies on `place`'s track, from time
    /// `t`: the wait for `place`'s sector to come round (with the platter's angle shifted by
    /// `phase_ns`), then the sectors up to the end of the transfer or of the track. Returns when
    /// it ends, how many sectors it moved and the angle index (`angle_index`) it ended at.
    #[inline(always)]
    fn within_track(&self, t: f64, phase_ns: f64, place: Place, remaining: u64) -> (f64, u64, u64) {
        let index = self.angle_index(place.zone, place.track, place.sector);
        let z = &self.zones[place.zone];
        let t = t + self.rotational_wait(t + phase_ns, exact_f64(index) * z.turns_per_sector);
        let n = remaining.min(z.spt - place.sector);
        // `n` sectors on from `index`, at most a turn: one subtraction, not a division.
        let end_index = if index + n >= z.spt { index + n - z.spt } else { index + n };
        (t + exact_f64(n) * z.sector_ns, n, end_index)
    }

    /// The rest of a transfer to sector `end` after its first track, `place`'s, which it moved
    /// to the end, ending at angle index `end_index` at time `t`: from the start of the next
    /// track on, whole tracks inside a zone timed in closed form. Returns when it ends, the
    /// place of its last track and the fraction of a turn at which it ended.
    #[inline(never)]
    fn across_tracks(
        &mut self,
        mut t: f64,
        phase_ns: f64,
        op: Op,
        mut place: Place,
        end: u64,
        end_index: u64,
    ) -> (f64, Place, f64) {
        let mut remaining = end - self.track_end(place);
        // The angle index at which the last transfer within a track ended; `None` once whole
        // tracks were transferred to their end.
        let mut end_index = Some(end_index);
        while remaining > 0 {
            // The next track starts at its sector 0, in this zone or the next one.
            let zone = if self.zones.get(place.zone + 1).is_some_and(|z| z.first_track == place.track + 1) {
                place.zone + 1
            } else {
                place.zone
            };
            let z = &self.zones[zone];
            let zone_end = self.zones.get(zone + 1).map_or(u64::MAX, |n| n.first_track);
            let whole = (remaining / z.spt).min(zone_end - (place.track + 1));
            if zone == place.zone && whole > 0 {
                // `whole` full tracks inside this zone.
                let cylinder_switches = self.cylinder(place.track + whole) - self.cylinder(place.track);
                let costs = z.full_track_ns[(op == Op::Write) as usize];
                t += exact_f64(whole - cylinder_switches) * costs[0] + exact_f64(cylinder_switches) * costs[1];
                remaining -= whole * z.spt;
                place.track += whole;
                end_index = None;
                self.track = place.track;
                continue;
            }
            let next = Place { zone, track: place.track + 1, sector: 0 };
            debug_assert_eq!(next, self.place(end - remaining));
            t += self.positioning(place.track, next.track, op);
            place = next;
            let (done, n, index) = self.within_track(t, phase_ns, place, remaining);
            (t, remaining, end_index) = (done, remaining - n, Some(index));
            self.track = place.track;
        }
        let angle = match end_index {
            Some(index) => exact_f64(index) * self.zones[place.zone].turns_per_sector,
            None => self.angle_of(place.zone, place.track, self.zones[place.zone].spt),
        };
        (t, place, angle)
    }

    /// Marks the head as having just read the sector before `next` (where a read-ahead
    /// stopped), so a read that starts at `next` continues from there as a stream does.
    fn stand_after(&mut self, next: u64) {
        let Some(last) = next.checked_sub(1) else { return };
        let place = self.place(last);
        self.track = place.track;
        let continued = self.streams.iter().position(|s| s.next_sector == next && s.op == Op::Read);
        let angle = self.angle_of(place.zone, place.track, place.sector + 1);
        self.follow_stream(
            continued,
            Stream { next_sector: next, op: Op::Read, track: place.track, angle, last_use: self.accesses },
        );
    }

    /// Stops the read-ahead in progress (the head is needed), leaving the head where it got to.
    /// Inlined: every access asks, and most find none in progress.
    #[inline]
    fn stop_read_ahead(&mut self, now_ns: f64) {
        if let Some(reached) = self.cache.as_mut().and_then(|c| c.stop(now_ns)) {
            self.stand_after(reached);
        }
    }

    /// Write-back: writes the oldest cached writes to the media while the drive is idle before
    /// `now_ns` (a write started before then finishes); returns when the media is free (`now_ns`
    /// without write-back caching).
    fn destage_until(&mut self, now_ns: f64) -> f64 {
        loop {
            let Some(wb) = self.write_back.as_mut() else { return now_ns };
            let start = wb.busy_until_ns;
            if start >= now_ns {
                return start;
            }
            let Some((first, sectors)) = self.next_write_back(start) else { return now_ns };
            self.stop_read_ahead(start);
            self.media(start, Op::Write, first, sectors);
        }
    }

    /// The cached write the drive writes back next from `now_ns`, taken off the cache's queue:
    /// the oldest, or with a queue depth above 1 the soonest reached of the oldest
    /// `queue_depth`.
    fn next_write_back(&mut self, now_ns: f64) -> Option<(u64, u64)> {
        let wb = self.write_back.as_ref()?;
        let pick = if self.queue_depth > 1 {
            soonest(
                wb.oldest(self.queue_depth as usize)
                    .map(|(first, _)| self.media_positioning_ns(now_ns, Op::Write, first)),
            )
        } else {
            0
        };
        self.write_back.as_mut()?.take(pick)
    }

    /// A read through the cache: what it holds at interface speed, the rest from the media once
    /// it is free (at `free_ns`), after which the drive reads ahead. Returns when it is done.
    fn cached_read(&mut self, now_ns: f64, free_ns: f64, first: u64, end: u64) -> f64 {
        let Some(cache) = self.cache.as_mut() else { return self.media(free_ns, Op::Read, first, end - first) };
        cache.advance(now_ns);
        let from = cache.cached_from(first);
        if from >= end {
            return now_ns;
        }
        self.stop_read_ahead(free_ns);
        let done = self.media(free_ns, Op::Read, from, end - from);
        let (zone, track_end) = self.last_track_end;
        let (sector_ns, disk_end) = (self.zones[zone].sector_ns, self.spec.capacity / SECTOR);
        if let Some(cache) = self.cache.as_mut() {
            cache.filled_by_read(first, end, done, sector_ns, track_end, disk_end);
        }
        done
    }

    /// A write: into the cache when write-back caching has room for it (after writing the oldest
    /// cached writes if it has not), else to the media once it is free. Returns when it is
    /// acknowledged.
    fn cached_write(&mut self, now_ns: f64, free_ns: f64, first: u64, end: u64) -> f64 {
        let sectors = end - first;
        let done = match self.write_back.as_ref().map(|wb| wb.has_room(sectors)) {
            None => {
                self.stop_read_ahead(free_ns);
                self.media(free_ns, Op::Write, first, sectors)
            }
            Some(true) => now_ns,
            Some(false) => {
                let mut t = free_ns;
                while let Some((first, n)) = self
                    .write_back
                    .as_ref()
                    .is_some_and(|wb| !wb.has_room(sectors))
                    .then(|| self.next_write_back(t))
                    .flatten()
                {
                    self.stop_read_ahead(t);
                    t = self.media(t, Op::Write, first, n);
                }
                t
            }
        };
        if let Some(wb) = self.write_back.as_mut() {
            wb.push(first, sectors);
        }
        if let Some(cache) = self.cache.as_mut() {
            cache.filled_by_write(first, end);
        }
        done
    }
}

impl Medium for Hdd {
    fn access(&mut self, now_ns: u64, op: Op, offset: u64, len: u64) -> u64 {
        debug_assert!(offset + len <= self.spec.capacity, "access beyond the disk: callers check capacity");
        if len == 0 || op == Op::Trim {
            return 0;
        }
        let (first, end) = (offset / SECTOR, (offset + len).div_ceil(SECTOR));
        let now = now_ns as f64;
        let free = self.destage_until(now);
        let done = match op {
            Op::Read => self.cached_read(now, free, first, end),
            _ => self.cached_write(now, free, first, end),
        };
        let interface = len as f64 * self.interface_ns_per_byte;
        // Times are positive: adding a half and truncating rounds without a libm call.
        ((done - now).max(interface) + 0.5) as i64 as u64
    }

    fn capacity(&self) -> u64 {
        self.spec.capacity
    }

    fn rotating(&self) -> bool {
        true
    }

    fn queue_depth(&self) -> u32 {
        self.queue_depth
    }

    /// Shortest positioning time first (see the module documentation).
    fn choose(&self, now_ns: u64, queued: &[Access]) -> usize {
        let now = now_ns as f64;
        soonest(queued.iter().map(|a| self.positioning_ns(now, a)))
    }

    fn describe(&self) -> String {
        format!("hdd:{} ({} RPM, {} bytes)", self.spec.name, self.spec.rpm, self.spec.capacity)
    }
}
