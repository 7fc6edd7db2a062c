//! `lru`: evict the least recently used block.

use super::list::RecencyList;
use super::policy::Policy;

pub struct Lru {
    recency: RecencyList,
}

impl Lru {
    pub fn new(slots: usize) -> Self {
        Lru { recency: RecencyList::new(slots) }
    }
}

impl Policy for Lru {
    fn inserted(&mut self, slot: u32, _block: u64, _dirty: bool) {
        self.recency.push_front(slot);
    }

    fn hit(&mut self, slot: u32, _block: u64, _became_dirty: bool) {
        self.recency.move_to_front(slot);
    }

    fn removed(&mut self, slot: u32, _block: u64, _was_dirty: bool) {
        self.recency.remove(slot);
    }

    fn victims(&mut self, out: &mut Vec<u32>) {
        out.extend(self.recency.back());
    }
}
