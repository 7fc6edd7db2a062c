//! Binding of a simulated drive driven one request at a time (`smr_sim::device`): the `sim:`
//! targets of `smrlab probe`. Requests go in batches of little-endian columns, each request
//! issued after the one before it completed (and after its own pause), and each one's response
//! time comes back, so Python sees every request's latency as it would a device's.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use smr_core::Op;
use smr_sim::device::SimDrive as Drive;

use crate::errors::{self, ParameterError};

/// Not sendable: a system is built for one thread, and a probe drives it from one.
#[pyclass(module = "smrlab._core", unsendable)]
pub struct SimDrive {
    drive: Drive,
}

fn word(bytes: &[u8], i: usize) -> u64 {
    u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"))
}

#[pymethods]
impl SimDrive {
    /// `system` built with `params` (`key=value` strings) for `capacity` bytes, with `seed`.
    #[new]
    fn new(system: &str, params: Vec<String>, capacity: u64, seed: u64) -> PyResult<Self> {
        let drive = Drive::build(system, &params, capacity, seed).map_err(errors::sim)?;
        Ok(SimDrive { drive })
    }

    #[getter]
    fn capacity(&self) -> u64 {
        self.drive.capacity()
    }

    /// The drive's clock, simulated ns since it was built.
    #[getter]
    fn now_ns(&self) -> u64 {
        self.drive.now_ns()
    }

    /// Every parameter the system read, as (name, value used).
    fn params(&self) -> Vec<(String, String)> {
        self.drive.params().to_vec()
    }

    /// Serves a batch: `writes` one byte per request (1 a write, 0 a read), `offsets`,
    /// `lengths` and `pauses_ns` (idle time before each) little-endian u64s. Returns each
    /// request's response time (ns) as little-endian u64s.
    fn run(
        &mut self,
        py: Python<'_>,
        writes: &[u8],
        offsets: &[u8],
        lengths: &[u8],
        pauses_ns: &[u8],
    ) -> PyResult<Py<PyBytes>> {
        let n = writes.len();
        if [offsets, lengths, pauses_ns].iter().any(|c| c.len() != 8 * n) {
            return Err(ParameterError::new_err(format!(
                "{n} requests need {} bytes of offsets, lengths and pauses each",
                8 * n
            )));
        }
        let mut out = Vec::with_capacity(8 * n);
        for (i, &write) in writes.iter().enumerate() {
            let op = if write != 0 { Op::Write } else { Op::Read };
            let ns =
                self.drive.submit(op, word(offsets, i), word(lengths, i), word(pauses_ns, i)).map_err(errors::sim)?;
            out.extend_from_slice(&ns.to_le_bytes());
        }
        Ok(PyBytes::new(py, &out).unbind())
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<SimDrive>()?;
    Ok(())
}
