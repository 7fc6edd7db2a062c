//! The in-place FIFO log over the CMR cache (§6.1): a block not yet cached is written at the
//! log's head; a cached block is updated where it is (the cache is CMR); cleaning looks at the
//! tail: an empty tail slot is passed over, otherwise the whole zone of the tail block is
//! evicted. The log is circular over the cache's slots; an epoch ends each time the head comes
//! back to slot 0. Holes left in the middle by evicted zones are reused only when the tail has
//! passed them. Not here: re-queuing hot zones (`loopback`).

use super::cache::{CachePolicy, CacheSlots, Clean};

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

    pub fn free(&self) -> u32 {
        self.capacity - self.span
    }

    /// Slots from the tail to the head.
    pub fn span(&self) -> u32 {
        self.span
    }

    /// Passes over the tail slot (empty, or just emptied).
    pub fn advance_tail(&mut self) {
        self.tail = (self.tail + 1) % self.capacity;
        self.span -= 1;
    }

    /// The log step of cleaning: pass an empty tail slot, else evict the tail block's zone.
    pub fn clean_tail(&mut self, slots: &CacheSlots) -> Clean {
        let tail = self.tail().expect("cleaning a log that holds blocks");
        match slots.user_of_slot(tail) {
            None => {
                self.advance_tail();
                Clean::Advanced
            }
            Some(user) => Clean::EvictZone(user),
        }
    }
}

impl CachePolicy for FifoLog {
    fn place(&mut self) -> Option<u32> {
        if self.free() == 0 {
            return None;
        }
        let slot = ((self.tail as u64 + self.span as u64) % self.capacity as u64) as u32;
        self.span += 1;
        self.wrapped |= slot == self.capacity - 1;
        Some(slot)
    }

    fn has_room(&self, blocks: u64) -> bool {
        self.free() as u64 >= blocks
    }

    fn next_clean(&mut self, slots: &CacheSlots, _loop_back: bool) -> Clean {
        self.clean_tail(slots)
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

    #[test]
    fn the_head_wraps_and_resizing_keeps_the_log_in_order() {
        let mut log = FifoLog::new();
        log.resize(4);
        assert_eq!((log.place(), log.place(), log.place()), (Some(0), Some(1), Some(2)));
        log.advance_tail();
        log.advance_tail();
        assert_eq!((log.place(), log.new_epoch(), log.place()), (Some(3), true, Some(0)));
        // Log: slots 2, 3, 0 (tail 2). Growing runs it through the new slots 4, 5 as holes.
        log.resize(6);
        assert_eq!((log.tail(), log.span(), log.free()), (Some(2), 5, 1));
        assert_eq!(log.place(), Some(1));
        // Shrinking to 3 keeps slot 2 and slots 0, 1 after the wrap.
        log.resize(3);
        assert_eq!((log.tail(), log.span(), log.free()), (Some(2), 3, 0));
        assert_eq!(log.place(), None);
    }
}
