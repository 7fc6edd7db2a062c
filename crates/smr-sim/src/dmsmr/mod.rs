//! `dmsmr`: a drive-managed SMR disk as the PORE paper describes it (§II-A, §V-A): a persistent
//! write buffer (media cache) managed FIFO in front of shingled bands that can only be rewritten
//! whole.
//!
//! Writes go to the buffer; a write to a block already buffered updates it in place. When the
//! buffer is full, the band of the oldest buffered block is cleaned: the whole band is read, every
//! buffered block of that band is read from the buffer and merged in (and leaves the buffer), and
//! the whole band is written back. Reads go to the buffer for buffered blocks, to the band
//! otherwise. Write amplification R_wa = band bytes written / bytes evicted from the buffer.
//!
//! The cleaning's read of the buffer is §II-C's step (3), "reading all the blocks located in this
//! band from the write buffer", and §V-A's emulator keeps "the persistent write buffer and the
//! emulated SMR bands ... in the same CMR disk": the band's blocks are read where the log holds
//! them, which is wherever and whenever each arrived, so the read is one I/O per run of blocks
//! side by side in the log (in address order), each positioned on its own, as a host read of
//! the log is. (The authors' prototype, github.com/wcl14/smr-ssd-cache, reads each of the band's
//! buffered blocks with a request of its own, in queue order; a run of them is what a drive's
//! read-ahead serves after one positioning.)
//!
//! Where the buffer lives decides how its time combines with band time (Eq. 1): on the disk's
//! outer tracks (`buffer_on=disk`, the default) it shares the head with the bands and the times
//! add; on a built-in SSD (`buffer_on=ssd`) the buffer I/O of a cleaning overlaps the band I/O and
//! the longer of the two counts.
//!
//! Choices where the paper is silent, for timing only: the on-disk buffer is a circular log at
//! the start of the disk and bands follow it (physical = buffer size + logical offset); a block's
//! place in the log is its arrival number modulo the buffer size, so blocks written one after
//! another sit side by side and the disk streams them (PORE §II-C: writes to the buffer are
//! combined because they have close disk locations; see `Hdd`'s stream cache); a host write to
//! the buffer is one sequential write at its first block's place; a host read is one read per
//! run of blocks that lie side by side (in the bands, or in the log). Trims are accepted and cost
//! nothing. The default buffer is 1/256 of the trace's written range, measured as the paper
//! does (Table I): the capacity of the bands the trace writes (`BandLayout::range_bytes`).
//!
//! Where the model stands against a real drive-managed SMR disk (Skylight, Aghayev and
//! Desnoyers, FAST '15, who reverse-engineered the Seagate drive the default preset models):
//! - The persistent cache sits at the outer diameter, as here; their camera saw the head go
//!   there for writes to it. So reads of the data area and writes to the cache, interleaved,
//!   cost a head trip each way, here as on the drive: with a large buffer that is never cleaned,
//!   that travel is what makes SMR slower than a plain disk (2.3 times on a CloudPhysics trace
//!   with a 20 GiB buffer), not a modelling artefact.
//! - A write to the persistent cache is appended to its log and costs a write there, not a band
//!   rewrite, as here; band cleaning is where the amplification is.
//! - Reads of data partly in the cache and partly in its band are fragmented into pieces, each
//!   positioned on its own, as here (one read per run of blocks side by side where they lie).
//! - Not modelled: the drive's volatile write cache gathering writes before they reach the
//!   persistent cache (the papers' experiments disable it; `disk_write_cache` models a
//!   write-back cache over the whole disk) and its idle-time cleaning policy beyond
//!   `idle_clean`.
//!
//! Media I/O is timed at the request's own bytes (512-byte sectors); 4 KiB blocks are only the
//! buffer's bookkeeping grain.

mod buffer;
pub mod estimate;

use buffer::{FifoBuffer, Insert};

use smr_core::units::BLOCK_4K;
use smr_core::{Op, ParamError, Request};
use smr_media::FixedLatencyMedium;
use smr_trace::Footprint;

use smr_kernel::disk::{check_capacity, disk, DISK_PARAMS, MAX_TABLE_ENTRIES};
use smr_kernel::geometry::{band_notes, thousands, Scale, GEOMETRY_PARAMS};
use smr_kernel::metrics::{Counters, Exercise, Gauges, Metric, Ratio, Unit};
use smr_kernel::params::{ParamReader, NONE};
use smr_kernel::report::HOST_BYTES_WRITTEN;
use smr_kernel::runs::{coalesce, coalesce_range};
use smr_kernel::totals;
use smr_kernel::{
    BandCursor, BandLayout, Bands, BuildContext, ChannelId, IoCtx, Kind, ParamList, ParamSpec, SimError, System,
    SystemEntry,
};

pub const BUFFER: ParamSpec = ParamSpec::new(
    "buffer",
    Kind::Share { of: "the trace's written range (the capacity of the bands it writes)" },
    "1/256",
    "persistent write buffer (media cache) size",
);
pub const BUFFER_ON: ParamSpec = ParamSpec::new(
    "buffer_on",
    Kind::Choice(&["disk", "ssd"]),
    "disk",
    "where the buffer is: disk (outer tracks, times add) or ssd (built-in SSD, times overlap; Eq. 1)",
);
pub const BAND_MIN: ParamSpec = ParamSpec::new(
    "band_min",
    Kind::Size,
    "17MB",
    "smallest band (bands are uniformly random in [band_min, band_max], seeded)",
);
pub const BAND_MAX: ParamSpec = ParamSpec::new("band_max", Kind::Size, "36MB", "largest band");
pub const BAND_SIZE: ParamSpec =
    ParamSpec::new("band_size", Kind::Size, NONE, "one fixed band size instead of random sizes (e.g. 18MiB)");
pub const IDLE_CLEAN: ParamSpec = ParamSpec::new(
    "idle_clean",
    Kind::Bool,
    "false",
    "open loop: clean one band per idle quantum while the buffer is above idle_clean_above",
);
pub const IDLE_CLEAN_ABOVE: ParamSpec = ParamSpec::new("idle_clean_above", Kind::Fraction, "0.5", "buffer occupancy (fraction of its size) above which idle cleaning runs")
    .open("PORE replays closed loop and never idles; drive-managed disks clean in idle time (Aghayev et al., FAST 2015) from a level no paper states: half the buffer");

pub const PARAMS: ParamList = &[
    &DISK_PARAMS,
    &[BUFFER, BUFFER_ON, BAND_MIN, BAND_MAX, BAND_SIZE, IDLE_CLEAN, IDLE_CLEAN_ABOVE],
    &GEOMETRY_PARAMS,
];

pub const ENTRY: SystemEntry = SystemEntry::new(
    "dmsmr",
    "drive-managed SMR: FIFO persistent write buffer + whole-band read-modify-write (PORE §II)",
    PARAMS,
    |b| Ok(Box::new(Dmsmr::build(b)?)),
);

pub static BAND_CLEANINGS: Metric =
    Metric::new("band_cleanings", Unit::Count, "bands read, merged with their buffered blocks and rewritten whole");
pub static BAND_BYTES_READ: Metric = Metric::new("band_bytes_read", Unit::Bytes, "bytes read from bands by cleanings");
pub static BAND_BYTES_WRITTEN: Metric =
    Metric::new("band_bytes_written", Unit::Bytes, "bytes written to bands by cleanings");
pub static BUFFER_BYTES_WRITTEN: Metric = Metric::new(
    "buffer_bytes_written",
    Unit::Bytes,
    "bytes of the 4 KiB blocks host writes put in the persistent write buffer (its bookkeeping grain)",
);
pub static BUFFER_BYTES_READ: Metric =
    Metric::new("buffer_bytes_read", Unit::Bytes, "bytes read from the write buffer by cleanings");
pub static BUFFER_BYTES_EVICTED: Metric =
    Metric::new("buffer_bytes_evicted", Unit::Bytes, "bytes that left the write buffer for their bands");
pub static BUFFER_UPDATES: Metric =
    Metric::new("buffer_updates", Unit::Count, "4 KiB blocks written again while buffered (updated in place)");
pub static IDLE_CLEANINGS: Metric =
    Metric::new("idle_cleanings", Unit::Count, "band cleanings done in idle time (open loop)");
/// SMR write amplification, the PORE paper's R_wa (§V-B): the one definition, shared by the
/// simulation and the §III-A estimate.
pub static R_WA: Ratio = Ratio::new(
    Metric::new(
        "r_wa",
        Unit::Ratio,
        "SMR write amplification: bytes written to bands / bytes evicted from the write buffer (PORE §V-B)",
    ),
    &BAND_BYTES_WRITTEN,
    &BUFFER_BYTES_EVICTED,
);
/// Beside R_wa, which divides by what left the buffer (so a policy that evicts more can rank
/// better by it and worse in time): band bytes written per byte the user wrote.
pub static BAND_BYTES_PER_USER_BYTE: Ratio = Ratio::new(
    Metric::new("band_bytes_per_user_byte", Unit::Ratio, "bytes written to bands / bytes the host wrote"),
    &BAND_BYTES_WRITTEN,
    &HOST_BYTES_WRITTEN,
);
pub static CLEANED: Exercise = Exercise {
    counters: &[&BAND_CLEANINGS],
    when_never: "the write buffer held every block written: no band was cleaned, so these figures say nothing about band cleaning",
};
pub static BUFFER_BLOCKS: Metric =
    Metric::new("buffer_blocks", Unit::Blocks, "size of the persistent write buffer, 4 KiB blocks");
pub static BUFFER_OCCUPANCY: Metric =
    Metric::new("buffer_occupancy_blocks", Unit::Blocks, "4 KiB blocks held in the write buffer");
pub static BANDS: Metric = Metric::new("bands", Unit::Count, "bands over the disk's address space");

/// The write buffer's size: `buffer` of the trace's written range as the PORE paper measures
/// it (§V-A, Table I: the capacity of the bands the trace writes; at least 256 blocks), in whole
/// 4 KiB blocks. (The §III-A estimate's queue is a share of another measure: `estimate`.)
pub fn buffer_bytes(
    params: &mut ParamReader<'_>,
    layout: &BandLayout,
    footprint: &Footprint,
) -> Result<u64, ParamError> {
    params.share(&BUFFER, written_range(layout, footprint), BLOCK_4K)
}

/// The written range the buffer is a share of (at least 256 blocks).
fn written_range(layout: &BandLayout, footprint: &Footprint) -> u64 {
    layout.range_bytes(&footprint.written_extents, footprint.written_bytes).max(256 * BLOCK_4K)
}

/// The largest band: 1 TiB, far beyond any shingled disk's, and small enough that laying bands
/// cannot overflow.
const MAX_BAND: u64 = 1 << 40;

/// A band layout with what it is and why, in words ("bands of 17MB to 36MB (...)"), and the
/// mean of the band sizes asked for.
pub struct LaidBands {
    pub layout: BandLayout,
    pub said: String,
    pub mean_bytes: f64,
}

/// The band layout `band_size` (fixed bands) or `band_min`/`band_max` (random bands) choose,
/// each scaled by `geometry_scale` (`requests`: the trace's, for `auto`), covering `[0,
/// cover)`. Refused before it is laid when it would have more than `MAX_TABLE_ENTRIES` bands
/// (the buffer keeps a table entry per band).
pub fn band_layout(
    params: &mut ParamReader<'_>,
    cover: u64,
    seed: u64,
    requests: u64,
) -> Result<LaidBands, ParamError> {
    let scale = Scale::read(params, requests)?;
    // Each size scaled, and as the notes show it: as given when unscaled, else in bytes.
    let sized = |params: &mut ParamReader<'_>, spec: &ParamSpec, bytes: u64| -> Result<(u64, String), ParamError> {
        if scale.unscaled() {
            return Ok((bytes, params.text(spec)?));
        }
        let scaled = scale.of(bytes);
        params.resolve_as(spec, scaled.to_string());
        Ok((scaled, scaled.to_string()))
    };
    let (smallest, spec, shown) = match params.optional_size(&BAND_SIZE)? {
        Some(size) => {
            let (size, shown) = sized(params, &BAND_SIZE, size)?;
            (size, &BAND_SIZE, shown)
        }
        None => {
            let min = params.size(&BAND_MIN)?;
            let (min, shown) = sized(params, &BAND_MIN, min)?;
            (min, &BAND_MIN, shown)
        }
    };
    if smallest < BLOCK_4K {
        return Err(params.error(spec, "must be at least one 4 KiB block"));
    }
    if smallest > MAX_BAND {
        return Err(params
            .error(spec, format!("{smallest} bytes is larger than {MAX_BAND} bytes (1 TiB): no shingled band is")));
    }
    let bands = cover.div_ceil(smallest / BLOCK_4K * BLOCK_4K);
    if bands > MAX_TABLE_ENTRIES {
        return Err(params.error(spec, format!("makes up to {bands} bands over the trace's {cover} bytes, more than the {MAX_TABLE_ENTRIES} smrlab keeps: choose larger bands")));
    }
    let why = if !scale.unscaled() {
        scale.why.clone()
    } else if [&BAND_SIZE, &BAND_MIN, &BAND_MAX].iter().any(|spec| params.given(spec)) {
        "as given".to_string()
    } else {
        "the PORE paper's drive (§V-A), unscaled".to_string()
    };
    if spec == &BAND_SIZE {
        let said = format!("bands of {} ({why})", size_words(&shown));
        return Ok(LaidBands { layout: BandLayout::fixed(smallest, cover), said, mean_bytes: smallest as f64 });
    }
    let max = params.size(&BAND_MAX)?;
    let (max, max_shown) = sized(params, &BAND_MAX, max)?;
    if max > MAX_BAND {
        return Err(params
            .error(&BAND_MAX, format!("{max} bytes is larger than {MAX_BAND} bytes (1 TiB): no shingled band is")));
    }
    if smallest > max {
        return Err(params.error(&BAND_MIN, format!("{smallest} bytes is larger than band_max ({max} bytes)")));
    }
    let said = format!("bands of {} to {} ({why})", size_words(&shown), size_words(&max_shown));
    let layout = BandLayout::random(smallest, max, cover, seed);
    Ok(LaidBands { layout, said, mean_bytes: (smallest + max) as f64 / 2.0 })
}

/// A size as a run's notes show it: as written, or a number of bytes with its thousands apart.
fn size_words(text: &str) -> String {
    match text.parse::<u64>() {
        Ok(bytes) => format!("{} bytes", thousands(bytes as f64)),
        Err(_) => text.to_string(),
    }
}

totals! {
    struct Totals {
        band_cleanings => BAND_CLEANINGS,
        band_bytes_read => BAND_BYTES_READ,
        band_bytes_written => BAND_BYTES_WRITTEN,
        buffer_bytes_written => BUFFER_BYTES_WRITTEN,
        buffer_bytes_read => BUFFER_BYTES_READ,
        buffer_bytes_evicted => BUFFER_BYTES_EVICTED,
        buffer_updates => BUFFER_UPDATES,
        idle_cleanings => IDLE_CLEANINGS,
    }
}

pub struct Dmsmr {
    layout: BandLayout,
    buffer: FifoBuffer,
    /// Bytes of disk before the first band (the on-disk buffer log), 0 if the buffer is on an SSD.
    band_base: u64,
    buffer_on_ssd: bool,
    band_ch: ChannelId,
    buffer_ch: ChannelId,
    /// Scratch: the log places of the blocks a cleaning takes (kept so cleanings do not allocate).
    taken: Vec<u64>,
    idle_clean: bool,
    idle_clean_above: u64,
    totals: Totals,
}

impl Dmsmr {
    /// Builds the disk from `b.params` (see `PARAMS`), sized for the trace's footprint.
    pub fn build(b: &mut BuildContext<'_>) -> Result<Self, SimError> {
        check_capacity(b, b.footprint.max_end)?;
        let LaidBands { layout, said, .. } =
            band_layout(&mut b.params, b.footprint.max_end, b.seed, b.footprint.requests)?;
        let (said, warning) = band_notes(&said, layout.count() as f64, "over the trace's footprint");
        b.notes.push(said);
        b.warnings.extend(warning);
        let buffer_bytes = buffer_bytes(&mut b.params, &layout, &b.footprint)?;
        let buffer_on_ssd = b.params.choice(&BUFFER_ON)? == "ssd";
        let idle_clean = b.params.bool(&IDLE_CLEAN)?;
        let above = b.params.fraction(&IDLE_CLEAN_ABOVE)?;
        let band_base = if buffer_on_ssd { 0 } else { buffer_bytes };
        let disk = disk(b, band_base + layout.end())?;
        let disk = b.ctx.add_device("disk", disk);
        let buffer_ch = if buffer_on_ssd {
            let ssd = b.ctx.add_device("buffer-ssd", Box::new(FixedLatencyMedium::ssd(buffer_bytes)));
            b.ctx.channel(ssd, "write-buffer")
        } else {
            b.ctx.channel(disk, "write-buffer")
        };
        let band_ch = b.ctx.channel(disk, "band");
        let capacity = buffer_bytes / BLOCK_4K;
        Ok(Dmsmr {
            buffer: FifoBuffer::new(capacity, layout.count()),
            layout,
            band_base,
            buffer_on_ssd,
            band_ch,
            buffer_ch,
            taken: Vec::new(),
            idle_clean,
            idle_clean_above: (capacity as f64 * above) as u64,
            totals: Totals::default(),
        })
    }

    /// Byte position in the buffer log of the block that arrived `arrival`-th.
    fn log_offset(&self, arrival: u64) -> u64 {
        self.buffer.log_slot(arrival) * BLOCK_4K
    }

    /// Cleans the band of the oldest buffered block (§II-C's steps 2-4): reads the whole band,
    /// reads the band's buffered blocks from where the log holds them, and writes the band back
    /// whole. The blocks lie scattered through the log, so the buffer read is one read per run of
    /// blocks side by side in the log, in address order, as a host read of the log is charged.
    fn clean_oldest_band(&mut self, ctx: &mut IoCtx) {
        let Some((_, band)) = self.buffer.oldest() else { return };
        let merged = self.buffer.take_band(band, &mut self.taken) * BLOCK_4K;
        for arrival in &mut self.taken {
            *arrival = self.buffer.log_slot(*arrival);
        }
        self.taken.sort_unstable();
        let range = self.layout.band(band);
        let (start, len) = (self.band_base + range.start, range.end - range.start);
        let buffer_ch = self.buffer_ch;
        if self.buffer_on_ssd {
            let t0 = ctx.now();
            let mut buffer_time = 0;
            log_runs(&self.taken, |offset, bytes| {
                buffer_time += ctx.io_at(buffer_ch, t0 + buffer_time, Op::Read, offset, bytes);
            });
            let read = ctx.io_at(self.band_ch, t0, Op::Read, start, len);
            let write = ctx.io_at(self.band_ch, t0 + read, Op::Write, start, len);
            ctx.advance_to(t0 + buffer_time.max(read + write));
        } else {
            ctx.io(self.band_ch, Op::Read, start, len);
            log_runs(&self.taken, |offset, bytes| {
                ctx.io(buffer_ch, Op::Read, offset, bytes);
            });
            ctx.io(self.band_ch, Op::Write, start, len);
        }
        let t = &mut self.totals;
        t.band_cleanings += 1;
        t.band_bytes_read += len;
        t.band_bytes_written += len;
        t.buffer_bytes_read += merged;
        t.buffer_bytes_evicted += merged;
    }

    fn write(&mut self, req: &Request, ctx: &mut IoCtx) {
        let blocks = req.blocks(BLOCK_4K);
        let first = blocks.start;
        let count = blocks.end - blocks.start;
        let mut bands = BandCursor::default();
        // Where the request's first block is held, taken before a later block's cleaning can
        // write it to its band.
        let mut place = 0;
        for block in blocks {
            let band = bands.band_of(&self.layout, block * BLOCK_4K);
            let arrival = loop {
                match self.buffer.insert(block, band) {
                    Insert::Added(arrival) => break arrival,
                    Insert::Updated(arrival) => {
                        self.totals.buffer_updates += 1;
                        break arrival;
                    }
                    Insert::Full => self.clean_oldest_band(ctx),
                }
            };
            if block == first {
                place = self.log_offset(arrival);
            }
        }
        // The media write is the request's own bytes; the buffer keeps whole blocks.
        ctx.io(self.buffer_ch, Op::Write, place + req.offset % BLOCK_4K, req.len);
        self.totals.buffer_bytes_written += count * BLOCK_4K;
    }

    /// Where `block` (of band `band`)'s latest version is: its place in the buffer log, or its
    /// home in the bands.
    fn source_of(&self, block: u64, band: usize) -> (ChannelId, u64) {
        match self.buffer.arrival_of(block, band) {
            Some(arrival) => (self.buffer_ch, self.log_offset(arrival)),
            None => (self.band_ch, self.band_base + block * BLOCK_4K),
        }
    }

    /// Reads a request's bytes from where each block's latest version is, one read per run of
    /// blocks that lie side by side there (in the bands, or in the log by arrival), trimmed to
    /// the request's own bytes.
    fn read(&mut self, req: &Request, ctx: &mut IoCtx) {
        let mut bands = BandCursor::default();
        let source = |block| self.source_of(block, bands.band_of(&self.layout, block * BLOCK_4K));
        let read: Result<(), std::convert::Infallible> =
            coalesce_range(req.offset..req.end(), BLOCK_4K, source, |channel, offset, len| {
                ctx.io(channel, Op::Read, offset, len);
                Ok(())
            });
        let Ok(()) = read;
    }
}

/// Calls `emit(offset, bytes)` once per run of side-by-side 4 KiB places of the buffer log among
/// `slots` (sorted log slots).
fn log_runs(slots: &[u64], mut emit: impl FnMut(u64, u64)) {
    let pieces = slots.iter().map(|&slot| ((), slot * BLOCK_4K));
    let runs: Result<(), std::convert::Infallible> = coalesce(pieces, BLOCK_4K, |(), offset, bytes| {
        emit(offset, bytes);
        Ok(())
    });
    let Ok(()) = runs;
}

impl System for Dmsmr {
    fn submit(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError> {
        match req.op {
            Op::Write => self.write(req, ctx),
            Op::Read => self.read(req, ctx),
            Op::Trim => {}
        }
        Ok(())
    }

    fn capacity(&self) -> u64 {
        self.layout.end()
    }

    fn bands(&self) -> Option<Bands<'_>> {
        Some(Bands {
            layout: &self.layout,
            write_buffer_bytes: self.buffer.capacity() * BLOCK_4K,
            write_buffer_held_bytes: self.buffer.len() * BLOCK_4K,
        })
    }

    fn idle(&mut self, ctx: &mut IoCtx, _until_ns: u64) -> Result<bool, SimError> {
        if !self.idle_clean || self.buffer.len() <= self.idle_clean_above {
            return Ok(false);
        }
        self.clean_oldest_band(ctx);
        self.totals.idle_cleanings += 1;
        Ok(true)
    }

    fn counters(&self, out: &mut Counters) {
        self.totals.report(out);
        out.declare(&R_WA);
        out.declare(&BAND_BYTES_PER_USER_BYTE);
        out.expect(&CLEANED);
    }

    fn gauges(&self, out: &mut Gauges) {
        out.set(&BUFFER_BLOCKS, self.buffer.capacity() as f64);
        out.set(&BUFFER_OCCUPANCY, self.buffer.len() as f64);
        out.set(&BANDS, self.layout.count() as f64);
    }
}

#[cfg(test)]
mod tests;
