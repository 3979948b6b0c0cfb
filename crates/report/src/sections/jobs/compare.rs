//! The figures `dbio compare` puts side by side for a raw job.

use crate::kit::metrics::{m, p50, p99, Entry, Metric, Spr, DOWN, UP};
use dbio_model::compare::MetricUnit;
use dbio_model::series::{Series, SeriesUnit};
use dbio_model::{JobResult, OpStats};

use MetricUnit::{BytesPerSecond, Ns, PerSecond};

impl Entry for JobResult {
    fn name(&self) -> String {
        self.name.clone()
    }
    /// `bench`'s own samples in the common shape; the latency series are
    /// of every I/O, so a job of both directions gets none.
    fn per_second(&self) -> Vec<Series> {
        let mut all = JobResult::per_second(self);
        if !one_direction(self) {
            all.retain(|s| s.unit != SeriesUnit::Ns);
        }
        all
    }
}

/// The per-second latency series describe a job's only direction; a
/// mixed job's are of both together, so its latency rows get none.
fn one_direction(j: &JobResult) -> bool {
    j.read.is_none() || j.write.is_none()
}

pub(crate) fn metrics() -> Vec<Metric<JobResult>> {
    fn op(s: &Option<OpStats>, f: fn(&OpStats) -> Option<f64>) -> Option<f64> {
        s.as_ref().and_then(f)
    }
    vec![
        m(
            "read IOPS",
            PerSecond,
            UP,
            |j| op(&j.read, |s| Some(s.iops)),
            Spr::Series("read_iops"),
        ),
        m(
            "read bandwidth",
            BytesPerSecond,
            UP,
            |j| op(&j.read, |s| Some(s.bytes_per_sec)),
            Spr::No,
        ),
        m(
            "read lat p50",
            Ns,
            DOWN,
            |j| op(&j.read, |s| p50(&s.lat)),
            Spr::Series("p50"),
        ),
        m(
            "read lat p99",
            Ns,
            DOWN,
            |j| op(&j.read, |s| p99(&s.lat)),
            Spr::Series("p99"),
        ),
        m(
            "write IOPS",
            PerSecond,
            UP,
            |j| op(&j.write, |s| Some(s.iops)),
            Spr::Series("write_iops"),
        ),
        m(
            "write bandwidth",
            BytesPerSecond,
            UP,
            |j| op(&j.write, |s| Some(s.bytes_per_sec)),
            Spr::No,
        ),
        m(
            "write lat p50",
            Ns,
            DOWN,
            |j| op(&j.write, |s| p50(&s.lat)),
            Spr::Series("p50"),
        ),
        m(
            "write lat p99",
            Ns,
            DOWN,
            |j| op(&j.write, |s| p99(&s.lat)),
            Spr::Series("p99"),
        ),
        m(
            "sync p50",
            Ns,
            DOWN,
            |j| j.sync.as_ref().and_then(p50),
            Spr::No,
        ),
        m(
            "sync p99",
            Ns,
            DOWN,
            |j| j.sync.as_ref().and_then(p99),
            Spr::No,
        ),
        m(
            "commit p50",
            Ns,
            DOWN,
            |j| j.commit.as_ref().and_then(p50),
            Spr::No,
        ),
        m(
            "commit p99",
            Ns,
            DOWN,
            |j| j.commit.as_ref().and_then(p99),
            Spr::No,
        ),
        m("CPU per I/O", Ns, DOWN, |j| Some(j.cpu.per_io_ns), Spr::No),
    ]
}
