//! Seek-time curves: the time to move the arm `d` cylinders.
//!
//! Ruemmler & Wilkes ("An introduction to disk drive modeling", IEEE Computer 1994) model a seek
//! as a square-root curve for short seeks (acceleration dominates) and a line for long ones
//! (coasting at full speed): `a + b·√d` for `d < threshold`, `c + e·d` beyond. A three-point curve
//! (track-to-track, average, full-stroke times, as data sheets give them) is fitted into that
//! form; a measured table is interpolated linearly. Times are nanoseconds; `d = 0` costs nothing.

use super::{exact_f64, truncated_u64};

/// A seek-time curve over cylinder distance.
#[derive(Clone, Debug, PartialEq)]
pub enum SeekCurve {
    /// `a + b·√d` below `threshold` cylinders, `c + e·d` from it on (ns).
    RuemmlerWilkes { a: f64, b: f64, threshold: u64, c: f64, e: f64 },
    /// (distance, ns) points sorted by distance; linear between them, flat beyond the last.
    Table(Vec<(u64, u64)>),
}

impl SeekCurve {
    /// Fits the Ruemmler–Wilkes form through three data-sheet figures: track-to-track (d = 1),
    /// average (at `avg_distance`) and full stroke (d = `cylinders − 1`), in ns. Continuous at
    /// `avg_distance`, which is the threshold between the two regimes.
    pub fn three_point(
        track_to_track_ns: u64,
        average_ns: u64,
        full_stroke_ns: u64,
        avg_distance: u64,
        cylinders: u64,
    ) -> Self {
        let (t1, tavg, tfull) = (track_to_track_ns as f64, average_ns as f64, full_stroke_ns as f64);
        let davg = avg_distance.max(2) as f64;
        let dfull = (cylinders.max(3) - 1) as f64;
        let b = (tavg - t1) / (davg.sqrt() - 1.0);
        let a = t1 - b;
        let e = (tfull - tavg) / (dfull - davg);
        let c = tavg - e * davg;
        SeekCurve::RuemmlerWilkes { a, b, threshold: avg_distance.max(2), c, e }
    }

    /// Seek time in ns for a move of `distance` cylinders.
    #[inline]
    pub fn time(&self, distance: u64) -> u64 {
        if distance == 0 {
            return 0;
        }
        match self {
            SeekCurve::RuemmlerWilkes { a, b, threshold, c, e } => {
                let d = exact_f64(distance);
                let t = if distance < *threshold { a + b * d.sqrt() } else { c + e * d };
                truncated_u64(t.max(0.0))
            }
            SeekCurve::Table(points) => {
                let i = points.partition_point(|&(d, _)| d < distance);
                match (i.checked_sub(1).map(|j| points[j]), points.get(i)) {
                    (_, Some(&(d, t))) if d == distance => t,
                    (Some((d0, t0)), Some(&(d1, t1))) => {
                        t0 + ((t1 as f64 - t0 as f64) * (distance - d0) as f64 / (d1 - d0) as f64) as u64
                    }
                    (None, Some(&(_, t))) => t,
                    (Some((_, t)), None) => t,
                    (None, None) => 0,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_point_curve_passes_its_points_and_peaks_at_full_stroke() {
        let cyl = 100_000;
        let s = SeekCurve::three_point(1_000_000, 8_500_000, 17_000_000, cyl / 3, cyl);
        assert_eq!(s.time(0), 0);
        assert!((s.time(1) as i64 - 1_000_000).abs() <= 1);
        assert!((s.time(cyl / 3) as i64 - 8_500_000).abs() <= 1);
        assert!((s.time(cyl / 3 - 1) as i64 - 8_500_000).abs() < 1_000, "continuous at the threshold");
        assert!((s.time(cyl - 1) as i64 - 17_000_000).abs() <= 1);
        let max = (0..cyl).step_by(97).map(|d| s.time(d)).max().unwrap();
        assert!(max <= s.time(cyl - 1));
        assert!(s.time(10) < s.time(100) && s.time(40_000) < s.time(60_000), "monotonic");
    }

    #[test]
    fn ruemmler_wilkes_is_exact_at_its_breakpoints() {
        // a + b·√d below 100 cylinders, c + e·d from 100 on: worked by hand.
        let s = SeekCurve::RuemmlerWilkes { a: 500_000.0, b: 100_000.0, threshold: 100, c: 1_400_000.0, e: 1_000.0 };
        assert_eq!(s.time(0), 0);
        assert_eq!(s.time(1), 600_000);
        assert_eq!(s.time(99), 500_000 + 994_987);
        assert_eq!(s.time(100), 1_500_000);
        assert_eq!(s.time(10_000), 11_400_000);
    }

    #[test]
    fn table_interpolates() {
        let s = SeekCurve::Table(vec![(1, 1000), (11, 2000), (101, 5000)]);
        assert_eq!(s.time(0), 0);
        assert_eq!(s.time(1), 1000);
        assert_eq!(s.time(6), 1500);
        assert_eq!(s.time(56), 3500);
        assert_eq!(s.time(1000), 5000);
    }
}
