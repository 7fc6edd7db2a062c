//! The opening shape both stores share (`reopen`): a device with written bands and no metadata
//! record is refused by either store in the same words, and a stray band no record names is
//! reset at the next opening and given back, leaking nothing and losing nothing stored.

use smr_zoned::{FileZonedDevice, MemZonedDevice};
use smrdb::device::{BandDevice, Shared};
use smrdb::offload::{OffloadDb, OffloadOptions};
use smrdb::{Db, Error, Options};

const BAND: u64 = 64 * 1024;
const ZONES: u64 = 32;

fn options() -> Options {
    Options { band_size: Some(BAND), capacity: Some(ZONES * BAND), log_buffer: Some(4096), ..Options::default() }
}

/// A memory device whose band 5 holds bytes, with nothing in the metadata zones.
fn written_without_record() -> Box<dyn BandDevice> {
    let device = Shared::new(MemZonedDevice::new(BAND, ZONES, 2).unwrap());
    device.append(5, b"not a store").unwrap();
    Box::new(device)
}

#[test]
fn both_stores_refuse_written_bands_without_a_record_in_the_same_words() {
    let plain = Db::open_device(written_without_record(), "plain".into(), options()).err().unwrap();
    let offload = OffloadDb::open_devices(
        written_without_record(),
        None,
        "offload".into(),
        OffloadOptions { base: options(), ..OffloadOptions::default() },
    )
    .err()
    .unwrap();
    for (e, store) in [(plain, "plain"), (offload, "offload")] {
        assert!(matches!(e, Error::Corruption { .. }), "{e}");
        let text = e.to_string();
        assert!(text.contains(store) && text.contains("bands hold data but there is no metadata record"), "{text}");
    }
}

#[test]
fn a_stray_band_is_reset_at_opening_and_given_back() {
    let dir = std::env::temp_dir().join(format!("smrdb-reopen-{}-{}", std::process::id(), rand::random::<u32>()));
    let key = |i: u32| format!("key{i:06}").into_bytes();
    let db = Db::open(&dir, options()).unwrap();
    for i in 0..2000 {
        db.put(&key(i), &[b'v'; 100]).unwrap();
    }
    db.close().unwrap();
    let reopened = |stray: bool| {
        if stray {
            let device = Shared::new(FileZonedDevice::open(&smrdb::db::device_path(&dir)).unwrap());
            device.append(ZONES - 1, b"bytes no record names").unwrap();
            device.sync().unwrap();
        }
        let db = Db::open(&dir, options()).unwrap();
        let stats = db.stats();
        assert!((0..2000).all(|i| db.get(&key(i)).unwrap() == Some(vec![b'v'; 100])), "every key survives reopening");
        db.close().unwrap();
        stats
    };
    // The first opening replays the log into tables; the next two start from the same state.
    reopened(false);
    let clean = reopened(false);
    let with_stray = reopened(true);
    assert_eq!(with_stray.bands_reset, clean.bands_reset + 1, "the stray band is reset: {clean:?} {with_stray:?}");
    assert_eq!(with_stray.free_bands, clean.free_bands, "and given back");
    std::fs::remove_dir_all(&dir).unwrap();
}
