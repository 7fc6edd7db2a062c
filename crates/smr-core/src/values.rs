//! The one parser of each kind of value a user types as text — a whole number, a count, a
//! number, a fraction, a switch, a choice among words, a size — shared by the `key=value` bag
//! (`Params`), the simulator's declared parameters and trace reader options, so every kind
//! follows the same rules and words its refusal the same way everywhere.
//!
//! Each returns the value or a message that quotes the text (shortened, see `quote`). Not here:
//! which parameter a value belongs to (the callers name it) or sizes' own grammar (`units`).

use crate::quote::quote;
use crate::units::parse_size;

/// A whole number from 0 up.
pub fn whole(text: &str) -> Result<u64, String> {
    text.trim().parse::<u64>().map_err(|_| format!("{} is not a whole number from 0 to 2^64 - 1", quote(text)))
}

/// A whole number above zero.
pub fn count(text: &str) -> Result<u64, String> {
    match text.trim().parse::<u64>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{} is not a whole number above zero", quote(text))),
    }
}

/// A finite number, written as a decimal (`1.5`, `2e-3`) or as a quotient of two (`3/2`).
pub fn number(text: &str) -> Result<f64, String> {
    match decimal_or_quotient(text) {
        Some(x) if x.is_finite() => Ok(x),
        _ => Err(format!("{} is not a finite number", quote(text))),
    }
}

/// A number from 0 to 1, as `number` writes it (`0.5` or `1/2`).
pub fn fraction(text: &str) -> Result<f64, String> {
    match decimal_or_quotient(text) {
        Some(x) if (0.0..=1.0).contains(&x) => Ok(x),
        _ => Err(format!("{} is not a fraction from 0 to 1", quote(text))),
    }
}

/// `text` as a decimal number, or `p/q` as p divided by q (both finite, q not zero); None
/// otherwise. The quotient is one division, so `3/2` is exactly 1.5.
fn decimal_or_quotient(text: &str) -> Option<f64> {
    let text = text.trim();
    let Some((p, q)) = text.split_once('/') else {
        return text.parse::<f64>().ok();
    };
    let (p, q) = (p.trim().parse::<f64>().ok()?, q.trim().parse::<f64>().ok()?);
    (p.is_finite() && q.is_finite() && q != 0.0).then(|| p / q)
}

/// true or false (also yes/no, on/off, 1/0), in any case.
pub fn switch(text: &str) -> Result<bool, String> {
    match text.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" | "on" => Ok(true),
        "0" | "false" | "no" | "off" => Ok(false),
        _ => Err(format!("{} is not true or false", quote(text))),
    }
}

/// The index of the word of `words` that `text` names (case does not matter).
pub fn choice(text: &str, words: &[&str]) -> Result<usize, String> {
    let lower = text.trim().to_ascii_lowercase();
    words.iter().position(|w| *w == lower).ok_or_else(|| format!("{} is not one of {}", quote(text), words.join(", ")))
}

/// A size in whole bytes, above zero (see `units::parse_size` for the grammar).
pub fn size(text: &str) -> Result<u64, String> {
    match parse_size(text)? {
        0 => Err("must be greater than zero".into()),
        bytes => Ok(bytes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_accepts_its_values_and_refuses_others_quoting_them() {
        assert_eq!(whole(" 7 "), Ok(7));
        assert!(whole("-1").unwrap_err().contains("'-1'"));
        assert_eq!(count("3"), Ok(3));
        assert!(count("0").is_err());
        assert_eq!(number("-2.5"), Ok(-2.5));
        assert!(number("inf").is_err() && number("nan").is_err());
        assert_eq!(fraction("1"), Ok(1.0));
        assert!(fraction("1.5").is_err() && fraction("nan").is_err());
        assert_eq!((number("3/2"), fraction(" 1 / 2 ")), (Ok(1.5), Ok(0.5)));
        assert!(number("1/0").is_err() && number("1/2/3").is_err() && number("inf/2").is_err());
        assert!(fraction("3/2").is_err() && number("/2").is_err());
        assert_eq!(switch("On"), Ok(true));
        assert!(switch("maybe").is_err());
        assert_eq!(choice("PF", &["cf", "pf"]), Ok(1));
        assert!(choice("x", &["cf", "pf"]).unwrap_err().contains("cf, pf"));
        assert_eq!(size("4KiB"), Ok(4096));
        assert!(size("0").unwrap_err().contains("greater than zero"));
        assert!(size("1.5").is_err());
        let long = "\u{7}".repeat(100_000);
        assert!(whole(&long).unwrap_err().len() < 200, "the text is quoted short");
    }
}
