//! A zoned device held in memory: the rules of `ZoneTable` plus each zone's bytes, held up to
//! the furthest byte written (the rest reads as zeros), so memory follows the data written, not
//! the zone size (a store of 1 TiB bands in memory takes what it holds). For tests and small
//! experiments; data is lost when it is dropped.

use super::{ZoneError, ZoneKind, ZoneTable, ZonedDevice};

pub struct MemZonedDevice {
    table: ZoneTable,
    data: Vec<Option<Vec<u8>>>,
}

impl MemZonedDevice {
    pub fn new(zone_size: u64, zones: u64, conventional: u64) -> Result<Self, ZoneError> {
        let table = ZoneTable::new(zone_size, zones, conventional)?;
        Ok(MemZonedDevice { table, data: vec![None; zones as usize] })
    }

    /// The zone's bytes `at..at + len`, the zone's buffer grown (with zeros) to reach them.
    fn zone_bytes(&mut self, zone: u64, at: usize, len: usize) -> &mut [u8] {
        let bytes = self.data[zone as usize].get_or_insert_with(Vec::new);
        if bytes.len() < at + len {
            bytes.resize(at + len, 0);
        }
        &mut bytes[at..at + len]
    }
}

impl ZonedDevice for MemZonedDevice {
    fn table(&self) -> &ZoneTable {
        &self.table
    }

    fn read(&self, offset: u64, buf: &mut [u8]) -> Result<(), ZoneError> {
        let zone = self.table.check_range(offset, buf.len() as u64)?;
        let at = (offset - zone * self.table.zone_size()) as usize;
        let visible = match self.table.kind(zone) {
            ZoneKind::Conventional => self.table.zone_size() as usize,
            ZoneKind::SequentialWriteRequired => {
                (self.table.write_pointer(zone) - zone * self.table.zone_size()) as usize
            }
        };
        for (i, byte) in buf.iter_mut().enumerate() {
            let pos = at + i;
            *byte = match &self.data[zone as usize] {
                Some(bytes) if pos < visible && pos < bytes.len() => bytes[pos],
                _ => 0,
            };
        }
        Ok(())
    }

    fn write_at(&mut self, offset: u64, data: &[u8]) -> Result<(), ZoneError> {
        let zone = self.table.write(offset, data.len() as u64)?;
        let at = (offset - zone * self.table.zone_size()) as usize;
        self.zone_bytes(zone, at, data.len()).copy_from_slice(data);
        Ok(())
    }

    fn append(&mut self, zone: u64, data: &[u8]) -> Result<u64, ZoneError> {
        let at = self.table.append(zone, data.len() as u64)?;
        let within = (at - zone * self.table.zone_size()) as usize;
        self.zone_bytes(zone, within, data.len()).copy_from_slice(data);
        Ok(at)
    }

    fn reset(&mut self, zone: u64) -> Result<(), ZoneError> {
        self.table.reset(zone)?;
        self.data[zone as usize] = None;
        Ok(())
    }

    fn finish(&mut self, zone: u64) -> Result<(), ZoneError> {
        self.table.finish(zone)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device_commands::{cmd, Cmd};
    use crate::ZoneCondition;
    use proptest::prelude::*;

    #[test]
    fn sequential_zones_take_writes_only_at_the_write_pointer() {
        let mut d = MemZonedDevice::new(4096, 4, 1).unwrap();
        d.write_at(100, b"anywhere").unwrap();
        d.write_at(0, b"again").unwrap();
        assert_eq!(d.append(1, b"abc").unwrap(), 4096);
        let err = d.write_at(4096 + 10, b"x").unwrap_err();
        assert_eq!(err, ZoneError::NotAtWritePointer { zone: 1, offset: 4106, write_pointer: 4099 });
        assert!(err.to_string().contains("zone 1"));
        d.write_at(4099, b"def").unwrap();
        let mut buf = [0u8; 8];
        d.read(4096, &mut buf).unwrap();
        assert_eq!(&buf, b"abcdef\0\0");
        assert_eq!(d.report_zones()[1].condition, ZoneCondition::ImplicitlyOpen);
        d.finish(1).unwrap();
        assert_eq!(d.report_zones()[1].condition, ZoneCondition::Full);
        assert_eq!(d.append(1, b"z"), Err(ZoneError::Full { zone: 1, len: 1 }));
        assert_eq!(d.append(0, b"z"), Err(ZoneError::Conventional { zone: 0 }));
        d.reset(1).unwrap();
        assert_eq!(d.report_zones()[1].condition, ZoneCondition::Empty);
        d.read(4096, &mut buf).unwrap();
        assert_eq!(buf, [0; 8], "a reset zone reads as zeros");
        assert_eq!(d.reset(0), Err(ZoneError::Conventional { zone: 0 }));
        assert!(matches!(d.write_at(4095, b"ab"), Err(ZoneError::CrossesZone { .. })));
        assert!(matches!(d.write_at(4 * 4096, b"a"), Err(ZoneError::BeyondCapacity { .. })));
        assert!(MemZonedDevice::new(4096, 2, 3).is_err());
    }

    proptest! {
        /// Against a plain byte array: write pointers only advance (but on reset), refused
        /// commands change nothing, and every byte reads back as last written.
        #[test]
        fn matches_a_model_and_loses_nothing(cmds in proptest::collection::vec(cmd(6, 1024, 300), 1..120)) {
            let zone = 1024u64;
            let mut d = MemZonedDevice::new(zone, 6, 2).unwrap();
            let mut model = vec![0u8; 6 * 1024];
            for c in cmds {
                let before: Vec<u64> = d.report_zones().iter().map(|z| z.write_pointer).collect();
                let applied = match c.clone() {
                    Cmd::Append(z, b, n) => d.append(z, &vec![b; n]).map(|at| model[at as usize..at as usize + n].fill(b)).is_ok(),
                    Cmd::WriteAt(o, b, n) => d.write_at(o, &vec![b; n]).map(|_| model[o as usize..o as usize + n].fill(b)).is_ok(),
                    Cmd::Reset(z) => d.reset(z).map(|_| model[(z * zone) as usize..((z + 1) * zone) as usize].fill(0)).is_ok(),
                    Cmd::Finish(z) => d.finish(z).is_ok(),
                };
                let after: Vec<u64> = d.report_zones().iter().map(|z| z.write_pointer).collect();
                for z in 0..6usize {
                    let reset_here = matches!(c, Cmd::Reset(r) if r as usize == z) && applied;
                    prop_assert!(after[z] >= before[z] || reset_here, "write pointer of zone {} went back", z);
                    prop_assert!(after[z] <= (z as u64 + 1) * zone);
                }
                let mut all = vec![0u8; 6 * 1024];
                for z in 0..6u64 {
                    d.read(z * zone, &mut all[(z * zone) as usize..((z + 1) * zone) as usize]).unwrap();
                }
                // Finished zones read zeros above their data, as the model does.
                prop_assert_eq!(&all, &model);
            }
        }
    }
}
