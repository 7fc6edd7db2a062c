//! CloudPhysics vscsi binary traces, little-endian, in two record layouts:
//! v1 (32 bytes): `sn u32, len u32, nSG u32, cmd u16, ver u16, lbn u64, ts u64`;
//! v2 (40 bytes): `cmd u16, ver u16, sn u32, len u32, nSG u32, lbn u64, ts u64, rt u64`.
//! `len` is in bytes, `lbn` in 512-byte sectors, `ts` in microseconds; `ver >> 8` is the version.
//!
//! The version is detected from the first two records (both must agree, read as either layout;
//! a file of one record is detected from that one).
//! SCSI READ(6/10/12/16) become reads and WRITE(6/10/12/16) writes; other commands (TEST UNIT
//! READY, INQUIRY, ...) are skipped. Timestamps are made relative to the first record.

use std::io::BufRead;
use std::path::Path;

use super::records::{u16_at, u32_at, u64_at, FixedRecords};
use super::{TraceError, TraceReader};
use smr_core::request::{Op, Request};
use smr_core::units::{NS_PER_US, SECTOR};

const V1_SIZE: usize = 32;
const V2_SIZE: usize = 40;

fn op_of(cmd: u16) -> Option<Op> {
    match cmd {
        0x08 | 0x28 | 0xa8 | 0x88 => Some(Op::Read),
        0x0a | 0x2a | 0xaa | 0x8a => Some(Op::Write),
        _ => None,
    }
}

fn request(cmd: u16, len: u32, lbn: u64, ts_us: u64) -> Result<Option<Request>, String> {
    let Some(op) = op_of(cmd) else { return Ok(None) };
    let time_ns =
        ts_us.checked_mul(NS_PER_US).ok_or_else(|| format!("timestamp {ts_us} us is beyond 2^64 nanoseconds"))?;
    let offset =
        lbn.checked_mul(SECTOR).ok_or_else(|| format!("lbn {lbn} is out of range (times 512 bytes it passes 2^64)"))?;
    Request::checked(time_ns, op, offset, len as u64).map(Some).map_err(|e| e.to_string())
}

fn decode_v1(b: &[u8]) -> Result<Option<Request>, String> {
    request(u16_at(b, 12), u32_at(b, 4), u64_at(b, 16), u64_at(b, 24))
}

fn decode_v2(b: &[u8]) -> Result<Option<Request>, String> {
    request(u16_at(b, 0), u32_at(b, 8), u64_at(b, 16), u64_at(b, 24))
}

/// Which layout the leading bytes are in, if either: the first two records (or the only one)
/// carry its version.
fn detect(head: &[u8]) -> Option<usize> {
    let all = |size: usize, ver_at: usize, version: u16| {
        let records = (head.len() / size).min(2);
        records > 0 && (0..records).all(|i| u16_at(head, i * size + ver_at) >> 8 == version)
    };
    if all(V1_SIZE, 14, 1) {
        Some(V1_SIZE)
    } else if all(V2_SIZE, 2, 2) {
        Some(V2_SIZE)
    } else {
        None
    }
}

/// Opens a vscsi stream; times are made relative to the first record.
pub fn open(mut reader: Box<dyn BufRead + Send>, path: &Path) -> Result<TraceReader, TraceError> {
    let head = reader.fill_buf().map_err(|e| TraceError::io(path, e))?;
    let size = detect(head).ok_or_else(|| TraceError::Corrupt {
        path: path.to_path_buf(),
        offset: 0,
        message: "not a vscsi trace: the first two records carry neither version 1 nor version 2".into(),
    })?;
    let decode = if size == V1_SIZE { decode_v1 } else { decode_v2 };
    let records = FixedRecords::new(reader, path.to_path_buf(), 0, size, decode);
    let mut first: Option<u64> = None;
    Ok(TraceReader::boxed(records.map(move |item| {
        item.map(|mut req| {
            let t0 = *first.get_or_insert(req.time_ns);
            req.time_ns = req.time_ns.saturating_sub(t0);
            req
        })
    })))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub fn v1_record(cmd: u16, len: u32, lbn: u64, ts: u64) -> Vec<u8> {
        let mut r = Vec::new();
        r.extend(7u32.to_le_bytes());
        r.extend(len.to_le_bytes());
        r.extend(1u32.to_le_bytes());
        r.extend(cmd.to_le_bytes());
        r.extend(0x0100u16.to_le_bytes());
        r.extend(lbn.to_le_bytes());
        r.extend(ts.to_le_bytes());
        r
    }

    fn v2_record(cmd: u16, len: u32, lbn: u64, ts: u64) -> Vec<u8> {
        let mut r = Vec::new();
        r.extend(cmd.to_le_bytes());
        r.extend(0x0200u16.to_le_bytes());
        r.extend(7u32.to_le_bytes());
        r.extend(len.to_le_bytes());
        r.extend(1u32.to_le_bytes());
        r.extend(lbn.to_le_bytes());
        r.extend(ts.to_le_bytes());
        r.extend(99u64.to_le_bytes());
        r
    }

    fn read_all(bytes: Vec<u8>) -> Result<Vec<Request>, TraceError> {
        open(Box::new(std::io::Cursor::new(bytes)), Path::new("t.vscsi"))?.collect()
    }

    #[test]
    fn detects_both_versions() {
        let v1: Vec<u8> =
            [v1_record(0x2a, 8192, 16, 1000), v1_record(0x12, 0, 0, 1500), v1_record(0x28, 4096, 8, 3000)].concat();
        let reqs = read_all(v1).unwrap();
        assert_eq!(reqs, vec![Request::new(0, Op::Write, 8192, 8192), Request::new(2_000_000, Op::Read, 4096, 4096)]);
        let v2: Vec<u8> = [v2_record(0x88, 512, 1, 10), v2_record(0x8a, 512, 2, 11)].concat();
        let reqs = read_all(v2).unwrap();
        assert_eq!(reqs[1], Request::new(1_000, Op::Write, 1024, 512));
    }

    #[test]
    fn truncated_and_unknown_files_are_corrupt() {
        let mut v1: Vec<u8> = [v1_record(0x2a, 8192, 16, 1000), v1_record(0x28, 4096, 8, 3000)].concat();
        v1.extend([0u8; 5]);
        let err = read_all(v1).unwrap_err();
        assert!(err.to_string().contains("at byte 64"), "{err}");
        assert!(read_all(vec![0u8; 100]).unwrap_err().to_string().contains("not a vscsi trace"));
        assert!(read_all(vec![0u8; 10]).unwrap_err().to_string().contains("not a vscsi trace"));
    }

    #[test]
    fn a_file_of_one_record_is_read() {
        assert_eq!(read_all(v1_record(0x2a, 4096, 8, 5)).unwrap(), vec![Request::new(0, Op::Write, 4096, 4096)]);
        assert_eq!(read_all(v2_record(0x88, 512, 1, 10)).unwrap(), vec![Request::new(0, Op::Read, 512, 512)]);
    }

    #[test]
    fn ranges_past_the_address_space_are_corrupt_records_not_wrapped_numbers() {
        let near_2_55 = (1u64 << 55) - 1;
        let bytes = [v1_record(0x2a, 4096, 8, 5), v1_record(0x2a, 4096, near_2_55, 6)].concat();
        let err = read_all(bytes).unwrap_err().to_string();
        assert!(err.contains("at byte 32") && err.contains("2^63"), "{err}");
        let err = read_all(v1_record(0x2a, 4096, u64::MAX, 6)).unwrap_err().to_string();
        assert!(err.contains("lbn"), "{err}");
        let err = read_all(v1_record(0x2a, 4096, 0, u64::MAX)).unwrap_err().to_string();
        assert!(err.contains("timestamp"), "{err}");
    }
}
