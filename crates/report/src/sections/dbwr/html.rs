//! The database writer (`dbio dbwr`, the writer part of `dbio check`):
//! the writer sweep (foreground work and 'free buffer waits' per
//! configuration, typically one per writer count), each writer's share of
//! the writes, and the 'db file parallel write' distributions.

use crate::kit::html::page::{self};
use crate::kit::html::persec::{self, Chart};
use crate::kit::html::svg;
use dbio_model::dbwr::DbwrResult;
use dbio_model::units::format_ns;
use dbio_model::LatencySummary;

/// The database writer's section.
pub fn section(runs: &[DbwrResult]) -> String {
    let mut b = String::from("<h2 id=\"h-dbwr\">Database writer</h2>\n");
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            vec![
                r.name.clone(),
                r.config.writers.to_string(),
                format!("{:.0}", r.foreground.ops_per_sec),
                r.foreground.free_buffer_waits.count.to_string(),
                format_ns(r.foreground.free_buffer_waits.total_ns as f64),
                format!("{:.0}", r.writes.write_iops),
                format!("{:.1}", r.writes.batch_mean),
                format_ns(r.writes.parallel_write.p99_ns() as f64),
            ]
        })
        .collect();
    b.push_str(&page::table(
        "dbwr-summary",
        &[
            "configuration",
            "#writers",
            "#foreground ops/s",
            "#free buffer waits",
            "#free buffer wait time",
            "#blocks written/s",
            "#blocks per batch",
            "#db file parallel write p99",
        ],
        &rows,
    ));
    let label = |r: &DbwrResult| format!("{} ({} writers)", r.name, r.config.writers);
    let ops: Vec<(String, f64)> = runs
        .iter()
        .map(|r| (label(r), r.foreground.ops_per_sec))
        .collect();
    let waits: Vec<(String, f64)> = runs
        .iter()
        .map(|r| (label(r), r.foreground.free_buffer_waits.count as f64))
        .collect();
    b.push_str("<h3>Writer sweep</h3><div class=\"panels\"><section>");
    b.push_str(&svg::bars(
        "dbwr-sweep-ops",
        "Foreground operations per second, per configuration",
        &ops,
        svg::fmt_count,
    ));
    b.push_str("</section><section>");
    b.push_str(&svg::bars(
        "dbwr-sweep-waits",
        "'free buffer waits' (count), per configuration",
        &waits,
        svg::fmt_count,
    ));
    b.push_str("</section></div>");
    let most = runs.iter().map(|r| r.writers.len()).max().unwrap_or(0);
    if most > 0 {
        let parts: Vec<String> = (0..most).map(|i| format!("DBW{i}")).collect();
        let part_refs: Vec<&str> = parts.iter().map(String::as_str).collect();
        let stack: Vec<(String, Vec<f64>)> = runs
            .iter()
            .map(|r| (label(r), r.writers.iter().map(|w| w.share_pct).collect()))
            .collect();
        b.push_str(&svg::stacked(
            "dbwr-shares",
            "Each writer's share of the blocks written (%)",
            &part_refs,
            &stack,
            svg::fmt_pct,
        ));
    }
    let pw: Vec<(&str, &LatencySummary)> = runs
        .iter()
        .map(|r| (r.name.as_str(), &r.writes.parallel_write))
        .collect();
    b.push_str(&svg::percentiles(
        "dbwr-pw-pct",
        "'db file parallel write' percentiles (one batch)",
        &pw,
    ));
    for (i, r) in runs.iter().enumerate() {
        b.push_str(&persec::charts(
            "dbwr",
            i,
            &r.name,
            &r.per_second,
            &[
                Chart {
                    key: "ops",
                    caption: "foreground ops and blocks written per second, each second",
                    lines: persec::named(&[
                        ("ops_per_s", "foreground ops/s"),
                        ("writes_per_s", "blocks written/s"),
                    ]),
                    fmt: svg::fmt_count,
                    log_y: false,
                },
                Chart {
                    key: "waits",
                    caption: "'free buffer waits' per second, each second",
                    lines: persec::named(&[("free_buffer_waits_per_s", "free buffer waits/s")]),
                    fmt: svg::fmt_count,
                    log_y: false,
                },
            ],
        ));
        b.push_str(&page::settings_details(
            &r.name,
            &format!("settings-dbwr-{i}"),
            &r.config,
        ));
    }
    b
}
