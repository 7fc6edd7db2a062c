//! Typed parameter declarations. Every parameter a system accepts is declared once — its key,
//! its kind (which fixes its parser and its unit), its default and its meaning — and read only
//! through that declaration, so `--help`, the default and the parser cannot drift apart, and a
//! system cannot read a parameter its entry does not list.
//!
//! A default is text, parsed by the same parser as a value the user gives. When systems stack
//! (a cache over a disk) and both declare a key, the upper one reads `KEY` and the lower one
//! `NAME.KEY` (e.g. `ucache.cache` under an SSD cache's `cache`). Not here: the `key=value` bag
//! itself (`crate::params::Params`, shared with trace readers), or what a system does with a
//! value.

use std::borrow::Cow;

use crate::units::parse_size;
use crate::{quote, values, ParamError, Params};

/// What a parameter's value is: decides how it is parsed and the unit `--help` shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Whole bytes: a number with an optional unit (4096, 4KiB, 20MB). Zero is refused.
    Size,
    /// Bytes, or a share of a whole the system measures (named by `of`): `N blocks`, `N%`, a
    /// fraction (`1/256`, `0.02`), or bytes; never more than the whole (100 %).
    Share { of: &'static str },
    /// One of these words (case does not matter).
    Choice(&'static [&'static str]),
    /// A replacement policy: one of these names, or a policy of the user's own written in
    /// Python, named `FILE.py:CLASS` or `MODULE:CLASS` (`ParamReader::policy`).
    Policy(&'static [&'static str]),
    /// true or false (also yes/no, on/off, 1/0).
    Bool,
    /// A number from 0 to 1.
    Fraction,
    /// A whole number above zero.
    Count,
    /// A fraction from 0 to 1, or the word `keyword` (e.g. "scheme": the scheme's own value).
    FractionOr { keyword: &'static str },
    /// A finite number above zero, in `unit` (requests per second, an exponent).
    Positive { unit: &'static str },
    /// Any finite number, in `unit`; the user of the value checks its range.
    Number { unit: &'static str },
    /// A number above 1: how many times one quantity holds another.
    Ratio,
    /// A whole number, zero included.
    Whole,
    /// A span of time: a number in `unit`, or a number with its own unit (ns, us, ms, s, min,
    /// h); never negative.
    Duration { unit: TimeUnit },
    /// The name of a registered system.
    System,
    /// Text the system parses itself; `unit` says what it takes.
    Custom { unit: &'static str },
    /// A factor above zero, or `auto` / `auto:NAME`, which the reader of the value resolves from
    /// the trace (e.g. a sample's requests over those of the paper trace it was drawn from).
    Scale,
}

/// The unit a `Kind::Duration` given as a bare number is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeUnit {
    Milliseconds,
    Seconds,
    Hours,
}

/// Each time unit a duration may be written with, and its length in nanoseconds.
const TIME_UNITS: [(&str, f64); 6] = [("ns", 1.0), ("us", 1e3), ("ms", 1e6), ("s", 1e9), ("min", 60e9), ("h", 3600e9)];

impl TimeUnit {
    /// Its symbol, as a value may be suffixed with it.
    pub fn symbol(self) -> &'static str {
        match self {
            TimeUnit::Milliseconds => "ms",
            TimeUnit::Seconds => "s",
            TimeUnit::Hours => "h",
        }
    }

    fn name(self) -> &'static str {
        match self {
            TimeUnit::Milliseconds => "milliseconds",
            TimeUnit::Seconds => "seconds",
            TimeUnit::Hours => "hours",
        }
    }

    fn nanoseconds(self) -> f64 {
        TIME_UNITS
            .iter()
            .find(|(symbol, _)| *symbol == self.symbol())
            .map(|(_, ns)| *ns)
            .expect("every unit is in the table")
    }
}

impl Kind {
    /// The kind's name, as the Python front reads it to choose how the command line checks a
    /// value (`size`, `share`, `choice`, ...).
    pub fn name(&self) -> &'static str {
        match self {
            Kind::Size => "size",
            Kind::Share { .. } => "share",
            Kind::Choice(_) => "choice",
            Kind::Policy(_) => "policy",
            Kind::Bool => "bool",
            Kind::Fraction => "fraction",
            Kind::Count => "count",
            Kind::FractionOr { .. } => "fraction-or",
            Kind::Positive { .. } => "positive",
            Kind::Number { .. } => "number",
            Kind::Ratio => "ratio",
            Kind::Whole => "whole",
            Kind::Duration { .. } => "duration",
            Kind::System => "system",
            Kind::Custom { .. } => "custom",
            Kind::Scale => "scale",
        }
    }

    /// The unit and form of a value, as `--help` shows it.
    pub fn unit(&self) -> String {
        match self {
            Kind::Size => "bytes".into(),
            Kind::Share { of } => format!("bytes, N blocks, N% or a fraction of {of}"),
            Kind::Choice(words) => format!("one of {}", words.join(", ")),
            Kind::Policy(names) => {
                format!("one of {}, or a Python class of your own: FILE.py:CLASS or MODULE:CLASS", names.join(", "))
            }
            Kind::Bool => "true or false".into(),
            Kind::Fraction => "a fraction from 0 to 1".into(),
            Kind::Count => "a whole number above 0".into(),
            Kind::FractionOr { keyword } => format!("a fraction from 0 to 1, or {keyword}"),
            Kind::Positive { unit } => format!("{unit}, a number above 0"),
            Kind::Number { unit } => format!("{unit}, a number"),
            Kind::Ratio => "a number above 1".into(),
            Kind::Whole => "a whole number, 0 or more".into(),
            Kind::Duration { unit } => format!("{}, or a number with a unit (ns, us, ms, s, min, h)", unit.name()),
            Kind::System => "a system name".into(),
            Kind::Custom { unit } => (*unit).into(),
            Kind::Scale => "a factor above 0, or auto (from the trace file's name) or auto:NAME (a paper trace)".into(),
        }
    }

    /// Whether `text` is a value of this kind, as far as it can be told without the trace or the
    /// system (a share's whole, a system name's registry, a custom value's own grammar are
    /// judged where the value is read): the error is the kind's parser's.
    pub fn check(&self, text: &str) -> Result<(), String> {
        let positive = |text: &str, above: f64, what: &str| match values::number(text) {
            Ok(x) if x > above => Ok(()),
            _ => Err(format!("{} is not {what}", quote(text))),
        };
        match self {
            Kind::Size => values::size(text).map(drop),
            Kind::Share { .. } => parse_share(text, u64::MAX, 1).map(drop),
            Kind::Choice(words) => values::choice(text, words).map(drop),
            Kind::Policy(names) => parse_policy(text, names).map(drop),
            Kind::Bool => values::switch(text).map(drop),
            Kind::Fraction => values::fraction(text).map(drop),
            Kind::Count => values::count(text).map(drop),
            Kind::FractionOr { keyword } if text.trim().eq_ignore_ascii_case(keyword) => Ok(()),
            Kind::FractionOr { keyword } => values::fraction(text)
                .map(drop)
                .map_err(|_| format!("{} is not a fraction from 0 to 1 or '{keyword}'", quote(text))),
            Kind::Positive { .. } => positive(text, 0.0, "a number above 0"),
            Kind::Number { .. } => values::number(text).map(drop),
            Kind::Ratio => positive(text, 1.0, "a number above 1"),
            Kind::Whole => values::whole(text).map(drop),
            Kind::Duration { unit } => parse_duration(text, *unit).map(drop),
            Kind::Scale
                if text.trim() == "auto" || text.trim().strip_prefix("auto:").is_some_and(|n| !n.is_empty()) =>
            {
                Ok(())
            }
            Kind::Scale => positive(text, 0.0, "a factor above 0, auto or auto:NAME"),
            Kind::System | Kind::Custom { .. } => Ok(()),
        }
    }
}

/// One declared parameter. `default` is the text used when the user gives none ("none" for a
/// size that is optional). `open` marks an open choice: a value the paper behind the system does
/// not state, with the reason for the default chosen (`smrlab sim --help` lists them, and the
/// reproduction scorecard sweeps them). `shared` marks a parameter every system of a stack reads
/// under its own key, one value for all of them (the geometry's scale), where two stacked systems
/// declaring one key otherwise read it apart (`NAME.KEY` below).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamSpec {
    pub key: &'static str,
    pub kind: Kind,
    pub default: &'static str,
    pub help: &'static str,
    pub open: Option<&'static str>,
    pub shared: bool,
}

impl ParamSpec {
    pub const fn new(key: &'static str, kind: Kind, default: &'static str, help: &'static str) -> Self {
        ParamSpec { key, kind, default, help, open: None, shared: false }
    }

    /// The same declaration, read under its own key by every system of a stack.
    pub const fn shared(self) -> Self {
        ParamSpec { shared: true, ..self }
    }

    /// Whether `text` can be this parameter's value, as far as `Kind::check` tells; `none`
    /// always can here (a system may read any parameter as optional, `ParamReader::optional`,
    /// and one that does not refuses it when it reads it).
    pub fn check(&self, text: &str) -> Result<(), String> {
        if text.trim() == NONE {
            return Ok(());
        }
        self.kind.check(text)
    }

    /// The unit and form of its value, as `--help` shows it: its kind's, and "or none" when it
    /// is optional (its default is `NONE`).
    pub fn unit(&self) -> String {
        match self.default {
            NONE => format!("{}, or none", self.kind.unit()),
            _ => self.kind.unit(),
        }
    }

    /// The same declaration marked an open choice: the paper does not state this value, and
    /// `reason` says why the default is what it is.
    pub const fn open(self, reason: &'static str) -> Self {
        ParamSpec { open: Some(reason), ..self }
    }
}

/// The value of a `Kind::Policy`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PolicyName {
    /// One of the names the parameter lists.
    Listed(&'static str),
    /// A policy of the user's, written in Python: `FILE.py:CLASS` (a path to a Python file) or
    /// `MODULE:CLASS` (an importable module), as given.
    Python(String),
}

/// Whether `text` has the form of a reference to a Python class: a file ending in `.py` or a
/// dotted module name, a colon, and the class's dotted name. Whether the file, module and class
/// exist is for the Python front to say.
pub fn is_python_reference(text: &str) -> bool {
    let identifiers = |dotted: &str| {
        dotted.split('.').all(|part| {
            let mut chars = part.chars();
            chars.next().is_some_and(|c| c == '_' || c.is_alphabetic())
                && chars.all(|c| c == '_' || c.is_alphanumeric())
        })
    };
    match text.trim().rsplit_once(':') {
        Some((place, class)) => identifiers(class) && (place.ends_with(".py") || identifiers(place)),
        None => false,
    }
}

/// A policy parameter's value: one of `names`, or a reference to a Python policy.
fn parse_policy(text: &str, names: &[&'static str]) -> Result<PolicyName, String> {
    match values::choice(text, names) {
        Ok(i) => Ok(PolicyName::Listed(names[i])),
        Err(_) if is_python_reference(text) => Ok(PolicyName::Python(text.trim().to_string())),
        Err(_) => Err(format!(
            "{} is none of {}, and not a Python policy (FILE.py:CLASS or MODULE:CLASS)",
            quote(text),
            names.join(", ")
        )),
    }
}

/// The default of an optional parameter: no value.
pub const NONE: &str = "none";

/// The default of a parameter that has none: the user must give it (`ParamReader::optional`
/// reads it as absent, and the caller says who requires it).
pub const REQUIRED: &str = "required";

/// A system's declared parameters: lists of them, so shared groups (the disk's) join a system's
/// own without being copied.
pub type ParamList = &'static [&'static [ParamSpec]];

/// Every parameter of `list`, in order.
pub fn specs(list: ParamList) -> impl Iterator<Item = &'static ParamSpec> {
    list.iter().flat_map(|group| group.iter())
}

/// Reads a system's parameters from the `key=value` bag through their declarations. `declared`
/// is the list of the system being built (the kernel switches it when a system builds the one
/// below it); reading a parameter not on it is refused as a bug.
pub struct ParamReader<'a> {
    params: &'a mut Params,
    declared: ParamList,
    /// The name of the system being built, and the declarations of the systems stacked over it.
    scope: &'static str,
    above: Vec<ParamList>,
    /// Every parameter read, with the value used (given or default), in reading order.
    resolved: Vec<(String, String)>,
}

impl<'a> ParamReader<'a> {
    pub fn new(params: &'a mut Params, declared: ParamList) -> Self {
        ParamReader { params, declared, scope: "", above: Vec::new(), resolved: Vec::new() }
    }

    /// Makes `declared` the list that may be read; returns the list it replaces.
    pub fn swap_declared(&mut self, declared: ParamList) -> ParamList {
        std::mem::replace(&mut self.declared, declared)
    }

    /// Starts reading the parameters of the system `name`, stacked under the one being read now
    /// when `stacked` (its keys that the upper one also declares are then read as `NAME.KEY`).
    /// Returns the scope to give back to `leave`.
    pub fn enter(&mut self, name: &'static str, stacked: bool) -> &'static str {
        if stacked {
            self.above.push(self.declared);
        }
        std::mem::replace(&mut self.scope, name)
    }

    /// Undoes the `enter` that returned `outer_scope`.
    pub fn leave(&mut self, outer_scope: &'static str, stacked: bool) {
        self.scope = outer_scope;
        if stacked {
            self.above.pop();
        }
    }

    /// The key `spec` is given under: its own, or `NAME.KEY` when a system stacked over this
    /// one declares the same key.
    pub fn key(&self, spec: &ParamSpec) -> Cow<'static, str> {
        if !spec.shared && self.above.iter().any(|list| specs(list).any(|s| s.key == spec.key)) {
            Cow::Owned(format!("{}.{}", self.scope, spec.key))
        } else {
            Cow::Borrowed(spec.key)
        }
    }

    /// An error about `spec`'s value, naming the key it is given under.
    pub fn error(&self, spec: &ParamSpec, message: impl Into<String>) -> ParamError {
        ParamError::new(self.key(spec), message)
    }

    /// Whether the user gave `spec`.
    pub fn given(&self, spec: &ParamSpec) -> bool {
        self.params.contains(&self.key(spec))
    }

    /// The user's text for `spec`, or its default; marks the key read.
    pub fn text(&mut self, spec: &ParamSpec) -> Result<String, ParamError> {
        if !specs(self.declared).any(|d| d.key == spec.key) {
            return Err(self.error(spec, "is read by the system but not declared in its entry (a bug in smrlab)"));
        }
        let key = self.key(spec);
        let value = self.params.raw(&key).unwrap_or_else(|| spec.default.to_string());
        if !self.resolved.iter().any(|(k, _)| *k == key) {
            self.resolved.push((key.into_owned(), value.clone()));
        }
        Ok(value)
    }

    /// Records `value` as what `spec` resolved to (a size the system scaled, say), in place of
    /// the text it was given as; `spec` must have been read.
    pub fn resolve_as(&mut self, spec: &ParamSpec, value: String) {
        let key = self.key(spec);
        if let Some(entry) = self.resolved.iter_mut().find(|(k, _)| *k == key) {
            entry.1 = value;
        }
    }

    /// Every parameter read so far with the value used, given or default: the configuration a
    /// result file records.
    pub fn resolved(&self) -> &[(String, String)] {
        &self.resolved
    }

    /// `spec`'s text parsed by `parse` (one of `smr_core::values`); the error names the key.
    fn parsed<T>(&mut self, spec: &ParamSpec, parse: impl FnOnce(&str) -> Result<T, String>) -> Result<T, ParamError> {
        let text = self.text(spec)?;
        parse(&text).map_err(|m| self.error(spec, m))
    }

    /// A `Kind::Size`: whole bytes, above zero.
    pub fn size(&mut self, spec: &ParamSpec) -> Result<u64, ParamError> {
        self.parsed(spec, values::size)
    }

    /// A `Kind::Size` whose default is `NONE`: `None` unless given.
    pub fn optional_size(&mut self, spec: &ParamSpec) -> Result<Option<u64>, ParamError> {
        self.optional(spec, Self::size)
    }

    /// `spec` read by `read` (one of this reader's methods), or `None` when its text is `NONE`
    /// (an optional parameter left at its default, or given as none) or when a `REQUIRED` one
    /// is not given.
    pub fn optional<T>(
        &mut self,
        spec: &ParamSpec,
        read: impl FnOnce(&mut Self, &ParamSpec) -> Result<T, ParamError>,
    ) -> Result<Option<T>, ParamError> {
        if self.text(spec)? == NONE || (spec.default == REQUIRED && !self.given(spec)) {
            return Ok(None);
        }
        read(self, spec).map(Some)
    }

    /// A `Kind::Share` of `whole` bytes, rounded down to whole `block`s (at least one, at most
    /// the whole).
    pub fn share(&mut self, spec: &ParamSpec, whole: u64, block: u64) -> Result<u64, ParamError> {
        let text = self.text(spec)?;
        let bytes = parse_share(&text, whole, block).map_err(|m| self.error(spec, m))?;
        if bytes > whole {
            return Err(self.error(
                spec,
                format!("{} is {bytes} bytes, more than the whole it is a share of ({whole} bytes)", quote(&text)),
            ));
        }
        let bytes = bytes / block * block;
        if bytes == 0 {
            return Err(self.error(spec, format!("resolves to less than one {block}-byte block (of {whole} bytes)")));
        }
        Ok(bytes)
    }

    /// A `Kind::Choice`: the listed word the value names.
    pub fn choice(&mut self, spec: &ParamSpec) -> Result<&'static str, ParamError> {
        let Kind::Choice(words) = spec.kind else {
            return Err(self.error(spec, "is not declared as a choice (a bug in smrlab)"));
        };
        self.parsed(spec, |text| values::choice(text, words).map(|i| words[i]))
    }

    /// A `Kind::Policy`: one of its listed names, or a reference to a Python policy.
    pub fn policy(&mut self, spec: &ParamSpec) -> Result<PolicyName, ParamError> {
        let Kind::Policy(names) = spec.kind else {
            return Err(self.error(spec, "is not declared as a policy (a bug in smrlab)"));
        };
        self.parsed(spec, |text| parse_policy(text, names))
    }

    pub fn bool(&mut self, spec: &ParamSpec) -> Result<bool, ParamError> {
        self.parsed(spec, values::switch)
    }

    /// A `Kind::Fraction`: a number from 0 to 1.
    pub fn fraction(&mut self, spec: &ParamSpec) -> Result<f64, ParamError> {
        self.parsed(spec, values::fraction)
    }

    /// A `Kind::Count`: a whole number above zero.
    pub fn count(&mut self, spec: &ParamSpec) -> Result<u64, ParamError> {
        self.parsed(spec, values::count)
    }

    /// A `Kind::Whole`: a whole number, zero included.
    pub fn whole(&mut self, spec: &ParamSpec) -> Result<u64, ParamError> {
        self.parsed(spec, values::whole)
    }

    /// A `Kind::FractionOr`: `Some` fraction from 0 to 1, or `None` for the keyword.
    pub fn fraction_or(&mut self, spec: &ParamSpec) -> Result<Option<f64>, ParamError> {
        let Kind::FractionOr { keyword } = spec.kind else {
            return Err(self.error(spec, "is not declared as a fraction or a keyword (a bug in smrlab)"));
        };
        self.parsed(spec, |text| match text.trim() {
            word if word.eq_ignore_ascii_case(keyword) => Ok(None),
            number => values::fraction(number)
                .map(Some)
                .map_err(|_| format!("{} is not a fraction from 0 to 1 or '{keyword}'", quote(text))),
        })
    }

    /// A `Kind::Positive`: a finite number above zero.
    pub fn positive(&mut self, spec: &ParamSpec) -> Result<f64, ParamError> {
        self.parsed(spec, |text| match values::number(text) {
            Ok(x) if x > 0.0 => Ok(x),
            _ => Err(format!("{} is not a number above 0", quote(text))),
        })
    }

    /// A `Kind::Number`: any finite number.
    pub fn number(&mut self, spec: &ParamSpec) -> Result<f64, ParamError> {
        self.parsed(spec, values::number)
    }

    /// A `Kind::Ratio`: a finite number above 1.
    pub fn ratio(&mut self, spec: &ParamSpec) -> Result<f64, ParamError> {
        self.parsed(spec, |text| match values::number(text) {
            Ok(x) if x > 1.0 => Ok(x),
            _ => Err(format!("{} is not a number above 1", quote(text))),
        })
    }

    /// Reads `spec` and checks its value as far as its kind allows without knowing what it will
    /// measure (a share, a system name, a policy and custom text are only read): for a
    /// parameter read but not used, which is to be refused as it would be if used.
    pub fn check(&mut self, spec: &ParamSpec) -> Result<(), ParamError> {
        match spec.kind {
            Kind::Size if spec.default == NONE => self.optional_size(spec).map(drop),
            Kind::Size => self.size(spec).map(drop),
            Kind::Choice(_) => self.choice(spec).map(drop),
            Kind::Bool => self.bool(spec).map(drop),
            Kind::Fraction => self.fraction(spec).map(drop),
            Kind::Count => self.count(spec).map(drop),
            Kind::Whole => self.whole(spec).map(drop),
            Kind::FractionOr { .. } => self.fraction_or(spec).map(drop),
            Kind::Positive { .. } => self.positive(spec).map(drop),
            Kind::Number { .. } => self.number(spec).map(drop),
            Kind::Ratio => self.ratio(spec).map(drop),
            Kind::Duration { .. } => self.duration(spec).map(drop),
            Kind::Scale => self.parsed(spec, |text| Kind::Scale.check(text)),
            Kind::Share { .. } | Kind::System | Kind::Policy(_) | Kind::Custom { .. } => self.text(spec).map(drop),
        }
    }

    /// A `Kind::Duration`, in nanoseconds (rounded down).
    pub fn duration(&mut self, spec: &ParamSpec) -> Result<u64, ParamError> {
        let Kind::Duration { unit } = spec.kind else {
            return Err(self.error(spec, "is not declared as a duration (a bug in smrlab)"));
        };
        self.parsed(spec, |text| parse_duration(text, unit))
    }
}

/// Parses a `Kind::Duration` into nanoseconds: a number in `unit`, or a number followed by one
/// of `TIME_UNITS`' symbols. (The product is taken as number × unit so that results stay as
/// they were, bit for bit.)
fn parse_duration(text: &str, unit: TimeUnit) -> Result<u64, String> {
    let t = text.trim();
    let (number, ns_per) = TIME_UNITS
        .iter()
        .filter_map(|(symbol, ns)| t.strip_suffix(symbol).map(|n| (n, *ns)))
        .find(|(n, _)| n.trim().parse::<f64>().is_ok())
        .unwrap_or((t, unit.nanoseconds()));
    match values::number(number) {
        Ok(x) if x >= 0.0 && x * ns_per < u64::MAX as f64 => Ok((x * ns_per) as u64),
        _ => Err(format!(
            "{} is not a time of 0 or more {} (or with a unit: ns, us, ms, s, min, h)",
            quote(text),
            unit.name()
        )),
    }
}

/// Parses a `Kind::Share`: `N%`, `N/D`, `N blocks` (also `block`, `blk`), a fraction written
/// `0.x` or `.x`, or bytes.
fn parse_share(text: &str, whole: u64, block: u64) -> Result<u64, String> {
    let t = text.trim();
    let shown = quote(text);
    let positive = |s: &str, what: &str| match values::number(s) {
        Ok(x) if x > 0.0 => Ok(x),
        _ => Err(format!("{shown} is not a positive {what}")),
    };
    // A share past the whole saturates here and is refused by the caller. (The products are
    // taken in this order so that results stay as they were, bit for bit.)
    if let Some(percent) = t.strip_suffix('%') {
        return Ok((whole as f64 * positive(percent, "percentage")? / 100.0) as u64);
    }
    if let Some((n, d)) = t.split_once('/') {
        let (n, d) = (positive(n, "fraction")?, positive(d, "fraction")?);
        return Ok((whole as f64 * n / d) as u64);
    }
    for suffix in ["blocks", "block", "blk"] {
        if let Some(count) = t.strip_suffix(suffix) {
            let count = values::whole(count).map_err(|_| format!("{shown} is not a block count"))?;
            return count.checked_mul(block).ok_or_else(|| format!("{shown} is out of range"));
        }
    }
    if t.starts_with("0.") || t.starts_with('.') {
        return Ok((whole as f64 * positive(t, "fraction")?) as u64);
    }
    parse_size(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ZONE: ParamSpec = ParamSpec::new("zone", Kind::Size, "20MB", "zone size");
    const SCHEME: ParamSpec = ParamSpec::new("scheme", Kind::Choice(&["cf", "pf", "bl"]), "bl", "scheme");
    const CACHE: ParamSpec = ParamSpec::new("cache", Kind::Share { of: "the range" }, "2%", "cache size");
    const BAND: ParamSpec = ParamSpec::new("band_size", Kind::Size, NONE, "fixed band size");
    const DECLARED: ParamList = &[&[ZONE, SCHEME, CACHE, BAND]];

    #[test]
    fn defaults_are_parsed_like_given_values() {
        let mut p = Params::parse(&["scheme=PF"]).unwrap();
        let mut r = ParamReader::new(&mut p, DECLARED);
        assert_eq!(r.size(&ZONE).unwrap(), 20_000_000);
        assert_eq!(r.choice(&SCHEME).unwrap(), "pf");
        assert_eq!(r.share(&CACHE, 100 * 4096 * 50, 4096).unwrap(), 100 * 4096);
        assert_eq!(r.optional_size(&BAND).unwrap(), None);
        p.finish().unwrap();
    }

    #[test]
    fn shares_as_fraction_percent_blocks_or_bytes() {
        let whole = 256 * 4096 * 100;
        let share = |text: &str| {
            let mut p = Params::parse(&[format!("cache={text}")]).unwrap();
            ParamReader::new(&mut p, DECLARED).share(&CACHE, whole, 4096)
        };
        assert_eq!(share("1/256").unwrap(), 100 * 4096);
        assert_eq!(share("2%").unwrap(), whole / 50 / 4096 * 4096);
        assert_eq!(share("10blocks").unwrap(), 40960);
        assert_eq!(share("64KiB").unwrap(), 65536);
        assert_eq!(share("0.5").unwrap(), whole / 2);
        assert!(share("1").unwrap_err().message.contains("less than one"));
        assert!(share("-2%").unwrap_err().message.contains("positive"));
        for too_much in ["150%", "3/2", "1e30/1", "1TiB", "102401blocks"] {
            assert!(share(too_much).unwrap_err().message.contains("more than the whole"), "{too_much}");
        }
        assert_eq!(share("100%").unwrap(), whole);
        assert!(share("nan%").is_err() && share("inf/1").is_err() && share("1/0").is_err());
    }

    #[test]
    fn reading_an_undeclared_parameter_is_refused() {
        let mut p = Params::parse(&["zone=1MB"]).unwrap();
        let mut r = ParamReader::new(&mut p, &[]);
        let err = r.size(&ZONE).unwrap_err();
        assert_eq!(err.param, "zone");
        assert!(err.message.contains("not declared"));
    }

    #[test]
    fn bad_values_name_the_parameter() {
        let mut p = Params::parse(&["zone=0", "scheme=xx"]).unwrap();
        let mut r = ParamReader::new(&mut p, DECLARED);
        assert_eq!(r.size(&ZONE).unwrap_err().param, "zone");
        let mut p = Params::parse(&["zone=1.5"]).unwrap();
        assert!(ParamReader::new(&mut p, DECLARED).size(&ZONE).unwrap_err().message.contains("whole number of bytes"));
        assert!(r.choice(&SCHEME).unwrap_err().message.contains("cf, pf, bl"));
    }

    /// `check` refuses what reading by the kind refuses, and reads a kind it cannot judge alone.
    #[test]
    fn checking_judges_what_the_kind_can() {
        let check = |param: &str, spec: &ParamSpec| {
            let mut p = Params::parse(&[param]).unwrap();
            ParamReader::new(&mut p, DECLARED).check(spec)
        };
        assert!(check("zone=20MB", &ZONE).is_ok() && check("scheme=PF", &SCHEME).is_ok());
        assert!(check("zone=20XB", &ZONE).unwrap_err().message.contains("20XB"));
        assert!(check("scheme=xx", &SCHEME).unwrap_err().message.contains("cf, pf, bl"));
        assert!(check("cache=anything", &CACHE).is_ok(), "a share needs its whole to be judged");
        assert!(check("band_size=none", &BAND).is_ok());
    }

    /// A policy is a listed name or a reference to a Python class (`FILE.py:CLASS`,
    /// `MODULE:CLASS`); anything else is refused naming both forms.
    #[test]
    fn a_policy_is_a_listed_name_or_a_python_class() {
        const POLICY: ParamSpec = ParamSpec::new("policy", Kind::Policy(&["lru", "fifo"]), "lru", "policy");
        let read = |text: &str| {
            let mut p = Params::parse(&[format!("policy={text}")]).unwrap();
            ParamReader::new(&mut p, &[&[POLICY]]).policy(&POLICY)
        };
        assert_eq!(read("FIFO").unwrap(), PolicyName::Listed("fifo"));
        for own in ["./mine.py:Mine", "/a/b/my-policy.py:Outer.Inner", "mine.py:_Lru2", "pkg.policies:Lru"] {
            assert_eq!(read(own).unwrap(), PolicyName::Python(own.to_string()), "{own}");
        }
        for bad in
            ["lfu", "mine.py", "mine.py:", "mine.py:2Lru", ":Lru", "./mine.txt:Lru", "pkg/mod:Lru", "mine.py:A-B"]
        {
            let err = read(bad).unwrap_err();
            assert!(err.message.contains("none of lru, fifo") && err.message.contains("FILE.py:CLASS"), "{bad}: {err}");
        }
    }

    const WINDOW: ParamSpec = ParamSpec::new("window", Kind::Duration { unit: TimeUnit::Hours }, "1", "window");
    const CONVERT: ParamSpec = ParamSpec::new("convert", Kind::FractionOr { keyword: "scheme" }, "scheme", "convert");
    const RATE: ParamSpec = ParamSpec::new("rate", Kind::Positive { unit: "requests per second" }, "10", "rate");
    const ALPHA: ParamSpec = ParamSpec::new("alpha", Kind::Ratio, "1.5", "alpha");
    const TIMED: ParamList = &[&[WINDOW, CONVERT, RATE, ALPHA, BAND]];

    fn read<T>(given: &str, read: impl FnOnce(&mut ParamReader<'_>) -> Result<T, ParamError>) -> Result<T, ParamError> {
        let mut p = Params::parse(&[given]).unwrap();
        read(&mut ParamReader::new(&mut p, TIMED))
    }

    #[test]
    fn durations_in_their_unit_or_with_one() {
        let window = |text: &str| read(&format!("window={text}"), |r| r.duration(&WINDOW));
        assert_eq!(window("1").unwrap(), 3_600_000_000_000);
        assert_eq!(window("0.5").unwrap(), (0.5 * 3600e9) as u64);
        assert_eq!(window("90min").unwrap(), 5_400_000_000_000);
        assert_eq!(window("250ms").unwrap(), 250_000_000);
        assert_eq!(window("2 s").unwrap(), 2_000_000_000);
        assert_eq!(window("0").unwrap(), 0);
        for bad in ["-1", "1e300", "1 fortnight", "h", "nan", "inf"] {
            let err = window(bad).unwrap_err();
            assert!(err.param == "window" && err.message.contains("hours"), "{bad}: {err}");
        }
    }

    #[test]
    fn a_fraction_or_its_keyword() {
        let convert = |text: &str| read(&format!("convert={text}"), |r| r.fraction_or(&CONVERT));
        assert_eq!(convert("Scheme").unwrap(), None);
        assert_eq!(convert("0.25").unwrap(), Some(0.25));
        assert!(convert("1.5").unwrap_err().message.contains("or 'scheme'"));
    }

    #[test]
    fn positive_numbers_ratios_and_optional_values() {
        assert_eq!(read("rate=2.5", |r| r.positive(&RATE)).unwrap(), 2.5);
        assert!(read("rate=0", |r| r.positive(&RATE)).unwrap_err().message.contains("above 0"));
        assert_eq!(read("alpha=4/3", |r| r.ratio(&ALPHA)).unwrap(), 4.0 / 3.0);
        assert_eq!(read("alpha=4/0", |r| r.ratio(&ALPHA)).unwrap_err().param, "alpha");
        assert!(read("alpha=1", |r| r.ratio(&ALPHA)).unwrap_err().message.contains("above 1"));
        assert_eq!(read("alpha=2", |r| r.ratio(&ALPHA)).unwrap(), 2.0);
        assert_eq!(read("band_size=none", |r| r.optional(&BAND, ParamReader::size)).unwrap(), None);
        assert_eq!(read("band_size=1KiB", |r| r.optional(&BAND, ParamReader::size)).unwrap(), Some(1024));
        const NEEDED: ParamSpec =
            ParamSpec::new("rate", Kind::Positive { unit: "requests per second" }, REQUIRED, "rate");
        let mut p = Params::parse(&["alpha=2"]).unwrap();
        assert_eq!(ParamReader::new(&mut p, &[&[NEEDED]]).optional(&NEEDED, ParamReader::positive).unwrap(), None);
        assert_eq!(read("rate=3", |r| r.optional(&NEEDED, ParamReader::positive)).unwrap(), Some(3.0));
        assert_eq!(NEEDED.unit(), "requests per second, a number above 0");
        assert!(read("band_size=0", |r| r.optional(&BAND, ParamReader::size)).is_err());
        assert_eq!(BAND.unit(), "bytes, or none");
        assert_eq!(WINDOW.unit(), "hours, or a number with a unit (ns, us, ms, s, min, h)");
    }

    #[test]
    fn units_name_the_form_of_a_value() {
        assert_eq!(CACHE.kind.unit(), "bytes, N blocks, N% or a fraction of the range");
        assert_eq!(SCHEME.kind.unit(), "one of cf, pf, bl");
    }
}
