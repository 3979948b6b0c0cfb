//! Hand-written SVG charts, one file per kind of chart, over the frame
//! here (the figure, axes, ticks, legend): a latency histogram on power-of-two
//! microsecond buckets, percentile curves, per-second series, stacked and
//! plain horizontal bars, heat maps (each cell labelled with its value)
//! and a line over a ladder of counts with a target and a marked point.
//! No script: each mark carries a `<title>` (the browser's tooltip) with
//! its exact figures.
//!
//! Every chart is a `<figure class="chart KIND" id=...>` around an
//! `<svg class="KIND">`, so tests and readers find them by id and class.
//! Series are told apart by fill pattern or dash and by a legend, never
//! by colour alone (the page's `s0..s3` and `l0..l3` classes), so a grey
//! print keeps the meaning.

use crate::kit::html::page::{clip, esc};
use dbio_model::series::Spread;
use dbio_model::units::format_ns;
use dbio_model::{LatencySummary, Log2Buckets};
use std::fmt::Write;

pub(super) const W: f64 = 760.0;
pub(super) const H: f64 = 250.0;
pub(super) const LEFT: f64 = 70.0;
pub(super) const RIGHT: f64 = 16.0;
pub(super) const TOP: f64 = 26.0;
pub(super) const BOTTOM: f64 = 42.0;

/// How a value of a chart is written (axis ticks and tooltips).
pub type Fmt = fn(f64) -> String;

/// Nanoseconds with a fitting unit.
pub fn fmt_ns(v: f64) -> String {
    format_ns(v)
}

/// A count or rate with k/M (`7.61 k`).
pub fn fmt_count(v: f64) -> String {
    dbio_model::units::format_count_rate(v)
}

/// Percent with one decimal.
pub fn fmt_pct(v: f64) -> String {
    format!("{v:.1} %")
}

/// Bytes per second.
pub fn fmt_rate(v: f64) -> String {
    dbio_model::units::format_rate(v)
}

pub(super) fn open(kind: &str, id: &str, h: f64, label: &str) -> String {
    format!(
        "<figure class=\"chart {kind}\" id=\"{}\"><svg class=\"{kind}\" viewBox=\"0 0 {W} {h}\" role=\"img\" aria-label=\"{}\" xmlns=\"http://www.w3.org/2000/svg\">",
        esc(id),
        esc(label)
    )
}

pub(super) fn close(s: &mut String, caption: &str) {
    close_with(s, caption, "");
}

/// Closes a chart with HTML (a legend) between the SVG and the caption.
pub(super) fn close_with(s: &mut String, caption: &str, between: &str) {
    let _ = writeln!(
        s,
        "</svg>{between}<figcaption>{}</figcaption></figure>",
        esc(caption)
    );
}

/// A legend row at the top right: a swatch (bar) or a line sample per
/// series. When the labels do not fit in one row above the plot, the
/// legend is returned as HTML for below the chart instead (one small SVG
/// swatch per entry, so patterns and dashes match the chart); otherwise
/// the returned string is empty.
pub(super) fn legend(s: &mut String, labels: &[&str], lines: bool) -> String {
    let swatch = |i: usize, x: f64, y: f64| {
        if lines {
            format!(
                "<polyline class=\"l{}\" points=\"{:.1},{y:.1} {:.1},{y:.1}\"/>",
                i % 5,
                x,
                x + 18.0
            )
        } else {
            format!(
                "<rect class=\"s{} sw\" x=\"{x:.1}\" y=\"{:.1}\" width=\"14\" height=\"11\"/>",
                i % 5,
                y - 6.0
            )
        }
    };
    let width: f64 = labels
        .iter()
        .map(|l| 7.0 * clip(l, 28).chars().count() as f64 + 26.0)
        .sum();
    if width > W - LEFT - 90.0 {
        let mut h = String::from("<ul class=\"legend\">");
        for (i, l) in labels.iter().enumerate() {
            let _ = write!(
                h,
                "<li><svg viewBox=\"0 0 20 14\" width=\"20\" height=\"14\" aria-hidden=\"true\">{}</svg>{}</li>",
                swatch(i, 1.0, 8.0),
                esc(l)
            );
        }
        h.push_str("</ul>");
        return h;
    }
    let mut x = W - RIGHT;
    for (i, l) in labels.iter().enumerate().rev() {
        let text = clip(l, 28);
        x -= 7.0 * text.chars().count() as f64 + 26.0;
        s.push_str(&swatch(i, x, 9.0));
        let _ = write!(
            s,
            "<text class=\"legend\" x=\"{:.1}\" y=\"13\">{}</text>",
            x + 21.0,
            esc(&text)
        );
    }
    String::new()
}

/// Axis lines.
pub(super) fn axes(s: &mut String, h: f64) {
    let _ = write!(
        s,
        "<line class=\"axis\" x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{y}\"/><line class=\"axis\" x1=\"{LEFT}\" y1=\"{y}\" x2=\"{x}\" y2=\"{y}\"/>",
        y = h - BOTTOM,
        x = W - RIGHT
    );
}

/// Y gridline and tick label at `y` (pixels).
pub(super) fn ytick(s: &mut String, y: f64, label: &str) {
    let _ = write!(
        s,
        "<line class=\"grid\" x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
        W - RIGHT,
        LEFT - 4.0,
        y + 4.0,
        esc(label)
    );
}

pub(super) fn xlabel(s: &mut String, x: f64, h: f64, label: &str) {
    // A label at the right edge ends there rather than past it.
    let anchor = if x > W - RIGHT - 20.0 {
        "end"
    } else {
        "middle"
    };
    let _ = write!(
        s,
        "<text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\">{}</text>",
        h - BOTTOM + 14.0,
        esc(label)
    );
}

pub(super) fn axis_title(s: &mut String, h: f64, x_title: &str, y_title: &str) {
    let _ = write!(
        s,
        "<text class=\"xt\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text><text class=\"yt\" x=\"4\" y=\"{:.1}\">{}</text>",
        LEFT + (W - LEFT - RIGHT) / 2.0,
        h - 6.0,
        esc(x_title),
        TOP - 12.0,
        esc(y_title)
    );
}

/// A "nice" upper bound for a linear axis: 1, 2 or 5 times a power of ten.
pub(super) fn nice_max(v: f64) -> f64 {
    if v <= 0.0 || !v.is_finite() {
        return 1.0;
    }
    let p = 10f64.powf(v.log10().floor());
    for m in [1.0, 2.0, 5.0, 10.0] {
        if v <= m * p {
            return m * p;
        }
    }
    10.0 * p
}

/// Ticks of a log axis from `10^lo` to `10^hi`: every decade, and 2 and 5
/// times each when the axis spans two decades or less.
pub(super) fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let fine = hi - lo <= 2.0;
    let mut v = Vec::new();
    for d in lo as i32..=hi as i32 {
        let p = 10f64.powi(d);
        v.push(p);
        if fine && d < hi as i32 {
            v.extend([2.0 * p, 5.0 * p]);
        }
    }
    v
}

mod bars;
mod heat;
mod hist;
mod percentile;
mod timeseries;
mod xy;

pub use bars::{bars, paired, ratio_bars, stacked, whiskers, Pair, Ratio, Whisker};
pub use heat::{heatmap, Grid};
pub use hist::{histogram, Hist, Tiers};
pub use percentile::percentiles;
pub use timeseries::{series, Line};
pub use xy::{xy, Mark};
#[cfg(test)]
use {heat::heat_colour, hist::bucket_pos, percentile::nines, timeseries::bin, timeseries::Bin};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tier_boundary_sits_inside_its_bucket() {
        // 100 µs lies in bucket 7 (64..128 µs), 1 ms in bucket 10 (512..1024 µs).
        let p = bucket_pos(100_000);
        assert!((7.0..8.0).contains(&p), "{p}");
        let p = bucket_pos(1_000_000);
        assert!((10.0..11.0).contains(&p), "{p}");
        assert_eq!(bucket_pos(500), 0.5);
    }

    #[test]
    fn histogram_bars_carry_their_bucket_and_escape_their_label() {
        let mut b = Log2Buckets::default();
        b.record_us_n(100, 3);
        b.record_us_n(3000, 1);
        let h = histogram(
            "h",
            "c",
            &[Hist {
                label: "<x>",
                buckets: &b,
            }],
            Some(Tiers {
                page_cache_max_ns: 100_000,
                storage_cache_max_ns: 1_000_000,
            }),
        );
        assert!(h.contains("data-bucket=\"7\""), "{h}");
        assert!(h.contains("data-bucket=\"12\""), "{h}");
        assert!(h.contains("&lt;x&gt;: &lt;128us 3 (75.00 %)"), "{h}");
        assert!(!h.contains("<x>"));
        assert_eq!(h.matches("class=\"tier tier").count(), 3);
    }

    #[test]
    fn nines_put_the_tail_where_it_can_be_seen() {
        assert!((nines(90.0) - 1.0).abs() < 1e-9);
        assert!((nines(99.0) - 2.0).abs() < 1e-9);
        assert_eq!(nines(100.0), 5.0);
        assert_eq!(nice_max(7.3), 10.0);
        assert_eq!(nice_max(130.0), 200.0);
        assert_eq!(log_ticks(2.0, 3.0), [100.0, 200.0, 500.0, 1000.0]);
        assert_eq!(log_ticks(0.0, 4.0).len(), 5);
    }

    #[test]
    fn a_long_series_is_drawn_as_bins_with_their_range() {
        let t: Vec<f64> = (1..=3600).map(f64::from).collect();
        let v: Vec<f64> = (1..=3600).map(|i| f64::from(i % 10)).collect();
        let b = bin(&t, &v, 5, false);
        assert_eq!(b.len(), 720);
        assert_eq!(
            b[0],
            Bin {
                t: 3.0,
                mean: 3.0,
                min: 1.0,
                max: 5.0
            }
        );
        let short = bin(&t[..3], &[1.0, f64::NAN, 0.0], 1, true);
        assert_eq!(short.len(), 1, "NaN and, on a log axis, zero are left out");
        let c = series(
            "s",
            "c",
            &t,
            &[Line {
                label: "x",
                values: v,
            }],
            fmt_count,
            false,
        );
        let line = c.split("<polyline class=\"l0\" points=\"").nth(1).unwrap();
        let line = line.split('"').next().unwrap();
        assert_eq!(line.split_whitespace().count(), 720);
        assert!(c.contains("<polygon class=\"band m0\""));
        assert!(c.contains("the mean of 5 samples"));
        assert!(c.contains("3600 samples, min 0, mean 4, max 9"));
    }

    #[test]
    fn a_legend_too_wide_for_the_chart_goes_below_it() {
        let l = LatencySummary {
            count: 1,
            min_ns: 1000,
            max_ns: 2000,
            ..Default::default()
        };
        let one = percentiles("p", "c", &[("short", &l)]);
        assert!(!one.contains("<ul class=\"legend\">"));
        assert!(one.contains("<text class=\"legend\""));
        let names: Vec<String> = (0..5)
            .map(|i| format!("log write 8k O_DIRECT+O_DSYNC {i}: read lat"))
            .collect();
        let many: Vec<(&str, &LatencySummary)> = names.iter().map(|n| (n.as_str(), &l)).collect();
        let five = percentiles("p", "c", &many);
        assert!(!five.contains("<text class=\"legend\""));
        let below = five.split("</svg><ul class=\"legend\">").nth(1).unwrap();
        assert_eq!(below.matches("<li>").count(), 5);
        assert!(
            below.contains("<polyline class=\"l3\"") && below.contains("<polyline class=\"l4\"")
        );
        assert!(below.contains("O_DIRECT+O_DSYNC 4: read lat</li>"));
    }

    #[test]
    fn ratio_bars_mark_the_verdict_by_pattern_and_say_better_or_worse() {
        let c = ratio_bars(
            "r",
            "c",
            &[
                Ratio {
                    label: "tps (B)".into(),
                    ratio: 0.5,
                    beyond_noise: Some(true),
                    higher_is_better: Some(true),
                },
                Ratio {
                    label: "p99 (B)".into(),
                    ratio: 1000.0,
                    beyond_noise: None,
                    higher_is_better: Some(false),
                },
            ],
        );
        assert!(c.contains("class=\"bar s1 beyond sw\""), "{c}");
        assert!(c.contains("tps (B): 0.500x the first input; beyond the run-to-run noise, worse"));
        assert!(c.contains("class=\"bar s2 noverdict sw\""), "{c}");
        // Clamped at 64x but written in full.
        assert!(c.contains(">1000.00x</text>"), "{c}");
        assert!(
            c.contains(">64x</text>") && c.contains(">1/64x</text>"),
            "{c}"
        );
        // The 0.5 bar ends one sixth of the half-width left of the centre.
        assert!(c.contains("<li><svg"), "the legend");
    }

    #[test]
    fn whiskers_draw_range_box_and_median_per_input() {
        let sp = Spread::of([1.0, 2.0, 3.0, 4.0, 10.0]).unwrap();
        let c = whiskers(
            "w",
            "c",
            &[
                Whisker {
                    label: "A",
                    spread: sp,
                },
                Whisker {
                    label: "B",
                    spread: sp,
                },
            ],
            fmt_count,
        );
        assert_eq!(c.matches("<g class=\"spread\">").count(), 2);
        assert!(c.contains("class=\"box s1 sw\""));
        assert!(
            c.contains("A: median 3 (p25 2 – p75 4; min 1 – max 10; n = 5)"),
            "{c}"
        );
    }

    #[test]
    fn a_heat_map_labels_every_cell_and_scales_its_colour() {
        let cols = vec!["1".to_string(), "2".to_string()];
        let rows = vec!["0".to_string(), "<1>".to_string()];
        let values = vec![vec![Some(100.0), Some(300.0)], vec![Some(200.0), None]];
        let h = heatmap(
            "hm",
            "c",
            &Grid {
                cols: &cols,
                rows: &rows,
                values: &values,
                x_title: "small",
                y_title: "large",
            },
            fmt_count,
        );
        // Three labelled cells, one blank that says why.
        assert_eq!(h.matches("<g class=\"cell\"").count(), 4, "{h}");
        for v in ["100", "200", "300"] {
            assert!(h.contains(&format!(">{v}</text></g>")), "{v}: {h}");
        }
        assert!(h.contains("small 2, large &lt;1&gt;: not measured"), "{h}");
        assert!(!h.contains("<1>"));
        // Zero is the light end, the largest cell the dark end, the
        // others in proportion, with ink that stays readable.
        let (lo, hi) = (heat_colour(1.0 / 3.0).0, heat_colour(1.0).0);
        assert_eq!(heat_colour(0.0).0, "rgb(239,243,255)");
        assert_eq!(hi, "rgb(8,48,107)");
        let cell = |v: &str| {
            let at = h.find(&format!(">{v}</text></g>")).unwrap();
            let start = h[..at].rfind("<g class=\"cell\"").unwrap();
            h[start..at].to_string()
        };
        assert!(cell("100").contains(&format!("fill:{lo}")));
        assert!(cell("300").contains(&format!("fill:{hi};")));
        assert!(cell("300").contains("fill:#fff"));
        assert!(cell("200").contains(&format!("fill:{}", heat_colour(2.0 / 3.0).0)));
        assert!(cell("100").contains("fill:#000"));
        // The legend: five steps from zero to the largest value.
        let scale = h.split("<g class=\"scale\">").nth(1).unwrap();
        assert_eq!(scale.matches("<rect class=\"step\"").count(), 5);
        for v in ["0", "75", "150", "225", "300"] {
            assert!(scale.contains(&format!(">{v}</text>")), "{v}: {scale}");
        }
    }

    #[test]
    fn an_xy_chart_draws_its_target_and_marks_the_chosen_point() {
        let pts = vec![
            ("1".to_string(), 1e6),
            ("2".to_string(), 2e6),
            ("4".to_string(), 9e6),
        ];
        let c = xy(
            "x",
            "c",
            &pts,
            ("small", "p99"),
            fmt_ns,
            Some((5e6, "target")),
            Some(Mark {
                index: 1,
                label: "chosen",
            }),
        );
        assert_eq!(c.matches("<circle class=\"m0\"").count(), 3);
        assert!(c.contains("<line class=\"target\""));
        // The target at 5 ms on a 0..10 ms axis: halfway up the plot.
        let y = H - BOTTOM - 0.5 * (H - TOP - BOTTOM);
        assert!(c.contains(&format!("y1=\"{y:.1}\"")), "{c}");
        let chosen = c.split("<circle class=\"chosen\" ").nth(1).unwrap();
        let x = LEFT + (W - LEFT - RIGHT) * 1.5 / 3.0;
        assert!(chosen.starts_with(&format!("cx=\"{x:.1}\"")), "{chosen}");
    }
}
