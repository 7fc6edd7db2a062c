//! The order in which the cache's entries were last written, most recent first: what block LRU
//! evicts by (`lru`) and what the loop-back log tells hot zones by (`loopback`). An entry split
//! in two, or moved by a loop-back, keeps its place; its new part goes just behind it. Not
//! here: which entry a policy picks.

use super::extents::EntryId;
use smr_kernel::lists::ListSet;

/// The one list of the set.
const LIST: usize = 0;

pub struct EntryRecency(ListSet);

impl Default for EntryRecency {
    fn default() -> Self {
        EntryRecency(ListSet::new(0, 1))
    }
}

impl EntryRecency {
    pub fn new() -> Self {
        EntryRecency::default()
    }

    /// A new entry, most recent.
    pub fn inserted(&mut self, entry: EntryId) {
        self.0.grow(entry as usize + 1);
        self.0.push_front(LIST, entry);
    }

    /// An entry written again: most recent.
    pub fn hit(&mut self, entry: EntryId) {
        self.0.move_to_front(LIST, entry);
    }

    pub fn removed(&mut self, entry: EntryId) {
        self.0.remove(LIST, entry);
    }

    /// `part` was cut from `of`: it takes the place just behind it.
    pub fn split(&mut self, of: EntryId, part: EntryId) {
        self.0.grow(part as usize + 1);
        self.0.insert_after(LIST, of, part);
    }

    /// The least recently written entry.
    pub fn least(&self) -> Option<EntryId> {
        self.0.back(LIST)
    }

    /// The entry written just after `entry`, if any.
    pub fn more_recent(&self, entry: EntryId) -> Option<EntryId> {
        self.0.more_recent(entry)
    }
}
