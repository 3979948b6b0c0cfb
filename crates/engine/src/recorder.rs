//! Per-worker latency recording into HDR histograms, merged at the end.
//!
//! Histograms track 1 ns .. 100 s with 2 significant digits: every recorded
//! value is reproduced within 1 % (hdrhistogram's guarantee), and a value
//! outside the range is clamped to it (`saturating_record`). Each worker owns
//! its [`Recorder`]; nothing is shared or locked while I/O runs.
//!
//! The worker loop hands each completed I/O to an [`IoRecord`]: `dbio bench`
//! records by direction ([`Recorder`]); a model keeps its own (the
//! datafile-read model's, by class, size and tier, lives in dbio-sim).

use crate::workload::Io;
use dbio_model::{LatencySummary, OpStats};
use hdrhistogram::Histogram;

/// Highest trackable latency: 100 s.
pub const MAX_TRACKABLE_NS: u64 = 100_000_000_000;

/// A histogram covering 1 ns .. 100 s at 1 % precision.
pub fn new_histogram() -> Histogram<u64> {
    Histogram::new_with_bounds(1, MAX_TRACKABLE_NS, 2).expect("static histogram bounds are valid")
}

/// slat, clat and lat of one direction.
#[derive(Clone)]
pub struct DirRecorder {
    /// Operations recorded.
    pub ops: u64,
    /// Bytes recorded.
    pub bytes: u64,
    /// Submission latency.
    pub slat: Histogram<u64>,
    /// Completion latency.
    pub clat: Histogram<u64>,
    /// Total latency.
    pub lat: Histogram<u64>,
}

impl Default for DirRecorder {
    fn default() -> Self {
        Self {
            ops: 0,
            bytes: 0,
            slat: new_histogram(),
            clat: new_histogram(),
            lat: new_histogram(),
        }
    }
}

impl DirRecorder {
    #[inline]
    fn record(&mut self, bytes: u64, slat: u64, clat: u64, lat: u64) {
        self.ops += 1;
        self.bytes += bytes;
        self.slat.saturating_record(slat);
        self.clat.saturating_record(clat);
        self.lat.saturating_record(lat);
    }

    fn merge(&mut self, o: &DirRecorder) {
        self.ops += o.ops;
        self.bytes += o.bytes;
        self.slat.add(&o.slat).expect("same bounds");
        self.clat.add(&o.clat).expect("same bounds");
        self.lat.add(&o.lat).expect("same bounds");
    }

    /// Statistics over `runtime_ns`, or None when nothing was recorded.
    pub fn stats(&self, runtime_ns: u64) -> Option<OpStats> {
        if self.ops == 0 {
            return None;
        }
        let secs = runtime_ns.max(1) as f64 / 1e9;
        Some(OpStats {
            ops: self.ops,
            bytes: self.bytes,
            iops: self.ops as f64 / secs,
            bytes_per_sec: self.bytes as f64 / secs,
            slat: LatencySummary::from_histogram(&self.slat),
            clat: LatencySummary::from_histogram(&self.clat),
            lat: LatencySummary::from_histogram(&self.lat),
        })
    }
}

/// Everything one worker records.
#[derive(Clone)]
pub struct Recorder {
    /// Reads.
    pub read: DirRecorder,
    /// Writes (the write part of a commit).
    pub write: DirRecorder,
    /// The sync after a write (fdatasync/fsync), from write completion to sync completion.
    pub sync: Histogram<u64>,
    /// Commit: write + sync, from the write's intended start to durability.
    pub commit: Histogram<u64>,
}

impl Default for Recorder {
    fn default() -> Self {
        Self {
            read: DirRecorder::default(),
            write: DirRecorder::default(),
            sync: new_histogram(),
            commit: new_histogram(),
        }
    }
}

/// Timestamps of one completed I/O (monotonic ns).
#[derive(Debug, Clone, Copy)]
pub struct IoTimes {
    /// When the I/O was meant to start (rate-limited schedule, or when the
    /// worker picked it).
    pub intended: u64,
    /// When the engine had accepted it (after submit for io_uring).
    pub submitted: u64,
    /// When the read/write completed.
    pub io_done: u64,
    /// When its sync completed (== io_done without one).
    pub sync_done: u64,
}

impl Recorder {
    /// Records one read.
    #[inline]
    pub fn record_read(&mut self, bytes: u64, t: &IoTimes) {
        self.read.record(
            bytes,
            t.submitted - t.intended,
            t.io_done.saturating_sub(t.submitted),
            t.io_done - t.intended,
        );
    }

    /// Records one write; `durable` says whether the write (with its sync,
    /// if any) is a commit, `has_sync` whether a separate sync followed.
    #[inline]
    pub fn record_write(&mut self, bytes: u64, t: &IoTimes, durable: bool, has_sync: bool) {
        self.write.record(
            bytes,
            t.submitted - t.intended,
            t.io_done.saturating_sub(t.submitted),
            t.io_done - t.intended,
        );
        if has_sync {
            self.sync.saturating_record(t.sync_done - t.io_done);
        }
        if durable {
            self.commit.saturating_record(t.sync_done - t.intended);
        }
    }

    /// Adds another worker's recordings.
    pub fn merge(&mut self, o: &Recorder) {
        self.read.merge(&o.read);
        self.write.merge(&o.write);
        self.sync.add(&o.sync).expect("same bounds");
        self.commit.add(&o.commit).expect("same bounds");
    }
}

/// What the worker loop records each completed I/O into. `measured` is
/// false during the warm-up. Called once per I/O: no allocation beyond the
/// first I/O of a new kind, no printing.
pub trait IoRecord: Send {
    /// Records one completed I/O.
    fn record(&mut self, io: &Io, t: &IoTimes);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_keeps_counts_and_extremes() {
        let mut a = Recorder::default();
        let mut b = Recorder::default();
        let t = |lat: u64| IoTimes {
            intended: 1000,
            submitted: 1000,
            io_done: 1000 + lat,
            sync_done: 1000 + 2 * lat,
        };
        for i in 1..=100 {
            a.record_write(8192, &t(i * 1000), true, true);
        }
        for i in 101..=200 {
            b.record_write(8192, &t(i * 1000), true, true);
        }
        a.merge(&b);
        assert_eq!(a.write.ops, 200);
        assert_eq!(a.write.bytes, 200 * 8192);
        let s = a.write.stats(1_000_000_000).unwrap();
        assert_eq!(s.iops, 200.0);
        assert!((s.lat.max_ns as f64 - 200_000.0).abs() <= 2000.0);
        assert!((s.lat.min_ns as f64 - 1_000.0).abs() <= 10.0);
        let c = LatencySummary::from_histogram(&a.commit);
        assert_eq!(c.count, 200);
        // commit = 2 × write latency here
        assert!(
            (c.p50_ns() as f64 - 200_000.0).abs() <= 2_000.0,
            "{}",
            c.p50_ns()
        );
        assert_eq!(LatencySummary::from_histogram(&a.sync).count, 200);
    }
}
