//! The one shape of opening a store, shared by SMRDB (`recovery`) and its offloading variant
//! (`offload::open`): read the newest valid metadata record (or start one for an empty device),
//! check it, open the tables it names, let the store read what its log bands hold, reset every
//! written band the record does not name, and let the store build its state on the empty
//! bands that are left. A store then writes a record naming exactly its live bands with
//! `commit`, which resets the bands the old record named only once the new one is durable, so
//! no band is leaked and nothing acknowledged is lost. Not here: what a store's log bands hold
//! or how it replays them (`Reopen`'s implementations).

use std::sync::Arc;

use crate::env::{Env, Stats};
use crate::error::Result;
use crate::manifest::Manifest;
use crate::options::{Geometry, Limits, Options, Scheme, METADATA_ZONES};
use crate::table::builder::TableShape;
use crate::table::Table;
use crate::version::Version;

/// What the metadata record in force gives a store being opened.
pub(crate) struct Found {
    pub manifest: Manifest,
    pub geometry: Geometry,
    pub limits: Limits,
    pub shape: TableShape,
    /// The tables the record names, opened, by level.
    pub version: Version,
}

/// The parts of opening that differ between the two stores.
pub(crate) trait Reopen {
    /// The open store's shared state.
    type State;
    /// Refuses a record that does not describe this kind of store on this device, or that
    /// disagrees with the options.
    fn check_record(&self, env: &Env, record: &Manifest) -> Result<()>;
    /// The version's levels and the shallowest level a table may be in.
    fn levels(&self, geometry: &Geometry) -> (usize, usize);
    /// Reads what the record's log bands hold (`filled`: the bytes written in each band).
    fn read_logs(&mut self, env: &Arc<Env>, found: &Found, filled: &[u64]) -> Result<()>;
    /// Builds the store; `free` holds the empty bands the record does not name, in order.
    fn finish(self, env: Arc<Env>, found: Found, free: Vec<u64>) -> Result<Self::State>;
}

/// Why a store whose `bands` all hold live data refuses writes: it opened read-only.
pub(crate) fn read_only(bands: u64) -> String {
    format!(
        "the device is full (all {bands} bands hold live data), so the store opened read-only: every key can be read; copy them into a store with a larger capacity"
    )
}

/// Opens the store on `env`'s device with `options` (their geometry is a new store's).
pub(crate) fn reopen<R: Reopen>(env: Arc<Env>, options: &Options, mut store: R) -> Result<R::State> {
    let zones = env.device.zone_count();
    let filled = env.device.filled();
    let manifest = newest_record(&env, options, &filled)?;
    store.check_record(&env, &manifest)?;
    let geometry = manifest.geometry;
    options.check(&geometry)?;
    let limits = options.limits(&geometry)?;
    let shape = TableShape {
        block_size: options.block_size,
        bloom_bits_per_key: options.bloom_bits_per_key,
        histogram_bytes: limits.histogram_bytes,
    };
    let (levels, shallowest) = store.levels(&geometry);
    let mut version = Version::new(levels, geometry.scheme == Scheme::Loc);
    for (level, meta) in &manifest.tables {
        let level = *level as usize;
        if !(shallowest..levels).contains(&level) {
            return Err(env.corruption(
                "metadata",
                format!("record {}", manifest.number),
                format!("table {} is in level {level}; tables live in levels {shallowest} to {}", meta.id, levels - 1),
            ));
        }
        version.levels[level].push(Arc::new(Table::open(env.clone(), meta.clone())?));
    }
    version.sort();
    let found = Found { manifest, geometry, limits, shape, version };
    store.read_logs(&env, &found, &filled)?;

    // Written bands the record does not name (outputs of a flush or compaction a crash or a
    // full device interrupted, bands retired before the crash) hold nothing live: reset them
    // now, so they can take the new log and what the logs held.
    let named: Vec<u64> =
        found.version.tables().map(|(_, t)| t.meta.band).chain(found.manifest.log_bands.iter().copied()).collect();
    let unnamed: Vec<u64> = (METADATA_ZONES..zones).filter(|b| !named.contains(b)).collect();
    reset_written(&env, &unnamed, &filled)?;
    let filled = env.device.filled();
    let free = unnamed.into_iter().filter(|&b| filled[b as usize] == 0).collect();
    store.finish(env, found, free)
}

/// The newest valid metadata record, or a new store's first where the device holds nothing.
fn newest_record(env: &Env, options: &Options, filled: &[u64]) -> Result<Manifest> {
    let (found, damaged) = Manifest::read_newest(env)?;
    if let Some(m) = found {
        return Ok(m);
    }
    if damaged || filled.iter().any(|&f| f > 0) {
        return Err(env.corruption(
            "metadata",
            "the metadata zones",
            if damaged {
                "no valid metadata record (both slots damaged)"
            } else {
                "bands hold data but there is no metadata record"
            },
        ));
    }
    let zones = env.device.zone_count();
    let geometry = Options { band_size: Some(env.band_size), capacity: Some(zones * env.band_size), ..options.clone() }
        .new_geometry()?;
    Ok(Manifest {
        number: 0,
        geometry,
        last_sequence: 0,
        next_table_id: 1,
        log_bands: Vec::new(),
        compact_pointers: Vec::new(),
        tables: Vec::new(),
    })
}

/// Makes `record` durable, then resets those of `free` that hold bytes (the bands the previous
/// record named and this one does not), syncs, and gives `free` to `env` to allocate from.
pub(crate) fn commit(env: &Env, record: &Manifest, free: Vec<u64>) -> Result<()> {
    record.write(env)?;
    reset_written(env, &free, &env.device.filled())?;
    env.sync()?;
    env.set_free(free);
    Ok(())
}

/// Resets each of `bands` that holds bytes (`filled`), in order.
pub(crate) fn reset_written(env: &Env, bands: &[u64], filled: &[u64]) -> Result<()> {
    for &band in bands {
        if filled[band as usize] > 0 {
            env.device.reset(band).map_err(|e| env.device_error(e))?;
            Stats::add(&env.stats.bands_reset, 1);
        }
    }
    Ok(())
}
