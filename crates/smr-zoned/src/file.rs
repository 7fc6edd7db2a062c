//! A host-managed zoned device kept in one regular (sparse) file: the same `ZoneTable` rules as
//! the memory backend, with the data and the write pointers persisted, so a restart resumes
//! exactly where the last `sync` left the zones.
//!
//! File layout (all integers little-endian):
//!
//! ```text
//! [0, 4 KiB)                 header: magic, format version, zone size, zone count,
//!                            conventional zones, CRC-32 of the fields before it
//! [4 KiB, +2 x slot)         two zone-state slots: sequence number, zone count, bytes written
//!                            in each zone, CRC-32; the valid slot with the higher sequence wins
//! [data start, + capacity)   the zones, zone 0 first (data start is a multiple of 4 KiB)
//! ```
//!
//! Durability. Writes go to the file at once (`pwrite`), but write pointers are published only
//! by `sync`: it writes the zone state into the slot the previous `sync` did not use, then
//! `fdatasync`s the file, so data and write pointers become durable together. A crash (of the
//! process or the machine) therefore reopens the device at its last `sync`: bytes written
//! after it lie above the recovered write pointers, read as zeros and are overwritten by the
//! next writes, and a restart never accepts a write that is not at a recovered write pointer.
//! Because both land in one `fdatasync`, a machine crash *during* `sync` may leave a write
//! pointer ahead of data that did not reach the disk; callers that need every byte below a
//! write pointer to be what they wrote checksum their records (as smrdb does). A reset is
//! durable at the next `sync` too; until then a crash brings the zone's old write pointer back
//! (its bytes were released and read as zeros).
//!
//! A reset releases the zone's blocks from the file (`fallocate` hole punching), so the file
//! takes only the space its written zones hold. Reads copy from a read-only map of the zones
//! (no system call per read), or use `pread` where the file cannot be mapped. Not here: zone
//! open/close limits, concurrent writers to one file (the caller locks), and timing (see
//! `TimedZonedDevice`).

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

use memmap2::{Mmap, MmapOptions};

use super::{ZoneError, ZoneKind, ZoneTable, ZonedDevice};

const MAGIC: &[u8; 8] = b"SMRZONED";
const FORMAT_VERSION: u32 = 1;
const HEADER_LEN: u64 = 4096;
const ALIGN: u64 = 4096;
/// Header fields before the CRC: magic, version, zone size, zones, conventional.
const HEADER_FIELDS: usize = 8 + 4 + 8 + 8 + 8;

/// What a zoned-device file is made of, as its header records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileGeometry {
    pub zone_size: u64,
    pub zones: u64,
    pub conventional: u64,
}

pub struct FileZonedDevice {
    path: PathBuf,
    file: File,
    table: ZoneTable,
    data_start: u64,
    slot_len: u64,
    /// Sequence number of the zone state last written (its slot is `state_seq % 2`).
    state_seq: u64,
    /// Whether a write pointer moved since the last published zone state.
    dirty: bool,
    /// The zones' bytes, mapped read-only, for reads without a system call each (`None` where
    /// the file cannot be mapped: reads then use `pread`).
    data: Option<Mmap>,
}

/// Maps the zones of `file` (they start at `data_start`, a multiple of the page size).
fn map_zones(file: &File, data_start: u64, capacity: u64) -> Option<Mmap> {
    let len = usize::try_from(capacity).ok()?;
    // SAFETY: the map is read-only and the file is this device's, held open at its full length
    // for the device's lifetime (it is never truncated, so no access faults). `read` copies
    // from it exactly the bytes it would `pread`: below a sequential zone's write pointer, where
    // no write lands until a reset, or in a conventional zone, where a write racing a read tears
    // the copy as it would tear a `pread` (callers checksum what they read, and smrdb never
    // reads a band while it is reset or rewritten). A punched-out range reads as zeros.
    unsafe { MmapOptions::new().offset(data_start).len(len).map(file) }.ok()
}

fn slot_len(zones: u64) -> u64 {
    (8 + 8 + 8 * zones + 4).div_ceil(ALIGN) * ALIGN
}

impl FileZonedDevice {
    /// Creates a new device file at `path` (it must not exist): `zones` zones of `zone_size`
    /// bytes, the first `conventional` of them conventional, all empty. The file is sparse.
    pub fn create(path: &Path, geometry: FileGeometry) -> Result<Self, ZoneError> {
        let FileGeometry { zone_size, zones, conventional } = geometry;
        let table = ZoneTable::new(zone_size, zones, conventional)?;
        if zone_size % ALIGN != 0 {
            return Err(ZoneError::Geometry(format!("zone size {zone_size} is not a multiple of {ALIGN} bytes")));
        }
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
            .map_err(|e| io_error(path, "create", e))?;
        let slot_len = slot_len(zones);
        let data_start = HEADER_LEN + 2 * slot_len;
        let mut device = FileZonedDevice {
            path: path.to_path_buf(),
            file,
            table,
            data_start,
            slot_len,
            state_seq: 0,
            dirty: true,
            data: None,
        };
        let total = device
            .table
            .capacity()
            .checked_add(data_start)
            .ok_or_else(|| ZoneError::Geometry("capacity overflows".into()))?;
        device.file.set_len(total).map_err(|e| device.io("set length of", e))?;
        device.data = map_zones(&device.file, data_start, device.table.capacity());
        let mut header = Vec::with_capacity(HEADER_LEN as usize);
        header.extend_from_slice(MAGIC);
        header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        for field in [zone_size, zones, conventional] {
            header.extend_from_slice(&field.to_le_bytes());
        }
        let crc = crc32fast::hash(&header);
        header.extend_from_slice(&crc.to_le_bytes());
        device.file.write_all_at(&header, 0).map_err(|e| device.io("write header of", e))?;
        device.sync()?;
        device.file.sync_all().map_err(|e| device.io("sync", e))?;
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            File::open(parent).and_then(|d| d.sync_all()).map_err(|e| io_error(parent, "sync folder", e))?;
        }
        Ok(device)
    }

    /// Opens an existing device file, recovering each zone's write pointer from the last
    /// zone state that `sync` published.
    pub fn open(path: &Path) -> Result<Self, ZoneError> {
        let file = OpenOptions::new().read(true).write(true).open(path).map_err(|e| io_error(path, "open", e))?;
        let bad = |problem: String| ZoneError::BadFile { path: path.display().to_string(), problem };
        let mut header = [0u8; HEADER_FIELDS + 4];
        file.read_exact_at(&mut header, 0).map_err(|_| bad("shorter than its header".into()))?;
        if &header[..8] != MAGIC {
            return Err(bad("no zoned-device header (wrong magic number)".into()));
        }
        let stored_crc = u32::from_le_bytes(header[HEADER_FIELDS..].try_into().expect("4 bytes"));
        if crc32fast::hash(&header[..HEADER_FIELDS]) != stored_crc {
            return Err(bad("header checksum mismatch".into()));
        }
        let version = u32::from_le_bytes(header[8..12].try_into().expect("4 bytes"));
        if version != FORMAT_VERSION {
            return Err(bad(format!("format version {version}, this build reads version {FORMAT_VERSION}")));
        }
        let field = |i: usize| u64::from_le_bytes(header[12 + 8 * i..20 + 8 * i].try_into().expect("8 bytes"));
        let (zone_size, zones, conventional) = (field(0), field(1), field(2));
        let mut table = ZoneTable::new(zone_size, zones, conventional).map_err(|e| bad(e.to_string()))?;
        let slot_len = slot_len(zones);
        let data_start = HEADER_LEN + 2 * slot_len;
        let size = file.metadata().map_err(|e| io_error(path, "stat", e))?.len();
        if size < data_start + table.capacity() {
            return Err(bad(format!(
                "{size} bytes, but its header describes {} (truncated?)",
                data_start + table.capacity()
            )));
        }
        let slots = [0u64, 1].map(|i| read_slot(&file, HEADER_LEN + i * slot_len, zones, zone_size));
        let (state_seq, filled) = slots
            .into_iter()
            .flatten()
            .max_by_key(|(seq, _)| *seq)
            .ok_or_else(|| bad("both zone-state records are damaged".into()))?;
        for (zone, &bytes) in filled.iter().enumerate().skip(conventional as usize) {
            if bytes > 0 {
                table.append(zone as u64, bytes).map_err(|e| bad(format!("zone state: {e}")))?;
            }
        }
        let data = map_zones(&file, data_start, table.capacity());
        let device = FileZonedDevice {
            path: path.to_path_buf(),
            file,
            table,
            data_start,
            slot_len,
            state_seq,
            dirty: false,
            data,
        };
        // Bytes written after the last sync lie above the recovered write pointers: punch them
        // out (best effort), so they take no space.
        for zone in conventional..zones {
            let filled = device.filled(zone);
            if filled < zone_size {
                device.punch(zone, filled, zone_size - filled);
            }
        }
        Ok(device)
    }

    /// The geometry recorded in the file.
    pub fn geometry(&self) -> FileGeometry {
        FileGeometry {
            zone_size: self.table.zone_size(),
            zones: self.table.zone_count(),
            conventional: self.table.conventional_zones(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Makes every write so far and the current write pointers durable (one `fdatasync`).
    pub fn sync(&mut self) -> Result<(), ZoneError> {
        if self.dirty {
            let seq = self.state_seq + 1;
            let mut record = Vec::with_capacity(self.slot_len as usize);
            record.extend_from_slice(&seq.to_le_bytes());
            record.extend_from_slice(&self.table.zone_count().to_le_bytes());
            for zone in 0..self.table.zone_count() {
                record.extend_from_slice(&self.filled(zone).to_le_bytes());
            }
            let crc = crc32fast::hash(&record);
            record.extend_from_slice(&crc.to_le_bytes());
            let at = HEADER_LEN + (seq % 2) * self.slot_len;
            self.file.write_all_at(&record, at).map_err(|e| self.io("write zone state of", e))?;
            self.state_seq = seq;
            self.dirty = false;
        }
        self.file.sync_data().map_err(|e| self.io("sync", e))
    }

    /// Bytes of storage the file holds (its allocated blocks, not its apparent size).
    pub fn allocated_bytes(&self) -> Result<u64, ZoneError> {
        use std::os::unix::fs::MetadataExt;
        Ok(self.file.metadata().map_err(|e| self.io("stat", e))?.blocks() * 512)
    }

    fn io(&self, op: &str, e: std::io::Error) -> ZoneError {
        io_error(&self.path, op, e)
    }

    /// Writes `data` at device offset `offset`, whose zone the table has already admitted
    /// (moving its write pointer); on failure puts the write pointer back to `filled_before`.
    fn store(&mut self, zone: u64, offset: u64, data: &[u8], filled_before: u64) -> Result<(), ZoneError> {
        if let Err(e) = self.file.write_all_at(data, self.data_start + offset) {
            if self.table.kind(zone) == ZoneKind::SequentialWriteRequired {
                // Undo the admission: rewind and re-advance to where the zone was.
                self.table.reset(zone)?;
                if filled_before > 0 {
                    self.table.append(zone, filled_before)?;
                }
            }
            return Err(self.io("write", e));
        }
        if self.table.kind(zone) == ZoneKind::SequentialWriteRequired {
            self.dirty = true;
        }
        Ok(())
    }

    /// Bytes written in a sequential zone (0 for a conventional one).
    fn filled(&self, zone: u64) -> u64 {
        match self.table.kind(zone) {
            ZoneKind::Conventional => 0,
            ZoneKind::SequentialWriteRequired => self.table.write_pointer(zone) - zone * self.table.zone_size(),
        }
    }

    /// Releases `len` bytes from byte `from` of a zone from the file (hole punching), so they
    /// read as zeros and take no space; false where the file system cannot punch holes.
    fn punch(&self, zone: u64, from: u64, len: u64) -> bool {
        let start = self.data_start + zone * self.table.zone_size() + from;
        // SAFETY: fallocate on a descriptor this device owns, with a range inside the file.
        let status = unsafe {
            libc::fallocate(
                self.file.as_raw_fd(),
                libc::FALLOC_FL_PUNCH_HOLE | libc::FALLOC_FL_KEEP_SIZE,
                start as libc::off_t,
                len as libc::off_t,
            )
        };
        status == 0
    }

    /// Makes `len` bytes from byte `from` of a zone read as zeros for good: punched out, or
    /// overwritten with zeros where holes cannot be punched (a reset zone must not show its
    /// previous life's bytes, nor a finished one bytes written above its write pointer before
    /// a crash).
    fn clear(&self, zone: u64, from: u64, len: u64) -> Result<(), ZoneError> {
        if self.punch(zone, from, len) {
            return Ok(());
        }
        let start = self.data_start + zone * self.table.zone_size() + from;
        let zeros = vec![0u8; (1 << 20).min(len) as usize];
        let mut at = 0;
        while at < len {
            let n = zeros.len().min((len - at) as usize);
            self.file.write_all_at(&zeros[..n], start + at).map_err(|e| self.io("zero a reset zone of", e))?;
            at += n as u64;
        }
        Ok(())
    }
}

fn io_error(path: &Path, op: &str, e: std::io::Error) -> ZoneError {
    ZoneError::Io { path: path.display().to_string(), op: op.to_string(), message: e.to_string() }
}

/// A zone-state slot's sequence number and per-zone fill, if its checksum and bounds hold.
fn read_slot(file: &File, at: u64, zones: u64, zone_size: u64) -> Option<(u64, Vec<u64>)> {
    let body = 16 + 8 * zones as usize;
    let mut bytes = vec![0u8; body + 4];
    file.read_exact_at(&mut bytes, at).ok()?;
    let crc = u32::from_le_bytes(bytes[body..].try_into().ok()?);
    if crc32fast::hash(&bytes[..body]) != crc {
        return None;
    }
    let word = |i: usize| u64::from_le_bytes(bytes[8 * i..8 * i + 8].try_into().expect("8 bytes"));
    if word(1) != zones {
        return None;
    }
    let filled: Vec<u64> = (0..zones as usize).map(|z| word(2 + z)).collect();
    filled.iter().all(|&f| f <= zone_size).then(|| (word(0), filled))
}

impl ZonedDevice for FileZonedDevice {
    fn table(&self) -> &ZoneTable {
        &self.table
    }

    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<(), ZoneError> {
        let zone = self.table.check_range(offset, buf.len() as u64)?;
        let visible_end = match self.table.kind(zone) {
            ZoneKind::Conventional => (zone + 1) * self.table.zone_size(),
            ZoneKind::SequentialWriteRequired => self.table.write_pointer(zone),
        };
        let visible = visible_end.saturating_sub(offset).min(buf.len() as u64) as usize;
        let (data, above) = buf.split_at_mut(visible);
        match &self.data {
            Some(zones) => data.copy_from_slice(&zones[offset as usize..offset as usize + data.len()]),
            None => self.file.read_exact_at(data, self.data_start + offset).map_err(|e| self.io("read", e))?,
        }
        above.fill(0);
        Ok(())
    }

    fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<(), ZoneError> {
        let zone = self.table.check_range(offset, data.len() as u64)?;
        let filled_before = self.filled(zone);
        self.table.write(offset, data.len() as u64)?;
        self.store(zone, offset, data, filled_before)
    }

    fn append(&mut self, zone: u64, data: &[u8]) -> Result<u64, ZoneError> {
        let filled_before = if zone < self.table.zone_count() { self.filled(zone) } else { 0 };
        let at = self.table.append(zone, data.len() as u64)?;
        self.store(zone, at, data, filled_before)?;
        Ok(at)
    }

    fn reset(&mut self, zone: u64) -> Result<(), ZoneError> {
        let filled = if zone < self.table.zone_count() { self.filled(zone) } else { 0 };
        self.table.reset(zone)?;
        self.dirty = true;
        if filled > 0 {
            self.clear(zone, 0, filled)?;
        }
        Ok(())
    }

    fn finish(&mut self, zone: u64) -> Result<(), ZoneError> {
        let filled = if zone < self.table.zone_count() { self.filled(zone) } else { 0 };
        self.table.finish(zone)?;
        self.dirty = true;
        self.clear(zone, filled, self.table.zone_size() - filled)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device_commands::{cmd, Cmd};
    use crate::{MemZonedDevice, ZoneCondition};
    use proptest::prelude::*;

    const GEOMETRY: FileGeometry = FileGeometry { zone_size: 8192, zones: 6, conventional: 2 };

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("smr-core-file-zoned-{}-{name}", std::process::id()));
        let _ = std::fs::remove_file(&dir);
        dir
    }

    #[test]
    fn write_pointers_and_data_survive_a_reopen_after_sync() {
        let path = scratch("reopen");
        let mut d = FileZonedDevice::create(&path, GEOMETRY).unwrap();
        d.write_at(100, b"meta").unwrap();
        assert_eq!(d.append(2, b"abc").unwrap(), 2 * 8192);
        d.append(3, &[7u8; 8192]).unwrap();
        d.sync().unwrap();
        d.append(2, b"unsynced").unwrap();
        drop(d);
        let mut d = FileZonedDevice::open(&path).unwrap();
        assert_eq!(d.geometry(), GEOMETRY);
        let zones = d.report_zones();
        assert_eq!(zones[2].write_pointer, 2 * 8192 + 3, "the unsynced append is not published");
        assert_eq!(zones[3].condition, ZoneCondition::Full);
        let mut buf = [0u8; 12];
        d.read(2 * 8192, &mut buf).unwrap();
        assert_eq!(&buf, b"abc\0\0\0\0\0\0\0\0\0", "bytes above the write pointer read as zeros");
        let mut meta = [0u8; 4];
        d.read(100, &mut meta).unwrap();
        assert_eq!(&meta, b"meta");
        // A restart never accepts a write off the recovered write pointer.
        assert!(
            matches!(d.write_at(2 * 8192 + 11, b"x"), Err(ZoneError::NotAtWritePointer { write_pointer, .. }) if write_pointer == 2 * 8192 + 3)
        );
        d.reset(3).unwrap();
        d.sync().unwrap();
        drop(d);
        let d = FileZonedDevice::open(&path).unwrap();
        assert_eq!(d.report_zones()[3].condition, ZoneCondition::Empty);
        std::fs::remove_file(&path).unwrap();
    }

    #[test]
    fn damaged_and_foreign_files_are_refused_by_name() {
        let path = scratch("damaged");
        std::fs::write(&path, b"not a device").unwrap();
        let err = FileZonedDevice::open(&path).err().unwrap();
        assert!(matches!(err, ZoneError::BadFile { .. }), "{err}");
        assert!(err.to_string().contains(&path.display().to_string()));
        std::fs::remove_file(&path).unwrap();

        let mut d = FileZonedDevice::create(&path, GEOMETRY).unwrap();
        d.append(2, b"x").unwrap();
        d.sync().unwrap();
        assert!(
            matches!(FileZonedDevice::create(&path, GEOMETRY), Err(ZoneError::Io { .. })),
            "create never overwrites"
        );
        drop(d);
        // Tear the newest zone-state slot (the second sync, so slot 0): the older one (an empty
        // device) is used.
        let f = OpenOptions::new().write(true).open(&path).unwrap();
        let newest = HEADER_LEN;
        f.write_all_at(&[0xFF; 16], newest + 16).unwrap();
        drop(f);
        let d = FileZonedDevice::open(&path).unwrap();
        assert_eq!(d.report_zones()[2].condition, ZoneCondition::Empty);
        drop(d);
        let f = OpenOptions::new().write(true).open(&path).unwrap();
        f.write_all_at(&[0xFF; 4], 20).unwrap();
        drop(f);
        assert!(FileZonedDevice::open(&path).err().unwrap().to_string().contains("header checksum"));
        std::fs::remove_file(&path).unwrap();
    }

    /// A zone command, or (`None`) a sync and reopen of the file device.
    fn cmd_or_reopen() -> impl Strategy<Value = Option<Cmd>> {
        prop_oneof![8 => cmd(GEOMETRY.zones, GEOMETRY.zone_size, 3000).prop_map(Some), 1 => Just(None)]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// The file device obeys the same zone rules as the memory one (same answers, same
        /// zone report, same bytes), and a sync-and-reopen changes nothing.
        #[test]
        fn matches_the_memory_device_across_reopens(cmds in proptest::collection::vec(cmd_or_reopen(), 1..60)) {
            let path = scratch(&format!("prop-{}", rand::random::<u64>()));
            let mut file = FileZonedDevice::create(&path, GEOMETRY).unwrap();
            let mut mem = MemZonedDevice::new(GEOMETRY.zone_size, GEOMETRY.zones, GEOMETRY.conventional).unwrap();
            for c in cmds {
                match c {
                    Some(Cmd::Append(z, b, n)) => prop_assert_eq!(file.append(z, &vec![b; n]), mem.append(z, &vec![b; n])),
                    Some(Cmd::WriteAt(o, b, n)) => prop_assert_eq!(file.write_at(o, &vec![b; n]), mem.write_at(o, &vec![b; n])),
                    Some(Cmd::Reset(z)) => prop_assert_eq!(file.reset(z), mem.reset(z)),
                    Some(Cmd::Finish(z)) => prop_assert_eq!(file.finish(z), mem.finish(z)),
                    None => {
                        file.sync().unwrap();
                        drop(file);
                        file = FileZonedDevice::open(&path).unwrap();
                    }
                }
                prop_assert_eq!(file.report_zones(), mem.report_zones());
            }
            for zone in 0..GEOMETRY.zones {
                let (mut a, mut b) = (vec![0u8; 8192], vec![0u8; 8192]);
                file.read(zone * 8192, &mut a).unwrap();
                mem.read(zone * 8192, &mut b).unwrap();
                prop_assert!(a == b, "zone {} differs", zone);
            }
            std::fs::remove_file(&path).unwrap();
        }
    }
}
