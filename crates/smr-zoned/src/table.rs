//! The zone rules without data: geometry, write pointers, conditions and the checks every
//! command must pass. Shared by the memory backend and by simulated host-managed drives.

use super::{ZoneCondition, ZoneError, ZoneInfo, ZoneKind};
use smr_core::Op;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ZoneTable {
    zone_size: u64,
    conventional: u64,
    /// Per zone, bytes written from its start (sequential zones only; 0 for conventional).
    filled: Vec<u64>,
    /// Per zone kinds set by `convert` (a hybrid drive's format conversion); until the first
    /// conversion, the first `conventional` zones are conventional and the rest sequential.
    converted: Option<Vec<ZoneKind>>,
}

impl ZoneTable {
    /// `zones` zones of `zone_size` bytes, the first `conventional` of them conventional.
    pub fn new(zone_size: u64, zones: u64, conventional: u64) -> Result<Self, ZoneError> {
        if zone_size == 0 || zones == 0 {
            return Err(ZoneError::Geometry("zone size and zone count must be positive".into()));
        }
        if conventional > zones {
            return Err(ZoneError::Geometry(format!("{conventional} conventional zones but only {zones} zones")));
        }
        Ok(ZoneTable { zone_size, conventional, filled: vec![0; zones as usize], converted: None })
    }

    pub fn zone_size(&self) -> u64 {
        self.zone_size
    }

    pub fn zone_count(&self) -> u64 {
        self.filled.len() as u64
    }

    pub fn capacity(&self) -> u64 {
        self.zone_size * self.zone_count()
    }

    pub fn conventional_zones(&self) -> u64 {
        self.conventional
    }

    pub fn zone_of(&self, offset: u64) -> u64 {
        offset / self.zone_size
    }

    pub fn kind(&self, zone: u64) -> ZoneKind {
        if let Some(kinds) = &self.converted {
            return kinds[zone as usize];
        }
        if zone < self.conventional {
            ZoneKind::Conventional
        } else {
            ZoneKind::SequentialWriteRequired
        }
    }

    /// Absolute address of the next write to sequential zone `zone`.
    pub fn write_pointer(&self, zone: u64) -> u64 {
        zone * self.zone_size + self.filled[zone as usize]
    }

    fn sequential(&self, zone: u64) -> Result<(), ZoneError> {
        if zone >= self.zone_count() {
            return Err(ZoneError::NoSuchZone { zone, zones: self.zone_count() });
        }
        if self.kind(zone) == ZoneKind::Conventional {
            return Err(ZoneError::Conventional { zone });
        }
        Ok(())
    }

    /// Checks that `[offset, offset+len)` lies inside the device and one zone; returns the zone.
    pub fn check_range(&self, offset: u64, len: u64) -> Result<u64, ZoneError> {
        let end = offset.checked_add(len).filter(|&e| e <= self.capacity());
        let Some(end) = end else {
            return Err(ZoneError::BeyondCapacity { offset, len, capacity: self.capacity() });
        };
        let zone = self.zone_of(offset);
        if len > 0 && (end - 1) / self.zone_size != zone {
            return Err(ZoneError::CrossesZone { zone, offset, len });
        }
        Ok(zone)
    }

    /// Admits a write (conventional: anywhere; sequential: at the write pointer, which then
    /// advances by `len`). Returns the zone.
    pub fn write(&mut self, offset: u64, len: u64) -> Result<u64, ZoneError> {
        let zone = self.check_range(offset, len)?;
        if self.kind(zone) == ZoneKind::SequentialWriteRequired {
            let write_pointer = self.write_pointer(zone);
            if offset != write_pointer {
                return Err(ZoneError::NotAtWritePointer { zone, offset, write_pointer });
            }
            self.filled[zone as usize] += len;
        }
        Ok(zone)
    }

    /// Admits one I/O of a simulated drive, which may span zones (a read anywhere, a write
    /// across conventional zones): piece by piece, each zone's part must pass `check_range`, and
    /// each part written in a sequential zone must start at that zone's write pointer (which then
    /// advances). Reads and trims move nothing.
    pub fn admit(&mut self, op: Op, offset: u64, len: u64) -> Result<(), ZoneError> {
        let end =
            offset.checked_add(len).ok_or(ZoneError::BeyondCapacity { offset, len, capacity: self.capacity() })?;
        let mut at = offset;
        while at < end {
            let piece = ((at / self.zone_size + 1) * self.zone_size).min(end) - at;
            match op {
                Op::Write => self.write(at, piece).map(|_| ())?,
                _ => self.check_range(at, piece).map(|_| ())?,
            }
            at += piece;
        }
        Ok(())
    }

    /// Admits a write of `len` bytes at the write pointer of sequential zone `zone`; returns
    /// where it lands.
    pub fn append(&mut self, zone: u64, len: u64) -> Result<u64, ZoneError> {
        self.sequential(zone)?;
        if self.filled[zone as usize] + len > self.zone_size {
            return Err(ZoneError::Full { zone, len });
        }
        let at = self.write_pointer(zone);
        self.filled[zone as usize] += len;
        Ok(at)
    }

    pub fn reset(&mut self, zone: u64) -> Result<(), ZoneError> {
        self.sequential(zone)?;
        self.filled[zone as usize] = 0;
        Ok(())
    }

    pub fn finish(&mut self, zone: u64) -> Result<(), ZoneError> {
        self.sequential(zone)?;
        self.filled[zone as usize] = self.zone_size;
        Ok(())
    }

    /// Formats zone `zone` as `kind`, as a hybrid (CMR/SMR) drive's conversion command does:
    /// whatever the zone held is gone, and a sequential zone starts empty. Zones keep their
    /// number and size; the caller decides which zones are online.
    pub fn convert(&mut self, zone: u64, kind: ZoneKind) -> Result<(), ZoneError> {
        if zone >= self.zone_count() {
            return Err(ZoneError::NoSuchZone { zone, zones: self.zone_count() });
        }
        let count = self.zone_count();
        let conventional = self.conventional;
        let kinds = self.converted.get_or_insert_with(|| {
            (0..count)
                .map(|z| if z < conventional { ZoneKind::Conventional } else { ZoneKind::SequentialWriteRequired })
                .collect()
        });
        kinds[zone as usize] = kind;
        self.filled[zone as usize] = 0;
        self.conventional = kinds.iter().filter(|k| **k == ZoneKind::Conventional).count() as u64;
        Ok(())
    }

    pub fn info(&self, zone: u64) -> ZoneInfo {
        let kind = self.kind(zone);
        let filled = self.filled[zone as usize];
        let condition = match kind {
            ZoneKind::Conventional => ZoneCondition::NotWritePointer,
            _ if filled == 0 => ZoneCondition::Empty,
            _ if filled == self.zone_size => ZoneCondition::Full,
            _ => ZoneCondition::ImplicitlyOpen,
        };
        ZoneInfo {
            start: zone * self.zone_size,
            len: self.zone_size,
            write_pointer: self.write_pointer(zone),
            kind,
            condition,
        }
    }

    pub fn report(&self) -> Vec<ZoneInfo> {
        (0..self.zone_count()).map(|z| self.info(z)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Four zones of 4 KiB, two conventional: an I/O may span zones, but each piece written in
    /// a sequential zone must start at its write pointer.
    #[test]
    fn admit_checks_a_spanning_io_zone_by_zone() {
        let mut t = ZoneTable::new(4096, 4, 2).unwrap();
        t.admit(Op::Write, 1000, 6000).unwrap();
        t.admit(Op::Read, 0, 4 * 4096).unwrap();
        t.admit(Op::Write, 4096, 4096 + 100).unwrap();
        assert_eq!(t.write_pointer(2), 2 * 4096 + 100, "the sequential part advanced its pointer");
        let err = t.admit(Op::Write, 2 * 4096 + 200, 10).unwrap_err();
        assert_eq!(
            err,
            ZoneError::NotAtWritePointer { zone: 2, offset: 2 * 4096 + 200, write_pointer: 2 * 4096 + 100 }
        );
        assert!(matches!(t.admit(Op::Read, 3 * 4096, 4097), Err(ZoneError::BeyondCapacity { .. })));
        assert!(matches!(t.admit(Op::Read, u64::MAX, 2), Err(ZoneError::BeyondCapacity { .. })));
        t.admit(Op::Write, 2 * 4096 + 100, 4096 - 100).unwrap();
        assert_eq!(t.info(2).condition, ZoneCondition::Full);
    }

    /// A conversion changes one zone's kind and empties it; the zone rules follow the new kind.
    #[test]
    fn convert_changes_a_zones_kind_and_destroys_its_contents() {
        let mut t = ZoneTable::new(4096, 4, 2).unwrap();
        t.admit(Op::Write, 2 * 4096, 100).unwrap();
        t.convert(1, ZoneKind::SequentialWriteRequired).unwrap();
        t.convert(2, ZoneKind::Conventional).unwrap();
        assert_eq!(
            (t.kind(0), t.kind(1), t.kind(2), t.kind(3)),
            (
                ZoneKind::Conventional,
                ZoneKind::SequentialWriteRequired,
                ZoneKind::Conventional,
                ZoneKind::SequentialWriteRequired
            )
        );
        assert_eq!(t.conventional_zones(), 2);
        assert_eq!(t.write_pointer(1), 4096, "a zone converted to sequential starts empty");
        t.admit(Op::Write, 2 * 4096 + 500, 10).unwrap();
        assert!(matches!(t.admit(Op::Write, 4096 + 8, 8), Err(ZoneError::NotAtWritePointer { zone: 1, .. })));
        assert!(matches!(t.convert(9, ZoneKind::Conventional), Err(ZoneError::NoSuchZone { .. })));
    }
}
