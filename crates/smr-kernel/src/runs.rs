//! Coalescing pieces into runs: consecutive pieces that also lie side by side where they are
//! (same device or area, each starting where the last ended) become one media I/O. Every system
//! that moves blocks in runs (a disk's reads from buffer and bands, a cache's write-backs and
//! fetches, a log's reads) does it here; `coalesce_range` serves a host request whose bytes
//! need not start or end on a piece boundary, so media I/O is timed at the request's own bytes
//! while pieces stay the bookkeeping grain.

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

/// Reads (or writes) host bytes `range` kept in pieces of `piece` bytes, each placed by
/// `place(piece number) -> (area, byte offset of the piece's first byte)`: pieces are coalesced
/// into runs as `coalesce` does, and each run is trimmed to `range`, so `emit(area, offset,
/// bytes)` moves exactly the requested bytes.
#[inline]
pub fn coalesce_range<A: Copy + PartialEq, E>(
    range: std::ops::Range<u64>,
    piece: u64,
    place: impl FnMut(u64) -> (A, u64),
    mut emit: impl FnMut(A, u64, u64) -> Result<(), E>,
) -> Result<(), E> {
    if range.is_empty() {
        return Ok(());
    }
    let pieces = range.start / piece..range.end.div_ceil(piece);
    // The host address where the next run begins.
    let mut run_start = pieces.start * piece;
    coalesce(pieces.map(place), piece, |area, offset, len| {
        let (from, to) = (run_start.max(range.start), (run_start + len).min(range.end));
        let trimmed = (offset + (from - run_start), to - from);
        run_start += len;
        emit(area, trimmed.0, trimmed.1)
    })
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

    #[test]
    fn ranges_are_trimmed_to_the_requested_bytes() {
        // Pieces of 10 bytes; pieces 2 and 3 lie in area 'b', the others side by side in 'a'.
        let place = |p: u64| if (2..4).contains(&p) { ('b', 1000 + p * 10) } else { ('a', p * 10) };
        let mut runs = Vec::new();
        coalesce_range(5..47, 10, place, |area, offset, len| -> Result<(), ()> {
            runs.push((area, offset, len));
            Ok(())
        })
        .unwrap();
        assert_eq!(runs, [('a', 5, 15), ('b', 1020, 20), ('a', 40, 7)]);
        assert_eq!(runs.iter().map(|r| r.2).sum::<u64>(), 42, "exactly the requested bytes");
        assert_eq!(coalesce_range(7..7, 10, place, |_, _, _| Err("never called")), Ok(()));
    }
}
