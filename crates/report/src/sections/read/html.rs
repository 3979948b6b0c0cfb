//! Datafile reads (`dbio read`, the read part of `dbio check`) and the
//! tier calibration (`dbio calibrate`). The reads' picture is seed 002's
//! ("Oracle 'Physical I/O'? not always physical"): the same reads' latency
//! histogram in each cache state, side by side on power-of-two buckets,
//! with the page-cache, storage-cache and device tiers shaded, so a cold
//! and a warm run show which tier served them.

use crate::kit::html::page::{self, Text};
use crate::kit::html::persec::{self, Chart};
use crate::kit::html::svg::{self, Hist, Tiers};
use dbio_model::read::ReadResult;
use dbio_model::units::{format_bytes, format_ns};
use dbio_model::LatencySummary;
use maud::html;

pub(crate) fn tiers_label(ns: u64) -> String {
    if ns == u64::MAX {
        "none".into()
    } else {
        format_ns(ns as f64)
    }
}

/// The reads' section.
pub fn section(runs: &[ReadResult]) -> String {
    let mut b = String::from("<h2 id=\"h-read\">Datafile reads</h2>\n");
    let rows: Vec<Vec<String>> = runs
        .iter()
        .map(|r| {
            let total =
                r.tiers.page_cache.count + r.tiers.storage_cache.count + r.tiers.device.count;
            let share = |c: u64| format!("{:.1} %", c as f64 * 100.0 / total.max(1) as f64);
            vec![
                r.name.clone(),
                format!("{:.0} %", r.cached_pct),
                r.ops.to_string(),
                format!("{:.0}", r.iops),
                format_ns(r.lat.p50_ns() as f64),
                format_ns(r.lat.p99_ns() as f64),
                share(r.tiers.page_cache.count),
                share(r.tiers.storage_cache.count),
                share(r.tiers.device.count),
            ]
        })
        .collect();
    b.push_str(&page::table(
        "read-summary",
        &[
            "state",
            "#cached",
            "#reads",
            "#IOPS",
            "#p50",
            "#p99",
            "#page cache",
            "#storage cache",
            "#device",
        ],
        &rows,
    ));
    if let Some(first) = runs.first() {
        let th = &first.thresholds;
        let direct = first.attribution.as_ref().is_some_and(|a| a.direct);
        let tiers = if direct {
            html! {
                p #read-thresholds {
                    "Tiers: O_DIRECT reads bypass the page cache, so none is a page-cache hit; storage cache below "
                    (Text(&tiers_label(th.storage_cache_max_ns)))
                    ", device above; from " (Text(&th.source)) "."
                }
            }
        } else {
            html! {
                p #read-thresholds {
                    "Tiers: page cache below " (Text(&tiers_label(th.page_cache_max_ns)))
                    ", storage cache below " (Text(&tiers_label(th.storage_cache_max_ns)))
                    ", device above; from " (Text(&th.source)) "."
                }
            }
        };
        b.push_str(&tiers.into_string());
        let hists: Vec<Hist> = runs
            .iter()
            .map(|r| Hist {
                label: &r.name,
                buckets: &r.lat.log2_us,
            })
            .collect();
        b.push_str(&svg::histogram(
            "read-hist",
            "Read latency in each cache state, side by side (share of each state's reads; tiers shaded)",
            &hists,
            Some(Tiers {
                page_cache_max_ns: th.page_cache_max_ns,
                storage_cache_max_ns: th.storage_cache_max_ns,
            }),
        ));
    }
    let parts = ["page cache", "storage cache", "device"];
    let stack: Vec<(String, Vec<f64>)> = runs
        .iter()
        .map(|r| {
            let t = &r.tiers;
            let total = (t.page_cache.count + t.storage_cache.count + t.device.count).max(1) as f64;
            (
                r.name.clone(),
                [t.page_cache.count, t.storage_cache.count, t.device.count]
                    .iter()
                    .map(|&c| c as f64 * 100.0 / total)
                    .collect(),
            )
        })
        .collect();
    b.push_str(&svg::stacked(
        "read-tiers",
        "Which tier served the reads (% of reads), per cache state",
        &parts,
        &stack,
        svg::fmt_pct,
    ));
    let pct: Vec<(&str, &LatencySummary)> =
        runs.iter().map(|r| (r.name.as_str(), &r.lat)).collect();
    b.push_str(&svg::percentiles(
        "read-pct",
        "Read latency percentiles per cache state",
        &pct,
    ));
    let kinds: Vec<Vec<String>> = runs
        .iter()
        .flat_map(|r| {
            r.by_kind.iter().map(move |g| {
                vec![
                    r.name.clone(),
                    g.kind.map_or("all".into(), |k| k.event().to_string()),
                    g.ops.to_string(),
                    format_bytes(g.bytes),
                    format_ns(g.lat.p50_ns() as f64),
                    format_ns(g.lat.p99_ns() as f64),
                ]
            })
        })
        .collect();
    if !kinds.is_empty() {
        b.push_str("<h3>By wait event</h3>");
        b.push_str(&page::table(
            "read-by-kind",
            &["state", "event", "#reads", "#bytes", "#p50", "#p99"],
            &kinds,
        ));
    }
    for (i, r) in runs.iter().enumerate() {
        b.push_str(&per_second(i, r));
    }
    if let Some(r) = runs.first() {
        b.push_str("<details><summary>Settings</summary>");
        b.push_str(&page::settings("settings-read", &r.config));
        b.push_str("</details>");
    }
    b
}

/// A read state's per-second charts: IOPS of every read and of each
/// tier, then p50/p99 of every read and of each tier.
fn per_second(i: usize, r: &ReadResult) -> String {
    let tiers = [
        ("page_cache", "page cache"),
        ("storage_cache", "storage cache"),
        ("device", "device"),
    ];
    let mut iops = vec![("iops".to_string(), "all reads".to_string())];
    let mut lat = vec![
        ("p50".to_string(), "all p50".to_string()),
        ("p99".to_string(), "all p99".to_string()),
    ];
    for (key, label) in tiers {
        iops.push((format!("{key}_iops"), label.to_string()));
        lat.push((format!("{key}_p50"), format!("{label} p50")));
        lat.push((format!("{key}_p99"), format!("{label} p99")));
    }
    persec::charts(
        "read",
        i,
        &r.name,
        &r.per_second,
        &[
            Chart {
                key: "iops",
                caption: "reads per second, all and per tier, each second",
                lines: iops,
                fmt: svg::fmt_count,
                log_y: false,
            },
            Chart {
                key: "lat",
                caption: "read latency p50 and p99, all and per tier, each second",
                lines: lat,
                fmt: svg::fmt_ns,
                log_y: true,
            },
        ],
    )
}
