//! Opening a store: the device file (created, or checked against the options), the newest
//! valid metadata record, its tables, and the log bands it names, replayed up to their first
//! torn or damaged record. What the logs held is written as level 0 tables at once, a new log
//! band is started, and a metadata record naming exactly the live bands is made durable before
//! any other band is reset, so no band is leaked and nothing acknowledged is lost.

use std::path::Path;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Condvar, Mutex};

use smr_core::zoned::{FileGeometry, FileZonedDevice};

use crate::batch::WriteBatch;
use crate::device::BandDevice;
use crate::env::Env;
use crate::error::{Error, Result};
use crate::log::reader::read_records;
use crate::log::writer::LogWriter;
use crate::manifest::Manifest;
use crate::memtable::MemTable;
use crate::options::{Geometry, Options, METADATA_ZONES};
use crate::state::{Current, Inner, Writer};
use crate::table::builder::TableShape;
use crate::table::Table;
use crate::util::mutex::lock;
use crate::version::Version;

/// Opens the device file `path` (`dir/bands` for a store), or creates it with the options'
/// geometry; given parameters must match those recorded in an existing file.
pub fn open_file_device(path: &Path, store: &str, options: &Options) -> Result<FileZonedDevice> {
    let device_error = |source| Error::Device { store: store.to_string(), source };
    if !path.exists() {
        let g = options.new_geometry()?;
        return FileZonedDevice::create(path, FileGeometry { zone_size: g.band_size, zones: g.zones, conventional: METADATA_ZONES }).map_err(device_error);
    }
    let device = FileZonedDevice::open(path).map_err(device_error)?;
    let found = device.geometry();
    if found.conventional != METADATA_ZONES {
        return Err(Error::Corruption { store: store.into(), what: "device file".into(), location: path.display().to_string(), problem: format!("{} conventional zones, a store has {METADATA_ZONES}", found.conventional) });
    }
    let mismatch = |parameter, stored: u64, requested: u64| Error::ParameterMismatch { store: store.into(), parameter, stored: stored.to_string(), requested: requested.to_string() };
    if let Some(b) = options.band_size.filter(|&b| b != found.zone_size) {
        return Err(mismatch("band_size", found.zone_size, b));
    }
    if let Some(c) = options.capacity.filter(|&c| c / found.zone_size != found.zones) {
        return Err(mismatch("capacity", found.zones * found.zone_size, c));
    }
    Ok(device)
}


/// Recovers the store on `device` and returns its shared state, ready for use.
pub fn recover(device: Box<dyn BandDevice>, store: String, options: Options) -> Result<Inner> {
    let env = Arc::new(Env::new(device, store.clone()));
    let zones = env.device.zone_count();
    let filled = env.device.filled();
    let (found, damaged) = Manifest::read_newest(&env)?;
    let manifest = match found {
        Some(m) => m,
        None => {
            let in_use = filled.iter().any(|&f| f > 0);
            if damaged || in_use {
                return Err(env.corruption("metadata", "the metadata zones", if damaged { "no valid metadata record (both slots damaged)" } else { "bands hold data but there is no metadata record" }));
            }
            let g = Options { band_size: Some(env.band_size), capacity: Some(zones * env.band_size), ..options.clone() }.new_geometry()?;
            Manifest { number: 0, geometry: g, last_sequence: 0, next_table_id: 1, log_bands: Vec::new(), compact_pointers: Vec::new(), tables: Vec::new() }
        }
    };
    let g = manifest.geometry;
    check_recorded(&store, &g, &options, env.band_size, zones)?;
    options.check(&g)?;
    let limits = options.limits(&g)?;
    let shape = TableShape { block_size: options.block_size, bloom_bits_per_key: options.bloom_bits_per_key, histogram_bytes: limits.histogram_bytes };

    let levels = match g.scheme {
        crate::options::Scheme::Loc => options.levels,
        crate::options::Scheme::Soc => 2,
    };
    let mut version = Version::new(levels, g.scheme == crate::options::Scheme::Loc);
    for (level, meta) in &manifest.tables {
        let level = *level as usize;
        if level >= levels {
            return Err(env.corruption("metadata", format!("record {}", manifest.number), format!("table {} is in level {level}, the scheme has {levels}", meta.id)));
        }
        version.levels[level].push(Arc::new(Table::open(env.clone(), meta.clone())?));
    }
    version.sort();

    // Replay the logs into a memtable.
    let replay = MemTable::new(options.block_size);
    let mut last_sequence = manifest.last_sequence;
    for &band in &manifest.log_bands {
        let (records, _torn) = read_records(&env, band, filled[band as usize])?;
        for (i, payload) in records.iter().enumerate() {
            let (first, batch) = WriteBatch::decode(payload).ok_or_else(|| env.corruption("log record", format!("band {band}, record {i}"), "checksum holds but the write batch is malformed"))?;
            for (j, (kind, key, value)) in batch.entries().enumerate() {
                let seq = first + j as u64;
                if seq > manifest.last_sequence {
                    replay.insert(seq, kind, key, value);
                    last_sequence = last_sequence.max(seq);
                }
            }
        }
    }

    // Written bands the record does not name (outputs of a flush or compaction a crash or a
    // full device interrupted, bands retired before the crash) hold nothing live: reset them
    // now, so they can take the new log and the flush of what the logs held.
    let named: Vec<u64> = version.tables().map(|(_, t)| t.meta.band).chain(manifest.log_bands.iter().copied()).collect();
    for band in METADATA_ZONES..zones {
        if filled[band as usize] > 0 && !named.contains(&band) {
            env.device.reset(band).map_err(|e| env.device_error(e))?;
            crate::env::Stats::add(&env.stats.bands_reset, 1);
        }
    }
    let filled = env.device.filled();
    let mut free: Vec<u64> = (METADATA_ZONES..zones).filter(|b| !named.contains(b) && filled[*b as usize] == 0).collect();
    // Every band holds live data: open read-only, the logs' writes in the memtable, the
    // metadata as it is; writes report the full device.
    let full = free.is_empty();
    let log_band = if full { manifest.log_bands.last().copied().unwrap_or(METADATA_ZONES) } else { free.remove(0) };
    let next_table_id = AtomicU64::new(manifest.next_table_id.max(1));

    let inner = Inner {
        env: env.clone(),
        options: options.clone(),
        geometry: g,
        limits,
        shape,
        writer: Mutex::new(Writer {
            log: LogWriter::new(log_band, limits.log_buffer),
            last_sequence,
            failed: full.then(|| format!("the device is full: all {} bands hold live data (it opened read-only: copy what it holds into a store with a larger capacity)", zones - METADATA_ZONES)),
        }),
        meta: Mutex::new(manifest.clone()),
        current: Mutex::new(Current {
            mem: Arc::new(MemTable::new(options.block_size)),
            imm: None,
            imm_last_sequence: last_sequence,
            version: Arc::new(version.clone()),
            visible_sequence: last_sequence,
            background_error: None,
            closing: false,
            manual_requested: 0,
            manual_done: 0,
        }),
        work: Condvar::new(),
        progress: Condvar::new(),
        next_table_id,
        pointers: Mutex::new(manifest.compact_pointers.clone()),
        stepping: Mutex::new(()),
    };
    env.set_free(free);
    if full {
        lock(&inner.current).mem = Arc::new(replay);
        return Ok(inner);
    }
    let replayed = if replay.is_empty() { Vec::new() } else { inner.build_tables(&replay)? };
    env.sync()?;
    let mut version = version;
    for meta in replayed {
        version.levels[0].push(Arc::new(Table::open(env.clone(), meta)?));
    }
    version.sort();
    let record = Manifest {
        number: manifest.number + 1,
        geometry: g,
        last_sequence,
        next_table_id: inner.next_table_id.load(std::sync::atomic::Ordering::Relaxed),
        log_bands: vec![log_band],
        compact_pointers: manifest.compact_pointers.clone(),
        tables: version.tables().map(|(l, t)| (l as u32, t.meta.clone())).collect(),
    };
    record.write(&env)?;
    *lock(&inner.meta) = record;
    lock(&inner.current).version = Arc::new(version.clone());

    // Now the durable record names exactly the live bands: reset the old log bands.
    let live: Vec<u64> = version.tables().map(|(_, t)| t.meta.band).chain([log_band]).collect();
    let filled = env.device.filled();
    let mut empty = Vec::new();
    for band in METADATA_ZONES..zones {
        if live.contains(&band) {
            continue;
        }
        if filled[band as usize] > 0 {
            env.device.reset(band).map_err(|e| env.device_error(e))?;
            crate::env::Stats::add(&env.stats.bands_reset, 1);
        }
        empty.push(band);
    }
    env.sync()?;
    env.set_free(empty);
    Ok(inner)
}

fn check_recorded(store: &str, g: &Geometry, options: &Options, band_size: u64, zones: u64) -> Result<()> {
    let corrupt = |problem: String| Error::Corruption { store: store.into(), what: "metadata".into(), location: "the metadata record".into(), problem };
    if g.band_size != band_size || g.zones != zones {
        return Err(corrupt(format!("records {} bands of {} bytes, the device has {zones} of {band_size}", g.zones, g.band_size)));
    }
    if let Some(s) = options.compaction.filter(|&s| s != g.scheme) {
        return Err(Error::ParameterMismatch { store: store.into(), parameter: "compaction", stored: g.scheme.name().into(), requested: s.name().into() });
    }
    Ok(())
}
