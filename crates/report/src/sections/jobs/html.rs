//! Raw I/O jobs (`dbio bench`, the raw part of `dbio check`): a summary
//! table, then per job its latency histogram, percentile curves and
//! per-second series (throughput, p50 and p99); several jobs also get one
//! percentile chart with every job, side by side.

use crate::kit::html::page::{self, Text};
use crate::kit::html::svg::{self, Hist, Line};
use dbio_model::units::{format_ns, format_rate};
use dbio_model::{JobResult, LatencySummary};
use maud::html;
use std::fmt::Write;

/// The distributions of a job worth drawing, with their names, the one
/// the job measures first: a commit job's commit (write + sync: what a
/// session waits for), not its write alone.
fn distributions(j: &JobResult) -> Vec<(&'static str, &LatencySummary)> {
    let mut v = Vec::new();
    if let Some(c) = j.commit.as_ref().filter(|c| c.count > 0) {
        v.push(("commit (write + sync)", c));
    }
    if let Some(r) = &j.read {
        v.push(("read lat", &r.lat));
    }
    if let Some(w) = &j.write {
        v.push(("write lat", &w.lat));
    }
    v
}

/// The jobs' section.
pub fn section(jobs: &[JobResult]) -> String {
    let mut b = String::from("<h2 id=\"h-jobs\">Raw I/O jobs</h2>\n");
    let rows: Vec<Vec<String>> = jobs
        .iter()
        .map(|j| {
            let (what, p50, p99) = distributions(j).first().map_or(
                ("–".into(), "–".into(), "–".into()),
                |(k, l)| {
                    (
                        k.to_string(),
                        format_ns(l.p50_ns() as f64),
                        format_ns(l.p99_ns() as f64),
                    )
                },
            );
            let iops =
                j.read.as_ref().map_or(0.0, |s| s.iops) + j.write.as_ref().map_or(0.0, |s| s.iops);
            let bw = j.read.as_ref().map_or(0.0, |s| s.bytes_per_sec)
                + j.write.as_ref().map_or(0.0, |s| s.bytes_per_sec);
            vec![
                j.name.clone(),
                crate::sections::jobs::table::describe(j),
                j.target.clone(),
                format!("{:.0}", iops),
                format_rate(bw),
                what,
                p50,
                p99,
                format_ns(j.runtime_ns as f64),
            ]
        })
        .collect();
    b.push_str(&page::table(
        "jobs-summary",
        &[
            "job",
            "settings",
            "target",
            "#IOPS",
            "#throughput",
            "latency of",
            "#p50",
            "#p99",
            "#runtime",
        ],
        &rows,
    ));
    if jobs.len() > 1 {
        let lines: Vec<(String, &LatencySummary)> = jobs
            .iter()
            .filter_map(|j| {
                distributions(j)
                    .first()
                    .map(|(k, l)| (format!("{}: {k}", j.name), *l))
            })
            .collect();
        let refs: Vec<(&str, &LatencySummary)> =
            lines.iter().map(|(n, l)| (n.as_str(), *l)).collect();
        b.push_str("<h3>All jobs side by side</h3>");
        b.push_str(&svg::percentiles(
            "pct-jobs",
            "Latency percentiles of every job (each job's commit, else its reads or writes)",
            &refs,
        ));
    }
    for (i, j) in jobs.iter().enumerate() {
        let _ = write!(b, "<section class=\"job\" id=\"job-{i}\">");
        let head = html! {
            h3 { "Job " (Text(&j.name)) }
            p.mono { (Text(&crate::sections::jobs::table::describe(j))) }
        };
        b.push_str(&head.into_string());
        let d = distributions(j);
        let hists: Vec<Hist> = d
            .iter()
            .map(|(k, l)| Hist {
                label: k,
                buckets: &l.log2_us,
            })
            .collect();
        b.push_str("<div class=\"panels\"><section>");
        b.push_str(&svg::histogram(
            &format!("hist-job-{i}"),
            &format!("{}: latency histogram", j.name),
            &hists,
            None,
        ));
        b.push_str("</section><section>");
        b.push_str(&svg::percentiles(
            &format!("pct-job-{i}"),
            &format!("{}: latency percentiles", j.name),
            &d,
        ));
        b.push_str("</section></div>");
        if !j.series.is_empty() {
            let t: Vec<f64> = j.series.iter().map(|s| s.t_s).collect();
            let mut lines = Vec::new();
            if j.series.iter().any(|s| s.read_iops > 0.0) {
                lines.push(Line {
                    label: "read IOPS",
                    values: j.series.iter().map(|s| s.read_iops).collect(),
                });
            }
            if j.series.iter().any(|s| s.write_iops > 0.0) {
                lines.push(Line {
                    label: "write IOPS",
                    values: j.series.iter().map(|s| s.write_iops).collect(),
                });
            }
            b.push_str(&svg::series(
                &format!("series-iops-job-{i}"),
                &format!("{}: operations per second, each second", j.name),
                &t,
                &lines,
                svg::fmt_count,
                false,
            ));
            b.push_str(&svg::series(
                &format!("series-lat-job-{i}"),
                &format!(
                    "{}: p50 and p99 latency, each second (log-linear buckets, ≤ 12.5 % error)",
                    j.name
                ),
                &t,
                &[
                    Line {
                        label: "p50",
                        values: j.series.iter().map(|s| s.p50_ns as f64).collect(),
                    },
                    Line {
                        label: "p99",
                        values: j.series.iter().map(|s| s.p99_ns as f64).collect(),
                    },
                ],
                svg::fmt_ns,
                true,
            ));
        }
        b.push_str(&page::settings_details(
            &j.name,
            &format!("settings-job-{i}"),
            &j.job,
        ));
        b.push_str("</section>\n");
    }
    b
}
