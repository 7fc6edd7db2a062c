//! A store in this process as an executor target: every worker shares the one store.

use std::sync::Arc;

use smrdb::WriteBatch;

use super::store::SharedStore;
use super::Target;
use crate::error::Result;

pub struct EmbeddedTarget {
    store: Arc<SharedStore>,
    sync: bool,
}

impl EmbeddedTarget {
    /// Writes are synced before they return when `sync`.
    pub fn new(store: Arc<SharedStore>, sync: bool) -> EmbeddedTarget {
        EmbeddedTarget { store, sync }
    }
}

impl Target for EmbeddedTarget {
    fn read(&mut self, key: &[u8]) -> Result<bool> {
        Ok(self.store.with(|s| s.get(key))?.is_some())
    }

    fn write(&mut self, key: &[u8], value: &[u8]) -> Result<()> {
        let mut b = WriteBatch::new();
        b.put(key, value);
        Ok(self.store.with(|s| s.write(&b, self.sync))?)
    }

    fn scan(&mut self, start: &[u8], count: usize) -> Result<usize> {
        Ok(self.store.with(|s| s.scan(start, None, count))?.len())
    }

    fn load(&mut self, pairs: &[(Vec<u8>, Vec<u8>)]) -> Result<()> {
        let mut b = WriteBatch::new();
        for (k, v) in pairs {
            b.put(k, v);
        }
        Ok(self.store.with(|s| s.write(&b, false))?)
    }
}
