//! Integer encodings of the on-band formats: fixed-width little-endian and LEB128 varints, and a
//! cursor that decodes them from a byte slice, reporting truncation instead of panicking (every
//! byte it reads may come from a damaged band).

pub fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

pub fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Bytes `put_varint` takes for `v`.
pub fn varint_len(v: u64) -> usize {
    (64 - (v | 1).leading_zeros() as usize).div_ceil(7)
}

/// A length-prefixed byte string.
pub fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// Reads fields front to back; every getter returns `None` once the input runs out or a
/// varint is malformed, so a damaged record is reported, never read past.
pub struct Cursor<'a> {
    rest: &'a [u8],
}

impl<'a> Cursor<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Cursor { rest: bytes }
    }

    pub fn is_empty(&self) -> bool {
        self.rest.is_empty()
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.rest.len()
    }

    pub fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if n > self.rest.len() {
            return None;
        }
        let (head, tail) = self.rest.split_at(n);
        self.rest = tail;
        Some(head)
    }

    pub fn u8(&mut self) -> Option<u8> {
        self.take(1).map(|b| b[0])
    }

    pub fn u32(&mut self) -> Option<u32> {
        self.take(4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")))
    }

    pub fn u64(&mut self) -> Option<u64> {
        self.take(8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
    }

    pub fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.u8()?;
            value |= ((byte & 0x7F) as u64) << shift;
            if byte & 0x80 == 0 {
                return Some(value);
            }
        }
        None
    }

    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.varint()?).ok()?;
        self.take(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn fields_read_back_as_written(a in any::<u64>(), b in any::<u32>(), c in any::<u64>(), s in proptest::collection::vec(any::<u8>(), 0..300)) {
            let mut out = Vec::new();
            put_varint(&mut out, a);
            prop_assert_eq!(out.len(), varint_len(a));
            put_u32(&mut out, b);
            put_u64(&mut out, c);
            put_bytes(&mut out, &s);
            let mut cur = Cursor::new(&out);
            prop_assert_eq!(cur.varint(), Some(a));
            prop_assert_eq!(cur.u32(), Some(b));
            prop_assert_eq!(cur.u64(), Some(c));
            prop_assert_eq!(cur.bytes(), Some(&s[..]));
            prop_assert!(cur.is_empty());
            // Every truncation is reported, never read past.
            for cut in 0..out.len() {
                let mut cur = Cursor::new(&out[..cut]);
                let whole = cur.varint().is_some() && cur.u32().is_some() && cur.u64().is_some() && cur.bytes().is_some();
                prop_assert!(!whole);
            }
        }
    }

    #[test]
    fn an_endless_varint_is_malformed() {
        assert_eq!(Cursor::new(&[0xFF; 11]).varint(), None);
    }
}
