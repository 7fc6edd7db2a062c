//! Algorithm 1 of the FluidSMR paper (§5.3), the H-SMR adaptive conversion algorithm, as a pure
//! function from the zones' NSW-Ranges and the cache size to a plan: which CMR-SMR pairs swap,
//! which batches of CMR zones convert to SMR, which batches of SMR zones convert to CMR.
//!
//! Line by line: (2-4) R_total is the NSW-Range of the SMR zones (what the cache must hold),
//! C_total the cache size; stop if the cache already holds it. (5-16) Swap the CMR zone of least
//! NSW-Range with the SMR zone of most while the first is at most r* and the second at least r*,
//! stopping early once C_total >= R_total. (17-23) While more than C_conv CMR zones remain,
//! convert the C_conv of least NSW-Range to SMR unless their mean ratio is above r* (which ends
//! the procedure): R_total grows by their ranges and the cache by the zones the conversion frees.
//! (24-30) Likewise SMR zones of most NSW-Range to CMR unless their mean ratio is below r*: R_total
//! shrinks by their ranges and the cache gives up the zones they need.
//!
//! One reading where the pseudo-code and the text disagree: line 20 ("exit procedure" when the
//! first CMR batch's mean ratio is above r*) would, read literally, never let lines 24-30 run
//! while more than C_conv CMR zones remain, though §5.3 says that after swapping either lines
//! 17-23 or lines 24-30 run, and Fig. 16 shows conversions toward CMR with a large CMR area. So
//! a CMR-to-SMR loop that converted nothing goes on to lines 24-30; one that converted something
//! ends the procedure there.
//!
//! Choices where the paper is silent: a zone looked at and not swapped (the breaks of lines 10
//! and 13) stays in its queue, so the conversion loops may still take it; ties in NSW-Range are
//! broken by user zone number; an SMR-to-CMR conversion also needs the cache (or unused CMR
//! zones) to give up p - q zones, and the procedure ends when they are not there. Not here:
//! carrying the plan out (`adapt`).

use super::geometry::Gain;

/// One zone as the algorithm sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ZoneRange {
    pub user: u32,
    /// NSW-Range, bytes.
    pub range: u64,
}

/// What the algorithm decides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Action {
    /// Exchange the data of a CMR zone and an SMR zone (user zone numbers).
    Swap { cmr: u32, smr: u32 },
    /// Convert one group: these C_conv user zones move from CMR to SMR.
    ToSmr(Vec<u32>),
    /// Convert one group: these C_conv user zones move from SMR to CMR.
    ToCmr(Vec<u32>),
}

/// The state Algorithm 1 starts from.
pub struct Inputs {
    pub cmr: Vec<ZoneRange>,
    pub smr: Vec<ZoneRange>,
    pub zone_size: u64,
    /// C_total, bytes.
    pub cache_bytes: u64,
    /// CMR zones an SMR-to-CMR conversion may take (cache zones and unused CMR zones).
    pub spare_cmr_zones: u64,
    pub gain: Gain,
    /// False for the fixed-format baselines: lines 5-16 only (NSW-Range swapping).
    pub convert: bool,
}

/// Runs Algorithm 1 on `inputs`.
pub fn plan(inputs: &Inputs) -> Vec<Action> {
    let gain = inputs.gain;
    let r_star = gain.r_star();
    let zone = inputs.zone_size as f64;
    let ratio = |z: &ZoneRange| z.range as f64 / zone;
    let mut actions = Vec::new();
    // Lines 2-4.
    let mut r_total: u64 = inputs.smr.iter().map(|z| z.range).sum();
    let mut c_total = inputs.cache_bytes;
    if c_total >= r_total {
        return actions;
    }
    // Lines 5-6: CMR zones least NSW-Range first, SMR zones most first.
    let mut q_cmr = inputs.cmr.clone();
    q_cmr.sort_by_key(|z| (z.range, z.user));
    let mut q_smr = inputs.smr.clone();
    q_smr.sort_by_key(|z| (std::cmp::Reverse(z.range), z.user));
    let (mut cmr_at, mut smr_at) = (0, 0);
    // Lines 7-16.
    while cmr_at < q_cmr.len() && smr_at < q_smr.len() {
        let (z_cmr, z_smr) = (q_cmr[cmr_at], q_smr[smr_at]);
        if ratio(&z_cmr) > r_star || ratio(&z_smr) < r_star {
            break;
        }
        cmr_at += 1;
        smr_at += 1;
        actions.push(Action::Swap { cmr: z_cmr.user, smr: z_smr.user });
        r_total = r_total + z_cmr.range - z_smr.range;
        if c_total >= r_total {
            return actions;
        }
    }
    if !inputs.convert {
        return actions;
    }
    let batch = gain.batch();
    let surplus_bytes = gain.surplus() * inputs.zone_size;
    // Lines 17-23.
    let mut converted = false;
    while q_cmr.len() - cmr_at > batch {
        let list = &q_cmr[cmr_at..cmr_at + batch];
        let range: u64 = list.iter().map(|z| z.range).sum();
        if range as f64 / (batch as f64 * zone) > r_star {
            if converted {
                return actions;
            }
            break;
        }
        cmr_at += batch;
        converted = true;
        actions.push(Action::ToSmr(list.iter().map(|z| z.user).collect()));
        r_total += range;
        c_total += surplus_bytes;
        if c_total >= r_total {
            return actions;
        }
    }
    // Lines 24-30.
    let mut spare = inputs.spare_cmr_zones;
    while q_smr.len() - smr_at > batch {
        let list = &q_smr[smr_at..smr_at + batch];
        smr_at += batch;
        let range: u64 = list.iter().map(|z| z.range).sum();
        if range as f64 / (batch as f64 * zone) < r_star || spare < gain.surplus() {
            return actions;
        }
        actions.push(Action::ToCmr(list.iter().map(|z| z.user).collect()));
        spare -= gain.surplus();
        r_total -= range;
        c_total = c_total.saturating_sub(surplus_bytes);
        if c_total >= r_total {
            return actions;
        }
    }
    actions
}

#[cfg(test)]
mod tests {
    use super::*;

    const Z: u64 = 300;

    fn zones(first_user: u32, ranges: &[u64]) -> Vec<ZoneRange> {
        ranges.iter().enumerate().map(|(i, &range)| ZoneRange { user: first_user + i as u32, range }).collect()
    }

    fn inputs(cmr: &[u64], smr: &[u64], cache_zones: u64) -> Inputs {
        Inputs {
            cmr: zones(0, cmr),
            smr: zones(100, smr),
            zone_size: Z,
            cache_bytes: cache_zones * Z,
            spare_cmr_zones: cache_zones,
            gain: Gain::from_alpha(1.5).unwrap(),
            convert: true,
        }
    }

    /// alpha = 1.5: r* = 1/3 (a range of 100 in a zone of 300), C_conv = 3.
    #[test]
    fn a_cache_holding_every_range_ends_the_procedure_at_once() {
        assert!(plan(&inputs(&[0, 0], &[100, 50], 1)).is_empty(), "C = 300 >= R = 150 (line 4)");
    }

    #[test]
    fn swaps_pair_coldest_cmr_with_hottest_smr_until_the_cache_holds_the_rest() {
        // R = 290 + 250 + 200 + 10 = 750, C = 300. Swap (user 1: 0) with (100: 290):
        // R = 460; then (0: 20) with (101: 250): R = 230 <= C: stop (line 16).
        let p = plan(&inputs(&[20, 0, 280], &[290, 250, 200, 10], 1));
        assert_eq!(p, [Action::Swap { cmr: 1, smr: 100 }, Action::Swap { cmr: 0, smr: 101 }]);
    }

    #[test]
    fn swapping_stops_at_a_hot_cmr_zone_or_a_cold_smr_zone() {
        // The coldest CMR zone is above r*: no swap (lines 9-10); no CMR batch to convert (only 2
        // CMR zones, line 17 needs more than 3); SMR batch of 3 with mean 0.8 > r*: to CMR.
        let p = plan(&inputs(&[120, 200], &[240, 240, 240, 240], 2));
        assert_eq!(p, [Action::ToCmr(vec![100, 101, 102])], "lines 24-28, then C = 300, R = 240: line 30 ends it");
        // The hottest SMR zone is below r*: no swap (lines 12-13), and cold CMR zones convert
        // to SMR three by three until the cache holds R (lines 17-23).
        let p = plan(&inputs(&[0, 10, 20, 30, 40, 50, 60, 70], &[90, 90, 90, 90, 90], 0));
        // R = 450, C = 0: batch (0,10,20): R = 480, C = 300; batch (30,40,50): R = 600, C = 600: stop.
        assert_eq!(p, [Action::ToSmr(vec![0, 1, 2]), Action::ToSmr(vec![3, 4, 5])]);
    }

    #[test]
    fn conversion_to_smr_ends_when_the_batch_mean_is_above_r_star() {
        // Batch (0, 0, 100): mean 1/9: converted; batch (200, 200, 200): mean 2/3 > r*: the
        // procedure ends (line 20) before the SMR-to-CMR loop.
        let p = plan(&inputs(&[0, 0, 100, 200, 200, 200, 250], &[90, 90, 90, 90, 90, 90], 0));
        assert_eq!(p, [Action::ToSmr(vec![0, 1, 2])]);
    }

    #[test]
    fn hot_cmr_zones_leave_the_conversion_toward_cmr_to_lines_24_to_30() {
        // Five CMR zones all above r*: no swap, no CMR batch to convert; the SMR zones' batch of
        // mean 0.9 converts to CMR (one cache zone to give).
        let p = plan(&inputs(&[150, 160, 170, 180, 190], &[270, 270, 270, 30], 1));
        assert_eq!(p, [Action::ToCmr(vec![100, 101, 102])]);
    }

    #[test]
    fn conversion_to_cmr_needs_spare_cmr_zones_and_a_hot_batch() {
        let mut i = inputs(&[250, 250], &[300, 300, 300, 300, 290, 280, 10], 0);
        assert!(plan(&i).is_empty(), "no cache zone to give up");
        i.spare_cmr_zones = 2;
        i.cache_bytes = 0;
        // Batch (300 x3): converted, R = 1780 - 900 = 880; batch (300, 290, 280): mean > r*, and
        // one spare zone is left for it: converted, R = 10 > C = 0; one SMR zone is left: the
        // loop ends.
        assert_eq!(plan(&i), [Action::ToCmr(vec![100, 101, 102]), Action::ToCmr(vec![103, 104, 105])]);
    }

    #[test]
    fn fixed_formats_only_swap() {
        let mut i = inputs(&[0, 10, 20, 30, 40, 50, 60, 70], &[290, 90, 90, 90, 90], 0);
        i.convert = false;
        assert_eq!(plan(&i), [Action::Swap { cmr: 0, smr: 100 }]);
    }
}
