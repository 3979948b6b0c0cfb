//! Per-second series charts (`per_second` of lgwr, read, dbwr and load
//! entries, see `dbio_model::series`): why a page needs them beside the
//! run's totals is that a mean hides a stall, a warm-up or a checkpoint;
//! a line per second shows when it happened.
//!
//! One helper draws any group of series of one entry with
//! [`svg::series`], so every section says only which series go in which
//! chart. A value that an interval lacks (`null`: a latency percentile of
//! a second in which nothing completed) is a gap in the line, not a 0.
//! Percentiles in these series are within 12.5 % above the true value
//! (log-linear buckets, docs/result-schema.md "Per-second series").

use crate::kit::html::svg::{self, Fmt, Line};
use dbio_model::series::{find, Series};

/// One chart of a group of series.
pub struct Chart<'a> {
    /// Last part of the chart's id (`{prefix}-ps-{index}-{key}`).
    pub key: &'a str,
    /// What the chart shows (the entry's name is put in front).
    pub caption: &'a str,
    /// The series drawn, as (series name, legend label); missing ones are
    /// left out.
    pub lines: Vec<(String, String)>,
    /// How values are written.
    pub fmt: Fmt,
    /// Log y axis (latencies).
    pub log_y: bool,
}

/// The charts of one entry's `per_second`, those whose series exist, in
/// a panel grid; nothing when the entry has none (a run shorter than a second, a result
/// written before they were recorded).
pub fn charts(prefix: &str, index: usize, name: &str, list: &[Series], charts: &[Chart]) -> String {
    let mut b = String::new();
    for c in charts {
        let found: Vec<(&Series, &str)> = c
            .lines
            .iter()
            .filter_map(|(s, label)| find(list, s).map(|s| (s, label.as_str())))
            .collect();
        let Some((first, _)) = found.first() else {
            continue;
        };
        let t = &first.t_s;
        let lines: Vec<Line> = found
            .iter()
            .map(|&(s, label)| Line {
                label,
                // Aligned on the first series' intervals (every series of
                // one entry is sampled at the same instants).
                values: (0..t.len())
                    .map(|k| s.values.get(k).copied().flatten().unwrap_or(f64::NAN))
                    .collect(),
            })
            .collect();
        b.push_str("<section>");
        b.push_str(&svg::series(
            &format!("{prefix}-ps-{index}-{}", c.key),
            &format!("{name}: {}", c.caption),
            t,
            &lines,
            c.fmt,
            c.log_y,
        ));
        b.push_str("</section>");
    }
    if b.is_empty() {
        return b;
    }
    // Side by side where the page is wide enough, as the other panels.
    format!("<div class=\"panels\">{b}</div>")
}

/// A (series name, label) pair list from string slices.
pub fn named(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(s, l)| (s.to_string(), l.to_string()))
        .collect()
}

/// A plain ratio with two decimals (commits per write).
pub fn fmt_ratio(v: f64) -> String {
    format!("{v:.2}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::series::SeriesUnit;

    #[test]
    fn a_chart_is_drawn_per_group_that_has_series_and_gaps_stay_gaps() {
        let mut tps = Series::new("tps", SeriesUnit::PerSecond);
        let mut p99 = Series::new("p99", SeriesUnit::Ns);
        for (k, v) in [Some(10.0), None, Some(30.0)].into_iter().enumerate() {
            tps.push(k as f64 + 1.0, Some(5.0));
            p99.push(k as f64 + 1.0, v);
        }
        let list = vec![tps, p99];
        let html = charts(
            "x",
            2,
            "run",
            &list,
            &[
                Chart {
                    key: "tps",
                    caption: "rate",
                    lines: named(&[("tps", "commits/s")]),
                    fmt: svg::fmt_count,
                    log_y: false,
                },
                Chart {
                    key: "lat",
                    caption: "latency",
                    lines: named(&[("p99", "p99"), ("absent", "absent")]),
                    fmt: svg::fmt_ns,
                    log_y: true,
                },
                Chart {
                    key: "none",
                    caption: "nothing",
                    lines: named(&[("absent", "absent")]),
                    fmt: svg::fmt_ns,
                    log_y: true,
                },
            ],
        );
        assert!(html.contains("id=\"x-ps-2-tps\""), "{html}");
        assert!(html.contains("id=\"x-ps-2-lat\""), "{html}");
        assert!(!html.contains("x-ps-2-none"), "{html}");
        assert!(!html.contains(">absent<"), "{html}");
        // The empty second is left out of the p99 line: two points.
        let lat = html.split("id=\"x-ps-2-lat\"").nth(1).unwrap();
        let pts = lat
            .split("<polyline class=\"l0\" points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert_eq!(pts.split_whitespace().count(), 2, "{pts}");
        assert!(charts("x", 0, "run", &[], &[]).is_empty());
    }
}
