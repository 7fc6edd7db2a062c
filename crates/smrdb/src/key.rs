//! Internal keys: a user key with the sequence number of the write that made this version and
//! whether it is a value or a tombstone. Versions of one user key sort newest first, so the
//! first entry at or after `(key, snapshot)` is the version a reader at `snapshot` sees.

use std::cmp::Ordering;

/// Sequence numbers take the upper 56 bits of a tag; this is the largest.
pub const MAX_SEQUENCE: u64 = (1 << 56) - 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Deletion = 0,
    Value = 1,
}

/// `sequence << 8 | kind`: one integer per version, as stored after each key.
pub fn tag(sequence: u64, kind: Kind) -> u64 {
    (sequence << 8) | kind as u64
}

pub fn sequence_of(tag: u64) -> u64 {
    tag >> 8
}

/// The kind of a stored tag; `None` for a byte that names no kind (damage).
pub fn kind_of(tag: u64) -> Option<Kind> {
    match tag & 0xFF {
        0 => Some(Kind::Deletion),
        1 => Some(Kind::Value),
        _ => None,
    }
}

/// Internal-key order: user key ascending, then tag descending (newest version first).
pub fn compare(a_key: &[u8], a_tag: u64, b_key: &[u8], b_tag: u64) -> Ordering {
    a_key.cmp(b_key).then(b_tag.cmp(&a_tag))
}

/// What a read found for a key: the newest version at or below its snapshot.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    Value(Vec<u8>),
    Deleted,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_sort_newest_first_within_a_key() {
        let (old, new) = (tag(5, Kind::Value), tag(9, Kind::Deletion));
        assert_eq!(compare(b"k", new, b"k", old), Ordering::Less);
        assert_eq!(compare(b"a", old, b"b", new), Ordering::Less);
        assert_eq!(
            compare(b"k", tag(MAX_SEQUENCE, Kind::Value), b"k", new),
            Ordering::Less,
            "a snapshot probe sorts before the versions it sees"
        );
        assert_eq!((sequence_of(new), kind_of(new)), (9, Some(Kind::Deletion)));
        assert_eq!(kind_of(7 << 8 | 5), None);
    }
}
