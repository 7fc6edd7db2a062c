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
        // A store call may stop short on the bytes it read: go on from after its last key.
        let (mut from, mut read) = (start.to_vec(), 0);
        while read < count {
            let batch = self.store.with(|s| s.scan(&from, None, count - read))?;
            read += batch.pairs.len();
            match batch.pairs.last() {
                Some((last, _)) if batch.more => {
                    from.clone_from(last);
                    from.push(0);
                }
                _ => break,
            }
        }
        Ok(read)
    }

    fn load(&mut self, pairs: &[(Vec<u8>, Vec<u8>)]) -> Result<()> {
        let mut b = WriteBatch::new();
        for (k, v) in pairs {
            b.put(k, v);
        }
        Ok(self.store.with(|s| s.write(&b, false))?)
    }
}

#[cfg(test)]
mod tests {
    use smrdb::{Db, Options};

    use super::*;

    #[test]
    fn a_scan_reads_its_count_across_store_calls_that_stop_on_bytes() {
        // Values of 3 MiB: a store call stops after 4 MiB, so two pairs a call at most.
        let options = Options { band_size: Some(16 << 20), capacity: Some(256 << 20), ..Options::default() };
        let store = Arc::new(SharedStore::new(Box::new(Db::open_in_memory(options, None).unwrap()), "test"));
        let mut target = EmbeddedTarget::new(store, false);
        let value = vec![7u8; 3 << 20];
        for k in [b"a", b"b", b"c", b"d"] {
            target.write(k, &value).unwrap();
        }
        assert_eq!(target.scan(b"", 3).unwrap(), 3);
        assert_eq!(target.scan(b"b", 10).unwrap(), 3);
    }
}
