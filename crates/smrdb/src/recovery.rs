//! Opening SMRDB: the device file (created, or checked against the options), then the shared
//! shape of opening (`reopen`) with what this store adds: the log bands the record names are
//! replayed up to their first torn or damaged record, what they held is written as level 0
//! tables at once, and a new log band is started. Not here: the offloading store's opening
//! (`offload::open`).

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use smr_zoned::{FileGeometry, FileZonedDevice};

use crate::batch::WriteBatch;
use crate::device::BandDevice;
use crate::env::Env;
use crate::error::{Error, Result};
use crate::guarded::{Guarded, Standing};
use crate::log::reader::read_records;
use crate::log::writer::LogWriter;
use crate::manifest::Manifest;
use crate::memtable::MemTable;
use crate::options::{Geometry, Options, Scheme, METADATA_ZONES};
use crate::reopen::{commit, read_only, reopen, Found, Reopen};
use crate::state::{Current, Inner, Writer};
use crate::table::Table;
use crate::util::mutex::lock;

/// Opens the device file `path` (`dir/bands` for a store), or creates it with the options'
/// geometry; given parameters must match those recorded in an existing file.
pub fn open_file_device(path: &Path, store: &str, options: &Options) -> Result<FileZonedDevice> {
    let device_error = |source| Error::Device { store: store.to_string(), source };
    if !path.exists() {
        let g = options.new_geometry()?;
        return FileZonedDevice::create(
            path,
            FileGeometry { zone_size: g.band_size, zones: g.zones, conventional: METADATA_ZONES },
        )
        .map_err(device_error);
    }
    let device = FileZonedDevice::open(path).map_err(device_error)?;
    let found = device.geometry();
    if found.conventional != METADATA_ZONES {
        return Err(Error::Corruption {
            store: store.into(),
            what: "device file".into(),
            location: path.display().to_string(),
            problem: format!("{} conventional zones, a store has {METADATA_ZONES}", found.conventional),
        });
    }
    let mismatch = |parameter, stored: u64, requested: u64| Error::ParameterMismatch {
        store: store.into(),
        parameter,
        stored: stored.to_string(),
        requested: requested.to_string(),
    };
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
    let env = Arc::new(Env::new(device, store).with_block_cache(options.block_cache));
    let replay = MemTable::new(options.block_size);
    reopen(env, &options.clone(), Plain { options, replay, last_sequence: 0 })
}

/// What opening SMRDB adds to the shared shape: the log bands replayed into a memtable,
/// written as level 0 tables at once into a store with a new log band.
struct Plain {
    options: Options,
    replay: MemTable,
    last_sequence: u64,
}

impl Reopen for Plain {
    type State = Inner;

    fn check_record(&self, env: &Env, record: &Manifest) -> Result<()> {
        check_recorded(&env.store, &record.geometry, &self.options, env.band_size, env.device.zone_count())
    }

    fn levels(&self, geometry: &Geometry) -> (usize, usize) {
        match geometry.scheme {
            Scheme::Loc => (self.options.levels, 0),
            Scheme::Soc => (2, 0),
        }
    }

    /// Replays the logs into the memtable, up to each band's first torn or damaged record.
    fn read_logs(&mut self, env: &Arc<Env>, found: &Found, filled: &[u64]) -> Result<()> {
        let manifest = &found.manifest;
        self.last_sequence = manifest.last_sequence;
        for &band in &manifest.log_bands {
            let (records, _torn) = read_records(env, band, filled[band as usize])?;
            for (i, payload) in records.iter().enumerate() {
                let (first, batch) = WriteBatch::decode(payload).ok_or_else(|| {
                    env.corruption(
                        "log record",
                        format!("band {band}, record {i}"),
                        "checksum holds but the write batch is malformed",
                    )
                })?;
                for (j, (kind, key, value)) in batch.entries().enumerate() {
                    let seq = first + j as u64;
                    if seq > manifest.last_sequence {
                        self.replay.insert(seq, kind, key, value);
                        self.last_sequence = self.last_sequence.max(seq);
                    }
                }
            }
        }
        Ok(())
    }

    fn finish(self, env: Arc<Env>, found: Found, mut free: Vec<u64>) -> Result<Inner> {
        let Plain { options, replay, last_sequence } = self;
        let Found { manifest, geometry: g, limits, shape, version } = found;
        let zones = env.device.zone_count();
        // Every band holds live data: open read-only, the logs' writes in the memtable, the
        // metadata as it is; writes report the full device.
        let full = free.is_empty();
        let log_band = if full { manifest.log_bands.last().copied().unwrap_or(METADATA_ZONES) } else { free.remove(0) };
        let inner = Inner {
            env: env.clone(),
            options: options.clone(),
            geometry: g,
            limits,
            shape,
            guarded: Guarded::new(
                Writer { log: LogWriter::new(log_band, limits.log_buffer), last_sequence },
                manifest.clone(),
                Current {
                    mem: Arc::new(MemTable::new(options.block_size)),
                    imm: None,
                    imm_last_sequence: last_sequence,
                    version: Arc::new(version.clone()),
                    visible_sequence: last_sequence,
                    standing: Standing {
                        writer_error: full.then(|| read_only(zones - METADATA_ZONES)),
                        ..Standing::default()
                    },
                    manual_requested: 0,
                    manual_done: 0,
                },
            ),
            next_table_id: AtomicU64::new(manifest.next_table_id.max(1)),
            pointers: Mutex::new(manifest.compact_pointers.clone()),
            stepping: Mutex::new(()),
        };
        env.set_free(free);
        if full {
            lock(&inner.guarded.current).mem = Arc::new(replay);
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
            next_table_id: inner.next_table_id.load(Relaxed),
            log_bands: vec![log_band],
            compact_pointers: manifest.compact_pointers.clone(),
            tables: version.tables().map(|(l, t)| (l as u32, t.meta.clone())).collect(),
        };
        // Once the record naming exactly the live bands is durable, the old log bands are reset.
        let live: Vec<u64> = version.tables().map(|(_, t)| t.meta.band).chain([log_band]).collect();
        commit(&env, &record, (METADATA_ZONES..zones).filter(|b| !live.contains(b)).collect())?;
        *lock(&inner.guarded.meta) = record;
        lock(&inner.guarded.current).version = Arc::new(version);
        Ok(inner)
    }
}

fn check_recorded(store: &str, g: &Geometry, options: &Options, band_size: u64, zones: u64) -> Result<()> {
    let corrupt = |problem: String| Error::Corruption {
        store: store.into(),
        what: "metadata".into(),
        location: "the metadata record".into(),
        problem,
    };
    if g.band_size != band_size || g.zones != zones {
        return Err(corrupt(format!(
            "records {} bands of {} bytes, the device has {zones} of {band_size}",
            g.zones, g.band_size
        )));
    }
    if let Some(s) = options.compaction.filter(|&s| s != g.scheme) {
        return Err(Error::ParameterMismatch {
            store: store.into(),
            parameter: "compaction",
            stored: g.scheme.name().into(),
            requested: s.name().into(),
        });
    }
    Ok(())
}
