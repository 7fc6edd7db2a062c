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
//!
//! Empty slots are kept as runs (`Slots`), so a cascade's memory follows its requests, not its
//! 2^26 finest slots; an empty slot's split still takes its draws from the generator (skipped
//! over in one step), so the arrival times are those of splitting every slot one by one.

use rand::Rng;
use rand_chacha::ChaCha8Rng;

/// Generator words one slot's split draws: the rounding fraction (an `f64`, two words) and the
/// coin (one).
const WORDS_PER_SPLIT: u128 = 3;

/// Consecutive slots of a cascade holding `count` requests each; only empty slots are ever
/// more than one (`slots`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slots {
    pub count: u64,
    pub slots: u64,
}

/// Requests per slot of a b-model cascade of up to `levels` halvings of `total` requests, as
/// runs. The cascade stops early once no slot holds more than one request: a lone request goes
/// to either half with probability 1/2 (`b/2 + (1-b)/2`), so splitting further only places it
/// uniformly within its slot, which `schedule` does anyway.
pub fn counts(total: u64, levels: u32, bias: f64, rng: &mut ChaCha8Rng) -> Vec<Slots> {
    let mut runs = vec![Slots { count: total, slots: 1 }];
    for _ in 0..levels {
        if runs.iter().all(|r| r.count <= 1) {
            break;
        }
        let mut next: Vec<Slots> = Vec::with_capacity(runs.len() * 2);
        let mut push = |count: u64, slots: u64| match next.last_mut() {
            Some(last) if count == 0 && last.count == 0 => last.slots += slots,
            _ => next.push(Slots { count, slots }),
        };
        for run in &runs {
            if run.count == 0 {
                // Every empty slot splits into two empty ones; its draws are skipped over.
                rng.set_word_pos(rng.get_word_pos() + WORDS_PER_SPLIT * u128::from(run.slots));
                push(0, 2 * run.slots);
                continue;
            }
            let n = run.count;
            let share = bias * n as f64;
            let mut big = share.floor() as u64;
            if rng.gen::<f64>() < share - share.floor() {
                big += 1;
            }
            let small = n - big;
            let (first, second) = if rng.gen::<bool>() { (big, small) } else { (small, big) };
            push(first, 1);
            push(second, 1);
        }
        runs = next;
    }
    runs
}

/// The b-model's arrival times (ns), sorted.
pub fn schedule(rate: f64, duration_s: f64, bias: f64, resolution_s: f64, rng: &mut ChaCha8Rng) -> Vec<u64> {
    let total = (rate * duration_s).round() as u64;
    let levels = ((duration_s / resolution_s).log2().ceil().max(0.0) as u32).min(26);
    let runs = counts(total, levels, bias, rng);
    let slot_count: u64 = runs.iter().map(|r| r.slots).sum();
    let slot_ns = duration_s * 1e9 / slot_count as f64;
    let mut out = Vec::with_capacity(total as usize);
    let mut slot = 0u64;
    for run in runs {
        if run.count > 0 {
            let start = out.len();
            let base = slot as f64 * slot_ns;
            out.extend((0..run.count).map(|_| (base + rng.gen::<f64>() * slot_ns) as u64));
            out[start..].sort_unstable();
        }
        slot += run.slots;
    }
    out
}
