//! Offset and direction generators: what the next I/O is.
//!
//! Sequential patterns walk the worker's own region and wrap at its end (as
//! fio does for time-based runs); random patterns draw block-aligned offsets
//! uniformly over the whole target from a seeded generator (fastrand's
//! wyrand), so a run with the same seed issues the same offsets.

use crate::engines::Dir;
use dbio_model::Pattern;

/// The generator of one worker.
pub struct Workload {
    random: bool,
    read_pct: u8,
    bs: u64,
    /// First byte of this worker's sequential region.
    seq_start: u64,
    /// Blocks in this worker's sequential region.
    seq_blocks: u64,
    /// Next sequential block within the region.
    seq_next: u64,
    /// Blocks in the whole target (random range).
    all_blocks: u64,
    rng: fastrand::Rng,
}

impl Workload {
    /// Worker `index` of `workers` over `size` bytes in blocks of `bs`.
    /// Sequential workers get disjoint slices of the target so they never
    /// write the same block; random workers share it with distinct seeds.
    pub fn new(
        pattern: Pattern,
        mixed_read_pct: u8,
        bs: u64,
        size: u64,
        seed: u64,
        index: u32,
        workers: u32,
    ) -> Self {
        let all_blocks = size / bs;
        let per_worker = (all_blocks / workers as u64).max(1);
        Self {
            random: pattern.is_random(),
            read_pct: pattern.read_pct(mixed_read_pct),
            bs,
            seq_start: per_worker * index as u64 * bs,
            seq_blocks: per_worker,
            seq_next: 0,
            all_blocks,
            rng: fastrand::Rng::with_seed(
                seed ^ (index as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15),
            ),
        }
    }

    /// The next I/O: direction and byte offset.
    #[inline]
    pub fn next_io(&mut self) -> (Dir, u64) {
        let dir = match self.read_pct {
            100 => Dir::Read,
            0 => Dir::Write,
            p => {
                if self.rng.u8(0..100) < p {
                    Dir::Read
                } else {
                    Dir::Write
                }
            }
        };
        let offset = if self.random {
            self.rng.u64(0..self.all_blocks) * self.bs
        } else {
            let o = self.seq_start + self.seq_next * self.bs;
            self.seq_next += 1;
            if self.seq_next == self.seq_blocks {
                self.seq_next = 0;
            }
            o
        };
        (dir, offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequential_regions_are_disjoint_and_wrap() {
        let mut a = Workload::new(Pattern::Write, 0, 4096, 4096 * 8, 1, 0, 2);
        let mut b = Workload::new(Pattern::Write, 0, 4096, 4096 * 8, 1, 1, 2);
        let oa: Vec<u64> = (0..5).map(|_| a.next_io().1).collect();
        let ob: Vec<u64> = (0..4).map(|_| b.next_io().1).collect();
        assert_eq!(oa, vec![0, 4096, 8192, 12288, 0]);
        assert_eq!(ob, vec![16384, 20480, 24576, 28672]);
    }

    #[test]
    fn random_offsets_are_aligned_in_range_and_seeded() {
        let mut a = Workload::new(Pattern::Randread, 0, 8192, 8192 * 100, 42, 0, 1);
        let mut b = Workload::new(Pattern::Randread, 0, 8192, 8192 * 100, 42, 0, 1);
        for _ in 0..1000 {
            let (d, o) = a.next_io();
            assert_eq!(d, Dir::Read);
            assert_eq!(o % 8192, 0);
            assert!(o < 8192 * 100);
            assert_eq!(b.next_io().1, o);
        }
    }

    #[test]
    fn mixed_ratio_is_close() {
        let mut w = Workload::new(Pattern::Randrw, 70, 4096, 4096 * 100, 3, 0, 1);
        let reads = (0..10_000).filter(|_| w.next_io().0 == Dir::Read).count();
        assert!((6700..7300).contains(&reads), "{reads}");
    }
}
