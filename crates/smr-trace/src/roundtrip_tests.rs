//! Tests across readers and writers: every writable format, plain and compressed, reads back
//! what was written (property tests), an smrbin file carries the statistics of its records, and
//! the file-level errors (truncated, foreign or damaged smrbin, read-only formats, trims in
//! formats without a spelling for them, empty traces) name the file.
//! Format-specific parsing is tested beside each parser, not here.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use proptest::prelude::*;

use super::{open, open_nonempty, write_all, TraceError, TraceStats, TraceWriter};
use smr_core::params::Params;
use smr_core::request::{Op, Request};
use smr_core::units::{BLOCK_4K, SECTOR};

/// A fresh path in the temporary folder (proptest runs many cases per test); the file there,
/// if one was written, is removed with it.
struct Scratch(PathBuf);

impl std::ops::Deref for Scratch {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        std::fs::remove_file(&self.0).ok();
    }
}

fn scratch(name: &str) -> Scratch {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    Scratch(std::env::temp_dir().join(format!(
        "smrlab-roundtrip-{}-{}-{name}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )))
}

fn read_back(path: &Path) -> Vec<Request> {
    open(path, None, &mut Params::default()).unwrap().collect::<Result<_, _>>().unwrap()
}

/// Requests whose times start at 0 and never go back (readers make times relative to the first
/// record), with offsets and lengths below 2^40 and times below ~3 hours.
fn requests(ops: &'static [Op]) -> impl Strategy<Value = Vec<Request>> {
    prop::collection::vec((0..1u64 << 40, prop::sample::select(ops), 0..1u64 << 40, 0..u32::MAX as u64), 1..40)
        .prop_map(|raw| {
            let mut time = 0;
            raw.into_iter()
                .enumerate()
                .map(|(i, (gap, op, offset, len))| {
                    if i > 0 {
                        time += gap / 100;
                    }
                    Request { time_ns: time, op, offset, len }
                })
                .collect()
        })
}

const READ_WRITE: &[Op] = &[Op::Read, Op::Write];
const ALL_OPS: &[Op] = &[Op::Read, Op::Write, Op::Trim];
const COMPRESSIONS: [&str; 5] = ["", ".gz", ".xz", ".bz2", ".zst"];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn smrbin_and_csv_keep_every_field(reqs in requests(ALL_OPS)) {
        for (name, compression) in [".smrbin", ".csv"].into_iter().flat_map(|n| COMPRESSIONS.map(|c| (n, c))) {
            let path = scratch(&format!("t{name}{compression}"));
            let format = if name == ".csv" { "csv" } else { "smrbin" };
            prop_assert_eq!(write_all(&path, Some(format), reqs.iter().map(|r| Ok(*r))).unwrap(), reqs.len() as u64);
            let back: Vec<Request> = open(&path, Some(format), &mut Params::default()).unwrap().collect::<Result<_, _>>().unwrap();
            prop_assert_eq!(&back, &reqs, "{}", path.display());
        }
    }

    /// What an uncompressed smrbin file stores is what a pass over its records computes; a
    /// compressed one stores nothing, and the finished file compressed afterwards streams exactly
    /// its records (the statistics block after them is not read as records).
    #[test]
    fn smrbin_carries_the_statistics_of_its_records(reqs in requests(ALL_OPS)) {
        let (path, bytes) = smrbin_with(&reqs);
        let trace = open(&path, None, &mut Params::default()).unwrap();
        let stored = trace.stored_stats().cloned();
        let computed = TraceStats::compute(trace).unwrap();
        prop_assert_eq!(stored.as_ref(), Some(&computed));
        prop_assert_eq!(computed.requests, reqs.len() as u64);
        let compressed = scratch("t.smrbin.zst");
        write_all(&compressed, None, reqs.iter().map(|r| Ok(*r))).unwrap();
        prop_assert!(open(&compressed, None, &mut Params::default()).unwrap().stored_stats().is_none());
        std::fs::write(&compressed, zstd::encode_all(bytes.as_slice(), 1).unwrap()).unwrap();
        prop_assert_eq!(read_back(&compressed), reqs);
    }

    #[test]
    fn msr_keeps_reads_and_writes_at_filetime_resolution(reqs in requests(READ_WRITE)) {
        let reqs: Vec<Request> = reqs.into_iter().map(|r| Request { time_ns: r.time_ns / 100 * 100, ..r }).collect();
        for compression in COMPRESSIONS {
            let path = scratch(&format!("t.csv{compression}"));
            write_all(&path, Some("msr"), reqs.iter().map(|r| Ok(*r))).unwrap();
            prop_assert_eq!(read_back(&path), reqs.clone());
        }
    }

    #[test]
    fn spc_keeps_sector_aligned_requests(reqs in requests(READ_WRITE)) {
        let reqs: Vec<Request> = reqs.into_iter().map(|r| Request { offset: r.offset / SECTOR * SECTOR, ..r }).collect();
        for compression in COMPRESSIONS {
            let path = scratch(&format!("t.spc{compression}"));
            write_all(&path, None, reqs.iter().map(|r| Ok(*r))).unwrap();
            prop_assert_eq!(read_back(&path), reqs.clone());
        }
    }

    #[test]
    fn blocks_splits_requests_into_their_4k_blocks(reqs in requests(READ_WRITE)) {
        let reqs: Vec<Request> = reqs.into_iter().map(|r| Request { len: r.len % (64 * BLOCK_4K), ..r }).collect();
        let expected: Vec<Request> = reqs
            .iter()
            .flat_map(|r| r.blocks(BLOCK_4K).map(move |b| Request { time_ns: 0, op: r.op, offset: b * BLOCK_4K, len: BLOCK_4K }))
            .collect();
        let path = scratch("t.blocks.gz");
        write_all(&path, None, reqs.iter().map(|r| Ok(*r))).unwrap();
        prop_assert_eq!(read_back(&path), expected);
    }
}

fn smrbin_with(records: &[Request]) -> (Scratch, Vec<u8>) {
    let path = scratch("t.smrbin");
    write_all(&path, None, records.iter().map(|r| Ok(*r))).unwrap();
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes)
}

/// The error `path` gives when opened or, if it opens, when read to its end.
fn first_error(path: &Path) -> TraceError {
    match open(path, None, &mut Params::default()) {
        Err(e) => e,
        Ok(trace) => trace.filter_map(Result::err).next().expect("an error"),
    }
}

/// Where the records of a file of version 2 or later start, and its record count in the header.
const RECORDS_AT: usize = 24;
const COUNT: std::ops::Range<usize> = 16..24;

#[test]
fn truncated_smrbin_names_the_offset_of_the_broken_record() {
    let reqs = [Request::new(0, Op::Write, 0, 4096), Request::new(7, Op::Read, 8192, 512)];
    let (path, mut bytes) = smrbin_with(&reqs);
    let records_end = RECORDS_AT + 2 * 24;
    // A finished file cut anywhere after its header: refused when opened.
    for cut in [records_end - 5, records_end + 3, bytes.len() - 1] {
        std::fs::write(&path, &bytes[..cut]).unwrap();
        let err = open(&path, None, &mut Params::default()).err().unwrap();
        assert!(
            matches!(err, TraceError::Corrupt { .. }) && err.to_string().contains("truncated"),
            "cut at {cut}: {err}"
        );
    }
    // A file whose writer stopped early (count unknown): the good records, then the error.
    bytes[COUNT].fill(0xff);
    std::fs::write(&path, &bytes).unwrap();
    let err = first_error(&path);
    assert!(
        err.to_string().contains("op code")
            && matches!(err, TraceError::Corrupt { offset, .. } if offset == records_end as u64),
        "stopped before the patch: {err}"
    );
    std::fs::write(&path, &bytes[..records_end - 5]).unwrap();
    let items: Vec<_> = open(&path, None, &mut Params::default()).unwrap().collect();
    assert_eq!(items.len(), 2, "one good record, then one error and the end");
    assert_eq!(*items[0].as_ref().unwrap(), reqs[0]);
    match &items[1] {
        Err(TraceError::Corrupt { path: p, offset, .. }) => {
            assert_eq!((p.as_path(), *offset), (&*path, (RECORDS_AT + 24) as u64))
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
    // The same cut, streamed from a compressed copy of the finished file.
    let compressed = scratch("t.smrbin.zst");
    let (_, finished) = smrbin_with(&reqs);
    std::fs::write(&compressed, zstd::encode_all(&finished[..RECORDS_AT + 24], 1).unwrap()).unwrap();
    let err = first_error(&compressed);
    assert!(err.to_string().contains("ends after 1 of the 2 records"), "{err}");
}

#[test]
fn damaged_statistics_are_refused_by_name() {
    let reqs = [Request::new(0, Op::Write, 0, 4096), Request::new(7, Op::Read, 8192, 512)];
    let (path, bytes) = smrbin_with(&reqs);
    let mut flipped = bytes.clone();
    *flipped.last_mut().unwrap() ^= 1;
    let appended = [bytes.as_slice(), b"\n"].concat();
    let mut recounted = bytes.clone();
    recounted[COUNT].copy_from_slice(&1u64.to_le_bytes());
    for (damaged, expected) in
        [(flipped, "fails its checksum"), (appended, "appended to"), (recounted, "statistics block")]
    {
        std::fs::write(&path, &damaged).unwrap();
        let err = first_error(&path);
        assert!(matches!(err, TraceError::Corrupt { .. }) && err.to_string().contains(expected), "{expected}: {err}");
    }
}

/// A finished smrbin file of `records` requests with its statistics block replaced by `block`
/// (length and checksum made to match), as another version or a damaged writer would leave it.
fn with_stats_block(finished: &[u8], records: usize, block: &[u8]) -> Vec<u8> {
    let records_end = RECORDS_AT + records * 24;
    [&finished[..records_end], &(block.len() as u32).to_le_bytes(), &crc32fast::hash(block).to_le_bytes(), block]
        .concat()
}

/// Requests whose footprint has three extents written and four accessed.
fn scattered() -> Vec<Request> {
    let gib = 1 << 30;
    vec![
        Request::new(0, Op::Write, 0, 4096),
        Request::new(1, Op::Read, gib, 8192),
        Request::new(2, Op::Write, 3 * gib, 4096),
        Request::new(3, Op::Write, 5 * gib + 4096, 200_000),
        Request::new(4, Op::Read, 7 * gib, 512),
    ]
}

/// Version 2 kept the extents in the statistics' JSON: such a file still gives its statistics,
/// extents included, and its records, and its extents are checked.
#[test]
fn version_2_files_still_read_with_their_statistics() {
    let reqs = scattered();
    let (path, finished) = smrbin_with(&reqs);
    let stats = open(&path, None, &mut Params::default()).unwrap().stored_stats().cloned().unwrap();
    assert_eq!((stats.written_extents.len(), stats.accessed_extents.len()), (3, 5));
    let json = serde_json::to_vec(&(&stats, &stats.written_extents, &stats.accessed_extents)).unwrap();
    let mut v2 = with_stats_block(&finished, reqs.len(), &json);
    v2[8..12].copy_from_slice(&2u32.to_le_bytes());
    std::fs::write(&path, &v2).unwrap();
    assert_eq!(open(&path, None, &mut Params::default()).unwrap().stored_stats(), Some(&stats));
    assert_eq!(read_back(&path), reqs);
    // Its extents are checked as version 3's are.
    let w = &stats.written_extents;
    let json = serde_json::to_vec(&(&stats, [w[1], w[0], w[2]], &stats.accessed_extents)).unwrap();
    let mut v2 = with_stats_block(&finished, reqs.len(), &json);
    v2[8..12].copy_from_slice(&2u32.to_le_bytes());
    std::fs::write(&path, &v2).unwrap();
    assert!(first_error(&path).to_string().contains("written extent 2 of 3"));
}

/// A version 3 block whose checksum holds but whose extents do not fit it, or are not the
/// ascending, disjoint list the statistics pass makes, is refused by name: the systems size
/// themselves from them.
#[test]
fn extents_that_break_their_layout_are_refused() {
    let reqs = scattered();
    let (path, finished) = smrbin_with(&reqs);
    let stats = open(&path, None, &mut Params::default()).unwrap().stored_stats().cloned().unwrap();
    let block = |written: &[(u64, u64)], written_count: u64, tail: &[u8]| {
        let json = serde_json::to_vec(&stats).unwrap();
        let mut b = [&(json.len() as u32).to_le_bytes()[..], &json, &written_count.to_le_bytes()].concat();
        for &(offset, len) in written {
            b.extend([offset.to_le_bytes(), len.to_le_bytes()].concat());
        }
        b.extend(0u64.to_le_bytes());
        b.extend(tail);
        b
    };
    let w = &stats.written_extents;
    let swapped = [w[1], w[0], w[2]];
    let overlapping = [w[0], (w[0].0 + 1, w[0].1), w[2]];
    let past_the_end = [w[0], (u64::MAX - 1, 2)];
    let cases: [(Vec<u8>, &str); 7] = [
        (block(w, 3, &[]), ""),
        (block(&swapped, 3, &[]), "written extent 2 of 3"),
        (block(&overlapping, 3, &[]), "written extent 2 of 3"),
        (block(&past_the_end, 2, &[]), "past 2^64"),
        (block(&[(0, 0)], 1, &[]), "is empty"),
        (block(w, 4, &[]), "ends inside its written extents"),
        (block(w, 3, &[7]), "1 bytes after its extents"),
    ];
    for (damaged, expected) in cases {
        std::fs::write(&path, with_stats_block(&finished, reqs.len(), &damaged)).unwrap();
        match open(&path, None, &mut Params::default()) {
            Ok(trace) => assert!(
                expected.is_empty()
                    && trace.stored_stats().is_some_and(|s| s.written_extents == *w && s.accessed_extents.is_empty())
            ),
            Err(err) => assert!(
                matches!(err, TraceError::Corrupt { .. }) && err.to_string().contains(expected),
                "{expected}: {err}"
            ),
        }
    }
    let short = block(w, 3, &[]);
    std::fs::write(&path, with_stats_block(&finished, reqs.len(), &short[..3])).unwrap();
    assert!(first_error(&path).to_string().contains("ends inside its JSON"));
}

#[test]
fn version_1_files_still_read() {
    let record = |time: u64, op: Op, offset: u64, len: u32| {
        [&time.to_le_bytes()[..], &offset.to_le_bytes(), &len.to_le_bytes(), &[op as u8, 0, 0, 0]].concat()
    };
    let bytes = [
        b"SMRLABTR".as_slice(),
        &1u32.to_le_bytes(),
        &24u32.to_le_bytes(),
        &record(3, Op::Write, 4096, 512),
        &record(9, Op::Read, 0, 4096),
    ]
    .concat();
    for name in ["v1.smrbin", "v1.smrbin.zst"] {
        let path = scratch(name);
        let stored =
            if name.ends_with(".zst") { zstd::encode_all(bytes.as_slice(), 1).unwrap() } else { bytes.clone() };
        std::fs::write(&path, stored).unwrap();
        assert!(open(&path, None, &mut Params::default()).unwrap().stored_stats().is_none());
        assert_eq!(read_back(&path), [Request::new(3, Op::Write, 4096, 512), Request::new(9, Op::Read, 0, 4096)]);
    }
}

#[test]
fn foreign_file_and_bad_op_code_are_corrupt() {
    let (path, mut bytes) = smrbin_with(&[Request::new(0, Op::Write, 0, 4096)]);
    bytes[RECORDS_AT + 20] = 9;
    std::fs::write(&path, &bytes).unwrap();
    let err = open(&path, None, &mut Params::default()).unwrap().next().unwrap().unwrap_err();
    assert!(matches!(err, TraceError::Corrupt { offset: 24, .. }) && err.to_string().contains("op code 9"), "{err}");
    std::fs::write(&path, b"Timestamp,Hostname\n").unwrap();
    let err = open(&path, None, &mut Params::default()).err().unwrap();
    assert!(err.to_string().contains("bad magic") && err.to_string().contains(&*path.to_string_lossy()), "{err}");
}

#[test]
fn writers_refuse_what_the_format_cannot_hold() {
    let err = TraceWriter::create(&scratch("t.vscsi"), None).err().unwrap();
    assert!(err.to_string().contains("does not write the vscsi format"), "{err}");
    let trim = [Ok(Request::new(0, Op::Trim, 0, 4096))];
    let err = write_all(&scratch("t.spc"), None, trim).unwrap_err();
    assert!(err.to_string().contains("request #1 is a trim"), "{err}");
    let huge = [Ok(Request::new(0, Op::Write, 0, 1 << 32))];
    let err = write_all(&scratch("t.smrbin"), None, huge).unwrap_err();
    assert!(err.to_string().contains("too long for smrbin"), "{err}");
}

#[test]
fn empty_trace_and_unknown_options_are_named() {
    let path = scratch("t.csv");
    std::fs::write(&path, "Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime\n\n").unwrap();
    let err = open_nonempty(&path, None, &mut Params::default()).err().unwrap();
    assert!(matches!(&err, TraceError::Empty { path: p } if p.as_path() == &*path), "{err}");
    let mut options = Params::parse(&["acton=Q"]).unwrap();
    let err = open(&path, Some("blkparse"), &mut options).err().unwrap();
    assert!(err.to_string().contains("acton"), "{err}");
    let err = open(&scratch("t.trace"), None, &mut Params::default()).err().unwrap();
    assert!(matches!(err, TraceError::UnknownFormat { .. }) && err.to_string().contains("smrbin"), "{err}");
}
