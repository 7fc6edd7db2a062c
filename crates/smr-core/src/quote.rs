//! Quoting text a user gave (a trace field, a parameter value) in an error message: at most
//! `QUOTE_MAX` characters, control and non-ASCII bytes escaped, so a 10 MB line or a field of raw
//! NUL and BEL bytes gives a short message that is safe to print on a terminal.
//!
//! Not here: the messages themselves (each reader and parser words its own).

/// The most characters of the user's text a message shows.
pub const QUOTE_MAX: usize = 80;

/// `text` in single quotes, printable ASCII kept and every other byte written `\xNN`, cut after
/// `QUOTE_MAX` characters with a note of how many bytes were left out.
pub fn quote(text: impl AsRef<[u8]>) -> String {
    let bytes = text.as_ref();
    let mut out = String::from("'");
    let mut shown = 0;
    for (index, &byte) in bytes.iter().enumerate() {
        let piece = if byte == b' ' || byte.is_ascii_graphic() && byte != b'\'' && byte != b'\\' {
            (byte as char).to_string()
        } else {
            format!("\\x{byte:02x}")
        };
        if shown + piece.len() > QUOTE_MAX {
            out.push_str(&format!("'... ({} more bytes)", bytes.len() - index));
            return out;
        }
        shown += piece.len();
        out.push_str(&piece);
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_printable_text_is_kept() {
        assert_eq!(quote("Erase"), "'Erase'");
        assert_eq!(quote(b"a b"), "'a b'");
    }

    #[test]
    fn control_bytes_quotes_and_non_ascii_are_escaped() {
        assert_eq!(quote(b"a\x00\x07'\\\xff"), "'a\\x00\\x07\\x27\\x5c\\xff'");
    }

    #[test]
    fn long_text_is_cut_and_says_how_much_is_left_out() {
        let long = "x".repeat(10_000_000);
        let q = quote(&long);
        assert!(q.len() < QUOTE_MAX + 40, "{}", q.len());
        assert!(q.ends_with(&format!("({} more bytes)", 10_000_000 - QUOTE_MAX)), "{q}");
        assert!(quote(vec![0u8; 1000]).len() < QUOTE_MAX + 40);
    }
}
