//! Behaviour of the whole store: reads after writes through flushes and compactions under
//! both schemes, reopening, and the errors a user can cause.

use std::collections::BTreeMap;
use std::path::PathBuf;

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::options::Scheme;

/// Small bands so that a few thousand writes flush and compact many times.
pub(crate) fn small(scheme: Scheme, background: bool) -> Options {
    Options {
        band_size: Some(64 * 1024),
        capacity: Some(64 * 1024 * 128),
        compaction: Some(scheme),
        max_key_len: 64,
        max_value_len: 4096,
        block_size: 1024,
        histogram_bytes: 128,
        log_buffer: 4096,
        background,
        ..Options::default()
    }
}

pub(crate) fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("smrdb-test-{}-{name}-{}", std::process::id(), rand::random::<u32>()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

fn all(db: &Db) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut it = db.scan(None, None).unwrap();
    let mut out = Vec::new();
    loop {
        let batch = it.next_batch(100, usize::MAX).unwrap();
        if batch.is_empty() {
            return out;
        }
        out.extend(batch);
    }
}

fn key(i: u64) -> Vec<u8> {
    format!("key{i:08}").into_bytes()
}

/// Random puts, overwrites and deletes over a key space, checked against a map at the end and
/// after a reopen.
fn churn(scheme: Scheme, background: bool) {
    let dir = scratch(&format!("churn-{}-{background}", scheme.name()));
    let mut model = BTreeMap::new();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    {
        let db = Db::open(&dir, small(scheme, background)).unwrap();
        for i in 0..6000u64 {
            let k = key(rng.gen_range(0..1500));
            if rng.gen_bool(0.15) {
                db.delete(&k).unwrap();
                model.remove(&k);
            } else {
                let v = format!("value-{i}-{}", "x".repeat(rng.gen_range(0..300))).into_bytes();
                db.put(&k, &v).unwrap();
                model.insert(k, v);
            }
        }
        db.wait_idle().unwrap();
        let s = db.stats();
        assert!(s.flushes > 10 && s.compactions + s.moves > 0, "the run must exercise flushes and compactions: {s:?}");
        for probe in 0..1500 {
            assert_eq!(db.get(&key(probe)).unwrap(), model.get(&key(probe)).cloned(), "key {probe}");
        }
        let expected: Vec<_> = model.clone().into_iter().collect();
        assert_eq!(all(&db), expected);
        let sub: Vec<_> = model.range(key(100)..key(200)).map(|(k, v)| (k.clone(), v.clone())).collect();
        let mut it = db.scan(Some(&key(100)), Some(&key(200))).unwrap();
        assert_eq!(it.next_batch(usize::MAX, usize::MAX).unwrap(), sub);
        db.close().unwrap();
    }
    let db = Db::open(&dir, small(scheme, background)).unwrap();
    assert_eq!(all(&db), model.into_iter().collect::<Vec<_>>(), "after reopening");
    drop(db);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn soc_keeps_every_write_through_flushes_and_compactions() {
    churn(Scheme::Soc, true);
}

#[test]
fn loc_keeps_every_write_through_flushes_and_compactions() {
    churn(Scheme::Loc, true);
}

#[test]
fn inline_compaction_keeps_every_write_too() {
    churn(Scheme::Soc, false);
    churn(Scheme::Loc, false);
}
