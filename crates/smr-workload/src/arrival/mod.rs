//! Request arrival processes (§4.1 of the SMRDB thesis): when each request of a run is due, as
//! nanoseconds from the start, for the open-loop executor. Four processes, with the parameter
//! names of the thesis's Table 4.1 (and YCSB's `target` for the average rate):
//!
//! - `constant`: one request every `1/target` seconds.
//! - `poisson`: exponential inter-arrivals of mean `1/target`.
//! - `selfsimilar`: the b-model (`bmodel`) with bias `ss.bias`.
//! - `diurnal`: an envelope-guided process (`diurnal`): a sine envelope of average `target`,
//!   amplitude `diurnal.modulation` and period `diurnal.cyclelength` (minutes), inter-arrivals
//!   from `diurnal.distribution` (`pareto` with shape `diurnal.distribution.shape`, or
//!   `exponential`).
//!
//! Every schedule is seeded and deterministic, non-decreasing, and lies in `[0, duration)`.
//! Not here: what the requests are (`crate::ycsb`) and issuing them (`crate::executor`).

pub mod bmodel;
pub mod diurnal;

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use smr_core::param_spec::{specs, Kind, ParamList, ParamReader, ParamSpec, REQUIRED};
use smr_core::quote::quote;
use smr_core::{values, Params};

use crate::error::{Result, WorkloadError};

/// The secondary distribution of inter-arrival times under a diurnal envelope.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Secondary {
    Exponential,
    /// Pareto with this shape (alpha > 1, so the mean exists).
    Pareto {
        shape: f64,
    },
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Process {
    Constant,
    Poisson,
    /// The b-model: bias `bias` in [0.5, 1), down to slots of `resolution_s` seconds.
    SelfSimilar {
        bias: f64,
        resolution_s: f64,
    },
    /// A sine envelope around the average rate.
    Diurnal {
        modulation: f64,
        cycle_minutes: f64,
        distribution: Secondary,
    },
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ArrivalSpec {
    pub process: Process,
    /// Average requests per second (YCSB's `target`).
    pub rate: f64,
    /// Seconds of arrivals.
    pub duration_s: f64,
}

/// At most this many arrivals in one schedule: 160 MB at 8 bytes each, which the bindings copy
/// once more (5,000 requests a second for over an hour).
pub const MAX_ARRIVALS: f64 = 2e7;

/// The arrival processes, as `arrivalgenerator` names them.
const PROCESSES: &[&str] = &["constant", "poisson", "selfsimilar", "diurnal"];

pub const GENERATOR: ParamSpec = ParamSpec::new(
    "arrivalgenerator",
    Kind::Choice(PROCESSES),
    "constant",
    "the arrival process (spaces, '-' and '_' in the name are ignored: self-similar)",
);
pub const TARGET: ParamSpec =
    ParamSpec::new("target", Kind::Number { unit: "requests per second" }, REQUIRED, "average arrival rate, above 0");
pub const DURATION: ParamSpec =
    ParamSpec::new("duration", Kind::Number { unit: "seconds" }, REQUIRED, "how long requests arrive, above 0");
pub const SS_BIAS: ParamSpec = ParamSpec::new(
    "ss.bias",
    Kind::Number { unit: "a share" },
    REQUIRED,
    "selfsimilar: the b-model's bias, from 0.5 (spreading evenly) to below 1",
);
pub const SS_RESOLUTION: ParamSpec = ParamSpec::new(
    "ss.resolution",
    Kind::Number { unit: "seconds" },
    "0.001",
    "selfsimilar: the b-model's finest slot, above 0 and at most the duration",
);
pub const MODULATION: ParamSpec = ParamSpec::new(
    "diurnal.modulation",
    Kind::Number { unit: "requests per second" },
    REQUIRED,
    "diurnal: the sine envelope's amplitude, from 0 to below target",
);
pub const CYCLE: ParamSpec = ParamSpec::new(
    "diurnal.cyclelength",
    Kind::Number { unit: "minutes" },
    REQUIRED,
    "diurnal: the envelope's period, above 0",
);
pub const DISTRIBUTION: ParamSpec = ParamSpec::new(
    "diurnal.distribution",
    Kind::Choice(&["pareto", "exponential"]),
    "pareto",
    "diurnal: the distribution of inter-arrival times under the envelope",
);
pub const SHAPE: ParamSpec = ParamSpec::new(
    "diurnal.distribution.shape",
    Kind::Number { unit: "a Pareto shape" },
    REQUIRED,
    "diurnal with pareto: the Pareto shape, above 1",
);

/// Every arrival parameter, named as in Table 4.1.
pub const PARAMS: ParamList =
    &[&[GENERATOR, TARGET, DURATION, SS_BIAS, SS_RESOLUTION, MODULATION, CYCLE, DISTRIBUTION, SHAPE]];

/// `spec`'s number, required by `process`.
fn required(params: &mut ParamReader<'_>, spec: &ParamSpec, process: &str) -> Result<f64> {
    params
        .optional(spec, ParamReader::number)?
        .ok_or_else(|| WorkloadError::parameter(spec.key, format!("is required by the {process} process")))
}

impl ArrivalSpec {
    /// Reads a spec from `(name, value)` pairs named as in Table 4.1 (see `PARAMS`); a later
    /// pair overrides an earlier one of the same name.
    pub fn from_params(pairs: &[(String, String)]) -> Result<ArrivalSpec> {
        let mut given = Params::new();
        for (k, v) in pairs {
            if !specs(PARAMS).any(|spec| spec.key == k) {
                let names: Vec<&str> = specs(PARAMS).map(|spec| spec.key).collect();
                return Err(WorkloadError::parameter(
                    quote(k),
                    format!("is not an arrival parameter (one of {})", names.join(", ")),
                ));
            }
            given.set(k, v.as_str());
        }
        let params = &mut ParamReader::new(&mut given, PARAMS);
        let generator = params.text(&GENERATOR)?.to_ascii_lowercase();
        let process = match values::choice(&generator.replace([' ', '-', '_'], ""), PROCESSES).map(|i| PROCESSES[i]) {
            Ok("constant") => Process::Constant,
            Ok("poisson") => Process::Poisson,
            Ok("selfsimilar") => Process::SelfSimilar {
                bias: required(params, &SS_BIAS, "self-similar")?,
                resolution_s: params.number(&SS_RESOLUTION)?,
            },
            Ok(_diurnal) => {
                let distribution = match params.choice(&DISTRIBUTION)? {
                    "pareto" => Secondary::Pareto { shape: required(params, &SHAPE, "diurnal (Pareto)")? },
                    _exponential => Secondary::Exponential,
                };
                Process::Diurnal {
                    modulation: required(params, &MODULATION, "diurnal")?,
                    cycle_minutes: required(params, &CYCLE, "diurnal")?,
                    distribution,
                }
            }
            Err(_) => {
                return Err(WorkloadError::parameter(
                    GENERATOR.key,
                    format!("{} is not an arrival process ({})", quote(&generator), PROCESSES.join(", ")),
                ))
            }
        };
        let spec = ArrivalSpec {
            process,
            rate: required(params, &TARGET, "every")?,
            duration_s: required(params, &DURATION, "every")?,
        };
        spec.validate()?;
        Ok(spec)
    }

    pub fn validate(&self) -> Result<()> {
        if !(self.rate > 0.0 && self.rate.is_finite()) {
            return Err(WorkloadError::parameter(
                "target",
                format!("must be a positive rate in requests per second, not {:?}", self.rate),
            ));
        }
        if !(self.duration_s > 0.0 && self.duration_s.is_finite()) {
            return Err(WorkloadError::parameter(
                "duration",
                format!("must be a positive number of seconds, not {:?}", self.duration_s),
            ));
        }
        if self.rate * self.duration_s > MAX_ARRIVALS {
            return Err(WorkloadError::parameter(
                "duration",
                format!("{:?} s at {:?} requests/s is over {MAX_ARRIVALS:e} arrivals", self.duration_s, self.rate),
            ));
        }
        match self.process {
            Process::SelfSimilar { bias, resolution_s } => {
                if !(0.5..1.0).contains(&bias) {
                    return Err(WorkloadError::parameter(
                        "ss.bias",
                        format!("must be in [0.5, 1) (0.5 spreads evenly), not {bias:?}"),
                    ));
                }
                if !(resolution_s > 0.0 && resolution_s <= self.duration_s) {
                    return Err(WorkloadError::parameter(
                        "ss.resolution",
                        format!("must be positive seconds, at most the duration, not {resolution_s:?}"),
                    ));
                }
            }
            Process::Diurnal { modulation, cycle_minutes, distribution } => {
                if !(0.0..self.rate).contains(&modulation) {
                    return Err(WorkloadError::parameter(
                        "diurnal.modulation",
                        format!("must be in [0, target) so the rate stays positive, not {modulation:?}"),
                    ));
                }
                if cycle_minutes <= 0.0 {
                    return Err(WorkloadError::parameter(
                        "diurnal.cyclelength",
                        format!("must be positive minutes, not {cycle_minutes:?}"),
                    ));
                }
                if let Secondary::Pareto { shape } = distribution {
                    if shape <= 1.0 {
                        return Err(WorkloadError::parameter(
                            "diurnal.distribution.shape",
                            format!("must be above 1 (the Pareto mean is infinite at or below 1), not {shape:?}"),
                        ));
                    }
                    self.check_pareto_bound(shape, modulation)?;
                }
            }
            Process::Constant | Process::Poisson => {}
        }
        Ok(())
    }

    /// Refuses a Pareto shape so near 1 that the schedule could hold more than `MAX_ARRIVALS`
    /// arrivals, before any is drawn. Every Pareto gap is at least its scale, `(shape - 1) /
    /// shape` of the mean gap at the envelope's highest rate, so a run holds at most
    /// `duration x (rate + modulation) x shape / (shape - 1)` arrivals: a shape of 1.0000001
    /// allows ten million times the average count.
    fn check_pareto_bound(&self, shape: f64, modulation: f64) -> Result<()> {
        let busiest = self.duration_s * (self.rate + modulation);
        let most = busiest * shape / (shape - 1.0);
        if most <= MAX_ARRIVALS {
            return Ok(());
        }
        // Rounded up, so the shape the message names is accepted.
        let least_shape = (1e7 / (1.0 - busiest / MAX_ARRIVALS)).ceil() / 1e7;
        let remedy = if least_shape.is_finite() && least_shape > 1.0 {
            format!("a shape of at least {least_shape:.7}, or a shorter duration")
        } else {
            "a shorter duration or a lower rate".to_string()
        };
        Err(WorkloadError::parameter(
            "diurnal.distribution.shape",
            format!("{shape:?} lets {:?} s at up to {:?} requests/s draw up to {most:.3e} arrivals (every gap is at least (shape - 1) / shape of the mean), over the {MAX_ARRIVALS:e} a schedule holds: give {remedy}", self.duration_s, self.rate + modulation),
        ))
    }

    /// The arrival times, nanoseconds from the start, non-decreasing, below the duration.
    pub fn schedule(&self, seed: u64) -> Result<Vec<u64>> {
        self.validate()?;
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let end_ns = self.duration_s * 1e9;
        Ok(match self.process {
            Process::Constant => {
                let n = (self.rate * self.duration_s).floor() as u64;
                (0..n).map(|i| (i as f64 * 1e9 / self.rate) as u64).collect()
            }
            Process::Poisson => {
                let mean_ns = 1e9 / self.rate;
                let mut out = Vec::with_capacity((self.rate * self.duration_s * 1.01) as usize + 16);
                let mut t = exponential(&mut rng, mean_ns);
                while t < end_ns {
                    out.push(t as u64);
                    t += exponential(&mut rng, mean_ns);
                }
                out
            }
            Process::SelfSimilar { bias, resolution_s } => {
                bmodel::schedule(self.rate, self.duration_s, bias, resolution_s, &mut rng)
            }
            Process::Diurnal { modulation, cycle_minutes, distribution } => diurnal::schedule(
                self.rate,
                modulation,
                cycle_minutes * 60.0,
                distribution,
                self.duration_s,
                MAX_ARRIVALS as usize,
                &mut rng,
            )?,
        })
    }
}

/// An exponential sample of mean `mean`.
pub(crate) fn exponential(rng: &mut impl Rng, mean: f64) -> f64 {
    let u: f64 = rng.gen();
    -mean * (1.0 - u).ln()
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
