//! A trace analysis's answer: is the storage what this response time is
//! made of?
//!
//! The answer reads the response-time profile as Method R does, by share
//! of R, grouping the components by Oracle's wait classes:
//!
//! * I/O waits (User I/O, System I/O) at half of R or more: storage-bound,
//!   unless their average latency is under the page-cache threshold (then
//!   the time was served from memory);
//! * 'log file sync' at half of R or more: the commit path; against the
//!   log writer's 'log file parallel write' when the trace holds it (far
//!   above it: not the log device; close to it: the log device); without
//!   it the trace cannot tell;
//! * CPU at half of R or more: CPU;
//! * any other component at half of R or more (the client's think time, a
//!   sleep the code asked for, a lock, unaccounted time), or I/O waits
//!   under a tenth of R: not the storage;
//! * else mixed: I/O waits between a tenth and a half of R, beside others.

use super::findings::{event_of, latency_tier, share_pct, LatencyTier, COMPONENT_SHARE};
use crate::sections::awr::findings::LFS_LFPW_RATIO;
use crate::verdict::{top, TOP};
use dbio_model::trace::{ProfileKind, ProfileLine, TraceReport};
use dbio_model::units::format_ns;
use dbio_model::{Verdict, VerdictClass, WaitClass};

/// From this share of R (percent) one kind of time is said to dominate.
pub const DOMINANT: f64 = 50.0;

/// The question a trace answers, naming the trace and its response time.
pub fn question(t: &TraceReport) -> String {
    format!(
        "Is it the storage? Trace {}, response time R = {}",
        t.label,
        format_ns(t.profile.response_time_us as f64 * 1e3)
    )
}

/// The shares of R a trace's profile splits into, percent.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Shares {
    /// I/O waits (User I/O and System I/O classes).
    pub io: f64,
    /// 'log file sync' (Commit).
    pub commit: f64,
    /// CPU.
    pub cpu: f64,
}

/// The shares of R by kind of time.
pub fn shares(t: &TraceReport) -> Shares {
    let mut s = Shares::default();
    for l in &t.profile.lines {
        match l.kind {
            ProfileKind::Cpu => s.cpu += share_pct(l),
            ProfileKind::Wait => match WaitClass::of(event_of(l)) {
                c if c.is_io() => s.io += share_pct(l),
                WaitClass::Commit => s.commit += share_pct(l),
                _ => {}
            },
            _ => {}
        }
    }
    s
}

/// The largest profile line of a kind of time, by share of R.
fn largest(t: &TraceReport, keep: impl Fn(&ProfileLine) -> bool) -> Option<&ProfileLine> {
    t.profile
        .lines
        .iter()
        .filter(|l| keep(l) && l.share > 0.0)
        .max_by(|a, b| a.share.total_cmp(&b.share))
}

fn is_io(l: &ProfileLine) -> bool {
    l.kind == ProfileKind::Wait && WaitClass::of(event_of(l)).is_io()
}

/// A line named as the answer names it.
pub(crate) fn named(l: &ProfileLine) -> String {
    match l.kind {
        ProfileKind::Cpu => "CPU".into(),
        ProfileKind::Unaccounted => "unaccounted-for time".into(),
        ProfileKind::Idle => format!("'{}' between calls (the client)", event_of(l)),
        ProfileKind::Wait if event_of(l) == "PL/SQL lock timer" => {
            "'PL/SQL lock timer' (a sleep the code asked for)".into()
        }
        ProfileKind::Wait => format!("'{}'", event_of(l)),
    }
}

fn mean_ns(l: &ProfileLine) -> Option<f64> {
    (l.count > 0).then(|| l.total_us as f64 * 1000.0 / l.count as f64)
}

/// The class and answer sentence of a trace: a pure function of its
/// profile and events (the findings only supply `top`).
pub fn answer(t: &TraceReport) -> (VerdictClass, String) {
    if t.profile.response_time_us <= 0 || t.profile.lines.is_empty() {
        return (
            VerdictClass::Inconclusive,
            "Inconclusive: the trace holds no response time to explain (no database call or wait was timed).".into(),
        );
    }
    let s = shares(t);
    let io_tail = format!("I/O waits {:.1} %", s.io);
    if s.io >= DOMINANT {
        let l = largest(t, is_io).expect("I/O waits have a line");
        // The I/O time's own average: all I/O waits together.
        let (us, n) = t
            .profile
            .lines
            .iter()
            .filter(|l| is_io(l))
            .fold((0i64, 0u64), |(us, n), l| (us + l.total_us, n + l.count));
        let mean = if n > 0 {
            us as f64 * 1000.0 / n as f64
        } else {
            0.0
        };
        let lmean = mean_ns(l).unwrap_or(mean);
        let op = super::findings::io_operation(event_of(l));
        return match latency_tier(mean, &t.settings) {
            LatencyTier::PageCache => (
                VerdictClass::PageCache,
                format!(
                    "Served from memory: I/O waits are {:.1} % of R, but at {} per wait on average they are as fast as the OS page cache, not the storage ({} {:.1} % of R at {} per {op}).",
                    s.io,
                    format_ns(mean),
                    named(l),
                    share_pct(l),
                    format_ns(lmean)
                ),
            ),
            tier => (
                VerdictClass::StorageBound,
                format!(
                    "Storage-bound: {} is {:.1} % of R at {} per {op}, {}; I/O waits {:.1} % of R, CPU {:.1} %.",
                    named(l),
                    share_pct(l),
                    format_ns(lmean),
                    tier.words(),
                    s.io,
                    s.cpu
                ),
            ),
        };
    }
    if s.commit >= DOMINANT {
        let lfs = t.events.iter().find(|e| e.name == "log file sync");
        let lfpw = t
            .events
            .iter()
            .find(|e| e.name == "log file parallel write" && e.count > 0);
        let head = format!(
            "'log file sync' is {:.1} % of R{}",
            s.commit,
            lfs.map_or_else(String::new, |e| format!(
                " at {} per commit",
                format_ns(e.mean_us * 1000.0)
            ))
        );
        return match (lfs, lfpw) {
            (Some(c), Some(w)) if w.mean_us > 0.0 => {
                let ratio = c.mean_us / w.mean_us;
                if ratio >= LFS_LFPW_RATIO {
                    (
                        VerdictClass::CommitPath,
                        format!(
                            "Commit path, not the log device: {head}, {ratio:.1}x the log writer's {} write ('log file parallel write'); the time is posting and scheduling the log writer.",
                            format_ns(w.mean_us * 1000.0)
                        ),
                    )
                } else {
                    (
                        VerdictClass::StorageBound,
                        format!(
                            "Storage-bound on the log: {head}, and the log writer's write takes {} of it ({ratio:.1}x): the log device's write latency.",
                            format_ns(w.mean_us * 1000.0)
                        ),
                    )
                }
            }
            _ => (
                VerdictClass::Inconclusive,
                format!(
                    "Commits: {head}; without the log writer's 'log file parallel write' (its trace, or an AWR report) this trace cannot tell the log device from the log writer's scheduling."
                ),
            ),
        };
    }
    if s.cpu >= DOMINANT {
        return (
            VerdictClass::Cpu,
            format!("CPU: CPU is {:.1} % of R; {io_tail}.", s.cpu),
        );
    }
    let biggest = largest(t, |_| true).expect("a positive line");
    if share_pct(biggest) >= DOMINANT || s.io < COMPONENT_SHARE {
        return (
            VerdictClass::NotStorage,
            format!(
                "Not the storage: {} is {:.1} % of R; {io_tail}.",
                named(biggest),
                share_pct(biggest)
            ),
        );
    }
    let l = largest(t, is_io).expect("I/O waits have a line");
    let lmean = mean_ns(l).unwrap_or(0.0);
    let other = largest(t, |l| !is_io(l) && l.kind != ProfileKind::Cpu)
        .filter(|o| share_pct(o) >= COMPONENT_SHARE)
        .map_or_else(String::new, |o| {
            format!(", {} {:.1} %", named(o), share_pct(o))
        });
    (
        VerdictClass::Mixed,
        format!(
            "Mixed: I/O waits are {:.1} % of R ({} {:.1} % at {} per wait, {}), CPU {:.1} %{other}.",
            s.io,
            named(l),
            share_pct(l),
            format_ns(lmean),
            latency_tier(lmean, &t.settings).words(),
            s.cpu,
        ),
    )
}

/// The verdict of a ranked trace analysis.
pub fn verdict(t: &TraceReport) -> Option<Verdict> {
    let (class, answer) = answer(t);
    Some(Verdict {
        question: question(t),
        class,
        answer,
        top: top(&t.findings, TOP),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sections::trace::findings::synthetic::{reads, trace};
    use dbio_model::trace::EventStats;

    fn concluded(mut t: TraceReport) -> Verdict {
        crate::verdict::conclude_trace(&mut t);
        let v = t.verdict.clone().unwrap();
        assert!(!v.top.is_empty(), "a verdict names its findings");
        v
    }

    #[test]
    fn device_bound_reads_are_storage_bound() {
        // 1000 reads of 6 ms (6 s) against 100 ms of CPU: 98.4 % of R.
        let v = concluded(reads(6000, 100_000));
        assert_eq!(v.class, VerdictClass::StorageBound);
        assert!(
            v.answer.starts_with("Storage-bound: 'db file sequential read' is 98.4 % of R at 6.00 ms per read, device latency"),
            "{}",
            v.answer
        );
    }

    #[test]
    fn reads_at_memory_speed_are_served_from_memory() {
        // 1000 reads of 20 µs (20 ms) against 2 ms of CPU.
        let v = concluded(reads(20, 2000));
        assert_eq!(v.class, VerdictClass::PageCache);
        assert!(
            v.answer.contains("as fast as the OS page cache"),
            "{}",
            v.answer
        );
    }

    #[test]
    fn cpu_bound_is_cpu() {
        // 71 % CPU, 3 % reads at 5 ms, 26 % client.
        let v = concluded(trace(&[
            ("CPU", ProfileKind::Cpu, 10, 710_000),
            ("db file sequential read", ProfileKind::Wait, 6, 30_000),
            (
                "SQL*Net message from client",
                ProfileKind::Idle,
                10,
                260_000,
            ),
        ]));
        assert_eq!(v.class, VerdictClass::Cpu);
        assert_eq!(v.answer, "CPU: CPU is 71.0 % of R; I/O waits 3.0 %.");
    }

    #[test]
    fn commits_far_above_the_log_write_are_the_commit_path() {
        // 'log file sync' 2 ms against 'log file parallel write' 200 µs.
        let mut t = trace(&[
            ("log file sync", ProfileKind::Wait, 1000, 2_000_000),
            ("CPU", ProfileKind::Cpu, 10, 500_000),
        ]);
        t.events.push(EventStats {
            name: "log file parallel write".into(),
            count: 1000,
            total_us: 200_000,
            mean_us: 200.0,
            ..Default::default()
        });
        let v = concluded(t.clone());
        assert_eq!(v.class, VerdictClass::CommitPath);
        assert!(
            v.answer.contains("10.0x the log writer's 200 µs write"),
            "{}",
            v.answer
        );
        // A write that takes most of the commit: the log device.
        t.events.last_mut().unwrap().mean_us = 1500.0;
        assert_eq!(concluded(t.clone()).class, VerdictClass::StorageBound);
        // No log writer in the trace: it cannot tell.
        t.events.pop();
        assert_eq!(concluded(t).class, VerdictClass::Inconclusive);
    }

    #[test]
    fn a_healthy_trace_gets_a_verdict_too() {
        // The client's think time is 90 % of R, the reads 2 %.
        let v = concluded(trace(&[
            (
                "SQL*Net message from client",
                ProfileKind::Idle,
                10,
                900_000,
            ),
            ("CPU", ProfileKind::Cpu, 10, 80_000),
            ("db file sequential read", ProfileKind::Wait, 4, 20_000),
        ]));
        assert_eq!(v.class, VerdictClass::NotStorage);
        assert_eq!(
            v.answer,
            "Not the storage: 'SQL*Net message from client' between calls (the client) is 90.0 % of R; I/O waits 2.0 %."
        );
    }

    #[test]
    fn io_beside_cpu_is_mixed_and_an_empty_trace_inconclusive() {
        let v = concluded(trace(&[
            ("CPU", ProfileKind::Cpu, 10, 450_000),
            ("db file scattered read", ProfileKind::Wait, 100, 400_000),
            (
                "enq: TX - row lock contention",
                ProfileKind::Wait,
                1,
                150_000,
            ),
        ]));
        assert_eq!(v.class, VerdictClass::Mixed);
        assert!(
            v.answer.starts_with("Mixed: I/O waits are 40.0 % of R ('db file scattered read' 40.0 % at 4.00 ms per wait"),
            "{}",
            v.answer
        );
        assert!(
            v.answer
                .ends_with("CPU 45.0 %, 'enq: TX - row lock contention' 15.0 %."),
            "{}",
            v.answer
        );
        let (class, _) = answer(&TraceReport::default());
        assert_eq!(class, VerdictClass::Inconclusive);
    }
}
