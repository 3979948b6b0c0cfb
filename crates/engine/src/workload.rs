//! Offset and direction generators: what the next I/O is.
//!
//! Sequential patterns walk the worker's own region and wrap at its end (as
//! fio does for time-based runs); random patterns draw block-aligned offsets
//! uniformly over the whole target from a seeded generator (fastrand's
//! wyrand), so a run with the same seed issues the same offsets.
//!
//! The worker loop asks an [`IoStream`] for each I/O, so a model (datafile
//! reads with single-block and multiblock reads, for instance) supplies its
//! own variable-size, classed I/Os without a second worker loop. Skewed
//! block choice (hot set, zipf) lives in [`BlockPicker`], shared by models.

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

/// One I/O a stream asks the worker for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Io {
    /// Read or write.
    pub dir: Dir,
    /// Byte offset.
    pub offset: u64,
    /// Length in bytes (at most the worker's buffer length).
    pub len: u32,
    /// The stream's class of this I/O (e.g. single-block or multiblock
    /// read); recorders may split by it. 0 when a stream has one class.
    pub class: u8,
}

/// A source of I/Os for one worker. Called once per I/O in the measurement
/// loop: it must not allocate, print or block.
pub trait IoStream {
    /// The next I/O.
    fn next(&mut self) -> Io;
}

impl IoStream for Workload {
    #[inline]
    fn next(&mut self) -> Io {
        let (dir, offset) = self.next_io();
        Io {
            dir,
            offset,
            len: self.bs as u32,
            class: 0,
        }
    }
}

/// How random block numbers are distributed over a file: part of a
/// model's configuration, so it lives in the model.
pub use dbio_model::read::Access;

/// Terms of the zipf normalisation summed exactly; beyond them the sum is
/// completed with the integral of `x^-theta` (Euler–Maclaurin's leading
/// term), whose error is below `EXACT_TERMS^-theta` in absolute terms, i.e.
/// below 1e-6 of a sum that is at least 1 (the first term) for theta > 1,
/// and relatively smaller still for theta < 1 where the sum grows with n.
const ZIPF_EXACT_TERMS: u64 = 1_000_000;

fn zeta(n: u64, theta: f64) -> f64 {
    let m = n.min(ZIPF_EXACT_TERMS);
    let mut sum: f64 = (1..=m).map(|i| (i as f64).powf(-theta)).sum();
    if n > m {
        // sum_{m+1..n} x^-theta ≈ ∫_{m+0.5}^{n+0.5} x^-theta dx
        let e = 1.0 - theta;
        sum += ((n as f64 + 0.5).powf(e) - (m as f64 + 0.5).powf(e)) / e;
    }
    sum
}

/// Draws block numbers in `0..blocks` with an [`Access`] distribution.
/// Zipf uses Gray et al., "Quickly generating billion-record synthetic
/// databases" (SIGMOD 1994), the generator fio's `zipf` also uses: O(n)
/// set-up, O(1) per draw, no allocation.
#[derive(Debug, Clone)]
pub struct BlockPicker {
    blocks: u64,
    kind: PickerKind,
}

#[derive(Debug, Clone)]
enum PickerKind {
    Uniform,
    Zipf {
        zetan: f64,
        eta: f64,
        alpha: f64,
        two_edge: f64,
    },
    Hot {
        hot: u64,
        /// Draws below this (out of 2^32) go to the hot set.
        cut: u64,
    },
}

impl BlockPicker {
    /// A picker over `blocks` blocks (at least 1).
    pub fn new(access: Access, blocks: u64) -> Self {
        let blocks = blocks.max(1);
        let kind = match access {
            Access::Uniform => PickerKind::Uniform,
            Access::Zipf { theta } => {
                let zetan = zeta(blocks, theta);
                let zeta2 = zeta(2, theta);
                let n = blocks as f64;
                PickerKind::Zipf {
                    zetan,
                    eta: (1.0 - (2.0 / n).powf(1.0 - theta)) / (1.0 - zeta2 / zetan),
                    alpha: 1.0 / (1.0 - theta),
                    two_edge: 1.0 + 0.5f64.powf(theta),
                }
            }
            Access::Hot {
                data_pct,
                access_pct,
            } => PickerKind::Hot {
                hot: ((blocks as f64 * data_pct / 100.0).round() as u64).clamp(1, blocks),
                cut: (access_pct / 100.0 * (1u64 << 32) as f64) as u64,
            },
        };
        Self { blocks, kind }
    }

    /// Blocks the picker draws from.
    pub fn blocks(&self) -> u64 {
        self.blocks
    }

    /// The next block number.
    #[inline]
    pub fn pick(&self, rng: &mut fastrand::Rng) -> u64 {
        match self.kind {
            PickerKind::Uniform => rng.u64(0..self.blocks),
            PickerKind::Zipf {
                zetan,
                eta,
                alpha,
                two_edge,
            } => {
                let u = rng.f64();
                let uz = u * zetan;
                if uz < 1.0 || self.blocks == 1 {
                    0
                } else if uz < two_edge {
                    1
                } else {
                    let r = (self.blocks as f64 * (eta * u - eta + 1.0).powf(alpha)) as u64;
                    r.min(self.blocks - 1)
                }
            }
            PickerKind::Hot { hot, cut } => {
                if hot == self.blocks || (rng.u32(..) as u64) < cut {
                    rng.u64(0..hot)
                } else {
                    rng.u64(hot..self.blocks)
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zeta_beyond_the_exact_terms_matches_the_exact_sum() {
        // Past ZIPF_EXACT_TERMS the tail is an integral; against the exact
        // sum of 3 million terms it must hold the documented 1e-6.
        for theta in [0.5, 0.99, 1.2] {
            let n = 3 * ZIPF_EXACT_TERMS;
            let exact: f64 = (1..=n).map(|i| (i as f64).powf(-theta)).sum();
            let err = (zeta(n, theta) - exact).abs() / exact;
            assert!(err < 1e-6, "theta {theta}: relative error {err:e}");
        }
    }

    #[test]
    fn access_parsing() {
        assert_eq!(Access::parse("uniform").unwrap(), Access::Uniform);
        assert_eq!(
            Access::parse("zipf:1.2").unwrap(),
            Access::Zipf { theta: 1.2 }
        );
        assert_eq!(
            Access::parse("hot:10/90").unwrap(),
            Access::Hot {
                data_pct: 10.0,
                access_pct: 90.0
            }
        );
        assert!(Access::parse("zipf:1").unwrap_err().contains("not 1"));
        assert!(Access::parse("hot:0/90").is_err());
        assert!(Access::parse("hot:10")
            .unwrap_err()
            .contains("hot:DATA/ACCESS"));
        assert!(Access::parse("pareto:0.2").unwrap_err().contains("unknown"));
        assert_eq!(Access::parse("hot:10/90").unwrap().to_string(), "hot:10/90");
    }

    #[test]
    fn hot_set_gets_its_share() {
        let p = BlockPicker::new(
            Access::Hot {
                data_pct: 10.0,
                access_pct: 90.0,
            },
            1000,
        );
        let mut rng = fastrand::Rng::with_seed(7);
        let n = 100_000;
        let hot = (0..n).filter(|_| p.pick(&mut rng) < 100).count();
        // Binomial(100000, 0.9): sd ≈ 95, so ±1000 is > 10 sd.
        assert!((89_000..91_000).contains(&hot), "{hot}");
    }

    #[test]
    fn zipf_matches_its_probabilities() {
        let theta = 1.2;
        let blocks = 1000;
        let p = BlockPicker::new(Access::Zipf { theta }, blocks);
        let mut rng = fastrand::Rng::with_seed(11);
        let n = 200_000u64;
        let mut counts = vec![0u64; blocks as usize];
        for _ in 0..n {
            counts[p.pick(&mut rng) as usize] += 1;
        }
        // Gray's generator is exact for ranks 1 and 2: P(k) = k^-theta / zeta(n).
        let z = zeta(blocks, theta);
        for (k, &c) in counts.iter().enumerate().take(2) {
            let want = n as f64 * ((k + 1) as f64).powf(-theta) / z;
            let got = c as f64;
            assert!(
                (got - want).abs() < 5.0 * want.sqrt(),
                "rank {k}: {got} vs {want}"
            );
        }
        // Heavily skewed: the first 10 % of blocks get most draws.
        let head: u64 = counts[..100].iter().sum();
        assert!(head as f64 > 0.7 * n as f64, "{head}");
        assert!(counts.iter().all(|&c| c < n));
    }

    #[test]
    fn zeta_tail_approximation_is_tight() {
        // Exact sum vs the integral completion, checked on a size where
        // both are cheap: complete after 1000 terms instead of 1e6.
        for theta in [0.8, 1.2] {
            let n = 200_000u64;
            let exact: f64 = (1..=n).map(|i| (i as f64).powf(-theta)).sum();
            let m = 1000u64;
            let head: f64 = (1..=m).map(|i| (i as f64).powf(-theta)).sum();
            let e = 1.0 - theta;
            let approx = head + ((n as f64 + 0.5).powf(e) - (m as f64 + 0.5).powf(e)) / e;
            assert!(
                (approx - exact).abs() / exact < 1e-6,
                "{theta}: {approx} {exact}"
            );
        }
    }

    #[test]
    fn io_stream_of_workload_is_fixed_size() {
        let mut w = Workload::new(Pattern::Randread, 0, 8192, 8192 * 10, 1, 0, 1);
        let io = IoStream::next(&mut w);
        assert_eq!((io.len, io.class, io.dir), (8192, 0, Dir::Read));
    }

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
