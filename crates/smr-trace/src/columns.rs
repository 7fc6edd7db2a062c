//! Requests as columns: four parallel arrays — arrival time (ns), op code (`Op as u8`), byte
//! offset and byte length, the numbers little-endian — the shape in which a trace held in memory
//! (a numpy structured array, an Arrow table) crosses to the core in one call, and back.
//!
//! Every request is made with `Request::checked`, as the file readers make theirs. Not here:
//! files (the readers and writers) or replay (`smr-sim`'s runner).

use std::path::PathBuf;

use super::TraceError;
use smr_core::request::{Op, Request};

/// The name an in-memory trace goes by in messages and results.
pub const IN_MEMORY: &str = "<in-memory trace>";

fn corrupt(index: usize, message: String) -> TraceError {
    TraceError::Corrupt { path: PathBuf::from(IN_MEMORY), offset: index as u64, message }
}

fn words(column: &[u8]) -> impl Iterator<Item = u64> + '_ {
    column.chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().expect("chunks of 8 bytes")))
}

/// The requests of four columns of `n` entries each (`time_ns`, `offset` and `len` 8 bytes an
/// entry, `op` one byte). An error names the first bad request by its index (as `at byte`).
pub fn requests_from_columns(time_ns: &[u8], op: &[u8], offset: &[u8], len: &[u8]) -> Result<Vec<Request>, TraceError> {
    let n = op.len();
    for (name, column) in [("time_ns", time_ns), ("offset", offset), ("len", len)] {
        if column.len() != 8 * n {
            return Err(TraceError::Invalid(format!(
                "{IN_MEMORY}: column '{name}' has {} bytes, not 8 for each of the {n} op codes",
                column.len()
            )));
        }
    }
    words(time_ns)
        .zip(op)
        .zip(words(offset).zip(words(len)))
        .enumerate()
        .map(|(index, ((time, &code), (offset, len)))| {
            let op = Op::from_code(code)
                .ok_or_else(|| corrupt(index, format!("op code {code} is none of 0 (read), 1 (write), 2 (trim)")))?;
            Request::checked(time, op, offset, len).map_err(|e| corrupt(index, e.to_string()))
        })
        .collect()
}

/// `requests` as the four little-endian columns `requests_from_columns` takes.
pub fn columns_from_requests(
    requests: impl Iterator<Item = Result<Request, TraceError>>,
) -> Result<[Vec<u8>; 4], TraceError> {
    let [mut time_ns, mut op, mut offset, mut len] = [Vec::new(), Vec::new(), Vec::new(), Vec::new()];
    for request in requests {
        let r = request?;
        time_ns.extend_from_slice(&r.time_ns.to_le_bytes());
        op.push(r.op as u8);
        offset.extend_from_slice(&r.offset.to_le_bytes());
        len.extend_from_slice(&r.len.to_le_bytes());
    }
    Ok([time_ns, op, offset, len])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn columns_round_trip() {
        let requests = vec![
            Request::new(5, Op::Write, 4096, 8192),
            Request::new(9, Op::Read, 0, 512),
            Request::new(9, Op::Trim, 1 << 40, 4096),
        ];
        let [t, o, off, l] = columns_from_requests(requests.iter().copied().map(Ok)).unwrap();
        assert_eq!(o, vec![1, 0, 2]);
        assert_eq!(requests_from_columns(&t, &o, &off, &l).unwrap(), requests);
    }

    #[test]
    fn bad_columns_name_the_request() {
        let [t, mut o, off, l] = columns_from_requests(
            [Ok(Request::new(0, Op::Read, 0, 1)), Ok(Request::new(1, Op::Read, 0, 1))].into_iter(),
        )
        .unwrap();
        o[1] = 7;
        let message = requests_from_columns(&t, &o, &off, &l).unwrap_err().to_string();
        assert!(message.contains("at byte 1") && message.contains("op code 7"), "{message}");
        let message = requests_from_columns(&t[..8], &o, &off, &l).unwrap_err().to_string();
        assert!(message.contains("'time_ns' has 8 bytes"), "{message}");
        let huge = (smr_core::request::MAX_END).to_le_bytes();
        let message = requests_from_columns(&t[..8], &[1], &huge, &l[..8]).unwrap_err().to_string();
        assert!(message.contains("2^63"), "{message}");
    }
}
