//! Media timing models: how long one access to a disk, an SSD, NVRAM or DRAM takes.
//!
//! A `Medium` is stateful (a disk's head position and rotational angle move with simulated time)
//! and deterministic: the same sequence of `access` calls gives the same service times. It models
//! time only; data and mapping belong to the systems in `smr-sim`.

mod disk_cache;
mod flash;
mod hdd;
mod presets;
mod seek;

pub use disk_cache::{CacheConfig, ReadAhead};
pub use flash::{FixedLatencyMedium, LatencyProfile};
pub use hdd::{Hdd, HddSpec};
pub use presets::{disk_preset, preset_spec, DESKTOP7200, FLUID10K, PRESETS, PRESET_NAMES, ST5000AS0011};
pub use seek::SeekCurve;

use crate::request::Op;

/// `x` as an `f64`, converted by way of `i64`: exactly the value `x as f64` gives for every
/// `x` below 2^63, which every sector count, byte count and simulated time here is (the engine
/// stops short of 2^63 ns). On baseline x86-64 a signed conversion is one instruction and an
/// unsigned one six, and the disk model converts about ten times per access.
#[inline]
pub(crate) fn exact_f64(x: u64) -> f64 {
    debug_assert!(x < 1 << 63, "{x} is not below 2^63");
    x as i64 as f64
}

/// A non-negative time or count below 2^63, rounded toward zero to a `u64` by way of `i64`
/// (the counterpart of `exact_f64`; a negative or NaN `t` gives 0, as `t as u64` does).
#[inline]
pub(crate) fn truncated_u64(t: f64) -> u64 {
    debug_assert!(t.is_nan() || t < (1u64 << 63) as f64, "{t} is not below 2^63");
    (t as i64).max(0) as u64
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

    /// The profile of a medium whose service time depends on nothing but each access's
    /// operation and length (`LatencyProfile::service_ns`), so that a caller may time its
    /// accesses without a dynamic call; `None` for a medium with state, whose `access` must be
    /// called.
    fn fixed_latency(&self) -> Option<LatencyProfile> {
        None
    }
}


#[cfg(test)]
mod hdd_tests;
