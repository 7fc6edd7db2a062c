//! The metadata record (§3.2.3's "high level shingled band information"), kept in the two
//! conventional zones at the start of the device: the store's recorded parameters, the tables
//! by level with their bands, key ranges and histograms, the log bands still needed, the last
//! sequence number the tables hold, and the LOC compaction pointers.
//!
//! Updates are atomic: each record is written whole into the zone the current record is not
//! in, then the device is synced; at open the valid record with the highest number wins. A
//! torn or damaged write therefore leaves the previous record in force, and a band is reset
//! only after a durable record no longer names it.
//!
//! Slot: magic "SMRDBMF1", record number (u64), payload length (u64), CRC-32 of the payload,
//! payload.

use crate::env::{Env, Stats};
use crate::error::Result;
use crate::options::{Geometry, Scheme};
use crate::table::TableMeta;
use crate::util::coding::{put_bytes, put_u32, put_u64, put_varint, Cursor};

const MAGIC: &[u8; 8] = b"SMRDBMF1";
const HEADER: usize = 8 + 8 + 8 + 4;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    /// Record number: increases with every record written.
    pub number: u64,
    pub geometry: Geometry,
    /// The highest sequence number any table holds.
    pub last_sequence: u64,
    pub next_table_id: u64,
    /// Log bands whose records are not in tables yet, oldest first.
    pub log_bands: Vec<u64>,
    /// LOC round-robin position per level: the largest key last compacted.
    pub compact_pointers: Vec<(u32, Vec<u8>)>,
    pub tables: Vec<(u32, TableMeta)>,
}

impl Manifest {
    /// Makes the next record, naming `band` as a log band too, durable and current; on error
    /// the band is retired and this record stays current.
    pub fn add_log_band(&mut self, env: &Env, band: u64, next_table_id: u64) -> Result<()> {
        let mut next = self.clone();
        next.number += 1;
        next.log_bands.push(band);
        next.next_table_id = next_table_id;
        if let Err(e) = next.write(env) {
            env.retire(band);
            return Err(e);
        }
        *self = next;
        Ok(())
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut payload = Vec::new();
        put_varint(&mut payload, self.geometry.band_size);
        put_varint(&mut payload, self.geometry.zones);
        payload.push(match self.geometry.scheme {
            Scheme::Loc => 0,
            Scheme::Soc => 1,
        });
        put_varint(&mut payload, self.last_sequence);
        put_varint(&mut payload, self.next_table_id);
        put_varint(&mut payload, self.log_bands.len() as u64);
        for &b in &self.log_bands {
            put_varint(&mut payload, b);
        }
        put_varint(&mut payload, self.compact_pointers.len() as u64);
        for (level, key) in &self.compact_pointers {
            put_varint(&mut payload, *level as u64);
            put_bytes(&mut payload, key);
        }
        put_varint(&mut payload, self.tables.len() as u64);
        for (level, meta) in &self.tables {
            put_varint(&mut payload, *level as u64);
            meta.encode(&mut payload);
        }
        let mut out = Vec::with_capacity(HEADER + payload.len());
        out.extend_from_slice(MAGIC);
        put_u64(&mut out, self.number);
        put_u64(&mut out, payload.len() as u64);
        put_u32(&mut out, crc32fast::hash(&payload));
        out.extend_from_slice(&payload);
        out
    }

    fn decode_payload(number: u64, payload: &[u8]) -> Option<Manifest> {
        let mut cur = Cursor::new(payload);
        let band_size = cur.varint()?;
        let zones = cur.varint()?;
        let scheme = match cur.u8()? {
            0 => Scheme::Loc,
            1 => Scheme::Soc,
            _ => return None,
        };
        let last_sequence = cur.varint()?;
        let next_table_id = cur.varint()?;
        let log_bands = (0..cur.varint()?).map(|_| cur.varint()).collect::<Option<Vec<_>>>()?;
        let mut compact_pointers = Vec::new();
        for _ in 0..cur.varint()? {
            let level = u32::try_from(cur.varint()?).ok()?;
            compact_pointers.push((level, cur.bytes()?.to_vec()));
        }
        let mut tables = Vec::new();
        for _ in 0..cur.varint()? {
            let level = u32::try_from(cur.varint()?).ok()?;
            tables.push((level, TableMeta::decode(&mut cur)?));
        }
        cur.is_empty().then_some(Manifest {
            number,
            geometry: Geometry { band_size, zones, scheme },
            last_sequence,
            next_table_id,
            log_bands,
            compact_pointers,
            tables,
        })
    }

    /// Writes this record into its slot (by record number) and syncs the device.
    pub fn write(&self, env: &Env) -> Result<()> {
        let bytes = self.encode();
        if bytes.len() as u64 > env.band_size {
            return Err(env.corruption(
                "metadata record",
                format!("record {}", self.number),
                format!("{} bytes do not fit in a {}-byte metadata zone", bytes.len(), env.band_size),
            ));
        }
        let slot = self.number % 2;
        env.device.write_at(slot * env.band_size, &bytes).map_err(|e| env.device_error(e))?;
        Stats::add(&env.stats.metadata_bytes_written, bytes.len() as u64);
        env.sync()
    }

    /// The newest valid record, if any slot holds one; also whether any slot held bytes that
    /// were not a valid record (damage, or a torn write).
    pub fn read_newest(env: &Env) -> Result<(Option<Manifest>, bool)> {
        let mut newest: Option<Manifest> = None;
        let mut damaged = false;
        for slot in 0..2u64 {
            let mut header = [0u8; HEADER];
            env.device.read(slot * env.band_size, &mut header).map_err(|e| env.device_error(e))?;
            if header.iter().all(|&b| b == 0) {
                continue;
            }
            let record = Self::read_slot(env, slot, &header)?;
            match record {
                Some(m) if newest.as_ref().is_none_or(|n| m.number > n.number) => newest = Some(m),
                Some(_) => {}
                None => damaged = true,
            }
        }
        Ok((newest, damaged))
    }

    fn read_slot(env: &Env, slot: u64, header: &[u8; HEADER]) -> Result<Option<Manifest>> {
        if &header[..8] != MAGIC {
            return Ok(None);
        }
        let number = u64::from_le_bytes(header[8..16].try_into().expect("8 bytes"));
        let len = u64::from_le_bytes(header[16..24].try_into().expect("8 bytes"));
        let crc = u32::from_le_bytes(header[24..28].try_into().expect("4 bytes"));
        if len > env.band_size - HEADER as u64 {
            return Ok(None);
        }
        let mut payload = vec![0u8; len as usize];
        env.device.read(slot * env.band_size + HEADER as u64, &mut payload).map_err(|e| env.device_error(e))?;
        if crc32fast::hash(&payload) != crc {
            return Ok(None);
        }
        Ok(Self::decode_payload(number, &payload))
    }
}
