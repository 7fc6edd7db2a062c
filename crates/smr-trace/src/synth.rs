//! `smrlab trace synth`: a seeded generator of block traces with a chosen write ratio, written
//! and accessed range, request sizes, Zipf-skewed hot regions, sequential runs and arrival rate,
//! plus presets that reproduce Table I of the PORE paper (the nine MSR Cambridge traces).
//!
//! The model. Addresses are 4 KiB-aligned. Writes land, with probability `hot_fraction`, in one
//! of `hot_regions` equal hot regions chosen by a Zipf law of exponent `zipf` (region 1 the
//! hottest), and otherwise uniformly over a cold written area of B blocks. B is solved so that
//! the expected union of written blocks equals `written_range`: k uniformly placed blocks cover
//! B·(1 − e^(−k/B)) of B (Poisson coverage), and the hot regions add what the cold writes miss.
//! With `cold_streams` = N > 0 the cold writes are instead appended by N concurrent streams (a
//! log, a file being written): each write goes to a random stream, lands where that stream's
//! last write ended, and with probability 1/`cold_run` the stream then jumps to a random place.
//! Uniformly placed runs cover the area as uniformly placed blocks do, so B is solved the same way.
//! With `sparse_fraction` = f > 0, a share f of the writes are instead single 4 KiB writes placed
//! uniformly in a sparse area of `sparse_range` bytes after the cold area: the scattered updates
//! (metadata, logs) that touch many bands a few blocks at a time, which the PORE paper's written
//! range counts in full, as it is the capacity of the touched bands (Table I).
//! Reads re-read one of the last 1024 written extents (temporal locality over written data),
//! except a share sized so that reads alone cover `accessed_range − written_range` of a read-only
//! area placed after the written one. With probability `seq` a request continues the previous one
//! (same op, next address). Request sizes follow `sizes` (e.g. `4k:50,8k:20,64k:30`, weights),
//! in multiples of `size_unit` (4 KiB, or a smaller multiple of 512 bytes dividing it, for
//! traces of sector-sized requests such as the SPC Financial ones); with `read_sizes` reads draw
//! their own sizes (a re-read then starts at a recent write and has a read's size).
//! Inter-arrival times are exponential at `rate` requests per second.
//!
//! `written_range` and `accessed_range` are unions of touched 4 KiB blocks (`TraceStats`' union
//! fields) of the hot and cold writes (and the reads); sparse writes come on top. Table I gives
//! "written LBA range" as the capacity of the touched SMR bands, which equals the union for
//! densely written bands and also counts the sparse area in full once its bands are all touched.
//! `requests` below a preset's count scales both ranges by the same factor, so a smaller trace
//! keeps the preset's density and mix.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Exp, WeightedIndex, Zipf};

use smr_core::param_spec::{Kind, ParamList, ParamReader, ParamSpec, NONE};
use smr_core::params::{ParamError, Params};
use smr_core::request::{Op, Request};
use smr_core::units::{parse_size, BLOCK_4K, GB, NS_PER_S};

use super::TraceError;

/// One Table I row: name, requests, write percent, written and accessed range in GB (10^9 B).
pub struct Preset {
    pub name: &'static str,
    pub requests: u64,
    pub write_percent: f64,
    pub written_gb: f64,
    pub accessed_gb: f64,
}

/// Table I of the PORE paper (MSR Cambridge traces, one week each).
pub const PRESETS: [Preset; 9] = [
    Preset { name: "src", requests: 14_024_860, write_percent: 83.2, written_gb: 3.80, accessed_gb: 3.93 },
    Preset { name: "prn", requests: 17_635_766, write_percent: 80.2, written_gb: 20.22, accessed_gb: 20.26 },
    Preset { name: "ts", requests: 4_216_457, write_percent: 74.1, written_gb: 9.80, accessed_gb: 9.81 },
    Preset { name: "wdev", requests: 2_654_824, write_percent: 72.7, written_gb: 4.71, accessed_gb: 4.73 },
    Preset { name: "mds", requests: 2_916_662, write_percent: 70.4, written_gb: 3.58, accessed_gb: 3.73 },
    Preset { name: "stg", requests: 6_098_667, write_percent: 68.2, written_gb: 7.29, accessed_gb: 7.58 },
    Preset { name: "hm", requests: 8_985_487, write_percent: 67.3, written_gb: 9.07, accessed_gb: 9.19 },
    Preset { name: "web", requests: 9_642_398, write_percent: 46.4, written_gb: 7.11, accessed_gb: 8.35 },
    Preset { name: "usr", requests: 12_873_274, write_percent: 27.9, written_gb: 6.42, accessed_gb: 6.92 },
];

/// The names of `PRESETS`, in order: the choices of `preset`.
pub const PRESET_NAMES: [&str; PRESETS.len()] = {
    let mut names = [""; PRESETS.len()];
    let mut i = 0;
    while i < PRESETS.len() {
        names[i] = PRESETS[i].name;
        i += 1;
    }
    names
};

const WEEK_S: f64 = 7.0 * 24.0 * 3600.0;
const RECENT_WRITES: usize = 1024;
/// The most hot regions or cold streams the generator keeps (a table of their places each).
const MAX_TABLE: u64 = 1 << 20;
/// The requests of a trace without a preset.
const DEFAULT_REQUESTS: u64 = 100_000;
/// The write share of a trace without a preset.
const DEFAULT_WRITE_RATIO: f64 = 0.7;

pub const PRESET: ParamSpec = ParamSpec::new(
    "preset",
    Kind::Choice(&PRESET_NAMES),
    NONE,
    "a row of the PORE paper's Table I (MSR Cambridge, one week): its requests, write share, ranges and rate become the defaults",
);
pub const REQUESTS: ParamSpec = ParamSpec::new(
    "requests",
    Kind::Count,
    NONE,
    "requests to generate (default: the preset's, else 100000); below a preset's count its ranges scale down alike",
);
pub const SIZE_UNIT: ParamSpec = ParamSpec::new(
    "size_unit",
    Kind::Size,
    "4KiB",
    "bytes request sizes are counted in: 4 KiB, or a multiple of 512 bytes dividing it",
);
pub const SIZES: ParamSpec = ParamSpec::new(
    "sizes",
    Kind::Custom { unit: "SIZE:WEIGHT,... (sizes in bytes, multiples of size_unit)" },
    "4k:50,8k:20,16k:10,32k:10,64k:10",
    "request sizes with their weights",
);
pub const READ_SIZES: ParamSpec = ParamSpec::new(
    "read_sizes",
    Kind::Custom { unit: "SIZE:WEIGHT,... (sizes in bytes, multiples of size_unit)" },
    NONE,
    "read sizes with their weights (default: reads draw from sizes, and a re-read keeps the length of the write it re-reads)",
);
pub const WRITE_RATIO: ParamSpec = ParamSpec::new(
    "write_ratio",
    Kind::Fraction,
    NONE,
    "share of requests that are writes (default: the preset's, else 0.7)",
);
pub const HOT_FRACTION: ParamSpec =
    ParamSpec::new("hot_fraction", Kind::Fraction, "0.5", "share of writes that land in the hot regions");
pub const WRITTEN_RANGE: ParamSpec = ParamSpec::new(
    "written_range",
    Kind::Size,
    NONE,
    "union of written 4 KiB blocks (default: the preset's, else half of what the cold writes could cover)",
);
pub const ACCESSED_RANGE: ParamSpec = ParamSpec::new(
    "accessed_range",
    Kind::Size,
    NONE,
    "union of accessed blocks, at least written_range (default: the preset's, else 10 % above written_range)",
);
pub const HOT_REGIONS: ParamSpec =
    ParamSpec::new("hot_regions", Kind::Count, "16", "equal hot regions, chosen by a Zipf law (region 1 the hottest)");
pub const HOT_SIZE: ParamSpec = ParamSpec::new(
    "hot_size",
    Kind::Size,
    NONE,
    "bytes of all hot regions together, at most written_range (default: 2 % of it)",
);
pub const ZIPF: ParamSpec = ParamSpec::new(
    "zipf",
    Kind::Positive { unit: "an exponent" },
    "1",
    "the Zipf exponent of the hot regions' popularity",
);
pub const SEQ: ParamSpec = ParamSpec::new(
    "seq",
    Kind::Fraction,
    "0.2",
    "probability that a request continues the previous one (same op, next address)",
);
pub const RATE: ParamSpec = ParamSpec::new(
    "rate",
    Kind::Positive { unit: "requests per second" },
    NONE,
    "mean arrival rate, exponential gaps (default: the requests spread over a week)",
);
pub const SEED: ParamSpec = ParamSpec::new("seed", Kind::Whole, "0", "seed of the generator's random choices");
pub const COLD_STREAMS: ParamSpec = ParamSpec::new(
    "cold_streams",
    Kind::Whole,
    "0",
    "streams that append the cold writes (0: cold writes land uniformly)",
);
pub const COLD_RUN: ParamSpec = ParamSpec::new(
    "cold_run",
    Kind::Positive { unit: "writes" },
    "64",
    "mean writes a stream appends before it jumps to a random place (at least 1)",
);
pub const COLD_WINDOW: ParamSpec = ParamSpec::new(
    "cold_window",
    Kind::Fraction,
    "1",
    "share of the cold area (above 0) the cold writes reach at any one time",
);
pub const SPARSE_FRACTION: ParamSpec = ParamSpec::new(
    "sparse_fraction",
    Kind::Fraction,
    "0",
    "share of writes that are single 4 KiB blocks scattered over the sparse area",
);
pub const SPARSE_RANGE: ParamSpec = ParamSpec::new(
    "sparse_range",
    Kind::Size,
    NONE,
    "bytes of the sparse area, after the cold area (needed when sparse_fraction is above 0)",
);

/// Every parameter of the generator.
pub const PARAMS: ParamList = &[&[
    PRESET,
    REQUESTS,
    SIZE_UNIT,
    SIZES,
    READ_SIZES,
    WRITE_RATIO,
    HOT_FRACTION,
    WRITTEN_RANGE,
    ACCESSED_RANGE,
    HOT_REGIONS,
    HOT_SIZE,
    ZIPF,
    SEQ,
    RATE,
    SEED,
    COLD_STREAMS,
    COLD_RUN,
    COLD_WINDOW,
    SPARSE_FRACTION,
    SPARSE_RANGE,
]];

/// Every knob of the generator, after defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct SynthConfig {
    pub requests: u64,
    pub write_ratio: f64,
    pub written_range: u64,
    pub accessed_range: u64,
    /// Request sizes in `size_unit`s, with weights.
    pub sizes: Vec<(u64, f64)>,
    /// Bytes sizes are counted in: 4 KiB, or a multiple of 512 bytes dividing it.
    pub size_unit: u64,
    /// Read sizes in `size_unit`s, with weights (None: reads draw from `sizes` and re-reads
    /// keep the length of the write they re-read).
    pub read_sizes: Option<Vec<(u64, f64)>>,
    pub hot_regions: u64,
    pub hot_fraction: f64,
    pub hot_size: u64,
    pub zipf: f64,
    pub seq: f64,
    pub rate: f64,
    pub seed: u64,
    /// Cold writes appended by this many concurrent streams (0: cold writes uniform).
    pub cold_streams: u64,
    /// Mean writes a stream appends before it jumps to a new random place.
    pub cold_run: f64,
    /// Fraction of the cold area that cold writes reach at any one time (1: all of it).
    pub cold_window: f64,
    /// Share of writes that are single blocks scattered over the sparse area.
    pub sparse_fraction: f64,
    /// Size of the sparse area in bytes (after the cold area).
    pub sparse_range: u64,
}

fn parse_sizes(key: &str, text: &str, unit: u64) -> Result<Vec<(u64, f64)>, ParamError> {
    let err = |m: String| ParamError::new(key, m);
    let mut out = Vec::new();
    for part in text.split(',') {
        let (size, weight) =
            part.split_once(':').ok_or_else(|| err(format!("{} is not SIZE:WEIGHT", smr_core::quote(part))))?;
        let bytes = parse_size(size).map_err(err)?;
        let weight: f64 =
            weight.trim().parse().map_err(|_| err(format!("weight {} is not a number", smr_core::quote(weight))))?;
        if bytes == 0 || !bytes.is_multiple_of(unit) || !(weight >= 0.0 && weight.is_finite()) {
            return Err(err(format!(
                "{}: sizes must be positive multiples of {unit} bytes (size_unit) and weights non-negative",
                smr_core::quote(part)
            )));
        }
        out.push((bytes / unit, weight));
    }
    if out.iter().all(|(_, w)| *w == 0.0) {
        return Err(err("all weights are zero".into()));
    }
    Ok(out)
}

/// Mean request size in 4 KiB blocks of a (units of `unit` bytes, weight) distribution.
fn mean_blocks(sizes: &[(u64, f64)], unit: u64) -> f64 {
    let total: f64 = sizes.iter().map(|(_, w)| w).sum();
    sizes.iter().map(|(b, w)| (*b * unit) as f64 / BLOCK_4K as f64 * w).sum::<f64>() / total
}

impl SynthConfig {
    /// Reads the generator's parameters; `preset=NAME` supplies Table I defaults, and `requests`
    /// below the preset's count scales its ranges proportionally.
    pub fn from_params(params: &mut Params) -> Result<Self, ParamError> {
        let params = &mut ParamReader::new(params, PARAMS);
        let preset = params
            .optional(&PRESET, ParamReader::choice)?
            .map(|name| PRESETS.iter().find(|p| p.name == name).expect("the choices are the presets' names"));
        let full = preset.map_or(DEFAULT_REQUESTS, |p| p.requests);
        let requests = params.optional(&REQUESTS, ParamReader::count)?.unwrap_or(full);
        let scale = requests as f64 / full as f64;
        let size_unit = params.size(&SIZE_UNIT)?;
        if !size_unit.is_multiple_of(512) || !BLOCK_4K.is_multiple_of(size_unit) {
            return Err(ParamError::new(
                "size_unit",
                format!("{size_unit} is not a multiple of 512 bytes dividing 4096"),
            ));
        }
        let sizes = parse_sizes("sizes", &params.text(&SIZES)?, size_unit)?;
        let read_sizes = match params.optional(&READ_SIZES, ParamReader::text)? {
            Some(text) => Some(parse_sizes("read_sizes", &text, size_unit)?),
            None => None,
        };
        let mean_bytes = mean_blocks(&sizes, size_unit) * BLOCK_4K as f64;
        let write_ratio = params
            .optional(&WRITE_RATIO, ParamReader::fraction)?
            .unwrap_or(preset.map_or(DEFAULT_WRITE_RATIO, |p| p.write_percent / 100.0));
        let hot_fraction = params.fraction(&HOT_FRACTION)?;
        // Without a preset, the written range is half of what the cold writes could cover at
        // most (so they touch its blocks about 1.3 times on average) and reads reach 10 % beyond it.
        let (written_default, accessed_default) = match preset {
            Some(p) => ((p.written_gb * GB as f64 * scale) as u64, (p.accessed_gb * GB as f64 * scale) as u64),
            None => {
                let written = (requests as f64 * write_ratio * (1.0 - hot_fraction) * mean_bytes / 2.0) as u64;
                (written, written.saturating_add(written / 10))
            }
        };
        let written_range = params.optional_size(&WRITTEN_RANGE)?.unwrap_or(written_default.max(BLOCK_4K));
        let accessed_range = params.optional_size(&ACCESSED_RANGE)?.unwrap_or(accessed_default.max(written_range));
        if accessed_range < written_range {
            return Err(ParamError::new(
                "accessed_range",
                "must be at least written_range (the accessed range includes the written one)",
            ));
        }
        let hot_regions = params.count(&HOT_REGIONS)?;
        if hot_regions > MAX_TABLE {
            return Err(ParamError::new(
                "hot_regions",
                format!("{hot_regions} regions are more than the generator keeps ({MAX_TABLE})"),
            ));
        }
        let hot_size = params
            .optional_size(&HOT_SIZE)?
            .unwrap_or((written_range / 50).max(hot_regions * BLOCK_4K).min(written_range));
        if hot_size > written_range {
            return Err(ParamError::new("hot_size", "must not exceed written_range"));
        }
        let zipf = params.positive(&ZIPF)?;
        let seq = params.fraction(&SEQ)?;
        let rate = params.optional(&RATE, ParamReader::positive)?.unwrap_or(full as f64 / WEEK_S);
        if requests as f64 / rate * NS_PER_S as f64 >= (1u64 << 62) as f64 {
            return Err(ParamError::new(
                "rate",
                format!("{rate} requests per second would make {requests} requests last past 2^62 ns (146 years)"),
            ));
        }
        let seed = params.whole(&SEED)?;
        let cold_streams = params.whole(&COLD_STREAMS)?;
        if cold_streams > MAX_TABLE {
            return Err(ParamError::new(
                "cold_streams",
                format!("{cold_streams} streams are more than the generator keeps ({MAX_TABLE})"),
            ));
        }
        let cold_run = params.positive(&COLD_RUN)?;
        if cold_run < 1.0 {
            return Err(ParamError::new("cold_run", "a stream's run is at least one write"));
        }
        let cold_window = params.fraction(&COLD_WINDOW)?;
        if cold_window == 0.0 {
            return Err(ParamError::new("cold_window", "must be above 0 (a fraction of the cold area)"));
        }
        let sparse_fraction = params.fraction(&SPARSE_FRACTION)?;
        let sparse_range = params.optional_size(&SPARSE_RANGE)?.unwrap_or(0);
        if sparse_fraction > 0.0 && sparse_range < BLOCK_4K {
            return Err(ParamError::new(
                "sparse_range",
                "sparse writes (sparse_fraction above 0) need a sparse area of at least one 4 KiB block",
            ));
        }
        let largest = sizes.iter().map(|(blocks, _)| blocks * BLOCK_4K).max().unwrap_or(BLOCK_4K);
        if largest > smr_core::request::MAX_LEN {
            return Err(ParamError::new(
                "sizes",
                format!("{largest} bytes is longer than the longest request ({} bytes)", smr_core::request::MAX_LEN),
            ));
        }
        // The areas lie one after the other: cold (up to twice the written range), sparse, read-only.
        let reach = [
            written_range,
            written_range,
            sparse_range,
            accessed_range - written_range,
            accessed_range - written_range,
            largest,
        ]
        .iter()
        .try_fold(0u64, |sum, &bytes| sum.checked_add(bytes));
        if reach.is_none_or(|end| end > smr_core::request::MAX_END / 2) {
            return Err(ParamError::new(
                "written_range",
                "the ranges (written, accessed, sparse) together reach past byte 2^62: they are beyond any disk",
            ));
        }
        let cfg = SynthConfig {
            requests,
            write_ratio,
            written_range,
            accessed_range,
            sizes,
            size_unit,
            read_sizes,
            hot_regions,
            hot_fraction,
            hot_size,
            zipf,
            seq,
            rate,
            seed,
            cold_streams,
            cold_run,
            cold_window,
            sparse_fraction,
            sparse_range,
        };
        cfg.check_reachable()?;
        Ok(cfg)
    }

    /// The ranges must be reachable: k uniformly placed blocks cover fewer than k blocks, so the
    /// written range needs more cold written blocks (plus the hot area) than it holds, and the
    /// read-only extra more read blocks; near the limit the areas would become absurdly sparse.
    fn check_reachable(&self) -> Result<(), ParamError> {
        const MARGIN: f64 = 0.95;
        let writes = self.requests as f64 * self.write_ratio;
        let cold_k = self.cold_blocks_written();
        let hot = (self.hot_size / BLOCK_4K) as f64;
        let target = (self.written_range / BLOCK_4K) as f64;
        if target > 1.0 && target >= MARGIN * (cold_k + hot) {
            return Err(ParamError::new(
                "written_range",
                format!(
                    "{} bytes cannot be covered by these writes (at most about {} bytes): raise requests or write_ratio, or lower hot_fraction",
                    self.written_range,
                    ((cold_k + hot) * MARGIN) as u64 * BLOCK_4K
                ),
            ));
        }
        let extra = ((self.accessed_range - self.written_range) / BLOCK_4K) as f64;
        let read_k = (self.requests as f64 - writes) * self.mean_read_blocks();
        if extra >= 1.0 && extra >= MARGIN * read_k {
            return Err(ParamError::new(
                "accessed_range",
                format!(
                    "the reads cannot cover {} bytes beyond the written range: lower accessed_range or add reads",
                    (extra as u64) * BLOCK_4K
                ),
            ));
        }
        Ok(())
    }

    fn mean_blocks(&self) -> f64 {
        mean_blocks(&self.sizes, self.size_unit)
    }

    fn mean_read_blocks(&self) -> f64 {
        self.read_sizes.as_ref().map_or_else(|| self.mean_blocks(), |sizes| mean_blocks(sizes, self.size_unit))
    }

    /// Expected blocks written by cold writes (neither hot nor sparse).
    fn cold_blocks_written(&self) -> f64 {
        self.requests as f64
            * self.write_ratio
            * (1.0 - self.sparse_fraction)
            * (1.0 - self.hot_fraction)
            * self.mean_blocks()
    }
}

/// Blocks B of a uniformly written area such that k random blocks plus `hot` always-written
/// blocks cover `target` blocks in expectation (bisection on B; coverage grows with B).
fn solve_area(target: f64, k: f64, hot: f64) -> f64 {
    let covered = |b: f64| b * (1.0 - (-k / b).exp()) + hot * (-k / b).exp();
    if covered(target) >= target || k <= 0.0 {
        return target.max(1.0);
    }
    let (mut lo, mut hi) = (target, target * 2.0);
    while covered(hi) < target && hi < target * 1e6 {
        hi *= 2.0;
    }
    for _ in 0..100 {
        let mid = 0.5 * (lo + hi);
        if covered(mid) < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    hi
}

/// The request stream of a `SynthConfig`.
pub struct Synth {
    cfg: SynthConfig,
    rng: ChaCha8Rng,
    sizes: WeightedIndex<f64>,
    read_sizes: Option<WeightedIndex<f64>>,
    zipf: Zipf<f64>,
    gap: Exp<f64>,
    hot_starts: Vec<u64>,
    hot_blocks: u64,
    cold_blocks: u64,
    /// Blocks of the sparse area, which starts at `cold_blocks`.
    sparse_blocks: u64,
    /// Where each cold stream appends next.
    cold_cursors: Vec<u64>,
    read_only_start: u64,
    read_only_blocks: u64,
    read_only_share: f64,
    recent: Vec<(u64, u64)>,
    previous: Option<Request>,
    emitted: u64,
    clock_ns: f64,
}

impl Synth {
    pub fn new(cfg: SynthConfig) -> Self {
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let writes = cfg.requests as f64 * cfg.write_ratio;
        let reads = cfg.requests as f64 - writes;
        let hot_blocks_total = (cfg.hot_size / BLOCK_4K).max(cfg.hot_regions);
        let hot_blocks = hot_blocks_total / cfg.hot_regions;
        let target_written = (cfg.written_range / BLOCK_4K) as f64;
        let cold_blocks =
            solve_area(target_written, cfg.cold_blocks_written(), (hot_blocks * cfg.hot_regions) as f64).ceil() as u64;
        let sparse_blocks = cfg.sparse_range / BLOCK_4K;
        let cold_cursors = (0..cfg.cold_streams).map(|_| rng.gen_range(0..cold_blocks)).collect();
        let hot_starts =
            (0..cfg.hot_regions).map(|_| rng.gen_range(0..cold_blocks.saturating_sub(hot_blocks).max(1))).collect();
        // Reads alone must cover the read-only extra: give them thrice its size in blocks.
        let extra = ((cfg.accessed_range - cfg.written_range) / BLOCK_4K) as f64;
        let read_blocks = reads * cfg.mean_read_blocks();
        let read_only_share =
            if extra < 1.0 || read_blocks <= 0.0 { 0.0 } else { (3.0 * extra / read_blocks).min(1.0) };
        let read_only_blocks = if read_only_share == 0.0 {
            0
        } else {
            solve_area(extra, read_only_share * read_blocks, 0.0).ceil() as u64
        };
        let weights: Vec<f64> = cfg.sizes.iter().map(|(_, w)| *w).collect();
        Synth {
            sizes: WeightedIndex::new(weights).expect("weights validated in SynthConfig"),
            read_sizes: cfg.read_sizes.as_ref().map(|sizes| {
                WeightedIndex::new(sizes.iter().map(|(_, w)| *w)).expect("weights validated in SynthConfig")
            }),
            zipf: Zipf::new(cfg.hot_regions, cfg.zipf).expect("zipf parameters validated in SynthConfig"),
            gap: Exp::new(cfg.rate / NS_PER_S as f64).expect("rate validated in SynthConfig"),
            hot_starts,
            hot_blocks,
            cold_blocks,
            cold_cursors,
            read_only_start: cold_blocks + sparse_blocks,
            sparse_blocks,
            read_only_blocks,
            read_only_share,
            recent: Vec::with_capacity(RECENT_WRITES),
            previous: None,
            emitted: 0,
            clock_ns: 0.0,
            cfg,
            rng,
        }
    }

    /// A request size in bytes, from `sizes`.
    fn size_bytes(&mut self) -> u64 {
        self.cfg.sizes[self.sizes.sample(&mut self.rng)].0 * self.cfg.size_unit
    }

    /// A read's size in bytes: from `read_sizes` if given, else `otherwise`.
    fn read_bytes(&mut self, otherwise: u64) -> u64 {
        match (&self.read_sizes, &self.cfg.read_sizes) {
            (Some(dist), Some(sizes)) => sizes[dist.sample(&mut self.rng)].0 * self.cfg.size_unit,
            _ => otherwise,
        }
    }

    fn write_at(&mut self, blocks: u64) -> u64 {
        if self.rng.gen_bool(self.cfg.hot_fraction) {
            let region = self.zipf.sample(&mut self.rng) as usize - 1;
            let within = self.rng.gen_range(0..self.hot_blocks.saturating_sub(blocks).max(1));
            self.hot_starts[region] + within
        } else if self.cold_cursors.is_empty() {
            self.cold_place(blocks)
        } else {
            let stream = self.rng.gen_range(0..self.cold_cursors.len());
            let mut at = self.cold_cursors[stream];
            if at + blocks > self.cold_blocks {
                at = self.cold_place(blocks);
            }
            self.cold_cursors[stream] =
                if self.rng.gen_bool(1.0 / self.cfg.cold_run) { self.cold_place(blocks) } else { at + blocks };
            at
        }
    }

    /// A uniformly random place for `blocks` in the cold window: the window covers
    /// `cold_window` of the cold area and slides once around it over the trace.
    fn cold_place(&mut self, blocks: u64) -> u64 {
        let area = self.cold_blocks;
        let window = ((area as f64 * self.cfg.cold_window) as u64).clamp(1, area.max(1));
        let start = (self.emitted as u128 * area as u128 / self.cfg.requests as u128) as u64;
        let place = (start + self.rng.gen_range(0..window)) % area.max(1);
        place.min(area.saturating_sub(blocks))
    }

    fn next_request(&mut self) -> Request {
        let time_ns = self.clock_ns as u64;
        if let Some(prev) = self.previous {
            if self.rng.gen_bool(self.cfg.seq) {
                let len = if prev.op == Op::Read && self.read_sizes.is_some() {
                    self.read_bytes(0)
                } else {
                    self.size_bytes()
                };
                return Request { time_ns, op: prev.op, offset: prev.end(), len };
            }
        }
        let len = self.size_bytes();
        let blocks = len.div_ceil(BLOCK_4K);
        if self.rng.gen_bool(self.cfg.write_ratio) {
            if self.cfg.sparse_fraction > 0.0 && self.rng.gen_bool(self.cfg.sparse_fraction) {
                let block = self.cold_blocks + self.rng.gen_range(0..self.sparse_blocks);
                return Request { time_ns, op: Op::Write, offset: block * BLOCK_4K, len: BLOCK_4K };
            }
            let block = self.write_at(blocks);
            return Request { time_ns, op: Op::Write, offset: block * BLOCK_4K, len };
        }
        let to_read_only =
            self.recent.is_empty() || (self.read_only_blocks > 0 && self.rng.gen_bool(self.read_only_share));
        if to_read_only && self.read_only_blocks > 0 {
            let len = self.read_bytes(len);
            let blocks = len.div_ceil(BLOCK_4K);
            let block =
                self.read_only_start + self.rng.gen_range(0..self.read_only_blocks.saturating_sub(blocks).max(1));
            return Request { time_ns, op: Op::Read, offset: block * BLOCK_4K, len };
        }
        if self.recent.is_empty() {
            let block = self.write_at(blocks);
            return Request { time_ns, op: Op::Write, offset: block * BLOCK_4K, len };
        }
        let (offset, written_len) = self.recent[self.rng.gen_range(0..self.recent.len())];
        Request { time_ns, op: Op::Read, offset, len: self.read_bytes(written_len) }
    }
}

impl Iterator for Synth {
    type Item = Request;

    fn next(&mut self) -> Option<Request> {
        if self.emitted >= self.cfg.requests {
            return None;
        }
        let req = self.next_request();
        if req.op == Op::Write {
            if self.recent.len() < RECENT_WRITES {
                self.recent.push((req.offset, req.len));
            } else {
                let slot = (self.emitted % RECENT_WRITES as u64) as usize;
                self.recent[slot] = (req.offset, req.len);
            }
        }
        self.previous = Some(req);
        self.emitted += 1;
        self.clock_ns += self.gap.sample(&mut self.rng);
        Some(req)
    }
}

/// The synthesizer of `params` (`smrlab trace synth`'s parameters), checked.
pub fn synthesized(params: &[String]) -> Result<Synth, TraceError> {
    let mut p = Params::parse(params).map_err(|e| TraceError::Invalid(e.to_string()))?;
    let cfg = SynthConfig::from_params(&mut p).map_err(|e| TraceError::Invalid(e.to_string()))?;
    p.finish().map_err(|e| TraceError::Invalid(e.to_string()))?;
    Ok(Synth::new(cfg))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::TraceStats;

    fn stats(params: &[&str]) -> TraceStats {
        let mut p = Params::parse(params).unwrap();
        let cfg = SynthConfig::from_params(&mut p).unwrap();
        p.finish().unwrap();
        TraceStats::compute(Synth::new(cfg).map(Ok)).unwrap()
    }

    #[test]
    fn seeded_and_deterministic() {
        let gen = |seed: &str| {
            let mut p = Params::parse(&["requests=2000", seed]).unwrap();
            Synth::new(SynthConfig::from_params(&mut p).unwrap()).collect::<Vec<_>>()
        };
        assert_eq!(gen("seed=1"), gen("seed=1"));
        assert_ne!(gen("seed=1"), gen("seed=2"));
    }

    #[test]
    fn write_ratio_and_ranges_are_met() {
        let s =
            stats(&["requests=200000", "write_ratio=0.6", "written_range=256MiB", "accessed_range=320MiB", "seq=0.1"]);
        assert!((s.write_percent - 60.0).abs() < 1.0, "{}", s.write_percent);
        let w = s.written_union_bytes as f64 / (256u64 << 20) as f64;
        let a = s.accessed_union_bytes as f64 / (320u64 << 20) as f64;
        assert!((w - 1.0).abs() < 0.1, "written range off by {w}");
        assert!((a - 1.0).abs() < 0.1, "accessed range off by {a}");
    }

    #[test]
    fn hot_regions_are_hot_and_sequential_runs_are_sequential() {
        let mut p = Params::parse(&["requests=50000", "hot_fraction=0.9", "seq=0.5", "zipf=1.2"]).unwrap();
        let reqs: Vec<Request> = Synth::new(SynthConfig::from_params(&mut p).unwrap()).collect();
        let continued = reqs.windows(2).filter(|w| w[1].offset == w[0].end() && w[1].op == w[0].op).count();
        assert!(continued as f64 > 0.45 * reqs.len() as f64, "continued {continued}");
        let mut counts = std::collections::HashMap::new();
        for r in reqs.iter().filter(|r| r.op == Op::Write) {
            *counts.entry(r.offset / (1 << 20)).or_insert(0u64) += 1;
        }
        let mut v: Vec<u64> = counts.into_values().collect();
        v.sort_unstable_by(|a, b| b.cmp(a));
        let top: u64 = v.iter().take(v.len() / 20 + 1).sum();
        assert!(top as f64 > 0.3 * v.iter().sum::<u64>() as f64, "top 5% of MiB regions get too few writes");
    }

    #[test]
    fn cold_streams_append_and_still_meet_the_written_range() {
        let base = [
            "requests=100000",
            "hot_fraction=0",
            "seq=0",
            "written_range=256MiB",
            "write_ratio=1",
            "accessed_range=256MiB",
        ];
        let appended = |extra: &[&str]| {
            let mut p = Params::parse(&[&base[..], extra].concat()).unwrap();
            let reqs: Vec<Request> = Synth::new(SynthConfig::from_params(&mut p).unwrap()).collect();
            // Requests starting where one of the previous 16 ended (8 streams interleave).
            let continues =
                (16..reqs.len()).filter(|&i| reqs[i - 16..i].iter().any(|p| p.end() == reqs[i].offset)).count();
            let written = TraceStats::compute(reqs.iter().map(|r| Ok(*r))).unwrap().written_union_bytes;
            (continues as f64 / reqs.len() as f64, written as f64 / (256u64 << 20) as f64)
        };
        let (uniform, w0) = appended(&[]);
        let (streamed, w1) = appended(&["cold_streams=8", "cold_run=50"]);
        assert!(uniform < 0.01 && streamed > 0.8, "appends: uniform {uniform}, streamed {streamed}");
        assert!((w0 - 1.0).abs() < 0.1 && (w1 - 1.0).abs() < 0.1, "written range: {w0} {w1}");
    }

    #[test]
    fn sparse_writes_are_single_blocks_scattered_after_the_cold_area() {
        let base = ["requests=50000", "write_ratio=1", "seq=0", "written_range=64MiB", "accessed_range=64MiB"];
        let mut p = Params::parse(&[&base[..], &["sparse_fraction=0.1", "sparse_range=1GiB"]].concat()).unwrap();
        let synth = Synth::new(SynthConfig::from_params(&mut p).unwrap());
        let core_end = synth.cold_blocks * BLOCK_4K;
        let reqs: Vec<Request> = synth.collect();
        let sparse: Vec<&Request> = reqs.iter().filter(|r| r.offset >= core_end).collect();
        let share = sparse.len() as f64 / reqs.len() as f64;
        assert!((share - 0.1).abs() < 0.01, "sparse share {share}");
        assert!(sparse.iter().all(|r| r.len == BLOCK_4K && r.end() <= core_end + (1 << 30)));
        // Spread over the whole area: every 64 MiB slice of it gets some.
        let slices: std::collections::BTreeSet<u64> = sparse.iter().map(|r| (r.offset - core_end) >> 26).collect();
        assert_eq!(slices.len(), 16);
        // The hot and cold writes still cover the written range.
        let core = TraceStats::compute(reqs.iter().filter(|r| r.offset < core_end).map(|r| Ok(*r))).unwrap();
        let w = core.written_union_bytes as f64 / (64u64 << 20) as f64;
        assert!((w - 1.0).abs() < 0.1, "written range off by {w}");
    }

    #[test]
    fn sector_sized_requests_and_separate_read_sizes() {
        let base = [
            "requests=20000",
            "write_ratio=0.5",
            "size_unit=512",
            "sizes=512:1,4k:1",
            "read_sizes=1k:1,64k:1",
            "seq=0.3",
        ];
        let s = stats(&base);
        assert!((s.avg_write_len - 2304.0).abs() < 150.0, "writes {}", s.avg_write_len);
        assert!((s.avg_read_len - 33280.0).abs() < 2000.0, "reads {}", s.avg_read_len);
        // Without the new parameters, the stream is what it always was.
        let gen = |extra: &[&str]| {
            let mut p = Params::parse(&[&["requests=3000", "seed=4"][..], extra].concat()).unwrap();
            Synth::new(SynthConfig::from_params(&mut p).unwrap()).collect::<Vec<_>>()
        };
        assert_eq!(gen(&[]), gen(&["size_unit=4096"]));
        let mut bad = Params::parse(&["size_unit=1000"]).unwrap();
        assert_eq!(SynthConfig::from_params(&mut bad).unwrap_err().param, "size_unit");
        let mut bad = Params::parse(&["read_sizes=3k:1"]).unwrap();
        assert_eq!(SynthConfig::from_params(&mut bad).unwrap_err().param, "read_sizes");
    }

    #[test]
    fn bad_parameters_are_named() {
        for (bad, key) in [
            ("write_ratio=1.5", "write_ratio"),
            ("preset=foo", "preset"),
            ("sizes=3k:1", "sizes"),
            ("zipf=0", "zipf"),
            ("requests=0", "requests"),
            ("written_range=2GiB", "accessed_range"),
            ("written_range=64GiB", "written_range"),
            ("cold_run=0.5", "cold_run"),
            ("sparse_fraction=0.1", "sparse_range"),
            ("sparse_fraction=2", "sparse_fraction"),
            ("hot_regions=99999999999", "hot_regions"),
            ("written_range=8000000TiB", "written_range"),
            ("sizes=8GiB:1", "sizes"),
            ("requests=abc", "requests"),
            ("cold_streams=99999999999", "cold_streams"),
            ("rate=1e-300", "rate"),
        ] {
            let mut p = Params::parse(&[bad, "accessed_range=1GiB"]).unwrap();
            let p = if key == "accessed_range" { &mut p } else { &mut Params::parse(&[bad]).unwrap() };
            assert_eq!(SynthConfig::from_params(p).unwrap_err().param, key, "{bad}");
        }
    }

    #[test]
    fn presets_scale_down_keeping_density() {
        let s = stats(&["preset=wdev", "requests=100000"]);
        assert!((s.write_percent - 72.7).abs() < 2.0);
        let scale = 100_000.0 / 2_654_824.0;
        let w = s.written_union_bytes as f64 / (4.71e9 * scale);
        assert!((w - 1.0).abs() < 0.1, "scaled written range off by {w}");
    }
}
