//! Which tables make up the store: `Version`, the tables by level as of one metadata record
//! (what the record says of each table: `table::meta`). A version is never changed in place: a
//! flush or compaction builds the next one, so readers holding a version see a consistent set
//! of tables for as long as they hold it.
//!
//! Invariants readers rely on: a table in a shallower level holds newer versions of a key than
//! any table in a deeper level; level 0 tables are in flush order (oldest first), and a newer
//! one holds newer versions of a key than an older one; in LOC, tables of a level >= 1 do not
//! overlap and are sorted by key; in SOC, level 1 tables may overlap, so a get takes the newest
//! version among all level 1 tables that hold the key.

use std::sync::Arc;

use crate::error::Result;
use crate::key::Found;
use crate::table::Table;
use crate::util::bloom;

#[derive(Clone, Default)]
pub struct Version {
    /// Level 0 by age, oldest first; other levels sorted by smallest key (LOC) or by age (SOC).
    pub levels: Vec<Vec<Arc<Table>>>,
    /// Whether levels >= 1 are key-sorted and disjoint (LOC).
    pub disjoint: bool,
}

impl Version {
    pub fn new(levels: usize, disjoint: bool) -> Self {
        Version { levels: vec![Vec::new(); levels], disjoint }
    }

    pub fn tables(&self) -> impl Iterator<Item = (usize, &Arc<Table>)> {
        self.levels.iter().enumerate().flat_map(|(l, ts)| ts.iter().map(move |t| (l, t)))
    }

    pub fn level_bytes(&self, level: usize) -> u64 {
        self.levels[level].iter().map(|t| t.meta.len).sum()
    }

    /// Puts the tables of each level in the order the invariants above require.
    pub fn sort(&mut self) {
        let disjoint = self.disjoint;
        for (level, tables) in self.levels.iter_mut().enumerate() {
            if level > 0 && disjoint {
                tables.sort_by(|a, b| a.meta.smallest.cmp(&b.meta.smallest));
            } else {
                tables.sort_by_key(|t| t.meta.id);
            }
        }
    }

    /// The next version: `removed` (by table id) leave, `added` come in at their levels.
    pub fn apply(&self, removed: &[u64], added: Vec<(usize, Arc<Table>)>) -> Version {
        let mut next = self.clone();
        for tables in &mut next.levels {
            tables.retain(|t| !removed.contains(&t.meta.id));
        }
        for (level, table) in added {
            next.levels[level].push(table);
        }
        next.sort();
        next
    }

    /// The newest version of `key` at or below `snapshot` in the tables.
    pub fn get(&self, key: &[u8], snapshot: u64) -> Result<Option<Found>> {
        let hash = bloom::hash_key(key);
        for table in self.levels[0].iter().rev() {
            if let Some((found, _)) = table.get(key, hash, snapshot)? {
                return Ok(Some(found));
            }
        }
        for tables in &self.levels[1..] {
            let mut best: Option<(Found, u64)> = None;
            for table in tables.iter().filter(|t| t.covers(key)) {
                if let Some((found, seq)) = table.get(key, hash, snapshot)? {
                    if best.as_ref().is_none_or(|(_, s)| seq > *s) {
                        best = Some((found, seq));
                    }
                    if self.disjoint {
                        break;
                    }
                }
            }
            if let Some((found, _)) = best {
                return Ok(Some(found));
            }
        }
        Ok(None)
    }
}
