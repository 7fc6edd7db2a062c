//! The checks that keep a user's own policy, written in Python, from corrupting the cache it
//! orders (`Guarded`). What the kernel asks of such a policy and who builds it are in
//! `user_policy`, which the build context names without reaching into the policies.
//!
//! `Guarded` keeps its own record of which block each slot holds, from the hooks the cache
//! calls, and checks every slot the policy names for eviction: inside the cache, holding a
//! block, named once, and, where the cache evicts one segment at a time, all of one segment.
//! The first hook that fails or names a wrong slot stops the policy: every hook after it does
//! nothing, `victims` names no slot, and `failure` hands the cache the error, naming the
//! policy, the hook and what was wrong (the engine adds the request number). Not here:
//! calling Python (smrlab-py's `policy` module) or the native policies (`POLICIES`).

use std::sync::Mutex;

use super::Policy;
use crate::metrics::{Counters, Metric, Unit};
use crate::user_policy::{Geometry, OwnPolicy};
use crate::SimError;

/// A slot that holds no block (in `Guarded::held`).
const EMPTY: u64 = u64::MAX;

/// A user's policy behind the checks that keep the cache whole.
pub struct Guarded {
    name: String,
    geometry: Geometry,
    own: Box<dyn OwnPolicy>,
    /// Per slot: the block it holds, or `EMPTY`.
    held: Vec<u64>,
    /// Per slot: the last eviction round that named it (no clearing between rounds).
    named_in: Vec<u32>,
    round: u32,
    failed: bool,
    failure: Option<SimError>,
}

impl Guarded {
    pub fn new(name: String, geometry: Geometry, own: Box<dyn OwnPolicy>) -> Self {
        let slots = geometry.slots;
        Guarded {
            name,
            geometry,
            own,
            held: vec![EMPTY; slots],
            named_in: vec![0; slots],
            round: 0,
            failed: false,
            failure: None,
        }
    }

    /// Stops the policy with `detail`, what went wrong in `hook`.
    fn fail(&mut self, hook: &'static str, detail: String) {
        self.failed = true;
        self.failure = Some(SimError::Policy { policy: self.name.clone(), hook, request: None, detail });
    }

    /// What is wrong with the slots `victims` named, if anything.
    fn check(&mut self, named: &[u32]) -> Result<(), String> {
        let Some(&first) = named.first() else {
            let (slots, host) = (self.geometry.slots, self.geometry.host);
            let holding = self.held.iter().filter(|&&b| b != EMPTY).count();
            return Err(format!(
                "named no slot, but {host} needs a victim ({holding} of its {slots} slots hold blocks)"
            ));
        };
        self.round = self.round.wrapping_add(1).max(1);
        for &slot in named {
            let Some(&block) = self.held.get(slot as usize) else {
                return Err(out_of_range(slot, &self.geometry));
            };
            if block == EMPTY {
                return Err(format!("named slot {slot}, which holds no block"));
            }
            if self.named_in[slot as usize] == self.round {
                return Err(format!("named slot {slot} twice"));
            }
            self.named_in[slot as usize] = self.round;
        }
        if let Some(per) = self.geometry.segment_blocks {
            let host = self.geometry.host;
            let segment = |slot: u32| self.held[slot as usize] / per;
            if let Some(&other) = named.iter().find(|&&slot| segment(slot) != segment(first)) {
                return Err(format!(
                    "named slots {first} (segment {}) and {other} (segment {}): {host} evicts the blocks of one \
                     segment at a time",
                    segment(first),
                    segment(other)
                ));
            }
        }
        Ok(())
    }
}

/// What is wrong with naming `slot` (any number the policy gave) in a cache of `geometry`'s
/// slots, which it lies outside.
pub fn out_of_range(slot: impl std::fmt::Display, geometry: &Geometry) -> String {
    let slots = geometry.slots;
    format!("named slot {slot}, but {} has {slots} slots (0 to {})", geometry.host, slots.saturating_sub(1))
}

impl Policy for Guarded {
    fn inserted(&mut self, slot: u32, block: u64, dirty: bool) {
        if self.failed {
            return;
        }
        self.held[slot as usize] = block;
        if let Err(detail) = self.own.inserted(slot, block, dirty) {
            self.fail("inserted", detail);
        }
    }

    fn hit(&mut self, slot: u32, block: u64, became_dirty: bool) {
        if self.failed {
            return;
        }
        if let Err(detail) = self.own.hit(slot, block, became_dirty) {
            self.fail("hit", detail);
        }
    }

    fn removed(&mut self, slot: u32, block: u64, was_dirty: bool) {
        if self.failed {
            return;
        }
        self.held[slot as usize] = EMPTY;
        if let Err(detail) = self.own.removed(slot, block, was_dirty) {
            self.fail("removed", detail);
        }
    }

    /// The policy's victims once checked; none once it has failed (the cache then asks
    /// `failure`).
    fn victims(&mut self, _blocks: &[u64], out: &mut Vec<u32>) {
        if self.failed {
            return;
        }
        let start = out.len();
        let checked = match self.own.victims(out) {
            Ok(()) => {
                let named = out[start..].to_vec();
                self.check(&named)
            }
            Err(detail) => Err(detail),
        };
        if let Err(detail) = checked {
            out.truncate(start);
            self.fail("victims", detail);
        }
    }

    fn watches_below(&self) -> bool {
        true
    }

    fn below_buffer(&mut self, held_bytes: u64) {
        if !self.failed {
            self.own.below_buffer(held_bytes);
        }
    }

    fn failure(&mut self) -> Option<SimError> {
        self.failure.take()
    }

    fn counters(&self, out: &mut Counters) {
        let mut counts = Vec::new();
        self.own.counters(&mut counts);
        for (name, value) in counts {
            out.add(own_counter(&name), value);
        }
    }
}

/// The counter a user's policy names `name`, reported as `policy_NAME`: declared once per
/// process and name (kept for the process's life, as every other declaration is).
fn own_counter(name: &str) -> &'static Metric {
    static DECLARED: Mutex<Vec<&'static Metric>> = Mutex::new(Vec::new());
    let full = format!("policy_{name}");
    let mut declared = DECLARED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(&metric) = declared.iter().find(|m| m.name == full) {
        return metric;
    }
    let metric: &'static Metric =
        Box::leak(Box::new(Metric::new(Box::leak(full.into_boxed_str()), Unit::Count, "counted by the user's policy")));
    declared.push(metric);
    metric
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A policy that names whatever slots it is told to, and fails where it is told to.
    struct Scripted {
        victims: Vec<u32>,
        fail_hit: bool,
    }

    impl OwnPolicy for Scripted {
        fn inserted(&mut self, _slot: u32, _block: u64, _dirty: bool) -> Result<(), String> {
            Ok(())
        }
        fn hit(&mut self, _slot: u32, _block: u64, _became_dirty: bool) -> Result<(), String> {
            if self.fail_hit {
                Err("raised ValueError: no".into())
            } else {
                Ok(())
            }
        }
        fn removed(&mut self, _slot: u32, _block: u64, _was_dirty: bool) -> Result<(), String> {
            Ok(())
        }
        fn victims(&mut self, out: &mut Vec<u32>) -> Result<(), String> {
            out.extend(&self.victims);
            Ok(())
        }
    }

    fn guarded(victims: &[u32], segment_blocks: Option<u64>) -> Guarded {
        let geometry = Geometry {
            host: "the SSD cache",
            slots: 4,
            block_bytes: 4096,
            bands: None,
            write_buffer_bytes: None,
            segment_blocks,
        };
        let own = Box::new(Scripted { victims: victims.to_vec(), fail_hit: false });
        let mut policy = Guarded::new("mine.py:Mine".into(), geometry, own);
        for (slot, block) in [(0, 10), (1, 11), (2, 20)] {
            policy.inserted(slot, block, false);
        }
        policy
    }

    /// The victims of one call, and the failure it left.
    fn ask(policy: &mut Guarded) -> (Vec<u32>, Option<String>) {
        let mut out = vec![99];
        policy.victims(&[], &mut out);
        (out[1..].to_vec(), policy.failure().map(|e| e.to_string()))
    }

    #[test]
    fn good_victims_pass_through() {
        assert_eq!(ask(&mut guarded(&[1, 0], None)), (vec![1, 0], None));
        assert_eq!(ask(&mut guarded(&[0, 1], Some(10))), (vec![0, 1], None), "blocks 10 and 11: one segment");
    }

    /// Each wrong answer is refused with its own message, none of its slots reaches the cache,
    /// and the policy is called no more.
    #[test]
    fn every_wrong_answer_is_named_and_stops_the_policy() {
        let cases: [(&[u32], Option<u64>, &str); 5] = [
            (&[], None, "named no slot, but the SSD cache needs a victim (3 of its 4 slots hold blocks)"),
            (&[9], None, "named slot 9, but the SSD cache has 4 slots (0 to 3)"),
            (&[3], None, "named slot 3, which holds no block"),
            (&[1, 2, 1], None, "named slot 1 twice"),
            (&[0, 2], Some(10), "named slots 0 (segment 1) and 2 (segment 2)"),
        ];
        for (victims, segment_blocks, expected) in cases {
            let mut policy = guarded(victims, segment_blocks);
            let (out, failure) = ask(&mut policy);
            let failure = failure.unwrap_or_default();
            assert!(out.is_empty(), "{victims:?}: no slot reaches the cache");
            assert!(failure.starts_with("policy mine.py:Mine: victims(): "), "{failure}");
            assert!(failure.contains(expected), "{victims:?}: {failure}");
            assert_eq!(ask(&mut policy), (vec![], None), "a failed policy names nothing and fails once");
        }
    }

    #[test]
    fn a_hook_that_fails_stops_the_policy() {
        let mut policy = guarded(&[0], None);
        policy.own = Box::new(Scripted { victims: vec![0], fail_hit: true });
        policy.hit(0, 10, false);
        let failure = policy.failure().expect("the hit failed").to_string();
        assert_eq!(failure, "policy mine.py:Mine: hit(): raised ValueError: no");
        assert_eq!(ask(&mut policy), (vec![], None));
    }

    /// A slot emptied by `removed` may not be named, and one filled again may.
    #[test]
    fn the_record_of_held_slots_follows_the_hooks() {
        let mut policy = guarded(&[1], None);
        policy.removed(1, 11, false);
        assert!(ask(&mut policy).1.unwrap_or_default().contains("slot 1, which holds no block"));
        let mut policy = guarded(&[1], None);
        policy.removed(1, 11, false);
        policy.inserted(1, 12, true);
        assert_eq!(ask(&mut policy), (vec![1], None));
    }
}
