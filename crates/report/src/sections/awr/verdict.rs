//! An AWR or Statspack report's answer: is the storage what this DB time
//! is made of?
//!
//! The answer reads DB time as ADDM does, by share, grouping the
//! foreground waits by Oracle's wait classes ([`super::db_time`]), and
//! looks at the CPU before any I/O wait ([`super::findings::cpu`]):
//!
//! * User I/O and System I/O waits at half of DB time or more:
//!   storage-bound, unless their average is under the page-cache
//!   threshold (then the reads were served from memory); on a saturated
//!   host the answer says the CPU comes first;
//! * 'log file sync' at half or more, by what the commits wait on
//!   ([`super::findings::commit::cause`]): slow log writes are
//!   storage-bound, naming the log write latency; a fast log write that
//!   is most of the commit, Data Guard's SYNC remote write (named, with
//!   its average and count), or posting and scheduling are the commit
//!   path; a saturated host or Resource Manager is CPU; without 'log file
//!   parallel write', inconclusive;
//! * 'resmgr:cpu quantum' at half or more, DB CPU at half or more, or a
//!   saturated host with half of DB time neither CPU nor a wait: CPU;
//! * I/O waits under a tenth, or any other component at half or more:
//!   not the storage;
//! * else mixed.
//!
//! The findings that carry the answer lead its top findings.

use super::db_time::{self, DbTime};
use super::findings::commit::{self, CommitCause, LogWriter};
use super::findings::cpu::{self, CpuPressure};
use super::findings::tier_of;
use crate::sections::trace::findings::{LatencyTier, COMPONENT_SHARE};
use crate::verdict::top_after;
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

/// A report's answer: its class, its sentence, and the rules of the
/// findings that carry it (they lead the top findings).
struct Answer {
    class: VerdictClass,
    text: String,
    carried_by: &'static [&'static str],
}

fn said(class: VerdictClass, text: String, carried_by: &'static [&'static str]) -> Answer {
    Answer {
        class,
        text,
        carried_by,
    }
}

/// The class and answer sentence of a report: a pure function of its
/// DB time split and derived figures.
pub fn answer(a: &AwrReport) -> (VerdictClass, String) {
    let x = reasoned(a);
    (x.class, x.text)
}

fn reasoned(a: &AwrReport) -> Answer {
    let Some(d) = db_time::of(a) else {
        return said(
            VerdictClass::Inconclusive,
            "Inconclusive: the report gives no DB time to split into CPU and waits.".into(),
            &[],
        );
    };
    let pressure = cpu::pressure(a);
    if d.io_pct() >= DOMINANT {
        return io_bound(a, &d, pressure.as_ref());
    }
    if d.commit_pct() >= DOMINANT {
        return commit_bound(a, &d);
    }
    if let Some(x) = io_and_slow_log_writes(a, &d, pressure.as_ref()) {
        return x;
    }
    elsewhere(a, &d, pressure.as_ref())
}

/// Neither I/O waits nor commits reach half of DB time, but I/O waits
/// and commits waiting on slow log writes do together: the storage.
fn io_and_slow_log_writes(
    a: &AwrReport,
    d: &DbTime,
    pressure: Option<&CpuPressure>,
) -> Option<Answer> {
    let t = commit::times(a)?;
    let CommitCause::SlowLogWrite(tier) = commit::cause(a, &t) else {
        return None;
    };
    let (io, commits) = (d.io_pct(), d.commit_pct());
    if io + commits < DOMINANT {
        return None;
    }
    let cpu_first = pressure.map_or_else(String::new, |p| {
        format!(
            " But {}: a wait lasts until its process runs again, so the CPU comes first.",
            p.words()
        )
    });
    Some(said(
        VerdictClass::StorageBound,
        format!(
            "Storage-bound: I/O waits ({io:.1} %) and commits waiting on slow log writes ({commits:.1} %) are {:.1} % of DB time: 'log file sync' averages {} on 'log file parallel write' of {}, {}{}; {}.{cpu_first}",
            io + commits,
            us(t.sync_us),
            us(t.write_us),
            tier.words(),
            d.top_io().map_or_else(String::new, |e| format!(
                "; the largest I/O wait, '{}', is {:.1} %{}",
                e.name,
                e.pct,
                e.avg_us
                    .map_or_else(String::new, |a| format!(" at {} per wait", us(a)))
            )),
            cpu_words(d)
        ),
        &["awr.slow_log_write", "awr.io_wait", "awr.commit_wait"],
    ))
}

/// 'log file sync' from a tenth of DB time, in a clause that says what
/// the commits wait on, for an answer that is not about them.
fn commits_words(a: &AwrReport, d: &DbTime) -> String {
    let share = d.commit_pct();
    if share < COMPONENT_SHARE {
        return String::new();
    }
    let on = commit::times(a).map_or("", |t| match commit::cause(a, &t) {
        CommitCause::SlowLogWrite(_) => ", on slow log writes",
        CommitCause::FastLogWrite(_) => ", on fast log writes",
        CommitCause::RemoteWrite(_) => ", on the Data Guard SYNC remote write",
        CommitCause::Cpu(_) => ", queued for a CPU",
        CommitCause::Scheduling => ", mostly outside the log writes",
    });
    format!("; 'log file sync' {share:.1} %{on}")
}

/// 'DB CPU 31.1 %' or 'DB CPU not given'.
fn cpu_words(d: &DbTime) -> String {
    if d.cpu_s.is_some() {
        format!("DB CPU {:.1} %", d.cpu_pct)
    } else {
        "DB CPU not given".to_string()
    }
}

/// " ('db file sequential read' 80.0 % at 8.00 ms per wait)".
fn largest_io(d: &DbTime) -> String {
    d.top_io().map_or_else(String::new, |e| {
        format!(
            " ('{}' {:.1} %{})",
            e.name,
            e.pct,
            e.avg_us
                .map_or_else(String::new, |a| format!(" at {} per wait", us(a)))
        )
    })
}

/// I/O waits at half of DB time or more.
fn io_bound(a: &AwrReport, d: &DbTime, pressure: Option<&CpuPressure>) -> Answer {
    let (io, largest, cpu) = (d.io_pct(), largest_io(d), cpu_words(d));
    let cpu_first = pressure.map_or_else(String::new, |p| {
        format!(
            " But {}: a wait lasts until its process runs again, so the CPU comes first.",
            p.words()
        )
    });
    match d.io_avg_us().map(|v| (v, tier_of(a, v))) {
        Some((v, LatencyTier::PageCache)) => said(
            VerdictClass::PageCache,
            format!(
                "Served from memory: I/O waits are {io:.1} % of DB time{largest}, but at {} per wait on average they are as fast as the OS page cache, not the storage.{cpu_first}",
                us(v)
            ),
            &["awr.io_wait", "awr.page_cache_reads"],
        ),
        Some((v, tier)) => said(
            VerdictClass::StorageBound,
            format!(
                "Storage-bound: I/O waits are {io:.1} % of DB time{largest}, {} per wait on average, {}; {cpu}.{cpu_first}",
                us(v),
                tier.words()
            ),
            &[
                "awr.io_wait",
                "awr.host_cpu",
                "awr.resmgr",
                "awr.exadata_reads",
                "awr.device_reads",
            ],
        ),
        None => said(
            VerdictClass::StorageBound,
            format!("Storage-bound: I/O waits are {io:.1} % of DB time{largest}; {cpu}.{cpu_first}"),
            &[
                "awr.io_wait",
                "awr.host_cpu",
                "awr.resmgr",
                "awr.exadata_reads",
                "awr.device_reads",
            ],
        ),
    }
}

/// 'log file sync' at half of DB time or more: what the commits wait on.
fn commit_bound(a: &AwrReport, d: &DbTime) -> Answer {
    let head = format!(
        "'log file sync' is {:.1} % of DB time{}",
        d.commit_pct(),
        a.derived
            .log_file_sync_us
            .map_or_else(String::new, |v| format!(" at {} per commit", us(v)))
    );
    let lw = LogWriter::of(a.kind);
    let Some(t) = commit::times(a) else {
        return said(
            VerdictClass::Inconclusive,
            format!("Commits: {head}; {}.", lw.cannot_tell()),
            &["awr.commit_wait"],
        );
    };
    let (w, ratio, slow) = (us(t.write_us), t.ratio, t.slow_too());
    let timed = lw.timed(&w);
    match commit::cause(a, &t) {
        CommitCause::SlowLogWrite(tier) => {
            let queue = if ratio > 1.0 {
                format!(", and commits wait {ratio:.1}x that, queued behind the slow writes")
            } else {
                String::new()
            };
            said(
                VerdictClass::StorageBound,
                format!(
                    "Storage-bound on the log: {head}; the log writes themselves are slow, 'log file parallel write' averaging {w}, {}{queue}.",
                    tier.words()
                ),
                &["awr.slow_log_write", "awr.commit_wait"],
            )
        }
        CommitCause::FastLogWrite(tier) => said(
            VerdictClass::CommitPath,
            format!(
                "Commit path, not a slow log device: {head}; {} ('log file parallel write', {w}) is most of it ({ratio:.1}x) and fast, {}: the time is the number of commits.",
                lw.write(),
                tier.words()
            ),
            &["awr.commit_wait"],
        ),
        CommitCause::RemoteWrite(rw) => said(
            VerdictClass::CommitPath,
            format!(
                "Commit path, the Data Guard SYNC remote write: {head}, {ratio:.1}x the local log write ({w}); {slow}'{}' averages {} over {:.0} waits: the standby's acknowledgement, not the local log device.",
                rw.event,
                us(rw.avg_us),
                rw.waits
            ),
            &["awr.sync_remote_write", "awr.commit_wait"],
        ),
        CommitCause::Cpu(p) => said(
            VerdictClass::Cpu,
            format!(
                "CPU first: {head}, {ratio:.1}x {timed} ('log file parallel write'); {slow}{}: {} queue for a CPU, not for the log device.",
                p.words(),
                lw.queue
            ),
            &["awr.commit_not_io", "awr.host_cpu", "awr.resmgr"],
        ),
        CommitCause::Scheduling if t.slow_writes() => said(
            VerdictClass::CommitPath,
            format!(
                "Commit path more than the log device: {head}, {ratio:.1}x {timed} ('log file parallel write'); {slow}the rest is {}.",
                lw.scheduling
            ),
            &["awr.commit_not_io", "awr.commit_wait"],
        ),
        CommitCause::Scheduling => said(
            VerdictClass::CommitPath,
            format!(
                "Commit path, not the log device: {head}, {ratio:.1}x {timed} ('log file parallel write'); the time is {}.",
                lw.scheduling
            ),
            &["awr.commit_not_io", "awr.commit_wait"],
        ),
    }
}

/// Neither I/O nor commits dominate: the CPU, or not the storage, or
/// mixed.
fn elsewhere(a: &AwrReport, d: &DbTime, pressure: Option<&CpuPressure>) -> Answer {
    let (io, largest, cpu) = (d.io_pct(), largest_io(d), cpu_words(d));
    let host = a.derived.host_cpu_busy_pct.map_or_else(String::new, |b| {
        format!("; the host's CPUs were {b:.1} % busy")
    });
    if let Some(s) = cpu::resmgr_share(a).filter(|s| *s >= DOMINANT) {
        return said(
            VerdictClass::Cpu,
            format!("CPU: Resource Manager held sessions off the CPU for {s:.1} % of DB time ('resmgr:cpu quantum'); I/O waits {io:.1} %{largest}{host}."),
            &["awr.resmgr"],
        );
    }
    if d.cpu_pct >= DOMINANT {
        return said(
            VerdictClass::Cpu,
            format!(
                "CPU: DB CPU is {:.1} % of DB time; I/O waits {io:.1} %{largest}{host}.",
                d.cpu_pct
            ),
            &["awr.cpu", "awr.host_cpu"],
        );
    }
    let rest = d.rest_pct();
    let rest_counts = d.whole && d.cpu_s.is_some();
    if let Some(p) = pressure.filter(|p| p.busy_pct.is_some() && rest_counts && rest >= DOMINANT) {
        return said(
            VerdictClass::Cpu,
            format!(
                "CPU: {rest:.1} % of DB time is neither CPU nor a wait, and {}: sessions queued for a CPU; I/O waits {io:.1} %{largest}; {cpu}.",
                p.words()
            ),
            &["awr.uncaptured", "awr.host_cpu"],
        );
    }
    let other = d
        .events
        .iter()
        .find(|e| !e.class.is_io() && e.pct >= DOMINANT)
        .map(|e| format!("; '{}' is {:.1} %", e.name, e.pct))
        .unwrap_or_default();
    let rest_words = if rest_counts && rest >= COMPONENT_SHARE {
        format!("; {rest:.1} % is neither CPU nor a wait")
    } else {
        String::new()
    };
    let commits = commits_words(a, d);
    if io < COMPONENT_SHARE || !other.is_empty() {
        return said(
            VerdictClass::NotStorage,
            format!(
                "Not the storage: I/O waits are {io:.1} % of DB time{largest}; {cpu}{commits}{other}{rest_words}."
            ),
            &[],
        );
    }
    said(
        VerdictClass::Mixed,
        format!("Mixed: I/O waits are {io:.1} % of DB time{largest}; {cpu}{commits}{rest_words}."),
        &[],
    )
}

/// The verdict of a ranked report analysis: the findings that carry the
/// answer first, then the ranked top.
pub fn verdict(a: &AwrReport) -> Option<Verdict> {
    let mut x = reasoned(a);
    let mut first: Vec<usize> = x
        .carried_by
        .iter()
        .filter_map(|rule| a.findings.iter().position(|f| f.rule == *rule))
        .collect();
    // A watched snapshot interval (`dbio snap --watch`) adds the layer a
    // commit spends most of its time in, its finding first.
    let log_storage_bound = x.carried_by.contains(&"awr.slow_log_write");
    if let Some((class, text)) =
        crate::sections::snap::layers::amend(a, x.class, &x.text, log_storage_bound)
    {
        (x.class, x.text) = (class, text);
        if let Some(i) = a
            .findings
            .iter()
            .position(|f| f.rule == "snap.commit_layers")
        {
            first.insert(0, i);
        }
    }
    Some(Verdict {
        question: question(a),
        class: x.class,
        answer: x.text,
        top: top_after(first, &a.findings),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::awr::{AwrDerived, ReportKind, WaitEventRow};

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
    fn slow_log_writes_are_storage_bound_naming_their_latency() {
        // 'log file parallel write' 120 ms, 'log file sync' 480 ms: the
        // write in progress and a commit's own are half of it.
        let d = |lfs: f64| AwrDerived {
            log_file_sync_us: Some(lfs),
            log_file_parallel_write_us: Some(120_000.0),
            lfs_lfpw_ratio: Some(lfs / 120_000.0),
            ..Default::default()
        };
        let mut r = report(100.0, &[("log file sync", 1200.0, 600.0)], d(480_000.0));
        r.background_events.push(WaitEventRow {
            name: "log file parallel write".into(),
            waits: Some(5000.0),
            time_s: Some(600.0),
            avg_us: Some(120_000.0),
            ..Default::default()
        });
        let mut r2 = r.clone();
        let v = concluded(r.clone());
        assert_eq!(v.class, VerdictClass::StorageBound);
        assert_eq!(
            v.answer,
            "Storage-bound on the log: 'log file sync' is 60.0 % of DB time at 480 ms per commit; the log writes themselves are slow, 'log file parallel write' averaging 120 ms, device latency (no cache answered: the disk or remote storage itself), and commits wait 4.0x that, queued behind the slow writes."
        );
        crate::verdict::conclude_awr(&mut r2);
        let first = &r2.findings[r2.verdict.unwrap().top[0]];
        assert_eq!(first.rule, "awr.slow_log_write");
        assert!(!first.text.contains("will not shorten"), "{}", first.text);
        // 500 ms: more than the two writes; the slow writes still named.
        r.derived = d(500_000.0);
        let v = concluded(r);
        assert_eq!(v.class, VerdictClass::CommitPath);
        assert!(
            v.answer
                .starts_with("Commit path more than the log device:")
                && v.answer.contains("the log writes are slow too (120 ms")
                && v.answer.contains("explaining up to 240 ms of a commit"),
            "{}",
            v.answer
        );
    }

    #[test]
    fn a_fast_log_write_that_is_most_of_the_commit_is_the_number_of_commits() {
        let d = AwrDerived {
            log_file_sync_us: Some(500.0),
            log_file_parallel_write_us: Some(400.0),
            lfs_lfpw_ratio: Some(1.25),
            ..Default::default()
        };
        let v = concluded(report(100.0, &[("log file sync", 1_200_000.0, 600.0)], d));
        assert_eq!(v.class, VerdictClass::CommitPath);
        assert!(
            v.answer.ends_with("the time is the number of commits."),
            "{}",
            v.answer
        );
    }

    #[test]
    fn the_sync_remote_write_is_named_with_its_average_and_count() {
        let d = AwrDerived {
            log_file_sync_us: Some(3000.0),
            log_file_parallel_write_us: Some(300.0),
            lfs_lfpw_ratio: Some(10.0),
            host_cpu_busy_pct: Some(30.0),
            ..Default::default()
        };
        let mut r = report(100.0, &[("log file sync", 200_000.0, 600.0)], d);
        r.background_events.push(WaitEventRow {
            name: "SYNC Remote Write".into(),
            waits: Some(210_000.0),
            time_s: Some(525.0),
            avg_us: Some(2500.0),
            ..Default::default()
        });
        let v = concluded(r);
        assert_eq!(v.class, VerdictClass::CommitPath);
        assert!(
            v.answer.starts_with("Commit path, the Data Guard SYNC remote write: 'log file sync' is 60.0 % of DB time at 3.00 ms per commit, 10.0x the local log write (300 µs); 'SYNC Remote Write' averages 2.50 ms over 210000 waits"),
            "{}",
            v.answer
        );
    }

    #[test]
    fn commits_on_a_saturated_host_are_the_cpu_first() {
        let d = AwrDerived {
            log_file_sync_us: Some(2000.0),
            log_file_parallel_write_us: Some(200.0),
            lfs_lfpw_ratio: Some(10.0),
            host_cpu_busy_pct: Some(85.0),
            ..Default::default()
        };
        let mut r = report(200.0, &[("log file sync", 300_000.0, 600.0)], d);
        r.header.cpus = Some(16.0);
        let mut calm = r.clone();
        calm.derived.host_cpu_busy_pct = Some(80.0);
        assert_eq!(concluded(calm).class, VerdictClass::CommitPath);
        let v = concluded(r);
        assert_eq!(v.class, VerdictClass::Cpu);
        assert!(
            v.answer.contains("the host's CPUs were 85.0 % busy, past the 81 % knee for 16 CPUs: LGWR and the committing sessions queue for a CPU"),
            "{}",
            v.answer
        );
    }

    #[test]
    fn resource_manager_or_a_run_queue_at_half_is_cpu() {
        let v = concluded(report(
            200.0,
            &[("resmgr:cpu quantum", 50_000.0, 500.0)],
            AwrDerived::default(),
        ));
        assert_eq!(v.class, VerdictClass::Cpu);
        assert!(
            v.answer.starts_with(
                "CPU: Resource Manager held sessions off the CPU for 50.0 % of DB time"
            ),
            "{}",
            v.answer
        );
        // 60 % neither CPU nor a wait on a host past its knee.
        let busy = AwrDerived {
            host_cpu_busy_pct: Some(95.0),
            ..Default::default()
        };
        let mut r = report(300.0, &[("db file sequential read", 10_000.0, 100.0)], busy);
        r.header.cpus = Some(8.0);
        let mut idle = r.clone();
        let v = concluded(r);
        assert_eq!(v.class, VerdictClass::Cpu);
        assert!(v.answer.starts_with("CPU: 60.0 % of DB time is neither CPU nor a wait, and the host's CPUs were 95.0 % busy"), "{}", v.answer);
        idle.derived.host_cpu_busy_pct = Some(73.9);
        assert_eq!(concluded(idle).class, VerdictClass::Mixed);
    }

    #[test]
    fn io_on_a_saturated_host_is_still_storage_bound_but_the_cpu_comes_first() {
        let busy = AwrDerived {
            host_cpu_busy_pct: Some(99.0),
            ..Default::default()
        };
        let v = concluded(report(
            150.0,
            &[("db file sequential read", 100_000.0, 800.0)],
            busy,
        ));
        assert_eq!(v.class, VerdictClass::StorageBound);
        assert!(v.answer.ends_with("But the host's CPUs were 99.0 % busy, past 90 %: a wait lasts until its process runs again, so the CPU comes first."), "{}", v.answer);
    }

    #[test]
    fn io_and_commits_on_slow_log_writes_are_the_storage_together() {
        // 'db file sequential read' 13.1 %, 'log file sync' 48.1 % at
        // 29 ms on 28 ms log writes (the XE report's shape).
        let d = AwrDerived {
            log_file_sync_us: Some(29_000.0),
            log_file_parallel_write_us: Some(28_000.0),
            lfs_lfpw_ratio: Some(29.0 / 28.0),
            ..Default::default()
        };
        let ev = [
            ("log file sync", 16_586.0, 481.0),
            ("db file sequential read", 131_000.0, 131.0),
        ];
        let v = concluded(report(293.0, &ev, d.clone()));
        assert_eq!(v.class, VerdictClass::StorageBound);
        assert!(
            v.answer == "Storage-bound: I/O waits (13.1 %) and commits waiting on slow log writes (48.1 %) are 61.2 % of DB time: 'log file sync' averages 29.0 ms on 'log file parallel write' of 28.0 ms, device latency (no cache answered: the disk or remote storage itself); the largest I/O wait, 'db file sequential read', is 13.1 % at 1.00 ms per wait; DB CPU 29.3 %.",
            "{}",
            v.answer
        );
        // Under half together: mixed, the commits named.
        let ev = [
            ("log file sync", 16_586.0, 380.0),
            ("db file sequential read", 131_000.0, 119.0),
        ];
        let v = concluded(report(293.0, &ev, d.clone()));
        assert_eq!(v.class, VerdictClass::Mixed);
        assert!(
            v.answer
                .contains("; 'log file sync' 38.0 %, on slow log writes"),
            "{}",
            v.answer
        );
        // Fast log writes do not count as the storage.
        let fast = AwrDerived {
            log_file_parallel_write_us: Some(900.0),
            lfs_lfpw_ratio: Some(29.0 / 0.9),
            ..d
        };
        let ev = [
            ("log file sync", 16_586.0, 481.0),
            ("db file sequential read", 131_000.0, 131.0),
        ];
        let v = concluded(report(293.0, &ev, fast));
        assert_eq!(v.class, VerdictClass::Mixed);
        assert!(
            v.answer
                .contains("'log file sync' 48.1 %, mostly outside the log writes"),
            "{}",
            v.answer
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

    #[test]
    fn a_snapshots_commit_verdict_speaks_of_its_servers_log_flush() {
        let d = AwrDerived {
            log_file_sync_us: Some(2000.0),
            log_file_parallel_write_us: Some(200.0),
            lfs_lfpw_ratio: Some(10.0),
            host_cpu_busy_pct: Some(85.0),
            ..Default::default()
        };
        let ev = [("log file sync", 300_000.0, 600.0)];
        let mut oracle = report(200.0, &ev, d.clone());
        oracle.header.cpus = Some(16.0);
        let o = concluded(oracle.clone()).answer;
        assert!(
            o.contains("10.0x the log writer's 200 µs write ('log file parallel write')")
                && o.contains("LGWR and the committing sessions queue for a CPU"),
            "{o}"
        );
        for (kind, write, queue) in [
            (
                ReportKind::PostgresSnap,
                "10.0x the 200 µs WAL write and flush ('log file parallel write')",
                "the committing backends (and the walwriter) queue for a CPU",
            ),
            (
                ReportKind::MariadbSnap,
                "10.0x the binlog group commit's 200 µs write and sync",
                "the group commit leader, InnoDB's log threads and the committing threads queue for a CPU",
            ),
        ] {
            let mut r = oracle.clone();
            r.kind = kind;
            let cpu = concluded(r.clone()).answer;
            assert!(cpu.contains(write) && cpu.contains(queue), "{cpu}");
            // Without CPU pressure: scheduling, in the server's words.
            r.derived.host_cpu_busy_pct = None;
            let sched = concluded(r).answer;
            assert!(sched.starts_with("Commit path, not the log device"), "{sched}");
            for a in [&cpu, &sched] {
                assert!(!a.contains("log writer's") && !a.contains("LGWR"), "{a}");
            }
        }
    }
}
