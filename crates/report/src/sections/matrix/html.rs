//! `dbio matrix`'s section ([`MatrixResult`]): ORION's three tables as
//! heat maps (small IOPS, large MB/s, small p99 over outstanding small ×
//! outstanding large I/Os), so the knee and the cost of mixing large I/Os
//! into an OLTP load are seen at a glance, each cell still labelled with
//! its figure; then the `--max-latency` search as p99 against the small
//! ladder with the target drawn and the answer marked, and its
//! CALIBRATE_IO-style figures. The findings come through the page's
//! findings section.

use crate::kit::html::page::{self, Text};
use crate::kit::html::svg::{self, Grid, Mark};
use dbio_model::matrix::{LargePattern, MatrixPoint, MatrixResult, MatrixSearch};
use dbio_model::units::{format_bytes, format_ns};
use maud::html;

/// MB/s as ORION writes them (10^6 bytes per second).
fn fmt_mbps(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0} MB/s")
    } else {
        format!("{v:.1} MB/s")
    }
}

/// The ladder values that appear in the configuration or in a point,
/// ascending, leaving out 0 when `skip_zero`.
fn ladder(conf: &[u32], measured: impl Iterator<Item = u32>, skip_zero: bool) -> Vec<u32> {
    let mut v: Vec<u32> = conf.iter().copied().chain(measured).collect();
    v.sort_unstable();
    v.dedup();
    v.retain(|&x| !(skip_zero && x == 0));
    v
}

fn heat(
    m: &MatrixResult,
    id: &str,
    caption: &str,
    skip: (bool, bool),
    value: fn(&MatrixPoint) -> Option<f64>,
    fmt: svg::Fmt,
) -> String {
    let smalls = ladder(
        &m.config.small_ladder,
        m.points.iter().map(|p| p.small),
        skip.0,
    );
    let larges = ladder(
        &m.config.large_ladder,
        m.points.iter().map(|p| p.large),
        skip.1,
    );
    let values: Vec<Vec<Option<f64>>> = larges
        .iter()
        .map(|&l| {
            smalls
                .iter()
                .map(|&s| m.point(s, l).and_then(value))
                .collect()
        })
        .collect();
    let cols: Vec<String> = smalls.iter().map(u32::to_string).collect();
    let rows: Vec<String> = larges.iter().map(u32::to_string).collect();
    svg::heatmap(
        id,
        caption,
        &Grid {
            cols: &cols,
            rows: &rows,
            values: &values,
            x_title: "outstanding small I/Os",
            y_title: "outstanding large I/Os",
        },
        fmt,
    )
}

/// The matrix section.
pub fn section(m: &MatrixResult) -> String {
    let c = &m.config;
    let mut b = String::from("<h2 id=\"h-matrix\">Load matrix</h2>\n");
    let large = match c.large_pattern {
        LargePattern::Sequential => "sequential-stream",
        LargePattern::Random => "random",
    };
    let what = html! {
        p {
            (Text(&format_bytes(c.small_bs))) " random "
            (if c.write_pct > 0 { "read/write" } else { "read" }) " I/Os (" (c.write_pct)
            " % writes) against " (Text(&format_bytes(c.large_bs))) " " (large) " I/Os on "
            (Text(&m.target)) ", " (Text(c.engine.name())) " engine, "
            (Text(&format_ns(c.runtime_ns as f64))) " measured per point after "
            (Text(&format_ns(c.warmup_ns as f64))) " warm-up. A cell the run did not measure is \
             blank and says so (the search measures small and large I/Os each alone and skips \
             the ladder past the knee; a run cut short stops where it was)."
        }
        "\n"
    };
    b.push_str(&what.into_string());
    if let Some(target) = c.max_latency_ns {
        b.push_str("<h3>Search for the highest load under the p99 target</h3>\n");
        match &m.search {
            Some(s) => b.push_str(&page::pairs("matrix-search", &search_rows(s, m.search_max()))),
            None => b.push_str(
                "<p class=\"partial\" id=\"matrix-search\">The search was cut short: it has no answer (the points it measured are drawn below).</p>\n",
            ),
        }
        let mut line: Vec<(&MatrixPoint, u64)> = m
            .points
            .iter()
            .filter(|p| p.large == 0 && p.small > 0)
            .filter_map(|p| p.small_lat.map(|l| (p, l.p99_ns)))
            .collect();
        line.sort_by_key(|(p, _)| p.small);
        let pts: Vec<(String, f64)> = line
            .iter()
            .map(|(p, ns)| (p.small.to_string(), *ns as f64))
            .collect();
        let chosen = m
            .search_max()
            .and_then(|(_, n, _)| line.iter().position(|(p, _)| p.small == n));
        b.push_str(&svg::xy(
            "matrix-search-p99",
            "Small-I/O p99 at each outstanding count without large I/Os, the target dashed, the load under it that reached the most IOPS circled",
            &pts,
            ("outstanding small I/Os", "p99 of small I/Os"),
            svg::fmt_ns,
            Some((target as f64, "p99 target")),
            chosen.map(|index| Mark {
                index,
                label: "highest under the target",
            }),
        ));
    }
    b.push_str(&heat(
        m,
        "matrix-iops",
        "Small-I/O IOPS (reads and writes) at each load: darker is more",
        (true, false),
        |p| Some(p.small_iops),
        svg::fmt_count,
    ));
    b.push_str(&heat(
        m,
        "matrix-mbps",
        "Large-I/O throughput, MB/s (10^6 bytes per second, as ORION writes them), at each load: darker is more",
        (false, true),
        |p| Some(p.large_mbps),
        fmt_mbps,
    ));
    b.push_str(&heat(
        m,
        "matrix-p99",
        "Small-I/O p99 latency (from the I/O's intended start to its completion; HDR histogram, 3 significant digits) at each load: darker is slower",
        (true, false),
        |p| p.small_lat.map(|l| l.p99_ns as f64),
        svg::fmt_ns,
    ));
    b.push_str("<h3>Settings</h3>\n");
    b.push_str(&page::settings("matrix-settings", c));
    b
}

/// CALIBRATE_IO's three figures and how the search got them.
fn search_rows(
    s: &MatrixSearch,
    max: Option<(f64, u32, Option<u64>)>,
) -> Vec<(&'static str, String)> {
    let mut rows = vec![(
        "p99 target of small I/Os",
        format_ns(s.max_latency_ns as f64),
    )];
    rows.push((
        "max IOPS",
        match max {
            Some((iops, n, Some(p99))) => format!(
                "{iops:.0} at {n} outstanding small I/Os (p99 {})",
                format_ns(p99 as f64)
            ),
            Some((iops, n, None)) => format!("{iops:.0} at {n} outstanding small I/Os"),
            None => "none: not even one outstanding small I/O kept its p99 under the target".into(),
        },
    ));
    rows.push((
        "max MB/s",
        format!(
            "{} at {} outstanding large I/Os, without small I/Os",
            fmt_mbps(s.max_mbps),
            s.max_mbps_outstanding
        ),
    ));
    rows.push((
        "latency at one outstanding I/O",
        s.latency_at_one_ns.map_or_else(
            || "not measured".into(),
            |ns| format!("{} mean", format_ns(ns)),
        ),
    ));
    rows.push(("points skipped past the knee", s.skipped_points.to_string()));
    rows
}
