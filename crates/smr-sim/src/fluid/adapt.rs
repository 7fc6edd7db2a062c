//! The periodic side of FluidSMR and its baselines: the time windows and what happens at their
//! ends. At the end of format adaptation's window (§5.3), Algorithm 1 runs on the window's
//! NSW-Ranges and its plan is carried out (swaps, then conversions); the fixed-format schemes of
//! §7.2 run only its swaps. At the end of the §2.4 swapping's window, zones are swapped by their
//! access or NSW counts. A scheme may run both (format-adapt keeps +cache-fix's NSW-frequency
//! swapping, §7.1); each window forgets only what it used.
//!
//! Format adaptation's window starts at `window` (1 h) and doubles, up to `window_max` (24 h),
//! each time the numbers of CMR, SMR and cache zones come out of a window unchanged; a change
//! sets it back to `window` (§5.3). The §2.4 swapping uses a fixed window of `window_max`.
//! Windows run on trace time. Choices where the paper is silent: a window that ends while a
//! migration is under way (`migration`) changes nothing, so zones being copied are never moved
//! twice; when both windows end before the same request, the swapping by counts goes first and
//! Algorithm 1 sees its outcome.

use super::algorithm1::{plan, Action, Inputs, ZoneRange};
use super::scheme::Swapping;
use super::Fluid;
use smr_kernel::metrics::{Metric, Unit};
use smr_kernel::{IoCtx, SimError};

pub static WINDOWS: Metric =
    Metric::new("windows", Unit::Count, "FluidSMR: format adaptation's time windows ended (Algorithm 1 ran, §5.3)");
pub static SWAP_WINDOWS: Metric = Metric::new(
    "swap_windows",
    Unit::Count,
    "FluidSMR: the §2.4 swapping's time windows ended (zones ranked by counts)",
);
pub static WINDOW_HOURS: Metric =
    Metric::new("window_hours", Unit::Ratio, "FluidSMR: length of the current time window, hours (§5.3)");

const NS_PER_HOUR: f64 = 3600e9;

/// The time window: when the next one ends and how long windows are.
#[derive(Clone, Debug)]
pub struct Window {
    start_ns: u64,
    len_ns: u64,
    min_ns: u64,
    max_ns: u64,
    adaptive: bool,
}

impl Window {
    /// An adaptive window from `min_ns` up to `max_ns`, or a fixed one of `max_ns`.
    pub fn new(adaptive: bool, min_ns: u64, max_ns: u64) -> Self {
        Window { start_ns: 0, len_ns: if adaptive { min_ns } else { max_ns }, min_ns, max_ns, adaptive }
    }

    pub fn due(&self, trace_ns: u64) -> bool {
        trace_ns >= self.start_ns + self.len_ns
    }

    /// A window ended at `trace_ns`; `changed` says whether the format configuration changed.
    pub fn advance(&mut self, trace_ns: u64, changed: bool) {
        self.start_ns = trace_ns;
        if self.adaptive {
            self.len_ns = if changed { self.min_ns } else { (self.len_ns * 2).min(self.max_ns) };
        }
    }

    pub fn hours(&self) -> f64 {
        self.len_ns as f64 / NS_PER_HOUR
    }
}

impl Fluid {
    /// CMR data zones, SMR data zones and cache zones: the format configuration.
    fn configuration(&self) -> (u64, u64, usize) {
        let (cmr, smr) = self.data_zones();
        (cmr, smr, self.cache.as_ref().map_or(0, |c| c.zones().len()))
    }

    /// The end of format adaptation's window at `trace_ns`: Algorithm 1 (in full, or its swaps
    /// alone for a fixed format).
    pub fn end_window(&mut self, ctx: &mut IoCtx, trace_ns: u64) -> Result<(), SimError> {
        self.counts.windows += 1;
        let before = self.configuration();
        if self.scheme.runs_algorithm1() && !self.migration.busy() {
            self.run_algorithm1(ctx)?;
        }
        let changed = self.configuration() != before;
        self.window.advance(trace_ns, changed);
        self.nsw.reset_ranges();
        Ok(())
    }

    /// The end of the §2.4 swapping's window at `trace_ns`: zones swapped by access or NSW
    /// counts.
    pub fn end_swap_window(&mut self, ctx: &mut IoCtx, trace_ns: u64) -> Result<(), SimError> {
        self.counts.swap_windows += 1;
        if !self.migration.busy() {
            match self.scheme.swapping {
                Swapping::Frequency => self.swap_by(ctx, |f, u| f.nsw.accesses(u))?,
                Swapping::NswFrequency => self.swap_by(ctx, |f, u| f.nsw.nsw_writes(u))?,
                Swapping::None | Swapping::Recency | Swapping::NswRange => {}
            }
        }
        self.swap_window.advance(trace_ns, false);
        self.nsw.reset_counts();
        Ok(())
    }

    /// Algorithm 1's inputs from the current state.
    pub fn algorithm1_inputs(&self) -> Inputs {
        let (mut cmr, mut smr) = (Vec::new(), Vec::new());
        for user in 0..self.map.users() {
            let zone = ZoneRange { user, range: self.nsw.range_bytes(user).min(self.geo.zone_size) };
            if self.drive.is_cmr(self.map.zone_of(user)) {
                cmr.push(zone);
            } else {
                smr.push(zone);
            }
        }
        // A lone CMR zone cannot be given up to hold a user zone (`retire_last_cache_zone`).
        let lone = u64::from(self.drive.lone_cmr().is_some());
        let cache_zones = self.cache.as_ref().map_or(0, |c| c.zones().len() as u64).saturating_sub(lone);
        let free_cmr = self.free_zones().filter(|&z| self.drive.is_cmr(z)).count() as u64;
        Inputs {
            cmr,
            smr,
            zone_size: self.geo.zone_size,
            cache_bytes: self.cache.as_ref().map_or(0, |c| c.capacity() * super::geometry::BLOCK),
            spare_cmr_zones: cache_zones + free_cmr,
            gain: self.geo.gain,
            convert: self.scheme.adapt,
        }
    }

    /// Runs Algorithm 1 and carries its plan out.
    fn run_algorithm1(&mut self, ctx: &mut IoCtx) -> Result<(), SimError> {
        for action in plan(&self.algorithm1_inputs()) {
            match action {
                Action::Swap { cmr, smr } => {
                    let ch = self.ch.swap;
                    self.swap(ctx, ch, cmr, smr)?;
                }
                Action::ToSmr(users) => self.convert_to_smr(ctx, &users)?,
                Action::ToCmr(users) => self.convert_to_cmr(ctx, &users)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_doubles_while_stable_up_to_its_maximum_and_resets_on_change() {
        let hour = 3_600_000_000_000;
        let mut w = Window::new(true, hour, 24 * hour);
        assert!(!w.due(hour - 1) && w.due(hour));
        let mut t = hour;
        let mut lengths = Vec::new();
        for changed in [false, false, false, false, false, false, true, false] {
            w.advance(t, changed);
            lengths.push(w.hours());
            t += w.len_ns;
        }
        assert_eq!(lengths, [2.0, 4.0, 8.0, 16.0, 24.0, 24.0, 1.0, 2.0]);
        let mut fixed = Window::new(false, hour, 24 * hour);
        fixed.advance(24 * hour, true);
        assert_eq!(fixed.hours(), 24.0);
    }
}
