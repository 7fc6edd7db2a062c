//! The H-Partition's geometry: the SMR density gain as a whole conversion group, the formulas
//! of §5.2 (r* and S_conv), the partition size of §7.1, and where a zone lies on the medium.
//!
//! The partition is a row of *conversion groups* laid from the outer diameter inwards. A group
//! is the smallest physically consecutive extent that converts without leaving a fraction of a
//! zone: `q` CMR zones or `p` SMR zones, with p/q = alpha in lowest terms (alpha = 1.5: two CMR
//! zones or three SMR zones). A zone's number is `group * p + slot`; a CMR group uses slots
//! `0..q`, an SMR group all `p`. The medium is the drive at SMR track density: an SMR zone spans
//! one zone size of medium addresses and a CMR zone, whose tracks are wider, alpha times that,
//! its data written at the start of its span. So transfer rates are the drive's at every radius
//! and seek distances grow with the physical width of what lies between. Not here: which zone
//! holds what (`mapping`), the zone rules and timing (`drive`).

/// The density gain alpha as a conversion group: `q` CMR zones take the space of `p` SMR zones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gain {
    pub cmr: u64,
    pub smr: u64,
}

/// The largest denominator tried when turning alpha into a group (alpha = 1.5 is 3/2).
const MAX_GROUP_CMR_ZONES: u64 = 64;

impl Gain {
    /// Alpha as the smallest whole group; an error unless alpha > 1 and it is p/q with q ≤ 64.
    pub fn from_alpha(alpha: f64) -> Result<Gain, String> {
        if !(alpha.is_finite() && alpha > 1.0) {
            return Err(format!("{alpha} must be a number above 1 (SMR stores more per track than CMR)"));
        }
        (1..=MAX_GROUP_CMR_ZONES)
            .find_map(|q| {
                let p = (alpha * q as f64).round();
                ((p / q as f64 - alpha).abs() < 1e-9).then_some(Gain { cmr: q, smr: p as u64 })
            })
            .ok_or_else(|| format!("{alpha} is not a ratio p/q of whole zones with q at most {MAX_GROUP_CMR_ZONES}"))
    }

    pub fn alpha(&self) -> f64 {
        self.smr as f64 / self.cmr as f64
    }

    /// The break-even NSW-Range ratio r* = (alpha - 1) / alpha (§5.2): a zone whose NSW-Range
    /// is a larger share of it is better kept in CMR.
    pub fn r_star(&self) -> f64 {
        (self.alpha() - 1.0) / self.alpha()
    }

    /// S_conv = alpha / (alpha - 1) (§5.2), the zones a conversion moves per cache zone it
    /// gains or loses. Equal to the group's SMR zones when p - q = 1.
    pub fn s_conv(&self) -> f64 {
        self.alpha() / (self.alpha() - 1.0)
    }

    /// Zones of user data a conversion moves at once: the `p` zones of one group (Algorithm 1's
    /// C_conv).
    pub fn batch(&self) -> usize {
        self.smr as usize
    }

    /// Zones a conversion of one group adds to (CMR to SMR) or takes from (SMR to CMR) the
    /// capacity: p - q.
    pub fn surplus(&self) -> u64 {
        self.smr - self.cmr
    }
}

/// Sizes of the partition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub gain: Gain,
    pub zone_size: u64,
    pub groups: u64,
}

impl Geometry {
    /// The partition of §7.1: its pure-SMR capacity is the trace's `max_end / usage`, in whole
    /// zones, rounded up to whole groups. `zone_size` must be a multiple of 4 KiB.
    pub fn for_usage(gain: Gain, zone_size: u64, max_end: u64, usage: f64) -> Geometry {
        let zones = ((max_end as f64 / usage) / zone_size as f64).ceil().max(1.0) as u64;
        Geometry { gain, zone_size, groups: zones.div_ceil(gain.smr) }
    }

    /// The partition's capacity in pure SMR, zones; zone numbers run below it (every slot of
    /// every group).
    pub fn smr_zones(&self) -> u64 {
        self.groups * self.gain.smr
    }

    pub fn group_of(&self, zone: u32) -> u64 {
        zone as u64 / self.gain.smr
    }

    pub fn zone(&self, group: u64, slot: u64) -> u32 {
        (group * self.gain.smr + slot) as u32
    }

    /// The first medium byte of `zone`, CMR or SMR.
    pub fn medium_offset(&self, zone: u32, cmr: bool) -> u64 {
        let (group, slot) = (zone as u64 / self.gain.smr, zone as u64 % self.gain.smr);
        let group_start = group * self.gain.smr * self.zone_size;
        let span = if cmr { self.zone_size * self.gain.smr / self.gain.cmr / 4096 * 4096 } else { self.zone_size };
        group_start + slot * span
    }

    /// Medium bytes the partition spans.
    pub fn medium_span(&self) -> u64 {
        self.groups * self.gain.smr * self.zone_size
    }

    /// Bytes a lone CMR zone holds: one SMR zone's span formatted CMR on its own, 1/alpha of a
    /// zone in whole blocks (the rest of the span is the seam, unused).
    pub fn lone_cmr_bytes(&self) -> u64 {
        self.zone_size * self.gain.cmr / self.gain.smr / BLOCK * BLOCK
    }

    pub fn blocks_per_zone(&self) -> u64 {
        self.zone_size / BLOCK
    }
}

/// The unit of every map and bitmap: 4 KiB.
pub const BLOCK: u64 = 4096;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn r_star_and_s_conv_follow_section_5_2() {
        let g = Gain::from_alpha(1.5).unwrap();
        assert_eq!((g.cmr, g.smr), (2, 3), "two CMR zones take the space of three SMR zones");
        assert!((g.r_star() - 1.0 / 3.0).abs() < 1e-12, "r* = 0.5 / 1.5");
        assert!((g.s_conv() - 3.0).abs() < 1e-12, "S_conv = 1.5 / 0.5");
        let g = Gain::from_alpha(2.0).unwrap();
        assert_eq!((g.cmr, g.smr, g.r_star(), g.s_conv()), (1, 2, 0.5, 2.0));
        let g = Gain::from_alpha(1.25).unwrap();
        assert_eq!((g.cmr, g.smr, g.batch(), g.surplus()), (4, 5, 5, 1));
        assert!((g.r_star() - 0.2).abs() < 1e-12 && (g.s_conv() - 5.0).abs() < 1e-12);
        for bad in [1.0, 0.5, f64::NAN, -2.0] {
            assert!(Gain::from_alpha(bad).is_err(), "{bad}");
        }
        assert!(Gain::from_alpha(std::f64::consts::PI).is_err());
    }

    /// §7.1: prn_1's max offset of 413.6 GB at usage 0.9 gives a 460 GB partition, 1840 SMR
    /// zones of 256 MB (the paper's GB and MB are binary here: 460 GiB / 256 MiB = 1840).
    #[test]
    fn prn_1_at_ninety_percent_is_1840_smr_zones() {
        let gain = Gain::from_alpha(1.5).unwrap();
        let max_end = (413.6 * (1u64 << 30) as f64) as u64;
        let g = Geometry::for_usage(gain, 256 << 20, max_end, 0.9);
        assert!((1838..=1842).contains(&g.smr_zones()), "{}", g.smr_zones());
        assert_eq!(g.smr_zones() % 3, 0, "whole groups");
    }

    #[test]
    fn cmr_zones_span_alpha_zone_sizes_of_the_medium() {
        let g = Geometry { gain: Gain::from_alpha(1.5).unwrap(), zone_size: 1 << 20, groups: 4 };
        assert_eq!(g.medium_offset(g.zone(1, 0), true), 3 << 20);
        assert_eq!(g.medium_offset(g.zone(1, 1), true), (3 << 20) + (3 << 19));
        assert_eq!(g.medium_offset(g.zone(1, 2), false), 5 << 20);
        assert_eq!(g.group_of(g.zone(2, 1)), 2);
    }
}
