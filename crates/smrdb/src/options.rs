//! What a store is opened with. Three parameters shape the device and are recorded in the
//! store's metadata: `band_size`, `capacity` and `compaction`; left `None` they are taken from an
//! existing store (or the defaults for a new one), and given they must match what the store was
//! created with. Everything else applies to this opening only and may change between openings.
//!
//! Defaults and where they come from: 64 MiB bands (the band size the thesis settled on in
//! §5, after 80 MB in §3.3); L0 compaction and slowdown triggers of 4 and 8 bands and a 1 ms
//! slowdown (LevelDB's, kept by the thesis in §3.3.2); a 4 KiB histogram per band (§3.2.3);
//! a 1 MiB log buffer (§3.3.2); an 8 MiB block cache (LevelDB's default, which the thesis kept
//! for both stores, §3.3.3). Where the thesis is silent: a stop trigger of 12 L0 bands
//! (LevelDB's), 4 KiB data blocks and 10 Bloom bits per key (LevelDB's), and for LOC seven levels,
//! L1 holding 10 bands and each level 10 times the one above (LevelDB's ratio, counted in bands
//! since every table is a band).
//!
//! An open choice: SOC's L1 overlap trigger, 4 bands at one key, so level 1 is at most three
//! deep, as the thesis's Fig. 3.7 draws it (at most three level 1 bands hold any key there).
//! It trades reads against compaction traffic: after 100 k random puts of 4 KiB values (4 MiB
//! bands, the disk model), triggers of 2 / 4 / 8 leave level 1 at most 1 / 3 / 7 deep, gets
//! search 2.0 / 3.4 / 6.9 tables, a full scan reads 23.6 k / 9.2 k / 7.2 k pairs per second of
//! disk time and the write amplification is 19.9 / 7.2 / 4.2 (LOC: 2.75 tables, 14.7 k/s, 7.9;
//! `experiments/smrdb-soc-level1.toml`).

use crate::error::{Error, Result};
use smr_core::param_spec::{specs, Kind, ParamList, ParamReader, ParamSpec, NONE};
use smr_core::units::{KIB, MIB};
use smr_core::{ParamError, Params};

/// How bands are organised and compacted (§3.2.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scheme {
    /// LevelDB-style: levels with size thresholds, no overlap in levels >= 1, round-robin choice.
    Loc,
    /// SMR-friendly: two levels, L1 bands may overlap, choices by a sequentiality metric.
    Soc,
}

impl Scheme {
    /// Every scheme, the default (a new store's unless `compaction` says otherwise) first.
    pub const ALL: [Scheme; 2] = [Scheme::Soc, Scheme::Loc];

    pub fn name(self) -> &'static str {
        match self {
            Scheme::Loc => "loc",
            Scheme::Soc => "soc",
        }
    }

    pub fn parse(text: &str) -> Result<Scheme> {
        match text.to_ascii_lowercase().as_str() {
            "loc" => Ok(Scheme::Loc),
            "soc" => Ok(Scheme::Soc),
            other => Err(Error::InvalidOption {
                option: "compaction",
                problem: format!("'{other}' is not a scheme (loc or soc)"),
            }),
        }
    }
}

#[derive(Clone, Debug)]
pub struct Options {
    /// Bytes per band (zone); a multiple of 4 KiB. Recorded in the store.
    pub band_size: Option<u64>,
    /// Bytes of the device (rounded down to whole bands; two of them hold metadata); `None`:
    /// 1024 bands. The file device is sparse, so this is a bound, not an allocation. Recorded.
    pub capacity: Option<u64>,
    /// Recorded in the store.
    pub compaction: Option<Scheme>,
    /// `None`: 1 KiB, or less where the metadata zone could not otherwise describe every band
    /// (many small bands).
    pub max_key_len: Option<usize>,
    /// `None`: 16 MiB or a quarter band, whichever is smaller.
    pub max_value_len: Option<usize>,
    /// Sync the log at every write unless the write says otherwise.
    pub sync: bool,
    pub block_size: usize,
    /// Bytes of data blocks that gets keep in memory (`block_cache`); 0: none.
    pub block_cache: u64,
    pub bloom_bits_per_key: u32,
    /// Bytes of equi-depth histogram kept per band. `None`: 4 KiB, or what the metadata zone
    /// has room for with many small bands.
    pub histogram_bytes: Option<usize>,
    /// Bytes of log records gathered before they go to the device. `None`: 1 MiB (the
    /// thesis's), or an eighth of a band if that is less.
    pub log_buffer: Option<usize>,
    pub l0_compaction_trigger: usize,
    pub l0_slowdown_trigger: usize,
    pub l0_stop_trigger: usize,
    /// How long each write waits while L0 holds `l0_slowdown_trigger` bands or more.
    pub slowdown_micros: u64,
    /// SOC: at most this many L0 bands go into one L0-to-L1 compaction (the thesis's selection
    /// threshold); 0 means `l0_compaction_trigger`.
    pub l0_max_inputs: usize,
    /// SOC: an L1-to-L1 compaction runs when this many L1 bands overlap at one key (an open
    /// choice, see the module documentation).
    pub l1_overlap_trigger: usize,
    /// LOC: levels, bands allowed in L1, and the growth factor per level.
    pub levels: usize,
    pub l1_bands: u64,
    pub level_ratio: u64,
    /// Compact in a background thread (true) or inline in the writing thread (false: slower
    /// writes, but a run's device commands are the same every time, for simulated disk time).
    pub background: bool,
    /// Make a new store where a folder holds none (true), or refuse to (false). Never makes a
    /// new store where one was and lost its data file (`crate::files`).
    pub create_if_missing: bool,
    /// Write the log (true); false keeps writes only in the memtable until its flush, as the
    /// thesis's Fig. 3.10 measures: no write can then be synced (a synced write is refused), and
    /// a crash loses everything not yet in a table.
    pub write_log: bool,
}

pub const DEFAULT_BAND_SIZE: u64 = 64 * MIB;
/// Bands of a new store's device unless `capacity` says otherwise (64 GiB at the default
/// band size; the file is sparse).
pub const DEFAULT_BANDS: u64 = 1024;
/// Conventional zones at the start of the device, holding the two metadata slots.
pub const METADATA_ZONES: u64 = 2;
/// The most bands a store's device may have: its zone table is sized by them (64 TiB at the
/// default band size).
pub const MAX_BANDS: u64 = 1 << 20;
/// The largest band: a log band is read whole at recovery, a metadata record may fill one.
/// SMR drives' zones are 256 MiB.
pub const MAX_BAND_SIZE: u64 = 1 << 30;
/// The smallest band: a band holds at least a table's data block, index and footer.
pub const MIN_BAND_SIZE: u64 = 64 * KIB;

pub const MAX_KEY_LEN: ParamSpec = ParamSpec::new(
    "max_key_len",
    Kind::Whole,
    NONE,
    "longest key (default: 1 KiB, or less where the metadata zone must describe many small bands)",
);
pub const MAX_VALUE_LEN: ParamSpec = ParamSpec::new(
    "max_value_len",
    Kind::Whole,
    NONE,
    "longest value (default: 16 MiB or a quarter band, whichever is smaller)",
);
pub const BLOCK_SIZE: ParamSpec =
    ParamSpec::new("block_size", Kind::Whole, "4096", "bytes of a table's data block (LevelDB's)");
pub const BLOCK_CACHE: ParamSpec = ParamSpec::new(
    "block_cache",
    Kind::Whole,
    "8388608",
    "bytes of data blocks gets keep in memory, 0 for none (LevelDB's 8 MiB, kept for SMRDB and LevelDB alike, §3.3.3)",
);
pub const BLOOM_BITS_PER_KEY: ParamSpec =
    ParamSpec::new("bloom_bits_per_key", Kind::Whole, "10", "Bloom filter bits per key (LevelDB's)");
pub const HISTOGRAM_BYTES: ParamSpec = ParamSpec::new(
    "histogram_bytes",
    Kind::Whole,
    NONE,
    "bytes of equi-depth histogram per band (default: 4 KiB, §3.2.3, or what the metadata zone has room for)",
);
pub const LOG_BUFFER: ParamSpec = ParamSpec::new(
    "log_buffer",
    Kind::Whole,
    NONE,
    "bytes of log records gathered before they go to the device (default: 1 MiB, §3.3.2, or an eighth of a band)",
);
pub const L0_COMPACTION_TRIGGER: ParamSpec =
    ParamSpec::new("l0_compaction_trigger", Kind::Whole, "4", "L0 bands that start a compaction (§3.3.2)");
pub const L0_SLOWDOWN_TRIGGER: ParamSpec = ParamSpec::new(
    "l0_slowdown_trigger",
    Kind::Whole,
    "8",
    "L0 bands from which each write waits slowdown_micros (§3.3.2)",
);
pub const L0_STOP_TRIGGER: ParamSpec = ParamSpec::new(
    "l0_stop_trigger",
    Kind::Whole,
    "12",
    "L0 bands at which writes stop until a compaction (LevelDB's)",
);
pub const SLOWDOWN_MICROS: ParamSpec = ParamSpec::new(
    "slowdown_micros",
    Kind::Whole,
    "1000",
    "microseconds each write waits past l0_slowdown_trigger (§3.3.2), at most 1,000,000",
);

/// The longest wait `slowdown_micros` may ask for: a second per write (LevelDB's is 1 ms); a
/// longer one only stalls writes (10^12 µs held each put for eleven days).
pub const MAX_SLOWDOWN_MICROS: u64 = 1_000_000;
pub const L0_MAX_INPUTS: ParamSpec = ParamSpec::new(
    "l0_max_inputs",
    Kind::Whole,
    "0",
    "SOC: most L0 bands in one L0-to-L1 compaction (0: l0_compaction_trigger)",
);
pub const L1_OVERLAP_TRIGGER: ParamSpec = ParamSpec::new(
    "l1_overlap_trigger",
    Kind::Whole,
    "4",
    "SOC: L1 bands overlapping at one key that start an L1-to-L1 compaction",
)
.open("Fig. 3.7 draws level 1 at most three deep; see the module documentation of smrdb's options");
pub const LEVELS: ParamSpec = ParamSpec::new("levels", Kind::Whole, "7", "LOC: levels (LevelDB's)");
pub const L1_BANDS: ParamSpec = ParamSpec::new("l1_bands", Kind::Whole, "10", "LOC: bands allowed in L1");
pub const LEVEL_RATIO: ParamSpec =
    ParamSpec::new("level_ratio", Kind::Whole, "10", "LOC: growth factor per level (LevelDB's)");
pub const BACKGROUND: ParamSpec = ParamSpec::new(
    "background",
    Kind::Bool,
    "true",
    "compact in a background thread (false: inline, the same device commands every run)",
);
pub const CREATE_IF_MISSING: ParamSpec =
    ParamSpec::new("create_if_missing", Kind::Bool, "true", "make a new store where a folder holds none");
pub const WRITE_LOG: ParamSpec = ParamSpec::new(
    "write_log",
    Kind::Bool,
    "true",
    "write the log (false: writes live in the memtable until its flush, Fig. 3.10)",
);

/// The options that apply to one opening (every option but the three recorded ones and sync).
pub const TUNING: ParamList = &[&[
    MAX_KEY_LEN,
    MAX_VALUE_LEN,
    BLOCK_SIZE,
    BLOCK_CACHE,
    BLOOM_BITS_PER_KEY,
    HISTOGRAM_BYTES,
    LOG_BUFFER,
    L0_COMPACTION_TRIGGER,
    L0_SLOWDOWN_TRIGGER,
    L0_STOP_TRIGGER,
    SLOWDOWN_MICROS,
    L0_MAX_INPUTS,
    L1_OVERLAP_TRIGGER,
    LEVELS,
    L1_BANDS,
    LEVEL_RATIO,
    BACKGROUND,
    CREATE_IF_MISSING,
    WRITE_LOG,
]];

impl Options {
    /// The options of an opening: each tuning option (`TUNING`) as `given` says or else at its
    /// declared default, read through its declaration; the recorded parameters left to the store
    /// (`None`), no sync.
    pub fn tuned(given: &mut Params) -> std::result::Result<Options, ParamError> {
        let r = &mut declared_reader(given, TUNING)?;
        let optional = |spec: &ParamSpec, r: &mut ParamReader<'_>| {
            r.optional(spec, ParamReader::whole).map(|n| n.map(|n| n as usize))
        };
        Ok(Options {
            band_size: None,
            capacity: None,
            compaction: None,
            sync: false,
            max_key_len: optional(&MAX_KEY_LEN, r)?,
            max_value_len: optional(&MAX_VALUE_LEN, r)?,
            block_size: r.whole(&BLOCK_SIZE)? as usize,
            block_cache: r.whole(&BLOCK_CACHE)?,
            bloom_bits_per_key: r.whole(&BLOOM_BITS_PER_KEY)? as u32,
            histogram_bytes: optional(&HISTOGRAM_BYTES, r)?,
            log_buffer: optional(&LOG_BUFFER, r)?,
            l0_compaction_trigger: r.whole(&L0_COMPACTION_TRIGGER)? as usize,
            l0_slowdown_trigger: r.whole(&L0_SLOWDOWN_TRIGGER)? as usize,
            l0_stop_trigger: r.whole(&L0_STOP_TRIGGER)? as usize,
            slowdown_micros: r.whole(&SLOWDOWN_MICROS)?,
            l0_max_inputs: r.whole(&L0_MAX_INPUTS)? as usize,
            l1_overlap_trigger: r.whole(&L1_OVERLAP_TRIGGER)? as usize,
            levels: r.whole(&LEVELS)? as usize,
            l1_bands: r.whole(&L1_BANDS)?,
            level_ratio: r.whole(&LEVEL_RATIO)?,
            background: r.bool(&BACKGROUND)?,
            create_if_missing: r.bool(&CREATE_IF_MISSING)?,
            write_log: r.bool(&WRITE_LOG)?,
        })
    }
}

/// A reader of `given` through `declared`, or the error naming the first key `declared` does
/// not hold.
pub(crate) fn declared_reader(
    given: &mut Params,
    declared: ParamList,
) -> std::result::Result<ParamReader<'_>, ParamError> {
    if let Some((key, _)) = given.pairs().find(|(key, _)| !specs(declared).any(|spec| spec.key == *key)) {
        let names: Vec<&str> = specs(declared).map(|spec| spec.key).collect();
        return Err(ParamError::new(key, format!("unknown option (one of {})", names.join(", "))));
    }
    Ok(ParamReader::new(given, declared))
}

impl Default for Options {
    /// Every tuning option at its declared default (`Options::tuned` with none given).
    fn default() -> Self {
        Options::tuned(&mut Params::new()).expect("smrdb's declared defaults parse")
    }
}

/// Smallest histogram a band may have, bytes.
pub const MIN_HISTOGRAM: usize = 64;

/// Key, value, histogram and log buffer sizes resolved for a geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub max_key_len: usize,
    pub max_value_len: usize,
    pub histogram_bytes: usize,
    pub log_buffer: usize,
}

/// The three recorded parameters, resolved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub band_size: u64,
    pub zones: u64,
    pub scheme: Scheme,
}

impl Options {
    /// The recorded parameters of a new store from these options.
    pub fn new_geometry(&self) -> Result<Geometry> {
        let band_size = self.band_size.unwrap_or(DEFAULT_BAND_SIZE);
        // Unless told, as many bands as the default, or as the metadata zone (one band) can
        // describe with keys of up to 64 bytes, if fewer (192 of 64 KiB).
        let describable = band_size.saturating_sub(4 * KIB) / (128 + MIN_HISTOGRAM as u64 + 2 * 64);
        let zones = self.capacity.map_or(DEFAULT_BANDS.min(describable), |capacity| capacity / band_size.max(1));
        let g = Geometry { band_size, zones, scheme: self.compaction.unwrap_or(Scheme::ALL[0]) };
        self.check(&g)?;
        Ok(g)
    }

    /// Checks these options against a store's geometry (new or recorded).
    pub fn check(&self, g: &Geometry) -> Result<()> {
        let bad = |option: &'static str, problem: String| Err(Error::InvalidOption { option, problem });
        if !(MIN_BAND_SIZE..=MAX_BAND_SIZE).contains(&g.band_size) || !g.band_size.is_multiple_of(4 * KIB) {
            return bad(
                "band_size",
                format!(
                    "{} bytes: must be a multiple of 4 KiB from {} KiB to {} MiB",
                    g.band_size,
                    MIN_BAND_SIZE / KIB,
                    MAX_BAND_SIZE / MIB
                ),
            );
        }
        if g.zones > MAX_BANDS {
            return bad(
                "capacity",
                format!(
                    "{} bytes hold {} bands of {}; a store has at most {MAX_BANDS} (use larger bands)",
                    g.zones.saturating_mul(g.band_size),
                    g.zones,
                    g.band_size
                ),
            );
        }
        if g.zones < METADATA_ZONES + 4 {
            return bad(
                "capacity",
                format!(
                    "{} bytes hold {} bands of {}; at least {} are needed (2 for metadata)",
                    g.zones * g.band_size,
                    g.zones,
                    g.band_size,
                    METADATA_ZONES + 4
                ),
            );
        }
        if self.block_size < 256 || self.block_size as u64 > g.band_size / 8 {
            return bad(
                "block_size",
                format!("{} bytes: must be between 256 and an eighth of a band", self.block_size),
            );
        }
        let limits = self.limits(g)?;
        // One entry, with the smallest index, filter and footer, must fit in a band and one
        // write in the log band.
        if limits.max_key_len.saturating_add(limits.max_value_len) as u64 > g.band_size / 2 {
            return bad(
                "max_value_len",
                format!(
                    "a {}-byte key with a {}-byte value does not fit in half a {}-byte band",
                    limits.max_key_len, limits.max_value_len, g.band_size
                ),
            );
        }
        if self.bloom_bits_per_key == 0 || self.bloom_bits_per_key > 64 {
            return bad("bloom_bits_per_key", format!("{}: must be between 1 and 64", self.bloom_bits_per_key));
        }
        if self.log_buffer.is_some_and(|b| b == 0 || b as u64 > g.band_size) {
            return bad(
                "log_buffer",
                format!("{} bytes: must be positive and at most a band", self.log_buffer.unwrap_or(0)),
            );
        }
        if self.l0_compaction_trigger == 0
            || self.l0_slowdown_trigger < self.l0_compaction_trigger
            || self.l0_stop_trigger < self.l0_slowdown_trigger
        {
            return bad(
                "l0_compaction_trigger",
                format!(
                    "triggers {} / {} / {}: need 0 < compaction <= slowdown <= stop",
                    self.l0_compaction_trigger, self.l0_slowdown_trigger, self.l0_stop_trigger
                ),
            );
        }
        if self.slowdown_micros > MAX_SLOWDOWN_MICROS {
            return bad(
                "slowdown_micros",
                format!(
                    "{} µs: at most {MAX_SLOWDOWN_MICROS} (a second per write; more only stalls writes)",
                    self.slowdown_micros
                ),
            );
        }
        if self.l1_overlap_trigger < 2 {
            return bad("l1_overlap_trigger", format!("{}: at least 2", self.l1_overlap_trigger));
        }
        if !(2..=16).contains(&self.levels) || self.l1_bands == 0 || self.level_ratio < 2 {
            return bad(
                "levels",
                format!(
                    "{} levels, {} L1 bands, ratio {}: need 2 to 16 levels, at least 1 band, ratio >= 2",
                    self.levels, self.l1_bands, self.level_ratio
                ),
            );
        }
        Ok(())
    }

    /// The size limits of a store with this geometry. The metadata record describes every
    /// band in one metadata zone (a band's size): per band its histogram, two boundary keys and
    /// about 128 bytes of numbers, which bounds the key length and histogram size.
    pub fn limits(&self, g: &Geometry) -> Result<Limits> {
        let per_band = ((g.band_size - 4 * KIB) / g.zones) as usize;
        let room = per_band.saturating_sub(128 + MIN_HISTOGRAM);
        let max_key_len = self.max_key_len.unwrap_or((KIB as usize).min(room / 2));
        if self.max_key_len.is_none() && max_key_len == 0 {
            // Not the keys' fault: too many bands for their band of metadata.
            return Err(Error::InvalidOption {
                option: "capacity",
                problem: format!("{} bands of {} bytes: a band of metadata cannot describe that many (use fewer bands, or larger ones)", g.zones, g.band_size),
            });
        }
        if max_key_len == 0 || max_key_len > 64 * KIB as usize || 2 * max_key_len > room {
            return Err(Error::InvalidOption {
                option: "max_key_len",
                problem: format!("{max_key_len} bytes: keys must be 1 to 65536 bytes, and with {} bands of {} bytes the metadata has room for keys of at most {} bytes (use fewer, larger bands)", g.zones, g.band_size, room / 2),
            });
        }
        let histogram_room = per_band - 128 - 2 * max_key_len;
        let histogram_bytes = self.histogram_bytes.unwrap_or((4 * KIB as usize).min(histogram_room));
        if histogram_bytes < MIN_HISTOGRAM || histogram_bytes > histogram_room {
            return Err(Error::InvalidOption {
                option: "histogram_bytes",
                problem: format!("{histogram_bytes} bytes: must be at least {MIN_HISTOGRAM}, and {} bands of {} bytes with {max_key_len}-byte keys leave room for {histogram_room} per band", g.zones, g.band_size),
            });
        }
        let log_buffer = self.log_buffer.unwrap_or(MIB.min(g.band_size / 8) as usize);
        let max_value_len = self.max_value_len.unwrap_or((16 * MIB).min(g.band_size / 4) as usize);
        Ok(Limits { max_key_len, max_value_len, histogram_bytes, log_buffer })
    }

    pub fn l0_inputs(&self) -> usize {
        if self.l0_max_inputs == 0 {
            self.l0_compaction_trigger
        } else {
            self.l0_max_inputs
        }
    }
}

#[cfg(test)]
mod tuning_tests {
    use super::*;

    #[test]
    fn tuning_names_a_bad_or_unknown_option() {
        let options =
            Options::tuned(&mut Params::parse(&["levels=3", "write_log=False", "log_buffer=4096"]).unwrap()).unwrap();
        assert!(options.levels == 3 && !options.write_log && options.log_buffer == Some(4096));
        for (given, key, says) in [
            ("levels=-1", "levels", "whole number"),
            ("background=maybe", "background", "true or false"),
            ("level=3", "level", "unknown option"),
        ] {
            let err = Options::tuned(&mut Params::parse(&[given]).unwrap()).unwrap_err();
            assert!(err.param == key && err.message.contains(says), "{given}: {err}");
        }
    }
}
