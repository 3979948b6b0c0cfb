//! An AWR or Statspack report read (`dbio awr`): top events by share of
//! DB time, their wait histograms on power-of-two buckets, the load
//! profile and the derived figures. Two reports (`--compare`) get their
//! panels side by side and one table of events with ratios.

use crate::kit::html::page::{self, Text};
use crate::kit::html::svg::{self, Hist, Pair};
use dbio_model::awr::{AwrComparison, AwrReport, AwrTrend};
use maud::html;
use std::fmt::Write;

fn opt(v: Option<f64>) -> String {
    v.map_or("-".into(), |v| format!("{v:.2}"))
}

/// What the page shows: Oracle's report kinds by their names, as they
/// always were ("AwrText report"); a `dbio snap` interval as the server's
/// snapshot ("PostgreSQL snapshot"), not a Rust variant name.
fn kind_label(r: &AwrReport) -> String {
    match &r.snap {
        Some(s) => format!("{} snapshot", s.family.name()),
        None => format!("{:?} report", r.kind),
    }
}

/// The page of one report.
pub fn render(r: &AwrReport, invocation: Option<&str>) -> String {
    let mut b = html! {
        header {
            h1 { (super::table::command(r)) ": " (Text(&r.source)) }
            p.muted #summary {
                (kind_label(r)) "; result schema version " (r.schema_version) "."
            }
        }
    }
    .into_string();
    b.push_str(&page::verdict(r.verdict.as_ref(), &r.findings));
    b.push_str(&crate::kit::html::page::provenance("", invocation));
    b.push_str(&body(r, "a"));
    b.push_str(&crate::sections::snap::html::render(r));
    page::document(&format!("{}: {}", super::table::command(r), r.source), &b)
}

/// The page of two reports side by side.
pub fn render_comparison(c: &AwrComparison, invocation: Option<&str>) -> String {
    let mut b = html! {
        header {
            h1 { "dbio awr --compare" }
            p #summary { "A: " (Text(&c.a.source)) " — B: " (Text(&c.b.source)) }
        }
    }
    .into_string();
    b.push_str(&page::verdict(c.verdict.as_ref(), &c.findings));
    b.push_str(&crate::kit::html::page::provenance("", invocation));
    if !c.findings.is_empty() {
        b.push_str("<h2 id=\"h-findings\">Findings, B against A</h2>\n");
        b.push_str(&page::findings(&c.findings));
    }
    let mut names: Vec<&str> = c.a.top_events.iter().map(|e| e.name.as_str()).collect();
    for e in &c.b.top_events {
        if !names.contains(&e.name.as_str()) {
            names.push(&e.name);
        }
    }
    let rows: Vec<Vec<String>> = names
        .iter()
        .map(|n| {
            let a =
                c.a.top_events
                    .iter()
                    .find(|e| e.name == *n)
                    .and_then(|e| e.avg_us);
            let b =
                c.b.top_events
                    .iter()
                    .find(|e| e.name == *n)
                    .and_then(|e| e.avg_us);
            let ratio = match (a, b) {
                (Some(x), Some(y)) if x > 0.0 => format!("{:.2}×", y / x),
                _ => "-".into(),
            };
            vec![n.to_string(), opt(a), opt(b), ratio]
        })
        .collect();
    b.push_str("<h2 id=\"h-compare\">Top events side by side</h2>");
    b.push_str(&page::table(
        "compare-events",
        &["event", "#A avg wait (µs)", "#B avg wait (µs)", "#B / A"],
        &rows,
    ));
    b.push_str("<div class=\"panels\">");
    for (k, r) in [("a", &c.a), ("b", &c.b)] {
        let _ = write!(b, "<section class=\"panel\" id=\"panel-{k}\">");
        b.push_str(&html! { h2 { (k.to_uppercase()) ": " (Text(&r.source)) } }.into_string());
        b.push_str(&body(r, k));
        b.push_str("</section>");
    }
    b.push_str("</div>");
    page::document("dbio awr --compare", &b)
}

fn body(r: &AwrReport, k: &str) -> String {
    let mut b = String::new();
    let _ = write!(b, "<h2 id=\"h-findings-{k}\">Findings</h2>");
    b.push_str(&page::findings(&r.findings));
    let h = &r.header;
    let s = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    b.push_str(&page::pairs(
        &format!("awr-header-{k}"),
        &[
            ("database", s(&h.db_name)),
            ("instance", s(&h.instance)),
            ("version", s(&h.version)),
            ("host", s(&h.host)),
            ("platform", s(&h.platform)),
            ("CPUs", opt(h.cpus)),
            (
                "snapshots",
                format!(
                    "{} – {}",
                    h.begin_snap.map_or("-".into(), |v| v.to_string()),
                    h.end_snap.map_or("-".into(), |v| v.to_string())
                ),
            ),
            ("elapsed (s)", opt(h.elapsed_s)),
            ("DB time (s)", opt(h.db_time_s)),
        ],
    ));
    if let Some(t) = &r.truncated {
        let id = format!("awr-truncated-{k}");
        b.push_str(&html! { p.partial id=(id) { "Cut short: " (Text(t)) } }.into_string());
    }
    if !r.notes.is_empty() {
        b.push_str(&page::list(Some(&format!("awr-notes-{k}")), &r.notes));
        b.push('\n');
    }
    // Idle events are no share of anything worth drawing (Statspack ranks
    // its stale idle list's events first).
    let share = super::table::pct_label(r.event_pct_of.top);
    let ev: Vec<(String, f64)> = r
        .top_events
        .iter()
        .filter(|e| !e.idle)
        .filter_map(|e| e.pct_db_time.map(|p| (e.name.clone(), p)))
        .collect();
    if !ev.is_empty() {
        b.push_str(&svg::bars(
            &format!("awr-top-{k}"),
            &format!("Top events by share of {} (%)", &share[2..]),
            &ev,
            svg::fmt_pct,
        ));
    }
    let bounded = r.top_events.iter().any(|e| e.avg_error_us.is_some());
    let rows: Vec<Vec<String>> = super::table::idle_last(&r.top_events)
        .into_iter()
        .map(|e| {
            let mut row = vec![
                super::table::event_name(e),
                e.class.clone().unwrap_or_default(),
                opt(e.waits),
                opt(e.time_s),
                opt(e.avg_us),
            ];
            if bounded {
                row.push(opt(e.avg_error_us));
            }
            row.push(opt(e.pct_db_time));
            row
        })
        .collect();
    let pct_heading = format!("#{share}");
    let mut headings = vec!["event", "class", "#waits", "#time (s)", "#avg (µs)"];
    if bounded {
        headings.push("#± (µs, printed precision)");
    }
    headings.push(&pct_heading);
    b.push_str(&page::table(&format!("awr-events-{k}"), &headings, &rows));
    for (i, hg) in charted(r).into_iter().take(CHARTS).enumerate() {
        if hg.buckets_are_exact() {
            b.push_str(&svg::histogram(
                &format!("awr-hist-{k}-{i}"),
                &format!("'{}': {:.0} waits", hg.event, hg.total_waits),
                &[Hist {
                    label: &hg.event,
                    buckets: &hg.buckets,
                }],
                None,
            ));
        } else {
            b.push_str(&printed_cells(hg, &format!("awr-hist-{k}-{i}")));
        }
    }
    if !r.load_profile.is_empty() {
        let rows: Vec<Vec<String>> = r
            .load_profile
            .iter()
            .map(|l| vec![l.name.clone(), opt(l.per_second), opt(l.per_transaction)])
            .collect();
        let _ = write!(b, "<h3>Load profile</h3>");
        b.push_str(&page::table(
            &format!("awr-load-{k}"),
            &["", "#per second", "#per transaction"],
            &rows,
        ));
    }
    b.push_str(&super::html_trace::section(r.with_trace.as_ref(), k));
    b.push_str("<h3>Derived figures</h3>");
    let mut rows: Vec<(&str, String)> = super::table::derived_rows(r)
        .into_iter()
        .filter(|(_, v)| v != "-")
        .collect();
    let tier_rows;
    if let Some(tr) = &r.derived.read_tiers {
        let n = tr.page_cache + tr.storage_cache + tr.device + tr.unresolved;
        if n > 0.0 {
            let share = |v: f64| format!("{:.1} % ({v:.0} waits)", 100.0 * v / n);
            tier_rows = [
                (
                    format!(
                        "'{}' under {} (page cache)",
                        tr.event,
                        dbio_model::units::format_ns(tr.page_cache_max_ns as f64)
                    ),
                    share(tr.page_cache),
                ),
                (
                    format!(
                        "'{}' under {} (storage cache)",
                        tr.event,
                        dbio_model::units::format_ns(tr.storage_cache_max_ns as f64)
                    ),
                    share(tr.storage_cache),
                ),
                (
                    format!("'{}' in buckets straddling a threshold", tr.event),
                    share(tr.unresolved),
                ),
                (format!("'{}' on the device", tr.event), share(tr.device)),
            ];
            rows.extend(tier_rows.iter().map(|(k, v)| (k.as_str(), v.clone())));
        }
    }
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|(k, v)| vec![k.to_string(), v])
        .collect();
    b.push_str(&page::table(
        &format!("awr-derived-{k}"),
        &["derived figure", "#value"],
        &rows,
    ));
    b
}

/// A histogram whose cells are coarser than power-of-two buckets
/// (Statspack's and 11g's `<1ms`, `<=1s`), as the report's own cells: a
/// chart on power-of-two buckets would put each in the bucket below its
/// upper edge.
fn printed_cells(hg: &dbio_model::awr::AwrHistogram, id: &str) -> String {
    let ns = |us: u64| {
        if us == 0 {
            "0".to_string()
        } else {
            dbio_model::units::format_ns(us as f64 * 1000.0)
        }
    };
    let rows: Vec<Vec<String>> = hg
        .chosen_cells()
        .into_iter()
        .map(|c| {
            vec![
                c.label.clone(),
                ns(c.lo_us),
                c.hi_us.map_or("∞".into(), ns),
                format!("{:.0}", c.waits(hg.total_waits)),
                format!("{:.1}", c.pct),
            ]
        })
        .collect();
    let mut b = html! {
        h3 { "'" (Text(&hg.event)) "': " (format!("{:.0}", hg.total_waits)) " waits, in the report's buckets" }
    }
    .into_string();
    b.push_str(&page::table(
        id,
        &["bucket", "from", "to", "#waits", "#% of waits"],
        &rows,
    ));
    b
}

/// How many wait histograms a report's page draws.
pub const CHARTS: usize = 12;

/// The histograms a page draws, in order: the events the verdict's top
/// findings name first, then by their time (foreground or background),
/// largest first, idle events last.
pub fn charted(r: &AwrReport) -> Vec<&dbio_model::awr::AwrHistogram> {
    let named: Vec<&str> = r
        .verdict
        .as_ref()
        .map(|v| {
            v.top
                .iter()
                .filter_map(|&i| r.findings.get(i))
                .filter_map(|f| f.subject.as_deref())
                .collect()
        })
        .unwrap_or_default();
    let same = |h: &str, n: &str| h == n || (h.len() >= 20 && n.starts_with(h));
    let mut hs: Vec<(usize, bool, f64, &dbio_model::awr::AwrHistogram)> = r
        .histograms
        .iter()
        .map(|h| {
            let rank = named
                .iter()
                .position(|n| same(&h.event, n))
                .unwrap_or(usize::MAX);
            let idle = dbio_model::WaitClass::of(&h.event) == dbio_model::WaitClass::Idle;
            let time = r.event(&h.event).and_then(|e| e.time_s).unwrap_or(0.0);
            (rank, idle, time, h)
        })
        .collect();
    hs.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then(b.2.total_cmp(&a.2)));
    hs.into_iter().map(|x| x.3).collect()
}

/// The page of several reports as a trend (`dbio awr A B C...`): per
/// interval DB time and average active sessions, 'log file sync' against
/// 'log file parallel write', and the trend's top events, as tables and
/// as lines over the intervals (x axis: the interval's number, since a
/// report's times may be missing or in a local language).
pub fn render_trend(t: &AwrTrend, invocation: Option<&str>) -> String {
    let mut b = format!(
        "<header><h1>dbio awr: a trend of {} reports</h1><p class=\"muted\" id=\"summary\">ordered by begin time; result schema version {}{}.</p></header>",
        t.intervals.len(),
        t.schema_version,
        if t.mixed { "; reports of different databases or instances (--allow-mixed)" } else { "" }
    );
    b.push_str(&page::verdict(t.verdict.as_ref(), &t.findings));
    b.push_str(&crate::kit::html::page::provenance("", invocation));
    if !t.findings.is_empty() {
        b.push_str("<h2 id=\"h-findings\">Findings of the trend</h2>\n");
        b.push_str(&page::findings(&t.findings));
    }
    if !t.notes.is_empty() {
        b.push_str("<h3>Notes</h3>");
        b.push_str(&page::list(Some("notes"), &t.notes));
        b.push('\n');
    }
    let rows: Vec<Vec<String>> = t
        .intervals
        .iter()
        .enumerate()
        .map(|(i, iv)| {
            let h = &iv.header;
            vec![
                (i + 1).to_string(),
                or_dash(h.begin_time.as_deref()),
                or_dash(h.end_time.as_deref()),
                opt(h.db_time_s),
                opt(iv.average_active_sessions),
                opt(iv.log_file_sync_us),
                opt(iv.log_file_parallel_write_us),
                opt(iv.lfs_lfpw_ratio),
                iv.source.clone(),
            ]
        })
        .collect();
    b.push_str("<h2 id=\"h-intervals\">Intervals</h2>\n");
    b.push_str(&page::table(
        "intervals",
        &[
            "#",
            "begin",
            "end",
            "#DB time s",
            "#avg active sessions",
            "#log file sync avg µs",
            "#log file parallel write avg µs",
            "#sync / write",
            "report",
        ],
        &rows,
    ));
    let label = |i: usize, iv: &dbio_model::awr::AwrInterval| {
        format!(
            "#{} {}",
            i + 1,
            iv.header.begin_time.as_deref().unwrap_or("")
        )
    };
    // Per interval, the wait of a committing session beside the log
    // writer's write: their ratio says whether commits wait on the
    // storage (near 1) or on something else (CPU, scheduling, the log
    // writer's own work).
    let commit: Vec<Pair> = t
        .intervals
        .iter()
        .enumerate()
        .filter(|(_, iv)| iv.log_file_sync_us.is_some() || iv.log_file_parallel_write_us.is_some())
        .map(|(i, iv)| Pair {
            label: label(i, iv),
            a: iv.log_file_sync_us.unwrap_or(f64::NAN),
            b: iv.log_file_parallel_write_us,
            fmt: |v| format!("{v:.0} µs"),
            note: iv
                .lfs_lfpw_ratio
                .map_or_else(String::new, |r| format!("sync / write {r:.1}×")),
        })
        .collect();
    if !commit.is_empty() {
        b.push_str(&svg::paired(
            "trend-commit",
            "'log file sync' beside 'log file parallel write', average µs, by interval",
            ["log file sync", "log file parallel write"],
            &commit,
        ));
    }
    if !t.events.is_empty() {
        // An event a report does not list is not known for that interval
        // (below its top list): a dash here, never 0.
        let rows: Vec<Vec<String>> = t
            .events
            .iter()
            .map(|name| {
                let mut row = vec![name.clone()];
                row.extend(t.intervals.iter().map(|iv| {
                    iv.events
                        .iter()
                        .find(|e| &e.name == name)
                        .and_then(|e| e.time_s)
                        .map_or_else(|| "-".into(), |v| format!("{v:.1}"))
                }));
                row
            })
            .collect();
        let heads: Vec<String> = std::iter::once("event (time, s)".to_string())
            .chain(
                t.intervals
                    .iter()
                    .enumerate()
                    .map(|(i, iv)| format!("#{}", label(i, iv))),
            )
            .collect();
        let heads: Vec<&str> = heads.iter().map(String::as_str).collect();
        b.push_str(&page::table("trend-events-table", &heads, &rows));
    }
    if !t.events.is_empty() {
        let parts: Vec<&str> = t.events.iter().map(String::as_str).collect();
        let rows: Vec<(String, Vec<f64>)> = t
            .intervals
            .iter()
            .enumerate()
            .map(|(i, iv)| {
                let times = t
                    .events
                    .iter()
                    .map(|name| {
                        iv.events
                            .iter()
                            .find(|e| &e.name == name)
                            .and_then(|e| e.time_s)
                            .unwrap_or(0.0)
                    })
                    .collect();
                (label(i, iv), times)
            })
            .collect();
        b.push_str(&svg::stacked(
            "trend-events",
            "Top foreground wait events: time in each interval, s (an event a report does not list is drawn as 0: it was below that report's top list; the table shows it as a dash)",
            &parts,
            &rows,
            |v| format!("{v:.1} s"),
        ));
    }
    page::document("dbio awr trend", &b)
}

fn or_dash(v: Option<&str>) -> String {
    v.unwrap_or("-").to_string()
}

#[cfg(test)]
mod chart_tests {
    use super::*;
    use dbio_model::awr::{AwrHistogram, ReportKind, WaitEventRow};

    #[test]
    fn charts_follow_the_time_and_derived_figures_are_labelled() {
        let mut r = AwrReport::default();
        for (name, t) in [
            ("ADR block file read", 0.5),
            ("pman timer", 3615.0),
            ("db file sequential read", 39.5),
        ] {
            r.histograms.push(AwrHistogram {
                event: name.into(),
                ..Default::default()
            });
            r.foreground_events.push(WaitEventRow {
                name: name.into(),
                time_s: Some(t),
                ..Default::default()
            });
        }
        let order: Vec<&str> = charted(&r).iter().map(|h| h.event.as_str()).collect();
        assert_eq!(
            order,
            [
                "db file sequential read",
                "ADR block file read",
                "pman timer"
            ]
        );
        r.derived.host_cpu_busy_pct = Some(2.9000000000000057);
        let page = render(&r, None);
        assert!(page.contains("host CPU busy"), "labelled");
        assert!(page.contains("2.9 %"), "rounded");
        assert!(!page.contains("host_cpu_busy_pct") && !page.contains("2.9000000000000057"));
    }

    #[test]
    fn a_snapshot_is_headed_by_its_server_and_a_report_by_its_kind() {
        use dbio_model::snap::{SnapFamily, SnapInfo};
        let summary = |r: &AwrReport| {
            let page = render(r, None);
            let at = page.find("id=\"summary\">").unwrap();
            page[at..].split('<').next().unwrap().to_string()
        };
        let mut r = AwrReport::default();
        assert!(summary(&r).ends_with(">AwrText report; result schema version 0."));
        for (family, kind, label) in [
            (
                SnapFamily::Postgres,
                ReportKind::PostgresSnap,
                "PostgreSQL snapshot",
            ),
            (
                SnapFamily::Mariadb,
                ReportKind::MariadbSnap,
                "MariaDB snapshot",
            ),
        ] {
            r.kind = kind;
            r.snap = Some(SnapInfo {
                family,
                ..Default::default()
            });
            let s = summary(&r);
            assert!(
                s.ends_with(&format!(">{label}; result schema version 0.")),
                "{s}"
            );
            assert!(!s.contains("Snap report"), "{s}");
        }
    }
}
