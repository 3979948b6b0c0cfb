//! A 10046 trace beside a report (`dbio awr REPORT --with-trace TRACE`).
//!
//! The trace says what one session waited on, the report what the whole
//! instance waited on over its interval. Put side by side by event name
//! they answer two questions a DBA asks: is the traced session's
//! 'db file sequential read' as slow as the instance's (averages), and
//! did the session wait on something the instance-wide figures do not
//! show, or the other way round (presence). Counts and times are shown
//! but are not comparable: one session against all of them.

use crate::trend::is_idle;
use dbio_model::awr::{AwrReport, SeenIn, TraceBeside, TraceBesideRow, WaitEventRow};
use dbio_model::trace::TraceReport;

/// Whether a report's event name (cut at its column width, 20 characters
/// or more) is this trace event's name.
fn same_name(report: &str, trace: &str) -> bool {
    report == trace || (report.len() >= 20 && trace.starts_with(report))
}

/// The trace's events beside the report's foreground wait events (the
/// top events when the report prints no foreground list). `label` names
/// the trace.
pub fn with_trace(r: &AwrReport, t: &TraceReport, label: &str) -> TraceBeside {
    let report_rows: &[WaitEventRow] = if r.foreground_events.is_empty() {
        &r.top_events
    } else {
        &r.foreground_events
    };
    let mut rows = Vec::new();
    let mut used = vec![false; t.events.len()];
    for e in report_rows.iter().filter(|e| e.name != "DB CPU") {
        let m = t.events.iter().position(|x| same_name(&e.name, &x.name));
        let tr = m.map(|i| {
            used[i] = true;
            &t.events[i]
        });
        rows.push(TraceBesideRow {
            event: tr.map_or(e.name.clone(), |x| x.name.clone()),
            idle: tr.map_or_else(|| is_idle(e), |x| x.idle),
            seen_in: if tr.is_some() {
                SeenIn::Both
            } else {
                SeenIn::ReportOnly
            },
            trace_waits: tr.map(|x| x.count),
            trace_time_s: tr.map(|x| x.total_us as f64 / 1e6),
            trace_avg_us: tr.map(|x| x.mean_us),
            report_waits: e.waits,
            report_time_s: e.time_s,
            report_avg_us: e.avg_us,
        });
    }
    let mut extra: Vec<_> = t
        .events
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(x, _)| x)
        .collect();
    extra.sort_by_key(|x| std::cmp::Reverse(x.total_us));
    for x in extra {
        rows.push(TraceBesideRow {
            event: x.name.clone(),
            idle: x.idle,
            seen_in: SeenIn::TraceOnly,
            trace_waits: Some(x.count),
            trace_time_s: Some(x.total_us as f64 / 1e6),
            trace_avg_us: Some(x.mean_us),
            ..TraceBesideRow::default()
        });
    }
    TraceBeside {
        trace: label.to_string(),
        trace_sessions: t.files.iter().map(|f| f.sessions).sum(),
        trace_wait_lines: t.files.iter().map(|f| f.wait_lines).sum(),
        rows,
    }
}
