//! An intrusive doubly linked recency list over cache slot numbers, stored in two `u32` arrays
//! (no allocation per entry): O(1) push to the front or back, removal, move to the front, and the
//! back (least recent) entry. Every policy keeps its recency order in one of these — PORE keeps
//! two, the whole cache and its evictable blocks.

const NIL: u32 = u32::MAX;
/// `prev` of a slot that is not in the list (8 bytes per slot in all, no membership array).
const DETACHED: u32 = u32::MAX - 1;

#[derive(Clone, Debug, Default)]
pub struct RecencyList {
    prev: Vec<u32>,
    next: Vec<u32>,
    head: u32,
    tail: u32,
    len: usize,
}

impl RecencyList {
    /// A list able to hold slots `0..slots`.
    pub fn new(slots: usize) -> Self {
        RecencyList { prev: vec![DETACHED; slots], next: vec![NIL; slots], head: NIL, tail: NIL, len: 0 }
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline]
    pub fn contains(&self, slot: u32) -> bool {
        self.prev[slot as usize] != DETACHED
    }

    /// Adds `slot` as the most recent entry.
    pub fn push_front(&mut self, slot: u32) {
        debug_assert!(!self.contains(slot));
        let s = slot as usize;
        self.prev[s] = NIL;
        self.next[s] = self.head;
        if self.head != NIL {
            self.prev[self.head as usize] = slot;
        } else {
            self.tail = slot;
        }
        self.head = slot;
        self.len += 1;
    }

    /// Adds `slot` as the least recent entry.
    pub fn push_back(&mut self, slot: u32) {
        debug_assert!(!self.contains(slot));
        let s = slot as usize;
        self.next[s] = NIL;
        self.prev[s] = self.tail;
        if self.tail != NIL {
            self.next[self.tail as usize] = slot;
        } else {
            self.head = slot;
        }
        self.tail = slot;
        self.len += 1;
    }

    /// Removes `slot` if present.
    pub fn remove(&mut self, slot: u32) {
        let s = slot as usize;
        if !self.contains(slot) {
            return;
        }
        let (p, n) = (self.prev[s], self.next[s]);
        if p != NIL { self.next[p as usize] = n } else { self.head = n }
        if n != NIL { self.prev[n as usize] = p } else { self.tail = p }
        self.prev[s] = DETACHED;
        self.len -= 1;
    }

    /// Makes `slot` (present) the most recent entry.
    pub fn move_to_front(&mut self, slot: u32) {
        if self.head != slot {
            self.remove(slot);
            self.push_front(slot);
        }
    }

    /// The least recent entry.
    pub fn back(&self) -> Option<u32> {
        (self.tail != NIL).then_some(self.tail)
    }

    /// Entries from most to least recent.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        std::iter::successors((self.head != NIL).then_some(self.head), |&s| {
            let n = self.next[s as usize];
            (n != NIL).then_some(n)
        })
    }

    pub fn clear(&mut self) {
        while let Some(s) = self.back() {
            self.remove(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn behaves_like_a_deque(ops in proptest::collection::vec((0u8..4, 0u32..16), 0..200)) {
            let mut list = RecencyList::new(16);
            let mut model: std::collections::VecDeque<u32> = Default::default();
            for (op, slot) in ops {
                let present = model.contains(&slot);
                match op {
                    0 if !present => { list.push_front(slot); model.push_front(slot); }
                    1 if !present => { list.push_back(slot); model.push_back(slot); }
                    2 => { list.remove(slot); model.retain(|&s| s != slot); }
                    3 if present => { list.move_to_front(slot); model.retain(|&s| s != slot); model.push_front(slot); }
                    _ => {}
                }
                prop_assert_eq!(list.iter().collect::<Vec<_>>(), model.iter().copied().collect::<Vec<_>>());
                prop_assert_eq!(list.back(), model.back().copied());
                prop_assert_eq!(list.is_empty(), model.is_empty());
            }
        }
    }
}
