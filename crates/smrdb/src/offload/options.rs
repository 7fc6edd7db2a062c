//! What the offloading store is opened with beyond SMRDB's own options: the buffer levels, the
//! NVRAM device, the periodic checker and the write delay, each declared once (`ParamSpec`:
//! key, kind and unit, default, meaning) and read only through those declarations
//! (`OffloadOptions::tuned`), as SMRDB's tuning options are (`crate::options::TUNING`).
//!
//! Where the defaults come from: buffer levels of 10, 10 and 100 bands (§5.3), offloading on,
//! no write delay (§5.4.2's delay is a variant). Open choices, where the thesis is silent: a
//! check every second, quiet after 5 s without a size-triggered compaction, an NVRAM device of
//! 256 bands (see the module documentation of `offload`).
//!
//! Not here: what the store does with them (`offload`), SMRDB's own options (`crate::options`).

use std::path::PathBuf;
use std::time::Duration;

use smr_core::param_spec::{Kind, ParamList, ParamReader, ParamSpec, TimeUnit, NONE};
use smr_core::{ParamError, Params};

use crate::options::{declared_reader, Options};

#[derive(Clone, Debug)]
pub struct OffloadOptions {
    /// Band size, capacity, limits, table shape, log buffer, sync: as SMRDB's (compaction must
    /// be unset or `loc`).
    pub base: Options,
    /// Bands of level 0, 1 and 2 before they are compacted (the thesis: 10, 10, 100).
    pub buffer_bands: [u64; 3],
    /// Offload writes to the NVRAM device while a compaction runs.
    pub offload: bool,
    /// Bytes of the NVRAM device; `None`: `DEFAULT_NVRAM_BANDS` bands.
    pub nvram_capacity: Option<u64>,
    /// The NVRAM device's file (`open` only); `None`: `DIR/nvram`.
    pub nvram_path: Option<PathBuf>,
    /// How often the periodic checker looks.
    pub check_interval: Duration,
    /// How long without a size-triggered compaction counts as quiet.
    pub quiet_interval: Duration,
    /// How long each write sleeps while the NVRAM device is crowded (`CROWDED_SHARE` of its bands
    /// in use): §5.4.2's "10 microseconds induced sleep delays when too many files get
    /// accumulated in the flash", which slows the writers so compaction keeps up. Zero: never.
    pub offload_delay: Duration,
}

/// Bands of the NVRAM device unless `nvram_capacity` says otherwise (16 GiB at 64 MiB bands,
/// the thesis's partition).
pub const DEFAULT_NVRAM_BANDS: u64 = 256;
/// The shortest interval between the background checks: below a millisecond the checker
/// would spin rather than check.
pub const MIN_INTERVAL: Duration = Duration::from_millis(1);
/// The longest sleep a write may be given (a second: far beyond the thesis's 10 microseconds,
/// short of a store that never answers).
pub const MAX_OFFLOAD_DELAY: Duration = Duration::from_secs(1);

const SECONDS: Kind = Kind::Duration { unit: TimeUnit::Seconds };
pub const L0_BUFFER_BANDS: ParamSpec = ParamSpec::new(
    "l0_buffer_bands",
    Kind::Whole,
    "10",
    "bands of unsorted units in level 0 before it is compacted (§5.3)",
);
pub const L1_BUFFER_BANDS: ParamSpec =
    ParamSpec::new("l1_buffer_bands", Kind::Whole, "10", "bands of buffer level 1 before it is compacted (§5.3)");
pub const L2_BUFFER_BANDS: ParamSpec =
    ParamSpec::new("l2_buffer_bands", Kind::Whole, "100", "bands of buffer level 2 before it is compacted (§5.3)");
pub const OFFLOAD: ParamSpec = ParamSpec::new(
    "offload",
    Kind::Bool,
    "true",
    "offload writes to the NVRAM device while a compaction runs (false: the variant's baseline)",
);
pub const NVRAM_CAPACITY: ParamSpec =
    ParamSpec::new("nvram_capacity", Kind::Size, NONE, "bytes of the NVRAM device (default: 256 bands)")
        .open("the thesis's 16 GiB flash partition at 64 MiB bands, kept in bands for other band sizes");
pub const CHECK_INTERVAL: ParamSpec =
    ParamSpec::new("check_interval", SECONDS, "1", "time between the periodic checker's looks, at least 1 ms")
        .open("the thesis says the checker runs periodically, not how often");
pub const QUIET_INTERVAL: ParamSpec = ParamSpec::new(
    "quiet_interval",
    SECONDS,
    "5",
    "time without a size-triggered compaction that counts as quiet, at least 1 ms",
)
.open("the thesis merges buffer levels down when writes are quiet, without saying how long that is");
pub const OFFLOAD_DELAY: ParamSpec = ParamSpec::new(
    "offload_delay",
    SECONDS,
    "0",
    "time each write sleeps while the NVRAM device is crowded, at most 1 s (§5.4.2's variant: 10 us; 0: never)",
);

/// The offloading store's own options.
pub const OFFLOAD_TUNING: ParamList = &[&[
    L0_BUFFER_BANDS,
    L1_BUFFER_BANDS,
    L2_BUFFER_BANDS,
    OFFLOAD,
    NVRAM_CAPACITY,
    CHECK_INTERVAL,
    QUIET_INTERVAL,
    OFFLOAD_DELAY,
]];

impl OffloadOptions {
    /// The options of an opening over SMRDB's `base`: each of `OFFLOAD_TUNING` as `given` says
    /// or else at its declared default, read through its declaration; no NVRAM file named.
    pub fn tuned(base: Options, given: &mut Params) -> Result<OffloadOptions, ParamError> {
        let r = &mut declared_reader(given, OFFLOAD_TUNING)?;
        let interval = |spec: &ParamSpec, r: &mut ParamReader<'_>| {
            let interval = Duration::from_nanos(r.duration(spec)?);
            if interval < MIN_INTERVAL {
                return Err(r.error(
                    spec,
                    format!("{} s is shorter than {} s", interval.as_secs_f64(), MIN_INTERVAL.as_secs_f64()),
                ));
            }
            Ok(interval)
        };
        let options = OffloadOptions {
            base,
            buffer_bands: [r.whole(&L0_BUFFER_BANDS)?, r.whole(&L1_BUFFER_BANDS)?, r.whole(&L2_BUFFER_BANDS)?],
            offload: r.bool(&OFFLOAD)?,
            nvram_capacity: r.optional_size(&NVRAM_CAPACITY)?,
            nvram_path: None,
            check_interval: interval(&CHECK_INTERVAL, r)?,
            quiet_interval: interval(&QUIET_INTERVAL, r)?,
            offload_delay: Duration::from_nanos(r.duration(&OFFLOAD_DELAY)?),
        };
        if options.offload_delay > MAX_OFFLOAD_DELAY {
            return Err(r.error(
                &OFFLOAD_DELAY,
                format!(
                    "{} s is longer than {} s",
                    options.offload_delay.as_secs_f64(),
                    MAX_OFFLOAD_DELAY.as_secs_f64()
                ),
            ));
        }
        Ok(options)
    }
}

impl Default for OffloadOptions {
    /// SMRDB's default options, and each of `OFFLOAD_TUNING` at its declared default.
    fn default() -> Self {
        OffloadOptions::tuned(Options::default(), &mut Params::new())
            .expect("the offloading store's declared defaults parse")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_options_are_read_through_their_declarations() {
        let given = &mut Params::parse(&[
            "l2_buffer_bands=7",
            "offload=no",
            "check_interval=20ms",
            "offload_delay=0.00001",
            "nvram_capacity=1MiB",
        ])
        .unwrap();
        let options = OffloadOptions::tuned(Options::default(), given).unwrap();
        assert_eq!(options.buffer_bands[2], 7);
        assert!(!options.offload);
        assert_eq!(
            (options.check_interval, options.offload_delay, options.nvram_capacity),
            (Duration::from_millis(20), Duration::from_micros(10), Some(1 << 20))
        );
    }

    #[test]
    fn a_bad_or_unknown_option_is_named() {
        for (given, key, says) in [
            ("check_interval=0.0005", "check_interval", "shorter than"),
            ("quiet_interval=-1", "quiet_interval", "is not a time"),
            ("offload_delay=2", "offload_delay", "longer than"),
            ("l0_buffer_bands=x", "l0_buffer_bands", "whole number"),
            ("buffer_bands=1", "buffer_bands", "unknown option"),
        ] {
            let err = OffloadOptions::tuned(Options::default(), &mut Params::parse(&[given]).unwrap()).unwrap_err();
            assert!(err.param == key && err.message.contains(says), "{given}: {err}");
        }
    }
}
