//! The figures `dbio compare` puts side by side for a read run.

use crate::kit::metrics::{m, mean, p50, p99, Entry, Metric, Spr, DOWN, UP};
use dbio_model::compare::MetricUnit;
use dbio_model::read::{ReadResult, Tier};
use dbio_model::series::Series;

use MetricUnit::{Ns, PerSecond, Percent};

impl Entry for ReadResult {
    fn name(&self) -> String {
        self.name.clone()
    }
    fn per_second(&self) -> Vec<Series> {
        self.per_second.clone()
    }
}

fn tier_pct(x: &ReadResult, t: Tier) -> Option<f64> {
    (x.ops > 0).then(|| x.tiers.get(t).count as f64 / x.ops as f64 * 100.0)
}

pub(crate) fn metrics() -> Vec<Metric<ReadResult>> {
    vec![
        m("IOPS", PerSecond, UP, |x| Some(x.iops), Spr::Series("iops")),
        m("lat mean", Ns, DOWN, |x| mean(&x.lat), Spr::No),
        m("lat p50", Ns, DOWN, |x| p50(&x.lat), Spr::Series("p50")),
        m("lat p99", Ns, DOWN, |x| p99(&x.lat), Spr::Series("p99")),
        m(
            "page cache reads",
            Percent,
            None,
            |x| tier_pct(x, Tier::PageCache),
            Spr::No,
        ),
        m(
            "storage cache reads",
            Percent,
            None,
            |x| tier_pct(x, Tier::StorageCache),
            Spr::No,
        ),
        m(
            "device reads",
            Percent,
            None,
            |x| tier_pct(x, Tier::Device),
            Spr::No,
        ),
        m(
            "device read p50",
            Ns,
            DOWN,
            |x| {
                x.per_second
                    .iter()
                    .find(|s| s.name == "device_p50")
                    .and_then(|s| s.spread())
                    .map(|s| s.median)
            },
            Spr::Series("device_p50"),
        ),
    ]
}
