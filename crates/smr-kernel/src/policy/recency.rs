//! `lru` and `fifo`: evict the block at the back of one recency list. They differ only in what a
//! hit does — LRU moves the block to the front, FIFO leaves it where it entered — and PORE uses
//! the same `Order` for the list it picks victims from, so it runs over either (PORE is a
//! framework around a base policy, §IV-B). HWSR's `lru-block` and SSD read cache are `lru`;
//! FluidSMR's `lru` and `loopback` schemes keep their entries' order in an `lru` `Recency` whose
//! slots are entry numbers, growing with the table (`grow`), an entry cut in two keeping both
//! parts in its place (`split`).

use super::{Policy, VictimHints};
use crate::lists::RecencyList;

/// How a hit reorders a recency list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    Lru,
    Fifo,
}

impl Order {
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "lru" => Some(Order::Lru),
            "fifo" => Some(Order::Fifo),
            _ => None,
        }
    }

    /// Applies a hit on `slot` (present in `list`).
    #[inline]
    pub fn touch(self, list: &mut RecencyList, slot: u32) {
        if self == Order::Lru {
            list.move_to_front(slot);
        }
    }
}

pub struct Recency {
    order: Order,
    list: RecencyList,
}

impl Recency {
    pub fn new(slots: usize, order: Order) -> Self {
        Recency { order, list: RecencyList::new(slots) }
    }

    /// Makes room for slots up to `slots` (never shrinks).
    pub fn grow(&mut self, slots: usize) {
        self.list.grow(slots);
    }

    /// `part` (in no list) was cut from `of`: it takes the place just behind it.
    pub fn split(&mut self, of: u32, part: u32) {
        self.list.insert_after(of, part);
    }

    /// The slot the next `victims` names: the back of the list.
    pub fn least(&self) -> Option<u32> {
        self.list.back()
    }

    /// The slot just more recent than `slot` (in the list), if any.
    pub fn more_recent(&self, slot: u32) -> Option<u32> {
        self.list.more_recent(slot)
    }
}

impl Policy for Recency {
    #[inline]
    fn inserted(&mut self, slot: u32, _block: u64, _dirty: bool) {
        self.list.push_front(slot);
    }

    #[inline]
    fn hit(&mut self, slot: u32, _block: u64, _became_dirty: bool) {
        self.order.touch(&mut self.list, slot);
    }

    #[inline]
    fn removed(&mut self, slot: u32, _block: u64, _was_dirty: bool) {
        self.list.remove(slot);
    }

    #[inline]
    fn prefetch_hit(&self, slot: u32) {
        if self.order == Order::Lru {
            self.list.prefetch(slot);
        }
    }

    #[inline]
    fn victims(&mut self, _blocks: &[u64], out: &mut Vec<u32>) {
        if let Some(back) = self.list.back() {
            out.push(back);
        }
    }

    /// The next two victims: the back and the entry before it, whose links this starts
    /// loading (so that, one eviction later, naming the entry before that reads them from the
    /// CPU cache).
    #[inline]
    fn next_victim_hints(&self) -> VictimHints {
        let back = self.list.back();
        let after_back = back.and_then(|slot| self.list.more_recent(slot));
        if let Some(slot) = after_back {
            self.list.prefetch(slot);
        }
        VictimHints::new(back, after_back)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The prefetch hint names the slots `victims` then returns, in order, under both orders.
    #[test]
    fn the_hints_are_the_next_two_victims() {
        for order in [Order::Lru, Order::Fifo] {
            let mut policy = Recency::new(4, order);
            assert_eq!(policy.next_victim_hints(), VictimHints::NONE, "an empty cache has no victim");
            for slot in 0..3 {
                policy.inserted(slot, slot as u64, false);
            }
            policy.hit(0, 0, false);
            let hints: Vec<u32> = policy.next_victim_hints().slots().collect();
            let mut victims = Vec::new();
            for _ in 0..2 {
                let at = victims.len();
                policy.victims(&[], &mut victims);
                policy.removed(victims[at], victims[at] as u64, false);
            }
            assert_eq!(victims, if order == Order::Lru { [1, 2] } else { [0, 1] });
            assert_eq!(hints, victims);
        }
    }
}
