//! The figures `dbio compare` puts side by side for AWR and Statspack
//! reports: load profile and wait events.
//!
//! An average wait is its best estimate (time over waits where the
//! printed average is coarser: a Statspack `1` ms can be 0.7 ms), with the
//! range its printed digits allow as its spread, so that two averages
//! whose ranges overlap are "within the printed precision"
//! ([`dbio_model::compare::NOISE_RULE`]) rather than the same or
//! different. Idle events are not compared, and an event whose name one
//! report cut at its column width is the same row as the whole name.

use super::difference::{avg_error_us, row_avg};
use crate::kit::metrics::{m, Entry, Metric, Spr, DOWN};
use dbio_model::awr::{AwrReport, LoadProfileRow, WaitEventRow};
use dbio_model::compare::MetricUnit;
use dbio_model::event_names::PrintedNames;

use MetricUnit::{Number, Percent, Us, S};

impl Entry for WaitEventRow {
    fn name(&self) -> String {
        self.name.clone()
    }
}

/// An average's best estimate, µs.
fn avg_best(e: &WaitEventRow) -> Option<f64> {
    row_avg(e).map(|a| a.us)
}

/// An average's range: (lowest, best, highest), µs.
fn avg_bounds(e: &WaitEventRow) -> Option<(f64, f64, f64)> {
    row_avg(e).map(|a| (a.lo, a.us, a.hi))
}

pub(crate) fn wait_event_metrics() -> Vec<Metric<WaitEventRow>> {
    vec![
        m("waits", Number, None, |e| e.waits, Spr::No),
        m("time", S, DOWN, |e| e.time_s, Spr::No),
        m("avg wait", Us, DOWN, avg_best, Spr::Precision(avg_bounds)),
        m("% DB time", Percent, None, |e| e.pct_db_time, Spr::No),
    ]
}

/// An idle event: the class the report printed, else dbio's one list
/// ([`dbio_model::wait_class::IDLE_EVENTS`]).
fn is_idle(e: &WaitEventRow) -> bool {
    e.class
        .as_deref()
        .is_some_and(|c| c.eq_ignore_ascii_case("idle"))
        || dbio_model::wait_class::is_idle_event(&e.name)
}

/// Each report's wait events of one list (`pick`) as `dbio compare`
/// aligns them: idle events left out, a name cut at the column width
/// replaced by the longer name of the same event another report printed,
/// each average's bound as the report's parser means it.
pub(crate) fn event_lists(
    rs: &[&AwrReport],
    pick: fn(&AwrReport) -> &[WaitEventRow],
) -> Vec<Vec<WaitEventRow>> {
    let names = PrintedNames::of(
        rs.iter()
            .flat_map(|r| pick(r).iter().map(|e| e.name.as_str())),
    );
    rs.iter()
        .map(|r| {
            pick(r)
                .iter()
                .filter(|e| !is_idle(e))
                .map(|e| WaitEventRow {
                    name: names.whole(&e.name),
                    avg_error_us: avg_error_us(r, e),
                    ..e.clone()
                })
                .collect()
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kit::metrics::section_rows;
    use dbio_model::compare::{SpreadSource, Verdict};

    fn row(name: &str, waits: f64, time_s: f64, avg_us: f64) -> WaitEventRow {
        WaitEventRow {
            name: name.into(),
            waits: Some(waits),
            time_s: Some(time_s),
            avg_us: Some(avg_us),
            ..Default::default()
        }
    }

    fn report(fg: Vec<WaitEventRow>) -> AwrReport {
        AwrReport {
            foreground_events: fg,
            ..Default::default()
        }
    }

    fn compared(a: &AwrReport, b: &AwrReport) -> Vec<dbio_model::compare::ComparedRow> {
        let lists = event_lists(&[a, b], |r| &r.foreground_events);
        let refs: Vec<Vec<&WaitEventRow>> = lists.iter().map(|l| l.iter().collect()).collect();
        let (mut rows, mut warnings) = (Vec::new(), Vec::new());
        section_rows(
            "foreground event",
            &refs,
            &wait_event_metrics(),
            &mut rows,
            &mut warnings,
        );
        rows
    }

    #[test]
    fn printed_one_millisecond_averages_compare_by_time_over_waits() {
        // Both print `1` ms; 10,000 waits in 7 s and in 14 s.
        let a = report(vec![row("db file sequential read", 1e4, 7.0, 1000.0)]);
        let b = report(vec![row("db file sequential read", 1e4, 14.0, 1000.0)]);
        let rows = compared(&a, &b);
        let avg = rows.iter().find(|r| r.metric == "avg wait").unwrap();
        assert_eq!(avg.values, [Some(700.0), Some(1400.0)]);
        assert_eq!(avg.ratios[1], Some(2.0));
        assert_eq!(avg.spread_source, Some(SpreadSource::PrintedPrecision));
        let s = avg.spreads[1].unwrap();
        assert_eq!((s.min, s.median, s.max), (1350.0, 1400.0, 1450.0));
        assert_eq!(avg.verdicts[1], Some(Verdict::BeyondNoise));
        // 8 s: 750..850 µs touches 650..750: within the printed precision.
        let b = report(vec![row("db file sequential read", 1e4, 8.0, 1000.0)]);
        let rows = compared(&a, &b);
        let avg = rows.iter().find(|r| r.metric == "avg wait").unwrap();
        assert_eq!(avg.verdicts[1], Some(Verdict::WithinNoise));
        // Averages exact to a hundredth on both sides: no spread to show.
        let a = report(vec![row(
            "db file sequential read",
            360_121.0,
            39.512,
            109.72,
        )]);
        let b = report(vec![row(
            "db file sequential read",
            360_121.0,
            43.214,
            120.0,
        )]);
        let rows = compared(&a, &b);
        let avg = rows.iter().find(|r| r.metric == "avg wait").unwrap();
        assert!(
            avg.spread_source.is_none() && avg.verdicts.is_empty(),
            "{avg:?}"
        );
    }

    #[test]
    fn idle_events_are_left_out_and_cut_names_joined() {
        let full = "log file switch (private strand flush incomplete)";
        let a = report(vec![
            row("log file switch (private s", 100.0, 1.0, 10_000.0),
            row("LGWR worker group idle", 100.0, 900.0, 9e6),
        ]);
        let b = report(vec![
            row(full, 200.0, 4.0, 20_000.0),
            row("SQL*Net message from client", 100.0, 900.0, 9e6),
        ]);
        let rows = compared(&a, &b);
        let entries: Vec<&str> = rows.iter().map(|r| r.entry.as_str()).collect();
        assert!(entries.iter().all(|e| *e == full), "{entries:?}");
        let waits = rows.iter().find(|r| r.metric == "waits").unwrap();
        assert_eq!(waits.values, [Some(100.0), Some(200.0)]);
    }
}
