use std::collections::BTreeMap;
use std::time::Duration;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use smr_zoned::MemZonedDevice;

use super::*;
use crate::device::Shared;
use crate::scratch::scratch;

const BAND: u64 = 256 << 10;
const ZONES: u64 = 160;

fn options(offload: bool) -> OffloadOptions {
    let base =
        Options { band_size: Some(BAND), capacity: Some(ZONES * BAND), log_buffer: Some(4096), ..Options::default() };
    OffloadOptions {
        base,
        buffer_bands: [2, 2, 4],
        offload,
        check_interval: Duration::from_millis(10),
        quiet_interval: Duration::from_millis(50),
        ..OffloadOptions::default()
    }
}

fn memory_store(offload: bool) -> OffloadDb {
    let disk = Box::new(Shared::new(MemZonedDevice::new(BAND, ZONES, 2).unwrap()));
    let nvram: Option<Box<dyn BandDevice>> =
        offload.then(|| Box::new(Shared::new(MemZonedDevice::new(BAND, 64, 0).unwrap())) as Box<dyn BandDevice>);
    OffloadDb::open_devices(disk, nvram, "test store".into(), options(offload)).unwrap()
}

/// Random puts and deletes over a small key space, checked against a map, with compactions
/// (size-triggered and quiet) running meanwhile.
fn churn(db: &OffloadDb, model: &mut BTreeMap<Vec<u8>, Vec<u8>>, seed: u64, n: usize) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for i in 0..n {
        let key = format!("key{:05}", rng.gen_range(0..3000)).into_bytes();
        if rng.gen_bool(0.1) {
            db.delete(&key).unwrap();
            model.remove(&key);
        } else {
            let value = vec![(i % 251) as u8; rng.gen_range(10..300)];
            db.put(&key, &value).unwrap();
            model.insert(key, value);
        }
    }
}

/// Churns in rounds of `n` writes (seed `first`, then 100, 101, ...; ten rounds at most) until
/// one write has been offloaded, then waits for compaction to finish. Compactions run on their
/// own thread and only writes that arrive while one runs are offloaded: on a loaded machine
/// every compaction of a round can fall between two writes (seen: 4 compactions, nothing
/// offloaded).
fn churn_until_offloaded(db: &OffloadDb, model: &mut BTreeMap<Vec<u8>, Vec<u8>>, first: u64, n: usize) {
    for seed in std::iter::once(first).chain(100..109) {
        churn(db, model, seed, n);
        db.wait_idle().unwrap();
        if db.stats().offloaded_writes > 0 {
            return;
        }
    }
}

fn check(db: &OffloadDb, model: &BTreeMap<Vec<u8>, Vec<u8>>) {
    for (k, v) in model.iter().step_by(7) {
        assert_eq!(db.get(k).unwrap().as_ref(), Some(v), "key {}", String::from_utf8_lossy(k));
    }
    assert_eq!(db.get(b"key99999").unwrap(), None);
    let all = db.scan(None, None).unwrap().next_batch(usize::MAX, usize::MAX).unwrap();
    let expected: Vec<(Vec<u8>, Vec<u8>)> = model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    assert_eq!(all.len(), expected.len());
    assert!(all == expected, "a scan sees exactly the model");
}

#[test]
fn reads_see_every_write_through_compactions_and_offloading() {
    let db = memory_store(true);
    let mut model = BTreeMap::new();
    churn_until_offloaded(&db, &mut model, 1, 40_000);
    check(&db, &model);
    // The checker finds writes quiet after 50 ms; give a loaded machine time to get there (the
    // deadline guards against a hang, it measures nothing).
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while db.stats().levels[2].0 == 0 && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    check(&db, &model);
    let s = db.stats();
    assert!(s.compactions > 0 && s.aggressive_compactions > 0, "{s:?}");
    assert!(s.levels[2].0 > 0, "quiet periods push data to the final level: {s:?}");
    assert!(s.offloaded_writes > 0 && s.nvram_bytes_written > 0, "{s:?}");
    assert!(s.offloaded_user_bytes < s.user_bytes);
}

#[test]
fn writes_go_to_nvram_only_while_a_compaction_runs() {
    // No quiet-time compactions here: compactions start only when a level is over its size.
    let never_quiet = |offload| {
        let disk = Box::new(Shared::new(MemZonedDevice::new(BAND, ZONES, 2).unwrap()));
        let nvram: Option<Box<dyn BandDevice>> = Some(Box::new(Shared::new(MemZonedDevice::new(BAND, 64, 0).unwrap())));
        OffloadDb::open_devices(
            disk,
            nvram,
            "test store".into(),
            OffloadOptions { quiet_interval: Duration::from_secs(3600), ..options(offload) },
        )
        .unwrap()
    };
    let db = never_quiet(true);
    let mut model = BTreeMap::new();
    churn(&db, &mut model, 2, 1_000);
    let s = db.stats();
    assert_eq!((s.compactions, s.offloaded_writes), (0, 0), "no compaction yet, so nothing offloaded");
    churn_until_offloaded(&db, &mut model, 3, 20_000);
    let busy = db.stats();
    assert!(
        busy.compactions > 0 && busy.offloaded_writes > 0 && busy.offloaded_writes < busy.puts + busy.deletes,
        "{busy:?}"
    );
    // The first write after the last compaction seals the unit that compaction opened on the
    // NVRAM device, and a sealed unit can bring level 0 to its size: write once and let what
    // that starts finish, so that what follows is measured from rest.
    churn(&db, &mut model, 99, 1);
    db.wait_idle().unwrap();
    let busy = db.stats();
    // Idle, and the next writes stay below every level's size: no compaction, no offloading.
    churn(&db, &mut model, 4, 50);
    let idle = db.stats();
    assert_eq!((idle.compactions, idle.offloaded_writes), (busy.compactions, busy.offloaded_writes));
    check(&db, &model);
    let plain = never_quiet(false);
    churn(&plain, &mut BTreeMap::new(), 2, 20_000);
    plain.wait_idle().unwrap();
    let s = plain.stats();
    assert_eq!((s.offloaded_writes, s.nvram_bytes_written), (0, 0));
    assert!(s.compactions > 0);
}

#[test]
fn reopening_recovers_units_on_both_devices() {
    let dir = scratch("offload");
    let mut model = BTreeMap::new();
    for round in 0..3 {
        let db = OffloadDb::open(&dir, options(true)).unwrap();
        check(&db, &model);
        churn(&db, &mut model, 10 + round, 8_000);
        check(&db, &model);
        db.close().unwrap();
    }
    let db = OffloadDb::open(&dir, options(true)).unwrap();
    check(&db, &model);
    drop(db);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn units_on_the_nvram_device_are_recovered_without_offloading_and_never_lost_with_its_file() {
    let dir = scratch("offload-nvram");
    let mut model = BTreeMap::new();
    // Close while units are on the NVRAM device (whether a compaction takes them before the
    // close is up to the background thread: try again until one did not), then open without
    // offloading: the writes offloaded before are still there.
    let mut recovered = false;
    for round in 0..10 {
        let db = OffloadDb::open(&dir, options(true)).unwrap();
        for seed in 0..10 {
            churn(&db, &mut model, 1000 * round + seed, 2_000);
            if db.stats().nvram_units > 0 {
                break;
            }
        }
        drop(db);
        let db = OffloadDb::open(&dir, options(false)).unwrap();
        check(&db, &model);
        recovered = db.stats().nvram_units > 0;
        churn(&db, &mut model, 7 + round, 500);
        drop(db);
        if recovered {
            break;
        }
    }
    assert!(recovered, "no run closed with units on the NVRAM device");
    let db = OffloadDb::open(&dir, options(true)).unwrap();
    check(&db, &model);
    drop(db);
    // Its device file gone, the store is an error naming it, offloading or not.
    std::fs::remove_file(dir.join("nvram")).unwrap();
    for offload in [true, false] {
        let e = OffloadDb::open(&dir, options(offload)).err().unwrap();
        assert!(matches!(e, Error::MissingFile { .. }) && e.to_string().contains("nvram"), "{e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn writes_sleep_only_with_a_delay_and_while_the_nvram_device_is_crowded() {
    // An NVRAM device of 4 bands: three units offloaded during one compaction crowd it, and it
    // fills (writes that found it full once sealed a disk unit each, filling the disk).
    let store = |delay: Duration| {
        let disk = Box::new(Shared::new(MemZonedDevice::new(BAND, ZONES, 2).unwrap()));
        let nvram: Option<Box<dyn BandDevice>> = Some(Box::new(Shared::new(MemZonedDevice::new(BAND, 4, 0).unwrap())));
        OffloadDb::open_devices(
            disk,
            nvram,
            "test store".into(),
            OffloadOptions { offload_delay: delay, ..options(true) },
        )
        .unwrap()
    };
    let delayed = store(Duration::from_micros(10));
    let mut model = BTreeMap::new();
    churn(&delayed, &mut model, 2, 1_000);
    assert_eq!(delayed.stats().delayed_writes, 0, "nothing offloaded yet, so no write sleeps");
    // Compactions run on their own thread: churn in rounds until one ran long enough to crowd
    // the device (ten rounds at most).
    for seed in 3..13 {
        churn(&delayed, &mut model, seed, 20_000);
        delayed.wait_idle().unwrap();
        if delayed.stats().delayed_writes > 0 {
            break;
        }
    }
    let s = delayed.stats();
    assert!(s.delayed_writes > 0, "{s:?}");
    check(&delayed, &model);
    let undelayed = store(Duration::ZERO);
    for seed in 3..6 {
        churn(&undelayed, &mut BTreeMap::new(), seed, 20_000);
        undelayed.wait_idle().unwrap();
    }
    let s = undelayed.stats();
    assert!(s.offloaded_writes > 0 && s.delayed_writes == 0, "no delay given, none taken: {s:?}");
}

/// Puts unique keys, synced, until one fails; returns the keys acknowledged.
fn fill_until_refused(db: &OffloadDb) -> Vec<Vec<u8>> {
    let mut acked = Vec::new();
    for i in 0.. {
        let key = format!("full{i:07}").into_bytes();
        let mut b = WriteBatch::new();
        b.put(&key, &[b'v'; 300]);
        if db.write(&b, true).is_err() {
            return acked;
        }
        acked.push(key);
    }
    unreachable!()
}

#[test]
fn a_store_filled_until_writes_fail_opens_again_and_reads_in_full() {
    // A disk of 6 bands, fewer than level 0's 10: units fill it before level 0 is due.
    let dir = scratch("offload-full");
    let base = Options { band_size: Some(64 << 10), capacity: Some(8 * (64 << 10)), ..Options::default() };
    let full_options = || OffloadOptions { base: base.clone(), ..OffloadOptions::default() };
    let db = OffloadDb::open(&dir, full_options()).unwrap();
    let acked = fill_until_refused(&db);
    assert!(acked.len() > 500, "{}", acked.len());
    db.close().unwrap();
    for _ in 0..2 {
        let db = OffloadDb::open(&dir, full_options()).unwrap();
        for k in &acked {
            assert_eq!(db.get(k).unwrap().as_deref(), Some(&[b'v'; 300][..]), "{}", String::from_utf8_lossy(k));
        }
        let scanned = db.scan(None, None).unwrap().next_batch(usize::MAX, usize::MAX).unwrap();
        assert_eq!(scanned.into_iter().map(|(k, _)| k).collect::<Vec<_>>(), acked);
        let e = db.put(b"more", b"v").unwrap_err();
        assert!(e.to_string().contains("read-only") && !e.to_string().contains("reopen"), "{e}");
        db.close().unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
