//! Live traces of running processes (`dbio watch`): time per file and
//! system call as bars, and the latency histogram of the busiest ones.

use crate::kit::html::page::{self, Text};
use crate::kit::html::svg::{self, Hist};
use dbio_model::units::{format_bytes, format_ns};
use dbio_model::watch::WatchResult;
use maud::html;
use std::fmt::Write;

/// How many (file, call) pairs get a chart.
const TOP: usize = 12;

/// The live traces' section.
pub fn section(runs: &[WatchResult]) -> String {
    let mut b = String::from("<h2 id=\"h-watch\">Live trace</h2>\n");
    for (i, w) in runs.iter().enumerate() {
        let procs: Vec<String> = w
            .processes
            .iter()
            .map(|p| format!("{} ({})", p.pid, p.comm))
            .collect();
        let _ = write!(b, "<section class=\"watch\" id=\"watch-{i}\">");
        let head = html! {
            h3 { (Text(&w.name)) }
            p {
                "Watched " (Text(&procs.join(", "))) " for "
                (Text(&format_ns(w.duration_ns as f64))) "; " (Text(&w.ended.to_string())) "."
            }
        };
        b.push_str(&head.into_string());
        let mut ops: Vec<_> = w.ops.iter().collect();
        ops.sort_by_key(|o| std::cmp::Reverse(o.total_ns));
        let name = |o: &dbio_model::watch::WatchFileOp| {
            if o.fd >= 0 {
                format!("{} {} (pid {} fd {})", o.op, o.file_name(), o.pid, o.fd)
            } else {
                format!("{} {} (pid {})", o.op, o.file_name(), o.pid)
            }
        };
        // The table folds as the terminal does (pseudo-files, libraries,
        // files under a small share of the traced time in one row).
        let files = super::files::files(w);
        let (shown, other): (Vec<_>, Vec<_>) =
            files.iter().partition(|f| !super::files::folded(w, f));
        let mut rows: Vec<Vec<String>> = shown
            .iter()
            .flat_map(|f| f.rows.iter())
            .map(|o| {
                vec![
                    o.file_name(),
                    o.op.to_string(),
                    o.pid.to_string(),
                    o.count.to_string(),
                    format_bytes(o.bytes),
                    format_ns(o.total_ns as f64),
                    o.errors.to_string(),
                ]
            })
            .collect();
        if !other.is_empty() {
            let folded = other.iter().flat_map(|f| f.rows.iter());
            let (n, bytes, ns, errors) = folded.fold((0, 0, 0, 0), |a, o| {
                (
                    a.0 + o.count,
                    a.1 + if o.op.moves_data() { o.bytes } else { 0 },
                    a.2 + o.total_ns,
                    a.3 + o.errors,
                )
            });
            rows.push(vec![
                format!("other files ({})", other.len()),
                "-".into(),
                "-".into(),
                n.to_string(),
                format_bytes(bytes),
                format_ns(ns as f64),
                errors.to_string(),
            ]);
        }
        b.push_str(&page::table(
            &format!("watch-ops-{i}"),
            &[
                "file", "call", "#pid", "#calls", "#bytes", "#time", "#errors",
            ],
            &rows,
        ));
        let bars: Vec<(String, f64)> = ops
            .iter()
            .take(TOP)
            .map(|o| (name(o), o.total_ns as f64))
            .collect();
        b.push_str(&svg::bars(
            &format!("watch-time-{i}"),
            "Time in each system call per file (the busiest)",
            &bars,
            svg::fmt_ns,
        ));
        let labels: Vec<String> = ops.iter().take(4).map(|o| name(o)).collect();
        let hists: Vec<Hist> = ops
            .iter()
            .take(4)
            .zip(&labels)
            .map(|(o, l)| Hist {
                label: l,
                buckets: &o.latency,
            })
            .collect();
        if !hists.is_empty() {
            b.push_str(&svg::histogram(
                &format!("watch-hist-{i}"),
                "Latency of the busiest calls",
                &hists,
                None,
            ));
        }
        b.push_str(&super::html_block::section(i, w));
        let l = &w.losses;
        let _ = write!(
            b,
            "<p>Losses: {} unmatched, {} start-table full, {} histogram-table full, {} ring drops.</p>",
            l.unmatched, l.start_table_full, l.histogram_table_full, l.ring_drops
        );
        b.push_str("<details><summary>Settings</summary>");
        b.push_str(&page::settings(&format!("settings-watch-{i}"), &w.config));
        b.push_str("</details></section>");
    }
    b
}
