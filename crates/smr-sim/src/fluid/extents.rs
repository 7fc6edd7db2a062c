//! The CMR cache's in-memory mapping table (§6.1): "each mapping entry is a triplet of (lba,
//! pba, length)". An entry maps a run of blocks of one user zone (lba: 4 KiB block number of the
//! extendable space) to a run of cache slots (pba: slot number across the cache zones) inside one
//! cache zone. Entries never overlap in lba or in pba.
//!
//! Lookups find the entries a block range overlaps and the gaps between them; a new entry that
//! continues a neighbour in both lba and pba (same user zone, same cache zone) merges with it;
//! cutting a range out (stale copies after a sequential write) trims or splits entries; the
//! entries of a user zone, its cache occupancy (§6.2) and the entry count the quota limits are
//! kept here. Entries are numbered (`EntryId`) so a policy can order them; a merged-away entry's
//! number is reused. Not here: which slots are free or what is evicted (the policies), the I/O.

use std::collections::BTreeMap;

/// An entry's number: its place in the table, stable while it lives.
pub type EntryId = u32;

/// One mapping entry: `len` blocks from block `lba` of the extendable space, in slots from `pba`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extent {
    pub lba: u64,
    pub pba: u32,
    pub len: u32,
}

impl Extent {
    pub fn lba_end(&self) -> u64 {
        self.lba + self.len as u64
    }

    pub fn pba_end(&self) -> u32 {
        self.pba + self.len
    }
}

/// What an insertion did to the table, for the policy ordering entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inserted {
    /// The entry now holding the blocks.
    pub id: EntryId,
    /// Whether `id` is a new entry (else an existing one grew).
    pub new: bool,
    /// An entry merged into `id` and gone.
    pub absorbed: Option<EntryId>,
}

/// What cutting a block range out of the table did to an entry, where its policy must know
/// (an entry that only lost slots at one end keeps its number and place).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cut {
    /// The entry is gone.
    Removed(EntryId),
    /// The entry lost its middle: its right part is the new entry `right`.
    Split { left: EntryId, right: EntryId },
}

#[derive(Default)]
pub struct ExtentMap {
    blocks_per_zone: u64,
    /// Slots per cache zone: an entry's slots lie in one cache zone.
    slots_per_zone: u32,
    entries: Vec<Extent>,
    free_ids: Vec<EntryId>,
    by_lba: BTreeMap<u64, EntryId>,
    by_pba: BTreeMap<u32, EntryId>,
    /// Cached blocks per user zone.
    occupancy: Vec<u64>,
    cached: u64,
}

impl ExtentMap {
    /// A table for user zones of `blocks_per_zone` blocks and cache zones of as many slots.
    pub fn new(blocks_per_zone: u64) -> Self {
        ExtentMap { blocks_per_zone, slots_per_zone: blocks_per_zone as u32, ..ExtentMap::default() }
    }

    /// Entries in the table (what the quota counts).
    pub fn len(&self) -> u64 {
        self.by_lba.len() as u64
    }

    pub fn is_empty(&self) -> bool {
        self.by_lba.is_empty()
    }

    /// Blocks the cache holds.
    pub fn cached(&self) -> u64 {
        self.cached
    }

    pub fn get(&self, id: EntryId) -> Extent {
        self.entries[id as usize]
    }

    /// The user zone entry `id` belongs to.
    pub fn user_of(&self, id: EntryId) -> u32 {
        (self.entries[id as usize].lba / self.blocks_per_zone) as u32
    }

    /// Cached blocks of user zone `user` (its cache occupancy, §6.2).
    #[inline]
    pub fn occupancy(&self, user: u32) -> u64 {
        self.occupancy.get(user as usize).copied().unwrap_or(0)
    }

    /// User zones with cached blocks, lowest first.
    pub fn users(&self) -> impl Iterator<Item = u32> + '_ {
        self.occupancy.iter().enumerate().filter(|(_, &n)| n > 0).map(|(u, _)| u as u32)
    }

    /// Entries overlapping blocks `first..end`, in lba order.
    pub fn overlapping(&self, first: u64, end: u64) -> impl Iterator<Item = EntryId> + '_ {
        // The entry starting before `first` may reach into the range; entries do not overlap,
        // so only the last one can.
        let before = self
            .by_lba
            .range(..first)
            .next_back()
            .map(|(_, &id)| id)
            .filter(|&id| self.entries[id as usize].lba_end() > first);
        before.into_iter().chain(self.by_lba.range(first..end.max(first)).map(|(_, &id)| id))
    }

    /// The entry holding block `lba`, if any.
    pub fn holding(&self, lba: u64) -> Option<EntryId> {
        self.overlapping(lba, lba + 1).next()
    }

    /// The uncached runs of blocks `first..end`, as (lba, blocks), in order.
    pub fn gaps(&self, first: u64, end: u64, out: &mut Vec<(u64, u64)>) {
        out.clear();
        let mut at = first;
        for id in self.overlapping(first, end) {
            let e = self.entries[id as usize];
            if e.lba > at {
                out.push((at, e.lba - at));
            }
            at = at.max(e.lba_end());
        }
        if at < end {
            out.push((at, end - at));
        }
    }

    /// Entries of user zone `user`, in lba order.
    pub fn of_user(&self, user: u32) -> impl Iterator<Item = EntryId> + '_ {
        let first = user as u64 * self.blocks_per_zone;
        self.by_lba.range(first..first + self.blocks_per_zone).map(|(_, &id)| id)
    }

    /// The entry whose slots start first at or after slot `from` (circularly: wrapping to slot
    /// 0), with its first slot.
    pub fn next_by_pba(&self, from: u32) -> Option<(u32, EntryId)> {
        self.by_pba.range(from..).next().or_else(|| self.by_pba.range(..from).next()).map(|(&pba, &id)| (pba, id))
    }

    /// Entries with slots in `lo..hi`.
    pub fn in_slots(&self, lo: u32, hi: u32) -> impl Iterator<Item = EntryId> + '_ {
        // An entry lies in one cache zone, so one starting before `lo` ends before it when `lo`
        // is a zone's first slot; otherwise it is caught here.
        let before = self
            .by_pba
            .range(..lo)
            .next_back()
            .map(|(_, &id)| id)
            .filter(|&id| self.entries[id as usize].pba_end() > lo);
        before.into_iter().chain(self.by_pba.range(lo..hi.max(lo)).map(|(_, &id)| id))
    }

    fn same_user(&self, a: u64, b: u64) -> bool {
        a / self.blocks_per_zone == b / self.blocks_per_zone
    }

    fn same_cache_zone(&self, a: u32, b: u32) -> bool {
        a / self.slots_per_zone == b / self.slots_per_zone
    }

    fn add_blocks(&mut self, lba: u64, blocks: u64) {
        let user = (lba / self.blocks_per_zone) as usize;
        if self.occupancy.len() <= user {
            self.occupancy.resize(user + 1, 0);
        }
        self.occupancy[user] += blocks;
        self.cached += blocks;
    }

    fn sub_blocks(&mut self, lba: u64, blocks: u64) {
        self.occupancy[(lba / self.blocks_per_zone) as usize] -= blocks;
        self.cached -= blocks;
    }

    fn new_id(&mut self, e: Extent) -> EntryId {
        let id = match self.free_ids.pop() {
            Some(id) => {
                self.entries[id as usize] = e;
                id
            }
            None => {
                self.entries.push(e);
                (self.entries.len() - 1) as EntryId
            }
        };
        self.by_lba.insert(e.lba, id);
        self.by_pba.insert(e.pba, id);
        id
    }

    fn drop_id(&mut self, id: EntryId) -> Extent {
        let e = self.entries[id as usize];
        self.by_lba.remove(&e.lba);
        self.by_pba.remove(&e.pba);
        self.free_ids.push(id);
        e
    }

    /// Maps `len` blocks from `lba` to slots from `pba` (uncached blocks, free slots, in one
    /// user zone and one cache zone), merging with an entry it continues on either side (on its
    /// right only if `join_following`: in a log the entry after the head is the oldest, at the
    /// tail, and one entry cannot be both).
    pub fn insert(&mut self, lba: u64, pba: u32, len: u32, join_following: bool) -> Inserted {
        debug_assert!(len > 0 && self.same_user(lba, lba + len as u64 - 1) && self.same_cache_zone(pba, pba + len - 1));
        self.add_blocks(lba, len as u64);
        let continues = |map: &Self, left: Extent, right: Extent| {
            left.lba_end() == right.lba
                && left.pba_end() == right.pba
                && map.same_user(left.lba, right.lba)
                && map.same_cache_zone(left.pba, right.pba)
        };
        let new = Extent { lba, pba, len };
        let left = self
            .by_lba
            .range(..lba)
            .next_back()
            .map(|(_, &id)| id)
            .filter(|&id| continues(self, self.entries[id as usize], new));
        let right = self
            .by_lba
            .get(&(lba + len as u64))
            .copied()
            .filter(|&id| join_following && continues(self, new, self.entries[id as usize]));
        match (left, right) {
            (Some(l), right) => {
                self.entries[l as usize].len += len;
                if let Some(r) = right {
                    let gone = self.drop_id(r);
                    self.entries[l as usize].len += gone.len;
                }
                Inserted { id: l, new: false, absorbed: right }
            }
            (None, Some(r)) => {
                // The right neighbour grows to the left: its keys change.
                let old = self.drop_id(r);
                let id = self.new_id(Extent { lba, pba, len: len + old.len });
                debug_assert_eq!(id, r, "the number just given back is taken again");
                Inserted { id, new: false, absorbed: None }
            }
            (None, None) => Inserted { id: self.new_id(new), new: true, absorbed: None },
        }
    }

    /// Takes entry `id` out of the table; returns what it mapped.
    pub fn remove(&mut self, id: EntryId) -> Extent {
        let e = self.drop_id(id);
        self.sub_blocks(e.lba, e.len as u64);
        e
    }

    /// Takes blocks `first..end` out of the table: entries inside go, entries across an end are
    /// trimmed, an entry across both is split. The freed slot runs go to `freed`, the entries
    /// gone or split to `cuts`.
    pub fn cut(&mut self, first: u64, end: u64, freed: &mut Vec<(u32, u32)>, cuts: &mut Vec<Cut>) {
        let ids: Vec<EntryId> = self.overlapping(first, end).collect();
        for id in ids {
            let e = self.entries[id as usize];
            let (lo, hi) = (e.lba.max(first), e.lba_end().min(end));
            let skip = (lo - e.lba) as u32;
            let n = (hi - lo) as u32;
            freed.push((e.pba + skip, n));
            self.sub_blocks(lo, n as u64);
            let keep_left = skip;
            let keep_right = e.len - skip - n;
            match (keep_left > 0, keep_right > 0) {
                (false, false) => {
                    self.drop_id(id);
                    cuts.push(Cut::Removed(id));
                }
                (true, false) => self.entries[id as usize].len = keep_left,
                (false, true) => {
                    self.drop_id(id);
                    let moved = self.new_id(Extent { lba: hi, pba: e.pba + skip + n, len: keep_right });
                    debug_assert_eq!(moved, id);
                }
                (true, true) => {
                    self.entries[id as usize].len = keep_left;
                    let right = self.new_id(Extent { lba: hi, pba: e.pba + skip + n, len: keep_right });
                    cuts.push(Cut::Split { left: id, right });
                }
            }
        }
    }

    /// Moves entry `id`'s blocks to the slot runs `runs` (free, as many slots in all as the
    /// entry has, each in one cache zone): the entry keeps its number for the first run, the
    /// others become new entries, returned in order. No merging: a moved entry keeps its place.
    pub fn relocate(&mut self, id: EntryId, runs: &[(u32, u32)], moved: &mut Vec<EntryId>) {
        let e = self.drop_id(id);
        debug_assert_eq!(runs.iter().map(|r| r.1).sum::<u32>(), e.len);
        let mut lba = e.lba;
        moved.clear();
        for &(pba, len) in runs {
            moved.push(self.new_id(Extent { lba, pba, len }));
            lba += len as u64;
        }
        debug_assert_eq!(moved.first(), Some(&id));
    }
}

#[cfg(test)]
impl ExtentMap {
    /// The table's invariants, for tests: entries apart in lba and in pba, each in one user zone
    /// and one cache zone and below `slots`, the occupancies and the block count their sums.
    pub fn check(&self, slots: u64) -> Result<(), String> {
        let live: Vec<Extent> = self.by_lba.values().map(|&id| self.entries[id as usize]).collect();
        for pair in live.windows(2) {
            if pair[0].lba_end() > pair[1].lba {
                return Err(format!("entries overlap in lba: {pair:?}"));
            }
        }
        let mut by_pba = live.clone();
        by_pba.sort_by_key(|e| e.pba);
        for pair in by_pba.windows(2) {
            if pair[0].pba_end() > pair[1].pba {
                return Err(format!("entries overlap in pba: {pair:?}"));
            }
        }
        let mut occupancy = vec![0u64; self.occupancy.len()];
        for e in &live {
            if e.len == 0
                || !self.same_user(e.lba, e.lba_end() - 1)
                || !self.same_cache_zone(e.pba, e.pba_end() - 1)
                || e.pba_end() as u64 > slots
            {
                return Err(format!("entry {e:?} is empty, crosses a zone or lies past slot {slots}"));
            }
            occupancy[(e.lba / self.blocks_per_zone) as usize] += e.len as u64;
        }
        if occupancy != self.occupancy
            || self.cached != occupancy.iter().sum::<u64>()
            || self.by_pba.len() != self.by_lba.len()
        {
            return Err("occupancies, block count or pba index out of step with the entries".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn extents(m: &ExtentMap) -> Vec<(u64, u32, u32)> {
        m.by_lba.values().map(|&id| m.get(id)).map(|e| (e.lba, e.pba, e.len)).collect()
    }

    #[test]
    fn entries_merge_when_they_continue_each_other_in_lba_and_pba() {
        let mut m = ExtentMap::new(16);
        let a = m.insert(10, 0, 2, true);
        assert!(a.new);
        let b = m.insert(12, 2, 3, true);
        assert_eq!((b.id, b.new), (a.id, false), "continues in both: one entry");
        m.insert(20, 5, 1, true);
        let c = m.insert(16, 9, 2, true);
        assert!(c.new, "lba 16 is another user zone (16 blocks a zone): no merge across zones");
        assert_eq!(extents(&m), [(10, 0, 5), (16, 9, 2), (20, 5, 1)]);
        // A run of slots 16.. is another cache zone: no merge across it either.
        m.insert(18, 11, 2, true);
        assert_eq!(m.len(), 3, "18 continues 16..18 at slot 11");
        let mut n = ExtentMap::new(16);
        n.insert(4, 14, 2, true);
        assert!(n.insert(6, 16, 1, true).new, "slot 16 starts the next cache zone");
        // Filling a hole joins both sides.
        let mut h = ExtentMap::new(64);
        let l = h.insert(0, 0, 2, true);
        h.insert(3, 3, 2, true);
        let mid = h.insert(2, 2, 1, true);
        assert_eq!((mid.id, mid.absorbed.is_some(), h.len()), (l.id, true, 1));
        assert_eq!((h.cached(), h.occupancy(0)), (5, 5));
        // Not joining the entry that follows (a log's head): the left side only.
        let mut g = ExtentMap::new(64);
        let l = g.insert(0, 0, 2, true);
        g.insert(3, 3, 2, true);
        let mid = g.insert(2, 2, 1, false);
        assert_eq!((mid.id, mid.absorbed, g.len(), g.get(l.id).len), (l.id, None, 2, 3));
    }

    #[test]
    fn lookups_find_overlaps_and_gaps() {
        let mut m = ExtentMap::new(100);
        m.insert(10, 0, 5, true);
        m.insert(20, 40, 5, true);
        let mut gaps = Vec::new();
        m.gaps(12, 30, &mut gaps);
        assert_eq!(gaps, [(15, 5), (25, 5)]);
        assert_eq!(m.overlapping(12, 22).count(), 2);
        assert_eq!(m.overlapping(15, 20).count(), 0);
        assert_eq!(m.holding(24).map(|id| m.get(id).pba), Some(40));
        assert_eq!(m.next_by_pba(1).map(|(p, _)| p), Some(40));
        assert_eq!(m.next_by_pba(41).map(|(p, _)| p), Some(0), "wraps");
    }

    #[test]
    fn cutting_trims_and_splits() {
        let mut m = ExtentMap::new(100);
        let a = m.insert(10, 0, 10, true).id;
        let (mut freed, mut cuts) = (Vec::new(), Vec::new());
        m.cut(13, 15, &mut freed, &mut cuts);
        let right = match cuts[..] {
            [Cut::Split { left, right }] if left == a => right,
            _ => panic!("{cuts:?}"),
        };
        assert_eq!(
            (freed.as_slice(), m.get(a), m.get(right)),
            (&[(3, 2)][..], Extent { lba: 10, pba: 0, len: 3 }, Extent { lba: 15, pba: 5, len: 5 })
        );
        freed.clear();
        cuts.clear();
        m.cut(0, 11, &mut freed, &mut cuts);
        assert_eq!((freed.as_slice(), m.get(a)), (&[(0, 1)][..], Extent { lba: 11, pba: 1, len: 2 }));
        m.cut(0, 100, &mut freed, &mut cuts);
        assert!(m.is_empty() && m.cached() == 0);
    }

    #[test]
    fn relocation_keeps_the_first_number() {
        let mut m = ExtentMap::new(100);
        let a = m.insert(10, 0, 4, true).id;
        let mut moved = Vec::new();
        m.relocate(a, &[(50, 1), (60, 3)], &mut moved);
        assert_eq!(moved[0], a);
        assert_eq!(extents(&m), [(10, 50, 1), (11, 60, 3)]);
        assert_eq!(m.cached(), 4);
    }
}
