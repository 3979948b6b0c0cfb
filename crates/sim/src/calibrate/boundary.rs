//! Where to put the line between two latency distributions.
//!
//! The threshold minimises the equal-weight misclassification
//! `P(fast ≥ t) + P(slow < t)`: each tier counts as much as the other
//! whatever its sample count. When the two do not overlap, every threshold
//! in the gap scores zero and the geometric middle of the gap is taken
//! (latencies spread multiplicatively, so the middle of 5 µs and 40 µs is
//! 14 µs, not 22 µs). Values come from HDR histograms (1 % precision), so
//! the threshold and the error shares carry that 1 %.

use dbio_model::calibrate::Boundary;
use hdrhistogram::Histogram;

/// The boundary between `fast` and `slow` (None when either is empty).
pub fn boundary(fast: &Histogram<u64>, slow: &Histogram<u64>) -> Option<Boundary> {
    if fast.is_empty() || slow.is_empty() {
        return None;
    }
    // (value, fast count, slow count), sorted by value.
    let mut pts: Vec<(u64, u64, u64)> = fast
        .iter_recorded()
        .map(|v| (v.value_iterated_to(), v.count_at_value(), 0))
        .chain(
            slow.iter_recorded()
                .map(|v| (v.value_iterated_to(), 0, v.count_at_value())),
        )
        .collect();
    pts.sort_unstable_by_key(|p| p.0);
    let mut merged: Vec<(u64, u64, u64)> = Vec::with_capacity(pts.len());
    for p in pts {
        match merged.last_mut() {
            Some(m) if m.0 == p.0 => {
                m.1 += p.1;
                m.2 += p.2;
            }
            _ => merged.push(p),
        }
    }
    let (nf, ns) = (fast.len() as f64, slow.len() as f64);
    // Threshold t = merged[i].0: values < t are "fast". Before index i,
    // `fast_below` fast samples and `slow_below` slow samples lie below t.
    let mut best = (f64::INFINITY, 0usize, 0usize);
    let (mut fast_below, mut slow_below) = (0u64, 0u64);
    for (i, m) in merged.iter().enumerate() {
        let err = (fast.len() - fast_below) as f64 / nf + slow_below as f64 / ns;
        if err < best.0 - 1e-12 {
            best = (err, i, i);
        } else if (err - best.0).abs() <= 1e-12 && best.2 + 1 == i {
            best.2 = i; // extend the run of equally good thresholds
        }
        fast_below += m.1;
        slow_below += m.2;
    }
    let (_, k, j) = best;
    let hi = merged[j].0;
    let lo = if k > 0 { merged[k - 1].0 } else { hi / 2 };
    let t = (((lo as f64) * (hi as f64)).sqrt().round() as u64).clamp(lo + 1, hi.max(lo + 1));
    let fast_above: u64 = merged.iter().filter(|m| m.0 >= t).map(|m| m.1).sum();
    let slow_under: u64 = merged.iter().filter(|m| m.0 < t).map(|m| m.2).sum();
    let (fast_above, slow_under) = (fast_above as f64, slow_under as f64);
    Some(Boundary {
        ns: t,
        faster_misclassified: (fast_above / nf).min(1.0),
        slower_misclassified: (slow_under / ns).min(1.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_engine::recorder::new_histogram;

    fn h(vals: &[(u64, u64)]) -> Histogram<u64> {
        let mut h = new_histogram();
        for &(v, n) in vals {
            h.record_n(v, n).unwrap();
        }
        h
    }

    #[test]
    fn separated_tiers_split_at_the_geometric_middle_of_the_gap() {
        let fast = h(&[(2_000, 500), (5_000, 500)]);
        let slow = h(&[(40_000, 900), (200_000, 100)]);
        let b = boundary(&fast, &slow).unwrap();
        // sqrt(5000 × 40000) = 14142, within the histogram's 1 %.
        assert!((b.ns as f64 - 14_142.0).abs() < 300.0, "{}", b.ns);
        assert_eq!(b.faster_misclassified, 0.0);
        assert_eq!(b.slower_misclassified, 0.0);
    }

    #[test]
    fn overlapping_tiers_minimise_the_equal_weight_error() {
        // Fast: 90 % at 10 µs, 10 % at 100 µs; slow: 20 % at 50 µs, 80 % at
        // 300 µs. A cut in (10, 50] µs costs 10 % of fast and none of slow;
        // one in (50, 100] costs 10 % + 20 %; one above 100 µs 0 + 20 %.
        let fast = h(&[(10_000, 900), (100_000, 100)]);
        let slow = h(&[(50_000, 200), (300_000, 800)]);
        let b = boundary(&fast, &slow).unwrap();
        assert!(b.ns > 10_100 && b.ns <= 50_500, "{}", b.ns);
        assert!((b.faster_misclassified - 0.1).abs() < 1e-9);
        assert_eq!(b.slower_misclassified, 0.0);
    }

    #[test]
    fn the_best_cut_may_leave_slow_reads_below_it() {
        // Fast: 100 at 10 µs, 50 at 60 µs; slow: 10 at 50 µs, 90 at 100 µs.
        // A cut in (10, 50] costs a third of fast; one in (60, 100] costs
        // a tenth of slow and nothing of fast: the better one, and only a
        // slow share weighed as a share (not a count) finds it.
        let fast = h(&[(10_000, 100), (60_000, 50)]);
        let slow = h(&[(50_000, 10), (100_000, 90)]);
        let b = boundary(&fast, &slow).unwrap();
        assert!(b.ns > 60_600 && b.ns <= 101_000, "{}", b.ns);
        assert_eq!(b.faster_misclassified, 0.0);
        assert!((b.slower_misclassified - 0.1).abs() < 1e-9);
    }

    #[test]
    fn empty_side_gives_no_boundary() {
        assert!(boundary(&new_histogram(), &h(&[(1, 1)])).is_none());
    }
}
