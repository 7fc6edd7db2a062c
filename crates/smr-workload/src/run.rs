//! One YCSB run, as `smrlab kv ycsb` makes it: open or reach the store, load the records
//! (closed loop, in batches), draw the arrival schedule, issue one operation per arrival through
//! the open-loop executor, and report the summary with the store's counters. Also opening the
//! stores an experiment runs on (`StoreSpec`): SMRDB or its offloading variant, on files, or in
//! memory on a disk model taken in real time (`smrdb::paced`).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use smr_media::{disk_preset, FixedLatencyMedium};
use smr_zoned::{MemZonedDevice, TimedZonedDevice};
use smrdb::device::BandDevice;
use smrdb::offload::{OffloadDb, OffloadOptions};
use smrdb::options::METADATA_ZONES;
use smrdb::paced::Paced;
use smrdb::{Db, Options};

use crate::arrival::ArrivalSpec;
use crate::error::{Result, WorkloadError};
use crate::executor::{self, ExecutorConfig, RunSummary};
use crate::target::{EmbeddedTarget, RespTarget, SharedStore, Store, Target, ValuePool};
use crate::ycsb::{CoreWorkload, OperationStream};

/// The device the offloading store sends writes to while it compacts (§5.4.2): the NVRAM
/// profile (the thesis's flash partition), or a second disk of the paced disk's preset, its
/// offload bands at the disk's start (open choice: the thesis names a separate disk, not its
/// model or where on it the offloaded writes went).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OffloadDevice {
    #[default]
    Nvram,
    Disk,
}

impl OffloadDevice {
    pub fn parse(text: &str) -> Result<Self> {
        match text {
            "nvram" => Ok(OffloadDevice::Nvram),
            "disk" => Ok(OffloadDevice::Disk),
            other => Err(WorkloadError::parameter("offload_to", format!("'{other}' is neither nvram nor disk"))),
        }
    }
}

/// Which store, where, with what.
#[derive(Clone, Debug)]
pub struct StoreSpec {
    /// The offloading variant (chapter 5) rather than SMRDB.
    pub offload_store: bool,
    /// A folder (file devices, real persistence), or `None` for memory.
    pub path: Option<PathBuf>,
    /// An HDD preset whose time every disk command takes in real time (memory stores only);
    /// the offloading store's second device then takes the time of `offload_to`.
    pub paced_disk: Option<String>,
    /// What the offloading store's second device is when paced: NVRAM (flash) or a second disk.
    pub offload_to: OffloadDevice,
    /// SMRDB's options (and the offloading store's `base`).
    pub options: Options,
    /// The offloading store's own options (its `base` is replaced by `options`).
    pub offload: OffloadOptions,
}

/// Opens the store `spec` describes.
pub fn open_store(spec: &StoreSpec) -> Result<Arc<SharedStore>> {
    let name = spec.path.as_ref().map_or_else(|| "the memory store".to_string(), |p| p.display().to_string());
    let offload_options = OffloadOptions { base: spec.options.clone(), ..spec.offload.clone() };
    let store: Box<dyn Store> = match (&spec.path, &spec.paced_disk) {
        (Some(_), Some(_)) => {
            return Err(WorkloadError::parameter(
                "disk",
                "a paced disk model runs in memory: give no store folder with it",
            ))
        }
        // A folder holding an offloading store opens as one, asked for or not.
        (Some(path), None) if spec.offload_store || smrdb::kind_in(path) == Some(smrdb::StoreKind::Offloading) => {
            Box::new(OffloadDb::open(path, offload_options)?)
        }
        (Some(path), None) => Box::new(Db::open(path, spec.options.clone())?),
        (None, disk) => {
            let g = spec.options.new_geometry()?;
            let device = |zones: u64,
                          conventional: u64,
                          medium: Option<Box<dyn smr_media::Medium>>|
             -> Result<Box<dyn BandDevice>> {
                let mem = MemZonedDevice::new(g.band_size, zones, conventional)
                    .map_err(|e| WorkloadError::parameter("capacity", e.to_string()))?;
                Ok(match medium {
                    None => Box::new(smrdb::device::Shared::new(mem)),
                    Some(m) => Box::new(Paced::new(
                        TimedZonedDevice::new(mem, m).map_err(|e| WorkloadError::parameter("disk", e.to_string()))?,
                    )),
                })
            };
            // The store's disk, and the offloading store's second disk, of the preset named.
            let disk_of =
                |name: &str| disk_preset(name, g.zones * g.band_size).map_err(|e| WorkloadError::parameter("disk", e));
            let disk_medium = disk.as_deref().map(disk_of).transpose()?;
            let disk_device = device(g.zones, METADATA_ZONES, disk_medium)?;
            if spec.offload_store {
                let nvram_bytes =
                    spec.offload.nvram_capacity.unwrap_or(smrdb::offload::DEFAULT_NVRAM_BANDS * g.band_size);
                let nvram = if spec.offload.offload {
                    let medium = match (disk, spec.offload_to) {
                        (None, _) => None,
                        (Some(_), OffloadDevice::Nvram) => {
                            Some(Box::new(FixedLatencyMedium::nvram(nvram_bytes)) as Box<dyn smr_media::Medium>)
                        }
                        (Some(name), OffloadDevice::Disk) => Some(disk_of(name)?),
                    };
                    Some(device(nvram_bytes / g.band_size, 0, medium)?)
                } else {
                    None
                };
                Box::new(OffloadDb::open_devices(disk_device, nvram, name.clone(), offload_options)?)
            } else {
                Box::new(Db::open_device(disk_device, name.clone(), spec.options.clone())?)
            }
        }
    };
    Ok(Arc::new(SharedStore::new(store, name)))
}

/// Where a run's requests go.
#[derive(Clone)]
pub enum Endpoint {
    Embedded {
        store: Arc<SharedStore>,
        sync: bool,
    },
    /// `host:port` of a Redis-protocol server, and how long connecting, a send and a reply
    /// may each take.
    Server {
        address: String,
        timeout: std::time::Duration,
    },
}

impl Endpoint {
    fn target(&self) -> Result<Box<dyn Target>> {
        Ok(match self {
            Endpoint::Embedded { store, sync } => Box::new(EmbeddedTarget::new(store.clone(), *sync)),
            Endpoint::Server { address, timeout } => Box::new(RespTarget::connect_with(address, *timeout)?),
        })
    }
}

#[derive(Clone, Debug)]
pub struct RunSpec {
    pub workload: CoreWorkload,
    pub arrival: ArrivalSpec,
    /// Executor workers (and connections, for a server).
    pub threads: usize,
    pub seed: u64,
    /// Load `recordcount` records before the run.
    pub load: bool,
    /// Write the per-request log here, as CSV.
    pub log_path: Option<PathBuf>,
    /// Issue nothing after this many seconds of the run (the rest is counted as not issued).
    pub stop_after_s: Option<f64>,
}

#[derive(Clone, Debug, serde::Serialize)]
pub struct RunResult {
    pub summary: RunSummary,
    pub arrivals: usize,
    pub load_seconds: f64,
    /// Latencies, ns from the scheduled time, in schedule order (for plots and statistics).
    #[serde(skip)]
    pub latencies_ns: Vec<u64>,
    #[serde(skip)]
    pub scheduled_ns: Vec<u64>,
}

/// The most executor workers (threads, and connections to a server) a run may have.
pub const MAX_THREADS: usize = 4096;

/// Records loaded per batch.
const LOAD_BATCH: u64 = 100;

/// Refuses a load whose records' keys and values alone are more than the store's device
/// holds, before any is written (it would fill the device, then fail). Keys are counted at
/// their shortest, "user" and `zeropadding` digits, so only a load that cannot fit is refused.
fn check_load_fits(workload: &CoreWorkload, capacity: u64) -> Result<()> {
    let key = 4 + workload.zero_padding.max(1) as u64;
    let needed = workload.record_count.saturating_mul(key + workload.value_len() as u64);
    if needed > capacity {
        return Err(WorkloadError::parameter(
            "recordcount",
            format!("{} records of {} bytes are {needed} bytes, over the {capacity} the store's device holds (a larger capacity, or fewer records)", workload.record_count, key + workload.value_len() as u64),
        ));
    }
    Ok(())
}

/// Runs `spec` against `endpoint`.
pub fn run(endpoint: &Endpoint, spec: &RunSpec) -> Result<RunResult> {
    if !(1..=MAX_THREADS).contains(&spec.threads) {
        return Err(WorkloadError::parameter(
            "threads",
            format!("must be from 1 to {MAX_THREADS}, not {}", spec.threads),
        ));
    }
    if let (true, Endpoint::Embedded { store, .. }) = (spec.load, endpoint) {
        check_load_fits(&spec.workload, store.capacity()?)?;
    }
    let schedule = spec.arrival.schedule(spec.seed)?;
    let workload = CoreWorkload { operation_count: schedule.len() as u64, ..spec.workload.clone() };
    let mut ops = OperationStream::new(&workload, spec.seed)?;
    let load_started = Instant::now();
    if spec.load {
        let mut loader = endpoint.target()?;
        let mut values = ValuePool::new(workload.value_len(), spec.seed ^ 0x5eed);
        let mut record = 0;
        while record < workload.record_count {
            let end = (record + LOAD_BATCH).min(workload.record_count);
            let pairs: Vec<(Vec<u8>, Vec<u8>)> =
                (record..end).map(|r| (workload.key(r).into_bytes(), values.take().to_vec())).collect();
            loader.load(&pairs)?;
            record = end;
        }
    }
    let load_seconds = load_started.elapsed().as_secs_f64();
    let targets = (0..spec.threads).map(|_| endpoint.target()).collect::<Result<Vec<_>>>()?;
    let log = executor::run(
        &schedule,
        &mut ops,
        targets,
        ExecutorConfig {
            value_seed: spec.seed,
            stop_after_ns: spec.stop_after_s.map(|s| (s * 1e9) as u64),
            ..ExecutorConfig::default()
        },
    )?;
    if let Some(path) = &spec.log_path {
        log.write_csv(path)?;
    }
    Ok(RunResult {
        summary: log.summary(),
        arrivals: schedule.len(),
        load_seconds,
        latencies_ns: log.records.iter().map(|r| r.latency_ns()).collect(),
        scheduled_ns: log.records.iter().map(|r| r.scheduled_ns).collect(),
    })
}
