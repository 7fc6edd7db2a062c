//! Equi-depth histograms of a band's key space by bytes (§3.2.3): the band's keys cut into
//! sub-ranges holding about equal bytes of data, within a metadata budget (4 KiB by default).
//! Built from the table's index (each data block's last key and length), as the thesis reuses
//! the index, so bucket bounds fall on block boundaries. They estimate how many of a band's
//! bytes lie in a key range, which the SOC scheme's sequentiality metric needs.

use crate::util::coding::{put_bytes, put_varint, varint_len, Cursor};

/// A bucket holds the keys above the previous bucket's `upper` (for the first, from the
/// table's smallest key) up to and including its own `upper`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bucket {
    pub upper: Vec<u8>,
    pub bytes: u64,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Histogram {
    pub buckets: Vec<Bucket>,
}

impl Histogram {
    /// From `(last key, bytes)` of each data block in key order, in at most `budget` encoded
    /// bytes.
    pub fn from_blocks(blocks: &[(Vec<u8>, u64)], budget: usize) -> Histogram {
        let total: u64 = blocks.iter().map(|(_, b)| b).sum();
        let mean_key = blocks.iter().map(|(k, _)| k.len()).sum::<usize>() / blocks.len().max(1);
        let mut want = (budget / (mean_key + 12)).clamp(1, blocks.len().max(1));
        loop {
            let h = Self::cut(blocks, total, want);
            if h.encoded_len() <= budget || want == 1 {
                return h;
            }
            want = want * 3 / 4;
        }
    }

    fn cut(blocks: &[(Vec<u8>, u64)], total: u64, buckets: usize) -> Histogram {
        let depth = total.div_ceil(buckets as u64).max(1);
        let mut out = Vec::with_capacity(buckets);
        let mut bytes = 0;
        for (i, (key, b)) in blocks.iter().enumerate() {
            bytes += b;
            if bytes >= depth || i + 1 == blocks.len() {
                out.push(Bucket { upper: key.clone(), bytes });
                bytes = 0;
            }
        }
        Histogram { buckets: out }
    }

    pub fn total_bytes(&self) -> u64 {
        self.buckets.iter().map(|b| b.bytes).sum()
    }

    /// Estimated bytes in `[lo, hi]`: the buckets whose range meets it, counted whole (so the
    /// estimate errs by at most the two buckets at its ends). `smallest` is the table's first key.
    pub fn bytes_in(&self, smallest: &[u8], lo: &[u8], hi: &[u8]) -> u64 {
        // First bucket whose upper bound reaches lo.
        let first = self.buckets.partition_point(|b| b.upper.as_slice() < lo);
        let mut bytes = 0;
        for (i, b) in self.buckets.iter().enumerate().skip(first) {
            let lower = if i == 0 { smallest } else { self.buckets[i - 1].upper.as_slice() };
            if lower > hi {
                break;
            }
            bytes += b.bytes;
        }
        bytes
    }

    /// The buckets with their lower bounds: `(lower, upper, bytes)`.
    pub fn ranges<'a>(&'a self, smallest: &'a [u8]) -> impl Iterator<Item = (&'a [u8], &'a [u8], u64)> + 'a {
        self.buckets.iter().enumerate().map(move |(i, b)| {
            let lower = if i == 0 { smallest } else { self.buckets[i - 1].upper.as_slice() };
            (lower, b.upper.as_slice(), b.bytes)
        })
    }

    pub fn encoded_len(&self) -> usize {
        varint_len(self.buckets.len() as u64)
            + self
                .buckets
                .iter()
                .map(|b| varint_len(b.upper.len() as u64) + b.upper.len() + varint_len(b.bytes))
                .sum::<usize>()
    }

    pub fn encode(&self, out: &mut Vec<u8>) {
        put_varint(out, self.buckets.len() as u64);
        for b in &self.buckets {
            put_bytes(out, &b.upper);
            put_varint(out, b.bytes);
        }
    }

    pub fn decode(cur: &mut Cursor<'_>) -> Option<Histogram> {
        let n = cur.varint()?;
        let mut buckets = Vec::new();
        for _ in 0..n {
            let upper = cur.bytes()?.to_vec();
            buckets.push(Bucket { upper, bytes: cur.varint()? });
        }
        Some(Histogram { buckets })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks(n: u32, bytes: u64) -> Vec<(Vec<u8>, u64)> {
        (0..n).map(|i| (format!("key{:06}", i * 10).into_bytes(), bytes)).collect()
    }

    #[test]
    fn buckets_hold_about_equal_bytes_within_the_budget() {
        let b = blocks(1000, 4096);
        let h = Histogram::from_blocks(&b, 4096);
        assert!(h.encoded_len() <= 4096, "{}", h.encoded_len());
        assert!(h.buckets.len() > 100, "a 4 KiB budget holds many 9-byte bounds: {}", h.buckets.len());
        assert_eq!(h.total_bytes(), 1000 * 4096);
        let depth = h.buckets[0].bytes;
        assert!(h.buckets[..h.buckets.len() - 1].iter().all(|x| x.bytes == depth));
        let mut out = Vec::new();
        h.encode(&mut out);
        assert_eq!(out.len(), h.encoded_len());
        assert_eq!(Histogram::decode(&mut Cursor::new(&out)), Some(h.clone()));
        let tiny = Histogram::from_blocks(&b, 64);
        assert!(tiny.encoded_len() <= 64 && !tiny.buckets.is_empty());
    }

    #[test]
    fn bytes_in_a_range_follow_where_the_data_is() {
        // Dense data in key000000..key004990 (500 blocks), one block far away at "zz".
        let mut b = blocks(500, 4096);
        b.push((b"zz".to_vec(), 4096));
        let h = Histogram::from_blocks(&b, 1024);
        let all = h.total_bytes();
        let sparse_gap = h.bytes_in(b"key000000", b"key5", b"zy");
        assert!(sparse_gap <= all / 10, "the empty sub-range gets only the last bucket: {sparse_gap} of {all}");
        let dense = h.bytes_in(b"key000000", b"key000000", b"key002500");
        assert!(dense > all / 3 && dense < 2 * all / 3, "{dense} of {all}");
        assert_eq!(h.bytes_in(b"key000000", b"a", b"b"), 0);
    }
}
