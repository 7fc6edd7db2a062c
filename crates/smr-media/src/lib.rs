//! Media timing models: how long one access to a disk, an SSD, NVRAM or DRAM takes.
//!
//! A `Medium` is stateful (a disk's head position and rotational angle move with simulated time)
//! and deterministic: the same sequence of `access` calls gives the same service times. It models
//! time only; data and mapping belong to the systems in `smr-sim`. A medium may hold several
//! commands at once and choose which to serve next (`Medium::queue_depth`, `Medium::choose`);
//! `queue` keeps such a command queue for one device.

mod disk_cache;
mod flash;
mod hdd;
mod presets;
mod queue;
mod seek;

pub use disk_cache::{CacheConfig, ReadAhead};
pub use flash::{FixedLatencyMedium, FixedTiming, LatencyProfile};
pub use hdd::{Hdd, HddSpec};
pub use presets::{disk_preset, preset_spec, DESKTOP7200, FLUID10K, PRESETS, PRESET_NAMES, ST3500418AS, ST5000AS0011};
pub use queue::{serve_batch, DeviceQueue, MAX_QUEUE_DEPTH};
pub use seek::SeekCurve;

use smr_core::request::Op;

/// A count of sectors (or of tracks, cylinders or sector slots) as an `f64`, converted by way of
/// `i64`: one instruction on baseline x86-64 where an unsigned conversion takes about six, and
/// the disk model converts several per access. Exactly `x as f64`, since such a count is below
/// 2^55 (a byte address fits in a `u64`, and a sector is 512 bytes); times and byte lengths,
/// which come from outside, are converted with `as`.
#[inline]
pub(crate) fn exact_f64(x: u64) -> f64 {
    debug_assert!(x < 1 << 55, "{x} is not a sector count");
    x as i64 as f64
}

/// `t as u64` (toward zero, 0 for a negative or NaN `t`), converted by way of `i64` when `t` is
/// below 2^63: the counterpart of `exact_f64`.
#[inline]
pub(crate) fn truncated_u64(t: f64) -> u64 {
    if t < TWO_TO_THE_63 {
        (t as i64).max(0) as u64
    } else {
        t as u64
    }
}

const TWO_TO_THE_63: f64 = (1u64 << 63) as f64;

/// One command as a medium's queue holds it: what `Medium::access` takes besides the time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Access {
    pub op: Op,
    pub offset: u64,
    pub len: u64,
}

/// A timing model of one storage medium.
pub trait Medium: Send {
    /// Service time in nanoseconds of one access of `len` bytes at byte `offset`, starting at
    /// simulated time `now_ns` (when the medium becomes free for it). Updates the medium's state
    /// (head position, rotational phase, ...). `offset + len` must not exceed `capacity()`.
    fn access(&mut self, now_ns: u64, op: Op, offset: u64, len: u64) -> u64;

    /// Addressable bytes.
    fn capacity(&self) -> u64;

    /// A short description for result files ("ssd", "hdd:st5000as0011", ...).
    fn describe(&self) -> String;

    /// Whether a head moves over rotating media (only there does an I/O that does not start
    /// where the last one ended count as a seek).
    fn rotating(&self) -> bool {
        false
    }

    /// The timing of a medium whose service time depends on nothing but each access's
    /// operation and length (`FixedTiming::service_ns`), so that a caller may time its
    /// accesses without a dynamic call; `None` for a medium with state, whose `access` must be
    /// called.
    fn fixed_latency(&self) -> Option<FixedTiming> {
        None
    }

    /// How many commands the medium holds at once and may serve in an order of its own (its
    /// command queue: SATA's native command queueing holds up to 32); 1 = one at a time, in
    /// the order they come.
    fn queue_depth(&self) -> u32 {
        1
    }

    /// Which of `queued` (the commands the medium holds, oldest first, at most `queue_depth`)
    /// it serves next when it is free at `now_ns`: the oldest, unless the medium schedules.
    /// Changes no state.
    fn choose(&self, _now_ns: u64, _queued: &[Access]) -> usize {
        0
    }
}

#[cfg(test)]
mod hdd_tests;

#[cfg(test)]
mod tests {
    use super::*;

    /// The conversions agree with Rust's `as`: over the range of sector counts, and for
    /// floats on both sides of 2^63 and at the ends (negative, NaN and infinite included).
    #[test]
    fn conversions_agree_with_as_everywhere() {
        for x in [0, 1, (1 << 53) + 1, (1 << 55) - 1] {
            assert_eq!(exact_f64(x).to_bits(), (x as f64).to_bits(), "{x}");
        }
        let below = f64::from_bits(TWO_TO_THE_63.to_bits() - 1);
        for t in
            [-1.5, -0.0, 0.0, 0.7, 1e10, below, TWO_TO_THE_63, 1.8e19, 1e30, f64::INFINITY, f64::NEG_INFINITY, f64::NAN]
        {
            assert_eq!(truncated_u64(t), t as u64, "{t}");
        }
    }
}
