//! The log writer (`dbio lgwr`, the commit part of `dbio check`): where
//! each commit's time went as stacked bars (the four parts add up to the
//! mean 'log file sync'), commits per second with the round-to-round
//! spread, and 'log file sync' / 'log file parallel write' distributions,
//! every configuration side by side.

use crate::kit::html::page::{self};
use crate::kit::html::persec::{self, Chart};
use crate::kit::html::svg::{self, Hist};
use dbio_model::lgwr::LgwrResult;
use dbio_model::units::format_ns;
use dbio_model::LatencySummary;

/// The log writer's section.
pub fn section(runs: &[LgwrResult]) -> String {
    let mut b = String::from("<h2 id=\"h-lgwr\">Log writer: commit time</h2>\n");
    for part in [summary, breakdown, distributions, per_run] {
        part(&mut b, runs);
    }
    b
}

/// One row per configuration: rate, its spread over rounds, 'log file sync' and 'log file parallel write'.
fn summary(b: &mut String, runs: &[LgwrResult]) {
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            let spread = if r.round_tps.len() > 1 {
                let mn = r.round_tps.iter().copied().fold(f64::MAX, f64::min);
                let mx = r.round_tps.iter().copied().fold(f64::MIN, f64::max);
                format!("{mn:.0} – {mx:.0}")
            } else {
                "-".into()
            };
            vec![
                r.name.clone(),
                r.config.method.to_string(),
                r.config.sessions.to_string(),
                r.rounds.to_string(),
                format!("{:.0}", r.tps),
                spread,
                format_ns(r.log_file_sync.mean_ns),
                format_ns(r.log_file_sync.p99_ns() as f64),
                format_ns(r.writer.log_file_parallel_write.mean_ns),
                format!("{:.2}", r.writer.commits_per_write),
            ]
        })
        .collect();
    b.push_str(&page::table(
        "lgwr-summary",
        &[
            "configuration",
            "method",
            "#sessions",
            "#rounds",
            "#commits/s",
            "#commits/s per round (min – max)",
            "#log file sync mean",
            "#log file sync p99",
            "#log file parallel write mean",
            "#commits per write",
        ],
        &rows,
    ));
}

/// Where a commit's time goes, stacked per configuration.
fn breakdown(b: &mut String, runs: &[LgwrResult]) {
    let parts = ["wait for the writer", "writer's I/O", "posting", "wake-up"];
    let stack: Vec<(String, Vec<f64>)> = runs
        .iter()
        .map(|r| {
            let k = &r.breakdown;
            (
                r.name.clone(),
                vec![
                    k.wait_for_writer.mean_ns,
                    k.writer_io.mean_ns,
                    k.posting.mean_ns,
                    k.wake_up.mean_ns,
                ],
            )
        })
        .collect();
    b.push_str(&svg::stacked(
        "lgwr-breakdown",
        "Where a commit's time goes: mean 'log file sync' split into its parts, per configuration",
        &parts,
        &stack,
        svg::fmt_ns,
    ));
}

/// Commits per second, and the 'log file sync' and 'log file parallel write' distributions side by side.
fn distributions(b: &mut String, runs: &[LgwrResult]) {
    let tps: Vec<(String, f64)> = runs.iter().map(|r| (r.name.clone(), r.tps)).collect();
    b.push_str(&svg::bars(
        "lgwr-tps",
        "Commits per second over all sessions",
        &tps,
        svg::fmt_count,
    ));
    let lfs: Vec<(&str, &LatencySummary)> = runs
        .iter()
        .map(|r| (r.name.as_str(), &r.log_file_sync))
        .collect();
    let hists: Vec<Hist> = runs
        .iter()
        .map(|r| Hist {
            label: &r.name,
            buckets: &r.log_file_sync.log2_us,
        })
        .collect();
    b.push_str("<div class=\"panels\"><section>");
    b.push_str(&svg::histogram(
        "lgwr-lfs-hist",
        "'log file sync' histogram",
        &hists,
        None,
    ));
    b.push_str("</section><section>");
    b.push_str(&svg::percentiles(
        "lgwr-lfs-pct",
        "'log file sync' percentiles",
        &lfs,
    ));
    b.push_str("</section></div>");
    let lfpw: Vec<(&str, &LatencySummary)> = runs
        .iter()
        .map(|r| (r.name.as_str(), &r.writer.log_file_parallel_write))
        .collect();
    b.push_str(&svg::percentiles(
        "lgwr-lfpw-pct",
        "'log file parallel write' percentiles (the writer's own I/O)",
        &lfpw,
    ));
}

/// Each configuration's per-second charts and settings.
fn per_run(b: &mut String, runs: &[LgwrResult]) {
    for (i, r) in runs.iter().enumerate() {
        b.push_str(&persec::charts(
            "lgwr",
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
                    key: "lfs",
                    caption: "'log file sync' p50 and p99, each second",
                    lines: persec::named(&[
                        ("log_file_sync_p50", "p50"),
                        ("log_file_sync_p99", "p99"),
                    ]),
                    fmt: svg::fmt_ns,
                    log_y: true,
                },
                Chart {
                    key: "writes",
                    caption: "the writer's writes per second, each second",
                    lines: persec::named(&[("writes_per_s", "writes/s")]),
                    fmt: svg::fmt_count,
                    log_y: false,
                },
                Chart {
                    key: "cpw",
                    caption: "commits per write (group commit), each second",
                    lines: persec::named(&[("commits_per_write", "commits per write")]),
                    fmt: persec::fmt_ratio,
                    log_y: false,
                },
            ],
        ));
        b.push_str(&page::settings_details(
            &r.name,
            &format!("settings-lgwr-{i}"),
            &r.config,
        ));
    }
}
