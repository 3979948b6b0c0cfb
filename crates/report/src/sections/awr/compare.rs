//! The figures `dbio compare` puts side by side for AWR and Statspack reports: load profile and wait events.

use crate::kit::metrics::{m, Entry, Metric, Spr, DOWN};
use dbio_model::awr::{LoadProfileRow, WaitEventRow};
use dbio_model::compare::MetricUnit;

use MetricUnit::{Number, Percent, Us, S};

impl Entry for WaitEventRow {
    fn name(&self) -> String {
        self.name.clone()
    }
}

pub(crate) fn wait_event_metrics() -> Vec<Metric<WaitEventRow>> {
    vec![
        m("waits", Number, None, |e| e.waits, Spr::No),
        m("time", S, DOWN, |e| e.time_s, Spr::No),
        m("avg wait", Us, DOWN, |e| e.avg_us, Spr::No),
        m("% DB time", Percent, None, |e| e.pct_db_time, Spr::No),
    ]
}

impl Entry for LoadProfileRow {
    fn name(&self) -> String {
        self.name.clone()
    }
}

pub(crate) fn load_profile_metrics() -> Vec<Metric<LoadProfileRow>> {
    vec![
        m("per second", Number, None, |r| r.per_second, Spr::No),
        m(
            "per transaction",
            Number,
            None,
            |r| r.per_transaction,
            Spr::No,
        ),
    ]
}
