//! An AWR or Statspack report's answer: is the storage what this DB time
//! is made of?
//!
//! The answer reads DB time as ADDM does, by share, grouping the
//! foreground waits by Oracle's wait classes ([`super::db_time`]):
//!
//! * User I/O and System I/O waits at half of DB time or more:
//!   storage-bound, unless their average is under the page-cache
//!   threshold (then the reads were served from memory);
//! * 'log file sync' at half or more: the commit path when it is far
//!   above 'log file parallel write' (not the log device), the log device
//!   when it is close to it, inconclusive without the log writer's figure;
//! * DB CPU at half or more: CPU;
//! * I/O waits under a tenth, or any other component at half or more:
//!   not the storage;
//! * else mixed.

use super::db_time;
use super::findings::{tier_of, LFS_LFPW_RATIO};
use crate::sections::trace::findings::{LatencyTier, COMPONENT_SHARE};
use crate::verdict::{top, TOP};
use dbio_model::awr::AwrReport;
use dbio_model::units::format_ns;
use dbio_model::{Verdict, VerdictClass};

/// From this share of DB time (percent) one kind of time dominates.
pub const DOMINANT: f64 = 50.0;

/// The question a report answers, naming the database and its DB time.
pub fn question(a: &AwrReport) -> String {
    let db = a.header.db_name.as_deref().unwrap_or("the database");
    match a.header.db_time_s {
        Some(s) => format!("Is it the storage? {db}, DB time {s:.1} s"),
        None => format!("Is it the storage? {db}"),
    }
}

fn us(v: f64) -> String {
    format_ns(v * 1000.0)
}

/// The class and answer sentence of a report: a pure function of its
/// DB time split and derived figures.
pub fn answer(a: &AwrReport) -> (VerdictClass, String) {
    let Some(d) = db_time::of(a) else {
        return (
            VerdictClass::Inconclusive,
            "Inconclusive: the report gives no DB time to split into CPU and waits.".into(),
        );
    };
    let io = d.io_pct();
    let commit = d.commit_pct();
    let cpu = d.cpu_pct;
    let cpu_words = if d.cpu_s.is_some() {
        format!("DB CPU {cpu:.1} %")
    } else {
        "DB CPU not given".to_string()
    };
    let largest_io = d.top_io().map_or_else(String::new, |e| {
        format!(
            " ('{}' {:.1} %{})",
            e.name,
            e.pct,
            e.avg_us
                .map_or_else(String::new, |a| format!(" at {} per wait", us(a)))
        )
    });
    if io >= DOMINANT {
        let avg = d.io_avg_us();
        return match avg.map(|v| (v, tier_of(a, v))) {
            Some((v, LatencyTier::PageCache)) => (
                VerdictClass::PageCache,
                format!(
                    "Served from memory: I/O waits are {io:.1} % of DB time{largest_io}, but at {} per wait on average they are as fast as the OS page cache, not the storage.",
                    us(v)
                ),
            ),
            Some((v, tier)) => (
                VerdictClass::StorageBound,
                format!(
                    "Storage-bound: I/O waits are {io:.1} % of DB time{largest_io}, {} per wait on average, {}; {cpu_words}.",
                    us(v),
                    tier.words()
                ),
            ),
            None => (
                VerdictClass::StorageBound,
                format!("Storage-bound: I/O waits are {io:.1} % of DB time{largest_io}; {cpu_words}."),
            ),
        };
    }
    if commit >= DOMINANT {
        let dv = &a.derived;
        let head = format!(
            "'log file sync' is {commit:.1} % of DB time{}",
            dv.log_file_sync_us
                .map_or_else(String::new, |v| format!(" at {} per commit", us(v)))
        );
        return match (dv.log_file_parallel_write_us, dv.lfs_lfpw_ratio) {
            (Some(w), Some(ratio)) if ratio >= LFS_LFPW_RATIO => (
                VerdictClass::CommitPath,
                format!(
                    "Commit path, not the log device: {head}, {ratio:.1}x the log writer's {} write ('log file parallel write'); the time is posting and scheduling the log writer.",
                    us(w)
                ),
            ),
            (Some(w), Some(ratio)) => (
                VerdictClass::StorageBound,
                format!(
                    "Storage-bound on the log: {head}, and 'log file parallel write' takes {} of it ({ratio:.1}x): the log device's write latency.",
                    us(w)
                ),
            ),
            _ => (
                VerdictClass::Inconclusive,
                format!("Commits: {head}; the report has no 'log file parallel write' to tell the log device from the log writer's scheduling."),
            ),
        };
    }
    let host = a.derived.host_cpu_busy_pct.map_or_else(String::new, |b| {
        format!("; the host's CPUs were {b:.1} % busy")
    });
    if cpu >= DOMINANT {
        return (
            VerdictClass::Cpu,
            format!("CPU: DB CPU is {cpu:.1} % of DB time; I/O waits {io:.1} %{largest_io}{host}."),
        );
    }
    let other = d
        .events
        .iter()
        .find(|e| !e.class.is_io() && e.pct >= DOMINANT)
        .map(|e| format!("; '{}' is {:.1} %", e.name, e.pct))
        .unwrap_or_default();
    let rest = d.rest_pct();
    let rest_words = if d.whole && d.cpu_s.is_some() && rest >= COMPONENT_SHARE {
        format!("; {rest:.1} % is neither CPU nor a wait")
    } else {
        String::new()
    };
    if io < COMPONENT_SHARE || !other.is_empty() {
        return (
            VerdictClass::NotStorage,
            format!(
                "Not the storage: I/O waits are {io:.1} % of DB time{largest_io}; {cpu_words}{other}{rest_words}."
            ),
        );
    }
    (
        VerdictClass::Mixed,
        format!("Mixed: I/O waits are {io:.1} % of DB time{largest_io}; {cpu_words}{rest_words}."),
    )
}

/// The verdict of a ranked report analysis.
pub fn verdict(a: &AwrReport) -> Option<Verdict> {
    let (class, answer) = answer(a);
    Some(Verdict {
        question: question(a),
        class,
        answer,
        top: top(&a.findings, TOP),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::awr::{AwrDerived, WaitEventRow};

    /// A report of 1000 s of DB time: `cpu_s` of DB CPU and the given
    /// foreground events (name, waits, seconds).
    fn report(cpu_s: f64, events: &[(&str, f64, f64)], d: AwrDerived) -> AwrReport {
        let mut r = AwrReport::default();
        r.header.db_time_s = Some(1000.0);
        r.top_events.push(WaitEventRow {
            name: "DB CPU".into(),
            time_s: Some(cpu_s),
            ..Default::default()
        });
        for &(name, waits, t) in events {
            r.foreground_events.push(WaitEventRow {
                name: name.into(),
                waits: Some(waits),
                time_s: Some(t),
                ..Default::default()
            });
        }
        r.derived = d;
        r
    }

    fn concluded(mut r: AwrReport) -> Verdict {
        crate::verdict::conclude_awr(&mut r);
        let v = r.verdict.clone().unwrap();
        assert!(!v.top.is_empty(), "{v:?}");
        v
    }

    #[test]
    fn device_latency_reads_are_storage_bound() {
        // 100 k reads of 8 ms: 800 s of 1000.
        let v = concluded(report(
            150.0,
            &[("db file sequential read", 100_000.0, 800.0)],
            AwrDerived::default(),
        ));
        assert_eq!(v.class, VerdictClass::StorageBound);
        assert!(v.answer.starts_with("Storage-bound: I/O waits are 80.0 % of DB time ('db file sequential read' 80.0 % at 8.00 ms per wait), 8.00 ms per wait on average, device latency"), "{}", v.answer);
    }

    #[test]
    fn reads_at_memory_speed_are_served_from_memory() {
        // 10 M reads of 60 µs: 600 s.
        let v = concluded(report(
            300.0,
            &[("db file sequential read", 10_000_000.0, 600.0)],
            AwrDerived::default(),
        ));
        assert_eq!(v.class, VerdictClass::PageCache);
    }

    #[test]
    fn db_cpu_dominating_is_cpu() {
        let v = concluded(report(
            700.0,
            &[("db file sequential read", 10_000.0, 30.0)],
            AwrDerived {
                host_cpu_busy_pct: Some(85.0),
                ..Default::default()
            },
        ));
        assert_eq!(v.class, VerdictClass::Cpu);
        assert!(
            v.answer
                .starts_with("CPU: DB CPU is 70.0 % of DB time; I/O waits 3.0 %"),
            "{}",
            v.answer
        );
    }

    #[test]
    fn commits_far_above_the_log_write_are_the_commit_path() {
        let d = |lfpw: f64| AwrDerived {
            log_file_sync_us: Some(2000.0),
            log_file_parallel_write_us: Some(lfpw),
            lfs_lfpw_ratio: Some(2000.0 / lfpw),
            ..Default::default()
        };
        let ev = [("log file sync", 300_000.0, 600.0)];
        let v = concluded(report(200.0, &ev, d(200.0)));
        assert_eq!(v.class, VerdictClass::CommitPath);
        assert!(
            v.answer.contains("10.0x the log writer's 200 µs write"),
            "{}",
            v.answer
        );
        assert_eq!(
            concluded(report(200.0, &ev, d(1800.0))).class,
            VerdictClass::StorageBound
        );
    }

    #[test]
    fn a_healthy_report_gets_a_verdict_too() {
        // The shared AIX fixture's shape: DB CPU 31 %, I/O waits 1.2 %.
        let v = concluded(report(
            310.0,
            &[
                ("db file sequential read", 100_000.0, 10.0),
                ("log file sync", 20_000.0, 7.0),
                ("control file sequential read", 1000.0, 2.0),
            ],
            AwrDerived::default(),
        ));
        assert_eq!(v.class, VerdictClass::NotStorage);
        assert_eq!(
            v.answer,
            "Not the storage: I/O waits are 1.2 % of DB time ('db file sequential read' 1.0 % at 100 µs per wait); DB CPU 31.0 %; 67.1 % is neither CPU nor a wait."
        );
    }

    #[test]
    fn io_beside_cpu_is_mixed_and_no_db_time_is_inconclusive() {
        let v = concluded(report(
            450.0,
            &[
                ("db file scattered read", 100_000.0, 300.0),
                ("enq: TX - row lock contention", 10.0, 200.0),
            ],
            AwrDerived::default(),
        ));
        assert_eq!(v.class, VerdictClass::Mixed);
        assert_eq!(answer(&AwrReport::default()).0, VerdictClass::Inconclusive);
    }
}
