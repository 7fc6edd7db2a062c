//! The request path: a host request is cut at user-zone boundaries and each piece served where
//! the zone is. A read is one I/O, or, when the zone has cached blocks, runs from the cache and
//! the zone. A write to a CMR zone is done in place; to an SMR zone at its write pointer,
//! appended (its stale cached copies dropped); elsewhere it is an NSW, for the cache or a zone
//! rewrite. Every write is also measured for the NSW-Range and the swapping baselines, and may
//! restart a migration copying its zone. Not here: what the cache does with an NSW (`clean`).

use smr_core::{Op, Request};

use super::clean::{run_io, Piece, Run};
use super::geometry::BLOCK;
use super::Fluid;
use smr_kernel::{IoCtx, SimError};

impl Fluid {
    /// Serves `req` piece by piece.
    pub fn serve(&mut self, req: &Request, ctx: &mut IoCtx) -> Result<(), SimError> {
        let zone_size = self.geo.zone_size;
        if req.op == Op::Write {
            self.version += 1;
        }
        let (mut at, end) = (req.offset, req.offset + req.len);
        while at < end {
            let user = (at / zone_size) as u32;
            let offset = at % zone_size;
            let len = (zone_size - offset).min(end - at);
            match req.op {
                Op::Read => self.read_piece(ctx, user, offset, len)?,
                Op::Write => self.write_piece(ctx, user, Piece { offset, len, version: self.version })?,
                Op::Trim => {}
            }
            at += len;
        }
        Ok(())
    }

    fn read_piece(&mut self, ctx: &mut IoCtx, user: u32, offset: u64, len: u64) -> Result<(), SimError> {
        self.nsw.access(user);
        self.touch(ctx, user)?;
        let zone = self.map.zone_of(user);
        let ch = self.ch.host;
        let cached = self.cache.as_ref().filter(|c| c.map.occupancy(user) > 0);
        let Some(cache) = cached else {
            self.drive.io(ctx, ch, Op::Read, zone, offset, len)?;
            return Ok(());
        };
        // The requested blocks, from the cache where an entry holds them and from the zone
        // between, each stretch one I/O.
        let base = user as u64 * self.geo.blocks_per_zone();
        let (first, end) = (base + offset / BLOCK, base + (offset + len).div_ceil(BLOCK));
        let mut runs: Vec<Run> = Vec::new();
        let mut at = first;
        for id in cache.map.overlapping(first, end) {
            let e = cache.map.get(id);
            if e.lba > at {
                runs.push((zone, at - base, e.lba - at));
            }
            let (cache_zone, block) = cache.locate(e.pba);
            let from = at.max(e.lba);
            let to = e.lba_end().min(end);
            runs.push((cache_zone, block + (from - e.lba), to - from));
            at = to;
        }
        if at < end {
            runs.push((zone, at - base, end - at));
        }
        run_io(&mut self.drive, ctx, ch, Op::Read, runs, |_, _, _, _| {})
    }

    fn write_piece(&mut self, ctx: &mut IoCtx, user: u32, piece: Piece) -> Result<(), SimError> {
        self.nsw.access(user);
        self.touch(ctx, user)?;
        self.written_now(user);
        self.migration_write_hook(user, piece.offset);
        let zone = self.map.zone_of(user);
        let cmr = self.drive.is_cmr(zone);
        let write_pointer = if cmr { self.map.valid(user) } else { self.drive.written(zone) };
        let sequential = piece.offset == write_pointer;
        if !sequential {
            self.nsw.nsw(user, piece.offset, piece.len);
        }
        if cmr {
            return self.write_cmr(ctx, user, piece);
        }
        if sequential {
            self.counts.sequential_writes += 1;
            self.drive.io(ctx, self.ch.host, Op::Write, zone, piece.offset, piece.len)?;
            self.store_piece(zone, piece);
            self.drop_cached(user, piece.offset, piece.len);
            self.map.extend_valid(user, piece.offset + piece.len);
            return Ok(());
        }
        self.counts.nsw_writes += 1;
        if self.has_cache() {
            self.cache_write(ctx, user, piece)
        } else {
            self.rewrite_zone(ctx, self.ch.rmw, user, Some(piece))
        }
    }

    /// A write to CMR user zone `user`, in place.
    pub fn write_cmr(&mut self, ctx: &mut IoCtx, user: u32, piece: Piece) -> Result<(), SimError> {
        let zone = self.map.zone_of(user);
        self.counts.cmr_writes += 1;
        self.drive.io(ctx, self.ch.host, Op::Write, zone, piece.offset, piece.len)?;
        self.store_piece(zone, piece);
        self.map.extend_valid(user, piece.offset + piece.len);
        Ok(())
    }

    /// What a read of block `block` of user zone `user` returns, when the drive keeps contents:
    /// the cache's copy if it has one, else the zone's.
    pub fn block_version(&self, user: u32, block: u64) -> Option<u64> {
        let lba = user as u64 * self.geo.blocks_per_zone() + block;
        let cached = self.cache.as_ref().and_then(|c| c.map.holding(lba).map(|id| (c, c.map.get(id))));
        let (zone, at) = match cached {
            Some((c, e)) => c.locate(e.pba + (lba - e.lba) as u32),
            None => (self.map.zone_of(user), block),
        };
        self.drive.image(zone, at, 1).and_then(|v| v[0])
    }

    /// Records the blocks `piece` wrote in `zone` (whole blocks, as the cache keeps them).
    fn store_piece(&mut self, zone: u32, piece: Piece) {
        let first = piece.offset / BLOCK;
        self.drive.store(zone, first, (piece.offset + piece.len - 1) / BLOCK + 1 - first, piece.version);
    }
}
