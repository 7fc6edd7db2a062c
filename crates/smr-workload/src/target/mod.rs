//! What the executor drives: a `Target` takes YCSB's operations (read, write, scan) on one
//! connection or handle, for one worker. Two kinds: a store in this process (`embedded`, over
//! any `Store`: SMRDB or its offloading variant) and any server speaking the Redis protocol
//! (`resp_client`). Also here: the values writes carry (`ValuePool`) and the translation of an
//! operation into calls (`execute`).

pub mod embedded;
pub mod resp_client;
pub mod store;

use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::error::Result;
use crate::ycsb::{OpKind, Operation};

pub use embedded::EmbeddedTarget;
pub use resp_client::RespTarget;
pub use store::{SharedStore, Store};

/// One worker's handle on a store or server.
pub trait Target: Send {
    /// Whether the key holds a value.
    fn read(&mut self, key: &[u8]) -> Result<bool>;
    fn write(&mut self, key: &[u8], value: &[u8]) -> Result<()>;
    /// Reads up to `count` records from `start` on, in key order; returns how many it read.
    fn scan(&mut self, start: &[u8], count: usize) -> Result<usize>;
    /// Writes many records at once (the load phase).
    fn load(&mut self, pairs: &[(Vec<u8>, Vec<u8>)]) -> Result<()>;
}

/// Carries out one operation; `Ok(false)` when a read found no record.
pub fn execute(target: &mut dyn Target, op: &Operation, key: &[u8], values: &mut ValuePool) -> Result<bool> {
    match op.kind {
        OpKind::Read => target.read(key),
        OpKind::Update | OpKind::Insert => target.write(key, values.take()).map(|()| true),
        OpKind::Scan => target.scan(key, op.scan_length as usize).map(|n| n > 0),
        OpKind::ReadModifyWrite => {
            let found = target.read(key)?;
            target.write(key, values.take())?;
            Ok(found)
        }
    }
}

/// Values of a fixed length: windows of a seeded pool of random bytes, each starting a little
/// further along, so consecutive values differ and none compresses.
pub struct ValuePool {
    pool: Vec<u8>,
    len: usize,
    at: usize,
}

impl ValuePool {
    pub fn new(len: usize, seed: u64) -> ValuePool {
        let mut pool = vec![0u8; (2 * len).max(1 << 16)];
        ChaCha8Rng::seed_from_u64(seed).fill_bytes(&mut pool);
        ValuePool { pool, len, at: 0 }
    }

    pub fn take(&mut self) -> &[u8] {
        if self.at + self.len > self.pool.len() {
            self.at = 0;
        }
        let start = self.at;
        self.at += 97;
        &self.pool[start..start + self.len]
    }
}
