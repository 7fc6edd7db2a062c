//! `hwsr` and `sblock`: the hybrid wave-like shingled recording disk of Luo et al., "Design and
//! Implementation of a Hybrid Shingled Write Disk System" (HWSR), and the S-block baseline it is
//! compared with, both behind the same MEM write buffer and SSD read cache.
//!
//! - `layout`: the segment-based layout and Eq. 1-5; `capacity`: the wave-like recording
//!   capacity model (§3.2, Fig. 7);
//! - `hybrid`: the MEM buffer + SSD cache + block map in front of a shingled disk (§2.1, §4.2),
//!   with `membuffer` (LRU-block, LRU-segment, LWA, group destage) and `ssdcache` (LRU), each
//!   ordered by a policy of the kernel's table (`policy`, `ssd_policy`) or a user's own in
//!   Python (docs/policies.md);
//! - `segment_disk`: HWSR's disk, where a write rewrites the rest of its segment (§3.1, §5.5);
//! - `sblock`: S-block's circular logs with garbage collection (§3.1, §4.1);
//! - `table3`: the trace characteristics of Table 3.
//!
//! The emulated disk follows the paper's prototype (§4.1): a fixed track of 8 x 1024 sectors
//! (4 MiB) laid on an `Hdd`'s address space, so a segment's consecutive blocks lie 4 MiB apart
//! on the timing model and cost the seeks and rotations that distance costs. Defaults are the
//! paper's (§5.1, Table 2): regions of 32 tracks, blocks of 128 sectors, a 64 MB MEM buffer, a
//! 128 MB SSD cache, on the 7200 RPM 1 TB preset; the MEM buffer evicts in the write that finds
//! it full (§2.1: "When MEM buffer is full, MEM buffer evicts out some cold data"; §4.3: the
//! victims are chosen "during a miss").
//!
//! The prototype was a kernel block device that blktrace replayed traces to (§4.1, §5.2), with
//! many requests in flight, on a SATA drive (Table 2). Both systems therefore say their requests
//! may overlap (`Concurrency::Overlapped`): in an open-loop replay on a drive that queues, a
//! request arriving while others are in service is issued at once and its disk commands queue
//! with theirs. A segment rewrite issues its reads as one batch and its writes as another
//! (`IoCtx::batch`), an S-block destage its reads and writes as one batch, each move's write
//! after its read, so a queueing drive orders them by position; both shingled layouts are
//! emulated on a conventional drive, as the prototype's were, so the drive may reorder writes.
//!
//! Choices where the paper is silent, declared open (`ParamSpec::open`) or documented beside
//! their code:
//! - kappa (tracks a shingled write overlaps, the guard band's width) is 3, as in Fig. 7a; the
//!   S-block spare rate beta is 0.1, as in Fig. 7b;
//! - LWA's lookup window (open) is 25 % of the MEM buffer;
//! - the disk starts empty (`fill`, open): each trace was replayed to a newly created device;
//! - the drive queues 32 commands (`disk_queue_depth`, open: SATA's native command queueing)
//!   and caches writes (`disk_write_cache`, open: how such drives ship);
//! - with `destage=background` (not the paper's), a flusher writes the MEM buffer back between
//!   two watermarks (open) and while the disk is idle;
//! - S-block reads an S-block whole from the disk, not around blocks the SSD holds;
//! - MEM buffer hits (reads too) make a block most recently used; what the host wrote of a
//!   buffered block is kept in 64 units and a partly written block is merged with its older
//!   version when evicted (read from the SSD or the disk);
//! - MEM is DRAM, the SSD the `FixedLatencyMedium::ssd` profile; SSD fills are written behind
//!   the read; trims cost nothing.

pub mod capacity;
pub mod hybrid;
pub mod layout;
#[cfg(test)]
mod ledger;
pub mod membuffer;
pub mod sblock;
pub mod segment_disk;
pub mod ssdcache;
pub mod table3;
#[cfg(test)]
mod tests;

use smr_core::units::SECTOR;
use smr_media::PRESET_NAMES;

use hybrid::{Destage, FrontPolicies, FrontSizes, Hybrid, ShingledDisk};
use layout::Geometry;
use sblock::{LogGeometry, SblockDisk};
use segment_disk::SegmentDisk;
use smr_core::param_spec::PolicyName;
use smr_kernel::disk::{disk_with, DiskSpecs, DISK_CACHE_PARAMS};
use smr_kernel::policy::{self, lwa, Boxed, Policy, PolicySetup};
use smr_kernel::{BuildContext, Kind, ParamList, ParamSpec, ReplayMode, SimError, SystemEntry};

pub const DISK: ParamSpec = ParamSpec::new(
    "disk",
    Kind::Choice(PRESET_NAMES),
    "desktop7200",
    "HDD timing preset the shingled disk is emulated on (desktop7200: 7200 RPM 1 TB, the class of the paper's WD drive, Table 2)",
);
pub const TRACK: ParamSpec = ParamSpec::new(
    "track",
    Kind::Size,
    "4MiB",
    "S_T: emulated track size, a whole number of sectors (the paper's prototype: 8 x 1024 sectors, §4.1)",
);
pub const BLOCK: ParamSpec = ParamSpec::new(
    "block",
    Kind::Size,
    "64KiB",
    "S_blk: block size, a whole number of sectors dividing the track (the paper: 128 sectors)",
);
pub const SEGMENTS: ParamSpec = ParamSpec::new(
    "segments",
    Kind::Custom { unit: "auto, or a whole number dividing the track's sectors" },
    "auto",
    "n: segments per region; auto = track / block (giving it sets the block to track / n)",
);
pub const REGION: ParamSpec =
    ParamSpec::new("region", Kind::Count, "32", "S_reg: tracks per region, and blocks per segment (the paper: 32)");
pub const KAPPA: ParamSpec = ParamSpec::new(
    "kappa",
    Kind::Count,
    "3",
    "kappa: tracks a shingled write overlaps, the width of a guard band (Fig. 7a: 3)",
);
pub const MEM: ParamSpec = ParamSpec::new(
    "mem",
    Kind::Size,
    "64MiB",
    "MEM write buffer size, or none (the paper: 64 MB); at most 16384 blocks",
);
pub const SSD: ParamSpec =
    ParamSpec::new("ssd", Kind::Size, "128MiB", "SSD read cache size, or none (the paper: 128 MB)");
pub const FILL: ParamSpec = ParamSpec::new("fill", Kind::Choice(&["full", "empty"]), "empty", "what the disk holds before the trace: full (every block holds data) or empty")
    .open("the prototype's disk was a block device created by inserting the module, to which each trace was replayed (§4.1, §5.2), so only what the trace wrote holds data; the paper does not say it was filled first");
pub const POLICY: ParamSpec = ParamSpec::new(
    "policy",
    Kind::Policy(&["lwa", "lru-block", "lru-segment"]),
    "lwa",
    "MEM buffer replacement: lwa (least write amplification), lru-block, lru-segment (§2.3)",
);
pub const SSD_POLICY: ParamSpec =
    ParamSpec::new("ssd_policy", Kind::Policy(&["lru"]), "lru", "SSD read cache replacement: lru (§2.3)");
pub const SPARE: ParamSpec =
    ParamSpec::new("spare", Kind::Fraction, "0.1", "beta: spare share of each region's S-block slots (Fig. 7b: 0.1)");
pub const DESTAGE: ParamSpec = ParamSpec::new(
    "destage",
    Kind::Choice(&["sync", "background"]),
    "sync",
    "when the MEM buffer writes to the disk: sync, in the write that finds it full, which waits for it (§2.1, §4.3); background, from a flusher that starts at destage_high or when the disk is idle and stops at destage_low, a write waiting only when the buffer is full",
)
.open("§2.1 and §4.3 evict when the buffer is full, during a miss, as sync does; whether the prototype's write waited for the disk, or a kernel thread wrote the victims back while it went on, the paper does not say");
pub const DESTAGE_HIGH: ParamSpec = ParamSpec::new("destage_high", Kind::Share { of: "the MEM buffer" }, "90%", "with destage=background: the flusher starts when the MEM buffer holds this much")
    .open("the paper destages only when the buffer is full; a flusher's watermarks are a choice of the system (Linux's page cache starts its flusher at a share of memory, dirty_background_ratio): 90 % leaves a tenth for bursts");
pub const DESTAGE_LOW: ParamSpec = ParamSpec::new(
    "destage_low",
    Kind::Share { of: "the MEM buffer" },
    "75%",
    "with destage=background: the flusher stops when the MEM buffer holds this much or less, and the disk being idle starts it above this",
)
.open("not in the paper: a gap below destage_high so that one start writes several segments back, and the buffer keeps three quarters of what it holds for hits");
pub const WRITE_CACHE: ParamSpec = ParamSpec::new(
    "disk_write_cache",
    Kind::Bool,
    "true",
    "write-back caching: writes acknowledged from the drive's cache and written in idle time",
)
.open("the paper does not say the drive's write cache was turned off; Table 2's WD SATA drive (64 MB cache) ships with it on, and Linux leaves it on");
pub const QUEUE_DEPTH: ParamSpec = ParamSpec::new(
    "disk_queue_depth",
    Kind::Whole,
    "32",
    "commands the drive holds at once, served shortest positioning time first (1 to 256; 1: one at a time, in order)",
)
.open("the paper does not give it; Table 2's drive is a SATA drive, whose native command queueing holds 32 commands, and blktrace's replay keeps many requests in flight");

/// The drive, read through HWSR's own defaults.
const DISK_SPECS: DiskSpecs = DiskSpecs { preset: &DISK, write_cache: &WRITE_CACHE, queue_depth: &QUEUE_DEPTH };

pub const HWSR_PARAMS: ParamList = &[
    &[
        DISK,
        TRACK,
        BLOCK,
        SEGMENTS,
        REGION,
        KAPPA,
        MEM,
        SSD,
        SSD_POLICY,
        POLICY,
        lwa::WINDOW,
        FILL,
        DESTAGE,
        DESTAGE_HIGH,
        DESTAGE_LOW,
        WRITE_CACHE,
        QUEUE_DEPTH,
    ],
    &DISK_CACHE_PARAMS,
];
pub const SBLOCK_PARAMS: ParamList = &[
    &[
        DISK,
        TRACK,
        BLOCK,
        SEGMENTS,
        REGION,
        KAPPA,
        MEM,
        SSD,
        SSD_POLICY,
        SPARE,
        FILL,
        DESTAGE,
        DESTAGE_HIGH,
        DESTAGE_LOW,
        WRITE_CACHE,
        QUEUE_DEPTH,
    ],
    &DISK_CACHE_PARAMS,
];

/// The paper replays its traces at their timestamps and reports response times (waiting plus
/// service, Figs. 13-20): both systems are replayed open loop in real time unless told otherwise.
const PAPER_REPLAY: ReplayMode = ReplayMode::Open { speedup: 1.0 };

pub const HWSR: SystemEntry = SystemEntry::new(
    "hwsr",
    "HWSR: segment-based wave-like shingled disk behind a MEM write buffer (LWA) and an SSD read cache (Luo et al.)",
    HWSR_PARAMS,
    |b| Ok(Box::new(build_hwsr(b)?)),
)
.replayed(PAPER_REPLAY);

pub const SBLOCK: SystemEntry = SystemEntry::new(
    "sblock",
    "S-block: circular logs of S-blocks with garbage collection, behind the same MEM buffer and SSD cache (HWSR's baseline)",
    SBLOCK_PARAMS,
    |b| Ok(Box::new(build_sblock(b)?)),
)
.replayed(PAPER_REPLAY);

pub type Hwsr = Hybrid<SegmentDisk>;
pub type Sblock = Hybrid<SblockDisk>;

/// The shared geometry, checked: sectors dividing tracks, segments dividing the track.
/// The largest emulated track (1 GiB) and the most tracks a region or guard band may span
/// (2^16): far past any disk's, and small enough that address arithmetic cannot overflow.
pub const MAX_TRACK: u64 = 1 << 30;
pub const MAX_TRACKS: u64 = 1 << 16;

fn geometry(b: &mut BuildContext<'_>) -> Result<Geometry, SimError> {
    let track = b.params.size(&TRACK)?;
    if !track.is_multiple_of(SECTOR) || track > MAX_TRACK {
        return Err(b
            .params
            .error(&TRACK, format!("{track} bytes is not a whole number of 512-byte sectors up to {MAX_TRACK}"))
            .into());
    }
    let track_sectors = track / SECTOR;
    let segments = b.params.text(&SEGMENTS)?;
    let block_given = b.params.given(&BLOCK);
    let block = b.params.size(&BLOCK)?;
    let block_sectors = if segments == "auto" {
        if !block.is_multiple_of(SECTOR) || !track_sectors.is_multiple_of((block / SECTOR).max(1)) || block > track {
            return Err(b
                .params
                .error(
                    &BLOCK,
                    format!("{block} bytes is not a whole number of sectors dividing the {track}-byte track"),
                )
                .into());
        }
        block / SECTOR
    } else {
        let n: u64 = segments.trim().parse().ok().filter(|&n| n > 0).ok_or_else(|| {
            b.params.error(&SEGMENTS, format!("{} is not auto or a whole number above 0", smr_core::quote(&segments)))
        })?;
        if !track_sectors.is_multiple_of(n) {
            return Err(b
                .params
                .error(&SEGMENTS, format!("{n} segments do not divide the region's {track_sectors}-sector tracks"))
                .into());
        }
        if block_given && block != track / n {
            return Err(b
                .params
                .error(
                    &SEGMENTS,
                    format!("{n} segments make {}-byte blocks, not the {block} bytes given as block", track / n),
                )
                .into());
        }
        track_sectors / n
    };
    let region_tracks = b.params.count(&REGION)?;
    let kappa = b.params.count(&KAPPA)?;
    for (spec, tracks) in [(&REGION, region_tracks), (&KAPPA, kappa)] {
        if tracks > MAX_TRACKS {
            return Err(b
                .params
                .error(spec, format!("{tracks} tracks are more than the {MAX_TRACKS} a region or guard band may span"))
                .into());
        }
    }
    Ok(Geometry { track_sectors, block_sectors, region_tracks, kappa })
}

/// The most blocks the MEM buffer holds: 16 times the paper's (64 MB of 64 KB blocks, §5.1).
/// LWA looks through a quarter of them at each eviction, so a buffer of many tiny blocks (the
/// default 64 MiB of 512-byte blocks is 131,072) made a replay run for hours.
pub const MAX_MEM_BLOCKS: usize = 1 << 14;

/// A cache size in blocks, or `None` when switched off.
fn cache_blocks(b: &mut BuildContext<'_>, spec: &ParamSpec, block_bytes: u64) -> Result<Option<usize>, SimError> {
    let Some(bytes) = b.params.optional_size(spec)? else { return Ok(None) };
    let blocks = bytes / block_bytes;
    if blocks == 0 {
        return Err(b.params.error(spec, format!("{bytes} bytes holds no whole {block_bytes}-byte block")).into());
    }
    if blocks >= 1 << 31 {
        return Err(b.params.error(spec, format!("{blocks} blocks are more than 2^31")).into());
    }
    Ok(Some(blocks as usize))
}

/// What both systems build alike: the disk medium and its channel, the front's sizes, `fill`,
/// and when the MEM buffer destages.
struct Common {
    disk_bytes: u64,
    channel: smr_kernel::ChannelId,
    sizes: FrontSizes,
    ssd_policy: Option<Box<dyn Policy>>,
    starts_full: bool,
    destage: Destage,
}

fn common(b: &mut BuildContext<'_>, geometry: &Geometry) -> Result<Common, SimError> {
    let medium = disk_with(b, &DISK_SPECS, 0)?;
    let disk_bytes = medium.capacity();
    let mem_blocks = cache_blocks(b, &MEM, geometry.block_bytes())?;
    if let Some(blocks) = mem_blocks.filter(|&blocks| blocks > MAX_MEM_BLOCKS) {
        return Err(b
            .params
            .error(
                &MEM,
                format!(
                    "{blocks} blocks of {} bytes are more than the {MAX_MEM_BLOCKS} the MEM buffer may hold (its \
                     policy looks through a share of them at every eviction): give a larger block or a smaller mem",
                    geometry.block_bytes()
                ),
            )
            .into());
    }
    let ssd_blocks = cache_blocks(b, &SSD, geometry.block_bytes())?;
    let ssd_policy_name = policy::read(b, &SSD_POLICY)?;
    let ssd_policy = match ssd_blocks {
        Some(slots) => {
            let geometry = front_geometry("HWSR's SSD read cache", slots, geometry.block_bytes(), None);
            Some(policy::build(&mut PolicySetup { b, spec: &SSD_POLICY, geometry }, &ssd_policy_name, Boxed)?)
        }
        None => None,
    };
    let starts_full = b.params.choice(&FILL)? == "full";
    let destage = destage(b, mem_blocks, geometry.block_bytes())?;
    let device = b.ctx.add_device("disk", medium);
    let channel = b.ctx.channel(device, "disk");
    Ok(Common {
        disk_bytes,
        channel,
        sizes: FrontSizes { mem_blocks, ssd_blocks, block_bytes: geometry.block_bytes() },
        ssd_policy,
        starts_full,
        destage,
    })
}

/// When the MEM buffer destages, with the watermarks in blocks: each inside the buffer, the low
/// one below the high one (a default low watermark that rounds to the high one on a buffer of
/// a few blocks is taken one block lower). The watermarks are checked with `destage=sync` too,
/// and read, unused, without a MEM buffer.
fn destage(b: &mut BuildContext<'_>, mem_blocks: Option<usize>, block_bytes: u64) -> Result<Destage, SimError> {
    let background = b.params.choice(&DESTAGE)? == "background";
    let Some(blocks) = mem_blocks else {
        b.params.text(&DESTAGE_HIGH)?;
        b.params.text(&DESTAGE_LOW)?;
        return Ok(Destage::Sync);
    };
    let buffer = blocks as u64 * block_bytes;
    let mut watermark = |spec: &ParamSpec| match b.params.share(spec, buffer, block_bytes) {
        Ok(bytes) => Ok(bytes / block_bytes),
        Err(_) if !b.params.given(spec) => Ok(0),
        Err(e) => Err(e),
    };
    let (high, mut low) = (watermark(&DESTAGE_HIGH)?.max(1), watermark(&DESTAGE_LOW)?);
    if low >= high {
        if b.params.given(&DESTAGE_LOW) || b.params.given(&DESTAGE_HIGH) {
            let message = format!("is {low} of the MEM buffer's {blocks} blocks, not below destage_high's {high}: the flusher would stop before it starts");
            return Err(b.params.error(&DESTAGE_LOW, message).into());
        }
        low = high - 1;
    }
    Ok(if background { Destage::background(high as usize, low as usize) } else { Destage::Sync })
}

/// An error naming `disk` if the trace reaches beyond what the shingled disk holds.
fn check_fits(b: &BuildContext<'_>, capacity: u64, what: &str) -> Result<(), SimError> {
    if b.footprint.max_end > capacity {
        let message = format!("holds {capacity} bytes as {what}, but the trace reaches byte {}", b.footprint.max_end);
        return Err(b.params.error(&DISK, message).into());
    }
    Ok(())
}

pub fn build_hwsr(b: &mut BuildContext<'_>) -> Result<Hwsr, SimError> {
    let geometry = geometry(b)?;
    let policy_name = policy::read(b, &POLICY)?;
    let c = common(b, &geometry)?;
    let disk = SegmentDisk::new(geometry, c.disk_bytes, c.channel, c.starts_full);
    check_fits(b, hybrid::ShingledDisk::capacity(&disk), "HWSR")?;
    let mem = mem_policy(b, &POLICY, &policy_name, &c.sizes, disk.blocks_per_segment())?;
    Ok(Hybrid::new(disk, c.sizes, FrontPolicies { mem, ssd: c.ssd_policy }, c.destage, b.ctx))
}

/// The MEM buffer's policy `name` (read from `spec`), over the buffer of `sizes` (none without
/// one), evicting the blocks of one segment of `segment_blocks` at a time.
fn mem_policy(
    b: &mut BuildContext<'_>,
    spec: &'static ParamSpec,
    name: &PolicyName,
    sizes: &FrontSizes,
    segment_blocks: u64,
) -> Result<Option<Box<dyn Policy>>, SimError> {
    let Some(slots) = sizes.mem_blocks else { return Ok(None) };
    let geometry = front_geometry("HWSR's MEM buffer", slots, sizes.block_bytes, Some(segment_blocks));
    policy::build(&mut PolicySetup { b, spec, geometry }, name, Boxed).map(Some)
}

/// What a policy of the front may know of its cache: no shingled disk lies directly below it
/// (the front places blocks itself).
fn front_geometry(host: &'static str, slots: usize, block_bytes: u64, segment_blocks: Option<u64>) -> policy::Geometry {
    policy::Geometry { host, slots, block_bytes, bands: None, write_buffer_bytes: None, segment_blocks }
}

pub fn build_sblock(b: &mut BuildContext<'_>) -> Result<Sblock, SimError> {
    let geometry = geometry(b)?;
    let spare = b.params.fraction(&SPARE)?;
    let Some(logs) = LogGeometry::new(geometry, spare) else {
        let n = geometry.segments_per_region();
        return Err(b
            .params
            .error(&SPARE, format!("{spare} of {n} S-blocks per region leaves no spare S-block or no logical one"))
            .into());
    };
    let c = common(b, &geometry)?;
    let disk = SblockDisk::new(logs, c.disk_bytes, c.channel, c.starts_full);
    check_fits(b, hybrid::ShingledDisk::capacity(&disk), "S-block")?;
    // S-block's group destage is part of its definition, not a parameter: errors (none can
    // arise, the buffer always has segments) would name the MEM buffer's size.
    let group_destage = PolicyName::Listed("most-blocks");
    let mem = mem_policy(b, &MEM, &group_destage, &c.sizes, disk.blocks_per_segment())?;
    Ok(Hybrid::new(disk, c.sizes, FrontPolicies { mem, ssd: c.ssd_policy }, c.destage, b.ctx))
}
