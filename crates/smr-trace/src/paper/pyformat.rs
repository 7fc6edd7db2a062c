//! Python's spellings of numbers, for the synthesizer parameters of the paper tables: their text
//! was first written by Python (`f"{x:.6f}"`, `f"{x:.6g}"`, `round(x)`), and the traces' recipes
//! and cache names rest on that text, so it must not change by a character. Not here: parsing.

/// `f"{value:.{digits}f}"`: fixed point, correctly rounded (ties to even on the exact binary
/// value, as Python's and Rust's formatting both do).
pub fn fixed(value: f64, digits: usize) -> String {
    format!("{value:.digits$}")
}

/// `f"{value:.{digits}g}"`: `digits` significant digits, trailing zeros
/// dropped, in exponent form (two exponent digits at least) when the exponent is below -4 or at
/// least `digits`; `nan`, `inf` and `-inf` as Python spells them.
pub fn general(value: f64, digits: usize) -> String {
    if value.is_nan() {
        return "nan".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf".into() } else { "-inf".into() };
    }
    if value == 0.0 {
        return if value.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    let digits = digits.max(1);
    let scientific = format!("{value:.prec$e}", prec = digits - 1);
    let (mantissa, exponent) = scientific.split_once('e').expect("Rust's exponent form has an 'e'");
    let exponent: i32 = exponent.parse().expect("Rust's exponent is a number");
    if exponent < -4 || exponent >= digits as i32 {
        let sign = if exponent < 0 { '-' } else { '+' };
        format!("{}e{sign}{:02}", without_trailing_zeros(mantissa), exponent.abs())
    } else {
        let decimals = (digits as i32 - 1 - exponent) as usize;
        without_trailing_zeros(&fixed(value, decimals)).to_string()
    }
}

fn without_trailing_zeros(text: &str) -> &str {
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        text
    }
}

/// `round(value)` of a float: to the nearest whole number, ties to even.
pub fn round(value: f64) -> i64 {
    value.round_ties_even() as i64
}

/// `f"{value:,}"` of a whole number: thousands separated by commas.
pub fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_spellings() {
        // Each expected text is what CPython 3.11 prints for the same expression.
        assert_eq!(fixed(0.7873, 6), "0.787300");
        assert_eq!(fixed(0.125, 2), "0.12");
        assert_eq!(general(0.05, 6), "0.05");
        assert_eq!(general(100.0 / 2.6e6, 6), "3.84615e-05");
        assert_eq!(general(100.0 / 13000.0, 6), "0.00769231");
        assert_eq!(general(1234567.0, 6), "1.23457e+06");
        assert_eq!(general(123456.0, 6), "123456");
        assert_eq!(general(0.0001, 6), "0.0001");
        assert_eq!(
            (general(f64::NAN, 6), general(f64::INFINITY, 6), general(0.001, 6), general(100_000.0, 6)),
            ("nan".into(), "inf".into(), "0.001".into(), "100000".into())
        );
        assert_eq!((round(2.5), round(3.5), round(-0.5), round(2.4999)), (2, 4, 0, 2));
        assert_eq!(
            (thousands(0), thousands(999), thousands(1000), thousands(1_000_000_000)),
            ("0".into(), "999".into(), "1,000".into(), "1,000,000,000".into())
        );
    }
}
