//! The figures `dbio compare` puts side by side for trace analyses: the response time, the profile lines and the events.

use crate::kit::metrics::{m, Entry, Metric, Spr, DOWN};
use dbio_model::compare::MetricUnit;
use dbio_model::trace::{EventStats, ProfileLine, TraceReport};

use MetricUnit::{Number, Percent, Us};

impl Entry for EventStats {
    fn name(&self) -> String {
        self.name.clone()
    }
}

pub(crate) fn event_metrics() -> Vec<Metric<EventStats>> {
    vec![
        m("count", Number, None, |e| Some(e.count as f64), Spr::No),
        m("total", Us, DOWN, |e| Some(e.total_us as f64), Spr::No),
        m("mean", Us, DOWN, |e| Some(e.mean_us), Spr::No),
        m("p50", Us, DOWN, |e| Some(e.p50_us as f64), Spr::No),
        m("p99", Us, DOWN, |e| Some(e.p99_us as f64), Spr::No),
    ]
}

impl Entry for ProfileLine {
    fn name(&self) -> String {
        self.name.clone()
    }
}

pub(crate) fn profile_metrics() -> Vec<Metric<ProfileLine>> {
    vec![
        m("time", Us, DOWN, |p| Some(p.total_us as f64), Spr::No),
        m("share", Percent, None, |p| Some(p.share * 100.0), Spr::No),
        m("count", Number, None, |p| Some(p.count as f64), Spr::No),
    ]
}

impl Entry for TraceReport {
    fn name(&self) -> String {
        "all".into()
    }
}

pub(crate) fn response_metrics() -> Vec<Metric<TraceReport>> {
    vec![
        m(
            "response time",
            Us,
            DOWN,
            |t| Some(t.profile.response_time_us as f64),
            Spr::No,
        ),
        m("CPU", Us, DOWN, |t| Some(t.profile.cpu_us as f64), Spr::No),
        m(
            "unaccounted",
            Us,
            DOWN,
            |t| Some(t.profile.unaccounted_us as f64),
            Spr::No,
        ),
    ]
}
