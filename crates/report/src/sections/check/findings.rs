//! The `dbio check` battery's five raw jobs in words: how often one session
//! can commit and whether the commit tail suits a database log, what class
//! of storage the random-read latency points to, the streaming throughput,
//! and the faster of the two commit methods.
//!
//! The thresholds are the ones `docs/GUIDE.md` states: a commit p99 up to
//! 1 ms is good for a commit-heavy log, up to 10 ms usable, beyond that
//! slow (Oracle counts 'log file parallel write' above about 1 ms as slow
//! on a busy system; above 10 ms commits dominate response times); random
//! read medians under 20 µs are a cache, under 300 µs solid state, under
//! 2 ms network or virtualised storage, else a spinning disk.

use crate::kit::findings::RuleSet;
use crate::kit::findings::{ev, finding, Finding, Severity};
use crate::kit::references::doc;
use dbio_model::units::{format_ns, format_rate};
use dbio_model::{Pattern, RunReport};

/// The battery's rules (the jobs of a `check` report).
pub const RULES: RuleSet<RunReport> = RuleSet {
    area: "check",
    evaluate,
};

/// Commit p99 up to this is good for a commit-heavy log, ns.
pub const COMMIT_GOOD_P99_NS: u64 = 1_000_000;
/// Commit p99 up to this is usable, ns; beyond, slow.
pub const COMMIT_USABLE_P99_NS: u64 = 10_000_000;
/// Random-read medians below this are a cache, ns.
pub const READ_CACHE_P50_NS: u64 = 20_000;
/// ... below this solid state, ns.
pub const READ_SSD_P50_NS: u64 = 300_000;
/// ... below this network or virtualised storage, ns; else spinning disk.
pub const READ_NETWORK_P50_NS: u64 = 2_000_000;

/// The verdict on commit latency from the p99, and its severity.
pub fn commit_verdict(p99_ns: u64) -> (&'static str, Severity) {
    if p99_ns <= COMMIT_GOOD_P99_NS {
        ("good for a commit-heavy database log", Severity::Info)
    } else if p99_ns <= COMMIT_USABLE_P99_NS {
        (
            "usable for a database log, but busy OLTP will notice the commit tail",
            Severity::Notice,
        )
    } else {
        (
            "slow for a database log: commits will dominate response times",
            Severity::Warning,
        )
    }
}

/// The storage class a random-read median points to.
pub fn read_class(direct: bool, p50_ns: u64) -> &'static str {
    if !direct {
        "buffered reads: this measures the page cache or memory, not a device"
    } else if p50_ns < READ_CACHE_P50_NS {
        "fast enough to be a cache in front of the device (RAM, host or controller cache)"
    } else if p50_ns < READ_SSD_P50_NS {
        "solid-state class latency"
    } else if p50_ns < READ_NETWORK_P50_NS {
        "network or virtualised storage class latency"
    } else {
        "spinning-disk class latency"
    }
}

fn evaluate(r: &RunReport) -> Vec<Finding> {
    if r.command != "check" {
        return Vec::new();
    }
    let guide = || Some(doc("docs/GUIDE.md"));
    let mut out = Vec::new();
    let mut commit_means: Vec<(&str, f64)> = Vec::new();
    for j in &r.jobs {
        let secs = j.runtime_ns.max(1) as f64 / 1e9;
        let name = Some(j.name.as_str());
        if let Some(c) = &j.commit {
            if c.count == 0 {
                continue;
            }
            commit_means.push((&j.name, c.mean_ns));
            let rate = c.count as f64 / secs;
            let mut evidence = vec![
                ev("commits per second", rate, "ops/s"),
                ev("median commit", c.p50_ns() as f64, "ns"),
                ev("p99 commit", c.p99_ns() as f64, "ns"),
            ];
            let flushes = j.device.as_ref().and_then(|d| d.flushes);
            let per_commit_flush = flushes
                .map(|f| {
                    let per = f as f64 / c.count as f64;
                    evidence.push(ev("cache flushes per commit", per, "count"));
                    format!("; the device saw {per:.2} cache flushes per commit")
                })
                .unwrap_or_default();
            let (verdict, severity) = commit_verdict(c.p99_ns());
            out.push(finding(
                "check.commit_rate",
                name,
                severity,
                format!(
                    "{}: a single session can commit at most about {rate:.0} times per second here (median {}, p99 {}){per_commit_flush}; {verdict}",
                    j.name,
                    format_ns(c.p50_ns() as f64),
                    format_ns(c.p99_ns() as f64),
                ),
                evidence,
                guide(),
            ));
        } else if let (Some(rd), Pattern::Randread) = (&j.read, j.job.rw) {
            let p50 = rd.lat.p50_ns();
            let kind = read_class(j.job.direct, p50);
            out.push(finding(
                "check.random_read",
                name,
                if j.job.direct {
                    Severity::Info
                } else {
                    Severity::Notice
                },
                format!(
                    "{}: a single-block read takes {} median, {} at p99 ({:.0} reads/s for one session); {kind}",
                    j.name,
                    format_ns(p50 as f64),
                    format_ns(rd.lat.p99_ns() as f64),
                    rd.iops
                ),
                vec![
                    ev("median read", p50 as f64, "ns"),
                    ev("p99 read", rd.lat.p99_ns() as f64, "ns"),
                    ev("reads per second", rd.iops, "ops/s"),
                ],
                guide(),
            ));
        } else if let Some((s, what)) = j
            .write
            .as_ref()
            .map(|w| (w, "write"))
            .or_else(|| j.read.as_ref().map(|r| (r, "read")))
        {
            out.push(finding(
                "check.throughput",
                name,
                Severity::Info,
                format!(
                    "{}: {} with {} in flight (p99 {} per 1 MiB {what})",
                    j.name,
                    format_rate(s.bytes_per_sec),
                    j.job.iodepth,
                    format_ns(s.lat.p99_ns() as f64)
                ),
                vec![
                    ev("throughput", s.bytes_per_sec, "bytes/s"),
                    ev("in flight", j.job.iodepth as f64, "count"),
                    ev(&format!("p99 {what}"), s.lat.p99_ns() as f64, "ns"),
                ],
                guide(),
            ));
        }
    }
    if let [a, b] = commit_means[..] {
        let (fast, slow) = if a.1 <= b.1 { (a, b) } else { (b, a) };
        out.push(finding(
            "check.commit_method",
            None,
            Severity::Info,
            format!(
                "The fastest commit method here is {} (mean {} against {} for {}).",
                fast.0.trim_start_matches("log write 8k "),
                format_ns(fast.1),
                format_ns(slow.1),
                slow.0.trim_start_matches("log write 8k ")
            ),
            vec![
                ev(&format!("mean commit, {}", fast.0), fast.1, "ns"),
                ev(&format!("mean commit, {}", slow.0), slow.1, "ns"),
            ],
            guide(),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::{
        CpuUsage, Durability, EngineKind, JobConfig, JobResult, LatencySummary, OpStats, Prepare,
    };

    fn job(name: &str, rw: Pattern, direct: bool) -> JobResult {
        JobResult {
            name: name.into(),
            job: JobConfig {
                engine: EngineKind::Psync,
                rw,
                read_pct: 0,
                bs: 8192,
                iodepth: 1,
                iodepth_batch: 1,
                direct,
                sync: Durability::None,
                threads: 1,
                size: 1 << 20,
                prepare: Prepare::Prewrite,
                runtime_ns: Some(1_000_000_000),
                ops_limit: None,
                warmup_ns: 0,
                rate_iops: None,
                seed: 0,
                null_delay_ns: 0,
            },
            target: String::new(),
            runtime_ns: 1_000_000_000,
            read: None,
            write: None,
            sync: None,
            commit: None,
            cpu: CpuUsage::default(),
            device: None,
            cached_before: None,
            cached_after: None,
            series: Vec::new(),
            started_at_unix_ns: None,
            stripe: None,
            block_device: false,
        }
    }

    fn lat(ns: u64) -> LatencySummary {
        let mut h = hdrhistogram::Histogram::<u64>::new(3).unwrap();
        for _ in 0..100 {
            h.record(ns).unwrap();
        }
        LatencySummary::from_histogram(&h)
    }

    fn commit_job(name: &str, ns: u64) -> JobResult {
        JobResult {
            commit: Some(lat(ns)),
            ..job(name, Pattern::Write, true)
        }
    }

    fn check(jobs: Vec<JobResult>) -> RunReport {
        RunReport {
            command: "check".into(),
            jobs,
            ..Default::default()
        }
    }

    #[test]
    fn commit_verdict_changes_at_1_ms_and_10_ms() {
        assert_eq!(commit_verdict(1_000_000).1, Severity::Info);
        assert_eq!(commit_verdict(1_000_001).1, Severity::Notice);
        assert_eq!(commit_verdict(10_000_000).1, Severity::Notice);
        assert_eq!(commit_verdict(10_000_001).1, Severity::Warning);
        // Through a whole report: 990 µs and 1.01 ms (the histogram keeps
        // three significant digits).
        for (ns, sev, words) in [
            (990_000, Severity::Info, "good for a commit-heavy"),
            (1_010_000, Severity::Notice, "usable for a database log"),
            (9_900_000, Severity::Notice, "usable for a database log"),
            (10_100_000, Severity::Warning, "slow for a database log"),
        ] {
            let f = evaluate(&check(vec![commit_job("log write 8k x", ns)]));
            assert_eq!(f.len(), 1);
            assert_eq!(f[0].severity, sev, "{ns}");
            assert!(f[0].text.contains(words), "{}", f[0].text);
            assert!(
                f[0].text
                    .contains("a single session can commit at most about 100 times per second"),
                "{}",
                f[0].text
            );
            assert_eq!(f[0].evidence[0].value, 100.0);
            assert_eq!(f[0].subject.as_deref(), Some("log write 8k x"));
        }
    }

    #[test]
    fn read_class_changes_at_each_boundary() {
        for (ns, words) in [
            (19_999, "cache in front of the device"),
            (20_000, "solid-state"),
            (299_999, "solid-state"),
            (300_000, "network or virtualised"),
            (1_999_999, "network or virtualised"),
            (2_000_000, "spinning-disk"),
        ] {
            assert!(read_class(true, ns).contains(words), "{ns}");
        }
        assert!(read_class(false, 1).contains("buffered reads"));
        let j = JobResult {
            read: Some(OpStats {
                lat: lat(250_000),
                iops: 4000.0,
                ..Default::default()
            }),
            ..job("random read 8k", Pattern::Randread, true)
        };
        let f = evaluate(&check(vec![j]));
        assert!(
            f[0].text.contains("solid-state class latency"),
            "{}",
            f[0].text
        );
        assert_eq!(f[0].rule, "check.random_read");
    }

    #[test]
    fn streaming_jobs_read_as_throughput() {
        let j = JobResult {
            write: Some(OpStats {
                lat: lat(2_000_000),
                bytes_per_sec: 1_073_741_824.0,
                ..Default::default()
            }),
            ..job("sequential write 1m", Pattern::Write, true)
        };
        let f = evaluate(&check(vec![j]));
        assert_eq!(f[0].rule, "check.throughput");
        assert!(
            f[0].text.starts_with(
                "sequential write 1m: 1.00 GiB/s with 1 in flight (p99 2.00 ms per 1 MiB write)"
            ),
            "{}",
            f[0].text
        );
        assert_eq!(f[0].evidence[0].unit, "bytes/s");
    }

    #[test]
    fn the_faster_commit_method_is_named_only_with_both() {
        let one = check(vec![commit_job("log write 8k A", 2_000_000)]);
        assert_eq!(evaluate(&one).len(), 1);
        let two = check(vec![
            commit_job("log write 8k A", 2_000_000),
            commit_job("log write 8k B", 1_000_000),
        ]);
        let f = evaluate(&two);
        assert_eq!(f.len(), 3);
        assert!(
            f[2].text
                .starts_with("The fastest commit method here is B (mean"),
            "{}",
            f[2].text
        );
        // The other order names the other method.
        let two = check(vec![
            commit_job("log write 8k A", 1_000_000),
            commit_job("log write 8k B", 2_000_000),
        ]);
        assert!(evaluate(&two)[2]
            .text
            .starts_with("The fastest commit method here is A (mean"));
        // Not a check report: nothing.
        let bench = RunReport {
            command: "bench".into(),
            ..two
        };
        assert!(evaluate(&bench).is_empty());
    }
}
