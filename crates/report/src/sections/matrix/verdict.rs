//! The answer a load matrix gives: what this storage serves a database
//! under load. With `--max-latency`, CALIBRATE_IO's figures (the most
//! small IOPS whose p99 kept under the target, at the point that reached
//! them, and the most large-I/O MB/s); without, the knee of the small-I/O
//! curve. A search cut short, or a target no load meets, says so.

use super::findings::knee_point;
use crate::verdict::{top, TOP};
use dbio_model::matrix::MatrixResult;
use dbio_model::units::format_ns;
use dbio_model::{Finding, RunReport, Verdict, VerdictClass};

/// The verdict of `r`'s matrix, with `fs` its ranked findings.
pub fn verdict(r: &RunReport, fs: &[Finding]) -> Option<Verdict> {
    let m = r.matrix.as_deref()?;
    Some(answer(m, fs))
}

/// The answer of one matrix.
pub fn answer(m: &MatrixResult, fs: &[Finding]) -> Verdict {
    let question = format!(
        "What does {} serve a database under load? (dbio matrix)",
        m.target
    );
    let mut class = VerdictClass::Capability;
    let mut answer = match (&m.search, &m.no_answer) {
        (Some(_), Some(why)) | (None, Some(why)) => {
            class = VerdictClass::Inconclusive;
            format!("the search did not finish ({why}): the highest load under the target is not known")
        }
        (Some(s), None) => match m.search_max() {
            Some((iops, n, p99)) => format!(
                "{iops:.0} small IOPS with a p99 under {} (reached at {n} outstanding{}); {:.1} MB/s of large I/O at {} outstanding{}",
                format_ns(s.max_latency_ns as f64),
                p99.map_or(String::new(), |x| format!(", p99 {}", format_ns(x as f64))),
                s.max_mbps,
                s.max_mbps_outstanding,
                s.latency_at_one_ns.map_or(String::new(), |l| format!(
                    "; one outstanding I/O takes {} on average",
                    format_ns(l)
                ))
            ),
            None => format!(
                "no load meets a small-I/O p99 of {}: not even one outstanding I/O keeps under it",
                format_ns(s.max_latency_ns as f64)
            ),
        },
        (None, None) => match knee_point(m) {
            Some(k) => format!(
                "small I/O saturates at about {:.0} IOPS: the knee is at {} outstanding (p99 {}); deeper queues add latency, not IOPS",
                k.small_iops,
                k.small,
                k.small_lat.map_or("-".into(), |l| format_ns(l.p99_ns as f64))
            ),
            None => match m
                .points
                .iter()
                .filter(|p| p.large == 0 && p.small > 0)
                .max_by_key(|p| p.small)
            {
                Some(p) => format!(
                    "small I/O had not saturated at the top of the ladder: {:.0} IOPS at {} outstanding",
                    p.small_iops, p.small
                ),
                None => {
                    class = VerdictClass::Inconclusive;
                    "no small-I/O point was measured".into()
                }
            },
        },
    };
    // Large I/O that doubles small-I/O latency is part of the answer.
    if fs
        .iter()
        .any(|f| f.rule == "matrix.large_impact" && f.severity == dbio_model::Severity::Warning)
    {
        answer.push_str("; large I/O at least doubles small-I/O p99 (see below)");
    }
    Verdict {
        question,
        class,
        answer,
        top: top(fs, TOP),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::matrix::{MatrixPoint, MatrixSearch, PointLatency};

    fn p(small: u32, iops: f64, p99_us: u64) -> MatrixPoint {
        MatrixPoint {
            small,
            small_iops: iops,
            small_lat: Some(PointLatency {
                mean_ns: 1.0,
                p50_ns: 1,
                p99_ns: p99_us * 1000,
                p99_9_ns: p99_us * 1000,
            }),
            ..Default::default()
        }
    }

    /// A result saved before the fix: the search names 216 outstanding
    /// (the highest under 5 ms) with 208's IOPS; the answer, the table
    /// and the page read 208 and its own p99 from the points.
    #[test]
    fn max_iops_is_told_at_the_point_that_reached_it() {
        let m = MatrixResult {
            target: "/dev/nvme0n1".into(),
            config: dbio_model::matrix::MatrixConfig {
                max_latency_ns: Some(5_000_000),
                ..Default::default()
            },
            points: vec![
                p(1, 9_000.0, 150),
                p(208, 120_772.0, 4_600),
                p(216, 89_000.0, 4_780),
            ],
            search: Some(MatrixSearch {
                max_latency_ns: 5_000_000,
                max_iops_outstanding: Some(216),
                max_iops: 120_772.0,
                max_iops_p99_ns: Some(4_780_000),
                max_mbps: 2000.0,
                max_mbps_outstanding: 4,
                latency_at_one_ns: Some(100_000.0),
                skipped_points: 0,
            }),
            ..Default::default()
        };
        let v = answer(&m, &[]);
        assert_eq!(v.class, VerdictClass::Capability);
        assert!(
            v.answer
                .starts_with("120772 small IOPS with a p99 under 5.00 ms (reached at 208 outstanding, p99 4.60 ms)"),
            "{}",
            v.answer
        );
        let r = RunReport {
            matrix: Some(Box::new(m.clone())),
            ..Default::default()
        };
        let t = super::super::table::render(&r);
        assert!(
            t.contains("max IOPS 120772 at 208 outstanding, p99 4.60 ms"),
            "{t}"
        );
        let h = super::super::html::section(&m);
        assert!(
            h.contains("120772 at 208 outstanding small I/Os (p99 4.60 ms)"),
            "{h}"
        );
        // A target no load meets; a search cut short.
        let mut none = m.clone();
        none.points = vec![p(1, 9_000.0, 6_000)];
        none.search.as_mut().unwrap().max_iops_outstanding = None;
        assert!(answer(&none, &[]).answer.starts_with("no load meets"));
        let mut cut = m;
        cut.no_answer = Some("SIGINT arrived".into());
        assert_eq!(answer(&cut, &[]).class, VerdictClass::Inconclusive);
    }

    #[test]
    fn without_a_search_the_knee_answers() {
        let m = MatrixResult {
            target: "/data".into(),
            points: vec![p(1, 1000.0, 100), p(8, 8000.0, 1500), p(16, 7900.0, 3000)],
            ..Default::default()
        };
        let v = answer(&m, &[]);
        assert!(
            v.answer
                .contains("the knee is at 8 outstanding (p99 1.50 ms)"),
            "{}",
            v.answer
        );
    }
}
