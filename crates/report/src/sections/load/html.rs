//! Commit load on a real database engine (`dbio load`): commits per
//! second each second, commit latency (histogram and percentiles), where
//! the server's sessions waited, and the server's own settings.

use crate::kit::html::page::{self, Text};
use crate::kit::html::persec::{self, Chart};
use crate::kit::html::svg::{self, Hist, Line};
use dbio_model::load::LoadResult;
use dbio_model::units::format_ns;
use dbio_model::LatencySummary;
use maud::html;
use std::fmt::Write;

/// The commit load's section.
pub fn section(runs: &[LoadResult]) -> String {
    let mut b = String::from("<h2 id=\"h-load\">Commit load on a database</h2>\n");
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            vec![
                r.name.clone(),
                r.config.engine.clone(),
                r.server.version.clone(),
                r.config.sessions.to_string(),
                r.commits.to_string(),
                format!("{:.0}", r.tps),
                format_ns(r.commit.p50_ns() as f64),
                format_ns(r.commit.p99_ns() as f64),
                r.derived
                    .commits_per_flush
                    .map_or("-".into(), |v| format!("{v:.2}")),
            ]
        })
        .collect();
    b.push_str(&page::table(
        "load-summary",
        &[
            "run",
            "engine",
            "server",
            "#sessions",
            "#commits",
            "#commits/s",
            "#commit p50",
            "#commit p99",
            "#commits per flush",
        ],
        &rows,
    ));
    let hists: Vec<Hist> = runs
        .iter()
        .map(|r| Hist {
            label: &r.name,
            buckets: &r.commit.log2_us,
        })
        .collect();
    let pct: Vec<(&str, &LatencySummary)> =
        runs.iter().map(|r| (r.name.as_str(), &r.commit)).collect();
    b.push_str("<div class=\"panels\"><section>");
    b.push_str(&svg::histogram(
        "load-hist",
        "Commit latency histogram",
        &hists,
        None,
    ));
    b.push_str("</section><section>");
    b.push_str(&svg::percentiles(
        "load-pct",
        "Commit latency percentiles",
        &pct,
    ));
    b.push_str("</section></div>");
    for (i, r) in runs.iter().enumerate() {
        let _ = write!(b, "<section class=\"load\" id=\"load-{i}\">");
        b.push_str(&html! { h3 { (Text(&r.name)) } }.into_string());
        if !r.per_second.is_empty() {
            b.push_str(&persec::charts(
                "load",
                i,
                &r.name,
                &r.per_second,
                &[
                    Chart {
                        key: "tps",
                        caption: "commits per second, each second",
                        lines: persec::named(&[("tps", "commits/s")]),
                        fmt: svg::fmt_count,
                        log_y: false,
                    },
                    Chart {
                        key: "lat",
                        caption: "commit latency p50 and p99, each second",
                        lines: persec::named(&[("commit_p50", "p50"), ("commit_p99", "p99")]),
                        fmt: svg::fmt_ns,
                        log_y: true,
                    },
                ],
            ));
        } else if !r.series.is_empty() {
            let t: Vec<f64> = r.series.iter().map(|s| s.t_s).collect();
            b.push_str(&svg::series(
                &format!("series-load-{i}"),
                &format!("{}: commits per second, each second", r.name),
                &t,
                &[Line {
                    label: "commits/s",
                    values: r.series.iter().map(|s| s.tps).collect(),
                }],
                svg::fmt_count,
                false,
            ));
        }
        b.push_str(&super::predict_html::panel(i, r));
        if let Some(base) = &r.baseline {
            b.push_str(&super::compare_html::storage_vs_database(
                &format!("load-baseline-{i}"),
                base,
                &[(
                    "commit".to_string(),
                    r.commit.p50_ns() as f64,
                    r.commit.p99_ns() as f64,
                )],
            ));
        }
        if !r.waits.is_empty() {
            let w: Vec<(String, f64)> = r
                .waits
                .iter()
                .map(|w| (format!("{} ({})", w.state, w.backend), w.share_pct))
                .collect();
            b.push_str(&svg::bars(
                &format!("load-waits-{i}"),
                &format!(
                    "{}: where the server's sessions were, by share of samples",
                    r.name
                ),
                &w,
                svg::fmt_pct,
            ));
        }
        let settings: Vec<Vec<String>> = r
            .server
            .settings
            .iter()
            .map(|s| vec![s.name.clone(), s.value.clone()])
            .collect();
        b.push_str("<details><summary>Run and server settings</summary>");
        b.push_str(&page::settings(&format!("settings-load-{i}"), &r.config));
        b.push_str(&page::table(
            &format!("server-settings-load-{i}"),
            &["server setting", "value"],
            &settings,
        ));
        b.push_str("</details></section>");
    }
    b
}
