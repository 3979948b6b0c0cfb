//! Percentile curves on a "nines" axis (p50 .. p99.999).

use super::*;

/// Where a percentile sits on the "nines" axis: `-log10(1 - p/100)`
/// (p50 at 0.3, p90 at 1, p99 at 2, ...); the maximum at 5.
pub(super) fn nines(p: f64) -> f64 {
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
