//! Opening an offloading store: the newest metadata record gives the tables of levels 1 to 3,
//! the disk bands holding unsorted units, and the sequence number up to which level 0 was
//! compacted; the NVRAM device's written bands are the offloaded units. Units are rebuilt from
//! their frames (up to the first torn one), ordered by sequence number; those already compacted
//! are reset. A new disk band takes the writes, and a record naming exactly the live bands is
//! made durable before any other band is reset.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use smr_zoned::{FileGeometry, FileZonedDevice};

use super::unit::{Unit, UnitIndex};
use super::{Counters, Current, Inner, OffloadOptions, OpenUnit, Shape, Writer, LEVELS, MAX_BUFFER_BANDS};
use crate::device::BandDevice;
use crate::env::{Env, Stats};
use crate::error::{Error, Result};
use crate::log::writer::LogWriter;
use crate::manifest::Manifest;
use crate::memtable::MemTable;
use crate::options::{Options, Scheme, METADATA_ZONES};
use crate::table::builder::TableShape;
use crate::table::Table;
use crate::version::Version;

/// Opens the NVRAM device file `path`, or creates it (no conventional zones); an existing one
/// must have the options' band size.
pub fn open_nvram_file(path: &Path, store: &str, options: &Options) -> Result<FileZonedDevice> {
    let device_error = |source| Error::Device { store: store.to_string(), source };
    let g = options.new_geometry()?;
    if !path.exists() {
        return FileZonedDevice::create(path, FileGeometry { zone_size: g.band_size, zones: g.zones, conventional: 0 }).map_err(device_error);
    }
    let device = FileZonedDevice::open(path).map_err(device_error)?;
    if device.geometry().zone_size != g.band_size || device.geometry().conventional != 0 {
        return Err(Error::ParameterMismatch { store: store.into(), parameter: "band_size", stored: format!("{} (NVRAM device {})", device.geometry().zone_size, path.display()), requested: g.band_size.to_string() });
    }
    Ok(device)
}

/// Resets `band` if it holds bytes.
fn reset_if_written(env: &Env, band: u64, filled: &[u64]) -> Result<()> {
    if filled[band as usize] > 0 {
        env.device.reset(band).map_err(|e| env.device_error(e))?;
        Stats::add(&env.stats.bands_reset, 1);
    }
    Ok(())
}

pub fn recover(disk: Box<dyn BandDevice>, nvram: Option<Box<dyn BandDevice>>, store: String, options: OffloadOptions) -> Result<Inner> {
    if options.base.compaction == Some(Scheme::Soc) {
        return Err(Error::InvalidOption { option: "compaction", problem: "the offloading store compacts LevelDB-style (loc) only".into() });
    }
    if let Some(&bands) = options.buffer_bands.iter().find(|&&b| b > MAX_BUFFER_BANDS) {
        return Err(Error::InvalidOption { option: "buffer_bands", problem: format!("a buffer level holds at most {MAX_BUFFER_BANDS} bands, not {bands}") });
    }
    let disk = Arc::new(Env::new(disk, store.clone()));
    let nvram = nvram.map(|d| Arc::new(Env::new(d, format!("{store} (NVRAM device)"))));
    if let Some(n) = &nvram {
        if n.band_size != disk.band_size || n.device.conventional_zones() != 0 {
            return Err(Error::InvalidOption { option: "nvram", problem: format!("the NVRAM device needs {}-byte bands and no conventional zones", disk.band_size) });
        }
    }
    let zones = disk.device.zone_count();
    let (found, damaged) = Manifest::read_newest(&disk)?;
    let filled = disk.device.filled();
    let manifest = match found {
        Some(m) => m,
        None => {
            if damaged || filled.iter().any(|&f| f > 0) {
                return Err(disk.corruption("metadata", "the metadata zones", if damaged { "no valid metadata record (both slots damaged)" } else { "bands hold data but there is no metadata record" }));
            }
            let g = Options { band_size: Some(disk.band_size), capacity: Some(zones * disk.band_size), compaction: Some(Scheme::Loc), ..options.base.clone() }.new_geometry()?;
            Manifest { number: 0, geometry: g, last_sequence: 0, next_table_id: 1, log_bands: Vec::new(), compact_pointers: Vec::new(), tables: Vec::new() }
        }
    };
    let g = manifest.geometry;
    if g.scheme != Scheme::Loc || g.band_size != disk.band_size || g.zones != zones {
        return Err(disk.corruption("metadata", format!("record {}", manifest.number), "it does not describe an offloading store on this device"));
    }
    options.base.check(&g)?;
    let limits = options.base.limits(&g)?;
    let table_shape = TableShape { block_size: options.base.block_size, bloom_bits_per_key: options.base.bloom_bits_per_key, histogram_bytes: limits.histogram_bytes };

    let mut version = Version::new(LEVELS, true);
    for (level, meta) in &manifest.tables {
        let level = *level as usize;
        if level == 0 || level >= LEVELS {
            return Err(disk.corruption("metadata", format!("record {}", manifest.number), format!("table {} is in level {level}; tables live in levels 1 to {}", meta.id, LEVELS - 1)));
        }
        version.levels[level].push(Arc::new(Table::open(disk.clone(), meta.clone())?));
    }
    version.sort();

    // Units: the disk's named unsorted bands and the NVRAM device's written bands.
    let mut units = Vec::new();
    let mut dead_disk_bands = Vec::new();
    for &band in &manifest.log_bands {
        match Unit::recover(disk.clone(), band, false, filled[band as usize])? {
            Some(u) if u.last_sequence > manifest.last_sequence => units.push(u),
            _ => dead_disk_bands.push(band),
        }
    }
    let mut nvram_free = Vec::new();
    if let Some(n) = &nvram {
        let nv_filled = n.device.filled();
        for band in 0..n.device.zone_count() {
            match Unit::recover(n.clone(), band, true, nv_filled[band as usize])? {
                Some(u) if u.last_sequence > manifest.last_sequence => units.push(u),
                _ => {
                    reset_if_written(n, band, &nv_filled)?;
                    nvram_free.push(band);
                }
            }
        }
        n.sync()?;
        n.set_free(nvram_free);
    }
    units.sort_by_key(|u| u.first_sequence);
    let last_sequence = units.iter().map(|u| u.last_sequence).max().unwrap_or(0).max(manifest.last_sequence);

    // Disk bands neither a table nor a live unit: reset, except what the current record names
    // (those only after the next record is durable).
    let live: Vec<u64> = version.tables().map(|(_, t)| t.meta.band).chain(units.iter().filter(|u| !u.on_nvram).map(|u| u.band)).collect();
    for band in METADATA_ZONES..zones {
        if !live.contains(&band) && !manifest.log_bands.contains(&band) {
            reset_if_written(&disk, band, &filled)?;
        }
    }
    let filled = disk.device.filled();
    let mut free: Vec<u64> = (METADATA_ZONES..zones).filter(|b| !live.contains(b) && !manifest.log_bands.contains(b) && filled[*b as usize] == 0).collect();
    if free.is_empty() {
        return Err(Error::DeviceFull { store: store.clone(), purpose: "the first unsorted band", bands: zones - METADATA_ZONES, band_size: disk.band_size });
    }
    let open_band = free.remove(0);

    let units: Vec<Arc<Unit>> = units.into_iter().map(Arc::new).collect();
    let record = Manifest {
        number: manifest.number + 1,
        geometry: g,
        last_sequence: manifest.last_sequence,
        next_table_id: manifest.next_table_id.max(1),
        log_bands: units.iter().filter(|u| !u.on_nvram).map(|u| u.band).chain([open_band]).collect(),
        compact_pointers: manifest.compact_pointers.clone(),
        tables: version.tables().map(|(l, t)| (l as u32, t.meta.clone())).collect(),
    };
    record.write(&disk)?;
    let filled = disk.device.filled();
    for &band in &dead_disk_bands {
        reset_if_written(&disk, band, &filled)?;
    }
    disk.sync()?;
    free.extend(dead_disk_bands);
    disk.set_free(free);

    let next_table_id = AtomicU64::new(record.next_table_id);
    let pointers = record.compact_pointers.clone();
    Ok(Inner {
        disk,
        nvram,
        geometry: g,
        limits,
        table_shape,
        writer: Mutex::new(Writer {
            open: OpenUnit { on_nvram: false, band: open_band, log: LogWriter::new(open_band, limits.log_buffer), index: UnitIndex::new(), first_sequence: None, last_sequence: 0, user_bytes: 0 },
            parked: None,
            last_sequence,
            failed: None,
        }),
        meta: Mutex::new(record),
        current: Mutex::new(Current {
            mem: Arc::new(MemTable::new(options.base.block_size)),
            shape: Arc::new(Shape { units, version: Arc::new(version) }),
            visible_sequence: last_sequence,
            background_error: None,
            closing: false,
            pointers,
        }),
        options,
        work: Condvar::new(),
        progress: Condvar::new(),
        next_table_id,
        compacting: AtomicBool::new(false),
        counters: Counters::default(),
        opened: Instant::now(),
    })
}
