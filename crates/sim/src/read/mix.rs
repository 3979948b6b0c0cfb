//! The I/O stream of one reader: single-block random reads and multiblock
//! scan reads, mixed in a ratio.
//!
//! Single-block reads ('db file sequential read', an index lookup) go to a
//! block drawn from the access distribution over the whole file. Multiblock
//! reads ('db file scattered read', a full scan) walk the reader's own slice
//! of the file in chunks of `multiblock_count` blocks and wrap; the chunk
//! that reaches the end of the slice is cut short there, as a database cuts
//! a multiblock read at the end of an extent, which is why reads of one
//! kind can come in several sizes. On a stripe (`--targets`) a chunk is
//! also cut at the end of its stripe unit ([`ReadMix::with_unit`]), as
//! Oracle's scattered reads stop at an ASM allocation unit: a read never
//! straddles two members, and a cut read counts as one read of its own
//! (shorter) size.

use dbio_engine::engines::Dir;
use dbio_engine::workload::{BlockPicker, Io, IoStream};
use dbio_model::read::ReadKind;

/// The stream of reader `index` of `readers`.
pub struct ReadMix {
    bs: u64,
    mbrc: u64,
    multi_pct: u8,
    picker: BlockPicker,
    scan_start: u64,
    scan_blocks: u64,
    scan_next: u64,
    /// Blocks per stripe unit (u64::MAX: not striped).
    unit_blocks: u64,
    rng: fastrand::Rng,
}

impl ReadMix {
    /// A stream over `picker.blocks()` blocks of `bs` bytes; `multi_pct` %
    /// of the reads read `mbrc` blocks at a time.
    pub fn new(
        picker: BlockPicker,
        bs: u64,
        mbrc: u32,
        multi_pct: u8,
        seed: u64,
        index: u32,
        readers: u32,
    ) -> Self {
        let blocks = picker.blocks();
        let per = (blocks / u64::from(readers.max(1))).max(1);
        let scan_start = (per * u64::from(index)).min(blocks - 1);
        Self {
            bs,
            mbrc: u64::from(mbrc.max(1)),
            multi_pct,
            picker,
            scan_start,
            scan_blocks: per.min(blocks - scan_start),
            scan_next: 0,
            unit_blocks: u64::MAX,
            rng: fastrand::Rng::with_seed(
                seed ^ u64::from(index).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            ),
        }
    }
}

impl ReadMix {
    /// Cuts multiblock reads at every multiple of `unit_blocks` blocks
    /// (the stripe unit), so that none straddles two members.
    pub fn with_unit(mut self, unit_blocks: u64) -> Self {
        self.unit_blocks = unit_blocks.max(1);
        self
    }
}

impl IoStream for ReadMix {
    #[inline]
    fn next(&mut self) -> Io {
        let multi = self.multi_pct > 0 && self.rng.u8(0..100) < self.multi_pct;
        if multi {
            let block = self.scan_start + self.scan_next;
            let n = self
                .mbrc
                .min(self.scan_blocks - self.scan_next)
                .min(self.unit_blocks - block % self.unit_blocks);
            self.scan_next += n;
            if self.scan_next >= self.scan_blocks {
                self.scan_next = 0;
            }
            Io {
                dir: Dir::Read,
                offset: block * self.bs,
                len: (n * self.bs) as u32,
                class: ReadKind::Multi.class(),
            }
        } else {
            Io {
                dir: Dir::Read,
                offset: self.picker.pick(&mut self.rng) * self.bs,
                len: self.bs as u32,
                class: ReadKind::Single.class(),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_engine::workload::Access;

    #[test]
    fn scans_are_cut_at_the_end_of_the_slice_and_wrap() {
        // 20 blocks, 2 readers: slices of 10; mbrc 4 gives 4, 4, 2, 4, ...
        let p = BlockPicker::new(Access::Uniform, 20);
        let mut r1 = ReadMix::new(p, 8192, 4, 100, 1, 1, 2);
        let got: Vec<(u64, u32)> = (0..4)
            .map(|_| {
                let io = r1.next();
                assert_eq!(io.class, 1);
                (io.offset / 8192, io.len / 8192)
            })
            .collect();
        assert_eq!(got, vec![(10, 4), (14, 4), (18, 2), (10, 4)]);
    }

    #[test]
    fn scans_are_cut_at_the_end_of_a_stripe_unit() {
        // Units of 6 blocks, one reader over 20: 4, 2 (unit end at 6),
        // 4, 2 (at 12), 4, 2 (at 18), 2 (slice end), then 4 from 0.
        let p = BlockPicker::new(Access::Uniform, 20);
        let mut r = ReadMix::new(p, 8192, 4, 100, 1, 0, 1).with_unit(6);
        let got: Vec<(u64, u64)> = (0..8)
            .map(|_| {
                let io = r.next();
                (io.offset / 8192, u64::from(io.len) / 8192)
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (0, 4),
                (4, 2),
                (6, 4),
                (10, 2),
                (12, 4),
                (16, 2),
                (18, 2),
                (0, 4)
            ]
        );
        for (b, n) in got {
            assert_eq!(b / 6, (b + n - 1) / 6, "a read straddles a unit");
        }
    }

    #[test]
    fn mix_ratio_and_single_block_range() {
        let p = BlockPicker::new(Access::Uniform, 1000);
        let mut r = ReadMix::new(p, 8192, 16, 20, 9, 0, 1);
        let mut multi = 0;
        let mut seen = std::collections::HashSet::new();
        for _ in 0..10_000 {
            let io = r.next();
            if io.class == 1 {
                multi += 1;
            } else {
                assert_eq!(io.len, 8192);
                assert!(io.offset < 1000 * 8192 && io.offset.is_multiple_of(8192));
                seen.insert(io.offset);
            }
        }
        // Binomial(10000, 0.2): sd 40.
        assert!((1800..2200).contains(&multi), "{multi}");
        // About 8000 uniform single-block reads over 1000 blocks reach
        // nearly every block (each is missed with probability e^-8).
        assert!(seen.len() > 990, "{} distinct blocks", seen.len());
    }
}
