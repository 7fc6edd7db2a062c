//! `lru-band`: when the least recently used block is evicted, every cached block of its SMR band
//! goes with it, so the band is rewritten once for all of them. Uses the exact band layout of the
//! shingled disk below (`System::bands`; the PORE paper's idealised competitor, §V-B).

use rustc_hash::FxHashMap;

use super::{Policy, PolicySetup};
use crate::lists::RecencyList;
use crate::{BandLayout, SimError};

pub struct LruBand {
    recency: RecencyList,
    layout: BandLayout,
    block_bytes: u64,
    /// band → its cached slots; `position[slot]` is the slot's index in its band's list.
    members: FxHashMap<usize, Vec<u32>>,
    position: Vec<u32>,
    blocks: Vec<u64>,
}

impl LruBand {
    pub fn new(slots: usize, layout: BandLayout, block_bytes: u64) -> Self {
        LruBand {
            recency: RecencyList::new(slots),
            layout,
            block_bytes,
            members: FxHashMap::default(),
            position: vec![0; slots],
            blocks: vec![0; slots],
        }
    }

    /// Over the setup's cache, with the band layout of the disk below it.
    pub fn build(setup: &PolicySetup<'_, '_>) -> Result<Self, SimError> {
        let g = &setup.geometry;
        Ok(LruBand::new(g.slots, setup.bands("lru-band")?, g.block_bytes))
    }

    fn band(&self, block: u64) -> usize {
        self.layout.band_of(block * self.block_bytes)
    }
}

impl Policy for LruBand {
    fn inserted(&mut self, slot: u32, block: u64, _dirty: bool) {
        self.recency.push_front(slot);
        self.blocks[slot as usize] = block;
        let list = self.members.entry(self.band(block)).or_default();
        self.position[slot as usize] = list.len() as u32;
        list.push(slot);
    }

    fn hit(&mut self, slot: u32, _block: u64, _became_dirty: bool) {
        self.recency.move_to_front(slot);
    }

    fn removed(&mut self, slot: u32, block: u64, _was_dirty: bool) {
        self.recency.remove(slot);
        let band = self.band(block);
        let Some(list) = self.members.get_mut(&band) else { return };
        let at = self.position[slot as usize] as usize;
        list.swap_remove(at);
        if let Some(&moved) = list.get(at) {
            self.position[moved as usize] = at as u32;
        }
        if list.is_empty() {
            self.members.remove(&band);
        }
    }

    fn victims(&mut self, _blocks: &[u64], out: &mut Vec<u32>) {
        if let Some(lru) = self.recency.back() {
            let band = self.band(self.blocks[lru as usize]);
            out.extend(self.members.get(&band).into_iter().flatten().copied());
        }
    }
}
