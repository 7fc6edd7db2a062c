//! Typed `key=value` parameters for systems, devices and generators.
//!
//! Every configurable part of smrlab reads its settings through `Params`, so that every bad value
//! gets the same kind of message ("parameter 'cache': ...") and a misspelt key is an error instead of
//! being silently ignored (`Params::finish`). Not a config-file parser: the Python front turns TOML
//! and command-line options into these pairs.

use std::collections::BTreeMap;
use std::fmt;

use crate::values;

/// A parameter that is missing its `=`, has a bad value, or is unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamError {
    pub param: String,
    pub message: String,
}

impl ParamError {
    pub fn new(param: impl Into<String>, message: impl Into<String>) -> Self {
        ParamError { param: param.into(), message: message.into() }
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
        let mut params = Params::new();
        for pair in pairs {
            let pair = pair.as_ref();
            let (key, value) = pair.split_once('=').ok_or_else(|| ParamError::new(pair, "expected key=value"))?;
            let key = key.trim();
            if key.is_empty() {
                return Err(ParamError::new(pair, "empty key in key=value"));
            }
            params.set(key, value.trim());
        }
        Ok(params)
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
}
