//! The in-place FIFO log over the CMR cache (§6.1): data not yet cached is written at the log's
//! head; cached data is updated where it is (the cache is CMR); cleaning looks at the tail: empty
//! slots are passed over, otherwise every entry of the tail entry's user zone is evicted. The
//! log is circular over the cache's slots; an epoch ends each time the head comes back to slot 0.
//! Holes left in the middle by evicted zones are reused only when the tail has passed them.
//! Every entry lies between the tail and the head, so the tail meets each in turn. Not here:
//! re-queuing hot zones (`loopback`).

use super::cache::{CachePolicy, Clean};
use super::extents::{EntryId, ExtentMap};

#[derive(Default)]
pub struct FifoLog {
    capacity: u32,
    tail: u32,
    /// Slots from the tail to the head, holes included; the head is `tail + span` (mod
    /// capacity).
    span: u32,
    wrapped: bool,
}

impl FifoLog {
    pub fn new() -> Self {
        FifoLog::default()
    }

    pub fn tail(&self) -> Option<u32> {
        (self.span > 0).then_some(self.tail)
    }

    /// Slots from the tail to the head.
    pub fn span(&self) -> u32 {
        self.span
    }

    fn head(&self) -> u32 {
        ((self.tail as u64 + self.span as u64) % self.capacity.max(1) as u64) as u32
    }

    /// Passes over `slots` slots at the tail (empty, or just emptied).
    pub fn advance_tail(&mut self, slots: u32) {
        debug_assert!(slots <= self.span);
        self.tail = ((self.tail as u64 + slots as u64) % self.capacity as u64) as u32;
        self.span -= slots;
    }

    /// The log's step of cleaning: pass the empty slots at the tail, else name the entry there.
    /// `None` when the log is empty.
    pub fn tail_entry(&mut self, map: &ExtentMap) -> Option<Result<EntryId, Clean>> {
        if self.span == 0 {
            return None;
        }
        let next = map
            .next_by_pba(self.tail)
            .map(|(pba, id)| ((pba as u64 + self.capacity as u64 - self.tail as u64) % self.capacity as u64, id));
        Some(match next {
            Some((0, id)) => Ok(id),
            Some((gap, _)) if gap < self.span as u64 => {
                self.advance_tail(gap as u32);
                Err(Clean::Advanced)
            }
            // Nothing left between the tail and the head: the log is empty.
            _ => {
                self.advance_tail(self.span);
                Err(Clean::Advanced)
            }
        })
    }
}

impl CachePolicy for FifoLog {
    fn free(&self) -> u64 {
        (self.capacity - self.span) as u64
    }

    fn free_runs(&self, blocks: u64, out: &mut Vec<(u32, u32)>) {
        out.clear();
        let head = self.head();
        let free = self.free().min(blocks) as u32;
        // From the head to the end of the slots, then round from slot 0.
        let first = free.min(self.capacity - head);
        if first > 0 {
            out.push((head, first));
        }
        if free > first {
            out.push((0, free - first));
        }
    }

    fn take(&mut self, pba: u32, len: u32) {
        debug_assert_eq!(pba, self.head(), "the log fills at its head");
        self.span += len;
        self.wrapped |= pba + len == self.capacity;
    }

    fn joins_following(&self) -> bool {
        false
    }

    fn next_clean(&mut self, map: &ExtentMap, _loop_back: bool) -> Option<Clean> {
        Some(match self.tail_entry(map)? {
            Ok(id) => Clean::EvictZone(map.user_of(id)),
            Err(step) => step,
        })
    }

    fn passed(&mut self, len: u32) {
        self.advance_tail(len);
    }

    fn resize(&mut self, capacity: u32) {
        let old = self.capacity as u64;
        let end = self.tail as u64 + self.span as u64;
        if capacity as u64 >= old {
            // A log that wraps round the old end now runs through the new slots, as holes.
            if end > old {
                self.span += capacity - self.capacity;
            }
        } else {
            // The slots cut off are empty: keep the parts of the log below the new end.
            let cap = capacity as u64;
            let before_end = if (self.tail as u64) < cap { end.min(old).min(cap) - self.tail as u64 } else { 0 };
            let after_wrap = end.saturating_sub(old).min(cap);
            if (self.tail as u64) >= cap {
                self.tail = 0;
            }
            if end.min(old) > cap {
                self.wrapped = true;
            }
            self.span = (before_end + after_wrap) as u32;
            if capacity == 0 {
                self.tail = 0;
            }
        }
        self.capacity = capacity;
    }

    fn new_epoch(&mut self) -> bool {
        std::mem::take(&mut self.wrapped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn place(log: &mut FifoLog, blocks: u64) -> Vec<(u32, u32)> {
        let mut runs = Vec::new();
        log.free_runs(blocks, &mut runs);
        for &(pba, len) in &runs {
            log.take(pba, len);
        }
        runs
    }

    #[test]
    fn the_head_wraps_and_resizing_keeps_the_log_in_order() {
        let mut log = FifoLog::new();
        log.resize(4);
        assert_eq!(place(&mut log, 3), [(0, 3)]);
        log.advance_tail(2);
        assert_eq!((place(&mut log, 2), log.new_epoch()), (vec![(3, 1), (0, 1)], true));
        // Log: slots 2, 3, 0 (tail 2). Growing runs it through the new slots 4, 5 as holes.
        log.resize(6);
        assert_eq!((log.tail(), log.span(), log.free()), (Some(2), 5, 1));
        assert_eq!(place(&mut log, 1), [(1, 1)]);
        // Shrinking to 3 keeps slot 2 and slots 0, 1 after the wrap.
        log.resize(3);
        assert_eq!((log.tail(), log.span(), log.free()), (Some(2), 3, 0));
        assert!(place(&mut log, 1).is_empty());
    }

    #[test]
    fn cleaning_passes_holes_at_once_and_names_the_tail_entry() {
        let mut log = FifoLog::new();
        log.resize(16);
        let mut map = ExtentMap::new(16);
        place(&mut log, 10);
        let id = map.insert(5, 6, 4, true).id;
        assert_eq!(log.next_clean(&map, false), Some(Clean::Advanced), "slots 0-5 are holes");
        assert_eq!((log.tail(), log.span()), (Some(6), 4));
        assert_eq!(log.next_clean(&map, false), Some(Clean::EvictZone(0)));
        map.remove(id);
        assert_eq!(log.next_clean(&map, false), Some(Clean::Advanced));
        assert_eq!((log.span(), log.next_clean(&map, false)), (0, None), "an empty log has nothing to clean");
    }
}
