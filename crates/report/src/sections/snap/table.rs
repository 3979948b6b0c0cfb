//! A snapshot interval's own part of the terminal table (`dbio snap`):
//! how it was taken, what the server does not track, resets, and the
//! server's tables (pg_stat_io, statements, files) that an AWR report
//! keeps only in its JSON.

use crate::sections::awr::table::{right_from, section, table};
use dbio_model::awr::AwrReport;
use dbio_model::snap::SampleSource;
use dbio_model::units::format_ns;
use std::fmt::Write;

/// Rows shown per server table.
const TABLE_ROWS: usize = 12;

/// The snapshot's block, or nothing for a report read from a file.
pub fn render(r: &AwrReport) -> String {
    let Some(s) = &r.snap else {
        return String::new();
    };
    let mut out = String::new();
    let mut t = table(&["snapshot", "value"]);
    t.add_row(vec![
        "server".to_string(),
        format!("{} {}", s.family.name(), s.server_version),
    ]);
    t.add_row(vec!["target".into(), s.target.clone()]);
    t.add_row(vec![
        "interval".into(),
        format!(
            "{:.1} s of {:.1} s planned ({} to {})",
            r.header.elapsed_s.unwrap_or(0.0),
            s.planned_s,
            r.header.begin_time.as_deref().unwrap_or("-"),
            r.header.end_time.as_deref().unwrap_or("-")
        ),
    ]);
    let source = match s.sample_source {
        SampleSource::PgStatActivity => "sampled from pg_stat_activity",
        SampleSource::PgWaitSampling => "pg_wait_sampling's profile",
        SampleSource::StatementTimers => "the statements' own timers (performance_schema)",
    };
    t.add_row(vec!["DB time".to_string(), source.to_string()]);
    if let Some(c) = &s.sampler {
        t.add_row(vec![
            "sampler".into(),
            format!(
                "{} samples every {}, {} per read (slowest {}){}{}",
                c.samples,
                format_ns(c.period_s * 1e9),
                format_ns(c.mean_query_us * 1000.0),
                format_ns(c.max_query_us * 1000.0),
                c.server_cpu_s
                    .map_or_else(String::new, |cpu| format!(", {cpu:.3} s of server CPU")),
                if c.late > 0 {
                    format!(", {} late", c.late)
                } else {
                    String::new()
                }
            ),
        ]);
    }
    if let Some(p) = &s.partial {
        t.add_row(vec!["partial".into(), format!("cut short by {p}")]);
    }
    out.push_str(&t.to_string());
    out.push('\n');
    let mut lines: Vec<String> = Vec::new();
    for n in &s.not_tracked {
        lines.push(format!(
            "not tracked: {} is off: {} (enable: {})",
            n.setting, n.missing, n.enable
        ));
    }
    lines.extend(s.hidden.iter().map(|h| format!("hidden: {h}")));
    lines.extend(s.resets.iter().map(|x| format!("reset: {}", x.text)));
    lines.extend(s.notes.iter().map(|n| format!("note: {n}")));
    if !lines.is_empty() {
        section(&mut out, "What the server does not show", &lines.join("\n"));
    }
    if let Some(l) = super::layers::of(r) {
        let mut t = table(&super::layers::COUNTED_HEADS);
        for row in super::layers::counted(l) {
            t.add_row(row);
        }
        right_from(&mut t, 2);
        section(&mut out, "The layers of a commit (--watch)", &t.to_string());
        let mut t = table(&super::layers::SPLIT_HEADS);
        for row in super::layers::split(l) {
            t.add_row(row);
        }
        right_from(&mut t, 1);
        let body = format!("{t}\n{}", super::layers::notes(l).join("\n"));
        section(&mut out, "Where a commit's time goes", &body);
    }
    for raw in &r.tables {
        let mut t = table(&raw.columns.iter().map(String::as_str).collect::<Vec<_>>());
        for row in raw.rows.iter().take(TABLE_ROWS) {
            t.add_row(row.clone());
        }
        let first_number = raw
            .rows
            .first()
            .and_then(|row| {
                row.iter()
                    .position(|c| c.parse::<f64>().is_ok() || c == "-")
            })
            .unwrap_or(raw.columns.len());
        right_from(&mut t, first_number);
        let mut body = t.to_string();
        if raw.rows.len() > TABLE_ROWS {
            let _ = write!(
                body,
                "\n({} more in the JSON result)",
                raw.rows.len() - TABLE_ROWS
            );
        }
        section(&mut out, &raw.section, &body);
    }
    out
}
