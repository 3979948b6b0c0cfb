//! The figures `dbio compare` puts side by side for a commit-load run.

use crate::kit::metrics::{m, mean, p50, p99, Entry, Metric, Spr, DOWN, UP};
use dbio_model::compare::MetricUnit;
use dbio_model::load::LoadResult;
use dbio_model::series::Series;

use MetricUnit::{Ns, Number, PerSecond};

impl Entry for LoadResult {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn per_second(&self) -> Vec<Series> {
        self.per_second.clone()
    }
}

pub(crate) fn metrics() -> Vec<Metric<LoadResult>> {
    vec![
        m("TPS", PerSecond, UP, |x| Some(x.tps), Spr::Series("tps")),
        m("commit mean", Ns, DOWN, |x| mean(&x.commit), Spr::No),
        m(
            "commit p50",
            Ns,
            DOWN,
            |x| p50(&x.commit),
            Spr::Series("commit_p50"),
        ),
        m(
            "commit p99",
            Ns,
            DOWN,
            |x| p99(&x.commit),
            Spr::Series("commit_p99"),
        ),
        m(
            "commits per flush",
            Number,
            None,
            |x| x.derived.commits_per_flush,
            Spr::No,
        ),
        m(
            "flush latency",
            Ns,
            DOWN,
            |x| x.derived.flush_latency_ns,
            Spr::No,
        ),
        m(
            "CPU per commit",
            Ns,
            DOWN,
            |x| Some(x.cpu.per_io_ns),
            Spr::No,
        ),
    ]
}
