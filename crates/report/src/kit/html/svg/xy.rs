//! A line over a ladder of counts with a target and a marked point.

use super::*;

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
