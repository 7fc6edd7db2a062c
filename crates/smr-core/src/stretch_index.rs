//! Which of a list of consecutive ranges holds an address, in constant time: for ranges given by
//! their ascending starts (a drive's recording zones, a shingled disk's bands), a table gives
//! the range holding the first address of each stretch of `2^shift` addresses, a stretch no
//! longer than the shortest range. A stretch then meets at most two ranges, and an address's
//! range is its stretch's or the next: one comparison where a binary search over the starts
//! costs a mispredicted branch per level on every access.
//!
//! Not here: the starts themselves (the caller keeps them; the index only points into them).

#[derive(Clone, Debug, PartialEq)]
pub struct StretchIndex {
    /// Per stretch, the index of the range holding its first address.
    hint: Vec<u32>,
    shift: u32,
}

impl StretchIndex {
    /// The index over `starts` (ascending, the first 0, fewer than 2^32), none of whose ranges
    /// is shorter than `shortest` (at least 1). The last start may be an end sentinel.
    pub fn new(starts: &[u64], shortest: u64) -> Self {
        let shift = shortest.max(1).ilog2();
        let last = starts.last().copied().unwrap_or(0);
        // One walk over stretches and starts together (a search per stretch would cost
        // seconds for millions of bands).
        let mut range = 0usize;
        let hint = (0..=last >> shift)
            .map(|stretch| {
                while starts.get(range + 1).is_some_and(|&next| next <= stretch << shift) {
                    range += 1;
                }
                range as u32
            })
            .collect();
        StretchIndex { hint, shift }
    }

    /// The last range of `starts` (the list the index was built over) whose start is at or
    /// before `address`, as `starts.partition_point(|&s| s <= address) - 1` gives it.
    #[inline]
    pub fn find(&self, starts: &[u64], address: u64) -> usize {
        let mut range = self.hint[((address >> self.shift) as usize).min(self.hint.len() - 1)] as usize;
        // One step inside the ranges; past the last start, on to it.
        while starts.get(range + 1).is_some_and(|&next| next <= address) {
            range += 1;
        }
        range
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Agrees with a binary search over the starts, inside the ranges and past their end.
        #[test]
        fn finds_what_a_binary_search_finds(lengths in proptest::collection::vec(1u64..5_000, 1..60), probes in proptest::collection::vec(0u64..400_000, 1..200)) {
            let mut starts = vec![0u64];
            for len in &lengths {
                starts.push(starts.last().unwrap() + len);
            }
            let index = StretchIndex::new(&starts, *lengths.iter().min().unwrap());
            for address in probes {
                prop_assert_eq!(index.find(&starts, address), starts.partition_point(|&s| s <= address) - 1);
            }
        }
    }
}
