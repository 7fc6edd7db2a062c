//! Users' own cache policies written in Python, as the kernel's `OwnPolicy`: each hook calls
//! the method of the user's object, and what it returns or raises becomes the kernel's answer or
//! a sentence saying what went wrong (the kernel's `Guarded` checks the slots and stops the run).
//!
//! The class is given by the Python front, already loaded (`PySource`: reference to class). Its
//! constructor receives a `CacheView`, the read-only geometry of the cache it orders; `victims`
//! receives a `Blocks`, the block each slot holds. A run with such a policy keeps the GIL from
//! start to end (the binding never releases it), so a hook costs one call into the interpreter:
//! the bound methods are looked up once, the slot numbers made into Python ints once, and each
//! call passes its arguments in a tuple of three. The first exception a hook raises is kept
//! (`Failures`) so that the binding raises the user's own traceback with its message.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use pyo3::exceptions::{PyIndexError, PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt, PyList, PyTuple};
use smr_kernel::policy::own::out_of_range;
use smr_kernel::policy::{Geometry, OwnPolicy, PolicySource};
use smr_kernel::SimError;

/// The hooks a policy must have.
const HOOKS: [&str; 4] = ["inserted", "hit", "removed", "victims"];

/// A slot that holds no block (in `Blocks`).
const EMPTY: u64 = u64::MAX;

/// The most slots whose numbers are made into Python ints ahead (8 MiB of ints); a larger
/// cache makes the rest as it calls.
const PREMADE_SLOTS: usize = 1 << 18;

/// The cache a user's policy orders, as its constructor receives it: sizes, bands, segments
/// and the write buffer of the shingled disk below, read-only.
#[pyclass(module = "smrlab._core", frozen)]
pub struct CacheView {
    geometry: Geometry,
    held_bytes: AtomicU64,
}

impl CacheView {
    fn bands(&self) -> PyResult<&smr_kernel::BandLayout> {
        self.geometry.bands.as_ref().ok_or_else(|| {
            PyValueError::new_err(format!(
                "{} has no shingled disk with bands below it (below=dmsmr has them)",
                self.geometry.host
            ))
        })
    }
}

#[pymethods]
impl CacheView {
    /// The cache, as messages name it ("the SSD cache", "HWSR's MEM buffer").
    #[getter]
    fn host(&self) -> &'static str {
        self.geometry.host
    }

    /// Its size in blocks: slots are numbered 0 to slots - 1.
    #[getter]
    fn slots(&self) -> usize {
        self.geometry.slots
    }

    /// Bytes per cache block; block numbers count these from the start of the disk.
    #[getter]
    fn block_bytes(&self) -> u64 {
        self.geometry.block_bytes
    }

    /// The number of bands of the shingled disk below, or None.
    #[getter]
    fn band_count(&self) -> Option<usize> {
        self.geometry.bands.as_ref().map(|b| b.count())
    }

    /// The band of the disk below that holds cache block `block`.
    fn band_of(&self, block: u64) -> PyResult<usize> {
        let layout = self.bands()?;
        match block.checked_mul(self.geometry.block_bytes).filter(|&at| at < layout.end()) {
            Some(at) => Ok(layout.band_of(at)),
            None => Err(PyValueError::new_err(format!("block {block} lies past the disk's last band"))),
        }
    }

    /// The size of band `band` in bytes.
    fn band_bytes(&self, band: usize) -> PyResult<u64> {
        let layout = self.bands()?;
        if band >= layout.count() {
            return Err(PyIndexError::new_err(format!("band {band} of {}", layout.count())));
        }
        let range = layout.band(band);
        Ok(range.end - range.start)
    }

    /// The size of the disk's persistent write buffer (media cache) in bytes, or None.
    #[getter]
    fn write_buffer_bytes(&self) -> Option<u64> {
        self.geometry.write_buffer_bytes
    }

    /// What that buffer holds, in bytes, as the cache last asked for victims; or None.
    #[getter]
    fn write_buffer_held_bytes(&self) -> Option<u64> {
        self.geometry.write_buffer_bytes.map(|_| self.held_bytes.load(Relaxed))
    }

    /// Blocks per segment where the cache evicts one segment at a time (HWSR's MEM buffer:
    /// every victim list must be of one segment), or None.
    #[getter]
    fn segment_blocks(&self) -> Option<u64> {
        self.geometry.segment_blocks
    }

    /// The segment of block `block`.
    fn segment_of(&self, block: u64) -> PyResult<u64> {
        match self.geometry.segment_blocks {
            Some(per) => Ok(block / per),
            None => Err(PyValueError::new_err(format!("{} has no segments", self.geometry.host))),
        }
    }

    fn __repr__(&self) -> String {
        format!("<{} of {} blocks of {} bytes>", self.geometry.host, self.geometry.slots, self.geometry.block_bytes)
    }
}

/// The block each slot holds, as `victims` receives it: `blocks[slot]` is a block number, or
/// None for an empty slot.
#[pyclass(module = "smrlab._core", frozen, sequence)]
pub struct Blocks {
    /// Atomics so that the hooks update them through a shared reference, with no borrow to
    /// check per call (the GIL orders every access).
    held: Vec<AtomicU64>,
}

#[pymethods]
impl Blocks {
    fn __len__(&self) -> usize {
        self.held.len()
    }

    fn __getitem__(&self, slot: isize) -> PyResult<Option<u64>> {
        let at = usize::try_from(slot).ok().filter(|&s| s < self.held.len());
        match at.map(|s| self.held[s].load(Relaxed)) {
            Some(EMPTY) => Ok(None),
            Some(block) => Ok(Some(block)),
            None => Err(PyIndexError::new_err(format!("slot {slot} of {}", self.held.len()))),
        }
    }
}

/// What went wrong in a run's Python policies, for the binding to raise once the run ends:
/// the first exception a hook raised (the user's traceback), and a failure found after the last
/// request (`counters`), which no hook can stop the run for.
#[derive(Default)]
pub struct Failures {
    pub first_error: Option<PyErr>,
    pub after_run: Option<String>,
}

/// Builds the policies of one run from their classes, loaded by the Python front.
pub struct PySource {
    classes: Py<PyDict>,
    failures: Rc<RefCell<Failures>>,
}

impl PySource {
    /// Over `classes` (reference -> class); what goes wrong is kept in `failures`.
    pub fn new(classes: Py<PyDict>, failures: Rc<RefCell<Failures>>) -> Self {
        PySource { classes, failures }
    }
}

/// `error` in a sentence: what the user's code raised.
fn described(py: Python<'_>, error: &PyErr) -> String {
    if error.is_instance_of::<PyKeyboardInterrupt>(py) {
        return "was interrupted (Ctrl-C)".into();
    }
    let kind = error.get_type(py).name().map(|n| n.to_string()).unwrap_or_else(|_| "an exception".into());
    let text = error.value(py).str().map(|s| s.to_string()).unwrap_or_default();
    if text.is_empty() {
        format!("raised {kind}")
    } else {
        format!("raised {kind}: {text}")
    }
}

/// Keeps `error` (the first of the run) and says what it was.
fn kept(py: Python<'_>, failures: &RefCell<Failures>, error: PyErr) -> String {
    let detail = described(py, &error);
    let mut failures = failures.borrow_mut();
    if failures.first_error.is_none() {
        failures.first_error = Some(error);
    }
    detail
}

impl PolicySource for PySource {
    fn build(&self, reference: &str, geometry: &Geometry) -> Result<Box<dyn OwnPolicy>, SimError> {
        Python::with_gil(|py| {
            let failed = |hook: &'static str, detail: String| SimError::Policy {
                policy: reference.to_string(),
                hook,
                request: None,
                detail,
            };
            let class = match self.classes.bind(py).get_item(reference) {
                Ok(Some(class)) => class,
                _ => {
                    return Err(failed("__init__", "was not loaded by smrlab's Python front (a bug in smrlab)".into()))
                }
            };
            let view = CacheView { geometry: geometry.clone(), held_bytes: AtomicU64::new(0) };
            let view = Py::new(py, view).map_err(|e| failed("__init__", described(py, &e)))?;
            let object =
                class.call1((view.clone_ref(py),)).map_err(|e| failed("__init__", kept(py, &self.failures, e)))?;
            let method = |name: &str| -> Result<Py<PyAny>, SimError> {
                match object.getattr(name) {
                    Ok(bound) if bound.is_callable() => Ok(bound.unbind()),
                    _ => Err(failed(
                        "__init__",
                        format!("made an object with no method {name}() (a policy has {})", HOOKS.join(", ")),
                    )),
                }
            };
            let counters = match object.getattr("counters") {
                Ok(bound) if bound.is_callable() => Some(bound.unbind()),
                _ => None,
            };
            let blocks = Py::new(py, Blocks { held: (0..geometry.slots).map(|_| AtomicU64::new(EMPTY)).collect() })
                .map_err(|e| failed("__init__", described(py, &e)))?;
            let premade = (0..geometry.slots.min(PREMADE_SLOTS)).map(|slot| PyInt::new(py, slot).into_any().unbind());
            Ok(Box::new(PyPolicy {
                reference: reference.to_string(),
                inserted: method(HOOKS[0])?,
                hit: method(HOOKS[1])?,
                removed: method(HOOKS[2])?,
                victims: method(HOOKS[3])?,
                counters,
                view,
                blocks,
                slot_ints: premade.collect(),
                geometry: geometry.clone(),
                failures: Rc::clone(&self.failures),
            }) as Box<dyn OwnPolicy>)
        })
    }
}

/// A user's policy object and its bound hooks.
struct PyPolicy {
    reference: String,
    inserted: Py<PyAny>,
    hit: Py<PyAny>,
    removed: Py<PyAny>,
    victims: Py<PyAny>,
    counters: Option<Py<PyAny>>,
    view: Py<CacheView>,
    blocks: Py<Blocks>,
    /// `slot_ints[slot]` is `slot` as a Python int, for the first `PREMADE_SLOTS` slots.
    slot_ints: Vec<Py<PyAny>>,
    geometry: Geometry,
    failures: Rc<RefCell<Failures>>,
}

impl PyPolicy {
    /// `slot` as a Python int.
    fn slot<'py>(&self, py: Python<'py>, slot: u32) -> Bound<'py, PyAny> {
        match self.slot_ints.get(slot as usize) {
            Some(made) => made.bind(py).clone(),
            None => PyInt::new(py, slot).into_any(),
        }
    }

    /// Calls `hook` with a slot, a block and a flag; an exception becomes its description.
    fn call(&self, py: Python<'_>, hook: &Py<PyAny>, slot: u32, block: u64, flag: bool) -> Result<(), String> {
        let args = (self.slot(py, slot), block, flag);
        hook.call1(py, args).map(drop).map_err(|e| kept(py, &self.failures, e))
    }

    /// The slots in `answer` (a list or tuple of whole numbers), pushed onto `out`.
    fn slots_of(&self, answer: &Bound<'_, PyAny>, out: &mut Vec<u32>) -> Result<(), String> {
        let items = if let Ok(list) = answer.downcast::<PyList>() {
            list.as_sequence().clone()
        } else if let Ok(tuple) = answer.downcast::<PyTuple>() {
            tuple.as_sequence().clone()
        } else {
            let kind = answer.get_type().name().map(|n| n.to_string()).unwrap_or_default();
            return Err(format!("returned a {kind}, not a list of slots"));
        };
        for item in items.try_iter().map_err(|e| e.to_string())? {
            let item = item.map_err(|e| e.to_string())?;
            let slot: i128 = item.extract().map_err(|_| {
                let shown = item.repr().map(|r| r.to_string()).unwrap_or_default();
                format!("returned {shown} among its slots, which are whole numbers")
            })?;
            match u32::try_from(slot) {
                Ok(slot) => out.push(slot),
                Err(_) => return Err(out_of_range(slot, &self.geometry)),
            }
        }
        Ok(())
    }

    /// The policy's counters from `answer`: a mapping of names (letters, digits, `_`) to
    /// whole numbers from 0.
    fn counts_of(answer: &Bound<'_, PyAny>, out: &mut Vec<(String, u64)>) -> Result<(), String> {
        let mapping = answer.downcast::<PyDict>().map_err(|_| {
            let kind = answer.get_type().name().map(|n| n.to_string()).unwrap_or_default();
            format!("returned a {kind}, not a dict of counts by name")
        })?;
        for (name, value) in mapping.iter() {
            let name: String = name.extract().map_err(|_| format!("named a count {name}, not with a str"))?;
            if name.is_empty() || name.len() > 64 || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                return Err(format!("named a count {name:?}: a name is 1 to 64 letters, digits or '_'"));
            }
            let value: u64 =
                value.extract().map_err(|_| format!("gave count {name} {value}, not a whole number from 0"))?;
            out.push((name, value));
        }
        Ok(())
    }
}

impl OwnPolicy for PyPolicy {
    fn inserted(&mut self, slot: u32, block: u64, dirty: bool) -> Result<(), String> {
        Python::with_gil(|py| {
            self.blocks.get().held[slot as usize].store(block, Relaxed);
            self.call(py, &self.inserted, slot, block, dirty)
        })
    }

    fn hit(&mut self, slot: u32, block: u64, became_dirty: bool) -> Result<(), String> {
        Python::with_gil(|py| self.call(py, &self.hit, slot, block, became_dirty))
    }

    fn removed(&mut self, slot: u32, block: u64, was_dirty: bool) -> Result<(), String> {
        Python::with_gil(|py| {
            self.blocks.get().held[slot as usize].store(EMPTY, Relaxed);
            self.call(py, &self.removed, slot, block, was_dirty)
        })
    }

    fn victims(&mut self, out: &mut Vec<u32>) -> Result<(), String> {
        Python::with_gil(|py| {
            let answer =
                self.victims.call1(py, (self.blocks.clone_ref(py),)).map_err(|e| kept(py, &self.failures, e))?;
            self.slots_of(answer.bind(py), out)
        })
    }

    fn below_buffer(&mut self, held_bytes: u64) {
        self.view.get().held_bytes.store(held_bytes, Relaxed);
    }

    fn counters(&self, out: &mut Vec<(String, u64)>) {
        let Some(counters) = &self.counters else { return };
        Python::with_gil(|py| {
            let counted = match counters.call0(py) {
                Ok(answer) => Self::counts_of(answer.bind(py), out),
                Err(e) => Err(kept(py, &self.failures, e)),
            };
            if let Err(detail) = counted {
                out.clear();
                let failure =
                    SimError::Policy { policy: self.reference.clone(), hook: "counters", request: None, detail };
                self.failures.borrow_mut().after_run.get_or_insert(failure.to_string());
            }
        });
    }
}

/// Whether `text` has the form of a reference to a Python policy (`FILE.py:CLASS`,
/// `MODULE:CLASS`): the core's rule, for the Python front to find the policies to load.
#[pyfunction]
fn is_python_policy(text: &str) -> bool {
    smr_core::param_spec::is_python_reference(text)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(m, is_python_policy);
    m.add_class::<CacheView>()?;
    m.add_class::<Blocks>()?;
    Ok(())
}
