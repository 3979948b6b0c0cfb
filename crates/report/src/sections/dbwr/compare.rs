//! The figures `dbio compare` puts side by side for a writers run.

use crate::kit::metrics::{m, p50, Entry, Metric, Spr, DOWN, UP};
use dbio_model::compare::MetricUnit;
use dbio_model::dbwr::DbwrResult;
use dbio_model::series::Series;

use MetricUnit::{Ns, Number, PerSecond, Percent};

impl Entry for DbwrResult {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn per_second(&self) -> Vec<Series> {
        self.per_second.clone()
    }
}

pub(crate) fn metrics() -> Vec<Metric<DbwrResult>> {
    vec![
        m(
            "ops/s",
            PerSecond,
            UP,
            |x| Some(x.foreground.ops_per_sec),
            Spr::Series("ops_per_s"),
        ),
        m(
            "write IOPS",
            PerSecond,
            None,
            |x| Some(x.writes.write_iops),
            Spr::Series("writes_per_s"),
        ),
        m(
            "free buffer waits",
            Number,
            DOWN,
            |x| Some(x.foreground.free_buffer_waits.count as f64),
            Spr::No,
        ),
        m(
            "free buffer waits/s",
            PerSecond,
            DOWN,
            |x| {
                Some(
                    x.foreground.free_buffer_waits.count as f64
                        / (x.runtime_ns.max(1) as f64 / 1e9),
                )
            },
            Spr::Series("free_buffer_waits_per_s"),
        ),
        m(
            "hit ratio",
            Percent,
            None,
            |x| Some(x.foreground.hit_ratio * 100.0),
            Spr::No,
        ),
        m(
            "read p50",
            Ns,
            DOWN,
            |x| p50(&x.foreground.read_time),
            Spr::No,
        ),
        m(
            "batch mean",
            Number,
            None,
            |x| Some(x.writes.batch_mean),
            Spr::No,
        ),
        m(
            "write p50",
            Ns,
            DOWN,
            |x| p50(&x.writes.parallel_write),
            Spr::No,
        ),
        m(
            "writers CPU per write",
            Ns,
            DOWN,
            |x| Some(x.writers_cpu.per_io_ns),
            Spr::No,
        ),
    ]
}
