//! The segment-based layout of the HWSR paper (§2.2.1, §4.2): the address translation of
//! Eq. 1-5 from a logical sector to its region, segment, block and offset and to a physical
//! sector, and where that physical sector lies on the wave-like shingled disk (§2.2.2).
//!
//! A region is `S_reg` consecutive tracks of `S_T` sectors. It is cut radially into `n`
//! segments; a block is the `S_blk` sectors of one track inside one segment, so `n·S_blk = S_T`
//! and a segment holds `S_reg` blocks, one per track, logically consecutive blocks on adjacent
//! tracks (Fig. 3). `pba` is Eq. 5 verbatim: an address space of regions only, guard bands not
//! counted, as the paper's emulator has it.
//!
//! `disk_offset` then places a physical sector on the disk, which the paper leaves implicit:
//! regions go in pairs that shingle towards each other and share one guard band of `kappa`
//! tracks (Fig. 4c). The first region of a pair is written outward from its first track, the
//! second inward from its last, so its track `t` lies `t` tracks before the pair's far edge.
//! Not here: what a write costs (`segment_disk`) or the capacity model (`capacity`).

use smr_core::units::SECTOR;

/// The sizes that define the layout, in sectors and tracks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    /// `S_T`: sectors per track.
    pub track_sectors: u64,
    /// `S_blk`: sectors per block.
    pub block_sectors: u64,
    /// Tracks per region (and blocks per segment).
    pub region_tracks: u64,
    /// `kappa`: tracks a shingled write overlaps, the width of a guard band.
    pub kappa: u64,
}

/// Where a logical sector is, by Eq. 1-4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Address {
    pub region: u64,
    pub segment: u64,
    pub block: u64,
    pub offset: u64,
}

impl Geometry {
    /// `n`: segments per region.
    pub fn segments_per_region(&self) -> u64 {
        self.track_sectors / self.block_sectors
    }

    /// `S_reg` in sectors.
    pub fn region_sectors(&self) -> u64 {
        self.region_tracks * self.track_sectors
    }

    /// `S_seg`: sectors per segment.
    pub fn segment_sectors(&self) -> u64 {
        self.region_tracks * self.block_sectors
    }

    pub fn block_bytes(&self) -> u64 {
        self.block_sectors * SECTOR
    }

    pub fn segment_bytes(&self) -> u64 {
        self.segment_sectors() * SECTOR
    }

    pub fn track_bytes(&self) -> u64 {
        self.track_sectors * SECTOR
    }

    /// Eq. 1-4: region, segment within the region, block within the segment, sector within
    /// the block of logical sector `lba`.
    pub fn address(&self, lba: u64) -> Address {
        let region_sectors = self.region_sectors();
        let segment_sectors = self.segment_sectors();
        Address {
            region: lba / region_sectors,
            segment: (lba % region_sectors) / segment_sectors,
            block: (lba % segment_sectors) / self.block_sectors,
            offset: lba % self.block_sectors,
        }
    }

    /// Eq. 5: the physical sector of logical sector `lba`.
    pub fn pba(&self, lba: u64) -> u64 {
        let a = self.address(lba);
        a.region * self.region_sectors() + a.block * self.track_sectors + a.segment * self.block_sectors + a.offset
    }

    /// Tracks one pair of regions takes on the disk: both regions and their shared guard band.
    pub fn pair_tracks(&self) -> u64 {
        2 * self.region_tracks + self.kappa
    }

    /// The byte on the disk where physical sector `pba` (Eq. 5) is written.
    pub fn disk_offset(&self, pba: u64) -> u64 {
        let region = pba / self.region_sectors();
        let within = pba % self.region_sectors();
        let (track, sector) = (within / self.track_sectors, within % self.track_sectors);
        let pair_start = region / 2 * self.pair_tracks();
        let disk_track =
            if region.is_multiple_of(2) { pair_start + track } else { pair_start + self.pair_tracks() - 1 - track };
        (disk_track * self.track_sectors + sector) * SECTOR
    }

    /// The byte on the disk where cache block `block` (`lba / S_blk`) begins.
    #[inline]
    pub fn block_offset(&self, block: u64) -> u64 {
        self.disk_offset(self.pba(block * self.block_sectors))
    }

    /// Regions a disk of `disk_bytes` holds: whole pairs, and one more region if a lone one fits
    /// after them (the disk's edge needs no guard band).
    pub fn regions_on(&self, disk_bytes: u64) -> u64 {
        let tracks = disk_bytes / self.track_bytes();
        let pairs = tracks / self.pair_tracks();
        2 * pairs + u64::from(tracks - pairs * self.pair_tracks() >= self.region_tracks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fig. 2: eight segments per region, four blocks (tracks) per segment, eight sectors per
    /// block, so 64 sectors per track and 256 per region.
    const FIG2: Geometry = Geometry { track_sectors: 64, block_sectors: 8, region_tracks: 4, kappa: 2 };

    #[test]
    fn eq_1_to_5_on_figure_2() {
        assert_eq!(FIG2.segments_per_region(), 8);
        assert_eq!(FIG2.segment_sectors(), 32);
        // Region 1, segment 1, block 2, sector 3: LBA 256 + 32 + 16 + 3 = 307; block 2 lies on
        // the region's third track, segment 1's slice of it: PBA 256 + 2*64 + 1*8 + 3 = 395.
        assert_eq!(FIG2.address(307), Address { region: 1, segment: 1, block: 2, offset: 3 });
        assert_eq!(FIG2.pba(307), 395);
        // Block B0 of segment S0 begins both spaces; B1 of S0 is one track further.
        assert_eq!(FIG2.pba(0), 0);
        assert_eq!(FIG2.pba(8), 64);
        // The last sector of region 0 (S7, B3, sector 7) is the last sector of its last track.
        assert_eq!(FIG2.address(255), Address { region: 0, segment: 7, block: 3, offset: 7 });
        assert_eq!(FIG2.pba(255), 255);
    }

    #[test]
    fn eq_5_on_figure_9() {
        // Fig. 9: four blocks per segment; LBA1 reads block 3 of segment 5, LBA2 writes block 2.
        let lba1 = 5 * 32 + 3 * 8;
        assert_eq!(FIG2.address(lba1), Address { region: 0, segment: 5, block: 3, offset: 0 });
        assert_eq!(FIG2.pba(lba1), 3 * 64 + 5 * 8);
        let lba2 = 5 * 32 + 2 * 8 + 6;
        assert_eq!(FIG2.pba(lba2), 2 * 64 + 5 * 8 + 6);
    }

    #[test]
    fn consecutive_blocks_of_a_segment_lie_on_adjacent_tracks() {
        let paper = Geometry { track_sectors: 8192, block_sectors: 128, region_tracks: 32, kappa: 3 };
        for block in 0..31 {
            assert_eq!(paper.pba((block + 1) * 128) - paper.pba(block * 128), 8192);
        }
        // Block 0 of consecutive segments: side by side on one track.
        assert_eq!(paper.pba(32 * 128) - paper.pba(0), 128);
    }

    #[test]
    fn the_second_region_of_a_pair_is_mirrored_behind_the_shared_guard_band() {
        // Pair of FIG2 regions: tracks 0-3, guard 4-5, tracks 6-9 (region 1 mirrored).
        assert_eq!(FIG2.pair_tracks(), 10);
        assert_eq!(FIG2.disk_offset(0), 0);
        assert_eq!(FIG2.disk_offset(256), 9 * 64 * SECTOR, "region 1's first track is the pair's last");
        assert_eq!(FIG2.disk_offset(256 + 3 * 64 + 5), (6 * 64 + 5) * SECTOR, "its last track borders the guard band");
        assert_eq!(FIG2.disk_offset(512), 10 * 64 * SECTOR, "region 2 starts the next pair");
        // 25 tracks: two pairs and a lone region on the last five.
        assert_eq!(FIG2.regions_on(25 * 64 * SECTOR), 5);
        assert_eq!(FIG2.regions_on(23 * 64 * SECTOR), 4);
    }

    #[test]
    fn translation_is_a_bijection_onto_the_regions() {
        let mut seen = std::collections::HashSet::new();
        for lba in 0..3 * 256 {
            let pba = FIG2.pba(lba);
            assert!(pba < 3 * 256);
            assert!(seen.insert(pba), "{lba} maps onto a taken sector");
            assert!(seen.len() == 1 || FIG2.disk_offset(pba) / SECTOR < 3 * 10 * 64);
        }
    }
}
