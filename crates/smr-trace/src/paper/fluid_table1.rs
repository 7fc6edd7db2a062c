//! FluidSMR's Table 1 (§5): twelve MSR Cambridge traces, each row's operations, writes, bytes
//! written and maximum offset, and how a row becomes synthesizer parameters (`params`) and the
//! geometry of its `spread` placement (`chunk_bytes`, `max_offset`).
//!
//! Table 1 gives no footprint or locality, so the recipe chooses them. The synthesizer writes a
//! core of a quarter of the bytes written (each written block written about four times: Table 1's
//! write size over an assumed four updates a block), at most half the maximum offset, with hot
//! regions inside it; request sizes mix 4 KiB and 128 KiB to the table's mean write size. A sparse
//! area of single-block writes reaches from the core to the maximum offset: 5 % of the writes with
//! the `front` placement, `SPARSE_WRITES` writes with `spread` (which only needs to reach the
//! maximum offset). The paper's GB are read as GiB, as its 460.0 GB = 1840 zones of 256 MB. A
//! scaled trace (fewer requests than the table's) scales every size by the same factor, zone size
//! included, so the partition keeps its number of zones.
//!
//! The parameters are text first written by Python; `pyformat` keeps every character. Not here:
//! moving requests (`spread`), generation (the synthesizer), running the experiments.

use smr_core::quote::quote;

use super::pyformat::{fixed, general, round, thousands};
use super::{PaperError, MAX_GENERATED_REQUESTS};

const GIB: f64 = (1u64 << 30) as f64;
/// The paper's zone, 256 MiB.
pub const ZONE: u64 = 256 << 20;
const BLOCK: u64 = 4096;
const SPARSE_FRACTION: f64 = 0.05;
const SPARSE_WRITES: f64 = 100.0;
const OVERWRITES: f64 = 4.0;
/// How the written data is laid over the address range (see the spread module).
pub const PLACEMENTS: [&str; 2] = ["spread", "front"];
/// The hot ranges `spread` cuts the core into, by default, and at most.
pub const HOT_RANGES: u64 = 16;
pub const MAX_HOT_RANGES: u64 = 4096;
const HOT_FRACTION: f64 = 0.2;
/// The two request sizes, in KiB.
const SMALL: f64 = 4.0;
const LARGE: u64 = 128;
const WEEK_S: f64 = (7 * 24 * 3600) as f64;

/// A row of Table 1: total operations, write operations, bytes written (GB), maximum offset (GB).
#[derive(serde::Serialize)]
pub struct Row {
    pub name: &'static str,
    pub total: f64,
    pub writes: f64,
    pub written_gb: f64,
    pub max_gb: f64,
}

macro_rules! row {
    ($name:literal, $total:expr, $writes:expr, $written:expr, $max:expr) => {
        Row { name: $name, total: $total, writes: $writes, written_gb: $written, max_gb: $max }
    };
}

pub const TABLE1: [Row; 12] = [
    row!("hm_0", 4.0e6, 2.6e6, 20.5, 15.0),
    row!("prn_1", 11.2e6, 2.7e6, 30.8, 413.6),
    row!("proj_0", 4.2e6, 3.7e6, 144.2, 17.4),
    row!("proj_1", 23.6e6, 2.5e6, 25.6, 880.9),
    row!("prxy_0", 12.5e6, 12.1e6, 53.8, 22.2),
    row!("src1_1", 45.7e6, 2.2e6, 30.3, 293.6),
    row!("src1_2", 1.9e6, 1.4e6, 44.1, 8.6),
    row!("src2_2", 1.1e6, 0.8e6, 39.2, 182.1),
    row!("stg_0", 2.0e6, 1.7e6, 15.1, 11.6),
    row!("ts_0", 1.8e6, 1.5e6, 11.3, 23.6),
    row!("usr_0", 2.2e6, 1.3e6, 13.1, 17.1),
    row!("web_0", 2.0e6, 1.4e6, 11.7, 36.4),
];

/// The row of trace `name`.
pub fn preset(name: &str) -> Result<&'static Row, PaperError> {
    TABLE1.iter().find(|row| row.name == name).ok_or_else(|| {
        let names: Vec<&str> = TABLE1.iter().map(|row| row.name).collect();
        PaperError(format!("{} is not a Table 1 trace of the FluidSMR paper ({})", quote(name), names.join(", ")))
    })
}

/// How much a trace of `requests` requests is scaled down from Table 1's (1: full size).
pub fn scale_of(row: &Row, requests: Option<i64>) -> Result<f64, PaperError> {
    let Some(requests) = requests else { return Ok(1.0) };
    if !(1..=MAX_GENERATED_REQUESTS as i64).contains(&requests) {
        return Err(PaperError(format!(
            "--requests must be from 1 to {}, got {requests}",
            thousands(MAX_GENERATED_REQUESTS)
        )));
    }
    Ok(1.0f64.min(requests as f64 / row.total))
}

/// Requests of the trace at `scale`.
pub fn requests_of(row: &Row, scale: f64) -> i64 {
    round(row.total * scale)
}

/// The zone size that keeps the paper's zone count at `scale`: 256 MiB scaled, in 4 KiB blocks.
pub fn zone_size(scale: f64) -> i64 {
    (BLOCK as i64).max(round(ZONE as f64 * scale / BLOCK as f64) * BLOCK as i64)
}

/// Bytes of the written core at `scale`.
pub fn core_bytes(row: &Row, scale: f64) -> i64 {
    round((row.written_gb * GIB / OVERWRITES).min(row.max_gb * GIB / 2.0) * scale)
}

/// Table 1's maximum offset at `scale`, in whole 4 KiB blocks.
pub fn max_offset(row: &Row, scale: f64) -> i64 {
    round(row.max_gb * GIB * scale).div_euclid(BLOCK as i64) * BLOCK as i64
}

/// The placement named `placement`, checked.
pub fn placement(placement: &str) -> Result<bool, PaperError> {
    match placement {
        "spread" => Ok(true),
        "front" => Ok(false),
        _ => Err(PaperError(format!("placement '{placement}' is none of {}", PLACEMENTS.join(", ")))),
    }
}

/// The share of writes that are sparse single blocks.
fn sparse_fraction(row: &Row, scale: f64, spread: bool) -> f64 {
    if !spread {
        return SPARSE_FRACTION;
    }
    let writes = requests_of(row, scale) as f64 * row.writes / row.total;
    SPARSE_FRACTION.min(SPARSE_WRITES / 1.0f64.max(writes))
}

/// Synthesizer parameters of the trace of `row` at `scale`.
pub fn params(row: &Row, scale: f64, seed: u64, spread: bool) -> Vec<String> {
    let count = requests_of(row, scale);
    let mean_kib = row.written_gb * GIB / row.writes / 1024.0;
    let large = 1.0f64.min(0.0f64.max((mean_kib - SMALL) / (LARGE as f64 - SMALL)));
    let max_offset = row.max_gb * GIB * scale;
    let core = core_bytes(row, scale);
    vec![
        format!("requests={count}"),
        format!("write_ratio={}", fixed(row.writes / row.total, 4)),
        format!("sizes={SMALL}k:{},{LARGE}k:{}", fixed(1.0 - large, 4), fixed(large, 4)),
        format!("hot_fraction={HOT_FRACTION}"),
        format!("written_range={core}"),
        format!("accessed_range={core}"),
        format!("sparse_fraction={}", general(sparse_fraction(row, scale, spread), 6)),
        format!("sparse_range={}", round(max_offset - core as f64)),
        format!("rate={}", fixed(count as f64 / WEEK_S, 6)),
        format!("seed={seed}"),
    ]
}

/// The chunk `spread` shuffles: the core over `hot_ranges`, in whole 4 KiB blocks; an error when
/// that does not fit (fewer than 2 chunks in the range, or a chunk smaller than the largest
/// request, which would then straddle most chunk ends).
pub fn chunk_bytes(row: &Row, scale: f64, hot_ranges: i64) -> Result<u64, PaperError> {
    if !(1..=MAX_HOT_RANGES as i64).contains(&hot_ranges) {
        return Err(PaperError(format!("--hot-ranges must be from 1 to {MAX_HOT_RANGES}, got {hot_ranges}")));
    }
    let chunk = core_bytes(row, scale).div_euclid(hot_ranges).div_euclid(BLOCK as i64) * BLOCK as i64;
    let span = max_offset(row, scale);
    if chunk < (LARGE * 1024) as i64 || span / chunk < 2 {
        return Err(PaperError(format!(
            "{hot_ranges} hot ranges do not fit {} at {} requests: each would be {} bytes of a {}-byte range (at least {LARGE} KiB each, and two in the range)",
            row.name, thousands(requests_of(row, scale) as u64), thousands(chunk as u64), thousands(span as u64)
        )));
    }
    Ok(chunk as u64)
}
