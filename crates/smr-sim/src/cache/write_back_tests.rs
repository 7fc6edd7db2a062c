//! What an eviction does when the system below fails to take a dirty victim: every victim stays
//! cached and dirty, nothing is counted as evicted, and once the system below works again the
//! same victims are written and leave. Run for every policy, over a system below whose writes
//! fail while a switch is on.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use smr_core::{Op, Request};
use smr_media::FixedLatencyMedium;

use super::{Frame, Policy, Scheme, SsdCache};
use smr_kernel::metrics::Counters;
use smr_kernel::policy::lru_band::LruBand;
use smr_kernel::policy::pore::Pore;
use smr_kernel::policy::recency::{Order, Recency};
use smr_kernel::{BandLayout, IoCtx, SimError, System};

const BLOCK: u64 = 4096;
/// Cache slots; also LRU-band's band, in blocks, so that a full cache of blocks `0..SLOTS` is
/// one band.
const SLOTS: u64 = 4;

/// A system below the cache that takes every read, and every write while `failing` is off (it
/// records those), and refuses writes while it is on.
struct Flaky {
    failing: Rc<Cell<bool>>,
    written: Rc<RefCell<Vec<(u64, u64)>>>,
}

impl System for Flaky {
    fn submit(&mut self, req: &Request, _ctx: &mut IoCtx) -> Result<(), SimError> {
        if req.op == Op::Write {
            if self.failing.get() {
                return Err(SimError::Device("injected write failure".into()));
            }
            self.written.borrow_mut().push((req.offset, req.len));
        }
        Ok(())
    }

    fn capacity(&self) -> u64 {
        1 << 30
    }

    fn counters(&self, _out: &mut Counters) {}
}

fn write_blocks(
    cache: &mut SsdCache<impl Policy + 'static>,
    first: u64,
    count: u64,
    ctx: &mut IoCtx,
) -> Result<(), SimError> {
    cache.submit(&Request::new(ctx.now(), Op::Write, first * BLOCK, count * BLOCK), ctx)
}

/// Fills the cache with dirty blocks `0..SLOTS`, fails the eviction that block 100's write
/// needs, then lets it succeed; `victims` are the blocks the policy evicts for it, as written
/// below in one run.
fn a_failed_write_back_keeps_its_victims(policy: impl Policy + 'static, victims: std::ops::Range<u64>) {
    let (failing, written) = (Rc::new(Cell::new(false)), Rc::new(RefCell::new(Vec::new())));
    let below = Box::new(Flaky { failing: failing.clone(), written: written.clone() });
    let mut ctx = IoCtx::new();
    let ssd = ctx.add_device("ssd", Box::new(FixedLatencyMedium::ssd(SLOTS * BLOCK)));
    let ssd = ctx.channel(ssd, "ssd");
    let frame = Frame { below, ssd, block: BLOCK, write_only: false, slots: SLOTS as usize };
    let mut cache = SsdCache::new(frame, policy);
    write_blocks(&mut cache, 0, SLOTS, &mut ctx).expect("the cache has room");

    failing.set(true);
    let refused = write_blocks(&mut cache, 100, 1, &mut ctx);
    assert!(matches!(refused, Err(SimError::Device(_))), "the failure reaches the caller: {refused:?}");
    assert!(
        (0..SLOTS).all(|b| cache.index.get(b, &cache.blocks).is_some_and(|slot| cache.is_dirty(slot))),
        "every block is still cached and dirty"
    );
    assert!(cache.index.get(100, &cache.blocks).is_none(), "the block that found no room is not cached");
    assert_eq!((cache.index.len(), cache.slots.available()), (SLOTS as usize, 0), "no slot was freed or lost");
    assert_eq!((cache.totals.evicted_dirty, cache.totals.evicted_clean), (0, 0), "nothing counts as evicted");
    assert!(written.borrow().is_empty());

    failing.set(false);
    write_blocks(&mut cache, 100, 1, &mut ctx).expect("the system below works again");
    assert_eq!(
        *written.borrow(),
        [(victims.start * BLOCK, (victims.end - victims.start) * BLOCK)],
        "the same victims are written once"
    );
    assert!(victims.clone().all(|b| cache.index.get(b, &cache.blocks).is_none()), "and leave the cache");
    assert!(cache.index.get(100, &cache.blocks).is_some_and(|slot| cache.is_dirty(slot)));
    assert_eq!(cache.index.len() + cache.slots.available(), SLOTS as usize, "every slot is cached or free");
    assert_eq!(cache.totals.evicted_dirty, victims.end - victims.start);
}

#[test]
fn lru_and_fifo_keep_the_victim() {
    a_failed_write_back_keeps_its_victims(Recency::new(SLOTS as usize, Order::Lru), 0..1);
    a_failed_write_back_keeps_its_victims(Recency::new(SLOTS as usize, Order::Fifo), 0..1);
}

#[test]
fn pore_keeps_the_victim() {
    // Zones of 8 blocks over 200 blocks; a period of 3 new dirty blocks opens zone 0 (4 dirty).
    a_failed_write_back_keeps_its_victims(Pore::new(SLOTS as usize, Scheme::Balanced, Order::Lru, 8, 26, 3), 0..1);
}

#[test]
fn lru_band_keeps_the_whole_band() {
    let layout = BandLayout::fixed(SLOTS * BLOCK, 1 << 30);
    a_failed_write_back_keeps_its_victims(LruBand::new(SLOTS as usize, layout, BLOCK), 0..SLOTS);
}
