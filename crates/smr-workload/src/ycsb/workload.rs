//! YCSB's core workload: its parameters (under YCSB's property names), the presets of workloads
//! A to F, and the stream of operations a run issues. The stream is seeded and deterministic:
//! the same parameters and seed give the same operations, whatever the store does with them.
//!
//! Semantics follow YCSB's `CoreWorkload`: an operation is chosen by the read / update /
//! insert / scan / read-modify-write proportions; a key by the request distribution (uniform
//! over the loaded records, scrambled Zipfian over the loaded records plus twice the expected
//! inserts, skewed-latest, or hotspot), redrawn while it names a record not inserted yet;
//! inserts take the next record number; scans start at a chosen key and run for a length drawn
//! uniformly or Zipf-distributed in `minscanlength..=maxscanlength`.
//!
//! Choices where YCSB has no counterpart: a record is one value of `fieldcount x fieldlength`
//! bytes (a key-value store has no fields), so an update writes the whole record, as YCSB does
//! with `writeallfields=true`; "the newest record" is the last insert *issued* rather than the
//! last acknowledged, so the stream does not depend on the store's timing (a read may then
//! find a record whose insert is still in flight missing, which the executor counts).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use smr_core::quote::quote;

use super::keys::key_name;
use super::zipfian::{Latest, ScrambledZipfian, Zipfian, ZIPFIAN_CONSTANT};
use crate::error::{Result, WorkloadError};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OpKind {
    Read,
    Update,
    Insert,
    Scan,
    ReadModifyWrite,
}

impl OpKind {
    pub const ALL: [OpKind; 5] = [OpKind::Read, OpKind::Update, OpKind::Insert, OpKind::Scan, OpKind::ReadModifyWrite];

    /// YCSB's name of the operation.
    pub fn name(self) -> &'static str {
        match self {
            OpKind::Read => "read",
            OpKind::Update => "update",
            OpKind::Insert => "insert",
            OpKind::Scan => "scan",
            OpKind::ReadModifyWrite => "readmodifywrite",
        }
    }

    pub fn writes(self) -> bool {
        !matches!(self, OpKind::Read | OpKind::Scan)
    }
}

/// One operation of a run: what, on which record, and for scans how many records.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operation {
    pub kind: OpKind,
    pub record: u64,
    pub scan_length: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RequestDistribution {
    Uniform,
    Zipfian,
    Latest,
    Hotspot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanLengthDistribution {
    Uniform,
    Zipfian,
}

/// The parameters of a core workload, named as YCSB's properties.
#[derive(Clone, Debug, PartialEq)]
pub struct CoreWorkload {
    pub record_count: u64,
    pub operation_count: u64,
    pub field_count: u32,
    pub field_length: u32,
    /// read, update, insert, scan and read-modify-write proportions, in `OpKind::ALL` order.
    pub proportions: [f64; 5],
    pub request_distribution: RequestDistribution,
    pub zipfian_constant: f64,
    pub min_scan_length: u32,
    pub max_scan_length: u32,
    pub scan_length_distribution: ScanLengthDistribution,
    pub hotspot_data_fraction: f64,
    pub hotspot_opn_fraction: f64,
    /// Keys are "user" + the record number (true) or + its hash (YCSB's default, false).
    pub ordered_inserts: bool,
    pub zero_padding: usize,
}

impl Default for CoreWorkload {
    /// YCSB's defaults (and so workload B's mix, with a uniform request distribution).
    fn default() -> Self {
        CoreWorkload {
            record_count: 1000,
            operation_count: 1000,
            field_count: 10,
            field_length: 100,
            proportions: [0.95, 0.05, 0.0, 0.0, 0.0],
            request_distribution: RequestDistribution::Uniform,
            zipfian_constant: ZIPFIAN_CONSTANT,
            min_scan_length: 1,
            max_scan_length: 1000,
            scan_length_distribution: ScanLengthDistribution::Uniform,
            hotspot_data_fraction: 0.2,
            hotspot_opn_fraction: 0.8,
            ordered_inserts: false,
            zero_padding: 1,
        }
    }
}

/// The most records (`recordcount`) and operations (`operationcount`) of a workload, so that
/// record numbers, inserts included, never wrap (2^48: 281 trillion).
pub const MAX_RECORDS: u64 = 1 << 48;
/// The most bytes of one record's value (`fieldcount x fieldlength`): 64 MiB, a band's worth.
pub const MAX_RECORD_BYTES: usize = 64 << 20;
/// The most digits a record number is padded to (a u64 has 20).
pub const MAX_ZERO_PADDING: usize = 64;

/// The workload letters YCSB ships.
pub const PRESETS: [&str; 6] = ["a", "b", "c", "d", "e", "f"];

impl CoreWorkload {
    /// YCSB's workload `a` to `f` (update heavy, read mostly, read only, read latest, short
    /// ranges, read-modify-write).
    pub fn preset(name: &str) -> Result<CoreWorkload> {
        use RequestDistribution::*;
        let (proportions, distribution) = match name.to_ascii_lowercase().as_str() {
            "a" => ([0.5, 0.5, 0.0, 0.0, 0.0], Zipfian),
            "b" => ([0.95, 0.05, 0.0, 0.0, 0.0], Zipfian),
            "c" => ([1.0, 0.0, 0.0, 0.0, 0.0], Zipfian),
            "d" => ([0.95, 0.0, 0.05, 0.0, 0.0], Latest),
            "e" => ([0.0, 0.0, 0.05, 0.95, 0.0], Zipfian),
            "f" => ([0.5, 0.0, 0.0, 0.0, 0.5], Zipfian),
            other => {
                return Err(WorkloadError::parameter(
                    "workload",
                    format!("{} is not a YCSB core workload (one of a, b, c, d, e, f)", quote(other)),
                ))
            }
        };
        let max_scan_length = if name.eq_ignore_ascii_case("e") { 100 } else { 1000 };
        Ok(CoreWorkload { proportions, request_distribution: distribution, max_scan_length, ..CoreWorkload::default() })
    }

    /// Sets one parameter by its YCSB property name (`recordcount`, `readproportion`,
    /// `requestdistribution`, ...).
    pub fn set(&mut self, name: &str, value: &str) -> Result<()> {
        let bad = |problem: &str| WorkloadError::parameter(name, format!("{} {problem}", quote(value)));
        let count = || value.parse::<u64>().map_err(|_| bad("is not a whole number"));
        let fraction = || {
            value
                .parse::<f64>()
                .ok()
                .filter(|f| (0.0..=1.0).contains(f))
                .ok_or_else(|| bad("is not a fraction in [0, 1]"))
        };
        let small = || value.parse::<u32>().map_err(|_| bad("is not a whole number below 2^32"));
        match name {
            "recordcount" => self.record_count = count()?,
            "operationcount" => self.operation_count = count()?,
            "fieldcount" => self.field_count = small()?,
            "fieldlength" => self.field_length = small()?,
            "readproportion" => self.proportions[0] = fraction()?,
            "updateproportion" => self.proportions[1] = fraction()?,
            "insertproportion" => self.proportions[2] = fraction()?,
            "scanproportion" => self.proportions[3] = fraction()?,
            "readmodifywriteproportion" => self.proportions[4] = fraction()?,
            "requestdistribution" => {
                self.request_distribution = match value {
                    "uniform" => RequestDistribution::Uniform,
                    "zipfian" => RequestDistribution::Zipfian,
                    "latest" => RequestDistribution::Latest,
                    "hotspot" => RequestDistribution::Hotspot,
                    _ => return Err(bad("is not a request distribution (uniform, zipfian, latest, hotspot)")),
                }
            }
            "zipfianconstant" => self.zipfian_constant = value.parse::<f64>().ok().filter(|t| *t > 0.0 && t.is_finite()).ok_or_else(|| bad("is not a positive number"))?,
            "minscanlength" => self.min_scan_length = small()?,
            "maxscanlength" => self.max_scan_length = small()?,
            "scanlengthdistribution" => {
                self.scan_length_distribution = match value {
                    "uniform" => ScanLengthDistribution::Uniform,
                    "zipfian" => ScanLengthDistribution::Zipfian,
                    _ => return Err(bad("is not a scan length distribution (uniform, zipfian)")),
                }
            }
            "hotspotdatafraction" => self.hotspot_data_fraction = fraction()?,
            "hotspotopnfraction" => self.hotspot_opn_fraction = fraction()?,
            "insertorder" => {
                self.ordered_inserts = match value {
                    "ordered" => true,
                    "hashed" => false,
                    _ => return Err(bad("is not an insert order (hashed, ordered)")),
                }
            }
            "zeropadding" => self.zero_padding = small()? as usize,
            _ => return Err(WorkloadError::parameter(quote(name), "is not a core workload property (recordcount, operationcount, fieldcount, fieldlength, readproportion, updateproportion, insertproportion, scanproportion, readmodifywriteproportion, requestdistribution, zipfianconstant, minscanlength, maxscanlength, scanlengthdistribution, hotspotdatafraction, hotspotopnfraction, insertorder, zeropadding)")),
        }
        Ok(())
    }

    /// Checks what `set` cannot check alone: combinations.
    pub fn validate(&self) -> Result<()> {
        if !(1..=MAX_RECORDS).contains(&self.record_count) {
            return Err(WorkloadError::parameter(
                "recordcount",
                format!(
                    "must be from 1 (the key distributions draw from the loaded records) to 2^48, not {}",
                    self.record_count
                ),
            ));
        }
        if self.operation_count > MAX_RECORDS {
            return Err(WorkloadError::parameter(
                "operationcount",
                format!("must be at most 2^48, not {}", self.operation_count),
            ));
        }
        if self.proportions.iter().sum::<f64>() <= 0.0 {
            return Err(WorkloadError::parameter("readproportion", "the operation proportions are all 0"));
        }
        if self.min_scan_length == 0 || self.min_scan_length > self.max_scan_length {
            return Err(WorkloadError::parameter(
                "minscanlength",
                format!("must be in 1..=maxscanlength ({}), not {}", self.max_scan_length, self.min_scan_length),
            ));
        }
        if self.value_len() > MAX_RECORD_BYTES {
            return Err(WorkloadError::parameter(
                "fieldlength",
                format!(
                    "fieldcount x fieldlength = {} x {} bytes is over the {MAX_RECORD_BYTES} bytes a record may hold",
                    self.field_count, self.field_length
                ),
            ));
        }
        if self.zero_padding > MAX_ZERO_PADDING {
            return Err(WorkloadError::parameter(
                "zeropadding",
                format!("must be at most {MAX_ZERO_PADDING} digits, not {}", self.zero_padding),
            ));
        }
        if self.request_distribution == RequestDistribution::Hotspot
            && ((self.record_count as f64 * self.hotspot_data_fraction) as u64 == 0
                || self.hotspot_data_fraction >= 1.0)
        {
            return Err(WorkloadError::parameter(
                "hotspotdatafraction",
                "leaves the hot set or the cold set without records",
            ));
        }
        Ok(())
    }

    /// Bytes of one record's value.
    pub fn value_len(&self) -> usize {
        self.field_count as usize * self.field_length as usize
    }

    /// The key of record `record`.
    pub fn key(&self, record: u64) -> String {
        key_name(record, self.zero_padding, self.ordered_inserts)
    }
}

enum KeyChooser {
    Uniform,
    Zipfian(ScrambledZipfian),
    Latest(Latest),
    Hotspot,
}

/// Draws of a Zipfian record past the newest one before the draw is folded onto the records.
const MAX_REDRAWS: u32 = 64;

/// The operations of a run, one after another, from a seed.
pub struct OperationStream {
    workload: CoreWorkload,
    rng: ChaCha8Rng,
    cumulative: [f64; 5],
    chooser: KeyChooser,
    scan_zipf: Option<Zipfian>,
    /// The record number the next insert takes.
    next_insert: u64,
}

impl OperationStream {
    pub fn new(workload: &CoreWorkload, seed: u64) -> Result<OperationStream> {
        workload.validate()?;
        let w = workload.clone();
        let total: f64 = w.proportions.iter().sum();
        let mut cumulative = [0.0; 5];
        let mut acc = 0.0;
        for (c, p) in cumulative.iter_mut().zip(w.proportions) {
            acc += p / total;
            *c = acc;
        }
        let expected_inserts = (w.operation_count as f64 * w.proportions[2] / total * 2.0) as u64;
        let chooser = match w.request_distribution {
            RequestDistribution::Uniform => KeyChooser::Uniform,
            RequestDistribution::Zipfian => {
                KeyChooser::Zipfian(ScrambledZipfian::new(0, w.record_count + expected_inserts, w.zipfian_constant))
            }
            RequestDistribution::Latest => KeyChooser::Latest(Latest::new(w.record_count, w.zipfian_constant)),
            RequestDistribution::Hotspot => KeyChooser::Hotspot,
        };
        let scan_zipf = (w.scan_length_distribution == ScanLengthDistribution::Zipfian)
            .then(|| Zipfian::new(w.min_scan_length as u64, w.max_scan_length as u64, ZIPFIAN_CONSTANT));
        Ok(OperationStream {
            next_insert: w.record_count,
            workload: w,
            rng: ChaCha8Rng::seed_from_u64(seed),
            cumulative,
            chooser,
            scan_zipf,
        })
    }

    pub fn workload(&self) -> &CoreWorkload {
        &self.workload
    }

    pub fn next_op(&mut self) -> Operation {
        let u: f64 = self.rng.gen();
        let at = self.cumulative.iter().position(|&c| u < c).unwrap_or(4);
        let kind = OpKind::ALL[at];
        if kind == OpKind::Insert {
            let record = self.next_insert;
            self.next_insert += 1;
            return Operation { kind, record, scan_length: 0 };
        }
        let record = self.choose_record();
        let scan_length = if kind == OpKind::Scan { self.scan_length() } else { 0 };
        Operation { kind, record, scan_length }
    }

    /// A record among those inserted so far, by the request distribution.
    fn choose_record(&mut self) -> u64 {
        let w = &self.workload;
        let newest = self.next_insert - 1;
        match &mut self.chooser {
            KeyChooser::Uniform => self.rng.gen_range(0..w.record_count),
            // YCSB draws again while the draw is past the newest record. Its key space holds the
            // inserts expected, so a draw lands among the records so far at least about one time
            // in three, unless few records and many operations make that rare: after
            // `MAX_REDRAWS` the draw is folded onto the records instead of drawn forever.
            KeyChooser::Zipfian(z) => {
                let mut r = z.next(&mut self.rng);
                for _ in 0..MAX_REDRAWS {
                    if r <= newest {
                        break;
                    }
                    r = z.next(&mut self.rng);
                }
                r % (newest + 1)
            }
            KeyChooser::Latest(l) => l.next(newest, &mut self.rng),
            KeyChooser::Hotspot => {
                let hot = (w.record_count as f64 * w.hotspot_data_fraction) as u64;
                if self.rng.gen::<f64>() < w.hotspot_opn_fraction {
                    self.rng.gen_range(0..hot)
                } else {
                    self.rng.gen_range(hot..w.record_count)
                }
            }
        }
    }

    fn scan_length(&mut self) -> u32 {
        let w = &self.workload;
        match &mut self.scan_zipf {
            Some(z) => z.next(&mut self.rng) as u32,
            None => self.rng.gen_range(w.min_scan_length..=w.max_scan_length),
        }
    }
}

#[cfg(test)]
#[path = "workload_tests.rs"]
mod tests;
