//! A memtable's copy of a user key: short keys (most keys: YCSB's and redis-benchmark's are
//! under 24 bytes) are held inline, so a hash probe compares bytes that sit in the table's own
//! slot instead of following a pointer to them (that pointer's cache miss was the memtable's
//! largest cost under redis-benchmark SET); longer keys are shared on the heap. It hashes,
//! compares and orders exactly as the bytes do, so maps keyed by it are searched by `&[u8]`.
//!
//! Not for: anything but holding keys (no editing).

use std::borrow::Borrow;
use std::cmp::Ordering;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// Bytes a key may have to be held inline.
const INLINE: usize = 22;

#[derive(Clone)]
pub(super) enum MemKey {
    Inline { len: u8, bytes: [u8; INLINE] },
    Shared(Arc<[u8]>),
}

impl MemKey {
    pub(super) fn new(key: &[u8]) -> MemKey {
        if key.len() <= INLINE {
            let mut bytes = [0; INLINE];
            bytes[..key.len()].copy_from_slice(key);
            MemKey::Inline { len: key.len() as u8, bytes }
        } else {
            MemKey::Shared(key.into())
        }
    }

    pub(super) fn as_slice(&self) -> &[u8] {
        match self {
            MemKey::Inline { len, bytes } => &bytes[..*len as usize],
            MemKey::Shared(bytes) => bytes,
        }
    }
}

impl Borrow<[u8]> for MemKey {
    fn borrow(&self) -> &[u8] {
        self.as_slice()
    }
}

impl Hash for MemKey {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

impl PartialEq for MemKey {
    fn eq(&self, other: &MemKey) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for MemKey {}

impl PartialOrd for MemKey {
    fn partial_cmp(&self, other: &MemKey) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for MemKey {
    fn cmp(&self, other: &MemKey) -> Ordering {
        self.as_slice().cmp(other.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn behaves_as_its_bytes_either_side_of_the_inline_limit() {
        let keys: Vec<Vec<u8>> =
            [0, 1, INLINE - 1, INLINE, INLINE + 1, 100].iter().map(|&n| (0..n as u8).collect()).collect();
        let hash = |k: &dyn Fn(&mut rustc_hash::FxHasher)| {
            let mut h = rustc_hash::FxHasher::default();
            k(&mut h);
            h.finish()
        };
        for a in &keys {
            let key = MemKey::new(a);
            assert_eq!(key.as_slice(), &a[..]);
            assert_eq!(matches!(key, MemKey::Inline { .. }), a.len() <= INLINE);
            assert_eq!(hash(&|h| key.hash(h)), hash(&|h| a[..].hash(h)), "hashes as its bytes");
            for b in &keys {
                assert_eq!(key.cmp(&MemKey::new(b)), a.cmp(b));
            }
        }
    }
}
