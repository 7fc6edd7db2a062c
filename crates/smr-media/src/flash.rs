//! Solid-state media (SSD, NVRAM, DRAM) as per-operation latency plus bandwidth.
//!
//! One struct serves all three, since they differ only in their numbers; the presets name their
//! sources. Not modelled: internal parallelism, garbage collection inside the SSD, wear.

use super::Medium;
use smr_core::request::Op;
use smr_core::units::{GIB, NS_PER_S};
use strength_reduce::StrengthReducedU64;

/// Latency (ns) and bandwidth (bytes/s), separately for reads and writes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LatencyProfile {
    pub read_latency_ns: u64,
    pub write_latency_ns: u64,
    pub read_bandwidth: u64,
    pub write_bandwidth: u64,
}

impl LatencyProfile {
    /// A SATA SSD of the PORE paper's era (Intel DC S3700 class: ~50 µs read / ~65 µs write
    /// latency, 500 MB/s read, 460 MB/s sequential write per its data sheet).
    pub const SSD: LatencyProfile = LatencyProfile {
        read_latency_ns: 50_000,
        write_latency_ns: 65_000,
        read_bandwidth: 500_000_000,
        write_bandwidth: 460_000_000,
    };
    /// Battery-backed NVRAM / NVDIMM: DRAM-like latency behind a memory bus (~1 µs, 2 GB/s).
    pub const NVRAM: LatencyProfile = LatencyProfile {
        read_latency_ns: 1_000,
        write_latency_ns: 1_000,
        read_bandwidth: 2_000_000_000,
        write_bandwidth: 2_000_000_000,
    };
    /// Host DRAM: 100 ns, 10 GB/s (a single DDR3/DDR4 channel's practical copy rate).
    pub const DRAM: LatencyProfile = LatencyProfile {
        read_latency_ns: 100,
        write_latency_ns: 100,
        read_bandwidth: 10_000_000_000,
        write_bandwidth: 10_000_000_000,
    };

    /// The profile as its accesses are timed (`FixedTiming`). Bandwidths must be positive
    /// (`FixedLatencyMedium::new` checks).
    pub fn timing(self) -> FixedTiming {
        FixedTiming {
            read_divisor: StrengthReducedU64::new(self.read_bandwidth),
            write_divisor: StrengthReducedU64::new(self.write_bandwidth),
            profile: self,
        }
    }
}

/// A `LatencyProfile` ready to time accesses: its bandwidths held as divisors by multiplication
/// as well, since every SSD, NVRAM or DRAM access divides by one and a hardware division takes
/// tens of cycles on many CPUs (a cached request makes about three such accesses).
#[derive(Clone, Copy, Debug)]
pub struct FixedTiming {
    profile: LatencyProfile,
    read_divisor: StrengthReducedU64,
    write_divisor: StrengthReducedU64,
}

impl FixedTiming {
    /// Service time of one access of `len` bytes, ns: the same wherever it lands and whenever
    /// it starts.
    #[inline]
    pub fn service_ns(&self, op: Op, len: u64) -> u64 {
        let p = &self.profile;
        match op {
            Op::Read => p.read_latency_ns + transfer_ns(len, self.read_divisor),
            Op::Write => p.write_latency_ns + transfer_ns(len, self.write_divisor),
            // A discard costs one command's latency and moves no data.
            Op::Trim => p.write_latency_ns,
        }
    }
}

/// A medium whose service time is `latency + len / bandwidth`, independent of position.
#[derive(Clone, Debug)]
pub struct FixedLatencyMedium {
    name: String,
    timing: FixedTiming,
    capacity: u64,
}

impl FixedLatencyMedium {
    pub fn new(name: &str, profile: LatencyProfile, capacity: u64) -> Self {
        assert!(profile.read_bandwidth > 0 && profile.write_bandwidth > 0, "bandwidth must be positive");
        FixedLatencyMedium { name: name.to_string(), timing: profile.timing(), capacity }
    }

    pub fn ssd(capacity: u64) -> Self {
        Self::new("ssd", LatencyProfile::SSD, capacity)
    }

    pub fn nvram(capacity: u64) -> Self {
        Self::new("nvram", LatencyProfile::NVRAM, capacity)
    }

    pub fn dram(capacity: u64) -> Self {
        Self::new("dram", LatencyProfile::DRAM, capacity)
    }
}

impl Default for FixedLatencyMedium {
    fn default() -> Self {
        Self::ssd(64 * GIB)
    }
}

/// `len` bytes at `bandwidth` bytes per second (held as a divisor by multiplication), in ns
/// rounded up.
#[inline]
fn transfer_ns(len: u64, bandwidth: StrengthReducedU64) -> u64 {
    // In 64 bits whenever the product fits (below 18 GB a transfer): 128-bit division is a
    // library call several times slower, and this sits on every cache access's path.
    match len.checked_mul(NS_PER_S) {
        Some(product) => {
            let (quotient, remainder) = StrengthReducedU64::div_rem(product, bandwidth);
            quotient + (remainder != 0) as u64
        }
        None => (len as u128 * NS_PER_S as u128).div_ceil(bandwidth.get() as u128) as u64,
    }
}

impl Medium for FixedLatencyMedium {
    fn access(&mut self, _now_ns: u64, op: Op, _offset: u64, len: u64) -> u64 {
        self.timing.service_ns(op, len)
    }

    fn fixed_latency(&self) -> Option<FixedTiming> {
        Some(self.timing)
    }

    fn capacity(&self) -> u64 {
        self.capacity
    }

    fn describe(&self) -> String {
        self.name.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_plus_transfer() {
        let mut ssd = FixedLatencyMedium::ssd(GIB);
        // 4 KiB read: 50 µs + 4096 B / 500 MB/s = 50 µs + 8.192 µs.
        assert_eq!(ssd.access(0, Op::Read, 0, 4096), 50_000 + 8_192);
        // Writes use the write profile; position and time do not matter.
        assert_eq!(ssd.access(0, Op::Write, 0, 4096), ssd.access(99, Op::Write, 1 << 20, 4096));
        assert!(ssd.access(0, Op::Write, 0, 1 << 20) > ssd.access(0, Op::Read, 0, 1 << 20));
        assert_eq!(ssd.access(0, Op::Trim, 0, 1 << 20), 65_000);
    }

    /// The transfer time by multiplication is the ceiling of the exact quotient, for any
    /// length (past 18 GB the product takes the 128-bit route) and any positive bandwidth.
    #[test]
    fn transfer_time_rounds_the_exact_quotient_up() {
        proptest::proptest!(|(len in proptest::prop_oneof![0u64..1 << 24, proptest::num::u64::ANY], bandwidth in 1u64..u64::MAX)| {
            let exact = (len as u128 * NS_PER_S as u128).div_ceil(bandwidth as u128) as u64;
            proptest::prop_assert_eq!(transfer_ns(len, StrengthReducedU64::new(bandwidth)), exact);
        });
    }

    #[test]
    fn presets_are_ordered_by_speed() {
        let mut d = FixedLatencyMedium::dram(GIB);
        let mut n = FixedLatencyMedium::nvram(GIB);
        let mut s = FixedLatencyMedium::ssd(GIB);
        let t = |m: &mut FixedLatencyMedium| m.access(0, Op::Write, 0, 65536);
        assert!(t(&mut d) < t(&mut n) && t(&mut n) < t(&mut s));
    }
}
