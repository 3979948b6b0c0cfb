//! The latency histogram on power-of-two microsecond buckets, with the cache tiers shaded.

use super::*;

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
pub(super) fn bucket_pos(ns: u64) -> f64 {
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
