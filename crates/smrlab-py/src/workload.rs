//! Binding of the workload crate: arrival schedules, the stores runs and experiments use
//! (`WorkloadStore`: SMRDB or its offloading variant, on files or in memory on a paced disk),
//! a YCSB run through the open-loop executor, and the Redis-protocol server. Thin: arguments
//! become the crate's specs, results come back as JSON text and packed columns of integers.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use pyo3::create_exception;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use smr_core::Params;
use smr_workload::arrival::ArrivalSpec;
use smr_workload::resp::Limits;
use smr_workload::run::{self, Endpoint, OffloadDevice, RunSpec, StoreSpec};
use smr_workload::server::{self, ServerConfig, Stop};
use smr_workload::target::resp_client::{DEFAULT_TIMEOUT as RESP_DEFAULT_TIMEOUT, MAX_TIMEOUT as RESP_MAX_TIMEOUT};
use smr_workload::target::SharedStore;
use smr_workload::ycsb::{CoreWorkload, OpKind, OperationStream};
use smr_workload::WorkloadError as Error;
use smrdb::offload::options::{
    CHECK_INTERVAL, L0_BUFFER_BANDS, L1_BUFFER_BANDS, L2_BUFFER_BANDS, NVRAM_CAPACITY, OFFLOAD, OFFLOAD_DELAY,
    QUIET_INTERVAL,
};
use smrdb::offload::OffloadOptions;
use smrdb::{Options, Scheme};

use crate::errors::{ParameterError, SmrlabError};
use crate::kv::{kv_error, tuned};

create_exception!(
    _core,
    WorkloadError,
    SmrlabError,
    "A workload run or the server failed: a server unreachable or out of protocol, an I/O refusal."
);

fn workload_error(e: Error) -> PyErr {
    match e {
        Error::Parameter { .. } => ParameterError::new_err(e.to_string()),
        Error::Store(s) => kv_error(s),
        other => WorkloadError::new_err(other.to_string()),
    }
}

/// `values` as little-endian u64s, written straight into the Python bytes (no copy between).
fn packed(py: Python<'_>, values: &[u64]) -> PyResult<Py<PyBytes>> {
    let bytes = PyBytes::new_with(py, values.len() * 8, |out| {
        for (chunk, value) in out.chunks_exact_mut(8).zip(values) {
            chunk.copy_from_slice(&value.to_le_bytes());
        }
        Ok(())
    })?;
    Ok(bytes.unbind())
}

/// Arrival times (ns from the start) of the process `params` describes (Table 4.1's names),
/// as little-endian u64s.
#[pyfunction]
fn arrival_schedule(py: Python<'_>, params: Vec<(String, String)>, seed: u64) -> PyResult<Py<PyBytes>> {
    let spec = ArrivalSpec::from_params(&params).map_err(workload_error)?;
    let times = py.allow_threads(|| spec.schedule(seed)).map_err(workload_error)?;
    packed(py, &times)
}

/// `[(key, default, unit, help, open), ...]`: the arrival processes' parameters (Table 4.1's
/// names), for `--help`.
#[pyfunction]
fn arrival_params() -> Vec<crate::systems::ParamTuple> {
    crate::systems::param_tuples(smr_workload::arrival::PARAMS)
}

/// `[(key, default, unit, help, open, kind, choices), ...]`: the offloading store's own options
/// (smrdb's `offload::OFFLOAD_TUNING`), for the command line's defaults.
#[pyfunction]
fn offload_params() -> Vec<crate::systems::ParamTuple> {
    crate::systems::param_tuples(smrdb::offload::OFFLOAD_TUNING)
}

/// A store for runs, experiments and the server, open until `close`.
/// A store folder's path: text or path-like naming something (not a number, not empty).
fn store_path(path: &Bound<'_, PyAny>) -> PyResult<PathBuf> {
    let refused = || ParameterError::new_err(format!("a store path names a folder (str or path), not {path}"));
    if path.is_instance_of::<pyo3::types::PyInt>() || path.is_instance_of::<pyo3::types::PyFloat>() {
        return Err(refused());
    }
    let path: PathBuf = path.extract().map_err(|_| refused())?;
    if path.as_os_str().to_string_lossy().trim().is_empty() {
        return Err(ParameterError::new_err("a store path names a folder, not '' (None keeps the store in memory)"));
    }
    Ok(path)
}

/// A byte count given as `name`: a whole number from 0 to 2^64 - 1, else a ParameterError.
fn bytes_arg(name: &str, value: Option<&Bound<'_, PyAny>>) -> PyResult<Option<u64>> {
    let Some(value) = value else { return Ok(None) };
    if value.is_instance_of::<pyo3::types::PyBool>() {
        return Err(ParameterError::new_err(format!("{name} is a number of bytes, not a bool")));
    }
    value.extract::<u64>().map(Some).map_err(|_| {
        ParameterError::new_err(format!("{name} must be a whole number of bytes from 0 to 2^64 - 1, not {value}"))
    })
}

#[pyclass(module = "smrlab._core")]
pub struct WorkloadStore {
    store: Arc<SharedStore>,
    /// Its calls wait for a paced disk model's time.
    paced: bool,
}

#[pymethods]
impl WorkloadStore {
    #[new]
    #[allow(clippy::too_many_arguments)] // one per keyword argument of the Python constructor
    #[pyo3(signature = (offload_store=false, path=None, disk=None, band_size=None, capacity=None, compaction=None, tuning=None, buffer_bands=None, offload=true, nvram_capacity=None, check_interval=None, quiet_interval=None, offload_to="nvram", offload_delay=0.0))]
    fn new(
        py: Python<'_>,
        offload_store: bool,
        path: Option<&Bound<'_, PyAny>>,
        disk: Option<String>,
        band_size: Option<&Bound<'_, PyAny>>,
        capacity: Option<&Bound<'_, PyAny>>,
        compaction: Option<&str>,
        tuning: Option<&Bound<'_, PyDict>>,
        buffer_bands: Option<(u64, u64, u64)>,
        offload: bool,
        nvram_capacity: Option<&Bound<'_, PyAny>>,
        check_interval: Option<f64>,
        quiet_interval: Option<f64>,
        offload_to: &str,
        offload_delay: f64,
    ) -> PyResult<Self> {
        let path = path.map(store_path).transpose()?;
        let (band_size, capacity) = (bytes_arg("band_size", band_size)?, bytes_arg("capacity", capacity)?);
        let nvram_capacity = bytes_arg("nvram_capacity", nvram_capacity)?;
        let compaction = compaction.map(Scheme::parse).transpose().map_err(kv_error)?;
        let options = Options { band_size, capacity, compaction, ..tuned(tuning)? };
        // The keyword arguments become the declared options (`OFFLOAD_TUNING`), read there.
        let mut given = Params::new();
        for (spec, value) in [
            (&L0_BUFFER_BANDS, buffer_bands.map(|b| b.0.to_string())),
            (&L1_BUFFER_BANDS, buffer_bands.map(|b| b.1.to_string())),
            (&L2_BUFFER_BANDS, buffer_bands.map(|b| b.2.to_string())),
            (&OFFLOAD, Some(offload.to_string())),
            (&NVRAM_CAPACITY, nvram_capacity.map(|n| n.to_string())),
            (&CHECK_INTERVAL, check_interval.map(|s| s.to_string())),
            (&QUIET_INTERVAL, quiet_interval.map(|s| s.to_string())),
            (&OFFLOAD_DELAY, Some(offload_delay.to_string())),
        ] {
            if let Some(value) = value {
                given.set(spec.key, value);
            }
        }
        let offload_options = OffloadOptions::tuned(options.clone(), &mut given)
            .map_err(|e| ParameterError::new_err(format!("{}: {}", e.param, e.message)))?;
        let offload_to = OffloadDevice::parse(offload_to).map_err(workload_error)?;
        let paced = disk.is_some();
        let spec = StoreSpec { offload_store, path, paced_disk: disk, offload_to, options, offload: offload_options };
        let store = py.allow_threads(|| run::open_store(&spec)).map_err(workload_error)?;
        Ok(WorkloadStore { store, paced })
    }

    /// The store's counters, as JSON text.
    fn stats(&self, py: Python<'_>) -> PyResult<String> {
        let stats = py.allow_threads(|| self.store.with(|s| Ok(s.stats_json()))).map_err(kv_error)?;
        Ok(stats.to_string())
    }

    /// Closes the store: stops compaction and makes every write durable; later calls fail.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        py.allow_threads(|| self.store.close()).map_err(kv_error)
    }
}

/// One YCSB run. `endpoint`: a `WorkloadStore` or `"host:port"` of a Redis-protocol server;
/// `workload`: `("workload", letter)` and YCSB properties; `arrival`: Table 4.1's parameters.
/// Returns the result as JSON text, and the per-request latencies and scheduled times (ns) as
/// packed u64s.
#[pyfunction]
#[allow(clippy::too_many_arguments)] // one per keyword argument of the Python function
#[pyo3(signature = (endpoint, workload, arrival, threads=8, seed=1, load=true, log_path=None, sync=false, stop_after_s=None, server_timeout_s=None))]
fn run_ycsb(
    py: Python<'_>,
    endpoint: &Bound<'_, PyAny>,
    workload: Vec<(String, String)>,
    arrival: Vec<(String, String)>,
    threads: usize,
    seed: u64,
    load: bool,
    log_path: Option<PathBuf>,
    sync: bool,
    stop_after_s: Option<f64>,
    server_timeout_s: Option<f64>,
) -> PyResult<(String, Py<PyBytes>, Py<PyBytes>)> {
    if stop_after_s.is_some_and(|s| !(s > 0.0 && s.is_finite())) {
        return Err(ParameterError::new_err(format!("stop_after_s must be positive seconds, not {stop_after_s:?}")));
    }
    let max = RESP_MAX_TIMEOUT.as_secs_f64();
    let timeout = match server_timeout_s {
        None => RESP_DEFAULT_TIMEOUT,
        Some(s) if s > 0.0 && s <= max => Duration::from_secs_f64(s),
        Some(s) => {
            return Err(ParameterError::new_err(format!(
                "server_timeout must be more than 0 and at most {max} seconds, not {s}"
            )))
        }
    };
    let endpoint = match endpoint.downcast::<WorkloadStore>() {
        Ok(store) => Endpoint::Embedded { store: store.borrow().store.clone(), sync },
        Err(_) => Endpoint::Server {
            address: endpoint
                .extract::<String>()
                .map_err(|_| ParameterError::new_err("the endpoint is a WorkloadStore or a 'host:port' string"))?,
            timeout,
        },
    };
    let mut w = CoreWorkload::default();
    if let Some((_, letter)) = workload.iter().find(|(k, _)| k == "workload") {
        w = CoreWorkload::preset(letter).map_err(workload_error)?;
    }
    for (k, v) in workload.iter().filter(|(k, _)| k != "workload") {
        w.set(k, v).map_err(workload_error)?;
    }
    let spec = RunSpec {
        workload: w,
        arrival: ArrivalSpec::from_params(&arrival).map_err(workload_error)?,
        threads,
        seed,
        load,
        log_path,
        stop_after_s,
    };
    let result = py.allow_threads(|| run::run(&endpoint, &spec)).map_err(workload_error)?;
    let text = serde_json::to_string(&result).map_err(|e| WorkloadError::new_err(e.to_string()))?;
    Ok((text, packed(py, &result.latencies_ns)?, packed(py, &result.scheduled_ns)?))
}

/// The YCSB core workload `letter` with `properties` (YCSB's names) set.
fn core_workload(letter: &str, properties: &[(String, String)]) -> PyResult<CoreWorkload> {
    let mut w = CoreWorkload::preset(letter).map_err(workload_error)?;
    for (k, v) in properties {
        w.set(k, v).map_err(workload_error)?;
    }
    w.validate().map_err(workload_error)?;
    Ok(w)
}

/// Operation kinds, keys and scan lengths, as `ycsb_operations` returns them.
type Operations<'py> = (Py<PyBytes>, Vec<Bound<'py, PyBytes>>, Py<PyBytes>);

/// The first `operationcount` operations of YCSB workload `letter` (with `properties` set) from
/// `seed`, for drivers outside this crate: each operation's kind (its index in YCSB's read,
/// update, insert, scan, read-modify-write order, one byte each), its record's key, and its scan
/// length (u32s, 0 for other operations).
#[pyfunction]
fn ycsb_operations<'py>(
    py: Python<'py>,
    letter: &str,
    properties: Vec<(String, String)>,
    seed: u64,
) -> PyResult<Operations<'py>> {
    let w = core_workload(letter, &properties)?;
    let mut stream = OperationStream::new(&w, seed).map_err(workload_error)?;
    let ops: Vec<_> = (0..w.operation_count).map(|_| stream.next_op()).collect();
    let kinds: Vec<u8> = ops.iter().map(|o| OpKind::ALL.iter().position(|k| *k == o.kind).unwrap_or(0) as u8).collect();
    let lengths: Vec<u8> = ops.iter().flat_map(|o| o.scan_length.to_le_bytes()).collect();
    let keys = ops.iter().map(|o| PyBytes::new(py, w.key(o.record).as_bytes())).collect();
    Ok((PyBytes::new(py, &kinds).unbind(), keys, PyBytes::new(py, &lengths).unbind()))
}

/// The keys of records `start..end` of YCSB workload `letter` with `properties` (its load).
#[pyfunction]
fn ycsb_keys<'py>(
    py: Python<'py>,
    letter: &str,
    properties: Vec<(String, String)>,
    start: u64,
    end: u64,
) -> PyResult<Vec<Bound<'py, PyBytes>>> {
    let w = core_workload(letter, &properties)?;
    Ok((start..end).map(|r| PyBytes::new(py, w.key(r).as_bytes())).collect())
}

/// Serves `store` over the Redis protocol on `address` until SIGTERM or SIGINT; prints one line
/// with the bound address when ready; closes the store; returns a JSON report.
#[pyfunction]
#[pyo3(signature = (store, address, max_bulk=16 << 20, sync_writes=false, threads=2))]
fn serve(
    py: Python<'_>,
    store: &WorkloadStore,
    address: String,
    max_bulk: usize,
    sync_writes: bool,
    threads: usize,
) -> PyResult<String> {
    let config = ServerConfig {
        address,
        limits: Limits { max_bulk, ..Limits::default() },
        sync_writes,
        store_waits: store.paced,
        threads,
        ..ServerConfig::default()
    };
    let shared = store.store.clone();
    let report = py
        .allow_threads(|| {
            server::serve(shared, &config, Stop::default(), |a| {
                use std::io::Write;
                println!("smrlab kv serve: listening on {a}");
                let _ = std::io::stdout().flush();
            })
        })
        .map_err(workload_error)?;
    serde_json::to_string(&report).map_err(|e| WorkloadError::new_err(e.to_string()))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<WorkloadStore>()?;
    add_functions!(m, arrival_schedule, arrival_params, offload_params, run_ycsb, ycsb_operations, ycsb_keys, serve);
    add_types!(m, WorkloadError);
    m.add("MAX_THREADS", run::MAX_THREADS)?;
    m.add("MAX_ARRIVALS", smr_workload::arrival::MAX_ARRIVALS as u64)?;
    m.add("SERVER_TIMEOUT_S", RESP_DEFAULT_TIMEOUT.as_secs_f64())?;
    m.add("MAX_SERVER_TIMEOUT_S", RESP_MAX_TIMEOUT.as_secs_f64())?;
    Ok(())
}
