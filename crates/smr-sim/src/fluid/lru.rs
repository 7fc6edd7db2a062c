//! Block LRU over the CMR cache (§6.1, and +cache-fix / format-adapt of §7.1): new data takes the
//! free slots where they lie (so the cache's free space fragments), a write to a cached entry
//! makes it most recent, and cleaning takes the least recently written entry. Plain block LRU
//! merges just that entry into its SMR zone; the improved block LRU (`imprv-lru`, §6.1) evicts
//! the whole user zone of the victim entry, reclaiming every block one zone rewrite can.
//!
//! Where new data goes (`lru_placement`, an open choice: its reason is in its declaration): by
//! default a write takes the lowest free slots, across as many holes as it needs, each hole one
//! more entry and one more I/O with its own positioning; that is what makes the in-place FIFO
//! log worth designing, as §6.1 says ("the improved block LRU policy will fragment the Cache's
//! free space, causing random IOs"). `best-fit` puts a write in the smallest hole that holds all
//! of it (the lowest among equals), and only when none does in the largest holes one after
//! another. Free slots are kept as runs, merged when they meet. Not here: the logs (`fifo`,
//! `loopback`).

use std::collections::{BTreeMap, BTreeSet};

use super::cache::{CachePolicy, Clean};
use super::extents::ExtentMap;
use smr_kernel::policy::recency::{Order, Recency};

/// Where block LRU puts new data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// The lowest free slots, hole after hole.
    FirstFree,
    /// The smallest hole that holds it all, else the largest holes.
    BestFit,
}

pub const PLACEMENT_NAMES: &[&str] = &["first-free", "best-fit"];

impl Placement {
    pub fn by_name(name: &str) -> Placement {
        if name == "best-fit" {
            Placement::BestFit
        } else {
            Placement::FirstFree
        }
    }
}

pub struct BlockLru {
    /// Free slot runs: first slot -> slots.
    free_runs: BTreeMap<u32, u32>,
    /// The same runs by size: (slots, first slot).
    by_size: BTreeSet<(u32, u32)>,
    free: u64,
    capacity: u32,
    recency: Recency,
    whole_zone: bool,
    placement: Placement,
}

impl BlockLru {
    /// `whole_zone`: the improved policy (evict the victim entry's zone); new data placed by
    /// `placement`.
    pub fn new(whole_zone: bool, placement: Placement) -> Self {
        BlockLru {
            free_runs: BTreeMap::new(),
            by_size: BTreeSet::new(),
            free: 0,
            capacity: 0,
            recency: Recency::new(0, Order::Lru),
            whole_zone,
            placement,
        }
    }

    fn add_run(&mut self, pba: u32, len: u32) {
        self.free_runs.insert(pba, len);
        self.by_size.insert((len, pba));
    }

    fn remove_run(&mut self, pba: u32) -> Option<u32> {
        let len = self.free_runs.remove(&pba)?;
        self.by_size.remove(&(len, pba));
        Some(len)
    }
}

impl CachePolicy for BlockLru {
    fn free(&self) -> u64 {
        self.free
    }

    fn free_runs(&self, blocks: u64, out: &mut Vec<(u32, u32)>) {
        out.clear();
        match self.placement {
            Placement::FirstFree => holes_until(self.free_runs.iter().map(|(&pba, &len)| (pba, len)), blocks, out),
            Placement::BestFit => {
                let want = blocks.min(u32::MAX as u64) as u32;
                match self.by_size.range((want, 0)..).next() {
                    Some(&(len, pba)) => out.push((pba, len)),
                    None => holes_until(self.by_size.iter().rev().map(|&(len, pba)| (pba, len)), blocks, out),
                }
            }
        }
    }

    fn take(&mut self, pba: u32, len: u32) {
        let run = self.remove_run(pba).expect("data goes to the start of a free run");
        debug_assert!(len <= run);
        if run > len {
            self.add_run(pba + len, run - len);
        }
        self.free -= len as u64;
    }

    /// Adds slots `pba..pba + len` to the free runs, joining the runs it touches.
    fn release(&mut self, mut pba: u32, mut len: u32) {
        self.free += len as u64;
        if let Some((&before, &n)) = self.free_runs.range(..pba).next_back() {
            if before + n == pba {
                self.remove_run(before);
                (pba, len) = (before, len + n);
            }
        }
        if let Some(n) = self.remove_run(pba + len) {
            len += n;
        }
        self.add_run(pba, len);
    }

    fn recency(&mut self) -> Option<&mut Recency> {
        Some(&mut self.recency)
    }

    fn next_clean(&mut self, map: &ExtentMap, _loop_back: bool) -> Option<Clean> {
        let victim = self.recency.least()?;
        Some(if self.whole_zone { Clean::EvictZone(map.user_of(victim)) } else { Clean::EvictEntry(victim) })
    }

    fn resize(&mut self, capacity: u32) {
        if capacity > self.capacity {
            self.release(self.capacity, capacity - self.capacity);
        } else if capacity < self.capacity {
            // The slots cut off are free: drop them from the runs.
            let cut: Vec<(u32, u32)> = self
                .free_runs
                .range(..self.capacity)
                .filter(|&(&p, &n)| p + n > capacity)
                .map(|(&p, &n)| (p, n))
                .collect();
            for (pba, len) in cut {
                self.remove_run(pba);
                let kept = capacity.saturating_sub(pba);
                if kept > 0 {
                    self.add_run(pba, kept);
                }
                self.free -= (len - kept) as u64;
            }
        }
        self.capacity = capacity;
    }
}

/// Appends `holes` (first slot, slots) to `out` until they hold `blocks`.
fn holes_until(holes: impl Iterator<Item = (u32, u32)>, blocks: u64, out: &mut Vec<(u32, u32)>) {
    let mut left = blocks;
    for (pba, len) in holes {
        if left == 0 {
            break;
        }
        out.push((pba, len));
        left = left.saturating_sub(len as u64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn free_runs_are_taken_best_fit_and_join_when_released() {
        let mut lru = BlockLru::new(false, Placement::BestFit);
        lru.resize(10);
        let mut runs = Vec::new();
        lru.free_runs(4, &mut runs);
        assert_eq!(runs, [(0, 10)]);
        lru.take(0, 4);
        lru.take(4, 3);
        lru.release(1, 2);
        lru.free_runs(2, &mut runs);
        assert_eq!(runs, [(1, 2)], "the smallest run that holds all of it");
        lru.free_runs(3, &mut runs);
        assert_eq!(runs, [(7, 3)]);
        lru.free_runs(4, &mut runs);
        assert_eq!(runs, [(7, 3), (1, 2)], "none does: the largest first");
        lru.release(3, 1);
        lru.release(0, 1);
        lru.free_runs(10, &mut runs);
        assert_eq!((runs.as_slice(), lru.free()), (&[(0, 4), (7, 3)][..], 7), "joined: 0-3");
        lru.resize(8);
        lru.free_runs(10, &mut runs);
        assert_eq!((runs.as_slice(), lru.free()), (&[(0, 4), (7, 1)][..], 5));
    }

    /// Holes of 2 slots at 1, 1 at 5 and 4 at 8: first-free takes them from the lowest, as many
    /// as the write needs, where best-fit takes the one hole that holds it.
    #[test]
    fn first_free_takes_the_lowest_holes_one_after_another() {
        let runs_for = |placement, blocks| {
            let mut lru = BlockLru::new(true, placement);
            lru.resize(12);
            lru.take(0, 12);
            lru.release(1, 2);
            lru.release(5, 1);
            lru.release(8, 4);
            let mut runs = Vec::new();
            lru.free_runs(blocks, &mut runs);
            runs
        };
        assert_eq!(runs_for(Placement::FirstFree, 3), [(1, 2), (5, 1)]);
        assert_eq!(runs_for(Placement::FirstFree, 4), [(1, 2), (5, 1), (8, 4)]);
        assert_eq!(runs_for(Placement::BestFit, 3), [(8, 4)]);
        assert_eq!(runs_for(Placement::BestFit, 5), [(8, 4), (1, 2)]);
    }

    #[test]
    fn the_least_recent_entry_or_its_zone_is_the_victim() {
        let mut map = ExtentMap::new(8);
        let a = map.insert(3, 0, 1, true).id;
        let b = map.insert(9, 1, 1, true).id;
        for whole_zone in [false, true] {
            let mut lru = BlockLru::new(whole_zone, Placement::FirstFree);
            lru.inserted(a);
            lru.inserted(b);
            let want = if whole_zone { Clean::EvictZone(0) } else { Clean::EvictEntry(a) };
            assert_eq!(lru.next_clean(&map, false), Some(want));
            lru.hit(a);
            let want = if whole_zone { Clean::EvictZone(1) } else { Clean::EvictEntry(b) };
            assert_eq!(lru.next_clean(&map, false), Some(want));
            lru.removed(a);
            lru.removed(b);
            assert_eq!(lru.next_clean(&map, false), None);
        }
    }
}
