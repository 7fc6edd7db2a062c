//! Trace transforms as iterator adaptors: shift to an LBA offset, keep writes only, head,
//! seeded sampling, and the seeded interleaving that merges several traces (or N copies of one)
//! into adjacent LBA ranges — how the PORE paper built its TB-scale `mix` trace (§V-G).
//!
//! The interleaving keeps each input's own order and picks the next input with probability
//! proportional to its remaining requests, so every interleaving is equally likely and the inputs
//! stay evenly mixed to the end. Request times are kept as they were in each input: a merged
//! trace is meant for closed-loop replay (as in the paper); its times are not a single clock.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{TraceError, TraceReader};
use smr_core::request::{Op, Request};

type Item = Result<Request, TraceError>;

/// `req` moved `by` bytes up, or an error if it would end past the address space (`MAX_END`).
fn shifted(req: Request, by: u64) -> Item {
    let moved = req.offset.checked_add(by).map(|offset| Request::checked(req.time_ns, req.op, offset, req.len));
    match moved {
        Some(Ok(req)) => Ok(req),
        _ => Err(TraceError::Invalid(format!("the request at byte {} (+{}) moved up by {by} bytes ends past byte 2^63, the largest address smrlab accepts", req.offset, req.len))),
    }
}

/// Adds `by` bytes to every offset.
pub fn shift(input: impl Iterator<Item = Item>, by: u64) -> impl Iterator<Item = Item> {
    input.map(move |r| r.and_then(|req| shifted(req, by)))
}

/// Keeps only writes (errors pass through).
pub fn writes_only(input: impl Iterator<Item = Item>) -> impl Iterator<Item = Item> {
    input.filter(|r| r.as_ref().map_or(true, |req| req.op == Op::Write))
}

/// Keeps each request with probability `fraction`, drawn from a RNG seeded with `seed`.
pub fn sample(
    input: impl Iterator<Item = Item>,
    fraction: f64,
    seed: u64,
) -> Result<impl Iterator<Item = Item>, TraceError> {
    if !(fraction > 0.0 && fraction <= 1.0) {
        return Err(TraceError::Invalid(format!("sample fraction {fraction} is not in (0, 1]")));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    Ok(input.filter(move |r| r.is_err() || rng.gen_bool(fraction)))
}

/// Rounds `bytes` up to a whole MiB: the gap left between merged inputs (`None` past 2^64).
pub fn next_range_start(bytes: u64) -> Option<u64> {
    bytes.div_ceil(1 << 20).checked_mul(1 << 20)
}

/// One input of `interleave`: its requests, how many there are, and where its range starts.
pub struct MergeInput {
    pub requests: TraceReader,
    pub count: u64,
    pub shift_by: u64,
}

/// Merges `inputs` (each shifted by its `shift_by`) in a seeded random interleaving.
pub fn interleave(inputs: Vec<MergeInput>, seed: u64) -> impl Iterator<Item = Item> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut remaining: Vec<u64> = inputs.iter().map(|i| i.count).collect();
    let mut streams: Vec<(TraceReader, u64)> = inputs.into_iter().map(|i| (i.requests, i.shift_by)).collect();
    let mut total: u64 = remaining.iter().sum();
    std::iter::from_fn(move || {
        while total > 0 {
            let mut pick = rng.gen_range(0..total);
            let index = remaining.iter().position(|&n| {
                if pick < n {
                    true
                } else {
                    pick -= n;
                    false
                }
            })?;
            remaining[index] -= 1;
            total -= 1;
            let (stream, by) = &mut streams[index];
            match stream.next() {
                Some(item) => return Some(item.and_then(|req| shifted(req, *by))),
                // Fewer requests than counted (the file changed): drop the rest of its share.
                None => {
                    total -= remaining[index];
                    remaining[index] = 0;
                }
            }
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(reqs: Vec<Request>) -> TraceReader {
        TraceReader::boxed(reqs.into_iter().map(Ok))
    }

    fn trace(n: u64, op: Op) -> Vec<Request> {
        (0..n).map(|i| Request::new(i, op, i * 4096, 4096)).collect()
    }

    #[test]
    fn interleave_keeps_order_shifts_and_is_seeded() {
        let make = || {
            vec![
                MergeInput { requests: reader(trace(50, Op::Write)), count: 50, shift_by: 0 },
                MergeInput { requests: reader(trace(30, Op::Read)), count: 30, shift_by: 1 << 30 },
            ]
        };
        let a: Vec<Request> = interleave(make(), 1).map(Result::unwrap).collect();
        let b: Vec<Request> = interleave(make(), 1).map(Result::unwrap).collect();
        let c: Vec<Request> = interleave(make(), 2).map(Result::unwrap).collect();
        assert_eq!(a.len(), 80);
        assert_eq!(a, b);
        assert_ne!(a, c);
        let reads: Vec<u64> = a.iter().filter(|r| r.op == Op::Read).map(|r| r.offset).collect();
        assert_eq!(reads, (0..30).map(|i| (1 << 30) + i * 4096).collect::<Vec<_>>());
        // Well mixed: the second input is not all at the end.
        assert!(a[..40].iter().any(|r| r.op == Op::Read));
    }

    #[test]
    fn filters_and_shift() {
        let mixed: Vec<Request> =
            (0..100).map(|i| Request::new(i, if i % 4 == 0 { Op::Read } else { Op::Write }, i, 1)).collect();
        assert_eq!(writes_only(reader(mixed.clone())).count(), 75);
        let s: Vec<Request> = shift(reader(mixed.clone()), 10).map(Result::unwrap).collect();
        assert_eq!(s[3].offset, 13);
        let kept = sample(reader(mixed.clone()), 0.5, 9).unwrap().count();
        assert!(kept > 30 && kept < 70);
        assert_eq!(sample(reader(mixed.clone()), 0.5, 9).unwrap().count(), kept);
        assert!(sample(reader(mixed), 0.0, 9).is_err());
        assert_eq!(next_range_start(1), Some(1 << 20));
        assert_eq!(next_range_start(1 << 20), Some(1 << 20));
        assert_eq!(next_range_start(u64::MAX), None);
    }

    #[test]
    fn a_shift_past_the_address_space_is_an_error() {
        let top = smr_core::request::MAX_END - 4096;
        let out: Vec<Item> = shift(reader(vec![Request::new(0, Op::Write, top, 4096)]), 1).collect();
        assert!(matches!(&out[0], Err(TraceError::Invalid(m)) if m.contains("2^63")), "{out:?}");
        let out: Vec<Item> = shift(reader(vec![Request::new(0, Op::Write, 0, 4096)]), u64::MAX).collect();
        assert!(out[0].is_err());
    }
}
