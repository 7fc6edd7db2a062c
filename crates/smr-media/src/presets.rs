//! The disks smrlab ships, with the sources of their numbers, and `disk_preset`, which builds
//! one by name (the simulator's `disk` parameter names one).
//!
//! - `st5000as0011`: Seagate Archive HDD 5 TB (ST5000AS0011), the drive-managed SMR disk of the
//!   PORE paper. 5900 RPM and 5 TB from Seagate's data sheet (average latency 5.1 ms = half a
//!   revolution); 190 MB/s maximum sustained rate (data sheet) at the outer diameter, half that at
//!   the inner one; 4 platters / 8 heads (teardowns). Seek figures are not published: typical
//!   5900 RPM desktop-class values (1 ms track-to-track, 8.5 ms average, 17 ms full stroke).
//! - `desktop7200`: a 7200 RPM 1 TB single-platter desktop drive (Seagate Barracuda ST1000DM003
//!   data sheet: 210 MB/s maximum sustained; average read seek < 8.5 ms; 2 heads).
//! - `st3500418as`: a 7200 RPM 500 GB desktop CMR drive, the class of disk the PORE paper's
//!   experiments ran on ("a 7200RPM 500GB CMR disk", §V-B; the paper does not name the model):
//!   Seagate Barracuda 7200.12 ST3500418AS (Seagate's Barracuda 7200.12 data sheet: 500 GB on one
//!   disk with 2 heads, 7200 RPM, 125 MB/s maximum sustained rate, average read seek < 8.5 ms,
//!   average latency 4.16 ms, 16 MB cache). Half the rate at the inner diameter, track-to-track,
//!   full-stroke, head-switch and settle times are not on the data sheet: those of `desktop7200`.
//! - `fluid10k`: the simulated drive of FluidSMR §7.1: 10025 RPM, 2 MB average track, 300 MB/s
//!   maximum transfer. Seek figures, not given there, are those of a 10K RPM enterprise drive of
//!   the DiskSim era (Seagate Cheetah 10K data sheets: 0.3 ms track-to-track, 4.7 ms average
//!   read seek, 10 ms full stroke); capacity, not given either, 2 TB.
//!
//! Caches, from the same data sheets: 128 MB (ST5000AS0011), 64 MB (ST1000DM003), 16 MB
//! (ST3500418AS, Cheetah 10K.7). The data sheets do not say how the cache is cut: 16 segments each, as in
//! DiskSim's models of drives of that class (our choice).

use super::hdd::{Hdd, HddSpec};
use super::Medium;
use smr_core::units::{GB, MB, MIB, TB};

const NS_PER_MS: u64 = 1_000_000;

/// Sectors per track giving `bytes_per_s` at `rpm`.
const fn spt(bytes_per_s: u64, rpm: u64) -> u32 {
    (bytes_per_s * 60 / rpm / 512) as u32
}

pub const ST5000AS0011: HddSpec = HddSpec {
    name: "st5000as0011",
    capacity: 5 * TB,
    rpm: 5900,
    heads: 8,
    outer_spt: spt(190 * MB, 5900),
    inner_spt: spt(95 * MB, 5900),
    recording_zones: 24,
    track_to_track_ns: NS_PER_MS,
    average_seek_ns: 8_500_000,
    full_stroke_ns: 17 * NS_PER_MS,
    head_switch_ns: 800_000,
    write_settle_ns: 300_000,
    max_transfer: 600 * MB,
    cache_bytes: 128 * MIB,
    cache_segments: 16,
};

pub const DESKTOP7200: HddSpec = HddSpec {
    name: "desktop7200",
    capacity: TB,
    rpm: 7200,
    heads: 2,
    outer_spt: spt(210 * MB, 7200),
    inner_spt: spt(105 * MB, 7200),
    recording_zones: 24,
    track_to_track_ns: NS_PER_MS,
    average_seek_ns: 8_500_000,
    full_stroke_ns: 18 * NS_PER_MS,
    head_switch_ns: 700_000,
    write_settle_ns: 300_000,
    max_transfer: 600 * MB,
    cache_bytes: 64 * MIB,
    cache_segments: 16,
};

pub const ST3500418AS: HddSpec = HddSpec {
    name: "st3500418as",
    capacity: 500 * GB,
    rpm: 7200,
    heads: 2,
    outer_spt: spt(125 * MB, 7200),
    inner_spt: spt(125 * MB / 2, 7200),
    recording_zones: 24,
    track_to_track_ns: NS_PER_MS,
    average_seek_ns: 8_500_000,
    full_stroke_ns: 18 * NS_PER_MS,
    head_switch_ns: 700_000,
    write_settle_ns: 300_000,
    max_transfer: 300 * MB,
    cache_bytes: 16 * MIB,
    cache_segments: 16,
};

pub const FLUID10K: HddSpec = HddSpec {
    name: "fluid10k",
    capacity: 2 * TB,
    rpm: 10025,
    heads: 8,
    // A 2 MB average track: 2.4 MB outside, 1.6 MB inside.
    outer_spt: (2_400_000 / 512) as u32,
    inner_spt: (1_600_000 / 512) as u32,
    recording_zones: 24,
    track_to_track_ns: 300_000,
    average_seek_ns: 4_700_000,
    full_stroke_ns: 10 * NS_PER_MS,
    head_switch_ns: 300_000,
    write_settle_ns: 200_000,
    max_transfer: 300 * MB,
    cache_bytes: 16 * MIB,
    cache_segments: 16,
};

pub const PRESETS: [HddSpec; 4] = [ST5000AS0011, DESKTOP7200, ST3500418AS, FLUID10K];

/// The names of `PRESETS`, in the same order (a test checks they agree).
pub const PRESET_NAMES: &[&str] = &["st5000as0011", "desktop7200", "st3500418as", "fluid10k"];

/// The preset called `name`; an error (for the caller to attach to its parameter) if there is
/// none or it is smaller than `min_capacity` bytes.
pub fn preset_spec(name: &str, min_capacity: u64) -> Result<HddSpec, String> {
    let Some(spec) = PRESETS.iter().find(|p| p.name == name) else {
        return Err(format!("{} is not one of {}", smr_core::quote(name), PRESET_NAMES.join(", ")));
    };
    if min_capacity > spec.capacity {
        return Err(format!(
            "{name} holds {} bytes but {min_capacity} are needed (trace footprint plus the system's own areas)",
            spec.capacity
        ));
    }
    Ok(spec.clone())
}

/// The disk preset called `name`, with the cache its data sheet gives (see `preset_spec`).
pub fn disk_preset(name: &str, min_capacity: u64) -> Result<Box<dyn Medium>, String> {
    Ok(Box::new(Hdd::new(preset_spec(name, min_capacity)?)))
}
