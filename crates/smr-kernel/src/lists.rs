//! Intrusive doubly linked recency lists over cache slot numbers, stored in one array of
//! `(prev, next)` pairs shared by all the lists of a set (no allocation per entry, 8 bytes per
//! slot however many lists, and a slot's two links in one cache line): O(1) push to the front or back, insertion after an entry, removal, move to the front,
//! and the back (least recent) entry of each list. A slot is in at most one list of its set.
//! `RecencyList` is the one-list case every simple policy keeps; PORE keeps a set of lists, one
//! for clean blocks and one per zone for its dirty blocks.

const NIL: u32 = u32::MAX;
/// `prev` of a slot that is in no list (so no membership array is needed).
const DETACHED: u32 = u32::MAX - 1;

#[derive(Clone, Copy, Debug)]
struct Links {
    prev: u32,
    next: u32,
}

const DETACHED_LINKS: Links = Links { prev: DETACHED, next: NIL };

/// Several recency lists over the same slots; lists are numbered from 0.
#[derive(Clone, Debug, Default)]
pub struct ListSet {
    links: Vec<Links>,
    /// Per list: (head = most recent, tail = least recent).
    ends: Vec<(u32, u32)>,
}

impl ListSet {
    /// `lists` empty lists able to hold slots `0..slots` between them.
    pub fn new(slots: usize, lists: usize) -> Self {
        ListSet { links: vec![DETACHED_LINKS; slots], ends: vec![(NIL, NIL); lists] }
    }

    /// Makes room for slots up to `slots` (never shrinks): new slots are in no list.
    pub fn grow(&mut self, slots: usize) {
        if slots > self.links.len() {
            self.links.resize(slots, DETACHED_LINKS);
        }
    }

    pub fn is_empty(&self, list: usize) -> bool {
        self.ends[list].0 == NIL
    }

    #[inline]
    pub fn contains(&self, slot: u32) -> bool {
        self.links[slot as usize].prev != DETACHED
    }

    /// Adds `slot` as the most recent entry of `list`.
    pub fn push_front(&mut self, list: usize, slot: u32) {
        debug_assert!(!self.contains(slot));
        let head = self.ends[list].0;
        self.link(list, slot, NIL, head);
    }

    /// Adds `slot` as the least recent entry of `list`.
    pub fn push_back(&mut self, list: usize, slot: u32) {
        debug_assert!(!self.contains(slot));
        let tail = self.ends[list].1;
        self.link(list, slot, tail, NIL);
    }

    /// Adds `slot` to `list` just behind `before` (an entry of `list`), i.e. as less recent.
    pub fn insert_after(&mut self, list: usize, before: u32, slot: u32) {
        debug_assert!(!self.contains(slot) && self.contains(before));
        let after = self.links[before as usize].next;
        self.link(list, slot, before, after);
    }

    fn link(&mut self, list: usize, slot: u32, p: u32, n: u32) {
        self.links[slot as usize] = Links { prev: p, next: n };
        if p != NIL {
            self.links[p as usize].next = slot
        } else {
            self.ends[list].0 = slot
        }
        if n != NIL {
            self.links[n as usize].prev = slot
        } else {
            self.ends[list].1 = slot
        }
    }

    /// Removes `slot` from `list` if it is there.
    pub fn remove(&mut self, list: usize, slot: u32) {
        let Links { prev: p, next: n } = self.links[slot as usize];
        if p == DETACHED {
            return;
        }
        if p != NIL {
            self.links[p as usize].next = n
        } else {
            self.ends[list].0 = n
        }
        if n != NIL {
            self.links[n as usize].prev = p
        } else {
            self.ends[list].1 = p
        }
        self.links[slot as usize].prev = DETACHED;
    }

    /// Makes `slot` (in `list`) the most recent entry of `list`.
    pub fn move_to_front(&mut self, list: usize, slot: u32) {
        if self.ends[list].0 != slot {
            self.remove(list, slot);
            self.push_front(list, slot);
        }
    }

    /// The most recent entry of `list`.
    pub fn front(&self, list: usize) -> Option<u32> {
        let head = self.ends[list].0;
        (head != NIL).then_some(head)
    }

    /// Starts loading `slot`'s links (`smr_core::prefetch`).
    #[inline]
    pub fn prefetch(&self, slot: u32) {
        if let Some(links) = self.links.get(slot as usize) {
            smr_core::prefetch::prefetch(links);
        }
    }

    /// The least recent entry of `list`.
    pub fn back(&self, list: usize) -> Option<u32> {
        let tail = self.ends[list].1;
        (tail != NIL).then_some(tail)
    }

    /// The entry just more recent than `slot` (in some list), if any.
    pub fn more_recent(&self, slot: u32) -> Option<u32> {
        let p = self.links[slot as usize].prev;
        (p != NIL && p != DETACHED).then_some(p)
    }

    /// Entries of `list` from most to least recent.
    #[cfg(test)]
    pub fn iter(&self, list: usize) -> impl Iterator<Item = u32> + '_ {
        let head = self.ends[list].0;
        std::iter::successors((head != NIL).then_some(head), |&s| {
            let n = self.links[s as usize].next;
            (n != NIL).then_some(n)
        })
    }
}

/// One recency list.
#[derive(Clone, Debug, Default)]
pub struct RecencyList(ListSet);

impl RecencyList {
    /// A list able to hold slots `0..slots`.
    pub fn new(slots: usize) -> Self {
        RecencyList(ListSet::new(slots, 1))
    }

    pub fn push_front(&mut self, slot: u32) {
        self.0.push_front(0, slot)
    }

    pub fn remove(&mut self, slot: u32) {
        self.0.remove(0, slot)
    }

    pub fn move_to_front(&mut self, slot: u32) {
        self.0.move_to_front(0, slot)
    }

    pub fn back(&self) -> Option<u32> {
        self.0.back(0)
    }

    pub fn prefetch(&self, slot: u32) {
        self.0.prefetch(slot)
    }

    /// The entry just more recent than `slot`, if any: with `back`, a walk from least to most
    /// recent.
    pub fn more_recent(&self, slot: u32) -> Option<u32> {
        self.0.more_recent(slot)
    }

    /// Makes room for slots up to `slots` (never shrinks).
    pub fn grow(&mut self, slots: usize) {
        self.0.grow(slots)
    }

    /// Adds `slot` just behind `before` (in the list), i.e. as less recent.
    pub fn insert_after(&mut self, before: u32, slot: u32) {
        self.0.insert_after(0, before, slot)
    }

    /// Puts `new` (in no list) where `old` is, and takes `old` out: an entry that moved to
    /// another slot keeps its recency.
    pub fn replace(&mut self, old: u32, new: u32) {
        match self.0.more_recent(old) {
            Some(before) => {
                self.0.remove(0, old);
                self.0.insert_after(0, before, new);
            }
            None => {
                self.0.remove(0, old);
                self.0.push_front(0, new);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_replaced_entry_keeps_its_place_and_grown_slots_join() {
        let mut l = RecencyList::new(3);
        l.grow(6);
        for s in [0, 1, 2] {
            l.push_front(s);
        }
        l.replace(1, 5);
        l.replace(2, 4);
        assert_eq!(l.0.iter(0).collect::<Vec<_>>(), [4, 5, 0]);
        assert_eq!((l.back(), l.more_recent(0), l.more_recent(4)), (Some(0), Some(5), None));
    }

    proptest! {
        /// Three lists over 16 slots against three deques.
        #[test]
        fn behave_like_deques(ops in proptest::collection::vec((0u8..5, 0usize..3, 0u32..16), 0..300)) {
            let mut lists = ListSet::new(16, 3);
            let mut model: Vec<std::collections::VecDeque<u32>> = vec![Default::default(); 3];
            for (op, list, slot) in ops {
                let home = model.iter().position(|m| m.contains(&slot));
                match (op, home) {
                    (0, None) => { lists.push_front(list, slot); model[list].push_front(slot); }
                    (1, None) => { lists.push_back(list, slot); model[list].push_back(slot); }
                    (2, Some(h)) => { lists.remove(h, slot); model[h].retain(|&s| s != slot); }
                    (3, Some(h)) => { lists.move_to_front(h, slot); model[h].retain(|&s| s != slot); model[h].push_front(slot); }
                    (4, None) if !model[list].is_empty() => {
                        let before = model[list][model[list].len() / 2];
                        lists.insert_after(list, before, slot);
                        let at = model[list].iter().position(|&s| s == before).unwrap();
                        model[list].insert(at + 1, slot);
                    }
                    _ => {}
                }
                for (l, m) in model.iter().enumerate() {
                    prop_assert_eq!(lists.iter(l).collect::<Vec<_>>(), m.iter().copied().collect::<Vec<_>>());
                    prop_assert_eq!(lists.back(l), m.back().copied());
                    prop_assert_eq!(lists.front(l), m.front().copied());
                    prop_assert_eq!(lists.is_empty(l), m.is_empty());
                }
                for (l, m) in model.iter().enumerate() {
                    for w in m.iter().collect::<Vec<_>>().windows(2) {
                        prop_assert_eq!(lists.more_recent(*w[1]), Some(*w[0]), "list {}", l);
                    }
                }
            }
        }
    }
}
