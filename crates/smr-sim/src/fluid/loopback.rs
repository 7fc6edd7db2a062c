//! The loop-back log (§6.1): the in-place FIFO log, plus an LRU list over the cache's entries to
//! tell hot zones. At the start of each epoch (the head back at the log's start), the zones whose
//! cached blocks all lie in the most recently written half of the list (by blocks) are hot; when
//! cleaning finds an entry of a hot zone at the tail, it re-queues the entry at the head (a copy
//! inside the cache) instead of evicting the zone.
//!
//! Choices where the paper is silent: a loop-back needs free slots for the whole entry at the
//! head, so a full log evicts first; one cleaning re-queues at most one pass of the log
//! (`loop_back` false after that), so cleaning always ends; a re-queued entry keeps its place in
//! the LRU list. Not here: the copy itself (`clean`).

use rustc_hash::FxHashSet;

use super::cache::{CachePolicy, Clean};
use super::extents::ExtentMap;
use super::fifo::FifoLog;
use smr_kernel::policy::recency::{Order, Recency};

pub struct LoopBackLog {
    log: FifoLog,
    recency: Recency,
    hot: FxHashSet<u32>,
}

impl Default for LoopBackLog {
    fn default() -> Self {
        Self::new()
    }
}

impl LoopBackLog {
    pub fn new() -> Self {
        LoopBackLog { log: FifoLog::new(), recency: Recency::new(0, Order::Lru), hot: FxHashSet::default() }
    }

    /// Whether user zone `user` was found hot at the start of this epoch.
    pub fn is_hot(&self, user: u32) -> bool {
        self.hot.contains(&user)
    }
}

impl CachePolicy for LoopBackLog {
    fn free(&self) -> u64 {
        self.log.free()
    }

    fn free_runs(&self, blocks: u64, out: &mut Vec<(u32, u32)>) {
        self.log.free_runs(blocks, out)
    }

    fn take(&mut self, pba: u32, len: u32) {
        self.log.take(pba, len)
    }

    fn joins_following(&self) -> bool {
        false
    }

    fn recency(&mut self) -> Option<&mut Recency> {
        Some(&mut self.recency)
    }

    fn next_clean(&mut self, map: &ExtentMap, loop_back: bool) -> Option<Clean> {
        Some(match self.log.tail_entry(map)? {
            Ok(id) if loop_back && self.is_hot(map.user_of(id)) && self.log.free() >= map.get(id).len as u64 => {
                Clean::LoopBack(id)
            }
            Ok(id) => Clean::EvictZone(map.user_of(id)),
            Err(step) => step,
        })
    }

    fn passed(&mut self, len: u32) {
        self.log.passed(len)
    }

    fn resize(&mut self, capacity: u32) {
        self.log.resize(capacity);
    }

    fn new_epoch(&mut self) -> bool {
        self.log.new_epoch()
    }

    /// Hot zones: those with no cached block in the least recently written half.
    fn start_epoch(&mut self, map: &ExtentMap) {
        let mut cold = FxHashSet::default();
        let mut at = self.recency.least();
        let mut seen = 0;
        while let Some(id) = at {
            if seen >= map.cached() / 2 {
                break;
            }
            cold.insert(map.user_of(id));
            seen += map.get(id).len as u64;
            at = self.recency.more_recent(id);
        }
        self.hot = map.users().filter(|u| !cold.contains(u)).collect();
    }
}
