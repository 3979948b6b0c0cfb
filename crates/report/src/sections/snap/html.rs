//! A snapshot interval's own part of the HTML page (`dbio snap`): how it
//! was taken, what the server does not track, and the server's tables.

use crate::kit::html::page;
use dbio_model::awr::AwrReport;

/// The snapshot's panel, or nothing for a report read from a file.
pub fn render(r: &AwrReport) -> String {
    let Some(s) = &r.snap else {
        return String::new();
    };
    let mut b = String::from("<h2 id=\"h-snap\">Snapshot</h2>");
    let mut rows = vec![
        (
            "server",
            format!("{} {}", s.family.name(), s.server_version),
        ),
        ("target", s.target.clone()),
        (
            "interval",
            format!(
                "{:.1} s of {:.1} s planned",
                r.header.elapsed_s.unwrap_or(0.0),
                s.planned_s
            ),
        ),
    ];
    if let Some(c) = &s.sampler {
        rows.push((
            "sampler",
            format!(
                "{} samples every {} s, {:.0} µs per read{}",
                c.samples,
                c.period_s,
                c.mean_query_us,
                c.server_cpu_s
                    .map_or_else(String::new, |cpu| format!(", {cpu:.3} s of server CPU"))
            ),
        ));
    }
    if let Some(p) = &s.partial {
        rows.push(("partial", format!("cut short by {p}")));
    }
    b.push_str(&page::pairs("snap-info", &rows));
    let mut lines: Vec<String> = s
        .not_tracked
        .iter()
        .map(|n| {
            format!(
                "not tracked: {} is off: {} (enable: {})",
                n.setting, n.missing, n.enable
            )
        })
        .collect();
    lines.extend(s.hidden.iter().map(|h| format!("hidden: {h}")));
    lines.extend(s.resets.iter().map(|x| format!("reset: {}", x.text)));
    lines.extend(s.notes.iter().map(|n| format!("note: {n}")));
    if !lines.is_empty() {
        b.push_str(&page::list(Some("snap-notes"), &lines));
    }
    if let Some(l) = super::layers::of(r) {
        b.push_str("<h3>The layers of a commit (--watch)</h3>");
        let counted = super::layers::counted(l);
        b.push_str(&page::table(
            "snap-layers",
            &super::layers::COUNTED_HEADS,
            &counted,
        ));
        b.push_str("<h3>Where a commit's time goes</h3>");
        let split = super::layers::split(l);
        b.push_str(&page::table(
            "snap-commit-split",
            &super::layers::SPLIT_HEADS,
            &split,
        ));
        b.push_str(&page::list(
            Some("snap-layer-notes"),
            &super::layers::notes(l),
        ));
    }
    for (i, t) in r.tables.iter().enumerate() {
        b.push_str(&format!("<h3>{}</h3>", page::esc(&t.section)));
        let heads: Vec<&str> = t.columns.iter().map(String::as_str).collect();
        b.push_str(&page::table(&format!("snap-table-{i}"), &heads, &t.rows));
    }
    b
}
