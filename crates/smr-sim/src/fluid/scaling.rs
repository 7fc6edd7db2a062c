//! The one rule by which FluidSMR's sizes follow the partition, at the paper's size or scaled
//! down: every size the paper states per TB or as a share is taken of this partition's own
//! bytes. The mapping table's quota is 25 MB per TB of partition (§6.1, §7.1); §7.4's cache is
//! 0.02 % of the SMR region, taken of the SMR zones of the start layout. A trace scaled to
//! fewer requests (`smrlab.fluid_traces`) scales its address range and the zone size by one
//! factor, so the partition keeps the paper's zone count and is that factor of the paper's
//! bytes: the quota and the cache shrink with it, and the entries and blocks they hold keep
//! their proportion to the trace's. The factor is the zone size over the paper's 256 MiB
//! (§7.1), reported as the gauge `scale` with the sizes it gave. The zone size, given or the
//! paper's, is multiplied by `geometry_scale` (the kernel's `geometry`: one factor for every
//! system's bands and zones). Not here: the partition's size itself (`geometry`).

use smr_kernel::metrics::{Gauges, Metric, Unit};

/// §6.1: the cache mapping table's quota, 25 MB per TB (binary units, as §7.1's 460 GB give
/// 11.5 MB).
pub const MAP_QUOTA_PER_TB: u64 = 25 << 20;
/// §7.1: the paper's zone size.
pub const PAPER_ZONE: u64 = 256 << 20;
const TB: u128 = 1 << 40;

pub static SCALE: Metric = Metric::new(
    "scale",
    Unit::Ratio,
    "FluidSMR: zone size over the paper's 256 MiB: the partition's share of the paper's bytes",
);
pub static CACHE_LIMIT_BYTES: Metric = Metric::new(
    "cache_limit_bytes",
    Unit::Bytes,
    "FluidSMR: the most of the cache zones used (cache_limit; 0: all of them)",
);

/// `per_tb` bytes per TB of `bytes`.
pub fn per_tb(per_tb: u64, bytes: u64) -> u64 {
    (bytes as u128 * per_tb as u128 / TB) as u64
}

/// The sizes a run took from the rule, reported with it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scaling {
    pub zone_size: u64,
    pub quota_bytes: u64,
    /// Bytes of the cache used at most, if limited.
    pub cache_limit: Option<u64>,
}

impl Scaling {
    /// For a partition of `partition` bytes of pure-SMR capacity: the quota (`map_quota`, or 25
    /// MB per TB of it) and the cache limit, both in bytes (read as `Kind::Share`s of the
    /// partition and of its SMR area).
    pub fn new(zone_size: u64, partition: u64, map_quota: Option<u64>, cache_limit: Option<u64>) -> Scaling {
        Scaling {
            zone_size,
            quota_bytes: map_quota.unwrap_or_else(|| per_tb(MAP_QUOTA_PER_TB, partition)),
            cache_limit,
        }
    }

    pub fn scale(&self) -> f64 {
        self.zone_size as f64 / PAPER_ZONE as f64
    }

    pub fn gauges(&self, out: &mut Gauges) {
        out.set(&SCALE, self.scale());
        out.set(&CACHE_LIMIT_BYTES, self.cache_limit.unwrap_or(0) as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §7.1: prn_1 at usage 0.9 is a 460 GB partition with an 11.5 MB mapping quota; a quarter
    /// of it (zones of 64 MiB) has a quarter of the quota.
    #[test]
    fn the_quota_is_25_mb_per_tb_of_the_partition_scaled_or_not() {
        let full = Scaling::new(PAPER_ZONE, 460 << 30, None, None);
        assert_eq!(full.quota_bytes, 460 * 25 * 1024, "25 MiB per TiB of 460 GiB: §7.1's 11.5 MB");
        let quarter = Scaling::new(PAPER_ZONE / 4, 115 << 30, None, None);
        assert_eq!((quarter.scale(), quarter.quota_bytes * 4), (0.25, full.quota_bytes));
        assert_eq!(
            Scaling::new(PAPER_ZONE, 460 << 30, Some(1 << 20), Some(4096)).quota_bytes,
            1 << 20,
            "given, it is taken as it is"
        );
    }
}
