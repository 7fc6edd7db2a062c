//! Binding of a disk model on its own: a sequence of accesses timed one after another (closed
//! loop, queue depth one) on an HDD preset, as `smr_zoned::TimedZonedDevice` times a
//! store's device commands. For replaying I/O captured from other programs (the key-value
//! peers' file I/O laid out on a disk) on the same model SMRDB runs on.

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use smr_core::request::Op;
use smr_media::disk_preset;

use crate::errors::ParameterError;

/// Service time (ns, little-endian u64s) of each access: `writes` one byte per access (1 a
/// write, 0 a read), `offsets` and `lengths` little-endian u64s, in bytes.
#[pyfunction]
fn disk_service_times(
    py: Python<'_>,
    preset: &str,
    writes: &[u8],
    offsets: &[u8],
    lengths: &[u8],
) -> PyResult<Py<PyBytes>> {
    let n = writes.len();
    if offsets.len() != 8 * n || lengths.len() != 8 * n {
        return Err(ParameterError::new_err(format!(
            "{n} accesses need {} bytes of offsets and of lengths, not {} and {}",
            8 * n,
            offsets.len(),
            lengths.len()
        )));
    }
    let word = |b: &[u8], i: usize| u64::from_le_bytes(b[8 * i..8 * i + 8].try_into().expect("8 bytes"));
    let end = (0..n).map(|i| word(offsets, i).saturating_add(word(lengths, i))).max().unwrap_or(0);
    let mut disk = disk_preset(preset, end).map_err(ParameterError::new_err)?;
    let times = py.allow_threads(|| {
        let mut now = 0u64;
        let mut out = Vec::with_capacity(8 * n);
        for (i, &write) in writes.iter().enumerate() {
            let op = if write != 0 { Op::Write } else { Op::Read };
            let service = disk.access(now, op, word(offsets, i), word(lengths, i));
            now += service;
            out.extend_from_slice(&service.to_le_bytes());
        }
        out
    });
    Ok(PyBytes::new(py, &times).unbind())
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(m, disk_service_times);
    Ok(())
}
