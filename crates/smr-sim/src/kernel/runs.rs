//! Coalescing pieces into runs: consecutive pieces that also lie side by side where they are
//! (same device or area, each starting where the last ended) become one media I/O. Every system
//! that moves blocks in runs (a disk's reads from buffer and bands, a cache's write-backs and
//! fetches, a log's reads) does it here.

/// Walks `pieces` — each `(area, offset)` of `piece` bytes, in order — and calls
/// `emit(area, offset, bytes)` once per run of pieces that continue one another in the same
/// area. Stops at the first error `emit` returns.
#[inline]
pub fn coalesce<A: Copy + PartialEq, E>(
    pieces: impl IntoIterator<Item = (A, u64)>,
    piece: u64,
    mut emit: impl FnMut(A, u64, u64) -> Result<(), E>,
) -> Result<(), E> {
    let mut pieces = pieces.into_iter();
    let Some((mut area, mut offset)) = pieces.next() else { return Ok(()) };
    let mut len = piece;
    for (next_area, next_offset) in pieces {
        if next_area == area && next_offset == offset + len {
            len += piece;
        } else {
            emit(area, offset, len)?;
            (area, offset, len) = (next_area, next_offset, piece);
        }
    }
    emit(area, offset, len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_merge_only_when_they_continue_in_the_same_area() {
        let mut runs = Vec::new();
        let pieces = [('a', 0), ('a', 10), ('b', 20), ('b', 30), ('b', 50), ('a', 60)];
        coalesce(pieces, 10, |area, offset, len| -> Result<(), ()> {
            runs.push((area, offset, len));
            Ok(())
        })
        .unwrap();
        assert_eq!(runs, [('a', 0, 20), ('b', 20, 20), ('b', 50, 10), ('a', 60, 10)]);
        assert_eq!(coalesce(std::iter::empty::<((), u64)>(), 10, |_, _, _| Err("never called")), Ok(()));
    }
}
