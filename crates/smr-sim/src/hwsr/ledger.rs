//! Test bookkeeping of data versions, for the no-data-lost property: the latest version of
//! every block the host wrote, and which version each place holds (the MEM buffer, the SSD,
//! and every disk byte offset a block was written at). The hybrid and the disks report every
//! movement; a read or a rewrite that takes data from a place that does not hold what it
//! should is recorded as a violation. Compiled for tests only.

use std::collections::HashMap;

use super::hybrid::{Base, Source};

#[derive(Clone, Copy, Debug)]
struct Buffered {
    version: u32,
    /// Units written while buffered, and the version before the first of those writes.
    written: u64,
    base: u32,
}

#[derive(Default, Debug)]
pub struct Ledger {
    latest: HashMap<u64, u32>,
    mem: HashMap<u64, Buffered>,
    ssd: HashMap<u64, u32>,
    disk: HashMap<u64, (u64, u32)>,
    /// Blocks that have been written to the disk at least once.
    on_disk: std::collections::HashSet<u64>,
    all: u64,
    pub violations: Vec<String>,
}

impl Ledger {
    pub fn latest(&self) -> impl Iterator<Item = (u64, u32)> + '_ {
        self.latest.iter().map(|(&b, &v)| (b, v))
    }

    /// The host wrote units `written` (of `all`) of `block`, into the MEM buffer (or straight
    /// to the disk, which then lands it as fresh data).
    pub fn host_write(&mut self, block: u64, written: u64, all: u64) {
        self.all = all;
        let latest = self.latest.entry(block).or_insert(0);
        let base = *latest;
        *latest += 1;
        let version = *latest;
        let entry = self.mem.entry(block).or_insert(Buffered { version, written: 0, base });
        entry.version = version;
        entry.written |= written;
    }

    /// The version of `block` at disk byte `offset`. A block never written to an empty S-block
    /// disk has no place; it is read at its first place, which may hold another block.
    fn disk_version(&mut self, offset: u64, block: u64) -> u32 {
        match self.disk.get(&offset) {
            Some(&(b, v)) if b == block => v,
            Some(_) if !self.on_disk.contains(&block) => 0,
            Some(&(b, _)) => {
                self.violations.push(format!("block {block} read at disk byte {offset}, which holds block {b}"));
                u32::MAX
            }
            None => 0,
        }
    }

    fn ssd_version(&mut self, block: u64) -> u32 {
        self.ssd.get(&block).copied().unwrap_or_else(|| {
            self.violations.push(format!("block {block} read from the SSD, which does not hold it"));
            u32::MAX
        })
    }

    fn version_at(&mut self, block: u64, from: Source) -> u32 {
        match from {
            Source::Mem => match self.mem.get(&block) {
                Some(b) if b.written == self.all => b.version,
                _ => {
                    self.violations
                        .push(format!("block {block} taken whole from the MEM buffer, which does not hold it whole"));
                    u32::MAX
                }
            },
            Source::Ssd => self.ssd_version(block),
            Source::Disk(offset) => self.disk_version(offset, block),
            Source::Fresh { base } => {
                let Some(entry) = self.mem.get(&block).copied() else {
                    self.violations.push(format!("block {block} written as fresh data that was never written"));
                    return u32::MAX;
                };
                if entry.written != self.all {
                    let found = match base {
                        Some(Base::Ssd) => self.ssd_version(block),
                        Some(Base::Disk(offset)) => self.disk_version(offset, block),
                        None => 0,
                    };
                    if found != entry.base {
                        self.violations
                            .push(format!("block {block} merged with version {found} instead of {}", entry.base));
                    }
                }
                entry.version
            }
        }
    }

    /// `block`'s copy at disk byte `to` now holds what came from `from`.
    pub fn landed(&mut self, block: u64, from: Source, to: u64) {
        let version = self.version_at(block, from);
        self.disk.insert(to, (block, version));
        self.on_disk.insert(block);
    }

    /// A host read of `block` took it from `from`.
    pub fn read(&mut self, block: u64, from: Source) {
        let expected = match (from, self.mem.get(&block)) {
            (Source::Mem, _) | (_, None) => self.latest.get(&block).copied().unwrap_or(0),
            (_, Some(entry)) => entry.base,
        };
        let found = match from {
            Source::Mem => self.mem.get(&block).map_or(u32::MAX, |b| b.version),
            other => self.version_at(block, other),
        };
        if found != expected {
            self.violations.push(format!("a read of block {block} found version {found} at {from:?}, not {expected}"));
        }
    }

    pub fn filled_ssd(&mut self, block: u64, offset: u64) {
        let version = self.disk_version(offset, block);
        self.ssd.insert(block, version);
    }

    pub fn dropped_mem(&mut self, block: u64) {
        self.mem.remove(&block);
    }

    pub fn dropped_ssd(&mut self, block: u64) {
        self.ssd.remove(&block);
    }

    /// Checks that `block`'s latest version is where `located` says it is.
    pub fn check_latest(&mut self, block: u64, located: Source) {
        let latest = self.latest.get(&block).copied().unwrap_or(0);
        let found = match located {
            Source::Mem => self.mem.get(&block).map_or(u32::MAX, |b| b.version),
            other => self.version_at(block, other),
        };
        if found != latest {
            self.violations.push(format!("block {block}: version {found} at {located:?}, but the latest is {latest}"));
        }
    }
}
