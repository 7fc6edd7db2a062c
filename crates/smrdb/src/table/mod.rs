//! Sorted tables, one per band (§3.2.2): data blocks from the start of the band, then the key
//! index, then the Bloom filter, then a fixed footer, all checksummed. A table is written once,
//! front to back, and read until its band is reset.

pub mod block;
pub mod builder;
pub mod format;
pub mod iter;
pub mod meta;
pub mod reader;

pub use builder::TableBuilder;
pub use meta::TableMeta;
pub use reader::Table;
