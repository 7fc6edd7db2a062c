//! The replay a run asks for, as every front names it — the command line's `--replay`,
//! `--speedup`, `--warmup-seconds`..., an experiment file's `[engine]` table, the API's
//! `engine={...}` — checked here, once, and turned into the `EngineConfig` the engine runs by.
//! A replay left unsaid (`mode`, `speedup`) is the system's own (`SystemEntry::replay`), so
//! every command replays a system the same way unless told otherwise. Not here: the replay
//! itself (`engine`).

use serde::{Deserialize, Serialize};
use smr_core::{quote, ParamError};

use super::{EngineConfig, ReplayMode, MAX_GAUGE_SAMPLES, MAX_IODEPTH, MAX_SIM_NS};

/// Nanoseconds in a second, as the options' seconds become the engine's nanoseconds.
const NS_PER_S: f64 = 1e9;

/// The most seconds of trace or simulated time an option may name: 2^63 ns.
pub const MAX_SECONDS: f64 = MAX_SIM_NS as f64 / NS_PER_S;

/// Requests between two progress calls when none is asked for (they are also where a
/// cancellation is noticed).
pub const PROGRESS_EVERY: u64 = 1 << 16;

/// The replay options (the keys of an experiment's `[engine]`); what is left out takes its
/// default, `mode` and `speedup` the system's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct EngineOptions {
    /// `closed` (back to back at queue depth 1: total I/O time) or `open` (at trace timestamps:
    /// response time = waiting + service); the system's own when left out.
    pub mode: Option<String>,
    /// Open loop: trace inter-arrival times are divided by this factor (the system's own, 1 for
    /// every system now, when left out).
    pub speedup: Option<f64>,
    /// Requests at the start that are simulated but not measured.
    pub warmup_requests: u64,
    /// Seconds of trace time at the start that are simulated but not measured.
    pub warmup_seconds: f64,
    /// Open loop: whether idle gaps are offered to the system for background work.
    pub idle_work: bool,
    /// Seconds of simulated time between two points of the time series (0: none).
    pub series_interval_seconds: f64,
    /// Requests between two progress calls.
    pub progress_every: u64,
    /// About this many samples of the system's gauges, evenly over the requests (0: only at the end).
    pub gauge_samples: u64,
    /// Closed loop: requests kept in flight (fio's iodepth; 1: each after the one before it).
    pub iodepth: u64,
}

impl Default for EngineOptions {
    fn default() -> Self {
        EngineOptions {
            mode: None,
            speedup: None,
            warmup_requests: 0,
            warmup_seconds: 0.0,
            idle_work: true,
            series_interval_seconds: 0.0,
            progress_every: PROGRESS_EVERY,
            gauge_samples: 0,
            iodepth: 1,
        }
    }
}

impl EngineOptions {
    /// The engine's configuration, `declared` (the system's own replay) filling a mode or a
    /// speed-up left unsaid; an option out of its range is refused, named.
    pub fn config(&self, declared: ReplayMode) -> Result<EngineConfig, ParamError> {
        let mode = match (self.mode.as_deref().map(str::trim), declared) {
            (None, ReplayMode::Open { speedup }) | (Some("open"), ReplayMode::Open { speedup }) => {
                ReplayMode::Open { speedup: self.speedup.unwrap_or(speedup) }
            }
            (Some("open"), ReplayMode::Closed) => ReplayMode::Open { speedup: self.speedup.unwrap_or(1.0) },
            (None, ReplayMode::Closed) | (Some("closed"), _) => ReplayMode::Closed,
            (Some(other), _) => {
                return Err(ParamError::new("mode", format!("{} is not a replay (closed or open)", quote(other))))
            }
        };
        match (mode, self.speedup) {
            (ReplayMode::Closed, Some(_)) => {
                return Err(ParamError::new(
                    "speedup",
                    "applies to the open loop only: ask for mode open (--replay open)",
                ))
            }
            (ReplayMode::Open { speedup }, _) if !(speedup.is_finite() && speedup > 0.0) => {
                return Err(ParamError::new("speedup", format!("{speedup} is not a number above 0")))
            }
            _ => {}
        }
        let warmup_ns = nanoseconds("warmup_seconds", self.warmup_seconds)?;
        let series_interval_ns = nanoseconds("series_interval_seconds", self.series_interval_seconds)?;
        if self.series_interval_seconds > 0.0 && series_interval_ns == 0 {
            return Err(ParamError::new(
                "series_interval_seconds",
                format!("{} is neither 0 (no series) nor at least one nanosecond", self.series_interval_seconds),
            ));
        }
        if self.gauge_samples > MAX_GAUGE_SAMPLES as u64 {
            return Err(ParamError::new(
                "gauge_samples",
                format!("{} is more than the {MAX_GAUGE_SAMPLES} samples a run keeps", self.gauge_samples),
            ));
        }
        if !(1..=u64::from(MAX_IODEPTH)).contains(&self.iodepth) {
            return Err(ParamError::new(
                "iodepth",
                format!("{} requests: must be 1 to {MAX_IODEPTH} requests kept in flight", self.iodepth),
            ));
        }
        if self.iodepth != 1 && mode != ReplayMode::Closed {
            return Err(ParamError::new(
                "iodepth",
                "applies to a closed-loop replay (an open loop issues each request at its arrival)",
            ));
        }
        Ok(EngineConfig {
            mode,
            warmup_requests: self.warmup_requests,
            warmup_ns,
            idle_work: self.idle_work,
            series_interval_ns,
            progress_every: self.progress_every,
            gauge_samples: self.gauge_samples as u32,
            iodepth: self.iodepth as u32,
        })
    }
}

/// `seconds` as whole nanoseconds (rounded down), refused outside 0 to `MAX_SECONDS`.
fn nanoseconds(option: &str, seconds: f64) -> Result<u64, ParamError> {
    if !(seconds.is_finite() && (0.0..=MAX_SECONDS).contains(&seconds)) {
        return Err(ParamError::new(
            option,
            format!("{seconds} is not a number of seconds from 0 to {MAX_SECONDS:.4e}"),
        ));
    }
    Ok((seconds * NS_PER_S) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options(json: &str) -> EngineOptions {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn what_is_left_out_is_the_systems_own_replay() {
        let open = ReplayMode::Open { speedup: 1.0 };
        assert_eq!(options("{}").config(open).unwrap().mode, open);
        assert_eq!(options("{}").config(ReplayMode::Closed).unwrap().mode, ReplayMode::Closed);
        assert_eq!(options(r#"{"mode": "closed"}"#).config(open).unwrap().mode, ReplayMode::Closed);
        assert_eq!(options(r#"{"speedup": 4}"#).config(open).unwrap().mode, ReplayMode::Open { speedup: 4.0 });
        assert_eq!(
            options(r#"{"mode": "open", "speedup": 2}"#).config(ReplayMode::Closed).unwrap().mode,
            ReplayMode::Open { speedup: 2.0 }
        );
        let config = options(r#"{"warmup_seconds": 1.5, "warmup_requests": 3}"#).config(ReplayMode::Closed).unwrap();
        assert_eq!(
            (config.warmup_ns, config.warmup_requests, config.progress_every),
            (1_500_000_000, 3, PROGRESS_EVERY)
        );
    }

    #[test]
    fn an_option_out_of_range_is_refused_by_name() {
        for (json, named) in [
            (r#"{"speedup": 2}"#, "speedup"),
            (r#"{"mode": "open", "speedup": 0}"#, "speedup"),
            (r#"{"mode": "opne"}"#, "mode"),
            (r#"{"warmup_seconds": -1}"#, "warmup_seconds"),
            (r#"{"warmup_seconds": 1e300}"#, "warmup_seconds"),
            (r#"{"series_interval_seconds": 1e-12}"#, "series_interval_seconds"),
            (r#"{"gauge_samples": 1000001}"#, "gauge_samples"),
            (r#"{"iodepth": 0}"#, "iodepth"),
            (r#"{"iodepth": 65537}"#, "iodepth"),
            (r#"{"mode": "open", "iodepth": 2}"#, "iodepth"),
        ] {
            assert_eq!(options(json).config(ReplayMode::Closed).unwrap_err().param, named, "{json}");
        }
        assert!(serde_json::from_str::<EngineOptions>(r#"{"mod": "open"}"#).is_err(), "an unknown option");
    }
}
