//! AWR and Statspack reports in words (`dbio awr`): what the redo, commit,
//! read and writer figures of a report say, with the numbers that prove
//! it.
//!
//! * Commit time dominated by posting and scheduling rather than I/O:
//!   'log file sync' several times 'log file parallel write' ("Log File
//!   Sync wait event and SSD disks": 20.8 ms against 0.1 ms; faster disks
//!   did not help), with the host's CPU load as evidence.
//! * Small redo writes taking milliseconds: on a buffered file system each
//!   write smaller than a file-system block rewrites (and may first read)
//!   a whole block ("Analyzing Oracle Logwriter w/ buffered vs. direct
//!   I/O": 2,731 B per write at 4.2 ms; direct I/O cut the run by 30 %).
//! * Single-block reads served by the OS page cache (Kyle Hailey,
//!   "Oracle “Physical I/O”? not always physical").
//! * DBWR not keeping up ('free buffer waits', 'write complete waits'),
//!   and log switch stalls ('log file switch (checkpoint incomplete)'),
//!   against the writer configuration (Kevin Closson, "Over-Configuring
//!   DBWR Processes").
//! * 'log buffer space'; single-block read latency that the histogram
//!   puts on the device.
//! * Every component of DB time at or above a tenth of it (DB CPU, each
//!   foreground wait, the time neither accounts for) by its share, as
//!   ADDM ranks its findings, saying whether the storage explains it: an
//!   I/O wait by its average latency against the tier thresholds, 'log
//!   file sync' against 'log file parallel write', DB CPU is CPU. When no
//!   I/O event reaches a tenth, one finding gives the I/O waits' share.

use super::db_time::{self, DbTime, EventShare};
use crate::kit::findings::RuleSet;
use crate::kit::findings::{ev, finding, Finding, Severity};
use crate::kit::references::method_r;
use crate::kit::references::{
    lgwr_buffered_vs_direct, log_file_sync, over_configuring_dbwr, physical_io_not_always_physical,
};
use crate::sections::trace::findings::{article, LatencyTier, COMPONENT_SHARE};
use crate::verdict::severity_of_share;
use dbio_model::awr::AwrReport;
use dbio_model::read::{DEFAULT_PAGE_CACHE_MAX_NS, DEFAULT_STORAGE_CACHE_MAX_NS};
use dbio_model::units::format_ns;
use dbio_model::WaitClass;

/// The AWR rules.
pub const RULES: RuleSet<AwrReport> = RuleSet {
    area: "awr",
    evaluate,
};

/// From this ratio of 'log file sync' to 'log file parallel write'
/// averages, commits are said to wait mostly for something else than
/// the log write.
pub const LFS_LFPW_RATIO: f64 = 3.0;
/// Redo writes smaller than this (bytes) are "small": below a typical
/// 8 KiB file-system block.
pub const SMALL_REDO_WRITE: f64 = 8192.0;
/// A small redo write slower than this (µs) is slow for its size.
pub const SLOW_REDO_WRITE_US: f64 = 2000.0;
/// From this share of single-block read waits under the page-cache
/// threshold, the reads are said to be served by the OS cache (0..=1).
pub const PAGE_CACHE_SHARE: f64 = 0.1;
/// A log switch or log buffer stall shorter than this in total (s) is
/// not worth a finding (a handful of waits in an hour).
pub const MIN_STALL_S: f64 = 1.0;
/// From this share of single-block reads slower than the storage-cache
/// threshold, their latency is said to be the device's (0..=1).
pub const DEVICE_SHARE: f64 = 0.5;

fn us(v: f64) -> String {
    format_ns(v * 1000.0)
}

/// The total an AWR finding's impact is a share of.
pub const OF_DB_TIME: &str = "DB time";

fn evaluate(r: &AwrReport) -> Vec<Finding> {
    let mut out = Vec::new();
    for rule in [
        db_time_components,
        commit_not_io,
        small_redo_writes,
        read_tiers,
        dbwr_behind,
        log_switch_stalls,
        log_buffer_space,
    ] {
        rule(r, &mut out);
    }
    out
}

/// Commit time spent outside the log write ('log file sync' far above
/// 'log file parallel write').
fn commit_not_io(r: &AwrReport, out: &mut Vec<Finding>) {
    let d = &r.derived;
    if let (Some(lfs), Some(lfpw), Some(ratio)) = (
        d.log_file_sync_us,
        d.log_file_parallel_write_us,
        d.lfs_lfpw_ratio,
    ) {
        if ratio >= LFS_LFPW_RATIO {
            let mut evidence = vec![
                ev("'log file sync' average", lfs * 1000.0, "ns"),
                ev("'log file parallel write' average", lfpw * 1000.0, "ns"),
                ev("ratio", ratio, "x"),
            ];
            let cpu = match d.host_cpu_busy_pct {
                Some(b) => {
                    evidence.push(ev("host CPU busy", b, "%"));
                    format!("; the host's CPUs were {b:.1} % busy")
                }
                None => String::new(),
            };
            let share = db_time::of(r).map(|d| d.commit_pct());
            let severity = match share {
                Some(s) if s < COMPONENT_SHARE => Severity::Notice,
                _ => Severity::Warning,
            };
            let f = finding(
                "awr.commit_not_io",
                Some("log file sync"),
                severity,
                format!(
                    "'log file sync' averages {} against {} for 'log file parallel write' ({ratio:.1}x): {} of each commit is spent outside the log write, posting LGWR and waiting to be scheduled{cpu}; faster redo storage will not shorten it",
                    us(lfs),
                    us(lfpw),
                    us(lfs - lfpw),
                ),
                evidence,
                Some(log_file_sync()),
            );
            out.push(match share {
                Some(s) => f.with_impact(s, OF_DB_TIME),
                None => f,
            });
        }
    }
}

/// The tier thresholds a report was read with, ns.
pub(crate) fn thresholds(r: &AwrReport) -> (u64, u64) {
    r.derived.read_tiers.as_ref().map_or(
        (DEFAULT_PAGE_CACHE_MAX_NS, DEFAULT_STORAGE_CACHE_MAX_NS),
        |t| (t.page_cache_max_ns, t.storage_cache_max_ns),
    )
}

/// The tier an average wait of `avg_us` falls in.
pub fn tier_of(r: &AwrReport, avg_us: f64) -> LatencyTier {
    let (page, storage) = thresholds(r);
    let ns = avg_us * 1000.0;
    if ns < page as f64 {
        LatencyTier::PageCache
    } else if ns < storage as f64 {
        LatencyTier::StorageCache
    } else {
        LatencyTier::Device
    }
}

/// Every component of DB time from a tenth of it, and the I/O waits'
/// share when no I/O event reaches a tenth.
fn db_time_components(r: &AwrReport, out: &mut Vec<Finding>) {
    let Some(d) = db_time::of(r) else {
        return;
    };
    let db = d.db_time_s;
    if let Some(cpu) = d.cpu_s.filter(|_| d.cpu_pct >= COMPONENT_SHARE) {
        let share = d.cpu_pct;
        let mut evidence = vec![ev("DB CPU", cpu, "s"), ev("DB time", db, "s")];
        let host = match r.derived.host_cpu_busy_pct {
            Some(b) => {
                evidence.push(ev("host CPU busy", b, "%"));
                if b < 50.0 {
                    format!("; the host's CPUs were {b:.1} % busy, so the sessions worked on the CPU rather than queued for it")
                } else {
                    format!("; the host's CPUs were {b:.1} % busy")
                }
            }
            None => String::new(),
        };
        out.push(
            finding(
                "awr.cpu",
                Some("DB CPU"),
                severity_of_share(share),
                format!(
                    "DB CPU is {share:.1} % of DB time ({cpu:.1} s of {db:.1} s): time on the CPU, which the storage does not explain{host}"
                ),
                evidence,
                Some(method_r()),
            )
            .with_impact(share, OF_DB_TIME),
        );
    }
    for e in d.events.iter().filter(|e| e.pct >= COMPONENT_SHARE) {
        out.push(event_finding(r, &d, e));
    }
    let io = d.io_pct();
    if d.events
        .iter()
        .all(|e| !(e.class.is_io() && e.pct >= COMPONENT_SHARE))
    {
        let largest = match d.top_io() {
            Some(e) => format!(
                "; the largest, '{}', is {:.1} % ({:.1} s{})",
                e.name,
                e.pct,
                e.time_s,
                e.avg_us
                    .map_or_else(String::new, |a| format!(" at {} per wait", us(a)))
            ),
            None => String::new(),
        };
        out.push(
            finding(
                "awr.io_waits",
                Some("I/O waits"),
                severity_of_share(io),
                format!(
                    "I/O waits (User I/O and System I/O, foreground) are {io:.1} % of DB time{largest}: the storage explains little of this DB time"
                ),
                vec![
                    ev("I/O waits", io * db / 100.0, "s"),
                    ev("DB time", db, "s"),
                ],
                Some(method_r()),
            )
            .with_impact(io, OF_DB_TIME),
        );
    }
    let rest = d.rest_pct();
    if d.whole && d.cpu_s.is_some() && rest >= COMPONENT_SHARE {
        let aix = if r
            .header
            .platform
            .as_deref()
            .is_some_and(|p| p.contains("AIX"))
        {
            "; on AIX, the accounting of SMT threads can also report less DB CPU than the sessions used"
        } else {
            ""
        };
        out.push(
            finding(
                "awr.uncaptured",
                Some("DB time not in CPU or waits"),
                severity_of_share(rest),
                format!(
                    "{rest:.1} % of DB time ({:.1} s) is neither DB CPU nor a foreground wait: sessions waiting for a CPU in the run queue, or code with no wait event{aix}; no wait says it was the storage",
                    rest * db / 100.0
                ),
                vec![
                    ev("DB CPU", d.cpu_s.unwrap_or(0.0), "s"),
                    ev("foreground waits", d.waits_pct() * db / 100.0, "s"),
                    ev("DB time", db, "s"),
                ],
                Some(method_r()),
            )
            .with_impact(rest, OF_DB_TIME),
        );
    }
}

/// The finding about one foreground wait event from a tenth of DB time.
fn event_finding(r: &AwrReport, d: &DbTime, e: &EventShare) -> Finding {
    let share = e.pct;
    let per = e
        .avg_us
        .map_or_else(String::new, |a| format!(" at {} per wait", us(a)));
    let head = format!(
        "'{}' is {share:.1} % of DB time ({:.1} s{per})",
        e.name, e.time_s
    );
    let mut evidence = vec![ev("time", e.time_s, "s"), ev("DB time", d.db_time_s, "s")];
    if let Some(a) = e.avg_us {
        evidence.push(ev("average wait", a * 1000.0, "ns"));
    }
    let (rule, text, reference) = if e.class.is_io() {
        let reading = match e.avg_us {
            Some(a) => match tier_of(r, a) {
                LatencyTier::PageCache => format!(
                    "{} per wait is {}: faster storage would not shorten it",
                    us(a),
                    LatencyTier::PageCache.words()
                ),
                t => format!(
                    "{} per wait is {}: the storage explains this time",
                    us(a),
                    t.words()
                ),
            },
            None => "the storage explains this time".to_string(),
        };
        (
            "awr.io_wait",
            format!("{head}: a {} wait; {reading}", e.class.label()),
            Some(physical_io_not_always_physical()),
        )
    } else if e.class == WaitClass::Commit {
        let reading = match (r.derived.log_file_parallel_write_us, r.derived.lfs_lfpw_ratio) {
            (Some(w), Some(ratio)) if ratio >= LFS_LFPW_RATIO => format!(
                "commits wait {ratio:.1}x as long as the log writer's write ({}): not the log device, but posting and scheduling the log writer",
                us(w)
            ),
            (Some(w), Some(ratio)) => format!(
                "the log writer's write ('log file parallel write', {}) is most of it ({ratio:.1}x): the log device's write latency explains it",
                us(w)
            ),
            _ => "the report has no 'log file parallel write' to tell the log device from the log writer's scheduling".to_string(),
        };
        (
            "awr.commit_wait",
            format!("{head}: {reading}"),
            Some(log_file_sync()),
        )
    } else {
        (
            "awr.wait",
            format!(
                "{head}: {} {} wait, not an I/O: the storage does not explain it",
                article(e.class),
                e.class.label()
            ),
            Some(method_r()),
        )
    };
    finding(
        rule,
        Some(&e.name),
        severity_of_share(share),
        text,
        evidence,
        reference,
    )
    .with_impact(share, OF_DB_TIME)
}

/// Small redo writes that are slow: a buffered file system under the redo.
fn small_redo_writes(r: &AwrReport, out: &mut Vec<Finding>) {
    let d = &r.derived;
    if let (Some(size), Some(t)) = (d.redo_write_size_bytes, d.redo_write_time_us) {
        if size < SMALL_REDO_WRITE && t >= SLOW_REDO_WRITE_US {
            out.push(finding(
                "awr.small_redo_writes",
                Some("redo writes"),
                Severity::Notice,
                format!(
                    "redo writes average {size:.0} B and take {} each: writes this small should take well under a millisecond; on a buffered file system each one rewrites a whole file-system block, so put the redo logs on direct I/O (forcedirectio, filesystemio_options=SETALL) or raw/ASM storage",
                    us(t)
                ),
                vec![
                    ev("redo write size", size, "bytes"),
                    ev("redo write time", t * 1000.0, "ns"),
                ],
                Some(lgwr_buffered_vs_direct()),
            ));
        }
    }
}

/// Single-block reads answered by the page cache, or by the device.
fn read_tiers(r: &AwrReport, out: &mut Vec<Finding>) {
    let d = &r.derived;
    if let Some(tr) = &d.read_tiers {
        let n = tr.page_cache + tr.storage_cache + tr.device + tr.unresolved;
        if n > 0.0 {
            let share = tr.page_cache / n;
            if share >= PAGE_CACHE_SHARE {
                out.push(finding(
                    "awr.page_cache_reads",
                    Some(&tr.event),
                    Severity::Notice,
                    format!(
                        "'{}': {:.1} % of the waits took under {} ({}), as fast as the OS page cache answers: those reads were not physical, so the average mixes memory and storage",
                        tr.event,
                        100.0 * share,
                        format_ns(tr.page_cache_max_ns as f64),
                        tr.thresholds_from
                    ),
                    vec![ev("waits in the page-cache tier", 100.0 * share, "%")],
                    Some(physical_io_not_always_physical()),
                ));
            }
            let dev = tr.device / n;
            if dev >= DEVICE_SHARE {
                out.push(finding(
                    "awr.device_reads",
                    Some(&tr.event),
                    Severity::Info,
                    format!(
                        "'{}': {:.1} % of the waits took longer than {}: that latency is the device's, not a cache's",
                        tr.event,
                        100.0 * dev,
                        format_ns(tr.storage_cache_max_ns as f64)
                    ),
                    vec![ev("waits in the device tier", 100.0 * dev, "%")],
                    None,
                ));
            }
        }
    }
}

/// DBWR not keeping up: free buffer waits, write complete waits.
fn dbwr_behind(r: &AwrReport, out: &mut Vec<Finding>) {
    let writers = r
        .tables
        .iter()
        .flat_map(|t| &t.rows)
        .find(|row| row.first().is_some_and(|c| c == "db_writer_processes"))
        .and_then(|row| row.get(1))
        .and_then(|v| v.trim().parse::<f64>().ok());
    for name in ["free buffer waits", "write complete waits"] {
        if let Some(e) = r.event(name) {
            let waits = e.waits.unwrap_or(0.0);
            if waits <= 0.0 {
                continue;
            }
            let mut evidence = vec![ev("waits", waits, "count")];
            if let Some(t) = e.time_s {
                evidence.push(ev("time", t, "s"));
            }
            let w = match writers {
                Some(n) => {
                    evidence.push(ev("db_writer_processes", n, "count"));
                    format!(" with {n:.0} database writers configured")
                }
                None => String::new(),
            };
            out.push(finding(
                "awr.dbwr_behind",
                Some(name),
                Severity::Warning,
                format!(
                    "sessions waited {waits:.0} times on '{name}'{w}: DBWR did not write dirty buffers out fast enough; more writers help only when one writer is CPU-bound, otherwise look at the write latency of the datafiles"
                ),
                evidence,
                Some(over_configuring_dbwr()),
            ));
        }
    }
}

/// Sessions stopped while the log could not be switched.
fn log_switch_stalls(r: &AwrReport, out: &mut Vec<Finding>) {
    let d = &r.derived;
    for name in [
        "log file switch (checkpoint incomplete)",
        "log file switch (archiving needed)",
        "log file switch completion",
    ] {
        if let Some(e) = r.event(name) {
            let (Some(waits), Some(t)) = (e.waits, e.time_s) else {
                continue;
            };
            if waits <= 0.0 || t < MIN_STALL_S {
                continue;
            }
            let mut evidence = vec![ev("waits", waits, "count"), ev("time", t, "s")];
            if let Some(s) = d.log_switches_per_hour {
                evidence.push(ev("log switches per hour", s, "count"));
            }
            out.push(finding(
                "awr.log_switch_stall",
                Some(name),
                if name.contains("incomplete") || name.contains("archiving") {
                    Severity::Warning
                } else {
                    Severity::Notice
                },
                format!(
                    "'{name}': {waits:.0} waits, {t:.1} s: sessions stopped while the log could not be switched; larger or more redo log groups (or a faster checkpoint and archiver) remove the stall"
                ),
                evidence,
                Some(over_configuring_dbwr()),
            ));
        }
    }
}

/// Sessions waiting for room in the log buffer.
fn log_buffer_space(r: &AwrReport, out: &mut Vec<Finding>) {
    if let Some(e) = r.event("log buffer space") {
        if let (Some(waits), Some(t)) = (e.waits, e.time_s) {
            if waits > 0.0 && t >= MIN_STALL_S {
                out.push(finding(
                    "awr.log_buffer_space",
                    Some("log buffer space"),
                    Severity::Notice,
                    format!(
                        "'log buffer space': {waits:.0} waits, {t:.1} s: sessions filled the log buffer faster than LGWR wrote it out; the redo writes are too slow for this redo rate, or the log buffer too small"
                    ),
                    vec![ev("waits", waits, "count"), ev("time", t, "s")],
                    None,
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::awr::{AwrDerived, ReadTiers, WaitEventRow};

    fn report(d: AwrDerived) -> AwrReport {
        AwrReport {
            derived: d,
            ..Default::default()
        }
    }

    #[test]
    fn commit_time_outside_the_log_write_is_named_from_three_times() {
        let mk = |ratio: f64| {
            report(AwrDerived {
                log_file_sync_us: Some(100.0 * ratio),
                log_file_parallel_write_us: Some(100.0),
                lfs_lfpw_ratio: Some(ratio),
                host_cpu_busy_pct: Some(90.0),
                ..Default::default()
            })
        };
        assert!(evaluate(&mk(2.99)).is_empty());
        let f = evaluate(&mk(208.0));
        assert_eq!(f[0].rule, "awr.commit_not_io");
        assert!(f[0].text.contains("90.0 % busy"), "{}", f[0].text);
    }

    #[test]
    fn small_slow_redo_writes_recommend_direct_io() {
        let mk = |size: f64, t: f64| {
            report(AwrDerived {
                redo_write_size_bytes: Some(size),
                redo_write_time_us: Some(t),
                ..Default::default()
            })
        };
        assert!(evaluate(&mk(2731.0, 1999.0)).is_empty());
        assert!(evaluate(&mk(8192.0, 4162.0)).is_empty());
        let f = evaluate(&mk(2731.0, 4162.0));
        assert_eq!(f[0].rule, "awr.small_redo_writes");
        assert!(f[0].text.contains("direct I/O"));
    }

    #[test]
    fn page_cache_and_device_tiers_from_their_shares() {
        let mk = |p: f64, s: f64, d: f64| {
            report(AwrDerived {
                read_tiers: Some(ReadTiers {
                    event: "db file sequential read".into(),
                    page_cache: p,
                    storage_cache: s,
                    device: d,
                    ..Default::default()
                }),
                ..Default::default()
            })
        };
        assert!(evaluate(&mk(9.0, 82.0, 9.0)).is_empty());
        let rules: Vec<String> = evaluate(&mk(10.0, 0.0, 90.0))
            .into_iter()
            .map(|f| f.rule)
            .collect();
        assert_eq!(rules, ["awr.page_cache_reads", "awr.device_reads"]);
    }

    #[test]
    fn writer_and_log_switch_stalls_need_waits() {
        let ev = |name: &str, waits: f64| WaitEventRow {
            name: name.into(),
            waits: Some(waits),
            time_s: Some(828.0),
            ..Default::default()
        };
        let mut r = AwrReport {
            top_events: vec![
                ev("free buffer waits", 0.0),
                ev("log file switch (checkpoint incomplete)", 4627.0),
            ],
            ..Default::default()
        };
        let rules: Vec<String> = evaluate(&r).into_iter().map(|f| f.rule).collect();
        assert_eq!(rules, ["awr.log_switch_stall"]);
        r.top_events[1].time_s = Some(0.99);
        assert!(evaluate(&r).is_empty());
        r.top_events[1].time_s = Some(828.0);
        r.top_events[0].waits = Some(164.0);
        r.top_events.push(ev("log buffer space", 326.0));
        let rules: Vec<String> = evaluate(&r).into_iter().map(|f| f.rule).collect();
        assert_eq!(
            rules,
            [
                "awr.dbwr_behind",
                "awr.log_switch_stall",
                "awr.log_buffer_space"
            ]
        );
    }
}
