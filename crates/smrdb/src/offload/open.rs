//! Opening an offloading store, in the shared shape of opening (`reopen`): the newest metadata
//! record gives the tables of levels 1 to 3, the disk bands holding unsorted units, and the
//! sequence number up to which level 0 was compacted; the NVRAM device's written bands are the
//! offloaded units. Units are rebuilt from their frames (up to the first torn one), ordered by
//! sequence number; those already compacted are reset. A new disk band takes the writes, and a
//! record naming exactly the live bands is made durable before any other band is reset.

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Arc;
use std::time::Instant;

use smr_zoned::{FileGeometry, FileZonedDevice};

use super::unit::{Unit, UnitIndex};
use super::{Counters, Current, Inner, OffloadOptions, OpenUnit, Shape, Writer, LEVELS, MAX_BUFFER_BANDS};
use crate::device::BandDevice;
use crate::env::Env;
use crate::error::{Error, Result};
use crate::guarded::{Guarded, Standing};
use crate::log::writer::LogWriter;
use crate::manifest::Manifest;
use crate::memtable::MemTable;
use crate::options::{Geometry, Options, Scheme, METADATA_ZONES};
use crate::reopen::{commit, read_only, reopen, reset_written, Found, Reopen};

/// Opens the NVRAM device file `path`, or creates it (no conventional zones); an existing one
/// must have the options' band size.
pub fn open_nvram_file(path: &Path, store: &str, options: &Options) -> Result<FileZonedDevice> {
    let device_error = |source| Error::Device { store: store.to_string(), source };
    let g = options.new_geometry()?;
    if !path.exists() {
        return FileZonedDevice::create(path, FileGeometry { zone_size: g.band_size, zones: g.zones, conventional: 0 })
            .map_err(device_error);
    }
    let device = FileZonedDevice::open(path).map_err(device_error)?;
    if device.geometry().zone_size != g.band_size || device.geometry().conventional != 0 {
        return Err(Error::ParameterMismatch {
            store: store.into(),
            parameter: "band_size",
            stored: format!("{} (NVRAM device {})", device.geometry().zone_size, path.display()),
            requested: g.band_size.to_string(),
        });
    }
    Ok(device)
}

/// Opens the offloading store on `disk` and, if given, the NVRAM device.
pub fn recover(
    disk: Box<dyn BandDevice>,
    nvram: Option<Box<dyn BandDevice>>,
    store: String,
    options: OffloadOptions,
) -> Result<Inner> {
    if options.base.compaction == Some(Scheme::Soc) {
        return Err(Error::InvalidOption {
            option: "compaction",
            problem: "the offloading store compacts LevelDB-style (loc) only".into(),
        });
    }
    if let Some(&bands) = options.buffer_bands.iter().find(|&&b| b == 0 || b > MAX_BUFFER_BANDS) {
        return Err(Error::InvalidOption {
            option: "buffer_bands",
            problem: format!("a buffer level holds 1 to {MAX_BUFFER_BANDS} bands, not {bands}"),
        });
    }
    let disk = Arc::new(Env::new(disk, store.clone()).with_block_cache(options.base.block_cache));
    let nvram = nvram.map(|d| Arc::new(Env::new(d, format!("{store} (NVRAM device)"))));
    if let Some(n) = &nvram {
        if n.band_size != disk.band_size || n.device.conventional_zones() != 0 {
            return Err(Error::InvalidOption {
                option: "nvram",
                problem: format!("the NVRAM device needs {}-byte bands and no conventional zones", disk.band_size),
            });
        }
    }
    let base = Options { compaction: Some(Scheme::Loc), ..options.base.clone() };
    reopen(disk, &base, Offloading { nvram, options, units: Vec::new(), dead_disk_bands: Vec::new(), last_sequence: 0 })
}

/// What opening the offloading store adds to the shared shape: the units of the disk's named
/// bands and of the NVRAM device's written bands, those already compacted reset, and a new
/// disk band for the writes.
struct Offloading {
    nvram: Option<Arc<Env>>,
    options: OffloadOptions,
    /// Live units, ordered by sequence number.
    units: Vec<Unit>,
    /// Disk bands the record names whose units are compacted already (reset once the next
    /// record is durable).
    dead_disk_bands: Vec<u64>,
    last_sequence: u64,
}

impl Reopen for Offloading {
    type State = Inner;

    fn check_record(&self, env: &Env, record: &Manifest) -> Result<()> {
        let g = record.geometry;
        if g.scheme != Scheme::Loc || g.band_size != env.band_size || g.zones != env.device.zone_count() {
            return Err(env.corruption(
                "metadata",
                format!("record {}", record.number),
                "it does not describe an offloading store on this device",
            ));
        }
        Ok(())
    }

    fn levels(&self, _: &Geometry) -> (usize, usize) {
        (LEVELS, 1)
    }

    /// Units: the disk's named unsorted bands and the NVRAM device's written bands.
    fn read_logs(&mut self, disk: &Arc<Env>, found: &Found, filled: &[u64]) -> Result<()> {
        let compacted_up_to = found.manifest.last_sequence;
        for &band in &found.manifest.log_bands {
            match Unit::recover(disk.clone(), band, false, filled[band as usize])? {
                Some(u) if u.last_sequence > compacted_up_to => self.units.push(u),
                _ => self.dead_disk_bands.push(band),
            }
        }
        if let Some(n) = &self.nvram {
            let nv_filled = n.device.filled();
            let mut nvram_free = Vec::new();
            for band in 0..n.device.zone_count() {
                match Unit::recover(n.clone(), band, true, nv_filled[band as usize])? {
                    Some(u) if u.last_sequence > compacted_up_to => self.units.push(u),
                    _ => {
                        reset_written(n, &[band], &nv_filled)?;
                        nvram_free.push(band);
                    }
                }
            }
            n.sync()?;
            n.set_free(nvram_free);
        }
        self.units.sort_by_key(|u| u.first_sequence);
        self.last_sequence = self.units.iter().map(|u| u.last_sequence).max().unwrap_or(0).max(compacted_up_to);
        Ok(())
    }

    fn finish(self, disk: Arc<Env>, found: Found, mut free: Vec<u64>) -> Result<Inner> {
        let Offloading { nvram, options, units, dead_disk_bands, last_sequence } = self;
        let Found { manifest, geometry: g, limits, shape: table_shape, version } = found;
        let units: Vec<Arc<Unit>> = units.into_iter().map(Arc::new).collect();
        let tables: Vec<(u32, _)> = version.tables().map(|(l, t)| (l as u32, t.meta.clone())).collect();
        let unit_bands = |open: Option<u64>| -> Vec<u64> {
            units.iter().filter(|u| !u.on_nvram).map(|u| u.band).chain(open).collect()
        };
        let mut record = Manifest {
            number: manifest.number + 1,
            geometry: g,
            last_sequence: manifest.last_sequence,
            next_table_id: manifest.next_table_id.max(1),
            log_bands: unit_bands(None),
            compact_pointers: manifest.compact_pointers.clone(),
            tables,
        };
        if free.is_empty() && !dead_disk_bands.is_empty() {
            // Bands of units compacted before a crash are the only room: a record that no longer
            // names them lets them be reset first.
            commit(&disk, &record, dead_disk_bands.clone())?;
            record.number += 1;
            free = dead_disk_bands.clone();
        } else {
            free.extend(dead_disk_bands);
        }
        // Every disk band holds live data: open read-only, the record as it is, every unit
        // readable; writes report the full device.
        let full = free.is_empty();
        let open_band = if full { record.log_bands.last().copied().unwrap_or(METADATA_ZONES) } else { free.remove(0) };
        if full {
            record = manifest.clone();
        } else {
            record.log_bands = unit_bands(Some(open_band));
            commit(&disk, &record, free)?;
        }
        let writer_error = full.then(|| read_only(g.zones - METADATA_ZONES));
        let next_table_id = AtomicU64::new(record.next_table_id);
        let pointers = record.compact_pointers.clone();
        Ok(Inner {
            disk,
            nvram,
            geometry: g,
            limits,
            table_shape,
            guarded: Guarded::new(
                Writer {
                    open: OpenUnit {
                        on_nvram: false,
                        band: open_band,
                        log: LogWriter::new(open_band, limits.log_buffer),
                        index: UnitIndex::new(),
                        first_sequence: None,
                        last_sequence: 0,
                        user_bytes: 0,
                    },
                    parked: None,
                    last_sequence,
                },
                record,
                Current {
                    mem: Arc::new(MemTable::new(options.base.block_size)),
                    shape: Arc::new(Shape { units, version: Arc::new(version) }),
                    visible_sequence: last_sequence,
                    standing: Standing { writer_error, ..Standing::default() },
                    pointers,
                },
            ),
            options,
            next_table_id,
            compacting: AtomicBool::new(false),
            counters: Counters::default(),
            opened: Instant::now(),
        })
    }
}
