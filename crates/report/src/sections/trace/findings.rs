//! Oracle trace analyses in words (`dbio tracefile`): every component of
//! response time at or above a tenth of R, named with its share and
//! whether storage explains it (Method R: the profile ranks by share of
//! R), and I/O waits so fast that the OS page cache, not storage, served
//! them.
//!
//! Whether storage explains an I/O event is judged from its mean wait
//! against the trace's tier boundaries (`--page-cache-max`, default
//! 100 µs; `--storage-cache-max`, default 1 ms): below the first is memory
//! speed, between them a storage cache, above the second the device.
//!
//! Kyle Hailey ("Oracle “Physical I/O”? not always physical") found a
//! production database looking faster than development only because many
//! of its 'physical' reads came from the file-system cache, visible as
//! waits under about 100 µs. Such waits make an event's average a mix of
//! memory and storage: comparing averages across systems then misleads.

use crate::kit::findings::RuleSet;
use crate::kit::findings::{ev, finding, Finding, Severity};
use crate::kit::references::physical_io_not_always_physical;
use dbio_model::trace::TraceReport;
use dbio_model::units::format_ns;

/// The trace rules.
pub const RULES: RuleSet<TraceReport> = RuleSet {
    area: "trace",
    evaluate,
};

/// From this share of an I/O event's waits under the page-cache threshold,
/// the event's average is said to mix memory and storage (0..=1).
pub const PAGE_CACHE_SHARE: f64 = 0.1;

/// Components of R at or above this share (0..=1) get a finding.
pub const COMPONENT_SHARE: f64 = 0.10;

fn evaluate(r: &TraceReport) -> Vec<Finding> {
    let mut out = components(r);
    out.extend(page_cache_reads(r));
    out
}

/// Where an I/O event's mean wait puts it.
pub fn io_tier(mean_ns: f64, r: &TraceReport) -> &'static str {
    if mean_ns < r.settings.page_cache_max_ns as f64 {
        "memory speed (the OS page cache), not the storage"
    } else if mean_ns < r.settings.storage_cache_max_ns as f64 {
        "a storage cache's speed"
    } else {
        "device latency"
    }
}

/// One finding per component of R at or above [`COMPONENT_SHARE`]: its
/// share as the impact, what it is and whether storage explains it.
fn components(r: &TraceReport) -> Vec<Finding> {
    use crate::kit::wait_class::{wait_class, what_it_waits_for, WaitClass};
    use dbio_model::trace::ProfileKind;
    let mut out = Vec::new();
    for line in &r.profile.lines {
        if line.share < COMPONENT_SHARE {
            continue;
        }
        let pct = line.share * 100.0;
        let total = format_ns(line.total_us as f64 * 1e3);
        let mean_ns = line.total_us as f64 * 1e3 / line.count.max(1) as f64;
        let name = event_name(&line.name);
        let idle = r.events.iter().any(|e| e.name == name && e.idle);
        let (rule, text) = match line.kind {
            ProfileKind::Cpu => (
                "trace.cpu",
                format!(
                    "CPU is {pct:.1} % of R ({total} in {} call{}): time on a CPU, not waiting for storage",
                    line.count,
                    crate::kit::findings::plural(line.count)
                ),
            ),
            ProfileKind::Unaccounted => (
                "trace.unaccounted",
                format!("{pct:.1} % of R ({total}) is unaccounted for: neither CPU nor a wait the trace records (a CPU run queue on a busy host, or uninstrumented code)"),
            ),
            ProfileKind::Idle | ProfileKind::Wait => {
                let class = wait_class(name, idle || line.kind == ProfileKind::Idle);
                let what = what_it_waits_for(name)
                    .map(|w| format!(", {w}"))
                    .unwrap_or_default();
                let judged = match class {
                    c if c.is_io() && name != "Disk file operations I/O" => {
                        format!("{}: storage I/O at {}", c.name(), io_tier(mean_ns, r))
                    }
                    WaitClass::Commit => "Commit: sessions waiting for the log writer; whether the log device explains it is 'log file parallel write' in the log writer's trace or AWR".to_string(),
                    c => format!("{}{what}: not storage", c.name()),
                };
                (
                    "trace.component",
                    format!(
                        "'{}' is {pct:.1} % of R ({total}, {} wait{} of {} on average), {judged}",
                        line.name,
                        line.count,
                        crate::kit::findings::plural(line.count),
                        format_ns(mean_ns)
                    ),
                )
            }
        };
        let mut evidence = vec![ev("time", line.total_us as f64 * 1e3, "ns")];
        if line.kind != ProfileKind::Unaccounted {
            evidence.push(ev("count", line.count as f64, "count"));
        }
        if matches!(line.kind, ProfileKind::Wait | ProfileKind::Idle) {
            evidence.push(ev("mean wait", mean_ns, "ns"));
        }
        out.push(
            finding(
                rule,
                Some(&line.name),
                crate::verdict::severity_of_share(pct),
                text,
                evidence,
                Some(crate::kit::references::doc("docs/tracefile.md")),
            )
            .with_impact(pct, "response time"),
        );
    }
    out
}

/// The event a profile line is about (`PL/SQL lock timer (inside calls)`
/// is the event `PL/SQL lock timer`).
pub fn event_name(line: &str) -> &str {
    line.strip_suffix(" (inside calls)").unwrap_or(line)
}

/// An event's share of R, percent (0 when the profile has no line for it).
fn share_of_r(r: &TraceReport, event: &str) -> f64 {
    r.profile
        .lines
        .iter()
        .filter(|l| event_name(&l.name) == event)
        .map(|l| l.share.max(0.0) * 100.0)
        .sum()
}

/// Read events whose waits were partly page-cache hits: a notice when the
/// event is at least [`COMPONENT_SHARE`] of R, else information (three
/// fast waits of an event that is no part of R change no answer).
/// 'Disk file operations I/O' opens and closes files: it reads nothing.
fn page_cache_reads(r: &TraceReport) -> Vec<Finding> {
    let st = &r.settings;
    let mut out = Vec::new();
    for row in r
        .tiers
        .iter()
        .filter(|t| t.event != "Disk file operations I/O")
    {
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
        let event_share = share_of_r(r, &row.event);
        let fast_mean = mean(row.page_cache.count, row.page_cache.total_us);
        let rest = row.storage_cache.count + row.device.count;
        let rest_mean = mean(rest, row.storage_cache.total_us + row.device.total_us);
        out.push(finding(
            "trace.page_cache_reads",
            Some(&row.event),
            if event_share >= COMPONENT_SHARE * 100.0 {
                Severity::Notice
            } else {
                Severity::Info
            },
            format!(
                "'{}': {:.1} % of the waits ({} of {n}) took under {} ({}), as fast as the OS page cache answers: those reads were not physical, so this event's average mixes memory ({} mean) and storage ({} mean) and is not comparable across systems on its own",
                row.event,
                100.0 * share,
                row.page_cache.count,
                format_ns(st.page_cache_max_ns as f64),
                st.thresholds_from,
                format_ns(fast_mean),
                if rest == 0 { "–".to_string() } else { format_ns(rest_mean) },
            ),
            [
                ev("waits under the page-cache threshold", 100.0 * share, "%"),
                ev("waits", n as f64, "count"),
                ev("page-cache threshold", st.page_cache_max_ns as f64, "ns"),
                ev("mean of the fast waits", fast_mean, "ns"),
            ]
            .into_iter()
            .chain((rest > 0).then(|| ev("mean of the other waits", rest_mean, "ns")))
            .collect(),
            Some(physical_io_not_always_physical()),
        ).with_impact(event_share, "response time"));
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
