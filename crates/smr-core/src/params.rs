//! Typed `key=value` parameters for systems, devices and generators.
//!
//! Every configurable part of smrlab reads its settings through `Params`, so that every bad value
//! gets the same kind of message ("parameter 'cache': ...") and a misspelt key is an error instead of
//! being silently ignored (`Params::finish`). Not a config-file parser: the Python front turns TOML
//! and command-line options into these pairs.

use std::collections::BTreeMap;
use std::fmt;

use crate::values;

/// A parameter that is missing its `=`, has a bad value, or is unknown. `param` names it as the
/// user wrote it (the whole argument when it is not `KEY=VALUE`); `nearest` holds the declared
/// names nearest an unknown key, and `unit` the unit and range of a declared one whose value was
/// refused, for fronts that show them apart (the message already says both).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamError {
    pub param: String,
    pub message: String,
    pub nearest: Vec<String>,
    pub unit: Option<String>,
}

impl ParamError {
    pub fn new(param: impl Into<String>, message: impl Into<String>) -> Self {
        ParamError { param: param.into(), message: message.into(), nearest: Vec::new(), unit: None }
    }
}

impl fmt::Display for ParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "parameter {}: {}", crate::quote(&self.param), self.message)
    }
}

impl std::error::Error for ParamError {}

/// A bag of `key=value` strings with typed, defaulted getters that remember which keys were read.
#[derive(Debug, Clone, Default)]
pub struct Params {
    values: BTreeMap<String, String>,
    read: std::collections::BTreeSet<String>,
}

impl Params {
    pub fn new() -> Self {
        Params::default()
    }

    /// Parses `key=value` strings; a later key overrides an earlier one.
    pub fn parse<S: AsRef<str>>(pairs: &[S]) -> Result<Self, ParamError> {
        Ok(Params::from_pairs(split(pairs)?))
    }

    /// The bag of (key, value) pairs already split (`split`); a later key overrides an earlier one.
    pub fn from_pairs(pairs: Vec<(String, String)>) -> Self {
        Params { values: pairs.into_iter().collect(), read: Default::default() }
    }

    pub fn set(&mut self, key: &str, value: impl Into<String>) {
        self.values.insert(key.to_string(), value.into());
    }

    /// Sets `key` only if the caller did not give it.
    pub fn set_default(&mut self, key: &str, value: impl Into<String>) {
        self.values.entry(key.to_string()).or_insert_with(|| value.into());
    }

    pub fn contains(&self, key: &str) -> bool {
        self.values.contains_key(key)
    }

    /// The raw text of `key`, marking it as read.
    pub fn raw(&mut self, key: &str) -> Option<String> {
        let value = self.values.get(key).cloned();
        if value.is_some() {
            self.read.insert(key.to_string());
        }
        value
    }

    pub fn string(&mut self, key: &str, default: &str) -> String {
        self.raw(key).unwrap_or_else(|| default.to_string())
    }

    /// `key`'s value parsed by `parse` (one of `crate::values`), or `default` if not given.
    fn parsed<T>(
        &mut self,
        key: &str,
        default: T,
        parse: impl FnOnce(&str) -> Result<T, String>,
    ) -> Result<T, ParamError> {
        match self.raw(key) {
            None => Ok(default),
            Some(v) => parse(&v).map_err(|m| ParamError::new(key, m)),
        }
    }

    /// One of `choices` (case-insensitive); the error lists them.
    pub fn choice(&mut self, key: &str, default: &str, choices: &[&str]) -> Result<String, ParamError> {
        let text = self.string(key, default);
        values::choice(&text, choices).map(|i| choices[i].to_string()).map_err(|m| ParamError::new(key, m))
    }

    pub fn u64(&mut self, key: &str, default: u64) -> Result<u64, ParamError> {
        self.parsed(key, default, values::whole)
    }

    /// Like `u64` but zero is an error.
    pub fn positive_u64(&mut self, key: &str, default: u64) -> Result<u64, ParamError> {
        let v = self.u64(key, default)?;
        if v == 0 {
            return Err(ParamError::new(key, "must be greater than zero"));
        }
        Ok(v)
    }

    pub fn f64(&mut self, key: &str, default: f64) -> Result<f64, ParamError> {
        self.parsed(key, default, values::number)
    }

    /// A number from 0 to 1.
    pub fn fraction(&mut self, key: &str, default: f64) -> Result<f64, ParamError> {
        self.parsed(key, default, values::fraction)
    }

    pub fn bool(&mut self, key: &str, default: bool) -> Result<bool, ParamError> {
        self.parsed(key, default, values::switch)
    }

    /// A size in whole bytes ("20MiB", "4096"); zero is an error.
    pub fn size(&mut self, key: &str, default: u64) -> Result<u64, ParamError> {
        let bytes = self.parsed(key, default, values::size)?;
        if bytes == 0 {
            return Err(ParamError::new(key, "must be greater than zero"));
        }
        Ok(bytes)
    }

    /// Errors on the first key that no getter read: a misspelt or unsupported parameter.
    pub fn finish(&self) -> Result<(), ParamError> {
        match self.values.keys().find(|k| !self.read.contains(*k)) {
            None => Ok(()),
            Some(k) => Err(ParamError::new(k, "unknown parameter for this system")),
        }
    }

    /// All pairs, for recording the full configuration in a result file.
    pub fn pairs(&self) -> impl Iterator<Item = (&str, &str)> {
        self.values.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// Splits `KEY=VALUE` arguments into their keys and values (trimmed), in order: the one place
/// smrlab splits them, whichever front they came from. An argument without `=`, with an empty
/// key or with a second `=` is refused, naming the whole argument.
pub fn split<S: AsRef<str>>(pairs: &[S]) -> Result<Vec<(String, String)>, ParamError> {
    pairs
        .iter()
        .map(|pair| {
            let pair = pair.as_ref();
            let refuse = |why: &str| Err(ParamError::new(pair, format!("{why}: expected KEY=VALUE, one per argument")));
            let Some((key, value)) = pair.split_once('=') else { return refuse("no '='") };
            if key.trim().is_empty() {
                return refuse("no key before '='");
            }
            if value.contains('=') {
                return refuse("a second '='");
            }
            Ok((key.trim().to_string(), value.trim().to_string()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_getters_and_defaults() {
        let mut p = Params::parse(&["zone=20MB", "scheme=BL", "period=3"]).unwrap();
        assert_eq!(p.size("zone", 1).unwrap(), 20_000_000);
        assert_eq!(p.choice("scheme", "cf", &["cf", "pf", "bl"]).unwrap(), "bl");
        assert_eq!(p.u64("period", 0).unwrap(), 3);
        assert_eq!(p.u64("absent", 7).unwrap(), 7);
        p.finish().unwrap();
    }

    #[test]
    fn unknown_and_bad_values_name_the_parameter() {
        let p = Params::parse(&["zoen=20MB"]).unwrap();
        assert_eq!(p.finish().unwrap_err().param, "zoen");
        let mut p = Params::parse(&["zone=0"]).unwrap();
        assert_eq!(p.size("zone", 1).unwrap_err().param, "zone");
        let mut p = Params::parse(&["scheme=xx"]).unwrap();
        assert!(p.choice("scheme", "cf", &["cf", "pf"]).unwrap_err().message.contains("cf, pf"));
        assert!(Params::parse(&["novalue"]).is_err());
    }

    #[test]
    fn an_argument_that_is_not_one_key_value_pair_is_named_whole() {
        for (bad, why) in
            [("foo", "no '='"), ("=1", "no key"), (" =1", "no key"), ("a==b", "second '='"), (" ", "no '='")]
        {
            let err = split(&[bad]).unwrap_err();
            assert_eq!(err.param, bad);
            assert!(err.message.contains(why) && err.message.contains("KEY=VALUE"), "{bad}: {err}");
        }
        assert_eq!(split(&[" zone = 20MB ", "b="]).unwrap(), [("zone".into(), "20MB".into()), ("b".into(), "".into())]);
    }
}
