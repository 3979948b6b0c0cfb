//! Hand-written SVG chart primitives: a latency histogram on power-of-two
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

const W: f64 = 760.0;
const H: f64 = 250.0;
const LEFT: f64 = 70.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 26.0;
const BOTTOM: f64 = 42.0;

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

fn open(kind: &str, id: &str, h: f64, label: &str) -> String {
    format!(
        "<figure class=\"chart {kind}\" id=\"{}\"><svg class=\"{kind}\" viewBox=\"0 0 {W} {h}\" role=\"img\" aria-label=\"{}\" xmlns=\"http://www.w3.org/2000/svg\">",
        esc(id),
        esc(label)
    )
}

fn close(s: &mut String, caption: &str) {
    close_with(s, caption, "");
}

/// Closes a chart with HTML (a legend) between the SVG and the caption.
fn close_with(s: &mut String, caption: &str, between: &str) {
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
fn legend(s: &mut String, labels: &[&str], lines: bool) -> String {
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
fn axes(s: &mut String, h: f64) {
    let _ = write!(
        s,
        "<line class=\"axis\" x1=\"{LEFT}\" y1=\"{TOP}\" x2=\"{LEFT}\" y2=\"{y}\"/><line class=\"axis\" x1=\"{LEFT}\" y1=\"{y}\" x2=\"{x}\" y2=\"{y}\"/>",
        y = h - BOTTOM,
        x = W - RIGHT
    );
}

/// Y gridline and tick label at `y` (pixels).
fn ytick(s: &mut String, y: f64, label: &str) {
    let _ = write!(
        s,
        "<line class=\"grid\" x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
        W - RIGHT,
        LEFT - 4.0,
        y + 4.0,
        esc(label)
    );
}

fn xlabel(s: &mut String, x: f64, h: f64, label: &str) {
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

fn axis_title(s: &mut String, h: f64, x_title: &str, y_title: &str) {
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
fn nice_max(v: f64) -> f64 {
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

/// The tier boundaries to shade on a latency axis, ns (`u64::MAX` for
/// the second: no device tier).
#[derive(Debug, Clone, Copy)]
pub struct Tiers {
    /// Below this, a page-cache hit.
    pub page_cache_max_ns: u64,
    /// Below this (and at or above the first), a storage-cache hit.
    pub storage_cache_max_ns: u64,
}

/// Position of a latency on the bucket axis: bucket `b` spans `[b, b+1)`,
/// its lower edge `2^(b-1)` µs, so `v` µs ≥ 1 sits at `log2(v) + 1`.
fn bucket_pos(ns: u64) -> f64 {
    let us = ns as f64 / 1000.0;
    if us < 1.0 {
        us
    } else {
        us.log2() + 1.0
    }
}

/// One distribution of a histogram chart.
pub struct Hist<'a> {
    /// Legend label.
    pub label: &'a str,
    /// The counts.
    pub buckets: &'a Log2Buckets,
}

/// Latency histogram on power-of-two µs buckets (log-scaled latency axis;
/// height is each distribution's share of its own count, so states with
/// different counts compare), grouped bars per bucket, tier bands shaded
/// and labelled when known.
pub fn histogram(id: &str, caption: &str, hists: &[Hist], tiers: Option<Tiers>) -> String {
    let mut s = open("hist", id, H, caption);
    let nonempty = |h: &Hist| h.buckets.counts.iter().position(|&c| c > 0);
    let lo = hists.iter().filter_map(nonempty).min();
    let hi = hists
        .iter()
        .filter_map(|h| h.buckets.counts.iter().rposition(|&c| c > 0))
        .max();
    let (Some(lo), Some(hi)) = (lo, hi) else {
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\">no samples</text>",
            W / 2.0,
            H / 2.0
        );
        close(&mut s, caption);
        return s;
    };
    let (lo, hi) = (lo.saturating_sub(1), hi + 1);
    let n = (hi - lo + 1) as f64;
    let pw = W - LEFT - RIGHT;
    let bw = pw / n;
    let x_of = |u: f64| LEFT + (u - lo as f64) * bw;
    let shares: Vec<Vec<f64>> = hists
        .iter()
        .map(|h| {
            let t = h.buckets.total().max(1) as f64;
            (lo..=hi)
                .map(|b| *h.buckets.counts.get(b).unwrap_or(&0) as f64 * 100.0 / t)
                .collect()
        })
        .collect();
    let top = nice_max(shares.iter().flatten().copied().fold(0.0, f64::max));
    let ph = H - TOP - BOTTOM;
    let y_of = |v: f64| H - BOTTOM - v / top * ph;
    let mut tier_labels = String::new();
    if let Some(t) = tiers {
        let edges = [
            x_of(lo as f64),
            x_of(bucket_pos(t.page_cache_max_ns)).clamp(LEFT, W - RIGHT),
            if t.storage_cache_max_ns == u64::MAX {
                W - RIGHT
            } else {
                x_of(bucket_pos(t.storage_cache_max_ns)).clamp(LEFT, W - RIGHT)
            },
            W - RIGHT,
        ];
        for (i, name) in ["page cache", "storage cache", "device"].iter().enumerate() {
            let (a, b) = (edges[i], edges[i + 1]);
            if b - a < 1.0 {
                continue;
            }
            let _ = write!(
                s,
                "<rect class=\"tier tier{i}\" x=\"{a:.1}\" y=\"{TOP}\" width=\"{:.1}\" height=\"{ph:.1}\"><title>{name}</title></rect>",
                b - a,
            );
            // Drawn over the bars, with a halo, so a tall bar cannot hide it.
            let _ = write!(
                tier_labels,
                "<text class=\"tierlabel\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{name}</text>",
                (a + b) / 2.0,
                TOP + 12.0
            );
        }
    }
    for k in 0..=4 {
        let v = top * k as f64 / 4.0;
        let label = if v.fract() == 0.0 {
            format!("{v:.0} %")
        } else {
            format!("{v:.1} %")
        };
        ytick(&mut s, y_of(v), &label);
    }
    let group = bw * 0.8 / hists.len().max(1) as f64;
    for (i, (h, sh)) in hists.iter().zip(&shares).enumerate() {
        for (j, &v) in sh.iter().enumerate() {
            let b = lo + j;
            let count = *h.buckets.counts.get(b).unwrap_or(&0);
            if count == 0 {
                continue;
            }
            let x = x_of(b as f64) + bw * 0.1 + group * i as f64;
            let y = y_of(v);
            let _ = write!(
                s,
                "<rect class=\"bar s{} sw\" data-bucket=\"{b}\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{:.1}\"><title>{}: {} {} ({:.2} %)</title></rect>",
                i % 5,
                group.max(1.0),
                (H - BOTTOM - y).max(0.5),
                esc(h.label),
                esc(&Log2Buckets::label(b)),
                count,
                v
            );
        }
    }
    s.push_str(&tier_labels);
    let every = ((n / 14.0).ceil() as usize).max(1);
    for b in (lo..=hi).step_by(every) {
        xlabel(&mut s, x_of(b as f64 + 0.5), H, &Log2Buckets::label(b));
    }
    axes(&mut s, H);
    axis_title(
        &mut s,
        H,
        "latency bucket (power-of-two µs, upper edge)",
        "share of operations",
    );
    if hists.len() > 1 || !hists[0].label.is_empty() {
        let labels: Vec<&str> = hists.iter().map(|h| h.label).collect();
        let lg = legend(&mut s, &labels, false);
        close_with(&mut s, caption, &lg);
        return s;
    }
    close(&mut s, caption);
    s
}

/// Ticks of a log axis from `10^lo` to `10^hi`: every decade, and 2 and 5
/// times each when the axis spans two decades or less.
fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
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

/// Where a percentile sits on the "nines" axis: `-log10(1 - p/100)`
/// (p50 at 0.3, p90 at 1, p99 at 2, ...); the maximum at 5.
fn nines(p: f64) -> f64 {
    if p >= 100.0 {
        5.0
    } else {
        (-(1.0 - p / 100.0).log10()).min(4.7)
    }
}

/// Percentile curves, p0 (the minimum) to the maximum, latency on a log
/// axis; one line per distribution.
pub fn percentiles(id: &str, caption: &str, lines: &[(&str, &LatencySummary)]) -> String {
    let mut s = open("pct", id, H, caption);
    let pts: Vec<Vec<(f64, f64)>> = lines
        .iter()
        .map(|(_, l)| {
            if l.count == 0 {
                return Vec::new();
            }
            let mut v = vec![(0.0, l.min_ns.max(1) as f64)];
            v.extend(
                l.percentiles
                    .iter()
                    .map(|p| (p.p, p.ns.max(1) as f64))
                    .filter(|&(p, _)| p > 0.0),
            );
            if !l.percentiles.iter().any(|p| p.p >= 100.0) {
                v.push((100.0, l.max_ns.max(1) as f64));
            }
            v
        })
        .collect();
    let all: Vec<f64> = pts.iter().flatten().map(|p| p.1).collect();
    if all.is_empty() {
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\">no samples</text>",
            W / 2.0,
            H / 2.0
        );
        close(&mut s, caption);
        return s;
    }
    let lo = all.iter().copied().fold(f64::MAX, f64::min).log10().floor();
    let mut hi = all.iter().copied().fold(0.0, f64::max).log10().ceil();
    if hi <= lo {
        hi = lo + 1.0;
    }
    let ph = H - TOP - BOTTOM;
    let pw = W - LEFT - RIGHT;
    let y_of = |ns: f64| H - BOTTOM - (ns.log10() - lo) / (hi - lo) * ph;
    let x_of = |p: f64| LEFT + nines(p) / 5.0 * pw;
    for v in log_ticks(lo, hi) {
        ytick(&mut s, y_of(v), &fmt_ns(v));
    }
    for (p, l) in [
        (0.0, "p0"),
        (50.0, "p50"),
        (90.0, "p90"),
        (99.0, "p99"),
        (99.9, "p99.9"),
        (99.99, "p99.99"),
        (100.0, "max"),
    ] {
        xlabel(&mut s, x_of(p), H, l);
    }
    for (i, ((label, _), p)) in lines.iter().zip(&pts).enumerate() {
        if p.is_empty() {
            continue;
        }
        let coords: Vec<String> = p
            .iter()
            .map(|&(q, v)| format!("{:.1},{:.1}", x_of(q), y_of(v)))
            .collect();
        let _ = write!(
            s,
            "<polyline class=\"l{}\" points=\"{}\"><title>{}</title></polyline>",
            i % 5,
            coords.join(" "),
            esc(label)
        );
        for &(q, v) in p {
            let _ = write!(
                s,
                "<circle class=\"m{}\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.6\"><title>{}: p{} = {}</title></circle>",
                i % 5,
                x_of(q),
                y_of(v),
                esc(label),
                q,
                fmt_ns(v)
            );
        }
    }
    axes(&mut s, H);
    axis_title(&mut s, H, "percentile (nines scale)", "latency (log scale)");
    let labels: Vec<&str> = lines.iter().map(|l| l.0).collect();
    let lg = legend(&mut s, &labels, true);
    close_with(&mut s, caption, &lg);
    s
}

/// Most points a series line draws: a longer series (an hour of seconds)
/// is drawn as the mean of consecutive samples with their range shaded,
/// about one point per pixel of the plot.
const MAX_POINTS: usize = 720;

/// A bin of consecutive samples.
#[derive(Debug, PartialEq)]
struct Bin {
    t: f64,
    mean: f64,
    min: f64,
    max: f64,
}

/// Consecutive samples `per_bin` at a time (mean time, mean, min, max);
/// values that are not finite (or not positive on a log axis) are left
/// out, a bin with none is left out.
fn bin(t: &[f64], v: &[f64], per_bin: usize, log_y: bool) -> Vec<Bin> {
    let per_bin = per_bin.max(1);
    let pairs: Vec<(f64, f64)> = t.iter().copied().zip(v.iter().copied()).collect();
    pairs
        .chunks(per_bin)
        .filter_map(|c| {
            let ok: Vec<(f64, f64)> = c
                .iter()
                .copied()
                .filter(|(_, y)| y.is_finite() && (!log_y || *y > 0.0))
                .collect();
            if ok.is_empty() {
                return None;
            }
            let n = ok.len() as f64;
            Some(Bin {
                t: ok.iter().map(|p| p.0).sum::<f64>() / n,
                mean: ok.iter().map(|p| p.1).sum::<f64>() / n,
                min: ok.iter().map(|p| p.1).fold(f64::MAX, f64::min),
                max: ok.iter().map(|p| p.1).fold(f64::MIN, f64::max),
            })
        })
        .collect()
}

/// One line of a series chart: its label and one value per time point.
pub struct Line<'a> {
    /// Legend label.
    pub label: &'a str,
    /// Values, one per entry of the time axis.
    pub values: Vec<f64>,
}

/// A time series chart: `t` in seconds on the x axis, one or more lines
/// of the same unit, on a linear or log y axis. Generic over what is
/// measured, so any command's per-second samples plug in.
pub fn series(id: &str, caption: &str, t: &[f64], lines: &[Line], fmt: Fmt, log_y: bool) -> String {
    let mut s = open("series", id, H, caption);
    let vals: Vec<f64> = lines
        .iter()
        .flat_map(|l| l.values.iter().copied())
        .filter(|v| v.is_finite() && (!log_y || *v > 0.0))
        .collect();
    if t.is_empty() || vals.is_empty() {
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\">no samples</text>",
            W / 2.0,
            H / 2.0
        );
        close(&mut s, caption);
        return s;
    }
    let t0 = t.iter().copied().fold(f64::MAX, f64::min).min(0.0);
    let t1 = t.iter().copied().fold(0.0, f64::max).max(t0 + 1.0);
    let ph = H - TOP - BOTTOM;
    let pw = W - LEFT - RIGHT;
    let x_of = |x: f64| LEFT + (x - t0) / (t1 - t0) * pw;
    let (lo, hi) = if log_y {
        let lo = vals
            .iter()
            .copied()
            .fold(f64::MAX, f64::min)
            .log10()
            .floor();
        let hi = vals.iter().copied().fold(0.0, f64::max).log10().ceil();
        (lo, if hi <= lo { lo + 1.0 } else { hi })
    } else {
        (0.0, nice_max(vals.iter().copied().fold(0.0, f64::max)))
    };
    let y_of = |v: f64| {
        if log_y {
            H - BOTTOM - (v.max(10f64.powf(lo)).log10() - lo) / (hi - lo) * ph
        } else {
            H - BOTTOM - v / hi * ph
        }
    };
    if log_y {
        for v in log_ticks(lo, hi) {
            ytick(&mut s, y_of(v), &fmt(v));
        }
    } else {
        for k in 0..=4 {
            let v = hi * k as f64 / 4.0;
            ytick(&mut s, y_of(v), &fmt(v));
        }
    }
    for k in 0..=6 {
        let x = t0 + (t1 - t0) * k as f64 / 6.0;
        let label = if t1 - t0 < 12.0 {
            format!("{x:.1} s")
        } else {
            format!("{x:.0} s")
        };
        xlabel(&mut s, x_of(x), H, &label);
    }
    let per_bin = t.len().div_ceil(MAX_POINTS);
    for (i, l) in lines.iter().enumerate() {
        let bins = bin(t, &l.values, per_bin, log_y);
        if per_bin > 1 {
            // The range of each bin as a band under its mean.
            let upper = bins
                .iter()
                .map(|b| format!("{:.1},{:.1}", x_of(b.t), y_of(b.max)));
            let lower = bins
                .iter()
                .rev()
                .map(|b| format!("{:.1},{:.1}", x_of(b.t), y_of(b.min)));
            let pts: Vec<String> = upper.chain(lower).collect();
            let _ = write!(
                s,
                "<polygon class=\"band m{}\" points=\"{}\"/>",
                i % 5,
                pts.join(" ")
            );
        }
        let mut pts = String::with_capacity(bins.len() * 12);
        for b in &bins {
            let _ = write!(pts, "{:.1},{:.1} ", x_of(b.t), y_of(b.mean));
        }
        let finite: Vec<f64> = l.values.iter().copied().filter(|v| v.is_finite()).collect();
        let (mn, mx) = (
            finite.iter().copied().fold(f64::MAX, f64::min),
            finite.iter().copied().fold(f64::MIN, f64::max),
        );
        let mean = finite.iter().sum::<f64>() / finite.len().max(1) as f64;
        let _ = write!(
            s,
            "<polyline class=\"l{}\" points=\"{}\"><title>{}: {} samples, min {}, mean {}, max {}</title></polyline>",
            i % 5,
            pts.trim_end(),
            esc(l.label),
            finite.len(),
            fmt(mn),
            fmt(mean),
            fmt(mx)
        );
    }
    if per_bin > 1 {
        let _ = write!(
            s,
            "<text class=\"binned\" x=\"{:.1}\" y=\"{:.1}\">each point: the mean of {per_bin} samples; shaded: their range</text>",
            LEFT + 6.0,
            TOP + 12.0
        );
    }
    axes(&mut s, H);
    axis_title(
        &mut s,
        H,
        "seconds since the start",
        if log_y { "log scale" } else { "" },
    );
    let labels: Vec<&str> = lines.iter().map(|l| l.label).collect();
    let lg = legend(&mut s, &labels, true);
    close_with(&mut s, caption, &lg);
    s
}

/// Horizontal stacked bars: one row per label, one segment per part
/// (patterned and labelled in the legend), with each segment's value in
/// its tooltip and the row's total at its end.
pub fn stacked(
    id: &str,
    caption: &str,
    parts: &[&str],
    rows: &[(String, Vec<f64>)],
    fmt: Fmt,
) -> String {
    let row_h = 24.0;
    let h = TOP + BOTTOM + row_h * rows.len().max(1) as f64;
    let left = 190.0;
    let mut s = open("stacked", id, h, caption);
    let max = nice_max(
        rows.iter()
            .map(|r| r.1.iter().filter(|v| **v > 0.0).sum::<f64>())
            .fold(0.0, f64::max),
    );
    let pw = W - left - RIGHT - 60.0;
    for (i, (label, vals)) in rows.iter().enumerate() {
        let y = TOP + row_h * i as f64 + 3.0;
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}<title>{}</title></text>",
            left - 6.0,
            y + 13.0,
            esc(&clip(label, 30)),
            esc(label)
        );
        let mut x = left;
        for (j, &v) in vals.iter().enumerate() {
            if v <= 0.0 || !v.is_finite() {
                continue;
            }
            let w = v / max * pw;
            let _ = write!(
                s,
                "<rect class=\"seg s{} sw\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{:.1}\"><title>{}: {} {}</title></rect>",
                j % 5,
                row_h - 6.0,
                esc(label),
                esc(parts.get(j).copied().unwrap_or("")),
                fmt(v)
            );
            x += w;
        }
        let total: f64 = vals.iter().filter(|v| **v > 0.0).sum();
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            x + 4.0,
            y + 13.0,
            esc(&fmt(total))
        );
    }
    let _ = write!(
        s,
        "<line class=\"axis\" x1=\"{left}\" y1=\"{TOP}\" x2=\"{left}\" y2=\"{:.1}\"/>",
        h - BOTTOM
    );
    let lg = legend(&mut s, parts, false);
    close_with(&mut s, caption, &lg);
    s
}

/// One heat map: a value per cell of a grid of columns (x) and rows (y),
/// `None` where nothing was measured.
pub struct Grid<'a> {
    /// Column headings, left to right.
    pub cols: &'a [String],
    /// Row headings, top to bottom.
    pub rows: &'a [String],
    /// `values[row][col]`.
    pub values: &'a [Vec<Option<f64>>],
    /// What the columns count.
    pub x_title: &'a str,
    /// What the rows count.
    pub y_title: &'a str,
}

/// The scale's two ends, light to dark (a single-hue sequential scale:
/// darker is larger, and it stays ordered in grey).
const HEAT_LO: (f64, f64, f64) = (239.0, 243.0, 255.0);
const HEAT_HI: (f64, f64, f64) = (8.0, 48.0, 107.0);

/// The fill of a cell at `t` in 0..=1 along the scale, and the fill of a
/// label that stays readable on it.
fn heat_colour(t: f64) -> (String, &'static str) {
    let t = if t.is_finite() {
        t.clamp(0.0, 1.0)
    } else {
        0.0
    };
    let c = |a: f64, b: f64| (a + (b - a) * t).round() as u8;
    (
        format!(
            "rgb({},{},{})",
            c(HEAT_LO.0, HEAT_HI.0),
            c(HEAT_LO.1, HEAT_HI.1),
            c(HEAT_LO.2, HEAT_HI.2)
        ),
        if t < 0.5 { "#000" } else { "#fff" },
    )
}

/// A heat map: one cell per (column, row), filled on a linear scale from
/// zero to the largest value AND labelled with its value (so the
/// figure is read, not guessed from a shade, and a grey print keeps it),
/// its heading pair and value in the tooltip; cells not measured are
/// left blank and say so. The scale's legend, with its values, is drawn
/// under the grid. Each cell is a `<g class="cell">` whose `data-row` and
/// `data-col` are its row's and column's headings.
pub fn heatmap(id: &str, caption: &str, g: &Grid, fmt: Fmt) -> String {
    let cell_h = 30.0;
    let nr = g.rows.len().max(1);
    let nc = g.cols.len().max(1);
    let grid_h = cell_h * nr as f64;
    let h = TOP + grid_h + 80.0;
    let mut s = open("heat", id, h, caption);
    let vals: Vec<f64> = g
        .values
        .iter()
        .flatten()
        .flatten()
        .copied()
        .filter(|v| v.is_finite())
        .collect();
    // From zero (or the smallest value when one is negative) to the
    // largest, so a shade is in proportion to its value: 1.00 ms against
    // 1.01 ms look alike, as they are, and 1 k IOPS against 4 k do not.
    let lo = vals.iter().copied().fold(0.0, f64::min);
    let hi = vals.iter().copied().fold(f64::MIN, f64::max);
    let t_of = |v: f64| {
        if hi > lo {
            (v - lo) / (hi - lo)
        } else {
            0.5
        }
    };
    let cw = (W - LEFT - RIGHT) / nc as f64;
    for (r, row) in g.rows.iter().enumerate() {
        let y = TOP + cell_h * r as f64;
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LEFT - 6.0,
            y + cell_h / 2.0 + 4.0,
            esc(row)
        );
        for (c, col) in g.cols.iter().enumerate() {
            let x = LEFT + cw * c as f64;
            let v = g
                .values
                .get(r)
                .and_then(|vs| vs.get(c))
                .copied()
                .flatten()
                .filter(|v| v.is_finite());
            let (fill, ink, label, title) = match v {
                Some(v) => {
                    let (f, i) = heat_colour(t_of(v));
                    (f, i, fmt(v), fmt(v))
                }
                None => (
                    "none".to_string(),
                    "#777",
                    "-".to_string(),
                    "not measured".to_string(),
                ),
            };
            let _ = write!(
                s,
                "<g class=\"cell\" data-row=\"{}\" data-col=\"{}\"><rect class=\"heat\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{:.1}\" height=\"{cell_h:.1}\" style=\"fill:{fill};stroke:var(--rule)\"><title>{} {}, {} {}: {}</title></rect><text class=\"cell\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" style=\"fill:{ink}\">{}</text></g>",
                esc(row),
                esc(col),
                cw,
                esc(g.x_title),
                esc(col),
                esc(g.y_title),
                esc(row),
                esc(&title),
                x + cw / 2.0,
                y + cell_h / 2.0 + 4.0,
                esc(&label)
            );
        }
    }
    for (c, col) in g.cols.iter().enumerate() {
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            LEFT + cw * (c as f64 + 0.5),
            TOP + grid_h + 14.0,
            esc(col)
        );
    }
    let _ = write!(
        s,
        "<text class=\"xt\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text><text class=\"yt\" x=\"4\" y=\"{:.1}\">{} ↓</text>",
        LEFT + (W - LEFT - RIGHT) / 2.0,
        TOP + grid_h + 30.0,
        esc(g.x_title),
        TOP - 12.0,
        esc(g.y_title)
    );
    // The legend: five steps of the scale with the value each stands for.
    let ly = TOP + grid_h + 44.0;
    let _ = write!(
        s,
        "<g class=\"scale\"><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">scale</text>",
        LEFT - 6.0,
        ly + 13.0
    );
    if vals.is_empty() {
        let _ = write!(
            s,
            "<text x=\"{LEFT}\" y=\"{:.1}\">no cell measured</text>",
            ly + 13.0
        );
    } else {
        let sw = 110.0;
        for k in 0..5 {
            let t = k as f64 / 4.0;
            let v = if hi > lo { lo + (hi - lo) * t } else { lo };
            let (fill, _) = heat_colour(if hi > lo { t } else { 0.5 });
            let x = LEFT + sw * k as f64;
            let _ = write!(
                s,
                "<rect class=\"step\" x=\"{x:.1}\" y=\"{ly:.1}\" width=\"18\" height=\"16\" style=\"fill:{fill};stroke:var(--rule)\"/><text class=\"step\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                x + 22.0,
                ly + 13.0,
                esc(&fmt(v))
            );
            if hi <= lo {
                break;
            }
        }
    }
    s.push_str("</g>");
    close(&mut s, caption);
    s
}

/// A marked point of an [`xy`] chart.
pub struct Mark<'a> {
    /// Index of the point in the chart's points.
    pub index: usize,
    /// What it is.
    pub label: &'a str,
}

/// A line through `(x label, y)` points at evenly spaced x positions (a
/// ladder of counts, read as categories), y on a linear axis from 0; an
/// optional horizontal target line and an optional marked point.
pub fn xy(
    id: &str,
    caption: &str,
    pts: &[(String, f64)],
    titles: (&str, &str),
    fmt: Fmt,
    target: Option<(f64, &str)>,
    mark: Option<Mark>,
) -> String {
    let mut s = open("xy", id, H, caption);
    let ys: Vec<f64> = pts.iter().map(|p| p.1).filter(|v| v.is_finite()).collect();
    if ys.is_empty() {
        let _ = write!(
            s,
            "<text x=\"{}\" y=\"{}\">no points</text>",
            W / 2.0,
            H / 2.0
        );
        close(&mut s, caption);
        return s;
    }
    let top = nice_max(
        ys.iter()
            .copied()
            .chain(target.map(|t| t.0))
            .fold(0.0, f64::max)
            * 1.05,
    );
    let ph = H - TOP - BOTTOM;
    let pw = W - LEFT - RIGHT;
    let n = pts.len() as f64;
    let x_of = |i: usize| LEFT + pw * (i as f64 + 0.5) / n;
    let y_of = |v: f64| H - BOTTOM - v / top * ph;
    for k in 0..=4 {
        let v = top * k as f64 / 4.0;
        ytick(&mut s, y_of(v), &fmt(v));
    }
    for (i, (l, _)) in pts.iter().enumerate() {
        xlabel(&mut s, x_of(i), H, l);
    }
    if let Some((t, label)) = target {
        let y = y_of(t);
        let _ = write!(
            s,
            "<line class=\"target\" x1=\"{LEFT}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" style=\"stroke:var(--warn);stroke-width:1.5;stroke-dasharray:6 4\"><title>{}: {}</title></line><text class=\"target\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}: {}</text>",
            W - RIGHT,
            esc(label),
            esc(&fmt(t)),
            W - RIGHT - 4.0,
            y - 5.0,
            esc(label),
            esc(&fmt(t))
        );
    }
    let coords: Vec<String> = pts
        .iter()
        .enumerate()
        .filter(|(_, p)| p.1.is_finite())
        .map(|(i, p)| format!("{:.1},{:.1}", x_of(i), y_of(p.1)))
        .collect();
    let _ = write!(
        s,
        "<polyline class=\"l0\" points=\"{}\"/>",
        coords.join(" ")
    );
    for (i, (l, v)) in pts.iter().enumerate().filter(|(_, p)| p.1.is_finite()) {
        let _ = write!(
            s,
            "<circle class=\"m0\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\"><title>{} {}: {}</title></circle>",
            x_of(i),
            y_of(*v),
            esc(titles.0),
            esc(l),
            esc(&fmt(*v))
        );
    }
    if let Some(m) = mark.filter(|m| pts.get(m.index).is_some_and(|p| p.1.is_finite())) {
        let (x, y) = (x_of(m.index), y_of(pts[m.index].1));
        let _ = write!(
            s,
            "<circle class=\"chosen\" cx=\"{x:.1}\" cy=\"{y:.1}\" r=\"8\" style=\"fill:none;stroke:var(--fg);stroke-width:2\"><title>{}</title></circle><text class=\"chosen\" x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"{}\">{}</text>",
            esc(m.label),
            x,
            (y + 22.0).min(H - BOTTOM - 4.0),
            if x > W - RIGHT - 120.0 { "end" } else { "middle" },
            esc(m.label)
        );
    }
    axes(&mut s, H);
    axis_title(&mut s, H, titles.0, titles.1);
    close(&mut s, caption);
    s
}

/// Horizontal bars, one per label, the value written at the bar's end.
pub fn bars(id: &str, caption: &str, rows: &[(String, f64)], fmt: Fmt) -> String {
    let row_h = 22.0;
    let h = TOP + 16.0 + row_h * rows.len().max(1) as f64;
    let left = 250.0;
    let mut s = open("bars", id, h, caption);
    let max = nice_max(rows.iter().map(|r| r.1).fold(0.0, f64::max));
    let pw = W - left - RIGHT - 80.0;
    for (i, (label, v)) in rows.iter().enumerate() {
        let y = TOP + row_h * i as f64;
        let w = (v.max(0.0) / max * pw).max(0.5);
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}<title>{}</title></text><rect class=\"bar s0 sw\" x=\"{left}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{:.1}\"><title>{}: {}</title></rect><text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            left - 6.0,
            y + 13.0,
            esc(&clip(label, 38)),
            esc(label),
            row_h - 6.0,
            esc(label),
            esc(&fmt(*v)),
            left + w + 4.0,
            y + 13.0,
            esc(&fmt(*v))
        );
    }
    let _ = write!(
        s,
        "<line class=\"axis\" x1=\"{left}\" y1=\"{TOP}\" x2=\"{left}\" y2=\"{:.1}\"/>",
        h - 16.0
    );
    close(&mut s, caption);
    s
}

/// One row of a paired-bar chart: two figures of the same quantity
/// (predicted and measured, syscall time and device time).
pub struct Pair {
    /// What the row is.
    pub label: String,
    /// The first figure (drawn plain).
    pub a: f64,
    /// The second figure (drawn hatched); None when it is not known.
    pub b: Option<f64>,
    /// How both figures are written.
    pub fmt: Fmt,
    /// Written after the row's bars (a residual, a share), may be empty.
    pub note: String,
}

/// Paired horizontal bars, two per row; each row has its own scale (its
/// two figures share a unit, rows need not), so the chart compares the
/// two figures of a row, never one row's length with another's.
pub fn paired(id: &str, caption: &str, names: [&str; 2], rows: &[Pair]) -> String {
    let row_h = 40.0;
    let h = TOP + 16.0 + row_h * rows.len().max(1) as f64;
    let left = 230.0;
    let mut s = open("paired", id, h, caption);
    let pw = W - left - RIGHT - 230.0;
    for (i, r) in rows.iter().enumerate() {
        let y = TOP + row_h * i as f64;
        let max = r.a.max(r.b.unwrap_or(0.0));
        let max = if max > 0.0 && max.is_finite() {
            max
        } else {
            1.0
        };
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}<title>{}</title></text>",
            left - 6.0,
            y + 20.0,
            esc(&clip(&r.label, 34)),
            esc(&r.label)
        );
        let mut end = left;
        for (j, v) in [Some(r.a), r.b].into_iter().enumerate() {
            let yy = y + 2.0 + 16.0 * j as f64;
            let (w, text) = match v {
                Some(v) if v.is_finite() => ((v.max(0.0) / max * pw).max(0.5), (r.fmt)(v)),
                _ => (0.0, "not known".to_string()),
            };
            let _ = write!(
                s,
                "<rect class=\"bar s{j} sw\" x=\"{left}\" y=\"{yy:.1}\" width=\"{w:.1}\" height=\"14\"><title>{}: {} {}</title></rect><text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                esc(&r.label),
                esc(names[j]),
                esc(&text),
                left + w + 4.0,
                yy + 11.0,
                esc(&text)
            );
            end = end.max(left + w + 4.0 + 7.0 * text.chars().count() as f64);
        }
        if !r.note.is_empty() {
            let _ = write!(
                s,
                "<text class=\"note\" x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                end.max(left + pw + 70.0) + 6.0,
                y + 20.0,
                esc(&r.note)
            );
        }
    }
    let _ = write!(
        s,
        "<line class=\"axis\" x1=\"{left}\" y1=\"{TOP}\" x2=\"{left}\" y2=\"{:.1}\"/>",
        h - 16.0
    );
    let lg = legend(&mut s, &names, false);
    close_with(&mut s, caption, &lg);
    s
}

/// One bar of a ratio chart: an input's figure divided by the first
/// input's.
pub struct Ratio {
    /// What the bar is (entry, figure and input).
    pub label: String,
    /// The ratio (finite, positive).
    pub ratio: f64,
    /// Against the run-to-run noise: `Some(true)` beyond it,
    /// `Some(false)` within it, None no verdict.
    pub beyond_noise: Option<bool>,
    /// Whether a larger value is better (None: neither).
    pub higher_is_better: Option<bool>,
}

/// The class and words of a noise verdict; beyond the noise is hatched,
/// within it plain, no verdict dotted, so the mark survives grey print.
fn verdict_style(v: Option<bool>) -> (&'static str, &'static str) {
    match v {
        Some(true) => ("s1 beyond", "beyond the run-to-run noise"),
        Some(false) => ("s4 within", "within the run-to-run noise"),
        None => ("s2 noverdict", "no verdict on the noise"),
    }
}

/// Ratio bars on a log2 axis centred on 1 (the first input): a bar goes
/// right for a larger value, left for a smaller one; its fill says
/// whether the difference is beyond the noise; its label gives the ratio
/// and, where the figure has a direction, whether it is better or worse.
/// Ratios beyond 64x either way are drawn at the edge, their figure
/// written in full.
pub fn ratio_bars(id: &str, caption: &str, rows: &[Ratio]) -> String {
    let row_h = 22.0;
    let h = TOP + 30.0 + row_h * rows.len().max(1) as f64;
    let left = 300.0;
    let right = 150.0;
    let mut s = open("ratio", id, h, caption);
    let span = rows
        .iter()
        .map(|r| r.ratio.log2().abs())
        .filter(|v| v.is_finite())
        .fold(1.0, f64::max)
        .ceil()
        .min(6.0);
    let pw = W - left - right;
    let mid = left + pw / 2.0;
    let x_of = |r: f64| mid + (r.log2().clamp(-span, span) / span) * pw / 2.0;
    let bottom = TOP + row_h * rows.len().max(1) as f64;
    for k in -(span as i32)..=(span as i32) {
        let r = 2f64.powi(k);
        let x = x_of(r);
        let label = if k < 0 {
            format!("1/{}x", 2f64.powi(-k))
        } else {
            format!("{r}x")
        };
        let _ = write!(
            s,
            "<line class=\"{}\" x1=\"{x:.1}\" y1=\"{TOP}\" x2=\"{x:.1}\" y2=\"{bottom:.1}\"/><text x=\"{x:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            if k == 0 { "axis" } else { "grid" },
            bottom + 14.0,
            esc(&label)
        );
    }
    for (i, r) in rows.iter().enumerate() {
        let y = TOP + row_h * i as f64;
        let (class, words) = verdict_style(r.beyond_noise);
        let direction = match (r.higher_is_better, r.ratio.partial_cmp(&1.0)) {
            (_, Some(std::cmp::Ordering::Equal)) | (None, _) => "",
            (Some(true), Some(std::cmp::Ordering::Greater))
            | (Some(false), Some(std::cmp::Ordering::Less)) => ", better",
            _ => ", worse",
        };
        let x = x_of(r.ratio);
        let (x0, w) = if x >= mid {
            (mid, (x - mid).max(0.5))
        } else {
            (x, mid - x)
        };
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}<title>{}</title></text><rect class=\"bar {class} sw\" x=\"{x0:.1}\" y=\"{:.1}\" width=\"{w:.1}\" height=\"{:.1}\"><title>{}: {:.3}x the first input; {words}{direction}</title></rect><text x=\"{:.1}\" y=\"{:.1}\">{:.2}x{}</text>",
            left - 6.0,
            y + 13.0,
            esc(&clip(&r.label, 44)),
            esc(&r.label),
            y + 2.0,
            row_h - 6.0,
            esc(&r.label),
            r.ratio,
            W - right + 8.0,
            y + 13.0,
            r.ratio,
            if r.beyond_noise == Some(true) { " *" } else { "" }
        );
    }
    axis_title(&mut s, h, "ratio to the first input (log scale)", "");
    let mut lg = String::from("<ul class=\"legend\">");
    for v in [Some(true), Some(false), None] {
        let (class, words) = verdict_style(v);
        let _ = write!(
            lg,
            "<li><svg viewBox=\"0 0 20 14\" width=\"20\" height=\"14\" aria-hidden=\"true\"><rect class=\"{class} sw\" x=\"1\" y=\"2\" width=\"14\" height=\"11\"/></svg>{words}{}</li>",
            if v == Some(true) { " (*)" } else { "" }
        );
    }
    lg.push_str("</ul>");
    close_with(&mut s, caption, &lg);
    s
}

/// One input's spread in a whisker chart.
pub struct Whisker<'a> {
    /// The input's label.
    pub label: &'a str,
    /// Its spread (rounds or per-second values).
    pub spread: Spread,
}

/// Box-and-whisker rows, one per input: the line from the minimum to the
/// maximum, the box from the 25th to the 75th percentile, a thick tick at
/// the median; linear axis from 0. Each input keeps its pattern.
pub fn whiskers(id: &str, caption: &str, rows: &[Whisker], fmt: Fmt) -> String {
    let row_h = 26.0;
    let h = TOP + 30.0 + row_h * rows.len().max(1) as f64;
    let left = 210.0;
    let mut s = open("whisker", id, h, caption);
    let max = nice_max(rows.iter().map(|r| r.spread.max).fold(0.0, f64::max));
    let pw = W - left - RIGHT - 20.0;
    let x_of = |v: f64| left + v.max(0.0) / max * pw;
    let bottom = TOP + row_h * rows.len().max(1) as f64;
    for k in 0..=4 {
        let v = max * k as f64 / 4.0;
        let x = x_of(v);
        let _ = write!(
            s,
            "<line class=\"grid\" x1=\"{x:.1}\" y1=\"{TOP}\" x2=\"{x:.1}\" y2=\"{bottom:.1}\"/>"
        );
        xlabel(&mut s, x, bottom + BOTTOM, &fmt(v));
    }
    for (i, r) in rows.iter().enumerate() {
        let p = &r.spread;
        let y = TOP + row_h * i as f64 + row_h / 2.0;
        let _ = write!(
            s,
            "<g class=\"spread\"><title>{}: median {} (p25 {} – p75 {}; min {} – max {}; n = {})</title><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text><line class=\"whisker\" x1=\"{:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\"/><line class=\"whisker\" x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/><line class=\"whisker\" x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/><rect class=\"box s{} sw\" x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\"/><line class=\"median\" x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\"/></g>",
            esc(r.label),
            fmt(p.median),
            fmt(p.p25),
            fmt(p.p75),
            fmt(p.min),
            fmt(p.max),
            p.n,
            left - 8.0,
            y + 4.0,
            esc(&clip(r.label, 30)),
            x_of(p.min),
            x_of(p.max),
            x_of(p.min),
            y - 6.0,
            x_of(p.min),
            y + 6.0,
            x_of(p.max),
            y - 6.0,
            x_of(p.max),
            y + 6.0,
            i % 5,
            x_of(p.p25),
            y - 8.0,
            (x_of(p.p75) - x_of(p.p25)).max(1.0),
            16.0,
            x_of(p.median),
            y - 10.0,
            x_of(p.median),
            y + 10.0
        );
    }
    let _ = write!(
        s,
        "<line class=\"axis\" x1=\"{left}\" y1=\"{bottom:.1}\" x2=\"{:.1}\" y2=\"{bottom:.1}\"/>",
        W - RIGHT
    );
    close(&mut s, caption);
    s
}

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
