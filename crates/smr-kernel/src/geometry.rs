//! A shingled disk's geometry scaled with a trace that is a sample of a larger one: one factor,
//! `geometry_scale`, by which every size a system states at the paper's scale follows the
//! sample, defaults included — a drive-managed disk's bands (`dmsmr`), PORE's zones (the SSD
//! cache), FluidSMR's zones. A sample of a tenth of a paper trace's requests spans about a tenth
//! of its bands; scaled by the same factor, its bands keep their ratio to the write buffer and
//! the cache (which are shares of the trace already), and its figures say something about the
//! scheme rather than about the few bands it touches.
//!
//! `auto:NAME` takes the factor from the trace itself: its requests over those of the paper
//! trace `NAME` (PORE Table I, FluidSMR Table 1, HWSR Table 3); `auto` names the trace file
//! (the runner puts its name in). The notes a banded disk gives (`band_notes`) say which bands
//! a run had and why, and warn when they are few. Not here: what a size means to its system.

use smr_core::names::{did_you_mean, nearest};
use smr_core::param_spec::{Kind, ParamReader, ParamSpec};
use smr_core::{quote, values, ParamError};
use smr_trace::paper::{original_names, original_requests};

pub const GEOMETRY_SCALE: ParamSpec = ParamSpec::new(
    "geometry_scale",
    Kind::Scale,
    "1",
    "multiply band and zone sizes (defaults included) by F, for a trace that is a sample of a larger one: F = its \
     requests / the original's; auto takes F from a paper trace of the trace file's name (auto:NAME names it)",
)
.shared();

/// The group a system with a scaled geometry declares (every system of a stack reads the one value).
pub const GEOMETRY_PARAMS: [ParamSpec; 1] = [GEOMETRY_SCALE];

/// The smallest size a scaled size becomes: one 4 KiB block.
const SMALLEST: u64 = 4096;

/// Below this many bands, a run's figures are dominated by the few bands its trace touches (one
/// band's cleaning is then a few percent of all of them).
pub const FEW_BANDS: f64 = 50.0;

/// The factor a run's geometry is scaled by, and why, as its notes say it.
#[derive(Clone, Debug, PartialEq)]
pub struct Scale {
    pub factor: f64,
    pub why: String,
}

impl Scale {
    /// `geometry_scale` as given (a factor, or `auto:NAME` of a trace of `requests` requests).
    pub fn read(params: &mut ParamReader<'_>, requests: u64) -> Result<Scale, ParamError> {
        let text = params.text(&GEOMETRY_SCALE)?;
        let text = text.trim();
        let Some(auto) = text.strip_prefix("auto") else {
            return match values::number(text) {
                Ok(factor) if factor > 0.0 => {
                    Ok(Scale { factor, why: format!("scaled by {} (geometry_scale)", general(factor)) })
                }
                _ => Err(params
                    .error(&GEOMETRY_SCALE, format!("{} is not a factor above 0, auto or auto:NAME", quote(text)))),
            };
        };
        let name = auto.strip_prefix(':').unwrap_or("");
        let Some((original, table)) = original_requests(name) else {
            let known: Vec<&str> = original_names().collect();
            let what = if name.is_empty() {
                "auto needs the name of a paper trace".to_string()
            } else {
                format!(
                    "{} is not a paper trace{}",
                    quote(name),
                    did_you_mean(&nearest(name, known.iter().copied(), 1))
                )
            };
            return Err(params.error(
                &GEOMETRY_SCALE,
                format!("{what}: auto:NAME, NAME one of {} (plain auto takes the trace file's name)", known.join(", ")),
            ));
        };
        if requests == 0 {
            return Err(params.error(
                &GEOMETRY_SCALE,
                "auto needs the trace's request count, which this run did not measure: give the factor",
            ));
        }
        let factor = requests as f64 / original as f64;
        let why = format!(
            "scaled by {} (geometry_scale auto: {} of {name}'s {} requests, {table})",
            general(factor),
            thousands(requests as f64),
            thousands(original as f64)
        );
        Ok(Scale { factor, why })
    }

    /// Whether the sizes are as stated (a factor of 1).
    pub fn unscaled(&self) -> bool {
        self.factor == 1.0
    }

    /// `bytes` scaled: rounded to whole bytes (half to even), at least one 4 KiB block.
    pub fn of(&self, bytes: u64) -> u64 {
        if self.unscaled() {
            return bytes;
        }
        ((bytes as f64 * self.factor).round_ties_even() as u64).max(SMALLEST)
    }

    /// `spec` (a `Kind::Size`) read and scaled; a scaled value is what the run records for it.
    pub fn size(&self, params: &mut ParamReader<'_>, spec: &ParamSpec) -> Result<u64, ParamError> {
        let bytes = self.of(params.size(spec)?);
        if !self.unscaled() {
            params.resolve_as(spec, bytes.to_string());
        }
        Ok(bytes)
    }

    /// `bytes` scaled, rounded down to whole `block`s (at least one).
    pub fn of_blocks(&self, bytes: u64, block: u64) -> u64 {
        if self.unscaled() {
            return bytes;
        }
        ((bytes as f64 * self.factor) as u64 / block).max(1) * block
    }
}

/// What a run on a banded disk says of its geometry: `bands` (its bands' sizes and why they are
/// what they are) and how many of them lie `over` its range; then, when they are fewer than
/// `FEW_BANDS`, a warning that its figures are dominated by them.
pub fn band_notes(bands: &str, count: f64, over: &str) -> (String, Option<String>) {
    let said = format!("geometry: {bands}; {} bands {over}", thousands(count));
    let warning = (count < FEW_BANDS).then(|| {
        format!(
            "geometry: only {} bands: the figures are dominated by the few bands the trace touches. For a sample of a \
             larger trace, scale the bands with it: geometry_scale=auto (--geometry-scale auto) for a trace named after \
             its paper trace, auto:NAME to name it, or F = the sample's requests / the original's",
            thousands(count)
        )
    });
    (said, warning)
}

/// `x` rounded to a whole number, with thousands separated by commas (as Python's `{:,.0f}`).
pub fn thousands(x: f64) -> String {
    let digits = format!("{:.0}", x.abs());
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if x < 0.0 && digits != "0" {
        out.insert(0, '-');
    }
    out
}

/// `x` with six significant digits and no trailing zeros (as Python's `{:g}` for the factors
/// a scale takes).
fn general(x: f64) -> String {
    let exponent = x.abs().log10().floor() as i32;
    if !(-5..6).contains(&exponent) {
        return format!("{x:e}");
    }
    let text = format!("{:.*}", (5 - exponent).max(0) as usize, x);
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smr_core::Params;

    fn scale(given: &str, requests: u64) -> Result<Scale, ParamError> {
        let mut p = Params::parse(&[format!("geometry_scale={given}")]).unwrap();
        Scale::read(&mut ParamReader::new(&mut p, &[&GEOMETRY_PARAMS]), requests)
    }

    /// As the Python front scaled them: `max(4096, round(bytes * F))`, half to even.
    #[test]
    fn sizes_scale_rounded_to_bytes_and_never_below_a_block() {
        let s = scale("0.0377", 0).unwrap();
        assert_eq!(s.of(17_000_000), 640_900);
        assert_eq!(s.of(20_000), 4096);
        assert_eq!(Scale { factor: 0.5, why: String::new() }.of(5), 4096);
        assert_eq!(Scale { factor: 0.5, why: String::new() }.of(8193 * 2 + 1), 8194, "8193.5 rounds to even");
        assert_eq!(scale("1", 0).unwrap().of(3), 3, "unscaled sizes are left as they are");
        assert_eq!(s.of_blocks(256 << 20, 4096), 10_117_120);
        assert!(s.why.contains("scaled by 0.0377 (geometry_scale)"));
    }

    #[test]
    fn auto_takes_the_factor_from_a_paper_traces_request_count() {
        let s = scale("auto:wdev", 100_000).unwrap();
        assert_eq!(s.factor, 100_000.0 / 2_654_824.0);
        assert!(s.why.contains("auto: 100,000 of wdev's 2,654,824 requests, PORE Table I"), "{}", s.why);
        assert_eq!(scale("auto:hm_0", 400_000).unwrap().factor, 0.1);
        for (bad, says) in
            [("auto:wdv", "did you mean 'wdev'"), ("auto", "needs the name"), ("0", "above 0"), ("x", "above 0")]
        {
            let err = scale(bad, 100).unwrap_err();
            assert!(err.param == "geometry_scale" && err.message.contains(says), "{bad}: {err}");
        }
        assert!(scale("auto:wdev", 0).unwrap_err().message.contains("request count"));
    }

    #[test]
    fn few_bands_are_warned_of() {
        let (said, warned) = band_notes("bands of 17MB to 36MB (as given)", 7.0, "over the trace's footprint");
        assert_eq!(said, "geometry: bands of 17MB to 36MB (as given); 7 bands over the trace's footprint");
        assert!(warned.unwrap().starts_with("geometry: only 7 bands: the figures are dominated"));
        assert_eq!(band_notes("b", 1234.4, "o").1, None);
        assert_eq!(thousands(1_234_567.0), "1,234,567");
        assert_eq!(
            (general(0.0377), general(100_000.0 / 2_654_824.0), general(2.0)),
            ("0.0377".into(), "0.0376673".into(), "2".into())
        );
    }
}
