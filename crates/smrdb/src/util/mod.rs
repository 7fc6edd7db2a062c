//! Small building blocks the store's formats share: integer encodings, the key hash and the
//! Bloom filter. No I/O here.

pub mod bloom;
pub mod coding;
pub(crate) mod mutex;
