//! Hostile options for the key-value store, generated: every size, count and trigger of
//! `Options` (and the offloading store's) drawn from values near and past their limits. Opening
//! a store in memory with them either fails with an error naming the option or gives a store
//! that takes a write and reads it back, never a panic, and never an allocation larger than
//! 300 MiB (this binary's allocator refuses one, which aborts the test): a device is sized by
//! its band count and holds only what is written, whatever its band size.
//!
//! Cases per property: `PROPTEST_CASES`, or proptest's 256.

use std::time::Duration;

use proptest::prelude::*;
use smr_core::alloc_bound::Bounded;
use smr_zoned::MemZonedDevice;
use smrdb::device::{BandDevice, Shared};
use smrdb::offload::{OffloadDb, OffloadOptions};
use smrdb::options::METADATA_ZONES;
use smrdb::{Db, Options, Scheme};

#[global_allocator]
static ALLOCATOR: Bounded<{ 300 << 20 }> = Bounded;

/// Sizes and counts near every limit of the store, and far past them.
fn hostile_u64() -> impl Strategy<Value = u64> {
    prop_oneof![
        Just(0u64),
        Just(1),
        Just(u64::MAX),
        Just(u64::MAX / 2 + 1),
        Just(1 << 20),
        Just((1 << 20) + 1),
        Just(1 << 30),
        Just((1 << 30) + 4096),
        Just(1 << 40),
        Just(64 << 10),
        (0u64..1 << 24),
        any::<u64>(),
    ]
}

fn hostile_usize() -> impl Strategy<Value = usize> {
    hostile_u64().prop_map(|v| v as usize)
}

/// Options where each field is, one time in ten, a hostile value, and otherwise that of a
/// small working store (so the cases that open a store are many).
fn options() -> impl Strategy<Value = Options> {
    let sometimes_u64 = || prop::option::weighted(0.1, hostile_u64());
    let sometimes_usize = || prop::option::weighted(0.1, hostile_usize());
    let geometry =
        (sometimes_u64(), sometimes_u64(), any::<bool>(), sometimes_usize(), sometimes_usize(), sometimes_usize());
    let shape = (
        prop::option::weighted(0.1, 0u32..100),
        sometimes_usize(),
        sometimes_usize(),
        sometimes_usize(),
        sometimes_usize(),
        sometimes_usize(),
    );
    let more = (
        sometimes_usize(),
        sometimes_usize(),
        sometimes_usize(),
        sometimes_u64(),
        sometimes_u64(),
        any::<bool>(),
        sometimes_u64(),
    );
    (geometry, shape, more).prop_map(
        |(
            (band_size, capacity, soc, max_key_len, max_value_len, block_size),
            (bloom, histogram_bytes, log_buffer, l0c, l0s, l0stop),
            (l0_max_inputs, l1_overlap_trigger, levels, l1_bands, level_ratio, write_log, block_cache),
        )| {
            let d = Options::default();
            Options {
                band_size: Some(band_size.unwrap_or(64 << 10)),
                capacity: Some(capacity.unwrap_or(128 << 16)),
                compaction: Some(if soc { Scheme::Soc } else { Scheme::Loc }),
                max_key_len: max_key_len.or(Some(64)),
                max_value_len: max_value_len.or(Some(4096)),
                block_size: block_size.unwrap_or(1024),
                block_cache: block_cache.unwrap_or(d.block_cache),
                bloom_bits_per_key: bloom.unwrap_or(d.bloom_bits_per_key),
                histogram_bytes: histogram_bytes.or(Some(128)),
                log_buffer: log_buffer.or(d.log_buffer),
                l0_compaction_trigger: l0c.unwrap_or(d.l0_compaction_trigger),
                l0_slowdown_trigger: l0s.unwrap_or(d.l0_slowdown_trigger),
                l0_stop_trigger: l0stop.unwrap_or(d.l0_stop_trigger),
                slowdown_micros: 0,
                l0_max_inputs: l0_max_inputs.unwrap_or(d.l0_max_inputs),
                l1_overlap_trigger: l1_overlap_trigger.unwrap_or(d.l1_overlap_trigger),
                levels: levels.unwrap_or(d.levels),
                l1_bands: l1_bands.unwrap_or(d.l1_bands),
                level_ratio: level_ratio.unwrap_or(d.level_ratio),
                background: false,
                sync: false,
                create_if_missing: true,
                write_log,
            }
        },
    )
}

/// An error names an option, or the store takes a write and gives it back.
fn error_or_working<S>(
    opened: smrdb::Result<S>,
    put: impl Fn(&S) -> smrdb::Result<()>,
    get: impl Fn(&S) -> smrdb::Result<Option<Vec<u8>>>,
) -> Result<(), TestCaseError> {
    match opened {
        Err(e) => {
            let text = e.to_string();
            prop_assert!(!text.is_empty() && text.len() < 600, "{text}");
        }
        Ok(store) => {
            if put(&store).is_ok() {
                prop_assert_eq!(get(&store).unwrap(), Some(b"value".to_vec()));
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::default())]

    #[test]
    fn hostile_store_options_give_an_error_or_a_working_store(options in options()) {
        error_or_working(Db::open_in_memory(options, None), |db| db.put(b"key", b"value"), |db| db.get(b"key"))?;
    }

    #[test]
    fn hostile_offloading_options_give_an_error_or_a_working_store(options in options(), loc in prop::bool::weighted(0.9), buffers in prop::array::uniform3(prop::option::weighted(0.1, hostile_u64())), nvram_zones in 0u64..64, band in prop_oneof![Just(64u64 << 10), Just(1 << 20), Just(1 << 30)]) {
        let options = Options { compaction: Some(if loc { Scheme::Loc } else { Scheme::Soc }), ..options };
        let buffers = [buffers[0].unwrap_or(2), buffers[1].unwrap_or(2), buffers[2].unwrap_or(4)];
        // The devices are made here (as a caller of `open_devices` would), of a band size the
        // options may contradict.
        let zones = options.capacity.map_or(64, |c| (c / band).clamp(METADATA_ZONES, 1 << 12));
        let disk: Box<dyn BandDevice> = Box::new(Shared::new(MemZonedDevice::new(band, zones, METADATA_ZONES).unwrap()));
        let nvram: Option<Box<dyn BandDevice>> = (nvram_zones > 0).then(|| Box::new(Shared::new(MemZonedDevice::new(band, nvram_zones, 0).unwrap())) as Box<dyn BandDevice>);
        let offload = OffloadOptions { base: options, buffer_bands: buffers, check_interval: Duration::from_millis(5), quiet_interval: Duration::from_millis(5), ..OffloadOptions::default() };
        error_or_working(OffloadDb::open_devices(disk, nvram, "hostile".into(), offload), |db| db.put(b"key", b"value"), |db| db.get(b"key"))?;
    }
}
