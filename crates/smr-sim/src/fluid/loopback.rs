//! The loop-back log (§6.1): the in-place FIFO log, plus a block LRU over the cached blocks to
//! tell hot zones. At the start of each epoch (the head back at the log's start), the zones
//! whose cached blocks all lie in the most recently written half of the LRU list are hot; when
//! cleaning finds a block of a hot zone at the tail, it re-queues the block at the head (a copy
//! inside the cache) instead of evicting the zone.
//!
//! Choices where the paper is silent: a loop-back needs a free slot at the head, so a full log
//! evicts first; one cleaning re-queues at most one pass of the log (`loop_back` false after
//! that), so cleaning always ends; a re-queued block keeps its place in the LRU list. Not here:
//! the copy itself (`clean`).

use rustc_hash::FxHashSet;

use super::cache::{CachePolicy, CacheSlots, Clean};
use super::fifo::FifoLog;
use crate::kernel::lists::RecencyList;

pub struct LoopBackLog {
    log: FifoLog,
    recency: RecencyList,
    hot: FxHashSet<u32>,
}

impl Default for LoopBackLog {
    fn default() -> Self {
        LoopBackLog { log: FifoLog::new(), recency: RecencyList::new(0), hot: FxHashSet::default() }
    }
}

impl LoopBackLog {
    pub fn new() -> Self {
        LoopBackLog::default()
    }

    /// Whether user zone `user` was found hot at the start of this epoch.
    pub fn is_hot(&self, user: u32) -> bool {
        self.hot.contains(&user)
    }
}

impl CachePolicy for LoopBackLog {
    fn place(&mut self) -> Option<u32> {
        self.log.place()
    }

    fn has_room(&self, blocks: u64) -> bool {
        self.log.has_room(blocks)
    }

    fn inserted(&mut self, slot: u32) {
        self.recency.push_front(slot);
    }

    fn hit(&mut self, slot: u32) {
        self.recency.move_to_front(slot);
    }

    fn removed(&mut self, slot: u32) {
        self.recency.remove(slot);
    }

    fn moved(&mut self, old: u32, new: u32) {
        self.recency.replace(old, new);
    }

    fn next_clean(&mut self, slots: &CacheSlots, loop_back: bool) -> Clean {
        match self.log.clean_tail(slots) {
            Clean::EvictZone(user) if loop_back && self.is_hot(user) && self.log.free() > 0 => {
                let tail = self.log.tail().expect("the tail holds a block");
                self.log.advance_tail();
                Clean::LoopBack(tail)
            }
            step => step,
        }
    }

    fn resize(&mut self, capacity: u32) {
        self.recency.grow(capacity as usize);
        self.log.resize(capacity);
    }

    fn new_epoch(&mut self) -> bool {
        self.log.new_epoch()
    }

    /// Hot zones: those with no cached block in the least recently written half.
    fn start_epoch(&mut self, slots: &CacheSlots) {
        let mut cold = FxHashSet::default();
        let mut at = self.recency.back();
        for _ in 0..slots.cached() / 2 {
            let Some(slot) = at else { break };
            if let Some(user) = slots.user_of_slot(slot) {
                cold.insert(user);
            }
            at = self.recency.more_recent(slot);
        }
        self.hot = slots.users().filter(|u| !cold.contains(u)).collect();
    }
}
