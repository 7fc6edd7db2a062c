//! Media timing models: how long one access to a disk, an SSD, NVRAM or DRAM takes.
//!
//! A `Medium` is stateful (a disk's head position and rotational angle move with simulated time)
//! and deterministic: the same sequence of `access` calls gives the same service times. It models
//! time only; data and mapping belong to the systems in `smr-sim`.

mod flash;

pub use flash::{FixedLatencyMedium, LatencyProfile};

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
}

/// TRANSITIONAL (replaced by the HDD model): builds the disk named by the `disk` parameter.
pub fn disk_from_params(params: &mut crate::Params, min_capacity: u64) -> Result<Box<dyn Medium>, crate::ParamError> {
    let _ = params.string("disk", "st5000as0011");
    Ok(Box::new(FixedLatencyMedium::new(
        "hdd-placeholder",
        LatencyProfile { read_latency_ns: 8_000_000, write_latency_ns: 8_000_000, read_bandwidth: 150_000_000, write_bandwidth: 150_000_000 },
        min_capacity.max(5_000_000_000_000),
    )))
}
