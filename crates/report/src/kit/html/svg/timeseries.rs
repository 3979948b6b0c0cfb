//! Per-second series: lines over time, binned past 720 points.

use super::*;

/// Most points a series line draws: a longer series (an hour of seconds)
/// is drawn as the mean of consecutive samples with their range shaded,
/// about one point per pixel of the plot.
pub(super) const MAX_POINTS: usize = 720;

/// A bin of consecutive samples.
#[derive(Debug, PartialEq)]
pub(super) struct Bin {
    pub(super) t: f64,
    pub(super) mean: f64,
    pub(super) min: f64,
    pub(super) max: f64,
}

/// Consecutive samples `per_bin` at a time (mean time, mean, min, max);
/// values that are not finite (or not positive on a log axis) are left
/// out, a bin with none is left out.
pub(super) fn bin(t: &[f64], v: &[f64], per_bin: usize, log_y: bool) -> Vec<Bin> {
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
