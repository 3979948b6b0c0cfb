//! Live counters that the reporter thread reads while workers run.
//!
//! Each worker owns one [`LiveCounters`] and is its only writer, so updates
//! are a relaxed load and store (a plain `mov` on x86_64, no locked
//! read-modify-write) and the reporter never blocks a worker. Interval
//! percentiles use log-linear buckets with 8 sub-buckets per power of two:
//! a bucket's width is at most 1/8 of its lower edge, so a per-second
//! percentile is within 12.5 % of the true value. The final statistics come
//! from the HDR histograms, not from these.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

/// Number of log-linear latency buckets (covers 0 .. 2^64 ns).
pub const LIVE_BUCKETS: usize = 8 + 61 * 8;

/// The log-linear bucket of a latency in ns.
#[inline]
pub fn live_bucket(ns: u64) -> usize {
    if ns < 8 {
        ns as usize
    } else {
        let msb = 63 - ns.leading_zeros() as usize; // >= 3
        let sub = ((ns >> (msb - 3)) & 7) as usize;
        8 + (msb - 3) * 8 + sub
    }
}

/// The upper edge (inclusive) of bucket `i`, ns.
pub fn live_bucket_upper(i: usize) -> u64 {
    if i < 8 {
        i as u64
    } else {
        let msb = (i - 8) / 8 + 3;
        let sub = ((i - 8) % 8) as u64;
        (((8 + sub + 1) as u128) << (msb - 3))
            .saturating_sub(1)
            .min(u64::MAX as u128) as u64
    }
}

/// One worker's live counters, on their own cache lines.
#[repr(align(128))]
pub struct LiveCounters {
    /// Completed reads.
    pub reads: AtomicU64,
    /// Completed writes.
    pub writes: AtomicU64,
    /// Bytes transferred.
    pub bytes: AtomicU64,
    /// Total-latency buckets of completed I/Os.
    pub buckets: Box<[AtomicU64]>,
}

impl Default for LiveCounters {
    fn default() -> Self {
        Self {
            reads: AtomicU64::new(0),
            writes: AtomicU64::new(0),
            bytes: AtomicU64::new(0),
            buckets: (0..LIVE_BUCKETS).map(|_| AtomicU64::new(0)).collect(),
        }
    }
}

#[inline]
fn bump(a: &AtomicU64, by: u64) {
    a.store(a.load(Relaxed) + by, Relaxed);
}

impl LiveCounters {
    /// Counts one completed I/O. Must only be called by the owning worker.
    #[inline]
    pub fn count(&self, is_read: bool, bytes: u64, lat_ns: u64) {
        bump(if is_read { &self.reads } else { &self.writes }, 1);
        bump(&self.bytes, bytes);
        bump(&self.buckets[live_bucket(lat_ns)], 1);
    }
}

/// A snapshot summed over workers, for differencing.
#[derive(Clone)]
pub struct LiveSnapshot {
    /// Reads so far.
    pub reads: u64,
    /// Writes so far.
    pub writes: u64,
    /// Bytes so far.
    pub bytes: u64,
    /// Bucket counts so far.
    pub buckets: Vec<u64>,
}

impl LiveSnapshot {
    /// Sums the counters of all workers.
    pub fn take(all: &[LiveCounters]) -> Self {
        let mut s = LiveSnapshot {
            reads: 0,
            writes: 0,
            bytes: 0,
            buckets: vec![0; LIVE_BUCKETS],
        };
        for c in all {
            s.reads += c.reads.load(Relaxed);
            s.writes += c.writes.load(Relaxed);
            s.bytes += c.bytes.load(Relaxed);
            for (a, b) in s.buckets.iter_mut().zip(c.buckets.iter()) {
                *a += b.load(Relaxed);
            }
        }
        s
    }

    /// The percentile `q` (0..1) of the latencies between `earlier` and this
    /// snapshot: the upper edge of the bucket holding it, ns.
    pub fn interval_quantile(&self, earlier: &LiveSnapshot, q: f64) -> u64 {
        let diff: Vec<u64> = self
            .buckets
            .iter()
            .zip(&earlier.buckets)
            .map(|(a, b)| a - b)
            .collect();
        let total: u64 = diff.iter().sum();
        if total == 0 {
            return 0;
        }
        let rank = ((q * total as f64).ceil() as u64).max(1);
        let mut seen = 0;
        for (i, n) in diff.iter().enumerate() {
            seen += n;
            if seen >= rank {
                return live_bucket_upper(i);
            }
        }
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_bound_the_value_within_an_eighth() {
        for v in [
            0u64,
            1,
            7,
            8,
            9,
            15,
            16,
            100,
            1_000,
            123_456,
            10_000_000_000,
        ] {
            let i = live_bucket(v);
            let up = live_bucket_upper(i);
            assert!(up >= v, "{v}: upper {up}");
            if v >= 8 {
                assert!((up - v) as f64 <= v as f64 / 8.0 + 1.0, "{v}: upper {up}");
            }
            if i > 0 {
                assert!(live_bucket_upper(i - 1) < v, "{v}");
            }
        }
        assert!(live_bucket(u64::MAX) < LIVE_BUCKETS);
    }

    #[test]
    fn interval_quantiles() {
        let c = vec![LiveCounters::default()];
        let a = LiveSnapshot::take(&c);
        for v in 1..=100u64 {
            c[0].count(true, 4096, v * 1000);
        }
        let b = LiveSnapshot::take(&c);
        assert_eq!(b.reads, 100);
        let p50 = b.interval_quantile(&a, 0.5);
        assert!((50_000..=56_250).contains(&p50), "{p50}");
    }
}
