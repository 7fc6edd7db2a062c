//! Unsorted first-level units (§5.2-5.3): a band of the disk, or of the NVRAM device, holding
//! write batches as they arrived, log-framed, with no sorted table written after them (no
//! double write). An in-memory index maps each key to the newest version the unit holds (its
//! record's offset, the entry within the batch), and is built as records are appended, or at
//! recovery by walking the frames. A read of one key reads its record (a random read); a
//! compaction reads the whole unit at once and walks the index in key order.

use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use crate::batch::WriteBatch;
use crate::env::{Env, Stats};
use crate::error::Result;
use crate::key::{self, Found, Kind};
use crate::log::reader::{frame_at, is_padding};
use crate::log::FRAME_HEADER;
use crate::source::{EntryRef, Source};

/// Where a key's newest version in a unit lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slot {
    pub sequence: u64,
    pub kind: Kind,
    /// Offset of the record's frame in the band.
    pub offset: u64,
    /// Bytes of the record's payload.
    pub len: u32,
    /// Which entry of the record's batch.
    pub entry: u32,
}

pub type UnitIndex = BTreeMap<Vec<u8>, Slot>;

/// Adds a record's entries to an index (later versions replace earlier ones).
pub fn index_record(index: &mut UnitIndex, offset: u64, first_sequence: u64, batch: &WriteBatch, payload_len: usize) {
    for (i, (kind, key, _)) in batch.entries().enumerate() {
        index.insert(
            key.to_vec(),
            Slot { sequence: first_sequence + i as u64, kind, offset, len: payload_len as u32, entry: i as u32 },
        );
    }
}

/// A sealed unit: immutable, one of level 0's.
pub struct Unit {
    pub env: Arc<Env>,
    pub band: u64,
    pub on_nvram: bool,
    pub index: UnitIndex,
    /// Bytes of the band written (frames).
    pub bytes: u64,
    pub first_sequence: u64,
    pub last_sequence: u64,
    /// Bytes of keys and values the unit's records carry.
    pub user_bytes: u64,
    obsolete: AtomicBool,
}

impl Unit {
    #[allow(clippy::too_many_arguments)] // a unit's description, field by field
    pub fn new(
        env: Arc<Env>,
        band: u64,
        on_nvram: bool,
        index: UnitIndex,
        bytes: u64,
        first_sequence: u64,
        last_sequence: u64,
        user_bytes: u64,
    ) -> Unit {
        Unit {
            env,
            band,
            on_nvram,
            index,
            bytes,
            first_sequence,
            last_sequence,
            user_bytes,
            obsolete: AtomicBool::new(false),
        }
    }

    /// Rebuilds a unit from its band's frames (recovery); `None` if the band holds no record.
    pub fn recover(env: Arc<Env>, band: u64, on_nvram: bool, filled: u64) -> Result<Option<Unit>> {
        let mut bytes = vec![0u8; filled as usize];
        env.read(band, 0, &mut bytes)?;
        let (mut index, mut at, mut first, mut last, mut user) = (UnitIndex::new(), 0usize, None, 0, 0u64);
        while let Some((payload, end)) = frame_at(&bytes, at) {
            if is_padding(&bytes, at) {
                at = end;
                continue;
            }
            let (seq, batch) = WriteBatch::decode(payload).ok_or_else(|| {
                env.corruption(
                    "unsorted band record",
                    format!("band {band}, byte {at}"),
                    "checksum holds but the write batch is malformed",
                )
            })?;
            index_record(&mut index, at as u64, seq, &batch, payload.len());
            first.get_or_insert(seq);
            last = seq + batch.len() as u64 - 1;
            user += batch.entries().map(|(_, k, v)| (k.len() + v.len()) as u64).sum::<u64>();
            at = end;
        }
        Ok(first.map(|first| Unit::new(env, band, on_nvram, index, at as u64, first, last, user)))
    }

    /// The smallest and largest key the unit holds.
    pub fn key_span(&self) -> Option<(&[u8], &[u8])> {
        Some((self.index.keys().next()?.as_slice(), self.index.keys().next_back()?.as_slice()))
    }

    /// The unit's newest version of `key`, read from its band.
    pub fn get(&self, key: &[u8]) -> Result<Option<Found>> {
        let Some(slot) = self.index.get(key) else { return Ok(None) };
        if slot.kind == Kind::Deletion {
            return Ok(Some(Found::Deleted));
        }
        let mut frame = vec![0u8; FRAME_HEADER as usize + slot.len as usize];
        self.env.read(self.band, slot.offset, &mut frame)?;
        Stats::add(&self.env.stats.read_bytes, frame.len() as u64);
        Ok(Some(Found::Value(self.entry_value(&frame, 0, slot)?)))
    }

    /// The value of `slot`'s entry from the frame starting at `at` in `bytes`.
    fn entry_value(&self, bytes: &[u8], at: usize, slot: &Slot) -> Result<Vec<u8>> {
        let damaged = || {
            self.env.corruption(
                "unsorted band record",
                format!(
                    "band {}{}, byte {}",
                    self.band,
                    if self.on_nvram { " of the NVRAM device" } else { "" },
                    slot.offset
                ),
                "checksum mismatch or malformed batch",
            )
        };
        let (payload, _) = frame_at(bytes, at).ok_or_else(damaged)?;
        let (_, batch) = WriteBatch::decode(payload).ok_or_else(damaged)?;
        let value = batch.entries().nth(slot.entry as usize).map(|(_, _, v)| v.to_vec());
        value.ok_or_else(damaged)
    }

    /// Marks the unit as dropped from the store: its band is given back once no reader holds it.
    pub fn mark_obsolete(&self) {
        self.obsolete.store(true, Ordering::Release);
    }
}

impl Drop for Unit {
    fn drop(&mut self) {
        if self.obsolete.load(Ordering::Acquire) {
            self.env.retire(self.band);
        }
    }
}

/// A unit's entries in key order (one version per key: the unit's newest), as a merge source.
/// Reads records one by one (a scan: random reads), or the whole band at once (a compaction).
pub struct UnitSource {
    unit: Arc<Unit>,
    whole: Option<Vec<u8>>,
    current: Option<(Vec<u8>, u64, Vec<u8>)>,
}

impl UnitSource {
    /// Positioned at the first key at or after `start`; `whole`: read the band in one go, its
    /// bytes counted as compaction reads.
    pub fn new(unit: Arc<Unit>, start: &[u8], whole: bool) -> Result<UnitSource> {
        let whole = if whole {
            let mut bytes = vec![0u8; unit.bytes as usize];
            unit.env.read(unit.band, 0, &mut bytes)?;
            Stats::add(&unit.env.stats.compaction_bytes_read, unit.bytes);
            Some(bytes)
        } else {
            None
        };
        let mut s = UnitSource { unit, whole, current: None };
        s.load(Bound::Included(start))?;
        Ok(s)
    }

    fn load(&mut self, from: Bound<&[u8]>) -> Result<()> {
        let unit = self.unit.clone();
        let next = unit.index.range::<[u8], _>((from, Bound::Unbounded)).next();
        self.current = match next {
            None => None,
            Some((k, slot)) => {
                let value = match (slot.kind, &self.whole) {
                    (Kind::Deletion, _) => Vec::new(),
                    (Kind::Value, Some(bytes)) => unit.entry_value(bytes, slot.offset as usize, slot)?,
                    (Kind::Value, None) => match unit.get(k)? {
                        Some(Found::Value(v)) => v,
                        _ => Vec::new(),
                    },
                };
                Some((k.clone(), key::tag(slot.sequence, slot.kind), value))
            }
        };
        Ok(())
    }
}

impl Source for UnitSource {
    fn current(&self) -> Option<EntryRef<'_>> {
        self.current.as_ref().map(|(k, t, v)| EntryRef { key: k, tag: *t, value: v })
    }

    fn advance(&mut self) -> Result<()> {
        if let Some((k, _, _)) = self.current.take() {
            self.load(Bound::Excluded(&k))?;
        }
        Ok(())
    }
}
