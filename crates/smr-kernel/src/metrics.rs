//! What systems measure, declared once: every counter, gauge and derived ratio has a name, a
//! unit and a meaning, written beside the code that counts it; the run report carries values
//! with their declarations, so nothing downstream recomputes a ratio or matches names by guess.
//!
//! Counters are monotonic totals (a warm-up is excluded by subtracting a snapshot, `since`).
//! A ratio is declared by the system whose counters it divides and evaluated by the engine on
//! the measured counters; it is left out when its denominator is zero. Not here: latency
//! histograms (`smr_core::latency`) and the report's own figures (`report`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The unit of a measured value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    Count,
    Bytes,
    /// 4 KiB blocks, or the cache's own block size where a cache says so.
    Blocks,
    Ns,
    Seconds,
    /// A dimensionless quotient.
    Ratio,
    /// A quotient from 0 to 1.
    Fraction,
}

/// A named measure: a counter, a gauge or a derived value.
#[derive(Debug, PartialEq, Eq)]
pub struct Metric {
    pub name: &'static str,
    pub unit: Unit,
    pub meaning: &'static str,
}

impl Metric {
    pub const fn new(name: &'static str, unit: Unit, meaning: &'static str) -> Self {
        Metric { name, unit, meaning }
    }
}

/// A derived value: one counter divided by another.
#[derive(Debug, PartialEq, Eq)]
pub struct Ratio {
    pub metric: Metric,
    pub numerator: &'static Metric,
    pub denominator: &'static Metric,
}

impl Ratio {
    pub const fn new(metric: Metric, numerator: &'static Metric, denominator: &'static Metric) -> Self {
        Ratio { metric, numerator, denominator }
    }

    /// `numerator / denominator`, or `None` when the denominator is zero.
    pub fn of(&self, numerator: u64, denominator: u64) -> Option<f64> {
        (denominator > 0).then(|| numerator as f64 / denominator as f64)
    }
}

/// What makes a run informative about a mechanism: if every one of `counters` stayed at zero,
/// the mechanism never came into play (a buffer that held every write, a cache that never
/// evicted) and the run says nothing about it; `when_never` says so for the user.
#[derive(Debug, PartialEq, Eq)]
pub struct Exercise {
    pub counters: &'static [&'static Metric],
    pub when_never: &'static str,
}

/// The counters a system reports, with the ratios it declares over them and the mechanisms a
/// run should exercise.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    values: Vec<(&'static Metric, u64)>,
    ratios: Vec<&'static Ratio>,
    exercises: Vec<&'static Exercise>,
}

impl Counters {
    /// Adds `value` to counter `metric` (counters of the same name add up).
    pub fn add(&mut self, metric: &'static Metric, value: u64) {
        match self.values.iter_mut().find(|(m, _)| m.name == metric.name) {
            Some((_, total)) => *total += value,
            None => self.values.push((metric, value)),
        }
    }

    /// Declares that `ratio` applies to these counters.
    pub fn declare(&mut self, ratio: &'static Ratio) {
        if !self.ratios.iter().any(|r| r.metric.name == ratio.metric.name) {
            self.ratios.push(ratio);
        }
    }

    /// Declares that a run should exercise `exercise`'s mechanism to say anything about it.
    pub fn expect(&mut self, exercise: &'static Exercise) {
        if !self.exercises.contains(&exercise) {
            self.exercises.push(exercise);
        }
    }

    /// What the counters show a run never exercised, in the words of each declaration.
    pub fn unexercised(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.exercises.iter().filter(|e| e.counters.iter().all(|c| self.get(c.name) == 0)).map(|e| e.when_never)
    }

    /// The value of the counter named `name` (0 if there is none).
    pub fn get(&self, name: &str) -> u64 {
        self.values.iter().find(|(m, _)| m.name == name).map_or(0, |&(_, v)| v)
    }

    /// `self - earlier`, counter by counter (counters absent earlier count from zero).
    pub fn since(&self, earlier: &Counters) -> Counters {
        let values = self.values.iter().map(|&(m, v)| (m, v.saturating_sub(earlier.get(m.name)))).collect();
        Counters { values, ratios: self.ratios.clone(), exercises: self.exercises.clone() }
    }

    /// Every counter.
    pub fn iter(&self) -> impl Iterator<Item = (&'static Metric, u64)> + '_ {
        self.values.iter().copied()
    }

    /// Every declared ratio, with a value or not.
    pub fn declared_ratios(&self) -> impl Iterator<Item = &'static Ratio> + '_ {
        self.ratios.iter().copied()
    }

    /// Every declared ratio whose denominator is not zero, with its value.
    pub fn ratios(&self) -> impl Iterator<Item = (&'static Ratio, f64)> + '_ {
        self.ratios
            .iter()
            .filter_map(|r| r.of(self.get(r.numerator.name), self.get(r.denominator.name)).map(|v| (*r, v)))
    }
}

/// Point-in-time values a system reports (occupancy, sizes, live fractions).
#[derive(Clone, Debug, Default)]
pub struct Gauges(Vec<(&'static Metric, f64)>);

impl Gauges {
    pub fn set(&mut self, metric: &'static Metric, value: f64) {
        self.0.push((metric, value));
    }

    pub fn clear(&mut self) {
        self.0.clear();
    }

    pub fn iter(&self) -> impl Iterator<Item = (&'static Metric, f64)> + '_ {
        self.0.iter().copied()
    }

    /// The value of the gauge named `name`.
    pub fn get(&self, name: &str) -> Option<f64> {
        self.0.iter().find(|(m, _)| m.name == name).map(|&(_, v)| v)
    }
}

/// Whether a reported value is a counter, a gauge or derived from others.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricKind {
    Counter,
    Gauge,
    Derived,
}

/// A declaration as the result file carries it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetricDoc {
    pub kind: MetricKind,
    pub unit: Unit,
    pub meaning: String,
}

impl MetricDoc {
    pub fn of(kind: MetricKind, metric: &Metric) -> Self {
        MetricDoc { kind, unit: metric.unit, meaning: metric.meaning.to_string() }
    }
}

/// Counter values by name, as reported.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CounterValues(pub BTreeMap<String, u64>);

impl CounterValues {
    /// The value of counter `name` (0 if there is none).
    pub fn get(&self, name: &str) -> u64 {
        self.0.get(name).copied().unwrap_or(0)
    }
}

impl From<&Counters> for CounterValues {
    fn from(counters: &Counters) -> Self {
        CounterValues(counters.iter().map(|(m, v)| (m.name.to_string(), v)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static CLEANINGS: Metric = Metric::new("cleanings", Unit::Count, "bands cleaned");
    static WRITTEN: Metric = Metric::new("written", Unit::Bytes, "bytes written to bands");
    static EVICTED: Metric = Metric::new("evicted", Unit::Bytes, "bytes evicted");
    static AMPLIFICATION: Ratio =
        Ratio::new(Metric::new("amplification", Unit::Ratio, "written / evicted"), &WRITTEN, &EVICTED);

    #[test]
    fn counters_subtract_a_snapshot_and_ratios_divide_what_remains() {
        let mut c = Counters::default();
        c.add(&CLEANINGS, 3);
        c.add(&WRITTEN, 100);
        c.add(&EVICTED, 0);
        c.declare(&AMPLIFICATION);
        assert_eq!(c.ratios().count(), 0, "no ratio over a zero denominator");
        let snapshot = c.clone();
        c.add(&CLEANINGS, 2);
        c.add(&WRITTEN, 300);
        c.add(&EVICTED, 100);
        let d = c.since(&snapshot);
        assert_eq!((d.get("cleanings"), d.get("written")), (2, 300));
        let ratios: Vec<(&str, f64)> = d.ratios().map(|(r, v)| (r.metric.name, v)).collect();
        assert_eq!(ratios, [("amplification", 3.0)]);
    }
}
