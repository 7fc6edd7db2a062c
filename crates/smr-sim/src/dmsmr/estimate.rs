//! `smrlab trace smr-estimate`: the write-amplification estimate of §III-A of the PORE paper,
//! computed from a trace alone, without timing.
//!
//! Only writes count. A virtual FIFO buffer of 1/256 of the written range (`buffer` changes it;
//! the range measured as `dmsmr` measures it, the capacity of the bands the trace writes, so the
//! estimate and the simulation size the buffer alike) fills with written blocks (a block already
//! in it is updated in place); each time it is full, the sizes of all bands it covers are summed and it is
//! emptied. The estimate is R_wa = total covered band bytes / total bytes that passed through the
//! buffer. A final, partly filled buffer is flushed the same way at the end of the trace (the
//! paper does not say; without it short traces would under-count). Bands are laid out as for
//! `dmsmr` (uniform 17–36 MB by default, seeded), and R_wa is `dmsmr`'s own definition.

use serde::{Deserialize, Serialize};
use smr_core::units::BLOCK_4K;
use smr_core::{Op, Params, Request};
use smr_trace::{Footprint, TraceError};

use super::{band_layout, buffer_bytes, written_range, FifoBuffer, BAND_MAX, BAND_MIN, BAND_SIZE, BUFFER, R_WA};
use smr_kernel::params::{ParamList, ParamReader};
use smr_kernel::{BandCursor, SimError};

/// The parameters the estimate reads: the buffer and the band layout, as `dmsmr` declares them.
pub const PARAMS: ParamList = &[&[BUFFER, BAND_MIN, BAND_MAX, BAND_SIZE]];

/// What the estimate found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SmrEstimate {
    /// The capacity of the bands the trace writes: what the buffer is a share of.
    pub written_range_bytes: u64,
    /// The union of the 4 KiB blocks the trace writes.
    pub written_bytes: u64,
    pub buffer_bytes: u64,
    /// Times the virtual buffer was emptied (including the final flush).
    pub fills: u64,
    pub bands_covered: u64,
    pub band_bytes: u64,
    pub buffered_bytes: u64,
    /// `None` when no block passed through the buffer (a trace without writes).
    pub r_wa: Option<f64>,
}

/// Runs the estimate over `requests`; reads `buffer`, `band_min`/`band_max`/`band_size`.
pub fn estimate(
    requests: impl IntoIterator<Item = Result<Request, TraceError>>,
    params: &mut Params,
    footprint: Footprint,
    seed: u64,
) -> Result<SmrEstimate, SimError> {
    let mut reader = ParamReader::new(params, PARAMS);
    let layout = band_layout(&mut reader, footprint.max_end, seed)?;
    let buffer_bytes = buffer_bytes(&mut reader, &layout, &footprint)?;
    params.finish()?;
    let mut fifo = FifoBuffer::new(buffer_bytes / BLOCK_4K, layout.count());
    let written_range_bytes = written_range(&layout, &footprint);
    let mut out =
        SmrEstimate { written_range_bytes, written_bytes: footprint.written_bytes, buffer_bytes, ..Default::default() };
    let flush = |fifo: &mut FifoBuffer, out: &mut SmrEstimate| {
        for band in fifo.bands() {
            let r = layout.band(band);
            out.band_bytes += r.end - r.start;
            out.bands_covered += 1;
        }
        out.buffered_bytes += fifo.len() * BLOCK_4K;
        out.fills += 1;
        fifo.clear();
    };
    let mut bands = BandCursor::default();
    for (index, req) in (1..).zip(requests) {
        let req = req?;
        if req.op != Op::Write {
            continue;
        }
        if req.offset.checked_add(req.len).is_none_or(|end| end > layout.end()) {
            return Err(SimError::OutOfRange { index, offset: req.offset, len: req.len, capacity: layout.end() });
        }
        for block in req.blocks(BLOCK_4K) {
            fifo.insert(block, bands.band_of(&layout, block * BLOCK_4K));
            if fifo.is_full() {
                flush(&mut fifo, &mut out);
            }
        }
    }
    if !fifo.is_empty() {
        flush(&mut fifo, &mut out);
    }
    out.r_wa = R_WA.of(out.band_bytes, out.buffered_bytes);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(block: u64) -> Result<Request, TraceError> {
        Ok(Request::new(0, Op::Write, block * 4096, 4096))
    }

    #[test]
    fn hand_worked_estimate() {
        // 1 MiB bands; 4-block buffer. Fill 1: blocks 0, 1 (band 0), 256 (band 1), 0 again (in
        // place), 512 (band 2) → 3 bands = 3 MiB for 4 blocks. Then 1, 2 (band 0) flushed at the end:
        // 1 band for 2 blocks. R_wa = 4 MiB / 6 blocks.
        let fp = Footprint::dense(1 << 30, 1 << 30, 1 << 30);
        let mut p = Params::parse(&["band_size=1MiB", "buffer=4blocks"]).unwrap();
        let e = estimate([w(0), w(1), w(256), w(0), w(512), w(1), w(2)], &mut p, fp, 0).unwrap();
        assert_eq!(e.fills, 2);
        assert_eq!(e.bands_covered, 4);
        assert_eq!(e.band_bytes, 4 << 20);
        assert_eq!(e.buffered_bytes, 6 * 4096);
        assert_eq!(e.r_wa, Some((4u64 << 20) as f64 / (6.0 * 4096.0)));
    }

    #[test]
    fn reads_are_ignored_and_unknown_params_rejected() {
        let fp = Footprint::dense(1 << 20, 1 << 20, 1 << 20);
        let mut p = Params::parse(&["band_size=1MiB"]).unwrap();
        let e = estimate([Ok(Request::new(0, Op::Read, 0, 4096))], &mut p, fp.clone(), 0).unwrap();
        assert_eq!((e.fills, e.r_wa), (0, None));
        let mut p = Params::parse(&["bnd_size=1MiB"]).unwrap();
        assert!(estimate(std::iter::empty(), &mut p, fp, 0).unwrap_err().to_string().contains("bnd_size"));
    }
}
