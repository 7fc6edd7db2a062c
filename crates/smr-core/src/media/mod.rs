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
}


#[cfg(test)]
mod hdd_tests;
