//! A pool of numbered slots (cache blocks, cache buckets): never-used slots are handed out in
//! order first, then slots given back, last given back first. Its order is part of every
//! cache's results, so every system that allocates slots takes them from here.

#[derive(Clone, Debug, Default)]
pub struct SlotPool {
    capacity: u32,
    /// Slots `unused..capacity` have never been handed out.
    unused: u32,
    free: Vec<u32>,
}

impl SlotPool {
    /// A pool of slots `0..capacity` (at most `u32::MAX`).
    pub fn new(capacity: usize) -> Self {
        SlotPool {
            capacity: u32::try_from(capacity).expect("slot counts are checked at build"),
            unused: 0,
            free: Vec::new(),
        }
    }

    pub fn capacity(&self) -> usize {
        self.capacity as usize
    }

    /// A slot, if one is available.
    #[inline]
    pub fn take(&mut self) -> Option<u32> {
        if self.unused < self.capacity {
            self.unused += 1;
            return Some(self.unused - 1);
        }
        self.free.pop()
    }

    /// The slot `take` would return next.
    pub fn peek(&self) -> Option<u32> {
        if self.unused < self.capacity {
            Some(self.unused)
        } else {
            self.free.last().copied()
        }
    }

    /// Gives `slot` back.
    #[inline]
    pub fn release(&mut self, slot: u32) {
        self.free.push(slot);
    }

    /// Changes the pool to slots `0..capacity` (at most `u32::MAX`). Growing adds never-used
    /// slots; shrinking requires every slot from `capacity` up to be free (given back or never
    /// handed out) and forgets them.
    pub fn resize(&mut self, capacity: usize) {
        let capacity = u32::try_from(capacity).expect("slot counts are checked at build");
        if capacity < self.capacity {
            self.free.retain(|&s| s < capacity);
            self.unused = self.unused.min(capacity);
        }
        self.capacity = capacity;
    }

    /// Slots available.
    pub fn available(&self) -> usize {
        (self.capacity - self.unused) as usize + self.free.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unused_slots_first_then_the_last_released() {
        let mut pool = SlotPool::new(3);
        assert_eq!((pool.take(), pool.take()), (Some(0), Some(1)));
        pool.release(0);
        assert_eq!(pool.available(), 2);
        assert_eq!((pool.peek(), pool.take()), (Some(2), Some(2)));
        pool.release(1);
        assert_eq!((pool.peek(), pool.take(), pool.take(), pool.take()), (Some(1), Some(1), Some(0), None));
        assert_eq!(pool.available(), 0);
    }

    #[test]
    fn resize_adds_unused_slots_and_forgets_free_ones_above_the_new_capacity() {
        let mut pool = SlotPool::new(4);
        let taken: Vec<u32> = (0..4).map(|_| pool.take().unwrap()).collect();
        assert_eq!(taken, [0, 1, 2, 3]);
        pool.release(3);
        pool.release(1);
        pool.resize(3);
        assert_eq!((pool.available(), pool.take(), pool.take()), (1, Some(1), None));
        pool.resize(5);
        assert_eq!((pool.take(), pool.take(), pool.take()), (Some(3), Some(4), None));
    }
}
