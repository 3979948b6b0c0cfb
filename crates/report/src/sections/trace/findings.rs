//! Oracle trace analyses in words (`dbio tracefile`): what each component
//! of the response time is, whether the storage explains it, and I/O
//! waits so fast that the OS page cache, not storage, served them.
//!
//! Method R (Cary Millsap and Jeff Holt, "Optimizing Oracle Performance")
//! explains a response time R by its profile: every component (CPU, each
//! wait event, the time no call accounts for) and its share of R. Every
//! component at or above [`COMPONENT_SHARE`] of R gets a finding that
//! names it, gives its share as the finding's impact and says whether the
//! storage explains it, by what evidence: an I/O wait's average latency
//! against the tier thresholds of the analysis (under the page-cache
//! threshold it is memory, under the storage-cache threshold a cache in
//! the storage, above it the device: a 6 ms single-block read is a
//! spinning disk or remote storage); 'log file sync' against the log
//! writer's 'log file parallel write' when the trace holds both; CPU is
//! CPU; the client's think time is the client's.
//!
//! Kyle Hailey ("Oracle “Physical I/O”? not always physical") found a
//! production database looking faster than development only because many
//! of its 'physical' reads came from the file-system cache, visible as
//! waits under about 100 µs. Such waits make an event's average a mix of
//! memory and storage: comparing averages across systems then misleads.

use crate::kit::findings::RuleSet;
use crate::kit::findings::{ev, finding, plural, Finding, Severity};
use crate::kit::references::{log_file_sync, method_r, physical_io_not_always_physical};
use crate::sections::awr::findings::LFS_LFPW_RATIO;
use crate::verdict::severity_of_share;
use dbio_model::read::{DEFAULT_PAGE_CACHE_MAX_NS, DEFAULT_STORAGE_CACHE_MAX_NS};
use dbio_model::trace::{ProfileKind, ProfileLine, TraceReport, TraceSettings};
use dbio_model::units::format_ns;
use dbio_model::WaitClass;

/// The trace rules.
pub const RULES: RuleSet<TraceReport> = RuleSet {
    area: "trace",
    evaluate,
};

/// From this share of an I/O event's waits under the page-cache threshold,
/// the event's average is said to mix memory and storage (0..=1).
pub const PAGE_CACHE_SHARE: f64 = 0.1;

/// From this share of R (percent), a component of the response time gets
/// a finding of its own.
pub const COMPONENT_SHARE: f64 = 10.0;

/// The total a trace finding's impact is a share of.
pub const OF_R: &str = "response time";

/// Where an I/O wait's latency puts it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LatencyTier {
    /// Under the page-cache threshold: memory answered.
    PageCache,
    /// Under the storage-cache threshold: a cache in the storage (an
    /// array's, or flash).
    StorageCache,
    /// Slower: the device itself (a spinning disk, remote storage).
    Device,
}

impl LatencyTier {
    /// What that latency is, in words.
    pub fn words(self) -> &'static str {
        match self {
            LatencyTier::PageCache => "memory speed (the OS page cache), not the storage",
            LatencyTier::StorageCache => "storage-cache latency (an array cache or flash)",
            LatencyTier::Device => {
                "device latency (no cache answered: the disk or remote storage itself)"
            }
        }
    }
}

/// The tier thresholds of an analysis, ns (the defaults where a result
/// built by hand has none).
pub fn thresholds(st: &TraceSettings) -> (u64, u64) {
    if st.page_cache_max_ns == 0 && st.storage_cache_max_ns == 0 {
        (DEFAULT_PAGE_CACHE_MAX_NS, DEFAULT_STORAGE_CACHE_MAX_NS)
    } else {
        (st.page_cache_max_ns, st.storage_cache_max_ns)
    }
}

/// The tier an average latency of `mean_ns` falls in: under the
/// page-cache threshold memory, under the storage-cache threshold a
/// storage cache, else the device.
pub fn latency_tier(mean_ns: f64, st: &TraceSettings) -> LatencyTier {
    let (page, storage) = thresholds(st);
    if mean_ns < page as f64 {
        LatencyTier::PageCache
    } else if mean_ns < storage as f64 {
        LatencyTier::StorageCache
    } else {
        LatencyTier::Device
    }
}

/// The event a profile line is about (`PL/SQL lock timer (inside calls)`
/// is about `PL/SQL lock timer`).
pub fn event_of(l: &ProfileLine) -> &str {
    l.name.strip_suffix(" (inside calls)").unwrap_or(&l.name)
}

/// What one I/O wait of an event does: `read`, `write`, or for 'Disk
/// file operations I/O' a file operation (open, close, resize), which is
/// never a read.
pub fn io_operation(event: &str) -> &'static str {
    if event == "Disk file operations I/O" {
        "file operation (open, close, resize; not a read)"
    } else if event.contains("read") {
        "read"
    } else if event.contains("write") {
        "write"
    } else {
        "I/O"
    }
}

/// Whether an event's waits are reads (a tier split by latency says where
/// a read was served from; it says nothing of a file open or a commit).
pub fn is_read(event: &str) -> bool {
    WaitClass::of(event).is_io() && event.contains("read")
}

/// `a` or `an` before a wait class's name.
pub fn article(class: WaitClass) -> &'static str {
    if class.label().starts_with(['A', 'E', 'I', 'O']) {
        "an"
    } else {
        "a"
    }
}

/// A line's share of R, percent.
pub fn share_pct(l: &ProfileLine) -> f64 {
    100.0 * l.share
}

/// Mean wait of a profile line, ns (absent without waits).
fn mean_ns(l: &ProfileLine) -> Option<f64> {
    (l.count > 0).then(|| l.total_us as f64 * 1000.0 / l.count as f64)
}

/// The mean wait of an event over the whole trace, ns.
fn event_mean_ns(r: &TraceReport, name: &str) -> Option<f64> {
    r.events
        .iter()
        .find(|e| e.name == name && e.count > 0)
        .map(|e| e.mean_us * 1000.0)
}

fn evaluate(r: &TraceReport) -> Vec<Finding> {
    let mut out = components(r);
    out.extend(page_cache_reads(r));
    out
}

/// One finding per component of R at or above [`COMPONENT_SHARE`].
pub fn components(r: &TraceReport) -> Vec<Finding> {
    if r.profile.response_time_us <= 0 {
        return Vec::new();
    }
    r.profile
        .lines
        .iter()
        .filter(|l| share_pct(l) >= COMPONENT_SHARE)
        .map(|l| component(r, l))
        .collect()
}

/// The finding about one component of R.
pub fn component(r: &TraceReport, l: &ProfileLine) -> Finding {
    let share = share_pct(l);
    let sev = severity_of_share(share);
    let time = format_ns(l.total_us as f64 * 1000.0);
    let base = vec![ev("time", l.total_us as f64 * 1000.0, "ns")];
    let f = match l.kind {
        ProfileKind::Cpu => finding(
            "trace.cpu",
            Some("CPU"),
            sev,
            format!(
                "CPU is {share:.1} % of R ({time} over {} database call{}): time on the CPU, which the storage does not explain; fewer buffer gets, parses or executions shorten it",
                l.count,
                plural(l.count)
            ),
            base,
            Some(method_r()),
        ),
        ProfileKind::Unaccounted => finding(
            "trace.unaccounted",
            Some("unaccounted-for"),
            sev,
            format!(
                "{share:.1} % of R ({time}) is unaccounted for: time inside the calls that neither their CPU nor a wait explains (waiting for a CPU in the run queue, code with no wait event, or time outside the trace); no wait says it was the storage"
            ),
            base,
            Some(method_r()),
        ),
        ProfileKind::Idle => finding(
            "trace.idle",
            Some(event_of(l)),
            sev,
            format!(
                "'{}' between database calls is {share:.1} % of R ({time}, {} wait{}): the database waited for its client (think time, network round trips, the application's own work), not for the storage",
                event_of(l),
                l.count,
                plural(l.count)
            ),
            base,
            Some(method_r()),
        ),
        ProfileKind::Wait => wait(r, l, share, sev, time, base),
    };
    f.with_impact(share, OF_R)
}

/// The finding about one wait event's share of R.
fn wait(
    r: &TraceReport,
    l: &ProfileLine,
    share: f64,
    sev: Severity,
    time: String,
    mut evidence: Vec<dbio_model::Evidence>,
) -> Finding {
    let name = event_of(l);
    let class = WaitClass::of(name);
    let mean = mean_ns(l);
    if let Some(m) = mean {
        evidence.push(ev("mean wait", m, "ns"));
    }
    evidence.push(ev("waits", l.count as f64, "count"));
    let per = mean.map_or_else(String::new, |m| format!(" at {} each", format_ns(m)));
    let head = format!(
        "'{name}' is {share:.1} % of R ({time}, {} wait{}{per})",
        l.count,
        plural(l.count)
    );
    if class.is_io() {
        let op = io_operation(name);
        let reading = match mean {
            Some(m) => {
                let tier = latency_tier(m, &r.settings);
                let (page, storage) = thresholds(&r.settings);
                evidence.push(ev("page-cache threshold", page as f64, "ns"));
                evidence.push(ev("storage-cache threshold", storage as f64, "ns"));
                match tier {
                    LatencyTier::PageCache => format!(
                        "{} per {op} is {}: this time is the host's, and faster storage would not shorten it",
                        format_ns(m),
                        tier.words()
                    ),
                    _ => format!(
                        "{} per {op} is {}: the storage explains this time",
                        format_ns(m),
                        tier.words()
                    ),
                }
            }
            None => "the storage explains this time".to_string(),
        };
        return finding(
            "trace.io_wait",
            Some(name),
            sev,
            format!(
                "{head}: {} {} wait; {reading}",
                article(class),
                class.label()
            ),
            evidence,
            Some(physical_io_not_always_physical()),
        );
    }
    if class == WaitClass::Commit {
        return commit(r, name, head, sev, evidence);
    }
    let reading = match name {
        "PL/SQL lock timer" => {
            "the code asked to sleep (DBMS_LOCK.SLEEP, DBMS_SESSION.SLEEP); not the storage"
                .to_string()
        }
        _ if class == WaitClass::Idle => {
            "an Idle-class wait inside a database call; not the storage".to_string()
        }
        _ => format!(
            "{} {} wait, not an I/O: the storage does not explain it",
            article(class),
            class.label()
        ),
    };
    finding(
        "trace.wait",
        Some(name),
        sev,
        format!("{head}: {reading}"),
        evidence,
        Some(method_r()),
    )
}

/// 'log file sync' against the log writer's 'log file parallel write',
/// when the trace holds both.
fn commit(
    r: &TraceReport,
    name: &str,
    head: String,
    sev: Severity,
    mut evidence: Vec<dbio_model::Evidence>,
) -> Finding {
    let lfs = event_mean_ns(r, name);
    let lfpw = event_mean_ns(r, "log file parallel write");
    let reading = match (lfs, lfpw) {
        (Some(s), Some(w)) if w > 0.0 => {
            let ratio = s / w;
            evidence.push(ev("mean 'log file parallel write'", w, "ns"));
            evidence.push(ev("'log file sync' / 'log file parallel write'", ratio, "x"));
            if ratio >= LFS_LFPW_RATIO {
                format!(
                    "commits wait {ratio:.1}x as long as the log writer's write ({}): the time is posting and scheduling the log writer, not the log device; faster redo storage would not shorten it",
                    format_ns(w)
                )
            } else {
                format!(
                    "the log writer's write takes {} of it ({ratio:.1}x): the log device's write latency explains it",
                    format_ns(w)
                )
            }
        }
        _ => "commits waited for the log writer; this trace has no 'log file parallel write' (the log writer's own trace), so it cannot tell whether the log device or the log writer's scheduling is why".to_string(),
    };
    finding(
        "trace.commit_wait",
        Some(name),
        sev,
        format!("{head}: {reading}"),
        evidence,
        Some(log_file_sync()),
    )
}

/// Read events whose waits are partly as fast as the page cache.
pub fn page_cache_reads(r: &TraceReport) -> Vec<Finding> {
    let st = &r.settings;
    let mut out = Vec::new();
    for row in r.tiers.iter().filter(|t| is_read(&t.event)) {
        let n = row.page_cache.count + row.storage_cache.count + row.device.count;
        if n == 0 {
            continue;
        }
        let share = row.page_cache.count as f64 / n as f64;
        if share < PAGE_CACHE_SHARE {
            continue;
        }
        let mean = |count: u64, us: i64| {
            if count == 0 {
                0.0
            } else {
                us as f64 * 1000.0 / count as f64
            }
        };
        let fast_mean = mean(row.page_cache.count, row.page_cache.total_us);
        let rest = row.storage_cache.count + row.device.count;
        let rest_mean = mean(rest, row.storage_cache.total_us + row.device.total_us);
        // How much the event matters: its share of R, which sets whether
        // its average is worth a notice.
        let event_share = r
            .profile
            .lines
            .iter()
            .filter(|l| l.kind == ProfileKind::Wait && event_of(l) == row.event)
            .map(share_pct)
            .sum::<f64>();
        let severity = if event_share >= COMPONENT_SHARE {
            Severity::Notice
        } else {
            Severity::Info
        };
        let threshold = format!(
            "{} ({})",
            format_ns(st.page_cache_max_ns as f64),
            st.thresholds_from
        );
        let text = if rest == 0 {
            format!(
                "'{}': {} took under {threshold}, as fast as the OS page cache answers ({} mean): those reads were not physical",
                row.event,
                if n == 1 {
                    "its one wait".to_string()
                } else {
                    format!("every one of its {n} waits")
                },
                format_ns(fast_mean),
            )
        } else {
            format!(
                "'{}': {:.1} % of the waits ({} of {n}) took under {threshold}, as fast as the OS page cache answers: those reads were not physical, so this event's average mixes memory ({} mean) and storage ({} mean) and is not comparable across systems on its own",
                row.event,
                100.0 * share,
                row.page_cache.count,
                format_ns(fast_mean),
                format_ns(rest_mean),
            )
        };
        let mut evidence = vec![
            ev("waits under the page-cache threshold", 100.0 * share, "%"),
            ev("waits", n as f64, "count"),
            ev("page-cache threshold", st.page_cache_max_ns as f64, "ns"),
            ev("mean of the fast waits", fast_mean, "ns"),
        ];
        if rest > 0 {
            evidence.push(ev("mean of the other waits", rest_mean, "ns"));
        }
        out.push(
            finding(
                "trace.page_cache_reads",
                Some(&row.event),
                severity,
                text,
                evidence,
                Some(physical_io_not_always_physical()),
            )
            .with_impact(event_share, OF_R),
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use dbio_model::trace::{TierCell, TierRow};

    fn report(fast: u64, slow: u64) -> TraceReport {
        let mut r = TraceReport::default();
        r.settings.page_cache_max_ns = 100_000;
        r.settings.thresholds_from = "default".into();
        r.tiers = vec![TierRow {
            event: "db file sequential read".into(),
            page_cache: TierCell {
                count: fast,
                total_us: 50 * fast as i64,
            },
            device: TierCell {
                count: slow,
                total_us: 5000 * slow as i64,
            },
            ..Default::default()
        }];
        r
    }

    #[test]
    fn fast_waits_from_a_tenth_of_an_event() {
        assert!(evaluate(&report(99, 901)).is_empty(), "9.9 %");
        let f = evaluate(&report(100, 900));
        assert_eq!(f.len(), 1, "10 %");
        assert!(
            f[0].text.starts_with("'db file sequential read': 10.0 % of the waits (100 of 1000) took under 100 µs (default)"),
            "{}",
            f[0].text
        );
        assert!(
            f[0].text
                .contains("memory (50.0 µs mean) and storage (5.00 ms mean)"),
            "{}",
            f[0].text
        );
        assert_eq!(f[0].evidence[0].value, 10.0);
        assert!(evaluate(&report(0, 0)).is_empty());
    }
}

/// Synthetic trace analyses for the rules' and the verdict's tests: a
/// profile built from (name, kind, count, µs) lines, R their sum.
#[cfg(test)]
pub mod synthetic {
    use dbio_model::trace::{EventStats, ProfileKind, ProfileLine, TraceReport, TraceSettings};

    /// A trace whose profile is `lines`, with the default thresholds.
    pub fn trace(lines: &[(&str, ProfileKind, u64, i64)]) -> TraceReport {
        let mut t = TraceReport {
            label: "synthetic.trc".into(),
            settings: TraceSettings {
                page_cache_max_ns: 100_000,
                storage_cache_max_ns: 1_000_000,
                thresholds_from: "default".into(),
                ..Default::default()
            },
            ..Default::default()
        };
        let r: i64 = lines.iter().map(|l| l.3).sum();
        t.profile.response_time_us = r;
        for &(name, kind, count, us) in lines {
            t.profile.lines.push(ProfileLine {
                name: name.into(),
                kind,
                count,
                total_us: us,
                share: us as f64 / r as f64,
            });
            if kind != ProfileKind::Cpu && kind != ProfileKind::Unaccounted {
                let event = name.strip_suffix(" (inside calls)").unwrap_or(name);
                t.events.push(EventStats {
                    name: event.into(),
                    count,
                    total_us: us,
                    mean_us: us as f64 / count.max(1) as f64,
                    ..Default::default()
                });
            }
        }
        t
    }

    /// 1000 single-block reads of `read_us` each beside `cpu_us` of CPU.
    pub fn reads(read_us: i64, cpu_us: i64) -> TraceReport {
        trace(&[
            (
                "db file sequential read",
                ProfileKind::Wait,
                1000,
                1000 * read_us,
            ),
            ("CPU", ProfileKind::Cpu, 10, cpu_us),
        ])
    }
}

#[cfg(test)]
mod component_tests {
    use super::synthetic::{reads, trace};
    use super::*;

    #[test]
    fn a_component_gets_a_finding_from_a_tenth_of_r() {
        // 'enq: TX' 9.99 % of R: none; at 10 %: a notice with its impact.
        let t = trace(&[
            ("CPU", ProfileKind::Cpu, 1, 9001),
            ("enq: TX - row lock contention", ProfileKind::Wait, 1, 999),
        ]);
        assert!(components(&t).iter().all(|f| f.rule != "trace.wait"));
        let t = trace(&[
            ("CPU", ProfileKind::Cpu, 1, 9000),
            ("enq: TX - row lock contention", ProfileKind::Wait, 1, 1000),
        ]);
        let f = components(&t);
        let w = f.iter().find(|f| f.rule == "trace.wait").unwrap();
        assert_eq!(w.severity, Severity::Notice);
        assert_eq!(w.share(), 10.0);
        assert_eq!(w.impact.as_ref().unwrap().of, "response time");
        assert!(
            w.text.contains("an Application wait, not an I/O"),
            "{}",
            w.text
        );
        let cpu = f.iter().find(|f| f.rule == "trace.cpu").unwrap();
        assert_eq!(cpu.severity, Severity::Warning, "90 % of R");
    }

    #[test]
    fn an_io_wait_is_read_by_its_latency_at_the_thresholds() {
        let st = &reads(1, 0).settings;
        assert_eq!(latency_tier(99_999.0, st), LatencyTier::PageCache);
        assert_eq!(latency_tier(100_000.0, st), LatencyTier::StorageCache);
        assert_eq!(latency_tier(999_999.0, st), LatencyTier::StorageCache);
        assert_eq!(latency_tier(1_000_000.0, st), LatencyTier::Device);
        // A 6 ms single-block read: device latency, the storage explains it.
        let f = components(&reads(6000, 1000));
        assert_eq!(f[0].rule, "trace.io_wait");
        assert_eq!(f[0].subject.as_deref(), Some("db file sequential read"));
        assert!(
            f[0].text.contains("6.00 ms per read is device latency"),
            "{}",
            f[0].text
        );
        assert!(
            f[0].text.contains("a User I/O wait; 6.00 ms"),
            "{}",
            f[0].text
        );
        assert!(f[0].text.contains("the storage explains this time"));
        // 20 µs: memory, not the storage.
        let f = components(&reads(20, 100));
        assert!(
            f[0].text.contains("20.0 µs per read is memory speed"),
            "{}",
            f[0].text
        );
        assert!(f[0].text.contains("faster storage would not shorten it"));
    }

    #[test]
    fn file_operations_are_never_called_reads() {
        let t = trace(&[
            ("Disk file operations I/O", ProfileKind::Wait, 4, 400),
            ("CPU", ProfileKind::Cpu, 1, 600),
        ]);
        let f = components(&t);
        let w = f.iter().find(|f| f.rule == "trace.io_wait").unwrap();
        assert!(
            w.text
                .contains("per file operation (open, close, resize; not a read)"),
            "{}",
            w.text
        );
        assert!(!is_read("Disk file operations I/O"));
        assert!(!is_read("utl_file I/O"));
        assert!(!is_read("log file sync"));
        assert!(is_read("db file scattered read"));
    }

    #[test]
    fn log_file_sync_is_read_against_log_file_parallel_write() {
        // 2 ms commits against 200 µs writes: 10x, not the log device.
        let mut t = trace(&[
            ("log file sync", ProfileKind::Wait, 100, 200_000),
            ("CPU", ProfileKind::Cpu, 10, 50_000),
        ]);
        t.events.push(dbio_model::trace::EventStats {
            name: "log file parallel write".into(),
            count: 100,
            total_us: 20_000,
            mean_us: 200.0,
            ..Default::default()
        });
        let f = components(&t);
        assert_eq!(f[0].rule, "trace.commit_wait");
        assert!(
            f[0].text
                .contains("10.0x as long as the log writer's write"),
            "{}",
            f[0].text
        );
        assert!(f[0].text.contains("not the log device"));
        // Without the log writer's trace it says it cannot tell.
        t.events.pop();
        let f = components(&t);
        assert!(f[0].text.contains("cannot tell"), "{}", f[0].text);
    }

    #[test]
    fn idle_time_between_calls_and_sleeps_are_not_the_storage() {
        let t = trace(&[
            ("SQL*Net message from client", ProfileKind::Idle, 10, 9000),
            (
                "PL/SQL lock timer (inside calls)",
                ProfileKind::Wait,
                1,
                1000,
            ),
        ]);
        let f = components(&t);
        assert_eq!(f[0].rule, "trace.idle");
        assert!(f[0].text.contains("waited for its client"));
        assert_eq!(f[1].subject.as_deref(), Some("PL/SQL lock timer"));
        assert!(f[1].text.contains("asked to sleep"), "{}", f[1].text);
    }
}
