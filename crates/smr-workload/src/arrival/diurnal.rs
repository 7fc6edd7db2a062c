//! Envelope-guided arrivals (§4.1.3): a sine envelope sets the rate at each moment,
//! `average + modulation x sin(2 pi t / cycle)`, and each inter-arrival time is drawn from a
//! secondary distribution whose mean is the reciprocal of the rate at the previous arrival:
//! Pareto (shape alpha: the smaller, the heavier the tail and the burstier the run) or
//! exponential (a non-homogeneous Poisson process, approximately).
//!
//! Choices where the thesis is silent: the envelope starts at the average rate, rising; the
//! Pareto's scale is set so its mean is `1/rate`, `x_m = (alpha - 1) / (alpha rate)`.

use rand::Rng;

use super::{exponential, Secondary};
use crate::error::{Result, WorkloadError};

/// Diurnal arrival times (ns) over `duration_s` seconds, sorted. A Pareto shape near 1 draws
/// most gaps far below the mean, so a run may hold many more arrivals than rate x duration:
/// more than `max_arrivals` is refused rather than filling memory.
pub fn schedule(
    average: f64,
    modulation: f64,
    cycle_s: f64,
    distribution: Secondary,
    duration_s: f64,
    max_arrivals: usize,
    rng: &mut impl Rng,
) -> Result<Vec<u64>> {
    let end_ns = duration_s * 1e9;
    let mut out = Vec::with_capacity(((average * duration_s * 1.05) as usize + 16).min(max_arrivals));
    let mut t = 0.0f64;
    loop {
        let rate = average + modulation * (2.0 * std::f64::consts::PI * t / (cycle_s * 1e9)).sin();
        let mean_ns = 1e9 / rate;
        t += match distribution {
            Secondary::Exponential => exponential(rng, mean_ns),
            Secondary::Pareto { shape } => {
                let scale = mean_ns * (shape - 1.0) / shape;
                let u: f64 = rng.gen();
                scale / (1.0 - u).powf(1.0 / shape)
            }
        };
        if t >= end_ns {
            return Ok(out);
        }
        if out.len() == out.capacity() && out.len() < max_arrivals {
            // Grown by doubling, but never past the cap.
            out.reserve_exact(out.len().clamp(16, max_arrivals - out.len()));
        }
        if out.len() >= max_arrivals {
            let shape = match distribution {
                Secondary::Pareto { shape } => {
                    format!(" (Pareto shape {shape}: the nearer 1, the more gaps far below the mean)")
                }
                Secondary::Exponential => String::new(),
            };
            return Err(WorkloadError::parameter("duration", format!("the diurnal process drew over {max_arrivals} arrivals in the first {:.3} s of {duration_s:?} s{shape}", t / 1e9)));
        }
        out.push(t as u64);
    }
}
