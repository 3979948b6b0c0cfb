//! Several AWR or Statspack reports as a trend (`dbio awr A B C ...`):
//! one column per interval, ordered by begin snapshot time, so that a
//! DBA sees when DB time, a wait event's average or the 'log file sync'
//! to 'log file parallel write' gap moved, and by how much, without
//! opening N reports side by side.
//!
//! An average wait is shown as its best estimate (time over waits where
//! the printed average is coarser), with its ± bound where the printed
//! precision leaves one wider than a hundredth of it.
//!
//! Rendered from [`AwrTrend`] alone, so a saved JSON result re-renders
//! identically (`dbio report --from`).

use crate::export::ExportError;
use crate::kit::csv::{entry_rows, finding_rows, LongRow, LongTable};
use crate::sections::awr::difference::row_avg;
use crate::sections::awr::table::{num, opt, right_from, section, table, us};
use dbio_model::awr::{AwrInterval, AwrTrend, WaitEventRow};
use std::fmt::Write;

/// Load profile lines shown (the JSON and CSV hold all of them).
const PROFILE_ROWS: usize = 20;

/// `#1`, `#2`, ...: the interval columns.
fn columns(first: &str, t: &AwrTrend) -> Vec<String> {
    let mut c = vec![first.to_string()];
    c.extend((1..=t.intervals.len()).map(|i| format!("#{i}")));
    c
}

fn event<'a>(i: &'a AwrInterval, name: &str) -> Option<&'a WaitEventRow> {
    i.events.iter().find(|e| e.name == name)
}

/// An average wait: its best estimate, `± bound` where the printed
/// precision leaves a range wider than a hundredth of it.
fn avg_cell(e: &WaitEventRow) -> String {
    match row_avg(e) {
        None => us(e.avg_us),
        Some(a) if a.hi - a.lo <= 0.01 * a.us => us(Some(a.us)),
        Some(a) => format!(
            "{} ±{}",
            us(Some(a.us)),
            us(Some((a.us - a.lo).max(a.hi - a.us)))
        ),
    }
}

/// One row per report: its database, snapshots, times and load.
fn intervals(out: &mut String, t: &AwrTrend) {
    let mut tb = table(&[
        "#",
        "report",
        "database",
        "instance",
        "snaps",
        "begin",
        "end",
        "elapsed",
        "DB time",
        "avg active sessions",
    ]);
    for (n, i) in t.intervals.iter().enumerate() {
        let h = &i.header;
        tb.add_row(vec![
            format!("#{}", n + 1),
            i.source.clone(),
            match (&h.db_name, &h.dbid) {
                (Some(d), Some(id)) => format!("{d} ({id})"),
                (d, _) => opt(d).to_string(),
            },
            opt(&h.instance).to_string(),
            match (h.begin_snap, h.end_snap) {
                (Some(a), Some(b)) => format!("{a}-{b}"),
                _ => "-".into(),
            },
            opt(&h.begin_time).to_string(),
            opt(&h.end_time).to_string(),
            h.elapsed_s
                .map_or("-".into(), |s| format!("{:.2} min", s / 60.0)),
            h.db_time_s
                .map_or("-".into(), |s| format!("{:.2} min", s / 60.0)),
            i.average_active_sessions
                .map_or("-".into(), |v| format!("{v:.2}")),
        ]);
    }
    right_from(&mut tb, 7);
    out.push_str(&tb.to_string());
    out.push('\n');
}

/// 'log file sync' against 'log file parallel write' in every interval.
fn commit_path(out: &mut String, t: &AwrTrend) {
    let mut tb = table(
        &columns("commit path", t)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    type Pick = fn(&AwrInterval) -> String;
    let rows: [(&str, Pick); 3] = [
        ("'log file sync' average", |i| us(i.log_file_sync_us)),
        ("'log file parallel write' average", |i| {
            us(i.log_file_parallel_write_us)
        }),
        ("'log file sync' / 'log file parallel write'", |i| {
            i.lfs_lfpw_ratio.map_or("-".into(), |v| format!("{v:.2}x"))
        }),
    ];
    for (name, f) in rows {
        let mut row = vec![name.to_string()];
        row.extend(t.intervals.iter().map(f));
        tb.add_row(row);
    }
    right_from(&mut tb, 1);
    section(out, "Commit path", &tb.to_string());
}

/// The top foreground wait events in every interval.
fn wait_events(out: &mut String, t: &AwrTrend) {
    if !t.events.is_empty() {
        let mut tb = table(
            &columns("wait event: time (s) / avg", t)
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        );
        for name in &t.events {
            let mut row = vec![name.clone()];
            row.extend(t.intervals.iter().map(|i| match event(i, name) {
                Some(e) => format!("{} / {}", num(e.time_s), avg_cell(e)),
                None => "-".into(),
            }));
            tb.add_row(row);
        }
        right_from(&mut tb, 1);
        section(
            out,
            "Top foreground wait events (- : not listed in that report)",
            &tb.to_string(),
        );
    }
}

/// The load profile's per-second figures in every interval.
fn load_profile(out: &mut String, t: &AwrTrend) {
    let mut names: Vec<&str> = Vec::new();
    for i in &t.intervals {
        for p in &i.load_profile {
            if p.per_second.is_some() && !names.contains(&p.name.as_str()) {
                names.push(&p.name);
            }
        }
    }
    if !names.is_empty() {
        let mut tb = table(
            &columns("load profile, per second", t)
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        );
        for name in names.iter().take(PROFILE_ROWS) {
            let mut row = vec![name.to_string()];
            row.extend(t.intervals.iter().map(|i| {
                num(i
                    .load_profile
                    .iter()
                    .find(|p| p.name == *name)
                    .and_then(|p| p.per_second))
            }));
            tb.add_row(row);
        }
        right_from(&mut tb, 1);
        let mut body = tb.to_string();
        if names.len() > PROFILE_ROWS {
            let _ = write!(
                body,
                "\n({} more in the JSON result)",
                names.len() - PROFILE_ROWS
            );
        }
        section(out, "Load profile per second", &body);
    }
}

/// Each interval's findings.
fn findings(out: &mut String, t: &AwrTrend) {
    let mut tb = table(&["#", "findings"]);
    for (n, i) in t.intervals.iter().enumerate() {
        if !i.findings.is_empty() {
            let titles: Vec<String> = i
                .findings
                .iter()
                .map(|f| format!("[{:?}] {}", f.severity, f.text))
                .collect();
            tb.add_row(vec![format!("#{}", n + 1), titles.join("\n")]);
        }
    }
    if tb.row_count() > 0 {
        section(out, "Findings per interval", &tb.to_string());
    }
}

/// Renders a trend for a terminal.
pub fn render(t: &AwrTrend) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "dbio awr: {} reports as a trend, by begin snapshot time",
        t.intervals.len()
    );
    out.push_str(&crate::kit::text::opening(
        t.verdict.as_ref(),
        &t.findings,
        crate::kit::text::DETAIL_BELOW,
    ));
    for part in [intervals, commit_path, wait_events, load_profile, findings] {
        part(&mut out, t);
    }
    let rest = crate::kit::text::other_findings(t.verdict.as_ref(), &t.findings);
    if !rest.is_empty() {
        section(&mut out, "Findings of the trend", rest.trim_end());
    }
    if !t.notes.is_empty() {
        out.push_str("\nNotes\n");
        for n in &t.notes {
            let _ = writeln!(out, "  - {n}");
        }
    }
    out
}

/// A trend as CSV: the long-form rows of each interval (header, commit
/// path, events, load profile, findings), grouped by `#N begin-time`.
pub fn csv(t: &AwrTrend) -> Result<String, ExportError> {
    let labels: Vec<String> = t
        .intervals
        .iter()
        .enumerate()
        .map(|(n, i)| format!("#{} {}", n + 1, opt(&i.header.begin_time)))
        .collect();
    let mut groups: Vec<(Option<&str>, Vec<LongRow>)> = Vec::new();
    for (i, label) in t.intervals.iter().zip(&labels) {
        let mut v = Vec::new();
        v.extend(entry_rows("header", &i.source, &i.header, &[])?);
        v.extend(entry_rows(
            "commit_path",
            &i.source,
            &CommitPath {
                average_active_sessions: i.average_active_sessions,
                log_file_sync_us: i.log_file_sync_us,
                log_file_parallel_write_us: i.log_file_parallel_write_us,
                lfs_lfpw_ratio: i.lfs_lfpw_ratio,
            },
            &[],
        )?);
        v.extend(entry_rows(
            "outlier_figures",
            &i.source,
            &OutlierFigures {
                db_cpu_s: i.db_cpu_s,
                commits_per_s: i.commits_per_s,
                single_block_read: i.single_block_read.as_ref().map(|e| e.name.clone()),
                single_block_read_us: i.single_block_read.as_ref().and_then(row_avg).map(|a| a.us),
            },
            &[],
        )?);
        for e in &i.events {
            v.extend(entry_rows("event", &e.name, e, &["name"])?);
        }
        for p in &i.load_profile {
            v.extend(entry_rows("load_profile", &p.name, p, &["name"])?);
        }
        v.extend(finding_rows(&i.findings));
        groups.push((Some(label.as_str()), v));
    }
    LongTable::new(crate::kit::csv::TRACE_HEADER).write(&groups)
}

/// The per-interval figures of the commit path, for [`csv`].
#[derive(serde::Serialize)]
struct CommitPath {
    average_active_sessions: Option<f64>,
    log_file_sync_us: Option<f64>,
    log_file_parallel_write_us: Option<f64>,
    lfs_lfpw_ratio: Option<f64>,
}

/// The per-interval figures only the outlier rule reads, for [`csv`]
/// (absent in trends written before it).
#[derive(serde::Serialize)]
struct OutlierFigures {
    #[serde(skip_serializing_if = "Option::is_none")]
    db_cpu_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    commits_per_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    single_block_read: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    single_block_read_us: Option<f64>,
}
