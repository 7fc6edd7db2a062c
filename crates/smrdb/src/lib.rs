//! SMRDB: an embeddable key-value store on zoned storage, after the SMRDB design of chapter 3
//! of the thesis in `shared/papers` (a LevelDB-like LSM tree whose tables are whole bands of a
//! host-managed SMR drive, written only sequentially).
//!
//! The write path (`db`): a write-ahead log in its own band (`log`), a sorted memtable of one
//! band's capacity (`memtable`), flushed as one sorted table per band (`table`: data blocks,
//! then the key index, the Bloom filter and a footer, all checksummed). The metadata record
//! (`manifest`) in the two conventional zones names the tables by level with their key ranges
//! and equi-depth histograms (`histogram`). Compaction (`compaction`) runs in a background
//! thread (`background`) under one of two schemes: LevelDB-style (`loc`) or SMR-friendly
//! (`soc`). Recovery (`recovery`) replays the log after a crash. The write path, the background
//! thread and recovery share the store's state (`state`), guarded by locks both stores share
//! (`guarded`); both stores share the shape of
//! opening (`reopen`) and closing (`lifecycle`). Devices (`device`): a file (real persistence),
//! memory, or either with a disk's simulated time (`paced`: also taken in real time). `offload`: the store variant of chapter 5, with unsorted first-level bands and
//! writes offloaded to an NVRAM device while a compaction runs.
//!
//! Not here: a block cache (reads go to the device, which for the file backend means the
//! operating system's page cache), snapshots beyond an iterator's own, key comparators other
//! than byte order, and compression.

mod background;
pub mod batch;
pub mod block_cache;
pub mod compaction;
pub mod db;
pub mod device;
pub mod env;
pub mod error;
#[cfg(test)]
mod error_tests;
mod files;
mod guarded;
pub mod histogram;
pub mod iter;
pub mod key;
mod lifecycle;
mod lock;
pub mod log;
pub mod manifest;
pub mod memtable;
pub mod offload;
pub mod options;
pub mod paced;
mod recovery;
mod reopen;
#[cfg(test)]
mod scratch;
pub mod source;
mod state;
pub mod table;
pub mod util;
pub mod version;

pub use batch::WriteBatch;
pub use db::{Db, DbStats};
pub use error::{Error, Result};
pub use files::{kind_in, StoreKind};
pub use iter::DbIter;
pub use options::{Options, Scheme};
