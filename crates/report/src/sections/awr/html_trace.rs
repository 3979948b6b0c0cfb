//! `dbio awr REPORT --with-trace TRACE` on the page: the trace's waits
//! beside the report's foreground wait events, each event flagged by
//! where it was seen. The trace covers the sessions it traced, the report
//! the whole instance: counts and times do not compare, averages and the
//! presence of an event do, so the averages are also drawn as pairs.

use crate::kit::html::page::{self, Text};
use crate::kit::html::svg::{self, Pair};
use dbio_model::awr::{SeenIn, TraceBeside};
use maud::html;
use std::fmt::Write;

fn opt(v: Option<f64>, prec: usize) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.prec$}"))
}

/// The side-by-side part of report `k` (empty without `--with-trace`).
pub fn section(t: Option<&TraceBeside>, k: &str) -> String {
    let Some(t) = t else {
        return String::new();
    };
    let mut b = format!("<section class=\"with-trace\" id=\"awr-with-trace-{k}\">");
    let head = html! {
        h3 { "Beside a 10046 trace" }
        p {
            (Text(&t.trace)) " (" (t.trace_sessions) " sessions, " (t.trace_wait_lines)
            " wait lines). The trace covers its sessions, the report the whole instance: \
             compare averages and presence, not counts or times."
        }
    };
    b.push_str(&head.into_string());
    let rows: Vec<Vec<String>> = t
        .rows
        .iter()
        .map(|r| {
            let seen = match r.seen_in {
                SeenIn::Both => "both",
                SeenIn::TraceOnly => "trace only",
                SeenIn::ReportOnly => "report only",
            };
            vec![
                r.event.clone(),
                if r.idle { "idle".into() } else { String::new() },
                seen.into(),
                r.trace_waits.map_or_else(|| "-".into(), |v| v.to_string()),
                opt(r.trace_time_s, 3),
                opt(r.trace_avg_us, 0),
                opt(r.report_waits, 0),
                opt(r.report_time_s, 1),
                opt(r.report_avg_us, 0),
            ]
        })
        .collect();
    b.push_str(&page::table(
        &format!("awr-with-trace-table-{k}"),
        &[
            "event",
            "idle",
            "seen in",
            "#trace waits",
            "#trace time s",
            "#trace avg µs",
            "#report waits",
            "#report time s",
            "#report avg µs",
        ],
        &rows,
    ));
    let pairs: Vec<Pair> = t
        .rows
        .iter()
        .filter(|r| r.seen_in == SeenIn::Both && !r.idle)
        .filter_map(|r| {
            let a = r.trace_avg_us?;
            Some(Pair {
                label: r.event.clone(),
                a,
                b: r.report_avg_us,
                fmt: |v| format!("{v:.0} µs"),
                note: match r.report_avg_us {
                    Some(x) if x > 0.0 => format!("trace / report {:.2}×", a / x),
                    _ => String::new(),
                },
            })
        })
        .collect();
    if !pairs.is_empty() {
        b.push_str(&svg::paired(
            &format!("awr-with-trace-avg-{k}"),
            "Average wait of each event in both: the traced sessions beside the instance",
            ["trace (traced sessions)", "report (instance, foreground)"],
            &pairs,
        ));
    }
    let _ = write!(b, "</section>");
    b
}
