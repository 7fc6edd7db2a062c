//! Every error a user can cause is typed, names what and where, and loses nothing stored.

use std::os::unix::fs::FileExt;
use std::path::PathBuf;

use crate::db::tests::small;
use crate::scratch::scratch;
use crate::{Db, Error, Options, Scheme, WriteBatch};

fn key(i: u64) -> Vec<u8> {
    format!("key{i:08}").into_bytes()
}

/// A SOC store in the scratch folder `name` holding keys 0 to `keys` - 1, each with `value`.
fn filled(name: &str, keys: u64, value: &[u8]) -> (PathBuf, Db) {
    let dir = scratch(name);
    let db = Db::open(&dir, small(Scheme::Soc, true)).unwrap();
    for i in 0..keys {
        db.put(&key(i), value).unwrap();
    }
    (dir, db)
}

#[test]
fn oversized_keys_values_and_batches_are_refused_and_store_nothing() {
    let db = Db::open_in_memory(small(Scheme::Soc, true), None).unwrap();
    db.put(b"kept", b"v").unwrap();
    let e = db.put(&[b'k'; 65], b"v").unwrap_err();
    assert!(matches!(e, Error::KeyTooLarge { len: 65, max: 64 }), "{e}");
    assert!(e.to_string().contains("65 bytes") && e.to_string().contains("max_key_len"));
    assert!(matches!(db.put(b"k", &[0; 4097]), Err(Error::ValueTooLarge { len: 4097, max: 4096 })));
    let mut b = WriteBatch::new();
    for i in 0..40 {
        b.put(&key(i), &[1; 4000]);
    }
    b.put(b"late", &[0; 5000]);
    assert!(matches!(db.write(&b, true), Err(Error::ValueTooLarge { .. })), "one bad entry refuses the whole batch");
    assert_eq!(db.get(&key(0)).unwrap(), None, "nothing of a refused batch is stored");
    b = WriteBatch::new();
    for i in 0..40 {
        b.put(&key(i), &[1; 4000]);
    }
    assert!(matches!(db.write(&b, true), Err(Error::BatchTooLarge { .. })));
    assert_eq!(db.get(b"kept").unwrap(), Some(b"v".to_vec()));
    db.put(b"after", b"ok").unwrap();
}

#[test]
fn a_full_device_is_reported_and_what_was_stored_stays_readable() {
    let dir = scratch("full");
    let options = || Options { capacity: Some(64 * 1024 * 10), ..small(Scheme::Soc, true) };
    let db = Db::open(&dir, options()).unwrap();
    let mut stored = 0;
    let err = loop {
        match db.put(&key(stored), &[9; 2000]) {
            Ok(()) => stored += 1,
            Err(e) => break e,
        }
        assert!(stored < 10_000, "a 640 KiB device cannot take 20 MB");
    };
    assert!(err.to_string().contains("device full"), "{err}");
    assert!(matches!(err, Error::WritesRefused { .. } | Error::DeviceFull { .. }), "{err:?}");
    assert!(err.to_string().contains("writes are refused") || matches!(err, Error::DeviceFull { .. }), "{err}");
    // Writes stay refused; reads go on.
    assert!(db.put(b"x", b"y").is_err());
    assert_eq!(db.get(&key(0)).unwrap(), Some(vec![9; 2000]));
    drop(db);
    let db = Db::open(&dir, options()).unwrap();
    let flushed = (0..stored).filter(|&i| db.get(&key(i)).unwrap() == Some(vec![9; 2000])).count() as u64;
    assert_eq!(flushed, stored, "every acknowledged write is there (the log was synced at close)");
    let refused = db.put(b"x", b"y").unwrap_err();
    assert!(refused.to_string().contains("device is full"), "{refused}");
    drop(db);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn other_parameters_a_second_opening_and_foreign_files_are_refused_by_name() {
    let dir = scratch("params");
    let db = Db::open(&dir, small(Scheme::Soc, true)).unwrap();
    db.put(b"k", b"v").unwrap();
    let second = Db::open(&dir, small(Scheme::Soc, true)).err().unwrap();
    assert!(matches!(second, Error::Locked { .. }) && second.to_string().contains("LOCK"), "{second}");
    db.close().unwrap();

    let e = Db::open(&dir, Options { band_size: Some(128 * 1024), ..small(Scheme::Soc, true) }).err().unwrap();
    assert!(matches!(e, Error::ParameterMismatch { parameter: "band_size", .. }), "{e}");
    assert!(e.to_string().contains("65536") && e.to_string().contains("131072"), "{e}");
    let e = Db::open(&dir, small(Scheme::Loc, true)).err().unwrap();
    assert!(
        matches!(e, Error::ParameterMismatch { parameter: "compaction", .. }) && e.to_string().contains("soc"),
        "{e}"
    );
    let e = Db::open(&dir, Options { capacity: Some(64 * 1024 * 64), ..small(Scheme::Soc, true) }).err().unwrap();
    assert!(matches!(e, Error::ParameterMismatch { parameter: "capacity", .. }), "{e}");
    // Unstated parameters are taken from the store.
    let db = Db::open(&dir, Options { band_size: None, capacity: None, compaction: None, ..small(Scheme::Soc, true) })
        .unwrap();
    assert_eq!(db.get(b"k").unwrap(), Some(b"v".to_vec()));
    assert_eq!(db.stats().scheme, "soc");
    db.close().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();

    let dir = scratch("foreign");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("bands"), b"this is not a zoned device").unwrap();
    let e = Db::open(&dir, small(Scheme::Soc, true)).err().unwrap();
    assert!(e.to_string().contains("bands") && e.to_string().contains("not a usable zoned-device file"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn damaged_data_is_reported_with_its_band_and_bytes_and_the_rest_stays_readable() {
    let (dir, db) = filled("damage", 3000, &[b'v'; 100]);
    db.compact().unwrap();
    let s = db.stats();
    db.close().unwrap();
    assert!(s.levels[1].0 >= 3, "{s:?}");
    // Damage a byte in the middle of the first data band (bands 0-1 hold metadata; the device
    // file has a 4 KiB header and two 4 KiB zone-state slots before zone 0).
    let file = std::fs::OpenOptions::new().read(true).write(true).open(dir.join("bands")).unwrap();
    let data_start = 4096 + 2 * 4096;
    let db = Db::open(&dir, small(Scheme::Soc, true)).unwrap();
    let victim = db.tables().into_iter().find(|(level, _)| *level == 1).unwrap().1;
    db.close().unwrap();
    let at = data_start + victim.band * 64 * 1024 + 2000;
    let mut byte = [0u8];
    file.read_exact_at(&mut byte, at).unwrap();
    file.write_all_at(&[byte[0] ^ 0xFF], at).unwrap();
    drop(file);
    let db = Db::open(&dir, small(Scheme::Soc, true)).unwrap();
    let mut damaged = None;
    let mut readable = 0;
    for i in 0..3000 {
        match db.get(&key(i)) {
            Ok(v) => {
                assert_eq!(v, Some(vec![b'v'; 100]));
                readable += 1;
            }
            Err(e) => damaged = Some(e),
        }
    }
    let e = damaged.expect("a key in the damaged block is reported");
    assert!(matches!(e, Error::Corruption { .. }), "{e}");
    let text = e.to_string();
    assert!(text.contains(&format!("band {}", victim.band)) && text.contains("checksum"), "{text}");
    assert!(readable > 2900, "only the damaged block is lost to reads: {readable}");
    db.close().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_store_whose_data_file_is_gone_is_an_error_naming_it_never_an_empty_store() {
    // Issue 42: a store of 6,000 synced keys whose data file was deleted opened as an empty store.
    let (dir, db) = filled("gone", 6000, b"v");
    db.sync().unwrap();
    db.close().unwrap();
    std::fs::remove_file(dir.join("bands")).unwrap();
    for create in [true, false] {
        let e = Db::open(&dir, Options { create_if_missing: create, ..small(Scheme::Soc, true) }).err().unwrap();
        assert!(
            matches!(e, Error::MissingFile { .. }) && e.to_string().contains(&dir.join("bands").display().to_string()),
            "{e}"
        );
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "only the lock file is left: nothing was created");
    std::fs::remove_dir_all(&dir).unwrap();

    // A folder with no store is one only when asked; refusing creates nothing.
    let e = Db::open(&dir, Options { create_if_missing: false, ..small(Scheme::Soc, true) }).err().unwrap();
    assert!(matches!(e, Error::NoStore { .. }) && !dir.exists(), "{e}");
    Db::open(&dir, small(Scheme::Soc, true)).unwrap().close().unwrap();
    Db::open(&dir, Options { create_if_missing: false, ..small(Scheme::Soc, true) }).unwrap().close().unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}
