//! `pore`: Partially Open Region for Eviction (PORE paper, §IV) over a base recency order (LRU
//! by default, or FIFO: `base=fifo`).
//!
//! The address space is cut into fixed zones (default 20 MB). Clean blocks are always
//! evictable; a dirty block only if its zone is open. The victim is the least recently used
//! evictable block in the base order, taken from a second list that holds exactly the evictable
//! blocks in that order (so no scan of the cache). At the first eviction after the cache fills, and again at the first
//! eviction after `period` new dirty blocks have entered the cache, the zones holding dirty
//! blocks are sorted by the scheme and opened in that order until their dirty blocks reach the
//! period length (§IV-C1):
//!   CF — coverage rate (dirty cached bytes / zone size) descending;
//!   PF — average access count per cached block in the last period, ascending;
//!   BL — that average divided by the coverage rate, ascending.
//! Ties keep zone order (deterministic), except under BL, where they go to the zone with more
//! dirty blocks first: every zone not accessed in the last period ties at zero, and among those
//! BL's principle (Fig. 10: cold and high coverage first) prefers the denser. PF, which ignores
//! coverage, opens more zones for the same period, so its victims are closer to plain LRU's. If nothing is evictable, the next zones in the last
//! sort order are opened one by one (the paper's prototype stalls there).
//!
//! Choices where the paper is silent: a "dirty block written into the cache" is a block that
//! becomes dirty in the cache (a write miss or a write to a clean cached block), not every
//! overwrite, since only those will need evicting; an access is any hit or insertion.

use smr_core::metrics::Counters;

use super::list::RecencyList;
use super::policy::Policy;
use super::recency::Order;

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

const DIRTY: u32 = 1 << 31;

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
    recency: RecencyList,
    evictable: RecencyList,
    /// Per slot: its block's zone, with `DIRTY` set while the block is dirty (4 bytes a slot).
    slot_zone: Vec<u32>,
    zones: Vec<ZoneStat>,
    blocks_per_zone: u64,
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
            recency: RecencyList::new(slots),
            evictable: RecencyList::new(slots),
            slot_zone: vec![0; slots],
            zones: vec![ZoneStat::default(); zones],
            blocks_per_zone: zone_blocks.max(1),
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

    fn evictable_now(&self, slot: u32) -> bool {
        let tag = self.slot_zone[slot as usize];
        tag & DIRTY == 0 || self.zones[(tag & !DIRTY) as usize].open
    }

    /// The region division of §IV-C1.
    fn divide(&mut self) {
        let coverage = |z: &ZoneStat| z.dirty as f64 / self.blocks_per_zone as f64;
        let popularity = |z: &ZoneStat| z.accesses as f64 / z.cached.max(1) as f64;
        let mut order: Vec<u32> = (0..self.zones.len() as u32).filter(|&z| self.zones[z as usize].dirty > 0).collect();
        let key = |z: &u32| {
            let s = &self.zones[*z as usize];
            match self.scheme {
                Scheme::CoverageFirst => -coverage(s),
                Scheme::PopularityFirst => popularity(s),
                Scheme::Balanced => popularity(s) / coverage(s),
            }
        };
        // BL weighs coverage too, so its ties (all zones not accessed in the last period have
        // key 0) go to the denser zone; CF and PF use one factor only and keep zone order.
        let denser = |a: &u32, b: &u32| match self.scheme {
            Scheme::Balanced => self.zones[*b as usize].dirty.cmp(&self.zones[*a as usize].dirty),
            _ => std::cmp::Ordering::Equal,
        };
        order.sort_by(|a, b| key(a).total_cmp(&key(b)).then_with(|| denser(a, b)).then(a.cmp(b)));
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
        self.rebuild_evictable();
    }

    /// Refills the evictable list in recency order (least recent last).
    fn rebuild_evictable(&mut self) {
        self.evictable.clear();
        let slots: Vec<u32> = self.recency.iter().collect();
        for slot in slots {
            if self.evictable_now(slot) {
                self.evictable.push_back(slot);
            }
        }
    }

    /// Opens the next zone in sort order; false when every zone with dirty blocks is open.
    fn open_next_zone(&mut self) -> bool {
        let Some(&z) = self.order.get(self.opened) else { return false };
        self.zones[z as usize].open = true;
        self.opened += 1;
        self.forced_openings += 1;
        self.rebuild_evictable();
        true
    }
}

impl Policy for Pore {
    fn inserted(&mut self, slot: u32, block: u64, dirty: bool) {
        let (s, z) = (slot as usize, self.zone(block));
        self.slot_zone[s] = z as u32 | if dirty { DIRTY } else { 0 };
        let zone = &mut self.zones[z];
        zone.cached += 1;
        zone.accesses += 1;
        if dirty {
            zone.dirty += 1;
            self.new_dirty += 1;
        }
        self.recency.push_front(slot);
        if self.evictable_now(slot) {
            self.evictable.push_front(slot);
        }
    }

    fn hit(&mut self, slot: u32, block: u64, became_dirty: bool) {
        let z = self.zone(block);
        self.zones[z].accesses += 1;
        if became_dirty {
            self.slot_zone[slot as usize] |= DIRTY;
            self.zones[z].dirty += 1;
            self.new_dirty += 1;
        }
        self.base.touch(&mut self.recency, slot);
        if self.evictable_now(slot) {
            // A hit never makes a block evictable (it cannot clean a block or open a zone).
            debug_assert!(self.evictable.contains(slot));
            self.base.touch(&mut self.evictable, slot);
        } else {
            self.evictable.remove(slot);
        }
    }

    fn removed(&mut self, slot: u32, block: u64, was_dirty: bool) {
        let z = self.zone(block);
        self.zones[z].cached -= 1;
        if was_dirty {
            self.zones[z].dirty -= 1;
        }
        self.slot_zone[slot as usize] &= !DIRTY;
        self.recency.remove(slot);
        self.evictable.remove(slot);
    }

    fn victims(&mut self, out: &mut Vec<u32>) {
        if !self.divided || self.new_dirty >= self.period {
            self.divide();
        }
        // Nothing evictable: open the next zones in sort order; past the end of that order
        // (zones that became dirty since), divide again — that always opens a dirty zone.
        while self.evictable.is_empty() && !self.recency.is_empty() {
            if !self.open_next_zone() {
                self.divide();
            }
        }
        out.extend(self.evictable.back());
    }

    fn counters(&self, out: &mut Counters) {
        out.add("pore_periods", self.periods);
        out.add("pore_open_zones_total", self.open_zone_total);
        out.add("pore_forced_openings", self.forced_openings);
    }

    fn gauges(&self, out: &mut Vec<(String, f64)>) {
        out.push(("pore_zone_blocks".into(), self.blocks_per_zone as f64));
        out.push(("pore_period_blocks".into(), self.period as f64));
    }
}
