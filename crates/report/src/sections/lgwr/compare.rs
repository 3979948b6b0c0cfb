//! The figures `dbio compare` puts side by side for a log-writer run.

use crate::kit::metrics::{m, mean, p50, p99, Entry, Metric, Spr, DOWN, UP};
use dbio_model::compare::MetricUnit;
use dbio_model::lgwr::LgwrResult;
use dbio_model::series::Series;

use MetricUnit::{Bytes, Ns, Number, PerSecond};

impl Entry for LgwrResult {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn per_second(&self) -> Vec<Series> {
        self.per_second.clone()
    }
}

pub(crate) fn metrics() -> Vec<Metric<LgwrResult>> {
    vec![
        m(
            "TPS",
            PerSecond,
            UP,
            |x| Some(x.tps),
            Spr::RoundsElse(|x| x.round_tps.clone(), "tps"),
        ),
        m(
            "log file sync mean",
            Ns,
            DOWN,
            |x| mean(&x.log_file_sync),
            Spr::No,
        ),
        m(
            "log file sync p50",
            Ns,
            DOWN,
            |x| p50(&x.log_file_sync),
            Spr::Series("log_file_sync_p50"),
        ),
        m(
            "log file sync p99",
            Ns,
            DOWN,
            |x| p99(&x.log_file_sync),
            Spr::Series("log_file_sync_p99"),
        ),
        m(
            "log file parallel write p50",
            Ns,
            DOWN,
            |x| p50(&x.writer.log_file_parallel_write),
            Spr::No,
        ),
        m(
            "log file parallel write p99",
            Ns,
            DOWN,
            |x| p99(&x.writer.log_file_parallel_write),
            Spr::No,
        ),
        m(
            "writes/s",
            PerSecond,
            None,
            |x| Some(x.writer.writes_per_sec),
            Spr::Series("writes_per_s"),
        ),
        m(
            "commits per write",
            Number,
            None,
            |x| Some(x.writer.commits_per_write),
            Spr::Series("commits_per_write"),
        ),
        m(
            "redo wastage per commit",
            Bytes,
            DOWN,
            |x| Some(x.writer.wastage_bytes as f64 / x.commits.max(1) as f64),
            Spr::No,
        ),
        m(
            "device writes per commit",
            Number,
            DOWN,
            |x| x.io.device_writes_per_commit,
            Spr::No,
        ),
        m(
            "device flushes per commit",
            Number,
            DOWN,
            |x| x.io.device_flushes_per_commit,
            Spr::No,
        ),
    ]
}
