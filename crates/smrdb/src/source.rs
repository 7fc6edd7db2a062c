//! What every reader of entries in key order yields: a borrowed entry (`EntryRef`) and the
//! `Source` interface that memtables, tables, offloaded units and merges of them share. Not
//! here: any source itself (`iter`, `table::iter`, `offload::unit`) or their merge (`iter`).

use crate::error::Result;

/// One entry: its internal key (user key and tag) and value, borrowed from where it is held.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryRef<'a> {
    pub key: &'a [u8],
    pub tag: u64,
    pub value: &'a [u8],
}

/// Entries in internal-key order (user key ascending, newest version first).
pub trait Source {
    /// The current entry; `None` at the end.
    fn current(&self) -> Option<EntryRef<'_>>;
    fn advance(&mut self) -> Result<()>;
    /// Whether `current` is only a placeholder at a lower bound of the source's entries (a
    /// table not read yet); `advance` then reads the source and shows its first real entry.
    fn pending(&self) -> bool {
        false
    }
}
