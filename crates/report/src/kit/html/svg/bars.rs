//! Horizontal bars: stacked shares, plain values, pairs, ratios against a baseline with their noise verdict, and spreads as whiskers.

use super::*;

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
pub(super) fn verdict_style(v: Option<bool>) -> (&'static str, &'static str) {
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
