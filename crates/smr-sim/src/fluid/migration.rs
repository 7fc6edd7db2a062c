//! Quantized migration (§4.5): heavy allocation's conversions run as a queue of steps executed
//! in quanta, each carried to completion once started: copying at most `quantum_bytes` of a
//! zone's data to a staging zone, or one conversion command. The quantum is sized from the
//! acceptable increase of latency (`latency_bound`): the worst time of a read and a write of
//! that many bytes on the disk (a full-stroke seek, a write settle and a revolution each, and
//! per track crossed a revolution, a cylinder switch and a revolution more) must fit in it. A
//! quantum runs before each host request (closed loop) and in idle gaps (open loop); without a
//! bound, the whole queue runs at once (blocking repletion).
//!
//! Repletion converts the group `heavy_group` picks: each of its data zones is copied to an
//! unused zone outside it (an SMR one first), then the group is converted, adding p - q unused
//! zones; groups follow until the guard range is full. Choices where the paper is silent: a
//! host write below the copy's progress into a zone being copied restarts that copy (the source
//! stays the zone's home until the copy completes, so nothing is lost); when no unused zone is
//! left for staging, the group is converted at once with its data in flight (blocking). Not
//! here: choosing groups (`allocation`).

use std::collections::VecDeque;

use smr_core::Op;
use smr_media::HddSpec;

use super::drive::CONVERSION_NS;
use super::geometry::BLOCK;
use super::mapping::Role;
use super::Fluid;
use smr_kernel::metrics::{Counters, Gauges, Metric, Unit};
use smr_kernel::{IoCtx, SimError};

pub static QUANTA: Metric = Metric::new("migration_quanta", Unit::Count, "FluidSMR: migration quanta run (§4.5)");
pub static COPIED_BYTES: Metric =
    Metric::new("migration_copied_bytes", Unit::Bytes, "FluidSMR: bytes copied by migration quanta");
pub static RESTARTS: Metric =
    Metric::new("migration_restarts", Unit::Count, "FluidSMR: copies restarted by a host write behind their progress");
pub static WALL_NS: Metric = Metric::new(
    "conversion_wall_ns",
    Unit::Ns,
    "FluidSMR: time from each guard repletion's start to its end (Fig. 19's conversion time)",
);
pub static JOBS: Metric = Metric::new("repletions", Unit::Count, "FluidSMR: guard range repletions finished");
pub static MAX_QUANTUM_NS: Metric = Metric::new(
    "max_quantum_ns",
    Unit::Ns,
    "FluidSMR: the longest migration quantum: the worst latency increase it caused (§4.5)",
);
pub static QUANTUM_BYTES: Metric =
    Metric::new("quantum_bytes", Unit::Bytes, "FluidSMR: bytes a copy quantum moves (from latency_bound)");
pub static ZONES_LEFT: Metric = Metric::new(
    "migration_zones_left",
    Unit::Count,
    "FluidSMR: zones left to copy or convert in the running repletion (Fig. 19)",
);

enum Step {
    Copy { user: u32, from: u32, to: u32, done: u64 },
    Convert { group: u64 },
}

pub struct Migration {
    bound_ns: Option<u64>,
    quantum_bytes: u64,
    steps: VecDeque<Step>,
    started_ns: Option<u64>,
    quanta: u64,
    copied: u64,
    restarts: u64,
    wall_ns: u64,
    jobs: u64,
    max_quantum_ns: u64,
}

/// The worst time of reading and writing `bytes` somewhere on `spec`'s disk, in ns.
fn worst_copy_ns(spec: &HddSpec, bytes: u64) -> u64 {
    let revolution = 60_000_000_000 / spec.rpm as u64;
    let positioning = spec.full_stroke_ns + spec.write_settle_ns + revolution;
    let track_bytes = spec.inner_spt as u64 * 512;
    let per_track = 2 * revolution + (spec.track_to_track_ns + spec.write_settle_ns).max(spec.head_switch_ns);
    2 * (positioning + bytes.div_ceil(track_bytes) * per_track)
}

impl Migration {
    /// Migration on `spec`'s disk with quanta of at most `bound_ns` (`None`: blocking); an error
    /// when the bound is below one I/O (a 4 KiB copy, or a conversion command).
    pub fn new(spec: &HddSpec, bound_ns: Option<u64>) -> Result<Self, String> {
        let mut quantum_bytes = u64::MAX;
        if let Some(bound) = bound_ns {
            let one_io = worst_copy_ns(spec, BLOCK).max(CONVERSION_NS);
            if bound < one_io {
                return Err(format!(
                    "{} ms is smaller than one migration I/O, which can take {:.1} ms",
                    bound as f64 / 1e6,
                    one_io as f64 / 1e6
                ));
            }
            let track_bytes = spec.inner_spt as u64 * 512;
            let mut tracks = 1;
            while worst_copy_ns(spec, (tracks + 1) * track_bytes) <= bound {
                tracks += 1;
            }
            quantum_bytes =
                if worst_copy_ns(spec, track_bytes) <= bound { tracks * track_bytes / BLOCK * BLOCK } else { BLOCK };
        }
        Ok(Migration {
            bound_ns,
            quantum_bytes,
            steps: VecDeque::new(),
            started_ns: None,
            quanta: 0,
            copied: 0,
            restarts: 0,
            wall_ns: 0,
            jobs: 0,
            max_quantum_ns: 0,
        })
    }

    pub fn busy(&self) -> bool {
        !self.steps.is_empty()
    }

    pub fn counters(&self, out: &mut Counters) {
        out.add(&QUANTA, self.quanta);
        out.add(&COPIED_BYTES, self.copied);
        out.add(&RESTARTS, self.restarts);
        out.add(&WALL_NS, self.wall_ns);
        out.add(&JOBS, self.jobs);
    }

    pub fn gauges(&self, out: &mut Gauges) {
        out.set(&MAX_QUANTUM_NS, self.max_quantum_ns as f64);
        out.set(&QUANTUM_BYTES, self.quantum_bytes.min(1 << 50) as f64);
        let left = self.steps.iter().filter(|s| matches!(s, Step::Copy { done: 0, .. } | Step::Convert { .. })).count();
        out.set(&ZONES_LEFT, left as f64);
    }
}

impl Fluid {
    /// Starts replenishing the guard range if it is short; blocking without a latency bound.
    pub fn start_repletion(&mut self, ctx: &mut IoCtx) -> Result<(), SimError> {
        if self.migration.busy() || !self.plan_repletion(ctx)? {
            return Ok(());
        }
        let start = ctx.now();
        self.migration.started_ns = Some(start);
        if self.migration.bound_ns.is_none() {
            // Blocking: the request waits for the whole repletion, its one quantum.
            while self.migration.busy() {
                self.quantum(ctx)?;
            }
            self.migration.max_quantum_ns = self.migration.max_quantum_ns.max(ctx.now() - start);
        }
        Ok(())
    }

    /// Queues the conversion of the next group if the guard range is short; whether it did.
    fn plan_repletion(&mut self, ctx: &mut IoCtx) -> Result<bool, SimError> {
        while (self.free_zones().count() as u64) < self.guard_zones() {
            let Some(group) = self.heavy_group() else { return Ok(false) };
            let data: Vec<(u32, u32)> = self
                .drive
                .zones_of(group)
                .filter_map(|z| match self.map.role(z) {
                    Role::Data(user) => Some((user, z)),
                    _ => None,
                })
                .collect();
            let mut staging: Vec<u32> = self.free_zones().filter(|&z| self.geo.group_of(z) != group).collect();
            staging.sort_by_key(|&z| (self.drive.is_cmr(z), z));
            if staging.len() < data.len() {
                self.convert_for_space(ctx, group)?;
                continue;
            }
            for (&(user, from), &to) in data.iter().zip(&staging) {
                self.map.set_role(to, Role::Reserved);
                self.migration.steps.push_back(Step::Copy { user, from, to, done: 0 });
            }
            self.migration.steps.push_back(Step::Convert { group });
            return Ok(true);
        }
        Ok(false)
    }

    /// One quantum of the queued migration, before a host request: its time is that request's
    /// added latency.
    pub fn migration_quantum(&mut self, ctx: &mut IoCtx) -> Result<(), SimError> {
        if self.migration.busy() {
            self.quantum(ctx)?;
        }
        Ok(())
    }

    /// One quantum in an idle gap; whether there was one.
    pub fn idle_quantum(&mut self, ctx: &mut IoCtx) -> Result<bool, SimError> {
        if !self.migration.busy() {
            return Ok(false);
        }
        self.quantum(ctx)?;
        Ok(true)
    }

    fn quantum(&mut self, ctx: &mut IoCtx) -> Result<(), SimError> {
        let start = ctx.now();
        let ch = self.ch.migrate;
        match self.migration.steps.front_mut().expect("a quantum of a queued migration") {
            Step::Convert { group } => {
                let group = *group;
                self.migration.steps.pop_front();
                for zone in (0..self.geo.gain.smr).map(|s| self.geo.zone(group, s)) {
                    self.map.set_role(zone, Role::Free);
                }
                self.drive.convert(ctx, group, false)?;
                self.counts.map_persists += 1;
            }
            Step::Copy { user, from, to, done } => {
                let (user, from, to, at) = (*user, *from, *to, *done);
                let len = self.map.valid(user);
                if at == 0 {
                    self.drive.reset(to)?;
                }
                let chunk = self.migration.quantum_bytes.min(len - at);
                if chunk > 0 {
                    self.drive.io(ctx, ch, Op::Read, from, at, chunk)?;
                    self.drive.io(ctx, ch, Op::Write, to, at, chunk)?;
                    let image = self.drive.image(from, at / BLOCK, chunk.div_ceil(BLOCK));
                    self.drive.store_image(to, at / BLOCK, &image);
                    self.migration.copied += chunk;
                }
                if at + chunk >= len {
                    self.migration.steps.pop_front();
                    self.map.place(user, to);
                    self.drive.store_entry(to, user);
                    self.counts.moved_bytes += len;
                } else if let Some(Step::Copy { done, .. }) = self.migration.steps.front_mut() {
                    *done = at + chunk;
                }
            }
        }
        self.migration.quanta += 1;
        if !self.migration.busy() && !self.plan_repletion(ctx)? {
            if let Some(started) = self.migration.started_ns.take() {
                self.migration.wall_ns += ctx.now() - started;
                self.migration.jobs += 1;
            }
        }
        self.migration.max_quantum_ns = self.migration.max_quantum_ns.max(ctx.now() - start);
        Ok(())
    }

    /// A host write at `offset` of `user`: a copy of that zone already past it starts again.
    pub fn migration_write_hook(&mut self, user: u32, offset: u64) {
        if let Some(Step::Copy { user: copying, done, .. }) = self.migration.steps.front_mut() {
            if *copying == user && offset < *done {
                *done = 0;
                self.migration.restarts += 1;
            }
        }
    }
}
