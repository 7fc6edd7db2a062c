//! What a key holds, and how the server keeps it in the store: the value of the store's record
//! under the same key.
//!
//! A string without a time to live is kept as its own bytes, so a store written by other tools
//! (`smrlab kv put`, an embedded YCSB load) is served as strings, and the server's strings read
//! back there unchanged. Anything else starts with a header: the marker byte 0xFF, the format
//! (1), the type (`s` string, `h` hash), flags (bit 0: a deadline follows, as 8 bytes little
//! endian, milliseconds since the Unix epoch), then the payload: a string's bytes, or a hash's
//! field count and its fields and values, each as a 4-byte little-endian length and its bytes,
//! in the order they were first set (as Redis keeps a small hash). A string that itself starts
//! with 0xFF is kept behind a header too, so it is never mistaken for one. A value that starts
//! with 0xFF but is not a well-formed header (written by another tool) is read as the string it
//! is.
//!
//! A hash is kept whole in one record and each change rewrites it: suited to records of tens
//! of fields (YCSB's are ten), not to hashes of millions.
//!
//! Not here: the commands (`commands`), reading and writing records (`keyspace`).

const MARKER: u8 = 0xFF;
const FORMAT: u8 = 1;
const STRING: u8 = b's';
const HASH: u8 = b'h';
const HAS_DEADLINE: u8 = 1;
const HEADER: usize = 4;

/// A hash's fields and values, in the order the fields were first set.
pub type Fields = Vec<(Vec<u8>, Vec<u8>)>;

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    String(Vec<u8>),
    Hash(Fields),
}

impl Value {
    /// Its name as TYPE and SCAN's TYPE filter give it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::String(_) => "string",
            Value::Hash(_) => "hash",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    pub value: Value,
    /// When the key expires: milliseconds since the Unix epoch.
    pub deadline_ms: Option<u64>,
}

impl Record {
    pub fn string(bytes: Vec<u8>) -> Record {
        Record { value: Value::String(bytes), deadline_ms: None }
    }

    pub fn is_expired(&self, now_ms: u64) -> bool {
        self.deadline_ms.is_some_and(|d| d <= now_ms)
    }

    pub fn encode(&self) -> Vec<u8> {
        if let (Value::String(s), None) = (&self.value, self.deadline_ms) {
            if !needs_header(s) {
                return s.clone();
            }
        }
        let (kind, payload_len) = match &self.value {
            Value::String(s) => (STRING, s.len()),
            Value::Hash(fields) => (HASH, 4 + fields.iter().map(|(f, v)| 8 + f.len() + v.len()).sum::<usize>()),
        };
        let mut out = Vec::with_capacity(HEADER + 8 + payload_len);
        out.extend_from_slice(&[MARKER, FORMAT, kind, if self.deadline_ms.is_some() { HAS_DEADLINE } else { 0 }]);
        if let Some(d) = self.deadline_ms {
            out.extend_from_slice(&d.to_le_bytes());
        }
        match &self.value {
            Value::String(s) => out.extend_from_slice(s),
            Value::Hash(fields) => {
                put_len(&mut out, fields.len());
                for (f, v) in fields {
                    put_len(&mut out, f.len());
                    out.extend_from_slice(f);
                    put_len(&mut out, v.len());
                    out.extend_from_slice(v);
                }
            }
        }
        out
    }

    /// The record a stored value holds.
    pub fn decode(stored: Vec<u8>) -> Record {
        if !needs_header(&stored) {
            return Record::string(stored);
        }
        decode_header(&stored).unwrap_or_else(|| Record::string(stored))
    }
}

/// Whether a string kept as these bytes would be taken for a header.
pub fn needs_header(bytes: &[u8]) -> bool {
    bytes.first() == Some(&MARKER)
}

fn put_len(out: &mut Vec<u8>, n: usize) {
    // Keys, fields and values are far below 4 GiB: the protocol's bulk limit is smaller.
    out.extend_from_slice(&(n as u32).to_le_bytes());
}

/// Reads a header and its payload; `None` unless every byte is accounted for.
fn decode_header(stored: &[u8]) -> Option<Record> {
    let [MARKER, FORMAT, kind, flags] = *stored.get(..HEADER)? else { return None };
    if flags & !HAS_DEADLINE != 0 {
        return None;
    }
    let mut rest = &stored[HEADER..];
    let deadline_ms = if flags & HAS_DEADLINE != 0 {
        let (d, after) = rest.split_first_chunk::<8>()?;
        rest = after;
        Some(u64::from_le_bytes(*d))
    } else {
        None
    };
    let value = match kind {
        STRING => Value::String(rest.to_vec()),
        HASH => {
            let count = take_len(&mut rest)?;
            // Each field takes at least its two lengths: a count beyond that is not a hash.
            if count > rest.len() / 8 {
                return None;
            }
            let mut fields = Vec::with_capacity(count);
            for _ in 0..count {
                let f = take_bytes(&mut rest)?;
                let v = take_bytes(&mut rest)?;
                fields.push((f, v));
            }
            if !rest.is_empty() {
                return None;
            }
            Value::Hash(fields)
        }
        _ => return None,
    };
    Some(Record { value, deadline_ms })
}

fn take_len(rest: &mut &[u8]) -> Option<usize> {
    let (n, after) = rest.split_first_chunk::<4>()?;
    *rest = after;
    Some(u32::from_le_bytes(*n) as usize)
}

fn take_bytes(rest: &mut &[u8]) -> Option<Vec<u8>> {
    let n = take_len(rest)?;
    let bytes = rest.get(..n)?.to_vec();
    *rest = &rest[n..];
    Some(bytes)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn plain_strings_are_kept_as_their_bytes() {
        assert_eq!(Record::string(b"apple".to_vec()).encode(), b"apple");
        assert_eq!(Record::string(Vec::new()).encode(), b"");
        let marked = Record::string(vec![0xFF, b'x']).encode();
        assert_eq!(marked, [0xFF, 1, b's', 0, 0xFF, b'x']);
        assert_eq!(Record::decode(marked), Record::string(vec![0xFF, b'x']));
    }

    #[test]
    fn a_value_from_another_tool_that_only_looks_like_a_header_is_a_string() {
        for stored in [vec![0xFF], vec![0xFF, 1, b'h', 0, 9, 0, 0, 0], vec![0xFF, 2, b's', 0], vec![0xFF, 1, b's', 4]] {
            assert_eq!(Record::decode(stored.clone()), Record::string(stored));
        }
    }

    fn records() -> impl Strategy<Value = Record> {
        let bytes = || proptest::collection::vec(any::<u8>(), 0..20);
        let value = prop_oneof![
            bytes().prop_map(Value::String),
            proptest::collection::vec((bytes(), bytes()), 0..6).prop_map(Value::Hash)
        ];
        (value, proptest::option::of(any::<u64>())).prop_map(|(value, deadline_ms)| Record { value, deadline_ms })
    }

    proptest! {
        #[test]
        fn records_round_trip(record in records()) {
            prop_assert_eq!(Record::decode(record.encode()), record);
        }

        #[test]
        fn any_stored_bytes_decode_without_panicking(stored in proptest::collection::vec(any::<u8>(), 0..64)) {
            let record = Record::decode(stored.clone());
            if let Value::String(s) = &record.value {
                if !needs_header(&stored) {
                    prop_assert_eq!(s, &stored);
                }
            }
        }
    }
}
