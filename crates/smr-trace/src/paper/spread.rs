//! FluidSMR's `spread` placement: where a Table 1 trace's written data lies. The synthesizer puts
//! its core at the start of the address range, and the layout maps the lowest user zones to CMR,
//! so the hot data would sit in CMR and barely reach the SMR area; the MSR traces' hot data is not
//! at LBA 0. So the range is cut into chunks of the core's size over its hot ranges, the whole
//! chunks are shuffled by a permutation seeded with the trace's seed (numpy's, so the traces first
//! made with numpy stay the same; the last, partial chunk stays last), and each request moves with
//! the chunk of its first byte. Table 1's maximum offset is pinned: a request ending past it is
//! folded back into the range, and the request ending highest is moved to end there (the
//! partition's size is then Table 1's). Not here: the recipe (`fluid_table1`).

use super::numpy_random::NumpyRng;

const BLOCK: u64 = 4096;

/// `offsets` (of requests of `lengths`) moved by the `spread` rule over `0..end`, chunks of
/// `chunk` bytes (positive) shuffled with `seed`: whole chunks swapped by the permutation; a
/// request ending past `end` folded back (its offset modulo the room left for it, in whole
/// blocks); the request ending highest (the first such) moved to end at `end`.
pub fn spread(offsets: &mut [u64], lengths: &[u64], chunk: u64, end: u64, seed: u64) {
    let whole = end / chunk;
    let order = NumpyRng::new(seed).permutation(whole);
    for (offset, &len) in offsets.iter_mut().zip(lengths) {
        let index = *offset / chunk;
        if index < whole {
            *offset = order[index as usize] * chunk + *offset % chunk;
        }
        if offset.wrapping_add(len) > end {
            let room = end - len.min(end);
            *offset = *offset % room.max(BLOCK) / BLOCK * BLOCK;
        }
    }
    let mut top: Option<(usize, u64)> = None;
    for (i, (&offset, &len)) in offsets.iter().zip(lengths).enumerate() {
        let reach = offset.wrapping_add(len);
        if top.is_none_or(|(_, highest)| reach > highest) {
            top = Some((i, reach));
        }
    }
    if let Some((top, _)) = top {
        offsets[top] = end - lengths[top].min(end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_keeps_every_request_in_the_range_and_pins_its_end() {
        let chunk = 64 * BLOCK;
        let end = 10 * chunk + 3 * BLOCK;
        let mut offsets: Vec<u64> = (0..500).map(|i| (i * 7919 * BLOCK) % (end + 5 * chunk)).collect();
        let lengths: Vec<u64> = (0..500).map(|i| BLOCK * (1 + i % 3)).collect();
        let before = offsets.clone();
        spread(&mut offsets, &lengths, chunk, end, 3);
        assert!(offsets.iter().zip(&lengths).all(|(o, l)| o + l <= end), "inside the range");
        assert_eq!(offsets.iter().zip(&lengths).map(|(o, l)| o + l).max(), Some(end), "ends at the range's end");
        let inside: Vec<usize> = (0..before.len()).filter(|&i| before[i] < end / chunk * chunk).collect();
        let kept = inside.iter().filter(|&&i| before[i] % chunk == offsets[i] % chunk).count();
        assert!(
            kept + 1 >= inside.len(),
            "a request in a whole chunk keeps its place in it (but the one pinned to the end)"
        );
    }
}
