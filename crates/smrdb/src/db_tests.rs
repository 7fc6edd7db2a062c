//! Behaviour of the whole store: reads after writes through flushes and compactions under
//! both schemes, reopening, and the errors a user can cause.

use std::collections::BTreeMap;

use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::*;
use crate::options::Scheme;
use crate::scratch::scratch;

/// Small bands so that a few thousand writes flush and compact many times.
pub(crate) fn small(scheme: Scheme, background: bool) -> Options {
    Options {
        band_size: Some(64 * 1024),
        capacity: Some(64 * 1024 * 128),
        compaction: Some(scheme),
        max_key_len: Some(64),
        max_value_len: Some(4096),
        block_size: 1024,
        histogram_bytes: Some(128),
        log_buffer: Some(4096),
        background,
        ..Options::default()
    }
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

#[derive(Clone, Debug)]
enum Op {
    Put(u16, Vec<u8>),
    Delete(u16),
    Batch(Vec<(u16, Option<Vec<u8>>)>),
    Get(u16),
    Scan(u16, u16),
    Compact,
    Reopen,
}

fn op() -> impl Strategy<Value = Op> {
    let value = proptest::collection::vec(any::<u8>(), 0..1500);
    prop_oneof![
        30 => (0u16..300, value.clone()).prop_map(|(k, v)| Op::Put(k, v)),
        8 => (0u16..300).prop_map(Op::Delete),
        4 => proptest::collection::vec((0u16..300, proptest::option::of(value)), 1..20).prop_map(Op::Batch),
        8 => (0u16..300).prop_map(Op::Get),
        3 => (0u16..300, 0u16..300).prop_map(|(a, b)| Op::Scan(a.min(b), a.max(b))),
        1 => Just(Op::Compact),
        1 => Just(Op::Reopen),
    ]
}

fn k16(k: u16) -> Vec<u8> {
    format!("k{k:05}").into_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]
    /// A random sequence of puts, deletes, batches, gets, scans, compactions and reopens on the
    /// file device reads exactly as a BTreeMap does, under both schemes.
    #[test]
    fn matches_a_btreemap_model(ops in proptest::collection::vec(op(), 1..250), loc in any::<bool>()) {
        let scheme = if loc { Scheme::Loc } else { Scheme::Soc };
        let dir = scratch("model");
        let options = || Options { l0_compaction_trigger: 2, l0_slowdown_trigger: 3, l0_stop_trigger: 4, l1_overlap_trigger: 3, l1_bands: 2, ..small(scheme, true) };
        let mut db = Some(Db::open(&dir, options()).unwrap());
        let mut model: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        for op in ops {
            let d = db.as_ref().unwrap();
            match op {
                Op::Put(k, v) => { d.put(&k16(k), &v).unwrap(); model.insert(k16(k), v); }
                Op::Delete(k) => { d.delete(&k16(k)).unwrap(); model.remove(&k16(k)); }
                Op::Batch(entries) => {
                    let mut b = WriteBatch::new();
                    for (k, v) in entries {
                        match v {
                            Some(v) => { b.put(&k16(k), &v); model.insert(k16(k), v); }
                            None => { b.delete(&k16(k)); model.remove(&k16(k)); }
                        }
                    }
                    d.write(&b, false).unwrap();
                }
                Op::Get(k) => prop_assert_eq!(d.get(&k16(k)).unwrap(), model.get(&k16(k)).cloned()),
                Op::Scan(a, b) => {
                    let expected: Vec<_> = model.range(k16(a)..k16(b)).map(|(k, v)| (k.clone(), v.clone())).collect();
                    let got = d.scan(Some(&k16(a)), Some(&k16(b))).unwrap().next_batch(usize::MAX, usize::MAX).unwrap();
                    prop_assert_eq!(got, expected);
                }
                Op::Compact => {
                    d.compact().unwrap();
                    let s = d.stats();
                    let l1 = &s.levels[1..];
                    prop_assert_eq!(s.levels[0].0, 0, "a full compaction leaves level 0 empty");
                    prop_assert!(l1.iter().filter(|(n, _)| *n > 0).count() <= 1, "and everything in one level: {:?}", s.levels);
                }
                Op::Reopen => {
                    db.take().unwrap().close().unwrap();
                    db = Some(Db::open(&dir, options()).unwrap());
                }
            }
        }
        let d = db.take().unwrap();
        prop_assert_eq!(all(&d), model.into_iter().collect::<Vec<_>>());
        d.close().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn a_full_compaction_leaves_no_overlapping_bands() {
    for scheme in [Scheme::Soc, Scheme::Loc] {
        let db = Db::open_in_memory(small(scheme, true), None).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for _ in 0..4000 {
            db.put(&key(rng.gen_range(0..3000)), &[7u8; 200]).unwrap();
        }
        db.compact().unwrap();
        let (_, _, version, _) = db.inner.snapshot();
        assert!(version.levels[0].is_empty());
        let mut tables: Vec<_> = version.tables().map(|(_, t)| t.meta.clone()).collect();
        tables.sort_by(|a, b| a.smallest.cmp(&b.smallest));
        assert!(tables.len() > 3, "{} tables", tables.len());
        for pair in tables.windows(2) {
            assert!(pair[0].largest < pair[1].smallest, "{:?} overlaps {:?}", pair[0].largest, pair[1].smallest);
        }
        if scheme == Scheme::Soc {
            assert_eq!(crate::compaction::soc::deepest_key(&version.levels[1]).map(|(_, d)| d), Some(1));
        }
    }
}

#[test]
fn an_iterator_keeps_its_snapshot_while_writes_and_compactions_go_on() {
    let db = Db::open_in_memory(small(Scheme::Soc, true), None).unwrap();
    for i in 0..2000 {
        db.put(&key(i), b"old").unwrap();
    }
    let mut it = db.scan(None, None).unwrap();
    let first = it.next_batch(10, usize::MAX).unwrap();
    for i in 0..2000 {
        db.put(&key(i), &[b'n'; 300]).unwrap();
    }
    db.delete(&key(1500)).unwrap();
    db.compact().unwrap();
    let mut rest = first;
    loop {
        let b = it.next_batch(97, usize::MAX).unwrap();
        if b.is_empty() {
            break;
        }
        rest.extend(b);
    }
    assert_eq!(rest.len(), 2000, "the deleted key is still there at the iterator's snapshot");
    assert!(rest.iter().all(|(_, v)| v == b"old"));
    assert_eq!(db.get(&key(1500)).unwrap(), None);
    assert_eq!(db.get(&key(1)).unwrap(), Some(vec![b'n'; 300]));
}

#[test]
fn sequential_inserts_under_soc_move_bands_without_rewriting() {
    let db = Db::open_in_memory(small(Scheme::Soc, false), None).unwrap();
    for i in 0..8000 {
        db.put(&key(i), &[1u8; 100]).unwrap();
    }
    let s = db.stats();
    assert!(s.moves > 5, "{s:?}");
    assert_eq!(s.compaction_bytes_written, 0, "no band was rewritten: {s:?}");
}

/// Bytes compaction rewrote and read, per user byte, for uniformly random inserts.
fn random_insert_cost(scheme: Scheme) -> (f64, f64, u64) {
    let disk = Box::new(smr_media::Hdd::new(smr_media::DESKTOP7200));
    let options = Options {
        band_size: Some(256 * 1024),
        capacity: Some(256 * 1024 * 200),
        histogram_bytes: Some(256),
        max_key_len: Some(32),
        ..small(scheme, false)
    };
    let db = Db::open_in_memory(options, Some(disk)).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for _ in 0..100_000 {
        db.put(&key(rng.gen_range(0..1_000_000)), &[5u8; 100]).unwrap();
    }
    let s = db.stats();
    let user = s.user_bytes as f64;
    (s.compaction_bytes_written as f64 / user, s.compaction_bytes_read as f64 / user, s.disk.unwrap().busy_ns)
}

#[test]
fn soc_rewrites_and_reads_less_than_loc_on_random_inserts() {
    // Figs. 3.11-3.12 of the thesis: on uniformly random inserts the SMR-friendly scheme reads
    // and rewrites less than the LevelDB-style one, and so takes less disk time.
    let (soc_w, soc_r, soc_ns) = random_insert_cost(Scheme::Soc);
    let (loc_w, loc_r, loc_ns) = random_insert_cost(Scheme::Loc);
    assert!(
        soc_w < loc_w && soc_r < loc_r,
        "SOC rewrote {soc_w:.2} and read {soc_r:.2} per user byte, LOC {loc_w:.2} and {loc_r:.2}"
    );
    assert!(soc_ns < loc_ns, "disk time SOC {soc_ns} ns, LOC {loc_ns} ns");
}

#[test]
fn inline_mode_takes_writes_from_several_threads() {
    let db = Db::open_in_memory(small(Scheme::Soc, false), None).unwrap();
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let db = &db;
            s.spawn(move || {
                for i in 0..1500u64 {
                    db.put(&key(t * 10_000 + i), &[t as u8; 200]).unwrap();
                }
            });
        }
    });
    let pairs = all(&db);
    assert_eq!(pairs.len(), 6000, "every write once, none lost or doubled by two threads flushing the same memtable");
    assert!(db.stats().flushes > 10);
}

#[test]
fn a_store_without_a_log_writes_only_tables_and_refuses_to_sync() {
    let db = Db::open_in_memory(Options { write_log: false, ..small(Scheme::Soc, false) }, None).unwrap();
    for i in 0..2000u64 {
        db.put(&key(i), &[7u8; 200]).unwrap();
    }
    let s = db.stats();
    assert_eq!(s.log_bytes_written, 0, "nothing went to a log");
    assert!(s.flush_bytes_written > 2000 * 200, "the memtables were flushed as tables");
    db.put(&key(1), b"x").unwrap();
    let mut b = WriteBatch::new();
    b.put(&key(1), b"y");
    assert!(matches!(db.write(&b, true), Err(Error::InvalidOption { option: "write_log", .. })));
    assert!(matches!(db.sync(), Err(Error::InvalidOption { option: "write_log", .. })));
    assert_eq!(db.get(&key(1)).unwrap(), Some(b"x".to_vec()), "the refused write changed nothing");
    assert_eq!(db.get(&key(1999)).unwrap(), Some(vec![7u8; 200]));
}

#[test]
fn a_short_scan_reads_only_the_tables_its_keys_are_in() {
    let db = Db::open_in_memory(small(Scheme::Loc, false), None).unwrap();
    for i in 0..6000u64 {
        db.put(&key(i), &[3u8; 300]).unwrap();
    }
    db.compact().unwrap();
    let tables = db.tables().len();
    assert!(tables > 20, "one sorted run over many bands: {tables}");
    let before = db.stats().read_bytes;
    let got = db.scan(Some(&key(3000)), None).unwrap().next_batch(5, usize::MAX).unwrap();
    assert_eq!(got.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>(), (3000..3005).map(key).collect::<Vec<_>>());
    let read = db.stats().read_bytes - before;
    // The bands after the start hold about half the data; the scan needs one, perhaps two.
    assert!(read > 0 && read <= 2 * 64 * 1024, "read {read} bytes of {tables} bands");
}

/// A get served from the block cache reads nothing from the band; the same gets without a
/// cache read a block each time (the thesis ran SMRDB with LevelDB's 8 MB cache, §3.3.3).
#[test]
fn a_repeated_get_is_served_by_the_block_cache() {
    let reads_of_ten_gets = |block_cache: u64| {
        let db = Db::open_in_memory(Options { block_cache, ..small(Scheme::Loc, false) }, None).unwrap();
        for i in 0..3000u64 {
            db.put(&key(i), &[5u8; 300]).unwrap();
        }
        db.compact().unwrap();
        let before = db.stats();
        for _ in 0..10 {
            assert_eq!(db.get(&key(1234)).unwrap(), Some(vec![5u8; 300]));
        }
        let after = db.stats();
        (after.read_bytes - before.read_bytes, after.get_block_cache_hits - before.get_block_cache_hits)
    };
    let (cached_reads, hits) = reads_of_ten_gets(8 << 20);
    let (uncached_reads, no_hits) = reads_of_ten_gets(0);
    assert_eq!((hits, no_hits), (9, 0));
    assert!(cached_reads > 0 && uncached_reads == 10 * cached_reads, "{cached_reads} and {uncached_reads} bytes");
}
