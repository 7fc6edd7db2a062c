//! Self-similar arrivals by the b-model (Wang et al., "Data mining meets performance
//! evaluation", cited by the thesis in §4.1.2): the run's `rate x duration` requests are split
//! between the two halves of the run in the proportion `b : 1 - b`, which half gets the larger
//! share decided by a fair coin, and each half is split the same way, recursively, down to slots
//! of `resolution` seconds. b = 0.5 spreads requests evenly; the closer b is to 1, the burstier.
//!
//! Choices where the thesis is silent: a split of `n` gives `floor(b n)` or `ceil(b n)` to one
//! half, rounding up with probability equal to the fraction, so the expected share is exactly
//! `b n` and the total is exact; the run's length is divided into a power of two of slots no
//! longer than the resolution (1 ms by default); within a slot, requests fall at uniformly
//! random times.

use rand::Rng;

/// Requests per slot of a b-model cascade of up to `levels` halvings of `total` requests. The
/// cascade stops early once no slot holds more than one request: a lone request goes to either
/// half with probability 1/2 (`b/2 + (1-b)/2`), so splitting further only places it uniformly
/// within its slot, which `schedule` does anyway.
pub fn counts(total: u64, levels: u32, bias: f64, rng: &mut impl Rng) -> Vec<u64> {
    let mut slots = vec![total];
    for _ in 0..levels {
        if slots.iter().all(|&n| n <= 1) {
            break;
        }
        let mut next = Vec::with_capacity(slots.len() * 2);
        for &n in &slots {
            let share = bias * n as f64;
            let mut big = share.floor() as u64;
            if rng.gen::<f64>() < share - share.floor() {
                big += 1;
            }
            let small = n - big;
            if rng.gen::<bool>() {
                next.extend([big, small]);
            } else {
                next.extend([small, big]);
            }
        }
        slots = next;
    }
    slots
}

/// The b-model's arrival times (ns), sorted.
pub fn schedule(rate: f64, duration_s: f64, bias: f64, resolution_s: f64, rng: &mut impl Rng) -> Vec<u64> {
    let total = (rate * duration_s).round() as u64;
    let levels = ((duration_s / resolution_s).log2().ceil().max(0.0) as u32).min(26);
    let slots = counts(total, levels, bias, rng);
    let slot_ns = duration_s * 1e9 / slots.len() as f64;
    let mut out = Vec::with_capacity(total as usize);
    for (i, n) in slots.into_iter().enumerate() {
        let start = out.len();
        let base = i as f64 * slot_ns;
        out.extend((0..n).map(|_| (base + rng.gen::<f64>() * slot_ns) as u64));
        out[start..].sort_unstable();
    }
    out
}
