//! `dbio matrix` in words: where the knee of the small-I/O curve is, what
//! one more outstanding I/O costs beyond it, whether large I/O traffic
//! (backups, scans) destroys small-I/O latency, and a search whose target
//! not even one outstanding I/O meets.
//!
//! The knee: past saturation a device completes I/Os no faster, so by
//! Little's law (outstanding = IOPS × latency) each further outstanding
//! I/O adds 1 / max IOPS of latency and nothing else. dbio calls the knee
//! the smallest outstanding count whose IOPS reach [`KNEE_SHARE`] of the
//! highest measured, provided a larger count was measured after it (else
//! the curve may still be climbing past the ladder's end).

use crate::kit::findings::RuleSet;
use crate::kit::findings::{ev, finding, Finding, Severity};
use crate::kit::references::doc;
use dbio_model::matrix::{MatrixPoint, MatrixResult};
use dbio_model::units::format_ns;
use dbio_model::RunReport;

/// Share of the highest small IOPS at which the curve counts as flat.
pub const KNEE_SHARE: f64 = 0.9;

/// p99 growth factor, at the same small load, from which large I/O is
/// said to destroy small-I/O latency (the p99 at least doubles).
pub const LARGE_HARM: f64 = 2.0;

/// The matrix rules.
pub const RULES: RuleSet<RunReport> = RuleSet {
    area: "matrix",
    evaluate,
};

fn evaluate(r: &RunReport) -> Vec<Finding> {
    let Some(m) = &r.matrix else {
        return Vec::new();
    };
    let mut out = Vec::new();
    out.extend(knee(m));
    out.extend(large_impact(m));
    out.extend(unmet(m));
    out
}

/// Small I/Os without large I/Os, by outstanding count.
fn small_curve(m: &MatrixResult) -> Vec<&MatrixPoint> {
    let mut v: Vec<&MatrixPoint> = m
        .points
        .iter()
        .filter(|p| p.large == 0 && p.small > 0 && p.small_lat.is_some())
        .collect();
    v.sort_by_key(|p| p.small);
    v.dedup_by_key(|p| p.small);
    v
}

/// The knee point of the small-I/O curve, when the curve flattens within
/// the ladder.
pub fn knee_point(m: &MatrixResult) -> Option<&MatrixPoint> {
    let curve = small_curve(m);
    let max = curve.iter().map(|p| p.small_iops).fold(0.0, f64::max);
    let i = curve
        .iter()
        .position(|p| p.small_iops >= KNEE_SHARE * max)?;
    (i + 1 < curve.len()).then(|| curve[i])
}

fn knee(m: &MatrixResult) -> Vec<Finding> {
    let curve = small_curve(m);
    if curve.len() < 3 {
        return Vec::new();
    }
    let last = curve[curve.len() - 1];
    let Some(k) = knee_point(m) else {
        return vec![finding(
            "matrix.no_knee",
            None,
            Severity::Info,
            format!(
                "Small-I/O IOPS were still climbing at the top of the ladder ({} outstanding, {:.0} IOPS): the knee is beyond it; extend --small to find it",
                last.small, last.small_iops
            ),
            vec![
                ev("outstanding small I/Os", f64::from(last.small), "I/Os"),
                ev("small IOPS", last.small_iops, "IOPS"),
            ],
            Some(doc("docs/matrix.md")),
        )];
    };
    let (kl, ll) = (k.small_lat.unwrap(), last.small_lat.unwrap());
    let extra = f64::from(last.small - k.small);
    let cost_ns = (ll.mean_ns - kl.mean_ns) / extra;
    let max_iops = curve.iter().map(|p| p.small_iops).fold(0.0, f64::max);
    let little_ns = 1e9 / max_iops;
    let growth = 100.0 * (last.small_iops / k.small_iops - 1.0);
    vec![finding(
        "matrix.knee",
        None,
        Severity::Notice,
        format!(
            "The knee is at {} outstanding small I/Os ({:.0} IOPS, p99 {}): from there to {} outstanding IOPS {}, while each further outstanding I/O adds {} of mean latency (Little's law at {:.0} IOPS predicts {}): queue deeper than the knee only buys latency",
            k.small,
            k.small_iops,
            format_ns(kl.p99_ns as f64),
            last.small,
            growth_words(growth),
            format_ns(cost_ns.max(0.0)),
            max_iops,
            format_ns(little_ns)
        ),
        vec![
            ev("knee: outstanding small I/Os", f64::from(k.small), "I/Os"),
            ev("small IOPS at the knee", k.small_iops, "IOPS"),
            ev("p99 at the knee", kl.p99_ns as f64, "ns"),
            ev("mean latency per further outstanding I/O", cost_ns, "ns"),
            ev("Little's law: 1 / max IOPS", little_ns, "ns"),
        ],
        Some(doc("docs/matrix.md")),
    )]
}

/// How IOPS moved past the knee, in words: growth is never negative
/// (`grow only 3 %`, `stay flat`, `fall 26 %`).
pub fn growth_words(pct: f64) -> String {
    if pct >= 0.5 {
        format!("grow only {pct:.0} %")
    } else if pct > -0.5 {
        "stay flat".into()
    } else {
        format!("fall {:.0} %", -pct)
    }
}

/// Small-I/O p99 with the most large I/Os against without, at the knee's
/// load (or the largest small load measured both ways).
fn large_impact(m: &MatrixResult) -> Vec<Finding> {
    let with_large = |n: u32| {
        m.points
            .iter()
            .filter(|p| p.small == n && p.large > 0 && p.small_lat.is_some())
            .max_by_key(|p| p.large)
    };
    let base = match knee_point(m).filter(|k| with_large(k.small).is_some()) {
        Some(k) => k,
        None => match small_curve(m)
            .into_iter()
            .rfind(|p| with_large(p.small).is_some())
        {
            Some(p) => p,
            None => return Vec::new(),
        },
    };
    let loaded = with_large(base.small).unwrap();
    let (a, b) = (
        base.small_lat.unwrap().p99_ns,
        loaded.small_lat.unwrap().p99_ns,
    );
    if a == 0 {
        return Vec::new();
    }
    let ratio = b as f64 / a as f64;
    let harm = ratio >= LARGE_HARM;
    let text = if harm {
        format!(
            "Large I/O destroys small-I/O latency: with {} outstanding 1 MiB I/O{} ({:.0} MB/s) the p99 of {} outstanding small I/Os goes from {} to {} (×{ratio:.1}) and their IOPS from {:.0} to {:.0}; keep backups and scans off this storage at peak, or give them their own",
            loaded.large,
            crate::kit::findings::plural(loaded.large),
            loaded.large_mbps,
            base.small,
            format_ns(a as f64),
            format_ns(b as f64),
            base.small_iops,
            loaded.small_iops
        )
    } else {
        format!(
            "Large I/O leaves small-I/O latency mostly alone: with {} outstanding 1 MiB I/O{} ({:.0} MB/s) the p99 of {} outstanding small I/Os goes from {} to {} (×{ratio:.1})",
            loaded.large,
            crate::kit::findings::plural(loaded.large),
            loaded.large_mbps,
            base.small,
            format_ns(a as f64),
            format_ns(b as f64)
        )
    };
    vec![finding(
        "matrix.large_impact",
        None,
        if harm {
            Severity::Warning
        } else {
            Severity::Info
        },
        text,
        vec![
            ev("outstanding small I/Os", f64::from(base.small), "I/Os"),
            ev("outstanding large I/Os", f64::from(loaded.large), "I/Os"),
            ev("small p99 without large I/O", a as f64, "ns"),
            ev("small p99 with large I/O", b as f64, "ns"),
            ev("large MB/s", loaded.large_mbps, "MB/s"),
        ],
        Some(doc("docs/matrix.md")),
    )]
}

/// A search target that not even one outstanding I/O meets.
fn unmet(m: &MatrixResult) -> Vec<Finding> {
    let Some(s) = &m.search else {
        return Vec::new();
    };
    if s.max_iops_outstanding.is_some() {
        return Vec::new();
    }
    let p99 = m
        .point(1, 0)
        .or_else(|| small_curve(m).into_iter().next())
        .and_then(|p| p.small_lat.map(|l| l.p99_ns as f64));
    vec![finding(
        "matrix.target_unmet",
        None,
        Severity::Warning,
        format!(
            "Not even one outstanding small I/O meets the p99 target of {}{}: this storage cannot serve that latency at any load",
            format_ns(s.max_latency_ns as f64),
            p99.map_or(String::new(), |x| format!(" (its p99 is {})", format_ns(x)))
        ),
        vec![ev("p99 target", s.max_latency_ns as f64, "ns")],
        Some(doc("docs/matrix.md")),
    )]
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::matrix::{MatrixConfig, MatrixSearch, PointLatency};

    fn p(small: u32, large: u32, iops: f64, mean_us: f64, p99_us: u64) -> MatrixPoint {
        MatrixPoint {
            small,
            large,
            small_iops: iops,
            large_mbps: if large > 0 { 200.0 } else { 0.0 },
            small_lat: (small > 0).then_some(PointLatency {
                mean_ns: mean_us * 1e3,
                p50_ns: (mean_us * 1e3) as u64,
                p99_ns: p99_us * 1000,
                p99_9_ns: p99_us * 2000,
            }),
            ..MatrixPoint::default()
        }
    }

    fn run(points: Vec<MatrixPoint>, search: Option<MatrixSearch>) -> Vec<Finding> {
        evaluate(&RunReport {
            matrix: Some(Box::new(MatrixResult {
                config: MatrixConfig::default(),
                points,
                search,
                ..MatrixResult::default()
            })),
            ..RunReport::default()
        })
    }

    /// 8 servers of 1 ms: IOPS 1000 n up to n = 8, then flat at 8000 with
    /// latency n / 8 ms: the knee is at 8 (8000 ≥ 90 % of 8000; 4 gives
    /// 4000), and each I/O beyond it costs 125 µs = 1 / 8000 IOPS.
    #[test]
    fn the_knee_and_the_cost_of_one_more_outstanding_io() {
        let f = run(
            vec![
                p(1, 0, 1000.0, 1000.0, 1500),
                p(4, 0, 4000.0, 1000.0, 1500),
                p(8, 0, 8000.0, 1000.0, 1500),
                p(16, 0, 8000.0, 2000.0, 3000),
                p(32, 0, 8000.0, 4000.0, 6000),
            ],
            None,
        );
        let k = f.iter().find(|f| f.rule == "matrix.knee").unwrap();
        assert!(
            k.text
                .starts_with("The knee is at 8 outstanding small I/Os (8000 IOPS"),
            "{}",
            k.text
        );
        let cost = k
            .evidence
            .iter()
            .find(|e| e.what.starts_with("mean latency per"))
            .unwrap();
        assert!((cost.value - 125_000.0).abs() < 1e-6, "{}", cost.value);
        let little = k
            .evidence
            .iter()
            .find(|e| e.what.starts_with("Little"))
            .unwrap();
        assert!((little.value - 125_000.0).abs() < 1e-6);
        // Just below the share: 7199 IOPS at 8 (< 90 % of 8000) moves the knee to 16.
        let f = run(
            vec![
                p(1, 0, 1000.0, 1000.0, 1500),
                p(8, 0, 7199.0, 1000.0, 1500),
                p(16, 0, 8000.0, 2000.0, 3000),
                p(32, 0, 8000.0, 4000.0, 6000),
            ],
            None,
        );
        assert!(f[0].text.starts_with("The knee is at 16 "), "{}", f[0].text);
    }

    /// IOPS past the knee fall (8000 at 8, 5920 at 16: -26 %): said as a
    /// fall, never as negative growth.
    #[test]
    fn iops_that_fall_past_the_knee_are_not_called_growth() {
        let f = run(
            vec![
                p(1, 0, 1000.0, 1000.0, 1500),
                p(8, 0, 8000.0, 1000.0, 1500),
                p(16, 0, 5920.0, 2700.0, 4000),
            ],
            None,
        );
        let k = f.iter().find(|f| f.rule == "matrix.knee").unwrap();
        assert!(k.text.contains("IOPS fall 26 %"), "{}", k.text);
        assert!(!k.text.contains("grow"), "{}", k.text);
        assert_eq!(growth_words(3.2), "grow only 3 %");
        assert_eq!(growth_words(0.4), "stay flat");
        assert_eq!(growth_words(-0.4), "stay flat");
        assert_eq!(growth_words(-26.0), "fall 26 %");
    }

    #[test]
    fn a_curve_still_climbing_has_no_knee() {
        let f = run(
            vec![
                p(1, 0, 1000.0, 1000.0, 1500),
                p(2, 0, 2000.0, 1000.0, 1500),
                p(4, 0, 4000.0, 1000.0, 1500),
            ],
            None,
        );
        assert_eq!(f[0].rule, "matrix.no_knee");
    }

    /// p99 at the knee's load doubles with large I/O: a warning; just
    /// under double: info.
    #[test]
    fn large_io_that_doubles_small_p99_is_a_warning() {
        let base = vec![
            p(1, 0, 1000.0, 1000.0, 1500),
            p(8, 0, 8000.0, 1000.0, 1000),
            p(16, 0, 8000.0, 2000.0, 3000),
        ];
        let mut a = base.clone();
        a.push(p(8, 2, 5000.0, 1600.0, 2000));
        let f = run(a, None);
        let w = f.iter().find(|f| f.rule == "matrix.large_impact").unwrap();
        assert_eq!(w.severity, Severity::Warning);
        assert!(w.text.contains("×2.0"), "{}", w.text);
        let mut b = base;
        b.push(p(8, 2, 7000.0, 1200.0, 1999));
        let f = run(b, None);
        let i = f.iter().find(|f| f.rule == "matrix.large_impact").unwrap();
        assert_eq!(i.severity, Severity::Info);
    }

    #[test]
    fn a_target_no_load_meets_is_a_warning() {
        let f = run(
            vec![p(1, 0, 1000.0, 1000.0, 1500)],
            Some(MatrixSearch {
                max_latency_ns: 1_000_000,
                ..MatrixSearch::default()
            }),
        );
        let w = f.iter().find(|f| f.rule == "matrix.target_unmet").unwrap();
        assert!(w.text.contains("(its p99 is 1.50 ms)"), "{}", w.text);
    }
}
