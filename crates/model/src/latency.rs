//! Latency distributions as they appear in a result.
//!
//! Measurement uses HDR histograms (hdrhistogram crate, 2 significant digits:
//! at most 1 % relative error over 1 ns .. 100 s). A result keeps a summary
//! (count, min, max, mean, standard deviation, fixed percentiles) and the
//! power-of-two microsecond buckets that Oracle's wait histograms, AWR and
//! Kyle Hailey's parsetrc.pl use, so that dbio's histograms line up with the
//! ones DBAs already read.

use hdrhistogram::Histogram;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Percentiles every latency summary reports (fio's default list plus p99.99).
pub const REPORTED_PERCENTILES: [f64; 6] = [50.0, 90.0, 99.0, 99.9, 99.99, 100.0];

/// One percentile of a distribution.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Percentile {
    /// The percentile, 0..=100.
    pub p: f64,
    /// The value at that percentile in nanoseconds (the upper edge of the
    /// HDR bucket holding it: at most 1 % above the exact value).
    pub ns: u64,
}

/// Counts on power-of-two microsecond buckets.
///
/// Bucket 0 holds latencies below 1 µs; bucket `b >= 1` holds
/// `2^(b-1) µs <= latency < 2^b µs`. This is parsetrc.pl's
/// `int(log(ela)/log(2) + 1)` and AWR's `<1us <2us <4us ...` convention.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Log2Buckets {
    /// Count per bucket; trailing empty buckets are not stored.
    pub counts: Vec<u64>,
}

impl Log2Buckets {
    /// The bucket that holds a latency of `us` whole microseconds.
    pub fn index_of_us(us: u64) -> usize {
        if us == 0 {
            0
        } else {
            (64 - us.leading_zeros()) as usize
        }
    }

    /// Counts one latency given in whole microseconds.
    pub fn record_us(&mut self, us: u64) {
        self.record_us_n(us, 1);
    }

    /// Counts `n` latencies of `us` whole microseconds.
    pub fn record_us_n(&mut self, us: u64, n: u64) {
        let i = Self::index_of_us(us);
        if self.counts.len() <= i {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += n;
    }

    /// Adds another bucket set into this one.
    pub fn merge(&mut self, other: &Log2Buckets) {
        if self.counts.len() < other.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
    }

    /// Total count over all buckets.
    pub fn total(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// Upper edge of bucket `b` in microseconds (exclusive): 1, 2, 4, ...
    pub fn upper_us(b: usize) -> u64 {
        1u64 << b.min(63)
    }

    /// Label of bucket `b` as AWR prints it: `<1us`, `<2us`, ..., `<512us`,
    /// then `<1ms` for 1,024 µs, `<2ms`, ... (AWR's labels round the
    /// power-of-two edges to milliseconds and seconds the same way).
    pub fn label(b: usize) -> String {
        let upper = Self::upper_us(b);
        if upper < 1024 {
            format!("<{upper}us")
        } else if upper < 1024 * 1024 {
            format!("<{}ms", upper / 1024)
        } else {
            format!("<{}s", upper / (1024 * 1024))
        }
    }
}

/// Summary of one latency distribution.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LatencySummary {
    /// Number of samples.
    pub count: u64,
    /// Smallest sample, ns.
    pub min_ns: u64,
    /// Largest sample, ns.
    pub max_ns: u64,
    /// Mean, ns.
    pub mean_ns: f64,
    /// Standard deviation, ns.
    pub stdev_ns: f64,
    /// The [`REPORTED_PERCENTILES`].
    pub percentiles: Vec<Percentile>,
    /// Power-of-two microsecond histogram.
    pub log2_us: Log2Buckets,
    /// The HDR histogram itself: `[value_ns, count]` for each non-empty
    /// bucket, the value being the bucket's highest equivalent value. Kept
    /// so that results of several hosts merge exactly (`dbio merge`): the
    /// merged percentiles are those of one histogram holding every sample,
    /// within the same 1 % as a single run's. Empty in results written
    /// before it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hdr: Vec<[u64; 2]>,
}

impl LatencySummary {
    /// Summarises an HDR histogram of nanosecond values.
    pub fn from_histogram(h: &Histogram<u64>) -> Self {
        if h.is_empty() {
            return Self::default();
        }
        let percentiles = REPORTED_PERCENTILES
            .iter()
            .map(|&p| Percentile {
                p,
                ns: if p >= 100.0 {
                    h.max()
                } else {
                    h.value_at_quantile(p / 100.0)
                },
            })
            .collect();
        let mut log2_us = Log2Buckets::default();
        let mut hdr = Vec::new();
        for v in h.iter_recorded() {
            // Each HDR bucket is narrower than 1 % of its value, so an HDR
            // bucket straddles a power-of-two edge only within that 1 %.
            log2_us.record_us_n(v.value_iterated_to() / 1000, v.count_at_value());
            hdr.push([v.value_iterated_to(), v.count_at_value()]);
        }
        Self {
            hdr,
            count: h.len(),
            min_ns: h.min(),
            max_ns: h.max(),
            mean_ns: h.mean(),
            stdev_ns: h.stdev(),
            percentiles,
            log2_us,
        }
    }

    /// Merges the summaries of several runs into the summary of one run
    /// that recorded all their samples. Count, minimum, maximum, mean,
    /// standard deviation (population, combined with the parallel-variance
    /// formula) and the power-of-two buckets are exact; the percentiles
    /// are read from the sum of the stored HDR histograms, so they are
    /// exact to the HDR bucket (1 %) when every non-empty part carries its
    /// histogram. The second value is false when one does not (a result
    /// written before `hdr` existed): the percentiles are then left out
    /// rather than guessed.
    pub fn merge_exact(parts: &[&LatencySummary]) -> (LatencySummary, bool) {
        let parts: Vec<&LatencySummary> = parts.iter().copied().filter(|p| p.count > 0).collect();
        if parts.is_empty() {
            return (LatencySummary::default(), true);
        }
        let count: u64 = parts.iter().map(|p| p.count).sum();
        let n = count as f64;
        let mean = parts
            .iter()
            .map(|p| p.count as f64 * p.mean_ns)
            .sum::<f64>()
            / n;
        let var = parts
            .iter()
            .map(|p| p.count as f64 * (p.stdev_ns.powi(2) + (p.mean_ns - mean).powi(2)))
            .sum::<f64>()
            / n;
        let mut log2_us = Log2Buckets::default();
        for p in &parts {
            log2_us.merge(&p.log2_us);
        }
        let exact = parts
            .iter()
            .all(|p| p.hdr.iter().map(|b| b[1]).sum::<u64>() == p.count);
        let max_ns = parts.iter().map(|p| p.max_ns).max().unwrap_or(0);
        let mut out = LatencySummary {
            count,
            min_ns: parts.iter().map(|p| p.min_ns).min().unwrap_or(0),
            max_ns,
            mean_ns: mean,
            stdev_ns: var.sqrt(),
            percentiles: Vec::new(),
            log2_us,
            hdr: Vec::new(),
        };
        if exact {
            // The stored values are each bucket's highest equivalent value,
            // which falls in the same bucket of a histogram of the same
            // precision (1 ns .. 100 s, 2 significant digits, as recorded).
            let mut h = Histogram::<u64>::new_with_bounds(1, 100_000_000_000, 2)
                .expect("static histogram bounds are valid");
            for p in &parts {
                for b in &p.hdr {
                    let v = b[0].clamp(1, 100_000_000_000);
                    let _ = h.record_n(v, b[1]);
                }
            }
            let merged = Self::from_histogram(&h);
            out.percentiles = merged
                .percentiles
                .into_iter()
                .map(|mut x| {
                    if x.p >= 100.0 {
                        x.ns = max_ns;
                    }
                    x
                })
                .collect();
            out.hdr = merged.hdr;
        }
        (out, exact)
    }

    /// The value at percentile `p` if it is one of the reported ones.
    pub fn percentile_ns(&self, p: f64) -> Option<u64> {
        self.percentiles
            .iter()
            .find(|x| (x.p - p).abs() < 1e-9)
            .map(|x| x.ns)
    }

    /// Median, ns (0 when empty).
    pub fn p50_ns(&self) -> u64 {
        self.percentile_ns(50.0).unwrap_or(0)
    }

    /// 99th percentile, ns (0 when empty).
    pub fn p99_ns(&self) -> u64 {
        self.percentile_ns(99.0).unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log2_bucket_edges_follow_parsetrc() {
        assert_eq!(Log2Buckets::index_of_us(0), 0);
        assert_eq!(Log2Buckets::index_of_us(1), 1);
        assert_eq!(Log2Buckets::index_of_us(2), 2);
        assert_eq!(Log2Buckets::index_of_us(3), 2);
        assert_eq!(Log2Buckets::index_of_us(63), 6);
        assert_eq!(Log2Buckets::index_of_us(64), 7);
        assert_eq!(Log2Buckets::index_of_us(131_071), 17);
        assert_eq!(Log2Buckets::index_of_us(131_072), 18);
        assert_eq!(Log2Buckets::label(0), "<1us");
        assert_eq!(Log2Buckets::label(10), "<1ms");
        assert_eq!(Log2Buckets::label(21), "<2s");
    }

    #[test]
    fn summary_percentiles_within_one_percent() {
        let mut h = Histogram::<u64>::new_with_bounds(1, 100_000_000_000, 2).unwrap();
        for v in 1..=10_000u64 {
            h.record(v * 1000).unwrap();
        }
        let s = LatencySummary::from_histogram(&h);
        assert_eq!(s.count, 10_000);
        let p50 = s.p50_ns() as f64;
        assert!((p50 - 5_000_000.0).abs() / 5_000_000.0 <= 0.01, "{p50}");
        let p99 = s.p99_ns() as f64;
        assert!((p99 - 9_900_000.0).abs() / 9_900_000.0 <= 0.01, "{p99}");
        assert_eq!(s.log2_us.total(), 10_000);
        // 1..=10_000 µs: bucket 1 holds exactly the value 1 µs.
        assert_eq!(s.log2_us.counts[1], 1);
    }

    #[test]
    fn merged_summaries_equal_the_summary_of_all_samples() {
        let new = || Histogram::<u64>::new_with_bounds(1, 100_000_000_000, 2).unwrap();
        let (mut a, mut b, mut all) = (new(), new(), new());
        for v in 1..=3_000u64 {
            a.record(v * 977).unwrap();
            all.record(v * 977).unwrap();
        }
        for v in 1..=500u64 {
            b.record(5_000_000 + v * 10_007).unwrap();
            all.record(5_000_000 + v * 10_007).unwrap();
        }
        let (sa, sb) = (
            LatencySummary::from_histogram(&a),
            LatencySummary::from_histogram(&b),
        );
        let want = LatencySummary::from_histogram(&all);
        let (got, exact) = LatencySummary::merge_exact(&[&sa, &sb]);
        assert!(exact);
        assert_eq!(got.count, want.count);
        assert_eq!((got.min_ns, got.max_ns), (want.min_ns, want.max_ns));
        assert_eq!(got.percentiles, want.percentiles);
        assert_eq!(got.log2_us, want.log2_us);
        assert_eq!(got.hdr, want.hdr);
        assert!((got.mean_ns - want.mean_ns).abs() / want.mean_ns < 1e-9);
        assert!((got.stdev_ns - want.stdev_ns).abs() / want.stdev_ns < 1e-6);
        // A part without its histogram: no percentiles rather than guesses.
        let old = LatencySummary {
            hdr: Vec::new(),
            ..sb.clone()
        };
        let (got, exact) = LatencySummary::merge_exact(&[&sa, &old]);
        assert!(!exact);
        assert!(got.percentiles.is_empty());
        assert_eq!(got.count, want.count);
    }

    #[test]
    fn merge_adds_bucketwise() {
        let mut a = Log2Buckets::default();
        a.record_us(5);
        let mut b = Log2Buckets::default();
        b.record_us(5);
        b.record_us(5000);
        a.merge(&b);
        assert_eq!(a.counts[3], 2);
        assert_eq!(a.total(), 3);
    }
}
