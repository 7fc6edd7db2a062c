//! FluidSMR's four-phase write workload (§5.4, Fig. 16): write-only, four phases of 100 hours,
//! over 1541 zones (a 428 GiB partition at usage 0.9). Phases 1 and 3 write every zone within a
//! 20 MiB window (an NSW-Range ratio of 7.8 %); phases 2 and 4 write the first 80 GiB of zones
//! (320) within a 240 MiB window (93.8 %). Each zone's window starts at a random block-aligned
//! place; writes are uniform within the windows, of 64 KiB (1/4096 of a zone), at uniform times in
//! the phase. A scaled workload has fewer zones (`shape`), of the same size, so its windows are
//! covered as densely. The draws are numpy's (`numpy_random`), so the workload first made with
//! numpy stays the same. Not here: running the experiment.

use serde::{Deserialize, Serialize};

use super::numpy_random::NumpyRng;
use super::pyformat::{general, thousands};
use super::PaperError;

/// The paper's zone, 256 MiB.
pub const ZONE: u64 = 256 << 20;
pub const PHASE_ZONES: u64 = 1541;
pub const HOT_ZONES: u64 = 320;
pub const PHASE_HOURS: f64 = 100.0;
/// NSW-Range ratios of the two kinds of phase.
const NARROW: f64 = 20.0 / 256.0;
const WIDE: f64 = 240.0 / 256.0;
const PHASE_WRITE: u64 = 64 << 10;
/// The full size, in requests (the workload is made whole in memory, 24 bytes a request).
pub const PHASE_REQUESTS: u64 = 10_000_000;
/// Hours a phase may last: from 3.6 s, so every phase has time for its writes' nanoseconds, to
/// 100,000 (four phases stay far below the 2^63 ns a trace's clock reaches).
pub const PHASE_HOURS_MIN: f64 = 0.001;
pub const PHASE_HOURS_MAX: f64 = 100_000.0;
const BLOCK: u64 = 4096;
/// The workload was first written as MSR lines, whose clock has 100 ns ticks, and read back with
/// times relative to the first request: its times keep that grain.
const TICK_NS: u64 = 100;

/// One write of the workload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PhaseWrite {
    pub time_ns: u64,
    pub offset: u64,
    pub len: u64,
}

/// The workload's parameters (the paper's full workload by default).
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FourPhase {
    pub requests: i64,
    pub zone: i64,
    pub zones: i64,
    pub hot_zones: i64,
    pub hours: f64,
    pub seed: u64,
}

impl Default for FourPhase {
    fn default() -> Self {
        FourPhase {
            requests: PHASE_REQUESTS as i64,
            zone: ZONE as i64,
            zones: PHASE_ZONES as i64,
            hot_zones: HOT_ZONES as i64,
            hours: PHASE_HOURS,
            seed: 0,
        }
    }
}

/// (zone size, zones, zones of the CMR-favourable phases) of the workload scaled to `requests`. A
/// window's NSW-Range is what the window's writes cover, so a scaled workload keeps the writes per
/// zone per hour: it has fewer zones, of the same size.
pub fn shape(requests: i64) -> (u64, i64, i64) {
    let scale = 1.0f64.min(requests as f64 / PHASE_REQUESTS as f64);
    (
        ZONE,
        4.max(super::pyformat::round(PHASE_ZONES as f64 * scale)),
        1.max(super::pyformat::round(HOT_ZONES as f64 * scale)),
    )
}

fn signed_thousands(value: i64) -> String {
    let sign = if value < 0 { "-" } else { "" };
    format!("{sign}{}", thousands(value.unsigned_abs()))
}

/// Refuses a workload of more than its full size or of phases outside the hours allowed.
pub fn check(requests: i64, hours: f64) -> Result<(), PaperError> {
    if !(1..=PHASE_REQUESTS as i64).contains(&requests) {
        return Err(PaperError(format!(
            "the four-phase workload has from 1 to {} requests (its full size), not {}",
            thousands(PHASE_REQUESTS),
            signed_thousands(requests)
        )));
    }
    if !(PHASE_HOURS_MIN..=PHASE_HOURS_MAX).contains(&hours) {
        return Err(PaperError(format!(
            "a phase lasts from {} to {} hours, not {}",
            general(PHASE_HOURS_MIN, 6),
            general(PHASE_HOURS_MAX, 6),
            general(hours, 6)
        )));
    }
    Ok(())
}

impl FourPhase {
    /// Refuses a workload that cannot be made: `check`'s, a zone size that is not a positive
    /// multiple of 4 KiB, a kind of phase without zones, zones past 2^63 bytes.
    pub fn checked(&self) -> Result<(), PaperError> {
        check(self.requests, self.hours)?;
        if self.zone <= 0 || self.zone % BLOCK as i64 != 0 {
            return Err(PaperError("the zone size must be a positive multiple of 4 KiB".into()));
        }
        if self.hot_zones <= 0 || self.zones <= 0 {
            return Err(PaperError("the workload needs at least one zone in each kind of phase".into()));
        }
        match (self.zone as u64).checked_mul(self.zones as u64) {
            Some(end) if end <= 1 << 63 => Ok(()),
            _ => Err(PaperError(format!(
                "{} zones of {} bytes pass 2^63 bytes, the largest address smrlab accepts",
                self.zones, self.zone
            ))),
        }
    }

    /// The workload's writes, in time order, as numpy made them (times in nanoseconds).
    pub fn writes(&self) -> Result<Vec<PhaseWrite>, PaperError> {
        self.checked()?;
        let (zone, zones, hot_zones) = (self.zone as u64, self.zones as u64, self.hot_zones.min(self.zones) as u64);
        let size = BLOCK.max((u128::from(PHASE_WRITE) * u128::from(zone) / u128::from(ZONE)) as u64 / BLOCK * BLOCK);
        let phase_ns = (self.hours * 3600e9) as i64;
        let requests = self.requests as usize;
        let mut rng = NumpyRng::new(self.seed);
        let mut out = Vec::with_capacity(requests);
        for phase in 0..4usize {
            let count = requests / 4 + usize::from(phase < requests % 4);
            let (ratio, width) = if phase % 2 == 0 { (NARROW, zones) } else { (WIDE, hot_zones) };
            let window = size.max((zone as f64 * ratio) as u64 / BLOCK * BLOCK);
            let draw = |rng: &mut NumpyRng, high: u64, count: usize| {
                rng.integers(0, high as i64, count).expect("every range here holds a value")
            };
            let starts = draw(&mut rng, (zone - window) / BLOCK + 1, width as usize);
            let picked = draw(&mut rng, width, count);
            let within = draw(&mut rng, (window - size) / BLOCK + 1, count);
            let mut times = draw(&mut rng, phase_ns as u64, count);
            times.sort_unstable();
            for i in 0..count {
                let zone_index = picked[i] as u64;
                out.push(PhaseWrite {
                    time_ns: times[i] as u64 + phase as u64 * phase_ns as u64,
                    offset: zone_index * zone + starts[zone_index as usize] as u64 * BLOCK + within[i] as u64 * BLOCK,
                    len: size,
                });
            }
        }
        Ok(out)
    }

    /// The writes as the trace holds them: times in whole 100 ns ticks, relative to the first.
    pub fn trace(&self) -> Result<Vec<PhaseWrite>, PaperError> {
        let mut writes = self.writes()?;
        let first = writes.first().map_or(0, |w| w.time_ns / TICK_NS * TICK_NS);
        for write in &mut writes {
            write.time_ns = (write.time_ns / TICK_NS * TICK_NS).saturating_sub(first);
        }
        Ok(writes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_land_in_their_phase_and_window() {
        let (zone, zones, hot_zones) = shape(8000);
        let workload = FourPhase { requests: 8000, zone: zone as i64, zones, hot_zones, hours: 1.0, seed: 2 };
        let writes = workload.writes().unwrap();
        assert_eq!(writes.len(), 8000);
        let phase_ns = 3_600_000_000_000u64;
        for (i, write) in writes.iter().enumerate() {
            let phase = (i / 2000) as u64;
            assert!((phase * phase_ns..(phase + 1) * phase_ns).contains(&write.time_ns), "write {i} in phase {phase}");
            let zone_index = write.offset / zone;
            assert!(
                zone_index < if phase.is_multiple_of(2) { zones as u64 } else { hot_zones as u64 },
                "write {i} in its phase's zones"
            );
            assert!(write.offset % zone + write.len <= zone, "write {i} inside its zone");
        }
        assert!(writes.windows(2).all(|w| w[0].time_ns <= w[1].time_ns), "in time order");
    }

    #[test]
    fn bad_shapes_are_refused_with_a_reason() {
        let base = FourPhase { requests: 100, zone: ZONE as i64, zones: 4, hot_zones: 1, hours: 1.0, seed: 0 };
        for (bad, words) in [
            (FourPhase { requests: 0, ..base }, "from 1 to 10,000,000 requests"),
            (FourPhase { hours: f64::NAN, ..base }, "not nan"),
            (FourPhase { zone: 4095, ..base }, "multiple of 4 KiB"),
            (FourPhase { hot_zones: 0, ..base }, "at least one zone"),
            (FourPhase { zones: 1 << 40, ..base }, "2^63"),
        ] {
            assert!(bad.writes().unwrap_err().0.contains(words), "{words}");
        }
    }
}
