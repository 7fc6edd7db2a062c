//! Binding of SMRDB: a store object (`KvStore`) and its iterator (`KvIter`), bytes in and out,
//! the GIL released around every call that may touch the device. The Python class
//! `smrlab.kv.DB` wraps these; no logic lives here beyond turning arguments into options and
//! errors into the exception classes below.

use std::collections::VecDeque;
use std::sync::{Mutex, RwLock};

use pyo3::create_exception;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};
use smr_core::Params;
use smr_media::{Hdd, Medium, PRESETS};
use smrdb::offload::{OffloadDb, OffloadOptions};
use smrdb::{Db, DbIter, Error, Options, Scheme, StoreKind, WriteBatch};

use crate::errors::SmrlabError;

create_exception!(_core, KvError, SmrlabError, "An error of the SMRDB key-value store.");
create_exception!(_core, KvLimitError, KvError, "A key, value or write batch is over the store's configured maximum.");
create_exception!(_core, KvDeviceFullError, KvError, "No empty band is left on the store's device.");
create_exception!(_core, KvCorruptionError, KvError, "Stored data failed its checksum or is malformed.");
create_exception!(
    _core,
    KvParameterError,
    KvError,
    "An option is invalid, or differs from what the store was created with."
);
create_exception!(_core, KvLockedError, KvError, "Another process (or opening) holds the store's lock file.");
create_exception!(_core, KvClosedError, KvError, "The store was closed.");
create_exception!(
    _core,
    KvWritesRefusedError,
    KvError,
    "Writes are refused: an earlier failure, or a full device the store opened read-only on."
);
create_exception!(_core, KvIOError, KvError, "The operating system refused an I/O on the store's files.");
create_exception!(_core, KvNotFoundError, KvError, "No store is at the path, and creating one was not asked for.");

pub(crate) fn kv_error(e: Error) -> PyErr {
    let text = e.to_string();
    match e {
        Error::KeyTooLarge { .. } | Error::ValueTooLarge { .. } | Error::BatchTooLarge { .. } => {
            KvLimitError::new_err(text)
        }
        Error::DeviceFull { .. } => KvDeviceFullError::new_err(text),
        Error::Corruption { .. } | Error::MissingFile { .. } => KvCorruptionError::new_err(text),
        Error::NoStore { .. } => KvNotFoundError::new_err(text),
        Error::ParameterMismatch { .. } | Error::InvalidOption { .. } | Error::OtherKind { .. } => {
            KvParameterError::new_err(text)
        }
        Error::Locked { .. } => KvLockedError::new_err(text),
        Error::Closed { .. } => KvClosedError::new_err(text),
        Error::WritesRefused { .. } => KvWritesRefusedError::new_err(text),
        Error::Io { .. } | Error::Device { .. } => KvIOError::new_err(text),
    }
}

fn disk(name: &str) -> PyResult<Box<dyn Medium>> {
    let spec = PRESETS.iter().find(|p| p.name == name).ok_or_else(|| {
        let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
        KvParameterError::new_err(format!("unknown disk '{name}' (one of: {})", names.join(", ")))
    })?;
    Ok(Box::new(Hdd::new(spec.clone())))
}

/// The options of an opening with the `name=value` tuning options given (smrdb's
/// `options::TUNING`: whole numbers, or booleans for `background`, `create_if_missing` and
/// `write_log`), read through their declarations; the others at their defaults.
pub(crate) fn tuned(tuning: Option<&Bound<'_, PyDict>>) -> PyResult<Options> {
    let mut given = Params::new();
    for (name, value) in tuning.into_iter().flat_map(|tuning| tuning.iter()) {
        given.set(&name.extract::<String>()?, value.str()?.to_string());
    }
    Options::tuned(&mut given)
        .map_err(|e| KvParameterError::new_err(format!("option {}: {}", smr_core::quote(&e.param), e.message)))
}

/// An open store: SMRDB, or the write-offloading store where the folder holds one.
enum Opened {
    Plain(Db),
    Offloading(OffloadDb),
}

/// Calls the method both stores have under one name on whichever `$opened` is.
macro_rules! on_either {
    ($opened:expr, $db:ident => $call:expr) => {
        match $opened {
            Opened::Plain($db) => $call,
            Opened::Offloading($db) => $call,
        }
    };
}

/// An open store. `path=None` keeps it in memory; `disk` names an HDD preset whose simulated
/// time every device command also takes. A folder holding a write-offloading store opens as
/// one (with its own defaults for the options only it has).
#[pyclass(module = "smrlab._core")]
pub struct KvStore {
    db: RwLock<Option<Opened>>,
    sync: bool,
    store: String,
}

impl KvStore {
    /// Runs `f` on the open store with the GIL released.
    fn with<T: Send>(&self, py: Python<'_>, f: impl FnOnce(&Opened) -> smrdb::Result<T> + Send) -> PyResult<T> {
        py.allow_threads(|| {
            let guard = self.db.read().unwrap_or_else(|p| p.into_inner());
            match guard.as_ref() {
                Some(db) => f(db),
                None => Err(Error::Closed { store: self.store.clone() }),
            }
        })
        .map_err(kv_error)
    }
}

#[pymethods]
impl KvStore {
    #[new]
    #[allow(clippy::too_many_arguments)] // one per keyword argument of the Python constructor
    #[pyo3(signature = (path=None, band_size=None, capacity=None, compaction=None, sync=false, disk=None, tuning=None))]
    fn new(
        py: Python<'_>,
        path: Option<std::path::PathBuf>,
        band_size: Option<u64>,
        capacity: Option<u64>,
        compaction: Option<&str>,
        sync: bool,
        disk: Option<&str>,
        tuning: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let compaction = compaction.map(Scheme::parse).transpose().map_err(kv_error)?;
        let options = Options { band_size, capacity, compaction, sync, ..tuned(tuning)? };
        let medium = disk.map(self::disk).transpose()?;
        let store = path.as_ref().map_or_else(|| "the memory store".to_string(), |p| p.display().to_string());
        let db = py
            .allow_threads(|| match (&path, medium) {
                (Some(p), None) if smrdb::kind_in(p) == Some(StoreKind::Offloading) => {
                    OffloadDb::open(p, OffloadOptions { base: options, ..OffloadOptions::default() })
                        .map(Opened::Offloading)
                }
                (Some(p), None) => Db::open(p, options).map(Opened::Plain),
                (Some(p), Some(m)) => Db::open_timed(p, options, m).map(Opened::Plain),
                (None, m) => Db::open_in_memory(options, m).map(Opened::Plain),
            })
            .map_err(kv_error)?;
        Ok(KvStore { db: RwLock::new(Some(db)), sync, store })
    }

    fn get<'py>(&self, py: Python<'py>, key: &[u8]) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let value = self.with(py, |db| on_either!(db, d => d.get(key)))?;
        Ok(value.map(|v| PyBytes::new(py, &v)))
    }

    #[pyo3(signature = (key, value, sync=None))]
    fn put(&self, py: Python<'_>, key: &[u8], value: &[u8], sync: Option<bool>) -> PyResult<()> {
        let mut b = WriteBatch::new();
        b.put(key, value);
        let sync = sync.unwrap_or(self.sync);
        self.with(py, |db| on_either!(db, d => d.write(&b, sync)))
    }

    #[pyo3(signature = (key, sync=None))]
    fn delete(&self, py: Python<'_>, key: &[u8], sync: Option<bool>) -> PyResult<()> {
        let mut b = WriteBatch::new();
        b.delete(key);
        let sync = sync.unwrap_or(self.sync);
        self.with(py, |db| on_either!(db, d => d.write(&b, sync)))
    }

    /// Applies `(key, value)` puts and `(key, None)` deletes atomically.
    #[pyo3(signature = (ops, sync=None))]
    fn write_batch(&self, py: Python<'_>, ops: &Bound<'_, PyAny>, sync: Option<bool>) -> PyResult<()> {
        let mut b = WriteBatch::new();
        for op in ops.try_iter()? {
            let (key, value): (Vec<u8>, Option<Vec<u8>>) = op?.extract().map_err(|_| {
                KvParameterError::new_err("a batch holds (key, value) pairs of bytes, or (key, None) for a delete")
            })?;
            match value {
                Some(v) => b.put(&key, &v),
                None => b.delete(&key),
            }
        }
        let sync = sync.unwrap_or(self.sync);
        self.with(py, |db| on_either!(db, d => d.write(&b, sync)))
    }

    #[pyo3(signature = (start=None, end=None))]
    fn scan(&self, py: Python<'_>, start: Option<Vec<u8>>, end: Option<Vec<u8>>) -> PyResult<KvIter> {
        let it = self.with(py, |db| on_either!(db, d => d.scan(start.as_deref(), end.as_deref())))?;
        Ok(KvIter::new(it))
    }

    fn compact(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, |db| match db {
            Opened::Plain(d) => d.compact(),
            Opened::Offloading(_) => Err(Error::InvalidOption {
                option: "compact",
                problem: "the write-offloading store compacts on its own, in the background (wait_idle waits for it)"
                    .into(),
            }),
        })
    }

    fn sync(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, |db| on_either!(db, d => d.sync()))
    }

    fn wait_idle(&self, py: Python<'_>) -> PyResult<()> {
        self.with(py, |db| on_either!(db, d => d.wait_idle()))
    }

    /// Counters and level sizes as a dict (bytes, counts; `disk_busy_ns` and the other `disk_`
    /// counters for timed devices): every field of `smrdb::DbStats` by its name, the simulated
    /// disk's activity flattened to `disk_NAME`, and the write amplification.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let (text, amplification) = self.with(py, |db| {
            let (json, amplification) = match db {
                Opened::Plain(d) => {
                    let s = d.stats();
                    (serde_json::to_value(&s), Some(s.write_amplification()))
                }
                Opened::Offloading(d) => (serde_json::to_value(d.stats()), None),
            };
            Ok((json.map(|j| j.to_string()), amplification))
        })?;
        let text = text.map_err(|e| KvError::new_err(format!("stats: {e}")))?;
        let d = py.import("json")?.call_method1("loads", (text,))?.downcast_into::<PyDict>()?;
        if let Some(disk) = d.get_item("disk")? {
            d.del_item("disk")?;
            if let Ok(activity) = disk.downcast::<PyDict>() {
                for (name, value) in activity.iter() {
                    d.set_item(format!("disk_{name}"), value)?;
                }
            }
        }
        match amplification {
            Some(a) => d.set_item("write_amplification", a)?,
            None => d.set_item("store", "smrdb-offload")?,
        }
        Ok(d)
    }

    /// The tables: `(level, band, bytes, entries, smallest key, largest key)`.
    fn tables<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let tables = self.with(py, |db| Ok(on_either!(db, d => d.tables())))?;
        let rows: Vec<Bound<'py, PyTuple>> = tables
            .iter()
            .map(|(level, m)| {
                (*level, m.band, m.len, m.entries, PyBytes::new(py, &m.smallest), PyBytes::new(py, &m.largest))
                    .into_pyobject(py)
            })
            .collect::<PyResult<_>>()?;
        PyList::new(py, rows)
    }

    /// Closes the store (syncs the log, stops compaction); later calls raise KvClosedError.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        py.allow_threads(|| {
            let db = self.db.write().unwrap_or_else(|p| p.into_inner()).take();
            db.map_or(Ok(()), |db| on_either!(db, d => d.close()))
        })
        .map_err(kv_error)
    }

    /// Which store this is: "smrdb", or "smrdb-offload" for the write-offloading store.
    #[getter]
    fn kind(&self) -> &'static str {
        match self.db.read().unwrap_or_else(|p| p.into_inner()).as_ref() {
            Some(Opened::Offloading(_)) => "smrdb-offload",
            _ => "smrdb",
        }
    }

    #[getter]
    fn closed(&self) -> bool {
        self.db.read().unwrap_or_else(|p| p.into_inner()).is_none()
    }
}

/// Pairs of a scan, fetched from the store in batches with the GIL released: one at a time
/// (`__next__`), a list of pairs at a time (`next_batch`), or two lists at a time, keys and
/// values (`next_columns`: no tuple per pair, the fastest way through a long scan).
#[pyclass(module = "smrlab._core")]
pub struct KvIter {
    it: Mutex<Option<DbIter>>,
    /// Pairs fetched for `__next__` and not returned yet; every way of reading takes these first.
    ready: Mutex<VecDeque<PyObject>>,
    /// The bytes of the last batch, kept so its allocation serves the next one.
    arena: Mutex<Vec<u8>>,
}

/// Pairs per batch unless asked otherwise.
const ITER_BATCH: usize = 1024;
/// The most bytes of keys and values in one batch: small enough that the batch is still in the
/// processor's cache when its bytes objects are made (on this machine, batches of 4 MiB
/// scanned slower than batches of 256 KiB).
const ITER_BATCH_BYTES: usize = 256 << 10;

/// A batch's size as asked (`ITER_BATCH` when not): a whole number a pointer can count, else
/// a `KvParameterError` (not an OverflowError or TypeError from the conversion).
fn batch_size(n: Option<&Bound<'_, PyAny>>) -> PyResult<usize> {
    let Some(n) = n else { return Ok(ITER_BATCH) };
    if n.is_instance_of::<pyo3::types::PyBool>() {
        return Err(KvParameterError::new_err("a batch size is a whole number of pairs, not a bool"));
    }
    n.extract::<usize>().map_err(|_| {
        KvParameterError::new_err(format!(
            "a batch holds 1 to {} pairs, not {}",
            usize::MAX,
            n.repr().map_or_else(|_| "?".into(), |r| r.to_string())
        ))
    })
}

impl KvIter {
    fn new(it: DbIter) -> Self {
        KvIter { it: Mutex::new(Some(it)), ready: Mutex::new(VecDeque::new()), arena: Mutex::new(Vec::new()) }
    }

    /// Up to `n` pairs from the store (none at the end), read with the GIL released into one
    /// buffer, then handed to `each` as Python bytes, key and value.
    fn fetch<'py>(
        &self,
        py: Python<'py>,
        n: usize,
        mut each: impl FnMut(Bound<'py, PyBytes>, Bound<'py, PyBytes>),
    ) -> PyResult<()> {
        let mut arena = std::mem::take(&mut *self.arena.lock().unwrap_or_else(|p| p.into_inner()));
        arena.clear();
        let mut ends = Vec::with_capacity(n.min(1 << 16));
        let fetched = py.allow_threads(|| {
            let mut guard = self.it.lock().unwrap_or_else(|p| p.into_inner());
            if let Some(it) = guard.as_mut() {
                if it.next_batch_packed(n, ITER_BATCH_BYTES, &mut arena, &mut ends)? == 0 {
                    *guard = None;
                }
            }
            Ok(())
        });
        let mut start = 0;
        for (key_end, value_end) in ends {
            each(PyBytes::new(py, &arena[start..key_end]), PyBytes::new(py, &arena[key_end..value_end]));
            start = value_end;
        }
        *self.arena.lock().unwrap_or_else(|p| p.into_inner()) = arena;
        fetched.map_err(kv_error)
    }

    /// The pairs `__next__` fetched and has not returned, taken out, for a batch of `n` (at
    /// least 1: an empty batch means the end).
    fn take_ready(&self, n: usize) -> PyResult<Vec<PyObject>> {
        if n == 0 {
            return Err(KvParameterError::new_err("a batch holds at least 1 pair (an empty one means the end), not 0"));
        }
        let mut ready = self.ready.lock().unwrap_or_else(|p| p.into_inner());
        let take = n.min(ready.len());
        Ok(ready.drain(..take).collect())
    }
}

#[pymethods]
impl KvIter {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        if let Some(pair) = self.ready.lock().unwrap_or_else(|p| p.into_inner()).pop_front() {
            return Ok(Some(pair));
        }
        let mut fetched = VecDeque::with_capacity(ITER_BATCH);
        let mut made = Ok(());
        self.fetch(py, ITER_BATCH, |k, v| {
            if made.is_ok() {
                made = (k, v).into_pyobject(py).map(|pair| fetched.push_back(pair.into_any().unbind()));
            }
        })?;
        made?;
        let first = fetched.pop_front();
        *self.ready.lock().unwrap_or_else(|p| p.into_inner()) = fetched;
        Ok(first)
    }

    /// The next `n` pairs as a list: fewer only at the end of the scan (empty after it).
    #[pyo3(signature = (n=None))]
    fn next_batch<'py>(&self, py: Python<'py>, n: Option<&Bound<'py, PyAny>>) -> PyResult<Bound<'py, PyList>> {
        let n = batch_size(n)?;
        let mut out = self.take_ready(n)?;
        let mut made = Ok(());
        // A fetch stops on its bytes too: fetch again until `n` or nothing more comes.
        while out.len() < n {
            let before = out.len();
            self.fetch(py, n - out.len(), |k, v| {
                if made.is_ok() {
                    made = (k, v).into_pyobject(py).map(|pair| out.push(pair.into_any().unbind()));
                }
            })?;
            if out.len() == before || made.is_err() {
                break;
            }
        }
        made?;
        PyList::new(py, out)
    }

    /// Up to `n` pairs as two lists of the same length, keys and values (both empty at the end).
    #[pyo3(signature = (n=None))]
    fn next_columns<'py>(
        &self,
        py: Python<'py>,
        n: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<(Bound<'py, PyList>, Bound<'py, PyList>)> {
        let n = batch_size(n)?;
        let ready = self.take_ready(n)?;
        let (mut keys, mut values) = (Vec::with_capacity(n.min(1 << 16)), Vec::with_capacity(n.min(1 << 16)));
        for pair in ready {
            let (k, v): (Bound<'py, PyBytes>, Bound<'py, PyBytes>) = pair.extract(py)?;
            keys.push(k);
            values.push(v);
        }
        if keys.len() < n {
            self.fetch(py, n - keys.len(), |k, v| {
                keys.push(k);
                values.push(v);
            })?;
        }
        Ok((PyList::new(py, keys)?, PyList::new(py, values)?))
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<KvStore>()?;
    m.add_class::<KvIter>()?;
    // A new store's geometry (recorded in it): defaults and limits, for the command line's help
    // and checks; the first scheme is the default.
    m.add("KV_DEFAULT_BAND_SIZE", smrdb::options::DEFAULT_BAND_SIZE)?;
    m.add("KV_MIN_BAND_SIZE", smrdb::options::MIN_BAND_SIZE)?;
    m.add("KV_MAX_BAND_SIZE", smrdb::options::MAX_BAND_SIZE)?;
    m.add("KV_DEFAULT_BANDS", smrdb::options::DEFAULT_BANDS)?;
    m.add("KV_MAX_BANDS", smrdb::options::MAX_BANDS)?;
    m.add("KV_SCHEMES", smrdb::options::Scheme::ALL.map(|scheme| scheme.name()).to_vec())?;
    // The offloading store's longest write delay, in microseconds, for the experiments' checks.
    m.add("KV_MAX_OFFLOAD_DELAY_US", smrdb::offload::MAX_OFFLOAD_DELAY.as_micros() as u64)?;
    add_types!(
        m,
        KvError,
        KvLimitError,
        KvDeviceFullError,
        KvCorruptionError,
        KvParameterError,
        KvLockedError,
        KvClosedError,
        KvWritesRefusedError,
        KvIOError,
        KvNotFoundError
    );
    Ok(())
}
