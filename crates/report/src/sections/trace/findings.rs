//! Oracle trace analyses in words (`dbio tracefile`): I/O waits so fast
//! that the OS page cache, not storage, served them.
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

fn evaluate(r: &TraceReport) -> Vec<Finding> {
    let st = &r.settings;
    let mut out = Vec::new();
    for row in &r.tiers {
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
        out.push(finding(
            "trace.page_cache_reads",
            Some(&row.event),
            Severity::Notice,
            format!(
                "'{}': {:.1} % of the waits ({} of {n}) took under {} ({}), as fast as the OS page cache answers: those reads were not physical, so this event's average mixes memory ({} mean) and storage ({} mean) and is not comparable across systems on its own",
                row.event,
                100.0 * share,
                row.page_cache.count,
                format_ns(st.page_cache_max_ns as f64),
                st.thresholds_from,
                format_ns(fast_mean),
                if rest == 0 { "-".to_string() } else { format_ns(rest_mean) },
            ),
            vec![
                ev("waits under the page-cache threshold", 100.0 * share, "%"),
                ev("waits", n as f64, "count"),
                ev("page-cache threshold", st.page_cache_max_ns as f64, "ns"),
                ev("mean of the fast waits", fast_mean, "ns"),
                ev("mean of the other waits", rest_mean, "ns"),
            ],
            Some(physical_io_not_always_physical()),
        ));
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
