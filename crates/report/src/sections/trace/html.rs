//! An Oracle trace analysis (`dbio tracefile`), TVD$XTAT's picture: the
//! response-time profile (events by share of response time), the I/O
//! events' latency histograms with the tiers shaded, the per-statement
//! and per-file tables and the timeline. Two traces (`--compare`) get the
//! profiles side by side and one table of events with their ratios.
//!
//! Everything here came from a trace file (SQL text, event names, file
//! paths), so every string goes into the templates as [`Text`] or into a
//! table cell, both escaped.

use crate::kit::html::page::{self, Text};
use crate::kit::html::svg::{self, Hist, Line, Tiers};
use dbio_model::trace::{TraceComparison, TraceReport};
use dbio_model::units::format_ns;
use maud::html;
use std::fmt::Write;

/// How many statements, files and histograms are drawn (the JSON has them all).
const TOP: usize = 20;

/// Microseconds with a fitting unit; negative (unaccounted-for time can
/// be) with its sign.
fn us(v: i64) -> String {
    if v < 0 {
        format!("-{}", format_ns(-(v as f64) * 1000.0))
    } else {
        format_ns(v as f64 * 1000.0)
    }
}

/// The page of one trace analysis.
pub fn render(t: &TraceReport, invocation: Option<&str>) -> String {
    let mut b = html! {
        header {
            h1 { "dbio tracefile: " (Text(&t.label)) }
            p.muted #summary {
                "Oracle extended SQL trace analysis; result schema version " (t.schema_version) "."
            }
        }
    }
    .into_string();
    b.push_str(&page::verdict(t.verdict.as_ref(), &t.findings));
    b.push_str(&crate::kit::html::page::provenance("", invocation));
    b.push_str(&body(t, "t"));
    page::document(&format!("dbio tracefile: {}", t.label), &b)
}

/// The page of two trace analyses side by side.
pub fn render_comparison(c: &TraceComparison, invocation: Option<&str>) -> String {
    let mut b = html! {
        header {
            h1 { "dbio tracefile --compare" }
            p #summary { "A: " (Text(&c.a.label)) " — B: " (Text(&c.b.label)) }
        }
    }
    .into_string();
    b.push_str(&page::verdict(c.verdict.as_ref(), &c.findings));
    b.push_str(&crate::kit::html::page::provenance("", invocation));
    if !c.findings.is_empty() {
        b.push_str("<h2 id=\"h-findings\">Findings, B against A</h2>\n");
        b.push_str(&page::findings(&c.findings));
    }
    b.push_str("<h2 id=\"h-compare\">Events side by side</h2>");
    let mut names: Vec<&str> = c.a.events.iter().map(|e| e.name.as_str()).collect();
    for e in &c.b.events {
        if !names.contains(&e.name.as_str()) {
            names.push(&e.name);
        }
    }
    let rows: Vec<Vec<String>> = names
        .iter()
        .map(|n| {
            let a = c.a.events.iter().find(|e| e.name == *n);
            let b = c.b.events.iter().find(|e| e.name == *n);
            let mean = |e: Option<&dbio_model::trace::EventStats>| e.map(|e| e.mean_us);
            let ratio = match (mean(a), mean(b)) {
                (Some(x), Some(y)) if x > 0.0 => format!("{:.2}×", y / x),
                _ => "-".into(),
            };
            vec![
                n.to_string(),
                a.map_or("-".into(), |e| e.count.to_string()),
                b.map_or("-".into(), |e| e.count.to_string()),
                mean(a).map_or("-".into(), |m| format_ns(m * 1000.0)),
                mean(b).map_or("-".into(), |m| format_ns(m * 1000.0)),
                ratio,
            ]
        })
        .collect();
    b.push_str(&page::table(
        "compare-events",
        &[
            "event",
            "#A waits",
            "#B waits",
            "#A mean",
            "#B mean",
            "#B / A mean",
        ],
        &rows,
    ));
    b.push_str("<div class=\"panels\">");
    for (k, t) in [("a", &c.a), ("b", &c.b)] {
        let _ = write!(b, "<section class=\"panel\" id=\"panel-{k}\">");
        b.push_str(&html! { h2 { (k.to_uppercase()) ": " (Text(&t.label)) } }.into_string());
        b.push_str(&body(t, k));
        b.push_str("</section>");
    }
    b.push_str("</div>");
    page::document("dbio tracefile --compare", &b)
}

/// Seconds of a timeline point's start: `+<s>`, or a wall time
/// `YYYY-MM-DD HH:MM:SS` as seconds since the epoch (no zone: only
/// differences are used).
fn start_s(s: &str) -> Option<f64> {
    if let Some(r) = s.strip_prefix('+') {
        return r.trim().parse().ok();
    }
    let (date, time) = s.trim().split_once(' ')?;
    let mut d = date.split('-').map(|x| x.parse::<i64>());
    let (y, m, dd) = (d.next()?.ok()?, d.next()?.ok()?, d.next()?.ok()?);
    let mut tm = time.split(':').map(|x| x.parse::<f64>());
    let (h, mi, se) = (tm.next()?.ok()?, tm.next()?.ok()?, tm.next()?.ok()?);
    // days_from_civil (Howard Hinnant).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + dd - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days as f64 * 86_400.0 + h * 3600.0 + mi * 60.0 + se)
}

/// The response-time profile: totals, a bar per line, the table and its notes.
fn profile(b: &mut String, t: &TraceReport, k: &str) {
    let p = &t.profile;
    let _ = write!(
        b,
        "<h2 id=\"h-profile-{k}\">Response-time profile</h2><p>Response time {} ({} top-level calls at depth {}), CPU {}, unaccounted-for {}; {} commits, {} rollbacks, {} errors.</p>",
        us(p.response_time_us),
        p.top_calls,
        p.top_depth,
        us(p.cpu_us),
        us(p.unaccounted_us),
        p.commits,
        p.rollbacks,
        p.errors
    );
    let lines: Vec<(String, f64)> = p
        .lines
        .iter()
        .map(|l| (l.name.clone(), l.share * 100.0))
        .collect();
    b.push_str(&svg::bars(
        &format!("profile-{k}"),
        "Share of response time (%), by event",
        &lines,
        svg::fmt_pct,
    ));
    let rows: Vec<Vec<String>> = p
        .lines
        .iter()
        .map(|l| {
            vec![
                l.name.clone(),
                format!("{:?}", l.kind).to_lowercase(),
                l.count.to_string(),
                us(l.total_us),
                format!("{:.1} %", l.share * 100.0),
            ]
        })
        .collect();
    b.push_str(&page::table(
        &format!("profile-table-{k}"),
        &["line", "kind", "#count", "#time", "#share"],
        &rows,
    ));
    if !p.notes.is_empty() {
        b.push_str(&page::list(None, &p.notes));
    }
}

/// One latency histogram per I/O event, with the cache tiers marked.
fn io_histograms(b: &mut String, t: &TraceReport, k: &str) {
    if !t.io_histograms.is_empty() {
        let s = &t.settings;
        let storage = if s.storage_cache_max_ns == u64::MAX {
            "none".to_string()
        } else {
            format_ns(s.storage_cache_max_ns as f64)
        };
        let head = html! {
            h3 { "I/O wait histograms" }
            p {
                "Tiers: page cache below " (format_ns(s.page_cache_max_ns as f64))
                ", storage cache below " (storage) " (" (Text(&s.thresholds_from)) ")."
            }
        };
        b.push_str(&head.into_string());
        for (i, h) in t.io_histograms.iter().take(TOP).enumerate() {
            b.push_str(&svg::histogram(
                &format!("trace-hist-{k}-{i}"),
                &format!(
                    "'{}': {} waits, {}",
                    h.event,
                    h.buckets.total(),
                    us(h.total_us)
                ),
                &[Hist {
                    label: &h.event,
                    buckets: &h.buckets,
                }],
                Some(Tiers {
                    page_cache_max_ns: s.page_cache_max_ns,
                    storage_cache_max_ns: s.storage_cache_max_ns,
                }),
            ));
        }
    }
}

/// The statements that took the most time.
fn statements(b: &mut String, t: &TraceReport, k: &str) {
    let _ = write!(b, "<h3 id=\"h-statements-{k}\">Statements</h3>");
    let rows: Vec<Vec<String>> = t
        .statements
        .iter()
        .take(TOP)
        .map(|s| {
            vec![
                s.sql_id.clone().unwrap_or_else(|| s.key.clone()),
                s.text.clone(),
                s.execs.to_string(),
                us(s.elapsed_us),
                us(s.cpu_us),
                us(s.wait_us),
                s.physical_reads.to_string(),
                s.rows.to_string(),
            ]
        })
        .collect();
    b.push_str(&page::table(
        &format!("statements-{k}"),
        &[
            "statement",
            "SQL text",
            "#execs",
            "#elapsed",
            "#CPU",
            "#waits",
            "#physical reads",
            "#rows",
        ],
        &rows,
    ));
}

/// The trace files read and the datafiles waited on most.
fn files(b: &mut String, t: &TraceReport, k: &str) {
    let _ = write!(b, "<h3 id=\"h-files-{k}\">Files</h3>");
    let files: Vec<Vec<String>> = t
        .files
        .iter()
        .map(|f| {
            vec![
                f.path.clone(),
                f.release.clone().unwrap_or_else(|| "-".into()),
                f.lines.to_string(),
                f.sessions.to_string(),
                f.wait_lines.to_string(),
                f.skipped_lines.to_string(),
            ]
        })
        .collect();
    b.push_str(&page::table(
        &format!("trace-files-{k}"),
        &[
            "trace file",
            "release",
            "#lines",
            "#sessions",
            "#wait lines",
            "#skipped lines",
        ],
        &files,
    ));
    if !t.hot_files.is_empty() {
        let rows: Vec<Vec<String>> = t
            .hot_files
            .iter()
            .take(TOP)
            .map(|f| {
                vec![
                    f.file.to_string(),
                    f.count.to_string(),
                    us(f.total_us),
                    f.blocks.to_string(),
                ]
            })
            .collect();
        b.push_str(&page::table(
            &format!("hot-files-{k}"),
            &["#datafile (file#)", "#waits", "#time", "#distinct blocks"],
            &rows,
        ));
    }
}

/// Mean and largest I/O wait per interval.
fn timeline(b: &mut String, t: &TraceReport, k: &str) {
    let pts = &t.timeline.points;
    if !pts.is_empty() {
        let starts: Vec<Option<f64>> = pts.iter().map(|x| start_s(&x.start)).collect();
        let t0 = starts.iter().flatten().copied().fold(f64::MAX, f64::min);
        let ts: Vec<f64> = starts
            .iter()
            .enumerate()
            .map(|(i, s)| s.map_or(i as f64 * t.timeline.interval_s as f64, |s| s - t0))
            .collect();
        let mean = |total: i64, n: u64| {
            if n == 0 {
                f64::NAN
            } else {
                total as f64 * 1000.0 / n as f64
            }
        };
        let _ = write!(b, "<h3 id=\"h-timeline-{k}\">Timeline</h3>");
        b.push_str(&svg::series(
            &format!("timeline-{k}"),
            &format!(
                "Mean and largest I/O wait per {} s interval (from {})",
                t.timeline.interval_s, pts[0].start
            ),
            &ts,
            &[
                Line {
                    label: "mean I/O wait",
                    values: pts.iter().map(|x| mean(x.io_us, x.io_waits)).collect(),
                },
                Line {
                    label: "largest I/O wait",
                    values: pts.iter().map(|x| x.io_max_us as f64 * 1000.0).collect(),
                },
            ],
            svg::fmt_ns,
            true,
        ));
    }
}

/// Everything of one trace analysis; `k` keeps ids apart on a comparison page.
fn body(t: &TraceReport, k: &str) -> String {
    let mut b = String::new();
    let _ = write!(b, "<h2 id=\"h-findings-{k}\">Findings</h2>");
    b.push_str(&page::findings(&t.findings));
    for section in [profile, io_histograms, statements, files, timeline] {
        section(&mut b, t, k);
    }
    let _ = write!(b, "<details><summary>Analysis settings</summary>");
    b.push_str(&page::settings(&format!("settings-trace-{k}"), &t.settings));
    b.push_str("</details>");
    b
}

#[cfg(test)]
mod tests {
    #[test]
    fn timeline_starts_read_as_seconds() {
        assert_eq!(super::start_s("+30"), Some(30.0));
        let a = super::start_s("2024-02-28 23:59:50").unwrap();
        let b = super::start_s("2024-02-29 00:00:10").unwrap();
        assert_eq!(b - a, 20.0);
        assert_eq!(super::start_s("garbage"), None);
        assert_eq!(super::us(-640), "-640 µs");
        assert_eq!(super::us(1500), "1.50 ms");
    }
}
