//! Byte and time units, and parsing of human-written sizes ("20MiB", "4k", "1.5GB").
//!
//! Sizes: a bare number is bytes; suffixes K/M/G/T (optionally followed by "B") and KB/MB/GB/TB
//! are decimal powers of 1000, KiB/MiB/GiB/TiB (and k, as in "4k" block sizes) are powers of 1024.
//! A size is a whole number of bytes: `1.5GiB` is, `1.5` (bytes) is refused, not rounded. The
//! decimal is read exactly (no binary floating point), so `1.1MB` is 1,100,000 bytes.
//! This follows what storage papers mean: "20 MB" zones in PORE are 20·10^6 bytes, "256 MiB" zones
//! on a host-managed drive are 2^28 bytes. Not here: percentages of a trace's footprint, which
//! need the trace and are resolved by the simulator (`Kind::Share` in smr-sim's kernel).

pub const SECTOR: u64 = 512;
pub const BLOCK_4K: u64 = 4096;
pub const KIB: u64 = 1 << 10;
pub const MIB: u64 = 1 << 20;
pub const GIB: u64 = 1 << 30;
pub const TIB: u64 = 1 << 40;
pub const KB: u64 = 1_000;
pub const MB: u64 = 1_000_000;
pub const GB: u64 = 1_000_000_000;
pub const TB: u64 = 1_000_000_000_000;

pub const NS_PER_US: u64 = 1_000;
pub const NS_PER_MS: u64 = 1_000_000;
pub const NS_PER_S: u64 = 1_000_000_000;

/// Parses a size such as `4096`, `4k`, `4KiB`, `20MB`, `20MiB`, `1.5GiB` into bytes.
/// Returns a message suitable for a `ParamError` on failure.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let shown = crate::quote(text);
    let split = t.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(t.len());
    let (number, suffix) = t.split_at(split);
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if whole.is_empty() && fraction.is_empty() || fraction.contains('.') {
        return Err(format!("{shown} is not a size (expected e.g. 4096, 4KiB, 20MB, 1.5GiB)"));
    }
    let multiplier = match suffix.trim() {
        "" | "B" | "b" => 1,
        "k" | "KiB" | "kiB" | "Ki" => KIB,
        "K" | "KB" | "kB" | "kb" => KB,
        "M" | "MB" | "mb" => MB,
        "MiB" | "Mi" | "m" => MIB,
        "G" | "GB" | "gb" => GB,
        "GiB" | "Gi" | "g" => GIB,
        "T" | "TB" | "tb" => TB,
        "TiB" | "Ti" | "t" => TIB,
        other => {
            return Err(format!(
                "{shown} has an unknown size suffix {} (use B, KB, MB, GB, TB for powers of 1000 or KiB, MiB, GiB, TiB for powers of 1024)",
                crate::quote(other)
            ))
        }
    };
    exact_bytes(whole, fraction.trim_end_matches('0'), multiplier as u128)
        .ok_or_else(|| format!("{shown} is out of range (at most 2^64 - 1 bytes)"))?
        .map_err(|()| format!("{shown} is not a whole number of bytes"))
}

/// `whole.fraction × multiplier` from decimal digits, exactly: `None` past `u64::MAX`,
/// `Some(Err(()))` if it is not a whole number.
fn exact_bytes(whole: &str, fraction: &str, multiplier: u128) -> Option<Result<u64, ()>> {
    let digits = |text: &str| -> Option<u128> {
        text.bytes().try_fold(0u128, |n, d| n.checked_mul(10)?.checked_add(u128::from(d - b'0')))
    };
    let integral = digits(whole)?.checked_mul(multiplier)?;
    // 10^k for a fraction of k digits; more than 30 significant digits cannot be whole at any
    // multiplier below 2^100.
    if fraction.len() > 30 {
        return Some(Err(()));
    }
    let scale = 10u128.pow(fraction.len() as u32);
    let scaled = digits(fraction)?.checked_mul(multiplier)?;
    if scaled % scale != 0 {
        return Some(Err(()));
    }
    let bytes = integral.checked_add(scaled / scale)?;
    Some(Ok(u64::try_from(bytes).ok()?))
}

/// Formats bytes with the largest binary unit that keeps the value ≥ 1 (e.g. "18.0 MiB").
pub fn format_size(bytes: u64) -> String {
    const UNITS: [(&str, u64); 4] = [("TiB", TIB), ("GiB", GIB), ("MiB", MIB), ("KiB", KIB)];
    for (name, unit) in UNITS {
        if bytes >= unit {
            return format!("{:.1} {name}", bytes as f64 / unit as f64);
        }
    }
    format!("{bytes} B")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_decimal_and_binary_suffixes() {
        assert_eq!(parse_size("4096").unwrap(), 4096);
        assert_eq!(parse_size("4k").unwrap(), 4096);
        assert_eq!(parse_size("20MB").unwrap(), 20_000_000);
        assert_eq!(parse_size("20MiB").unwrap(), 20 * MIB);
        assert_eq!(parse_size("1.5GiB").unwrap(), 3 * GIB / 2);
        assert_eq!(parse_size(" 256 MiB ").unwrap(), 256 * MIB);
    }

    #[test]
    fn rejects_garbage() {
        assert!(parse_size("").is_err());
        assert!(parse_size("MB").is_err());
        assert!(parse_size("12XB").unwrap_err().contains("unknown size suffix"));
        assert!(parse_size("1.2.3").is_err());
        assert!(parse_size(".").is_err());
        assert!(parse_size("-5").is_err());
        assert!(parse_size("1e30").unwrap_err().contains("unknown size suffix"));
    }

    #[test]
    fn sizes_are_whole_bytes_read_exactly() {
        assert_eq!(parse_size("1.1MB").unwrap(), 1_100_000);
        assert_eq!(parse_size("0.5k").unwrap(), 512);
        assert_eq!(parse_size(".5KiB").unwrap(), 512);
        assert_eq!(parse_size("4096.000").unwrap(), 4096);
        assert!(parse_size("1.5").unwrap_err().contains("not a whole number of bytes"));
        assert!(parse_size("0.0001KiB").unwrap_err().contains("whole number"));
        assert_eq!(parse_size("18446744073709551615").unwrap(), u64::MAX);
        assert!(parse_size("18446744073709551616").unwrap_err().contains("out of range"));
        assert!(parse_size("99999999999999999999999999TiB").unwrap_err().contains("out of range"));
        assert!(parse_size(&"9".repeat(100)).unwrap_err().contains("out of range"));
    }

    #[test]
    fn formats_sizes() {
        assert_eq!(format_size(18 * MIB), "18.0 MiB");
        assert_eq!(format_size(100), "100 B");
    }
}
