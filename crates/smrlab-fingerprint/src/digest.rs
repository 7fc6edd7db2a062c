//! A SHA-256 digest built from labelled parts, each part's label and length written before it
//! so that no two different lists of parts read as the same bytes. Not here: what the parts are.

use sha2::{Digest as _, Sha256};

pub struct Digest(Sha256);

impl Digest {
    /// A digest for `purpose` (written first: digests made for different purposes differ).
    pub fn new(purpose: &str) -> Self {
        let mut digest = Digest(Sha256::new());
        digest.add("purpose", purpose.as_bytes());
        digest
    }

    /// Adds `bytes` under `label`.
    pub fn add(&mut self, label: &str, bytes: &[u8]) {
        for piece in [label.as_bytes(), bytes] {
            self.0.update((piece.len() as u64).to_le_bytes());
            self.0.update(piece);
        }
    }

    /// The first 16 bytes of the digest, as 32 lowercase hex digits.
    pub fn hex(self) -> String {
        self.0.finalize()[..16].iter().map(|b| format!("{b:02x}")).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Digest;

    #[test]
    fn parts_are_kept_apart_and_order_counts() {
        let of = |parts: &[(&str, &str)]| {
            let mut d = Digest::new("t");
            parts.iter().for_each(|(l, b)| d.add(l, b.as_bytes()));
            d.hex()
        };
        assert_eq!(of(&[("a", "bc")]), of(&[("a", "bc")]));
        assert_ne!(of(&[("a", "bc")]), of(&[("ab", "c")]));
        assert_ne!(of(&[("a", "b"), ("c", "d")]), of(&[("c", "d"), ("a", "b")]));
        assert_eq!(of(&[]).len(), 32);
    }
}
