//! `pore`: Partially Open Region for Eviction (PORE paper, §IV) over a base recency order (LRU
//! by default, or FIFO: `base=fifo`).
//!
//! The address space is cut into fixed zones (default 20 MB). Clean blocks are always
//! evictable; a dirty block only if its zone is open. The victim is the least recently used
//! evictable block in the base order, found without scanning the cache: clean blocks are kept in
//! one recency list and each zone's dirty blocks in a list of their own, every block carries the
//! tick of its last use (its insertion under FIFO), and a min-heap over the open zones' least
//! recent ticks gives the oldest open-zone block; the victim is the older of that and the least
//! recent clean block. Opening and closing zones is then a flag and a heap rebuild over the open
//! zones, never a pass over the cached blocks. At the first eviction after the cache fills, and
//! again at the first eviction after `period` new dirty blocks have entered the cache, the zones
//! holding dirty blocks are sorted by the scheme and opened in that order until their dirty
//! blocks reach the period length (§IV-C1):
//!   CF — coverage rate (dirty cached bytes / zone size) descending;
//!   PF — average access count per cached block, ascending;
//!   BL — that average divided by the coverage rate, ascending.
//! A block's access count is one for being cached plus its accesses (hits and its insertion)
//! in the last period, so the average is at least 1. Counting presence matters for BL: with
//! last-period accesses alone, every zone untouched in the last period scores 0 whatever its
//! coverage, and BL would open sparse cold zones before dense ones, against its principle
//! (Fig. 10: cold and high coverage first); the authors' prototype likewise starts a block's
//! count at its entry into the cache. Ties keep zone order (deterministic). PF, which ignores
//! coverage, opens more zones for the same period, so its victims are closer to plain LRU's. If
//! nothing is evictable, the next zones in the last sort order are opened one by one (the
//! paper's prototype stalls there).
//!
//! Choices where the paper is silent: a "dirty block written into the cache" is a block that
//! becomes dirty in the cache (a write miss or a write to a clean cached block), not every
//! overwrite, since only those will need evicting; an access is any hit or insertion.
//!
//! Its parameters (`PARAMS`: base order, scheme, zone size, period) are declared and read here
//! (`Settings`), for any cache that offers PORE (`cache/`, with the defaults of §V-C).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use strength_reduce::StrengthReducedU64;

use smr_core::prefetch::prefetch;
use smr_core::quote;

use super::recency::Order;
use super::{Policy, PolicySetup, VictimHints};
use crate::disk::check_table;
use crate::geometry::Scale;
use crate::lists::ListSet;
use crate::metrics::{Counters, Gauges, Metric, Ratio, Unit};
use crate::{BuildContext, Kind, ParamSpec, SimError};

pub const BASE: ParamSpec =
    ParamSpec::new("base", Kind::Choice(&["lru", "fifo"]), "lru", "PORE's base order among evictable blocks");
pub const SCHEME: ParamSpec = ParamSpec::new(
    "scheme",
    Kind::Choice(&["cf", "pf", "bl"]),
    "bl",
    "PORE open-zone selection: cf (coverage first), pf (popularity first), bl (balanced)",
);
pub const ZONE: ParamSpec =
    ParamSpec::new("zone", Kind::Size, "20MB", "PORE zone size (scaled by geometry_scale, which a cache declares)");
pub const PERIOD: ParamSpec = ParamSpec::new(
    "period",
    Kind::Custom { unit: "auto, a number of cache blocks, or a multiple of the SMR write buffer (0.5x)" },
    "auto",
    "PORE period: new dirty blocks per region division; auto = 1x the write buffer of the SMR disk below",
);

/// PORE's parameters, for a cache that offers it to declare.
pub const PARAMS: &[ParamSpec] = &[BASE, SCHEME, ZONE, PERIOD];

/// PORE's parameters as read, before the cache's size and the disk below are known.
pub struct Settings {
    base: Order,
    scheme: Scheme,
    zone_bytes: u64,
    period: String,
}

impl Settings {
    /// Reads `PARAMS` (an error names the parameter whose value is bad).
    pub fn read(b: &mut BuildContext<'_>) -> Result<Self, SimError> {
        let base = Order::from_name(b.params.choice(&BASE)?).expect("listed order");
        let scheme = Scheme::from_name(b.params.choice(&SCHEME)?).expect("listed scheme");
        let zone_bytes = Scale::read(&mut b.params, b.footprint.requests)?.size(&mut b.params, &ZONE)?;
        let period = b.params.text(&PERIOD)?;
        Ok(Settings { base, scheme, zone_bytes, period })
    }

    /// PORE over `slots` cache blocks of `block` bytes, above a disk whose write buffer holds
    /// `buffer_blocks` of them (None: no shingled disk below).
    pub fn build(
        self,
        b: &BuildContext<'_>,
        slots: usize,
        block: u64,
        buffer_blocks: Option<u64>,
    ) -> Result<Pore, SimError> {
        let period = period_blocks(&self.period, buffer_blocks).map_err(|m| b.params.error(&PERIOD, m))?;
        if self.zone_bytes < block {
            return Err(b
                .params
                .error(&ZONE, format!("{} bytes is less than one cache block ({block} bytes)", self.zone_bytes))
                .into());
        }
        let zone_blocks = self.zone_bytes / block;
        let zones = b.footprint.max_end / block / zone_blocks + 1;
        check_table(b, &ZONE, zones, "PORE zones", b.footprint.max_end)?;
        Ok(Pore::new(slots, self.scheme, self.base, zone_blocks, zones as usize, period))
    }
}

/// PORE over the setup's cache, its parameters read from `PARAMS`; its period's default is
/// the write buffer of the shingled disk below.
pub fn build(setup: &mut PolicySetup<'_, '_>) -> Result<Pore, SimError> {
    let g = &setup.geometry;
    let (slots, block) = (g.slots, g.block_bytes);
    let buffer_blocks = g.write_buffer_bytes.map(|bytes| bytes / block);
    Settings::read(setup.b)?.build(setup.b, slots, block, buffer_blocks)
}

/// PORE's period in cache blocks from its text: `auto` (the write buffer below), a block count,
/// or a multiple of the write buffer (`0.5x`, rounded half to even).
fn period_blocks(text: &str, buffer_blocks: Option<u64>) -> Result<u64, String> {
    let buffer = || {
        buffer_blocks.ok_or_else(|| {
            format!("{} needs a shingled disk with a write buffer below; give a number of blocks", quote(text))
        })
    };
    if text == "auto" {
        return buffer();
    }
    if let Some(multiple) = text.strip_suffix('x') {
        return match multiple.trim().parse::<f64>() {
            Ok(m) if m > 0.0 && m.is_finite() => Ok(((m * buffer()? as f64).round_ties_even() as u64).max(1)),
            _ => Err(format!("{} is not a positive multiple of the write buffer", quote(text))),
        };
    }
    text.parse::<u64>()
        .ok()
        .filter(|&p| p > 0)
        .ok_or_else(|| format!("{} is not a positive number of blocks, a multiple (0.5x) or auto", quote(text)))
}

/// How zones are ranked for opening.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    CoverageFirst,
    PopularityFirst,
    Balanced,
}

impl Scheme {
    pub fn from_name(name: &str) -> Option<Self> {
        match name {
            "cf" => Some(Scheme::CoverageFirst),
            "pf" => Some(Scheme::PopularityFirst),
            "bl" => Some(Scheme::Balanced),
            _ => None,
        }
    }
}

pub static PERIODS: Metric = Metric::new("pore_periods", Unit::Count, "PORE region divisions (one per period)");
pub static OPEN_ZONES_TOTAL: Metric =
    Metric::new("pore_open_zones_total", Unit::Count, "zones opened by region divisions, summed over divisions");
pub static FORCED_OPENINGS: Metric =
    Metric::new("pore_forced_openings", Unit::Count, "zones opened one by one because nothing was evictable");
pub static AVG_OPEN_ZONES: Ratio = Ratio::new(
    Metric::new("pore_avg_open_zones", Unit::Ratio, "PORE: average number of open zones per region division"),
    &OPEN_ZONES_TOTAL,
    &PERIODS,
);
pub static ZONE_BLOCKS: Metric = Metric::new("pore_zone_blocks", Unit::Blocks, "PORE zone size, in cache blocks");
pub static PERIOD_BLOCKS: Metric =
    Metric::new("pore_period_blocks", Unit::Blocks, "PORE period, in new dirty cache blocks");

const DIRTY: u32 = 1 << 31;
/// The list of clean blocks (zone `z`'s dirty blocks are list `z + 1`).
const CLEAN: usize = 0;

#[derive(Clone, Copy, Debug, Default)]
struct SlotState {
    /// The tick of the slot's last use (LRU) or of its insertion (FIFO).
    tick: u64,
    /// Its block's zone, with `DIRTY` set while the block is dirty.
    zone: u32,
}

#[derive(Clone, Copy, Debug, Default)]
struct ZoneStat {
    cached: u32,
    dirty: u32,
    accesses: u32,
    open: bool,
}

pub struct Pore {
    scheme: Scheme,
    base: Order,
    /// List `CLEAN` holds the clean blocks, list `z + 1` the dirty blocks of zone `z`.
    lists: ListSet,
    /// Per slot: its tick and zone, side by side so an access to a slot touches one cache line
    /// for both (16 bytes a slot).
    slots: Vec<SlotState>,
    clock: u64,
    /// (tick, zone) for open zones, each at most its zone's least recent tick (stale entries
    /// are refreshed when they reach the top).
    open_heap: BinaryHeap<Reverse<(u64, u32)>>,
    cached: usize,
    zones: Vec<ZoneStat>,
    /// Blocks per zone, as a divisor by multiplication (every access finds its block's zone).
    blocks_per_zone: StrengthReducedU64,
    period: u64,
    new_dirty: u64,
    divided: bool,
    /// Zones in the last sort order, and how many of them are open.
    order: Vec<u32>,
    opened: usize,
    periods: u64,
    open_zone_total: u64,
    forced_openings: u64,
}

impl Pore {
    /// `zone_blocks` blocks per zone, `zones` zones over the address space, `period` in blocks.
    pub fn new(slots: usize, scheme: Scheme, base: Order, zone_blocks: u64, zones: usize, period: u64) -> Self {
        Pore {
            scheme,
            base,
            lists: ListSet::new(slots, zones + 1),
            slots: vec![SlotState::default(); slots],
            clock: 0,
            open_heap: BinaryHeap::new(),
            cached: 0,
            zones: vec![ZoneStat::default(); zones],
            blocks_per_zone: StrengthReducedU64::new(zone_blocks.max(1)),
            period: period.max(1),
            new_dirty: 0,
            divided: false,
            order: Vec::new(),
            opened: 0,
            periods: 0,
            open_zone_total: 0,
            forced_openings: 0,
        }
    }

    fn zone(&self, block: u64) -> usize {
        (block / self.blocks_per_zone) as usize
    }

    /// The zone of the block in `slot`, as its insertion recorded it (no division; the hit and
    /// the removal read the slot's state anyway).
    fn zone_of(&self, slot: u32) -> usize {
        (self.slots[slot as usize].zone & !DIRTY) as usize
    }

    /// The list a slot with zone tag `tag` belongs in.
    fn list_of(tag: u32) -> usize {
        if tag & DIRTY == 0 {
            CLEAN
        } else {
            (tag & !DIRTY) as usize + 1
        }
    }

    fn next_tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// Offers zone `z`'s least recent dirty block to the heap, if the zone is open.
    fn offer(&mut self, z: usize) {
        if self.zones[z].open {
            if let Some(tail) = self.lists.back(z + 1) {
                self.open_heap.push(Reverse((self.slots[tail as usize].tick, z as u32)));
            }
        }
    }

    /// Puts dirty `slot` of zone `z` into the zone's list where its tick belongs (FIFO keeps a
    /// block's insertion tick when a write hit dirties it, so it may be older than others).
    fn insert_dirty_in_order(&mut self, z: usize, slot: u32) {
        let list = z + 1;
        let t = self.slots[slot as usize].tick;
        let tick_of = |s: Option<u32>| s.map(|s| self.slots[s as usize].tick);
        if tick_of(self.lists.front(list)).is_none_or(|newest| newest < t) {
            // Empty, or newer than all (always so under LRU, whose hit renewed the tick).
            self.lists.push_front(list, slot);
        } else if tick_of(self.lists.back(list)).is_some_and(|oldest| oldest > t) {
            self.lists.push_back(list, slot);
        } else {
            // Between two entries: walk from the least recent to the first newer one.
            let mut newer = self.lists.back(list).expect("the list is not empty");
            while self.slots[newer as usize].tick < t {
                newer = self.lists.more_recent(newer).expect("the front is newer than t");
            }
            self.lists.insert_after(list, newer, slot);
        }
        if self.lists.back(list) == Some(slot) {
            self.offer(z);
        }
    }

    /// The least recent evictable block: the older of the least recent clean block and the
    /// least recent block of any open zone.
    fn oldest_evictable(&mut self) -> Option<u32> {
        let open_oldest = loop {
            let Some(&Reverse((t, z))) = self.open_heap.peek() else { break None };
            let z = z as usize;
            match self.lists.back(z + 1) {
                Some(tail) if self.zones[z].open && self.slots[tail as usize].tick == t => break Some(tail),
                // A stale entry of an open zone: replaced in place by the zone's least recent
                // tick, which is what popping it and offering the zone again would push (one
                // sift instead of two; entries never tie, so the order of pops is the same).
                Some(tail) if self.zones[z].open => {
                    let fresh = Reverse((self.slots[tail as usize].tick, z as u32));
                    *self.open_heap.peek_mut().expect("the heap has a top") = fresh;
                }
                _ => {
                    self.open_heap.pop();
                }
            }
        };
        match (self.lists.back(CLEAN), open_oldest) {
            (Some(c), Some(d)) => Some(if self.slots[c as usize].tick < self.slots[d as usize].tick { c } else { d }),
            (c, d) => c.or(d),
        }
    }

    /// The region division of §IV-C1.
    fn divide(&mut self) {
        let coverage = |z: &ZoneStat| z.dirty as f64 / self.blocks_per_zone.get() as f64;
        let popularity = |z: &ZoneStat| 1.0 + z.accesses as f64 / z.cached.max(1) as f64;
        let key = |s: &ZoneStat| match self.scheme {
            Scheme::CoverageFirst => -coverage(s),
            Scheme::PopularityFirst => popularity(s),
            Scheme::Balanced => popularity(s) / coverage(s),
        };
        // Each zone's key computed once, not at every comparison (two divisions each); zone
        // numbers are unique, so the order is total and an unstable sort gives the same one.
        let dirty_zones = self.zones.iter().zip(0u32..).filter(|(s, _)| s.dirty > 0);
        let mut keyed: Vec<(f64, u32)> = dirty_zones.map(|(s, z)| (key(s), z)).collect();
        keyed.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        let order: Vec<u32> = keyed.into_iter().map(|(_, z)| z).collect();
        for z in &mut self.zones {
            z.open = false;
            z.accesses = 0;
        }
        let mut supplied = 0u64;
        self.opened = 0;
        for &z in &order {
            if supplied >= self.period {
                break;
            }
            self.zones[z as usize].open = true;
            supplied += self.zones[z as usize].dirty as u64;
            self.opened += 1;
        }
        self.order = order;
        self.periods += 1;
        self.open_zone_total += self.opened as u64;
        self.new_dirty = 0;
        self.divided = true;
        self.open_heap.clear();
        for z in 0..self.zones.len() {
            self.offer(z);
        }
    }

    /// Opens the next zone in sort order; false when every zone with dirty blocks is open.
    fn open_next_zone(&mut self) -> bool {
        let Some(&z) = self.order.get(self.opened) else { return false };
        self.zones[z as usize].open = true;
        self.opened += 1;
        self.forced_openings += 1;
        self.offer(z as usize);
        true
    }
}

impl Policy for Pore {
    #[inline]
    fn inserted(&mut self, slot: u32, block: u64, dirty: bool) {
        let (s, z) = (slot as usize, self.zone(block));
        self.slots[s].zone = z as u32 | if dirty { DIRTY } else { 0 };
        self.slots[s].tick = self.next_tick();
        self.cached += 1;
        let zone = &mut self.zones[z];
        zone.cached += 1;
        zone.accesses += 1;
        if dirty {
            zone.dirty += 1;
            self.new_dirty += 1;
        }
        let list = Self::list_of(self.slots[s].zone);
        let was_empty = self.lists.is_empty(list);
        self.lists.push_front(list, slot);
        if dirty && was_empty {
            self.offer(z);
        }
    }

    #[inline]
    fn hit(&mut self, slot: u32, _block: u64, became_dirty: bool) {
        let (s, z) = (slot as usize, self.zone_of(slot));
        self.zones[z].accesses += 1;
        if self.base == Order::Lru {
            self.slots[s].tick = self.next_tick();
        }
        if became_dirty {
            self.lists.remove(CLEAN, slot);
            self.slots[s].zone |= DIRTY;
            self.zones[z].dirty += 1;
            self.new_dirty += 1;
            self.insert_dirty_in_order(z, slot);
        } else if self.base == Order::Lru {
            // The zone's least recent block may move to the front: its heap entry becomes an
            // underestimate, which `oldest_evictable` refreshes.
            self.lists.move_to_front(Self::list_of(self.slots[s].zone), slot);
        }
    }

    #[inline]
    fn prefetch_hit(&self, slot: u32) {
        if let Some(state) = self.slots.get(slot as usize) {
            prefetch(state);
        }
        self.lists.prefetch(slot);
    }

    #[inline]
    fn removed(&mut self, slot: u32, _block: u64, was_dirty: bool) {
        let z = self.zone_of(slot);
        self.zones[z].cached -= 1;
        if was_dirty {
            self.zones[z].dirty -= 1;
        }
        self.lists.remove(Self::list_of(self.slots[slot as usize].zone), slot);
        self.slots[slot as usize].zone &= !DIRTY;
        self.cached -= 1;
    }

    fn victims(&mut self, _blocks: &[u64], out: &mut Vec<u32>) {
        if !self.divided || self.new_dirty >= self.period {
            self.divide();
        }
        // Nothing evictable: open the next zones in sort order; past the end of that order
        // (zones that became dirty since), divide again — that always opens a dirty zone.
        loop {
            if let Some(victim) = self.oldest_evictable() {
                out.push(victim);
                return;
            }
            if self.cached == 0 {
                return;
            }
            if !self.open_next_zone() {
                self.divide();
            }
        }
    }

    #[inline]
    fn next_victim_hints(&self) -> VictimHints {
        let clean = self.lists.back(CLEAN);
        let open = self.open_heap.peek().and_then(|&Reverse((_, z))| self.lists.back(z as usize + 1));
        // Both ticks are compared at the next eviction: load them now.
        for slot in [clean, open].into_iter().flatten() {
            prefetch(&self.slots[slot as usize]);
        }
        VictimHints::new(clean, open)
    }

    fn counters(&self, out: &mut Counters) {
        out.add(&PERIODS, self.periods);
        out.add(&OPEN_ZONES_TOTAL, self.open_zone_total);
        out.add(&FORCED_OPENINGS, self.forced_openings);
        out.declare(&AVG_OPEN_ZONES);
    }

    fn gauges(&self, out: &mut Gauges) {
        out.set(&ZONE_BLOCKS, self.blocks_per_zone.get() as f64);
        out.set(&PERIOD_BLOCKS, self.period as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Drives PORE through random cache events and checks every victim against a plain scan
    /// for the least recent evictable block (the definition the lists and heap implement).
    fn victims_match_a_scan(ops: &[(u64, bool)], base: Order, scheme: Scheme) -> Result<(), TestCaseError> {
        const SLOTS: usize = 12;
        let mut pore = Pore::new(SLOTS, scheme, base, 8, 4, 3);
        // Model: cached (block, slot, dirty), most recent first.
        let mut order: Vec<(u64, u32, bool)> = Vec::new();
        for &(block, write) in ops {
            if let Some(i) = order.iter().position(|e| e.0 == block) {
                let (b, slot, dirty) = order[i];
                pore.hit(slot, b, write && !dirty);
                let entry = (b, slot, dirty || write);
                if base == Order::Lru {
                    order.remove(i);
                    order.insert(0, entry);
                } else {
                    order[i] = entry;
                }
                continue;
            }
            let slot = if order.len() == SLOTS {
                let mut out = Vec::new();
                pore.victims(&[], &mut out);
                let expected = order.iter().rev().find(|e| !e.2 || pore.zones[pore.zone(e.0)].open).map(|e| e.1);
                prop_assert_eq!(out.first().copied(), expected);
                let i = order.iter().position(|e| e.1 == out[0]).unwrap();
                let (b, slot, dirty) = order.remove(i);
                pore.removed(slot, b, dirty);
                slot
            } else {
                (0..SLOTS as u32).find(|s| order.iter().all(|e| e.1 != *s)).unwrap()
            };
            pore.inserted(slot, block, write);
            order.insert(0, (block, slot, write));
        }
        Ok(())
    }

    /// Zone 1 holds one dirty block untouched in the last period; zone 2 six, one of them hit
    /// once. PF opens the colder zone 1; BL weighs zone 2's six-fold coverage against its
    /// slightly higher popularity (1 + 1/6 accesses a block) and opens zone 2.
    #[test]
    fn bl_opens_a_dense_zone_before_a_sparse_untouched_one() {
        let opened = |scheme| {
            let mut pore = Pore::new(8, scheme, Order::Lru, 8, 4, 1);
            pore.inserted(0, 8, true);
            for (slot, block) in (1..7).zip(16..22) {
                pore.inserted(slot, block, true);
            }
            pore.divide();
            pore.hit(1, 16, false);
            pore.divide();
            (pore.zones[1].open, pore.zones[2].open)
        };
        assert_eq!(opened(Scheme::Balanced), (false, true));
        assert_eq!(opened(Scheme::PopularityFirst), (true, false));
        assert_eq!(opened(Scheme::CoverageFirst), (false, true));
    }

    proptest! {
        #[test]
        fn the_victim_is_the_least_recent_evictable_block(
            ops in proptest::collection::vec((0u64..32, any::<bool>()), 1..400),
            fifo in any::<bool>(),
            scheme in prop_oneof![Just(Scheme::CoverageFirst), Just(Scheme::PopularityFirst), Just(Scheme::Balanced)],
        ) {
            victims_match_a_scan(&ops, if fifo { Order::Fifo } else { Order::Lru }, scheme)?;
        }
    }
}
