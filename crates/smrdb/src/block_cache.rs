//! The block cache: data blocks that gets read, kept in memory up to a budget of bytes, the
//! least recently used dropped first. The thesis ran SMRDB and LevelDB with "the same default
//! 8 MB cache" (§3.3.3), LevelDB's block cache, which SMRDB (built from LevelDB) kept; the
//! default here is that 8 MiB, and 0 turns the cache off.
//!
//! A block is known by its table's id and its offset in the table; ids are never reused, so the
//! blocks of a table compacted away are never asked for again and age out. A cached block was
//! checked against its checksum when it was read. Not here: scans, which read runs of adjacent
//! blocks straight from the band and neither consult nor fill the cache (a scan's blocks would
//! push the gets' blocks out and come back only on the next scan), nor a table's index and
//! Bloom filter, which an open table keeps in memory whole.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use rustc_hash::FxHashMap;

/// A block's name: its table's id and its offset in the table.
pub type BlockKey = (u64, u64);

pub struct BlockCache {
    budget: u64,
    inner: Mutex<Lru>,
}

#[derive(Default)]
struct Lru {
    blocks: FxHashMap<BlockKey, (Arc<[u8]>, u64)>,
    /// Each cached block by the tick of its last use, least recent first.
    by_use: BTreeMap<u64, BlockKey>,
    bytes: u64,
    clock: u64,
}

impl BlockCache {
    /// A cache of at most `budget` bytes of blocks (0: none is kept).
    pub fn new(budget: u64) -> Self {
        BlockCache { budget, inner: Mutex::new(Lru::default()) }
    }

    fn lru(&self) -> std::sync::MutexGuard<'_, Lru> {
        // Every update leaves the maps consistent before it can panic.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The block `key` if it is cached, now the most recently used.
    pub fn get(&self, key: BlockKey) -> Option<Arc<[u8]>> {
        if self.budget == 0 {
            return None;
        }
        let lru = &mut *self.lru();
        lru.clock += 1;
        let (bytes, tick) = lru.blocks.get_mut(&key)?;
        lru.by_use.remove(tick);
        *tick = lru.clock;
        lru.by_use.insert(lru.clock, key);
        Some(bytes.clone())
    }

    /// Keeps `block` as `key`, dropping the least recently used blocks until it fits; a block
    /// larger than the whole budget is not kept.
    pub fn insert(&self, key: BlockKey, block: Arc<[u8]>) {
        let len = block.len() as u64;
        if len > self.budget {
            return;
        }
        let lru = &mut *self.lru();
        if lru.blocks.contains_key(&key) {
            return;
        }
        while lru.bytes.saturating_add(len) > self.budget {
            let (_, oldest) = lru.by_use.pop_first().expect("blocks are cached while bytes are counted");
            let (dropped, _) = lru.blocks.remove(&oldest).expect("every tick names a cached block");
            lru.bytes -= dropped.len() as u64;
        }
        lru.clock += 1;
        lru.bytes += len;
        lru.blocks.insert(key, (block, lru.clock));
        lru.by_use.insert(lru.clock, key);
    }

    /// Bytes of blocks cached now.
    pub fn bytes(&self) -> u64 {
        self.lru().bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(len: usize) -> Arc<[u8]> {
        vec![7u8; len].into()
    }

    /// Three 4 KiB blocks in 8 KiB: the least recently used one goes, a use renews a block.
    #[test]
    fn the_least_recently_used_block_goes_first() {
        let cache = BlockCache::new(8192);
        cache.insert((1, 0), block(4096));
        cache.insert((1, 4096), block(4096));
        assert!(cache.get((1, 0)).is_some());
        cache.insert((2, 0), block(4096));
        assert!(cache.get((1, 4096)).is_none(), "the least recent block was dropped");
        assert!(cache.get((1, 0)).is_some() && cache.get((2, 0)).is_some());
        assert_eq!(cache.bytes(), 8192);
    }

    #[test]
    fn no_budget_keeps_nothing_and_a_block_over_the_budget_is_not_kept() {
        let off = BlockCache::new(0);
        off.insert((1, 0), block(10));
        assert!(off.get((1, 0)).is_none());
        let small = BlockCache::new(100);
        small.insert((1, 0), block(50));
        small.insert((1, 50), block(101));
        assert!(small.get((1, 0)).is_some() && small.get((1, 50)).is_none());
        assert_eq!(small.bytes(), 50);
    }
}
