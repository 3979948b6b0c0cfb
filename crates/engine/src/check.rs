//! The `dbio check` battery and its plain-words reading.
//!
//! Five short tests answer "is this storage good for a database?": the
//! commit latency of 8 KiB sequential log writes with the two durability
//! methods databases use most (O_DIRECT+O_DSYNC, as Oracle's LGWR and
//! PostgreSQL's `open_datasync`; buffered + fdatasync, PostgreSQL's default
//! and InnoDB's `fsync` flush method), 8 KiB random-read latency
//! ('db file sequential read'), and 1 MiB sequential write and read
//! throughput (backups, full scans, checkpoints).

use crate::JobSpec;
use dbio_model::units::{format_ns, format_rate};
use dbio_model::{Durability, EngineKind, JobResult, Pattern, Prepare};
use std::path::Path;

/// Names of the battery's jobs.
pub mod names {
    /// Log writes, O_DIRECT + O_DSYNC.
    pub const LOG_DIRECT_DSYNC: &str = "log write 8k O_DIRECT+O_DSYNC";
    /// Log writes, buffered + fdatasync.
    pub const LOG_BUFFERED_FDATASYNC: &str = "log write 8k buffered+fdatasync";
    /// Random 8 KiB reads.
    pub const RANDREAD: &str = "random read 8k";
    /// Sequential 1 MiB writes.
    pub const SEQWRITE: &str = "sequential write 1m";
    /// Sequential 1 MiB reads.
    pub const SEQREAD: &str = "sequential read 1m";
}

/// The battery's jobs on a file of `size` bytes in `dir`, each measured for
/// `runtime_s`. Without O_DIRECT support (tmpfs), every job runs buffered.
pub fn battery(dir: &Path, runtime_s: f64, size: u64, direct_ok: bool) -> Vec<(String, JobSpec)> {
    let base = JobSpec {
        target: dir.to_path_buf(),
        size,
        prepare: Prepare::Prewrite,
        runtime_s: Some(runtime_s),
        ..JobSpec::default()
    };
    let log = JobSpec {
        rw: Pattern::Write,
        bs: 8192,
        ..base.clone()
    };
    let mut jobs = vec![
        (
            names::LOG_DIRECT_DSYNC,
            JobSpec {
                direct: direct_ok,
                sync: Durability::Dsync,
                ..log.clone()
            },
        ),
        (
            names::LOG_BUFFERED_FDATASYNC,
            JobSpec {
                sync: Durability::Fdatasync,
                ..log
            },
        ),
        (
            names::RANDREAD,
            JobSpec {
                rw: Pattern::Randread,
                bs: 8192,
                direct: direct_ok,
                ..base.clone()
            },
        ),
    ];
    let stream = JobSpec {
        bs: 1 << 20,
        engine: EngineKind::IoUring,
        iodepth: 4,
        direct: direct_ok,
        ..base
    };
    jobs.push((
        names::SEQWRITE,
        JobSpec {
            rw: Pattern::Write,
            ..stream.clone()
        },
    ));
    jobs.push((
        names::SEQREAD,
        JobSpec {
            rw: Pattern::Read,
            ..stream
        },
    ));
    jobs.into_iter().map(|(n, s)| (n.to_string(), s)).collect()
}

/// A verdict on commit latency for an OLTP log, from the p99.
fn commit_verdict(p99_ns: u64) -> &'static str {
    // Thresholds follow common OLTP guidance: Oracle flags 'log file
    // parallel write' above ~1 ms as slow for a busy system; above 10 ms
    // commits dominate response time in most applications.
    match p99_ns {
        0..=1_000_000 => "good for a commit-heavy database log",
        1_000_001..=10_000_000 => {
            "usable for a database log, but busy OLTP will notice the commit tail"
        }
        _ => "slow for a database log: commits will dominate response times",
    }
}

/// Writes each job's conclusion and returns the battery's overall lines.
pub fn conclude(jobs: &mut [JobResult]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut commit_means: Vec<(String, f64)> = Vec::new();
    for j in jobs.iter_mut() {
        let secs = j.runtime_ns as f64 / 1e9;
        let text = if let Some(c) = &j.commit {
            if c.count == 0 {
                continue;
            }
            commit_means.push((j.name.clone(), c.mean_ns));
            let per_commit_flush = j
                .device
                .as_ref()
                .and_then(|d| d.flushes)
                .map(|f| {
                    format!(
                        "; the device saw {:.2} cache flushes per commit",
                        f as f64 / c.count as f64
                    )
                })
                .unwrap_or_default();
            format!(
                "{}: a single session can commit at most about {:.0} times per second here (median {}, p99 {}){per_commit_flush}; {}",
                j.name,
                c.count as f64 / secs,
                format_ns(c.p50_ns() as f64),
                format_ns(c.p99_ns() as f64),
                commit_verdict(c.p99_ns())
            )
        } else if let (Some(r), Pattern::Randread) = (&j.read, j.job.rw) {
            let p50 = r.lat.p50_ns();
            let kind = if !j.job.direct {
                "buffered reads: this measures the page cache or memory, not a device"
            } else if p50 < 20_000 {
                "fast enough to be a cache in front of the device (RAM, host or controller cache)"
            } else if p50 < 300_000 {
                "solid-state class latency"
            } else if p50 < 2_000_000 {
                "network or virtualised storage class latency"
            } else {
                "spinning-disk class latency"
            };
            format!(
                "{}: a single-block read takes {} median, {} at p99 ({:.0} reads/s for one session); {kind}",
                j.name,
                format_ns(p50 as f64),
                format_ns(r.lat.p99_ns() as f64),
                r.iops
            )
        } else if let Some(w) = &j.write {
            format!(
                "{}: {} with {} in flight (p99 {} per 1 MiB write)",
                j.name,
                format_rate(w.bytes_per_sec),
                j.job.iodepth,
                format_ns(w.lat.p99_ns() as f64)
            )
        } else if let Some(r) = &j.read {
            format!(
                "{}: {} with {} in flight (p99 {} per 1 MiB read)",
                j.name,
                format_rate(r.bytes_per_sec),
                j.job.iodepth,
                format_ns(r.lat.p99_ns() as f64)
            )
        } else {
            continue;
        };
        j.conclusion = Some(text.clone());
        lines.push(text);
    }
    if commit_means.len() == 2 {
        let (fast, slow) = if commit_means[0].1 <= commit_means[1].1 {
            (&commit_means[0], &commit_means[1])
        } else {
            (&commit_means[1], &commit_means[0])
        };
        lines.push(format!(
            "The fastest commit method here is {} (mean {} against {} for {}).",
            fast.0.trim_start_matches("log write 8k "),
            format_ns(fast.1),
            format_ns(slow.1),
            slow.0.trim_start_matches("log write 8k ")
        ));
    }
    lines
}
