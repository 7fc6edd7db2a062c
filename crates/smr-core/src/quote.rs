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
    quote_within(text, QUOTE_MAX)
}

/// `quote` showing at most `most` characters (a message that quotes a list, say).
pub fn quote_within(text: impl AsRef<[u8]>, most: usize) -> String {
    let bytes = text.as_ref();
    let mut out = String::from("'");
    let mut shown = 0;
    for (index, &byte) in bytes.iter().enumerate() {
        let piece = if byte == b' ' || byte.is_ascii_graphic() && byte != b'\'' && byte != b'\\' {
            (byte as char).to_string()
        } else {
            format!("\\x{byte:02x}")
        };
        if shown + piece.len() > most {
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

    #[test]
    fn a_longer_quote_shows_more_and_counts_what_it_leaves_out() {
        let text = "y".repeat(300);
        assert_eq!(quote_within(&text, 200), format!("'{}'... (100 more bytes)", "y".repeat(200)));
        assert_eq!(quote_within("\x00a", 4), "'\\x00'... (1 more bytes)");
    }
}
