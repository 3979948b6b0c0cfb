//! `dbio bench`'s jobs in words: each job's rate and latency with the
//! class of storage it points to (a commit's p99 against what a database
//! log needs, a random read's median against the storage classes), its
//! tail, and durable writes on storage that cannot keep them.
//!
//! The classes are the kit's ([`crate::kit::classes`]); the tail rule is
//! fio users' first look after the median: a p99.9 ten times the median
//! is a stall a database session will feel, whatever the mean says.

use crate::kit::classes::{commit_verdict, read_class};
use crate::kit::findings::{ev, finding, Finding, RuleSet, Severity};
use crate::kit::references::doc;
use dbio_model::units::{format_bytes, format_count_rate, format_ns, format_rate};
use dbio_model::{Durability, JobResult, OpStats, RunReport};

/// The jobs' rules (the raw jobs of `dbio bench`).
pub const RULES: RuleSet<RunReport> = RuleSet {
    area: "bench",
    evaluate,
};

/// A tail at or above this many medians (p99.9 / p50) is called out.
pub const TAIL_FACTOR: f64 = 10.0;

/// Blocks from this size on are judged by throughput, not latency.
pub const STREAMING_BS: u64 = 256 << 10;

fn evaluate(r: &RunReport) -> Vec<Finding> {
    if r.command != "bench" {
        return Vec::new();
    }
    let mut out = Vec::new();
    if let Some(why) = r.environment.non_durable_reason() {
        if let Some(j) = r
            .jobs
            .iter()
            .find(|j| j.commit.is_some() || j.job.sync != Durability::None)
        {
            out.push(finding(
                "bench.non_durable",
                Some(&j.name),
                Severity::Warning,
                format!("Not durable storage: {why}; its durable-write figures are memory's"),
                Vec::new(),
                Some(doc("docs/GUIDE.md")),
            ));
        }
    }
    for j in &r.jobs {
        out.extend(job(j));
        out.extend(tail(j));
    }
    out
}

/// The job's main figure: commits for a job with a commit, throughput for
/// large blocks, else the rate and latency of its reads or writes.
fn main_op(j: &JobResult) -> Option<(&'static str, &OpStats)> {
    j.read
        .as_ref()
        .filter(|s| s.ops > 0)
        .map(|s| ("read", s))
        .or_else(|| j.write.as_ref().filter(|s| s.ops > 0).map(|s| ("write", s)))
}

fn job(j: &JobResult) -> Option<Finding> {
    let subject = Some(j.name.as_str());
    let source = Some(doc("docs/GUIDE.md"));
    if let Some(c) = j.commit.as_ref().filter(|c| c.count > 0) {
        let rate = c.count as f64 / (j.runtime_ns.max(1) as f64 / 1e9);
        let (verdict, severity) = commit_verdict(c.p99_ns());
        return Some(finding(
            "bench.commit",
            subject,
            severity,
            format!(
                "{}: {} commits/s, median {}, p99 {} (write + its sync): {verdict}",
                j.name,
                format_count_rate(rate),
                format_ns(c.p50_ns() as f64),
                format_ns(c.p99_ns() as f64)
            ),
            vec![
                ev("commits per second", rate, "ops/s"),
                ev("median commit", c.p50_ns() as f64, "ns"),
                ev("p99 commit", c.p99_ns() as f64, "ns"),
            ],
            source,
        ));
    }
    let (what, s) = main_op(j)?;
    if j.job.bs >= STREAMING_BS {
        return Some(finding(
            "bench.throughput",
            subject,
            Severity::Info,
            format!(
                "{}: {} in {} {what}s with {} in flight (p99 {})",
                j.name,
                format_rate(s.bytes_per_sec),
                format_bytes(j.job.bs),
                j.job.iodepth * j.job.threads,
                format_ns(s.lat.p99_ns() as f64)
            ),
            vec![
                ev("throughput", s.bytes_per_sec, "bytes/s"),
                ev(&format!("p99 {what}"), s.lat.p99_ns() as f64, "ns"),
            ],
            source,
        ));
    }
    let class = if what == "read" && j.job.rw.is_random() {
        format!(": {}", read_class(j.job.direct, s.lat.p50_ns()))
    } else if !j.job.direct && j.job.sync == Durability::None {
        ": buffered, so this is the page cache's speed, not the device's".to_string()
    } else {
        String::new()
    };
    Some(finding(
        "bench.latency",
        subject,
        if j.job.direct || j.job.sync != Durability::None {
            Severity::Info
        } else {
            Severity::Notice
        },
        format!(
            "{}: {} {what}s/s, median {}, p99 {} with {} in flight{class}",
            j.name,
            format_count_rate(s.iops),
            format_ns(s.lat.p50_ns() as f64),
            format_ns(s.lat.p99_ns() as f64),
            j.job.iodepth * j.job.threads
        ),
        vec![
            ev(&format!("{what}s per second"), s.iops, "ops/s"),
            ev(&format!("median {what}"), s.lat.p50_ns() as f64, "ns"),
            ev(&format!("p99 {what}"), s.lat.p99_ns() as f64, "ns"),
        ],
        source,
    ))
}

/// A p99.9 at or above [`TAIL_FACTOR`] medians.
fn tail(j: &JobResult) -> Option<Finding> {
    let (what, lat) = match j.commit.as_ref().filter(|c| c.count > 0) {
        Some(c) => ("commit", c),
        None => {
            let (what, s) = main_op(j)?;
            (what, &s.lat)
        }
    };
    let p50 = lat.p50_ns() as f64;
    let p999 = lat.percentile_ns(99.9)? as f64;
    let factor = p999 / p50.max(1.0);
    (lat.count >= 1000 && factor >= TAIL_FACTOR).then(|| {
        finding(
            "bench.tail",
            Some(&j.name),
            Severity::Notice,
            format!(
                "{}: one {what} in a thousand takes {} or more, {factor:.0}x the median ({}): a stall a database session feels, whatever the mean says",
                j.name,
                format_ns(p999),
                format_ns(p50)
            ),
            vec![
                ev(&format!("p99.9 {what}"), p999, "ns"),
                ev(&format!("median {what}"), p50, "ns"),
                ev("p99.9 / median", factor, "x"),
            ],
            Some(doc("docs/GUIDE.md")),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::{LatencySummary, Pattern};

    fn lat(values: &[(u64, u64)]) -> LatencySummary {
        let mut h = hdrhistogram::Histogram::<u64>::new(3).unwrap();
        for &(ns, n) in values {
            h.record_n(ns, n).unwrap();
        }
        LatencySummary::from_histogram(&h)
    }

    fn bench(j: JobResult) -> RunReport {
        RunReport {
            command: "bench".into(),
            jobs: vec![j],
            ..Default::default()
        }
    }

    fn randread(p50_ns: u64, direct: bool) -> JobResult {
        JobResult {
            read: Some(OpStats {
                ops: 1000,
                iops: 10_000.0,
                lat: lat(&[(p50_ns, 1000)]),
                ..Default::default()
            }),
            ..crate::kit::fixtures::job("randread 8k", Pattern::Randread, direct)
        }
    }

    #[test]
    fn a_random_read_is_classed_by_its_median() {
        let f = evaluate(&bench(randread(250_000, true)));
        assert_eq!(f.len(), 1, "{f:?}");
        assert_eq!(f[0].rule, "bench.latency");
        assert_eq!(
            f[0].text,
            "randread 8k: 10.0 k reads/s, median 250 µs, p99 250 µs with 1 in flight: solid-state class latency"
        );
        let f = evaluate(&bench(randread(2_000, false)));
        assert_eq!(f[0].severity, Severity::Notice);
        assert!(f[0]
            .text
            .ends_with("buffered reads: this measures the page cache or memory, not a device"));
        assert!(evaluate(&RunReport {
            command: "check".into(),
            ..bench(randread(1, true))
        })
        .is_empty());
    }

    #[test]
    fn a_tail_of_ten_medians_is_called_out_and_nine_is_not() {
        let mut j = randread(100_000, true);
        // 998 reads at 100 µs, 2 at 1 ms: p99.9 is 1 ms, ten medians.
        j.read.as_mut().unwrap().lat = lat(&[(100_000, 998), (1_000_000, 2)]);
        let f = evaluate(&bench(j.clone()));
        assert_eq!(f[1].rule, "bench.tail", "{f:?}");
        assert!(f[1].text.contains("10x the median"), "{}", f[1].text);
        j.read.as_mut().unwrap().lat = lat(&[(100_000, 998), (900_000, 2)]);
        assert_eq!(evaluate(&bench(j)).len(), 1);
    }

    #[test]
    fn a_commit_job_is_judged_as_a_log_and_memory_is_not_durable() {
        let mut j = randread(1, true);
        j.read = None;
        j.name = "log".into();
        j.commit = Some(lat(&[(50_000, 100)]));
        j.runtime_ns = 1_000_000_000;
        let mut r = bench(j);
        let f = evaluate(&r);
        assert_eq!(f[0].rule, "bench.commit");
        assert!(
            f[0].text.ends_with("good for a commit-heavy database log"),
            "{}",
            f[0].text
        );
        r.environment.fs_type = "tmpfs".into();
        let f = evaluate(&r);
        assert_eq!(f[0].rule, "bench.non_durable");
    }
}
