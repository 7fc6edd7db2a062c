//! `lru` and `fifo`: evict the block at the back of one recency list. They differ only in what a
//! hit does — LRU moves the block to the front, FIFO leaves it where it entered — and PORE uses
//! the same `Order` for the list it picks victims from, so it runs over either (PORE is a
//! framework around a base policy, §IV-B).

use crate::kernel::lists::RecencyList;
use super::policy::{Policy, VictimHints};

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
}

impl Policy for Recency {
    fn inserted(&mut self, slot: u32, _block: u64, _dirty: bool) {
        self.list.push_front(slot);
    }

    fn hit(&mut self, slot: u32, _block: u64, _became_dirty: bool) {
        self.order.touch(&mut self.list, slot);
    }

    fn removed(&mut self, slot: u32, _block: u64, _was_dirty: bool) {
        self.list.remove(slot);
    }

    fn victims(&mut self, out: &mut Vec<u32>) {
        out.extend(self.list.back());
    }

    fn next_victim_hints(&self) -> VictimHints {
        VictimHints::new(self.list.back(), None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The prefetch hint names the slot `victims` then returns, under both orders.
    #[test]
    fn the_hint_is_the_next_victim() {
        for order in [Order::Lru, Order::Fifo] {
            let mut policy = Recency::new(4, order);
            assert_eq!(policy.next_victim_hints(), VictimHints::NONE, "an empty cache has no victim");
            for slot in 0..3 {
                policy.inserted(slot, slot as u64, false);
            }
            policy.hit(0, 0, false);
            let mut victims = Vec::new();
            policy.victims(&mut victims);
            assert_eq!(victims, vec![if order == Order::Lru { 1 } else { 0 }]);
            assert_eq!(policy.next_victim_hints().slots().collect::<Vec<_>>(), victims);
        }
    }
}
